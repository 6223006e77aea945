//! Failure markers a shell result already shows to the model.
//!
//! The harness appends its markers one per line at the very end of a shell
//! result (`[sandbox: …]`, `[timed out after …]`, `[killed by signal: …]`,
//! `[exit code: N]`; `job_output` ends with `[status: …]`). Only that trailing
//! block is read: a marker-looking line in the middle is command output (a
//! `cat` of an old transcript, a log that quotes a marker) and must not
//! silence `when: success` rules for the command that actually ran.

/// Whether the output's trailing marker block shows failure: a sandbox denial,
/// a timeout, a fatal signal, or a non-zero exit code (`[exit code: N]` or
/// `[status: <s>, exit code: N]`). Trailing blank lines and surrounding
/// whitespace are ignored.
pub fn shows_failure(text: &str) -> bool {
    // Every marker line ends with `]`, and the last non-blank line holds the
    // text's last non-blank character: most outputs are ruled out by it
    // without splitting lines (this runs on every result the loop detectors see).
    if !text.trim_end().ends_with(']') {
        return false;
    }
    for line in text.lines().rev().map(str::trim) {
        if line.is_empty() {
            continue;
        }
        match marker(line) {
            Some(true) => return true,
            Some(false) => {}
            None => return false,
        }
    }
    false
}

/// Whether the trailing marker block reports a zero exit code (`[exit code: 0]`
/// or `[status: <s>, exit code: 0]`): the only case a verdict may say the
/// command exited 0 (many hosts report no status at all).
pub fn reports_exit_zero(text: &str) -> bool {
    if !text.trim_end().ends_with(']') {
        return false;
    }
    for line in text.lines().rev().map(str::trim) {
        if line.is_empty() {
            continue;
        }
        if marker(line).is_none() {
            return false;
        }
        let body = &line[1..line.len() - 1];
        let code = body.strip_prefix("exit code: ").or_else(|| {
            let (s, code) = body
                .strip_prefix("status: ")?
                .rsplit_once(", exit code: ")?;
            (!s.contains(']')).then_some(code)
        });
        if code.and_then(exit_code_failed) == Some(false) {
            return true;
        }
    }
    false
}

/// `Some(failed)` when the line is a harness marker, `None` otherwise.
/// Line predicates mirror `reference/markers.mts` (prefix forms, exit code
/// `-?digits`, zero when every digit is 0).
fn marker(line: &str) -> Option<bool> {
    let body = line.strip_prefix('[')?.strip_suffix(']')?;
    if body.starts_with("sandbox: file access denied")
        || body.starts_with("killed by signal: ")
        || body.starts_with("timed out after ")
    {
        return Some(true);
    }
    if let Some(code) = body.strip_prefix("exit code: ") {
        return exit_code_failed(code);
    }
    if let Some(status) = body.strip_prefix("status: ") {
        // `[status: <s>]` alone reports no exit code: a marker, not a failure.
        return Some(match status.rsplit_once(", exit code: ") {
            Some((s, code)) if !s.contains(']') => exit_code_failed(code).unwrap_or(false),
            _ => false,
        });
    }
    None
}

/// `Some(non-zero)` for `-?digits`, `None` for anything else.
fn exit_code_failed(code: &str) -> Option<bool> {
    let digits = code.strip_prefix('-').unwrap_or(code);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some(digits.bytes().any(|b| b != b'0'))
}

#[cfg(test)]
mod tests {
    use super::{reports_exit_zero, shows_failure};

    #[test]
    fn non_zero_exit_code() {
        assert!(shows_failure("boom\n[exit code: 1]"));
        assert!(shows_failure("boom\n[exit code: 127]\n\n  \n"));
        assert!(shows_failure("[exit code: -1]"));
        assert!(!shows_failure("ok\n[exit code: 0]"));
        assert!(!shows_failure("ok"));
        assert!(!shows_failure(""));
    }

    #[test]
    fn other_markers() {
        assert!(shows_failure(
            "x\n[sandbox: file access denied under read-only mode]\n[exit code: 0]"
        ));
        assert!(shows_failure("x\n[timed out after 120000ms]"));
        assert!(shows_failure("x\n[killed by signal: SIGKILL]"));
        assert!(shows_failure("(no output)\n[timed out after 5000ms]\r\n"));
    }

    #[test]
    fn exit_zero_reported() {
        assert!(reports_exit_zero("ok\n[exit code: 0]"));
        assert!(reports_exit_zero("ok\n[status: exited, exit code: 0]\n"));
        assert!(!reports_exit_zero("ok"));
        assert!(!reports_exit_zero("ok\n[exit code: 1]"));
        assert!(!reports_exit_zero("ok\n[status: running]"));
        // Only the trailing block counts.
        assert!(!reports_exit_zero("[exit code: 0]\nthen more output"));
    }

    #[test]
    fn job_output_status() {
        assert!(shows_failure("out\n[status: exited, exit code: 2]"));
        assert!(!shows_failure("out\n[status: exited, exit code: 0]"));
        assert!(!shows_failure("out\n[status: running]"));
    }

    #[test]
    fn only_the_trailing_block_counts() {
        // A quoted marker in the middle of output is just text.
        assert!(!shows_failure(
            "log says:\n[exit code: 1]\nthen it was fixed\n"
        ));
        assert!(!shows_failure("[exit code: 1] in prose"));
        assert!(!shows_failure("x\n[exit code: one]"));
        assert!(!shows_failure("x\n[exit code: +1]"));
        assert!(!shows_failure("x\n[exit code: 00]"));
        assert!(shows_failure("x\n[exit code: 99999999999999999999]"));
        // Markers stack: a failure anywhere in the trailing block counts.
        assert!(shows_failure(
            "x\n[sandbox: file access denied under strict mode]\n[exit code: 0]"
        ));
    }
}

/// A shell result's streams in the DSH shell result format: stdout, then
/// `[stderr]` and stderr on a line of their own when stderr is not empty;
/// `(no output)` when both are empty. `None` when neither stream is given.
/// The one writer of this shape for every reader (the audit's log readers,
/// the native hook, the addon's `shell` results); reference/shell-result.mts is the
/// reference engine's twin.
pub fn shell_streams(stdout: Option<&str>, stderr: Option<&str>) -> Option<String> {
    if stdout.is_none() && stderr.is_none() {
        return None;
    }
    let mut text = stdout.unwrap_or("").to_owned();
    if let Some(stderr) = stderr.filter(|s| !s.is_empty()) {
        if !text.is_empty() && !text.ends_with('\n') {
            text.push('\n');
        }
        text.push_str("[stderr]\n");
        text.push_str(stderr);
    }
    if text.is_empty() {
        text.push_str("(no output)");
    }
    Some(text)
}

#[cfg(test)]
mod shell_streams_tests {
    use super::shell_streams;

    #[test]
    fn streams_in_the_dsh_format() {
        assert_eq!(shell_streams(None, None), None);
        assert_eq!(shell_streams(Some("a"), Some("")).as_deref(), Some("a"));
        assert_eq!(
            shell_streams(Some("a"), Some("b")).as_deref(),
            Some("a\n[stderr]\nb")
        );
        assert_eq!(
            shell_streams(Some("a\n"), Some("b")).as_deref(),
            Some("a\n[stderr]\nb")
        );
        assert_eq!(
            shell_streams(None, Some("b")).as_deref(),
            Some("[stderr]\nb")
        );
        assert_eq!(
            shell_streams(Some(""), None).as_deref(),
            Some("(no output)")
        );
    }
}
