//! Shell results as the engine reads them: the DSH shell result format
//! (`toolguard_core::shell_result`, shared with the hook and the addon; its
//! tests are there). The Codex status header is `toolguard_core::status_header`.

pub(crate) use toolguard_core::shell_result::{shell_text, text_blocks};

/// [`toolguard_core::shell_result::add_exit_marker`] for the readers' integer codes.
pub(crate) fn add_exit_marker(text: &mut String, code: i64) {
    toolguard_core::shell_result::add_exit_marker(text, code as f64);
}
