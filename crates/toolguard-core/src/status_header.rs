//! The status header some harnesses put above a command's output (Codex:
//! `Exit code: N` or `Process exited with code N`, then other `Key: value`
//! lines, then `Output:`). Decided here once: the Codex log reader and
//! `toolguard scan` both read a header through this.

/// A header's reading: the exit code it gives (`None`: it gives none), the
/// output below it, and how many lines the header took.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StatusHeader<'a> {
    pub exit_code: Option<i64>,
    pub output: &'a str,
    pub lines: usize,
}

/// Where a status header says the command ended. `None` when `text` does not
/// start with one (at most 8 header lines, each `Key: value`, ending `Output:`).
pub fn split_status_header(text: &str) -> Option<StatusHeader<'_>> {
    let mut exit_code = None;
    let mut rest = text;
    for lines in 1..=8 {
        let (line, after) = rest.split_once('\n').unwrap_or((rest, ""));
        let line = line.trim_end_matches('\r');
        if line == "Output:" {
            return Some(StatusHeader {
                exit_code,
                output: after,
                lines,
            });
        }
        if let Some(n) = line
            .strip_prefix("Exit code: ")
            .or_else(|| line.strip_prefix("Process exited with code "))
        {
            exit_code = Some(n.trim().parse().ok()?);
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
            split_status_header("Exit code: 3\nWall time: 0.1 seconds\nOutput:\nboom\n"),
            Some(StatusHeader {
                exit_code: Some(3),
                output: "boom\n",
                lines: 3
            })
        );
        assert_eq!(
            split_status_header("Chunk ID: 1\nWall time: 0 seconds\nProcess exited with code 0\nOriginal token count: 1\nOutput:\nhi\n"),
            Some(StatusHeader {
                exit_code: Some(0),
                output: "hi\n",
                lines: 5
            })
        );
        assert_eq!(split_status_header("hello\nOutput:\n"), None);
        assert_eq!(split_status_header("Exit code: x\nOutput:\n"), None);
        assert_eq!(split_status_header("no header at all"), None);
    }
}
