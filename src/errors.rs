//! Errors at the edge: the core's typed [`toolguard_core::Error`] (and the
//! audit's [`OptionError`]) becomes a JavaScript `Error` here, in one place,
//! and no panic crosses N-API. Every such error is data: the `Error`
//! carries `code` (a stable name: `TOOLGUARD_…`) and `path` (the bad
//! value's key path within the argument it came from — the config, a saved
//! state, the audit's options; `[]` for the argument as a whole — as
//! lightningcss attaches `loc` and `data`), an unknown key's also
//! `expected` (the keys its section accepts), and a config file's also
//! `file` and `line`, so no caller reads the message.

use std::panic::{catch_unwind, AssertUnwindSafe};

use napi::bindgen_prelude::*;
use toolguard_audit::OptionError;
use toolguard_core::config::ConfigValue;
use toolguard_core::PathStep;

/// A core error about one argument that is not a config (a saved state):
/// its message is the core's `Display` (the texts the tests pin), its
/// `code` the core's, `path` the bad value's key in that argument.
pub fn core_error(env: &Env, e: toolguard_core::Error, path: &[PathStep]) -> Error {
    data_error(env, e.to_string(), e.code(), path, e.expected(), None)
}

/// An audit option that cannot be used (`new Auditor`, `auditFiles`).
pub fn option_error(env: &Env, e: OptionError) -> Error {
    data_error(env, e.message, e.code, &e.path, e.expected, None)
}

/// An error the binding finds itself, as data: `code`, and `path` within
/// the argument it is about.
pub fn coded_error(env: &Env, code: &str, path: &[PathStep], message: String) -> Error {
    data_error(env, message, code, path, None, None)
}

/// The one mapping of a config error to JavaScript: the core's message,
/// `code`, and `path` (steps below the config; `[]` for the config as a whole).
pub fn config_error(env: &Env, e: toolguard_core::Error, config: &ConfigValue) -> Error {
    let path = e.path(config).unwrap_or_default();
    data_error(env, e.to_string(), e.code(), &path, e.expected(), None)
}

/// A config file's error (toolguard-hook's loader): its message names the
/// file and line; `file` and `line` are properties too.
pub fn file_error(env: &Env, e: toolguard_hook::config::FileError) -> Error {
    let at = (e.file.as_str(), e.line);
    data_error(env, e.message, e.code, &e.path, e.expected, Some(at))
}

fn data_error(
    env: &Env,
    message: String,
    code: &str,
    path: &[PathStep],
    expected: Option<&[&str]>,
    file: Option<(&str, Option<usize>)>,
) -> Error {
    let build = || -> Result<Error> {
        let mut error = env.create_error(Error::new(Status::InvalidArg, message.clone()))?;
        error.set("code", code)?;
        let steps: Vec<Either<&str, u32>> = path
            .iter()
            .map(|step| match step {
                PathStep::Key(k) => Either::A(k.as_str()),
                PathStep::Index(i) => Either::B(*i as u32),
            })
            .collect();
        error.set("path", steps)?;
        if let Some(keys) = expected {
            error.set("expected", keys.to_vec())?;
        }
        if let Some((file, line)) = file {
            error.set("file", file)?;
            if let Some(line) = line {
                error.set("line", line as u32)?;
            }
        }
        Ok(Error::from(error.to_unknown()))
    };
    // Could not build the object (the env is tearing down): the message alone.
    build().unwrap_or_else(|_| invalid(message.clone()))
}

/// A JavaScript `Error` for bad input found by the binding itself.
pub fn invalid(reason: impl Into<String>) -> Error {
    Error::new(Status::InvalidArg, reason.into())
}

/// Run `f`, turning a panic into a JavaScript `Error`: a guard bug must
/// surface as an exception the caller can fail open on, never as a crash.
pub fn guarded<T>(f: impl FnOnce() -> Result<T>) -> Result<T> {
    catch_unwind(AssertUnwindSafe(f)).unwrap_or_else(|payload| {
        let reason = payload
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| payload.downcast_ref::<&str>().copied())
            .unwrap_or("unknown panic");
        Err(Error::new(
            Status::GenericFailure,
            format!("toolguard: internal error (panic): {reason}"),
        ))
    })
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub enum PanicPoint {
    /// While the call is read and the chain advanced (JavaScript thread).
    Observe,
    /// In the scan of a result (the worker thread under `observeAsync`).
    Scan,
}

/// Test-only hook proving that no panic crosses N-API, compiled only with
/// the `test-panic` cargo feature (never in the shipped binary): when the
/// environment variable `TOOLGUARD_TEST_PANIC` is `observe:<tool>` or
/// `scan:<tool>` at the first call, every later call of exactly that tool
/// name panics at that point.
#[cfg(feature = "test-panic")]
pub fn test_panic_point(name: &str, point: PanicPoint) {
    use std::sync::OnceLock;
    static ARMED: OnceLock<Option<(PanicPoint, String)>> = OnceLock::new();
    let armed = ARMED.get_or_init(|| {
        let spec = std::env::var("TOOLGUARD_TEST_PANIC").ok()?;
        let (at, tool) = spec.split_once(':')?;
        let at = match at {
            "observe" => PanicPoint::Observe,
            "scan" => PanicPoint::Scan,
            _ => return None,
        };
        Some((at, tool.to_owned()))
    });
    if let Some((at, tool)) = armed {
        if *at == point && tool == name {
            panic!("TOOLGUARD_TEST_PANIC forced a panic for tool {name}");
        }
    }
}

#[cfg(not(feature = "test-panic"))]
#[inline(always)]
pub fn test_panic_point(_name: &str, _point: PanicPoint) {}
