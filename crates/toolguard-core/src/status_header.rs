//! The status header some harnesses put above a command's output (Codex:
//! `Exit code: N` or `Process exited with code N`, then other `Key: value`
//! lines, then `Output:`). Decided here once: the Codex log reader and
//! `toolguard scan` both read a header through this.
//!
//! Codex's `exec_command` returns after a while even when the command has not
//! ended: its header then says `Process running with session ID N`, and the
//! rest of the output (and finally the exit code) comes back from
//! `write_stdin` calls polling session N. Such a chunk is not a finished
//! result.

/// A header's reading: the exit code it gives (`None`: it gives none), the
/// output below it, and how many lines the header took.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StatusHeader<'a> {
    pub exit_code: Option<i64>,
    /// `Process running with session ID N`: the command had not ended when
    /// this output was taken (N: the session its polls name).
    pub running: Option<u64>,
    pub output: &'a str,
    pub lines: usize,
}

/// Where a status header says the command ended. `None` when `text` does not
/// start with one (at most 8 header lines, each `Key: value`, ending `Output:`).
pub fn split_status_header(text: &str) -> Option<StatusHeader<'_>> {
    let mut exit_code = None;
    let mut running = None;
    let mut rest = text;
    for lines in 1..=8 {
        let (line, after) = rest.split_once('\n').unwrap_or((rest, ""));
        let line = line.trim_end_matches('\r');
        if line == "Output:" {
            return Some(StatusHeader {
                exit_code,
                running,
                output: after,
                lines,
            });
        }
        if let Some(n) = line
            .strip_prefix("Exit code: ")
            .or_else(|| line.strip_prefix("Process exited with code "))
        {
            exit_code = Some(n.trim().parse().ok()?);
        } else if let Some(n) = line.strip_prefix("Process running with session ID ") {
            running = Some(n.trim().parse().ok()?);
        } else if !line.contains(": ") {
            return None;
        }
        rest = after;
    }
    None
}

/// Whether `text` is a chunk of a command still running (its status header
/// says so): a partial output, no finished result to judge.
pub fn still_running(text: &str) -> bool {
    // At most 8 short lines are read: the first line that is no `Key: value` ends it.
    split_status_header(text).is_some_and(|h| h.running.is_some())
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
                running: None,
                output: "boom\n",
                lines: 3
            })
        );
        assert_eq!(
            split_status_header("Chunk ID: 1\nWall time: 0 seconds\nProcess exited with code 0\nOriginal token count: 1\nOutput:\nhi\n"),
            Some(StatusHeader {
                exit_code: Some(0),
                running: None,
                output: "hi\n",
                lines: 5
            })
        );
        assert_eq!(split_status_header("hello\nOutput:\n"), None);
        assert_eq!(split_status_header("Exit code: x\nOutput:\n"), None);
        assert_eq!(split_status_header("no header at all"), None);
    }

    #[test]
    fn a_running_chunk_is_no_finished_result() {
        let chunk = "Chunk ID: 0c2b72\nWall time: 1.0017 seconds\nProcess running with session ID 57257\nOriginal token count: 22\nOutput:\n 12 pass\n 1 fail\n";
        let header = split_status_header(chunk).unwrap();
        assert_eq!(header.running, Some(57257));
        assert_eq!(header.exit_code, None);
        assert!(still_running(chunk));
        let done = chunk.replace(
            "Process running with session ID 57257",
            "Process exited with code 0",
        );
        assert!(!still_running(&done));
        assert!(!still_running(
            "Process running with session ID 5 but no header"
        ));
        assert!(!still_running(" 1 fail\n"));
    }
}
