//! The runtime's own benign noise (docs/shell-model.md): lines a run that
//! did its job prints, which name an error that is none of the command's
//! failures. The scan is re-run with them blanked (line numbers kept), as
//! for installer noise. Twin: `runtimeNoise` in `reference/intent.mts`.
//!
//! - Interpreter-exit reports: Python's `Exception ignored in: <…>` and the
//!   traceback under it (a `__del__` or an atexit callback, `_TemporaryFileCloser`,
//!   a flush at exit); the interpreter ignored that exception, so the run's
//!   result is what the rest of the output says.
//! - SIGPIPE: a program piped into a consumer that stops reading early
//!   (`| head`, `| grep -q`: `earlyExit` in `rules/programs.json`) dies
//!   writing to the closed pipe — Python's `BrokenPipeError` traceback, a C
//!   program's `write error: Broken pipe` (GNU find: `find: write error`). The agent asked for the first
//!   lines; that is what it got.

use super::CallModel;

/// `text` with the runtime's noise blocks blanked, or `None` when it has none.
pub fn blank(text: &str, model: Option<&CallModel>) -> Option<String> {
    let ignored = text.contains("Exception ignored ");
    let piped = model.is_some_and(pipes_into_early_exit)
        && (text.contains("Broken pipe")
            || text.contains("BrokenPipeError")
            || text.contains(": write error"));
    if !ignored && !piped {
        return None;
    }
    let lines: Vec<&str> = text.split('\n').collect();
    let mut noise = vec![false; lines.len()];
    for (i, line) in lines.iter().enumerate() {
        if ignored && line.starts_with("Exception ignored ") {
            noise[i] = true;
            mark_report_after(&lines, i + 1, &mut noise);
        }
        if piped && is_broken_pipe(line) {
            noise[i] = true;
            if super::intent::is_exception_line(line) {
                mark_frames_before(&lines, i, &mut noise);
            }
        }
    }
    if !noise.contains(&true) {
        return None;
    }
    let cleaned: Vec<&str> = lines
        .iter()
        .zip(&noise)
        .map(|(l, &n)| if n { "" } else { *l })
        .collect();
    Some(cleaned.join("\n"))
}

/// Whether a stage after the first of a pipeline is a consumer that stops
/// reading early (`head`, `grep -q`).
fn pipes_into_early_exit(model: &CallModel) -> bool {
    let table = super::programs::table();
    model.commands.iter().any(|c| {
        c.stage > 0
            && table.early_exit.iter().any(|(program, flag)| {
                *program == c.program
                    && flag
                        .as_deref()
                        .is_none_or(|f| c.args.iter().any(|a| a.starts_with(f)))
            })
    })
}

/// `BrokenPipeError: …`, `… [Errno 32] Broken pipe`, `cat: write error: Broken pipe`,
/// GNU `find: write error` (the same EPIPE, its cause left out).
fn is_broken_pipe(line: &str) -> bool {
    let t = line.trim();
    t.starts_with("BrokenPipeError") || t.ends_with("Broken pipe") || t.ends_with(": write error")
}

/// A traceback line that is no output of the program: a frame (indented)
/// or a header.
fn traceback_line(line: &str) -> bool {
    line.starts_with([' ', '\t'])
        || matches!(
            line.trim_end(),
            "Traceback (most recent call last):"
                | "During handling of the above exception, another exception occurred:"
                | "The above exception was the direct cause of the following exception:"
        )
}

/// Mark the report under an `Exception ignored in` line, from `start`: its
/// traceback lines, then the exception line that closes it.
fn mark_report_after(lines: &[&str], start: usize, noise: &mut [bool]) {
    for (j, line) in lines.iter().enumerate().skip(start) {
        if line.trim().is_empty() {
            return;
        }
        noise[j] = true;
        if !traceback_line(line) {
            return;
        }
    }
}

/// Mark the traceback that an exception line at `end` closes: the frames
/// and headers right before it.
fn mark_frames_before(lines: &[&str], end: usize, noise: &mut [bool]) {
    for j in (0..end).rev() {
        if !traceback_line(lines[j]) {
            return;
        }
        noise[j] = true;
    }
}

#[cfg(test)]
mod tests {
    use crate::engine::FailureAction;

    fn action(command: &str, output: &str) -> Option<FailureAction> {
        crate::shell::tests::bash_failure(&[], command, output, None).map(|f| f.action)
    }

    const BROKEN_PIPE: &str = "0\n1\n2\n[stderr]\nTraceback (most recent call last):\n  File \"/w/gen.py\", line 3, in <module>\n    print(i)\nBrokenPipeError: [Errno 32] Broken pipe\nException ignored in: <_io.TextIOWrapper name='<stdout>' mode='w' encoding='utf-8'>\nBrokenPipeError: [Errno 32] Broken pipe\n";

    #[test]
    fn a_broken_pipe_under_head_is_no_failure() {
        // Each was an error before (python-traceback).
        assert_eq!(action("python3 gen.py | head -n 3", BROKEN_PIPE), None);
        assert_eq!(action("python3 gen.py | grep -m1 2", BROKEN_PIPE), None);
        // Not cut off by an early-exiting consumer: a broken pipe is a failure.
        assert_eq!(
            action("python3 gen.py | tail -n 3", BROKEN_PIPE),
            Some(FailureAction::Error)
        );
        // Another error of the same run still counts.
        let other =
            BROKEN_PIPE.replace("0\n1\n2\n", "0\ncat: cfg.yaml: No such file or directory\n");
        assert_eq!(
            action("cat cfg.yaml; python3 gen.py | head -n 3", &other),
            Some(FailureAction::Error)
        );
        // GNU find says only `write error` (an error before: program-message).
        let find = "/testbed/a.py\n/testbed/b.py\nfind: write error\n";
        assert_eq!(action("find /testbed -name '*.py' | head -20", find), None);
    }

    #[test]
    fn an_interpreter_exit_report_is_no_failure() {
        // A run that finished, then `_TemporaryFileCloser.__del__` at exit.
        let out = "converted 12 files\n[stderr]\nException ignored in: <function _TemporaryFileCloser.__del__ at 0x7f3a2c1d0e00>\nTraceback (most recent call last):\n  File \"/usr/lib/python3.11/tempfile.py\", line 450, in __del__\n    self.close()\n  File \"/usr/lib/python3.11/tempfile.py\", line 446, in close\n    unlink(self.name)\nFileNotFoundError: [Errno 2] No such file or directory: '/tmp/tmpab12cd'\n";
        assert_eq!(action("python3 convert.py 2>&1 | tail -5", out), None);
        assert_eq!(action("python3 convert.py", out), None);
        // A real traceback beside it still counts.
        let died = format!("{out}Traceback (most recent call last):\n  File \"convert.py\", line 9, in <module>\n    main()\nValueError: bad row\n");
        assert_eq!(
            action("python3 convert.py 2>&1 | tail -20", &died),
            Some(FailureAction::Error)
        );
    }
}
