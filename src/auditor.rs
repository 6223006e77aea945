//! N-API surface of the audit: `new Auditor(configJson?, optionsJson?)`, `auditor.auditFile(...)`.
//!
//! One call audits one whole file in Rust (read, decompress, parse, guard) and
//! returns the report as JSON text: no per-event crossing into JavaScript.

use std::path::Path;

use napi::bindgen_prelude::*;
use napi_derive::napi;

use toolguard_audit::{AuditOptions, Auditor as Inner, Format};
use toolguard_core::config::{Config, ConfigValue};

use crate::errors::{config_error, invalid};

/// Replays recorded sessions through the guard engine.
#[napi]
pub struct Auditor {
    inner: Inner,
}

#[napi]
impl Auditor {
    /// `configJson`: the GuardEngine config as JSON text (`{repeat?, loudFailure?, loops?}`);
    /// the loop detectors are on unless it says `loops: false`.
    /// Throws an `Error` naming the bad key or rule id, like `new GuardEngine`.
    /// `optionsJson`: the audit's limits, `{maxLineBytes?, sinceMs?}` (a longer
    /// line is reported and skipped, default 256 MiB; lines stamped before
    /// `sinceMs` are skipped).
    #[napi(constructor, catch_unwind)]
    pub fn new(
        env: Env,
        config_json: Option<String>,
        options_json: Option<String>,
    ) -> Result<Self> {
        // The audit runs the loop detectors unless the config says `loops: false`.
        let value = match config_json {
            Some(text) => ConfigValue::from_json(&text)
                .map_err(|e| config_error(&env, e.into(), &ConfigValue::Undefined))?,
            None => ConfigValue::Undefined,
        };
        let config =
            Config::with_loops_by_default(&value).map_err(|e| config_error(&env, e, &value))?;
        let mut inner = Inner::new(&config).map_err(|e| config_error(&env, e, &value))?;
        if let Some(text) = options_json {
            inner.set_options(
                AuditOptions::from_json(&text).map_err(|e| invalid(format!("toolguard: {e}")))?,
            );
        }
        Ok(Self { inner })
    }

    /// Audit one log file (DSH `session.jsonl` / `.zstd`, a Claude Code
    /// transcript, a Codex rollout, an OTLP/JSON trace file or a generic trace);
    /// returns the session report as JSON text. `onProgress(bytesRead, totalBytes)`
    /// is called every few MB and once at the end.
    #[napi(
        catch_unwind,
        ts_args_type = "path: string, format?: 'auto' | 'dsh' | 'trace' | 'claude-code' | 'codex' | 'otlp', onProgress?: (bytesRead: number, totalBytes: number) => void"
    )]
    pub fn audit_file(
        &mut self,
        path: String,
        format: Option<String>,
        on_progress: Option<Function<FnArgs<(f64, f64)>, ()>>,
    ) -> Result<String> {
        let format = match format.as_deref() {
            None => Format::Auto,
            Some(name) => Format::parse(name).ok_or_else(|| {
                invalid(format!(
                    "toolguard: format must be one of {} (got {name:?})",
                    Format::NAMES.join(", ")
                ))
            })?,
        };
        let mut failed: Option<Error> = None;
        let mut progress = |done: u64, total: u64| {
            if let (Some(callback), None) = (&on_progress, &failed) {
                if let Err(e) = callback.call((done as f64, total as f64).into()) {
                    failed = Some(e);
                }
            }
        };
        let report = self
            .inner
            .audit_path(Path::new(&path), format, &mut progress);
        if let Some(e) = failed {
            return Err(e);
        }
        Ok(report.to_json())
    }
}
