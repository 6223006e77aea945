//! `__statusHeader`: the core's reading of a status header above a command's
//! output (`Exit code: N` … `Output:`), for `toolguard scan`, so the CLI and
//! the Codex log reader read a header the same way (one decision, in the core).

use napi_derive::napi;
use toolguard_core::status_header::split_status_header;

#[napi(object)]
pub struct StatusHeader {
    /// The exit code the header gives (none: it gives none).
    pub exit_code: Option<i64>,
    /// The output below the header.
    pub output: String,
    /// How many lines the header took (`Output:` included).
    pub lines: u32,
}

/// The status header `text` starts with, or `null` when it has none.
#[napi(js_name = "__statusHeader", catch_unwind)]
pub fn status_header(text: String) -> Option<StatusHeader> {
    split_status_header(&text).map(|h| StatusHeader {
        exit_code: h.exit_code,
        output: h.output.to_owned(),
        lines: u32::try_from(h.lines).unwrap_or(u32::MAX),
    })
}
