//! Errors at the edge: the core's typed [`toolguard_core::Error`] becomes a
//! JavaScript `Error` here, in one place, and no panic crosses N-API.

use std::panic::{catch_unwind, AssertUnwindSafe};

use napi::bindgen_prelude::*;

/// The one mapping of a core error to JavaScript: an `Error` whose message
/// is the core's `Display` (the texts the tests pin).
pub fn core_error(e: toolguard_core::Error) -> Error {
    invalid(e.to_string())
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
