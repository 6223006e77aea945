//! N-API surface of the audit: `new Auditor(configJson?, optionsJson?)`, `auditor.auditFile(...)`.
//!
//! One call audits one whole file in Rust (read, decompress, parse, guard) and
//! returns the report as JSON text: no per-event crossing into JavaScript.

use std::path::Path;

use napi::bindgen_prelude::*;
use napi_derive::napi;

use std::ops::ControlFlow;

use toolguard_audit::parallel::{audit_batch, BatchOptions, Event, Input};
use toolguard_audit::{detect_path, AuditOptions, Auditor as Inner, Format};
use toolguard_core::config::{Config, ConfigValue};

use crate::errors::{coded_error, config_error, invalid, option_error};

/// `onProgress(filesDone, filesTotal, bytesDone, bytesTotal, sessions)` of `auditFiles`.
type BatchProgress<'scope> = Function<'scope, FnArgs<(f64, f64, f64, f64, f64)>, ()>;

/// Replays recorded sessions through the guard engine.
#[napi]
pub struct Auditor {
    inner: Inner,
}

#[napi]
impl Auditor {
    /// `configJson`: the GuardEngine config as JSON text (`{repeat?, loudFailure?, loops?, exactMode?}`);
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
            inner.set_options(AuditOptions::from_json(&text).map_err(|e| option_error(&env, e))?);
        }
        Ok(Self { inner })
    }

    /// Audit one log file (DSH `session.jsonl` / `.zstd`, a Claude Code
    /// transcript, a Codex rollout, an OTLP/JSON trace file, a generic trace,
    /// or a trajectory: mini-swe-agent, SWE-agent, OpenHands, and the text
    /// captures); returns the session reports (priced: with their `waste`) as
    /// JSON Lines text, one line a session (most files hold one; an evaluation output one a line).
    /// `onProgress(bytesRead, totalBytes)` is called every few MB and once at the end.
    #[napi(
        catch_unwind,
        ts_args_type = "path: string, format?: 'auto' | 'dsh' | 'trace' | 'claude-code' | 'codex' | 'otlp' | 'mini-swe-agent' | 'swe-agent' | 'openhands-v1' | 'openhands-v0' | 'claude-code-md' | 'codex-exec-log' | 'mini-swe-agent-log', onProgress?: (bytesRead: number, totalBytes: number) => void"
    )]
    pub fn audit_file(
        &mut self,
        env: Env,
        path: String,
        format: Option<String>,
        on_progress: Option<Function<FnArgs<(f64, f64)>, ()>>,
    ) -> Result<String> {
        let format = match format.as_deref() {
            None => Format::Auto,
            Some(name) => Format::parse(name).ok_or_else(|| {
                coded_error(
                    &env,
                    "TOOLGUARD_OUT_OF_RANGE",
                    &[],
                    format!(
                        "toolguard: format must be one of {} (got {name:?})",
                        Format::NAMES.join(", ")
                    ),
                )
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
        let mut text = String::new();
        self.inner.audit_path_each(
            Path::new(&path),
            format,
            &mut progress,
            &mut |mut report| {
                if !text.is_empty() {
                    text.push('\n');
                }
                report.finish();
                text.push_str(&report.to_json());
            },
        );
        if let Some(e) = failed {
            return Err(e);
        }
        Ok(text)
    }

    /// Audit many files on every core (`threads`), Parquet files row by row;
    /// `onReport(json, figures)` gets each session report, in input order,
    /// as it is ready: the report's JSON (priced: with its `waste`) and the
    /// few figures a summary folds (`SessionFigures`: counts, rules, tokens,
    /// waste), both made on the worker thread; `onProgress(filesDone, filesTotal, bytesDone, bytesTotal,
    /// sessions)` every 100 ms or so. `names[i]` is the `file` the report
    /// shows, `keys[i]` what `--shard` hashes (the path relative to its root).
    /// `optionsJson`: `{format?, threads?, shard?: "i/n", column?}`; a bad one
    /// throws before any file is read (`code` and `path` name it). An exception
    /// thrown by a callback stops the batch and is rethrown.
    #[napi(
        catch_unwind,
        ts_args_type = "paths: string[], names: string[], keys: string[], optionsJson: string, onReport: (json: string, figures: string) => void, onProgress?: (filesDone: number, filesTotal: number, bytesDone: number, bytesTotal: number, sessions: number) => void"
    )]
    // The JavaScript call's positional parameters, plus the env napi-rs injects.
    #[allow(clippy::too_many_arguments)]
    pub fn audit_files(
        &mut self,
        env: Env,
        paths: Vec<String>,
        names: Vec<String>,
        keys: Vec<String>,
        options_json: String,
        on_report: Function<FnArgs<(String, String)>, ()>,
        on_progress: Option<BatchProgress<'_>>,
    ) -> Result<()> {
        if names.len() != paths.len() || keys.len() != paths.len() {
            return Err(invalid(
                "toolguard: paths, names and keys must have one entry each",
            ));
        }
        let options = BatchOptions::from_json(&options_json).map_err(|e| option_error(&env, e))?;
        let inputs: Vec<Input> = paths
            .into_iter()
            .zip(names)
            .zip(keys)
            .map(|((path, name), key)| Input {
                path: path.into(),
                name,
                key,
            })
            .collect();
        let mut failed: Option<Error> = None;
        let mut on_event = |event: Event| {
            // Each callback in a handle scope of its own: without it every
            // report string stays alive until the whole batch returns, and
            // memory grows with the number of sessions.
            let called = env.run_in_scope(|| match event {
                Event::Report { json, figures } => on_report.call((json, figures).into()),
                Event::Progress(p) => match &on_progress {
                    Some(callback) => callback.call(
                        (
                            p.files_done as f64,
                            p.files_total as f64,
                            p.bytes_done as f64,
                            p.bytes_total as f64,
                            p.sessions as f64,
                        )
                            .into(),
                    ),
                    None => Ok(()),
                },
            });
            match called {
                Ok(()) => ControlFlow::Continue(()),
                Err(e) => {
                    failed = Some(e);
                    ControlFlow::Break(())
                }
            }
        };
        audit_batch(&self.inner, &inputs, &options, &mut on_event)
            .map_err(|e| config_error(&env, e, &ConfigValue::Undefined))?;
        match failed {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }
}

/// The format of the session log at `path`, by its content, as
/// `--format auto` reads it; `null` when it is none known (or unreadable).
/// For a directory search: files whose names do not say (`*.json`, `*.md`,
/// `*.log`) are audited only when this names a format. Reads at most 64 MiB.
#[napi(catch_unwind)]
pub fn detect_log_format(path: String) -> Option<String> {
    detect_path(Path::new(&path), 64 << 20)
        .ok()
        .flatten()
        .map(|f| f.as_str().to_owned())
}

/// Every `--format` name the audit reads, `auto` first: the one list the
/// CLI offers and checks (`Format::NAMES` in the audit crate).
#[napi(catch_unwind)]
pub fn log_formats() -> Vec<String> {
    Format::NAMES.iter().map(|&name| name.to_owned()).collect()
}
