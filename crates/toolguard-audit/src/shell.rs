//! Shell results as the engine reads them: the DSH shell result format
//! (`toolguard_core::shell_result`, shared with the hook and the addon), and
//! the Codex text header some readers take the exit code from.

pub(crate) use toolguard_core::shell_result::{shell_text, text_blocks};

/// [`toolguard_core::shell_result::add_exit_marker`] for the readers' integer codes.
pub(crate) fn add_exit_marker(text: &mut String, code: i64) {
    toolguard_core::shell_result::add_exit_marker(text, code as f64);
}

/// Where a Codex-style text header (`Exit code: N` or `Process exited with
/// code N`, then other `Key: value` lines, then `Output:`) says the command
/// ended: `(exit code, the output after the header)`. `None` when `text`
/// has no such header.
pub(crate) fn split_exit_header(text: &str) -> Option<(Option<i64>, &str)> {
    let mut code = None;
    let mut rest = text;
    for _ in 0..8 {
        let (line, after) = rest.split_once('\n').unwrap_or((rest, ""));
        let line = line.trim_end_matches('\r');
        if line == "Output:" {
            return Some((code, after));
        }
        if let Some(n) = line
            .strip_prefix("Exit code: ")
            .or_else(|| line.strip_prefix("Process exited with code "))
        {
            code = Some(n.trim().parse().ok()?);
        } else if !line.contains(": ") {
            return None;
        }
        rest = after;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codex_headers() {
        assert_eq!(
            split_exit_header("Exit code: 3\nWall time: 0.1 seconds\nOutput:\nboom\n"),
            Some((Some(3), "boom\n"))
        );
        assert_eq!(
            split_exit_header("Chunk ID: 1\nWall time: 0 seconds\nProcess exited with code 0\nOriginal token count: 1\nOutput:\nhi\n"),
            Some((Some(0), "hi\n"))
        );
        assert_eq!(split_exit_header("hello\nOutput:\n"), None);
        assert_eq!(split_exit_header("Exit code: x\nOutput:\n"), None);
    }
}
