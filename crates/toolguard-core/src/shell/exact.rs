//! Exact mode (docs/exact-mode.md): a pre-call rewrite that records the exit
//! status of every stage of the last pipeline (bash `PIPESTATUS`, zsh
//! `pipestatus`) to a side file, without changing the command's own output
//! or exit status, and what the engine makes of those statuses.
//!
//! The rewrite appends one line; it is only safe when the command is
//! complete on its own (else the appended line would join an open quote,
//! heredoc, `\` continuation, `&&`, or an unclosed `if`/`{`). So a command is
//! rewritten only when a conservative scan finds it closed; any doubt leaves
//! it as written (today's behaviour).

use super::lex::heredoc_lines;
use super::{CallModel, Joiner};

/// Commands longer than this are not rewritten (the shell model's bound).
pub const MAX_REWRITE: usize = super::MAX_INPUT;

/// The recorder line. `$?` expands first, before anything runs, so it is
/// the original command's; the stage statuses are read in a command
/// substitution (a subshell sees the parent's `PIPESTATUS` / `pipestatus`:
/// bash fills the one, zsh the other, each expands to nothing in the other
/// shell) through `eval` with stderr to `/dev/null`, so a POSIX shell
/// without arrays (dash as `sh`) fails only that subshell, silently: it
/// records the status alone (stages unknown) and the command's output and
/// status stay as they were. The side file is written with `>|` (a
/// `noclobber` shell) in a group whose stderr is `/dev/null` (so a missing
/// directory prints nothing, in zsh too); `(exit …)` restores the status
/// without leaving the shell.
fn recorder(side_file: &str) -> String {
    format!(
        "{}{{ printf '%s %s\\n' \"$__tg_rc\" \"$__tg_ps\" >| {}{RECORDER_END}",
        &RECORDER_START[1..],
        quote(side_file)
    )
}

/// Whether exact mode may rewrite a command of tool `name`: any shell tool
/// but one that runs PowerShell (`powershellTools` in
/// rules/shell-tools.json, substrings compared without case), where the
/// POSIX recorder would break the command.
pub fn rewrites_tool(name: &str) -> bool {
    use std::sync::OnceLock;
    static POWERSHELL: OnceLock<Vec<String>> = OnceLock::new();
    let powershell = POWERSHELL.get_or_init(|| {
        const SHELL_TOOLS: &str = include_str!("../../../../rules/shell-tools.json");
        // Checked by the tests (`powershell_tools_are_never_rewritten`).
        let root: serde_json::Value = serde_json::from_str(SHELL_TOOLS).unwrap_or_default();
        root["powershellTools"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|n| n.as_str().map(str::to_ascii_lowercase))
            .collect()
    });
    let name = name.to_ascii_lowercase();
    !powershell.iter().any(|p| name.contains(p.as_str()))
}

/// `s` as one single-quoted shell word.
fn quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

/// The command with the recorder appended, or `None` when it is not
/// rewritten: over [`MAX_REWRITE`], not closed ([`is_closed`]), or it turns
/// on `errexit` (`set -e`: the shell may exit before the recorder; the
/// non-zero status is seen anyway).
pub fn rewrite(command: &str, side_file: &str) -> Option<String> {
    if command.len() > MAX_REWRITE || command.trim().is_empty() || !is_closed(command) {
        return None;
    }
    if sets_errexit(command) {
        return None;
    }
    // Always one newline, so [`strip`] gives back the command byte for byte.
    Some(format!("{command}\n{}", recorder(side_file)))
}

/// A shell tool's arguments JSON with its `command` string rewritten
/// ([`rewrite`]), other members kept; `None` when there is no such member
/// or the command is not rewritten.
pub fn rewrite_arguments(arguments_json: &str, side_file: &str) -> Option<String> {
    let mut args: serde_json::Map<String, serde_json::Value> =
        serde_json::from_str(arguments_json).ok()?;
    let rewritten = rewrite(args.get("command")?.as_str()?, side_file)?;
    args.insert("command".into(), serde_json::Value::String(rewritten));
    serde_json::to_string(&args).ok()
}

/// Side files are small: a larger one is not ours.
const MAX_SIDE_FILE: u64 = 4096;

/// Read and delete a side file. Missing, not a plain file, too large or
/// garbled: `None` (unknown, never "passed"); never an error.
pub fn take_side_file(path: &std::path::Path) -> Option<ExitStatuses> {
    let meta = std::fs::symlink_metadata(path).ok()?;
    let text = (meta.is_file() && meta.len() <= MAX_SIDE_FILE)
        .then(|| std::fs::read_to_string(path).ok())
        .flatten();
    let _ = std::fs::remove_file(path);
    ExitStatuses::parse(&text?)
}

/// The command as the agent wrote it, from a rewritten one (the host may
/// report the rewritten input after the call); `None` when `command` was
/// not rewritten.
pub fn strip(command: &str) -> Option<&str> {
    let at = command.rfind(RECORDER_START)?;
    let line = &command[at + 1..];
    (line.ends_with(RECORDER_END) && !line.contains('\n')).then(|| &command[..at])
}

const RECORDER_START: &str = "\n__tg_rc=$? __tg_ps=$({ eval 'printf %s \"${PIPESTATUS[*]-}${pipestatus[*]-}\"'; } 2>/dev/null); ";
const RECORDER_END: &str = "; } 2>/dev/null; (exit $__tg_rc)";

/// `set -e`, `set -eu`, `set -o errexit` anywhere (conservative: a word
/// match, quoted or not).
fn sets_errexit(command: &str) -> bool {
    let words: Vec<&str> = command
        .split(|c: char| c.is_whitespace() || c == ';' || c == '&' || c == '|')
        .filter(|w| !w.is_empty())
        .collect();
    words.windows(2).any(|w| {
        let opt = w[1];
        w[0] == "set"
            && ((opt.starts_with('-') && !opt.starts_with("--") && opt[1..].contains('e'))
                || opt == "-o" && words.contains(&"errexit"))
    }) || command.contains("errexit")
}

/// Whether the command ends closed: no open quote, `$(`, backtick,
/// parenthesis or brace, every heredoc terminated, no trailing `\` or
/// pipe/list operator, and `if`/`fi`, `case`/`esac`, `do`/`done` balanced
/// among unquoted words. Conservative: an unusual but valid command may be
/// called open (then it is just not rewritten).
pub fn is_closed(s: &str) -> bool {
    let b = s.as_bytes();
    let mut i = 0;
    // Open `(`, `$(`, `{`, `${` (a stack, so quotes inside `$(…)` nest).
    let mut depth: i64 = 0;
    let mut heredocs: Vec<(String, bool)> = Vec::new();
    let mut word = String::new();
    let mut words: Vec<String> = Vec::new();
    let mut last_op: Option<&'static str> = None;
    let flush = |word: &mut String, words: &mut Vec<String>| {
        if !word.is_empty() {
            words.push(std::mem::take(word));
        }
    };
    while i < b.len() {
        let c = b[i];
        match c {
            b'\\' => {
                if i + 1 >= b.len() {
                    return false;
                }
                word.push('\\');
                i += 2;
                last_op = None;
                continue;
            }
            b'\'' => {
                // $'…' honours backslashes; plain '…' does not.
                let ansi = i > 0 && b[i - 1] == b'$';
                let mut j = i + 1;
                loop {
                    if j >= b.len() {
                        return false;
                    }
                    if ansi && b[j] == b'\\' {
                        j += 2;
                        continue;
                    }
                    if b[j] == b'\'' {
                        break;
                    }
                    j += 1;
                }
                word.push('q');
                i = j + 1;
                last_op = None;
                continue;
            }
            b'"' | b'`' => {
                let mut j = i + 1;
                loop {
                    if j >= b.len() {
                        return false;
                    }
                    if b[j] == b'\\' {
                        j += 2;
                        continue;
                    }
                    if b[j] == c {
                        break;
                    }
                    // A `$(` or `` ` `` inside double quotes could hold its own
                    // quotes: too rich for this scan, so call it open.
                    if c == b'"' && (b[j] == b'`' || (b[j] == b'$' && b.get(j + 1) == Some(&b'(')))
                    {
                        return false;
                    }
                    j += 1;
                }
                word.push('q');
                i = j + 1;
                last_op = None;
                continue;
            }
            b'#' if word.is_empty() => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
                continue;
            }
            b'(' | b'{' => {
                if c == b'{' && !(word.is_empty() || word.ends_with('$')) {
                    // `a{b,c}` brace expansion: a word character.
                    word.push('{');
                    i += 1;
                    continue;
                }
                if c == b'{'
                    && word.is_empty()
                    && !b.get(i + 1).is_some_and(|n| n.is_ascii_whitespace())
                {
                    // `{a,b}` brace expansion.
                    word.push('{');
                    i += 1;
                    continue;
                }
                depth += 1;
                flush(&mut word, &mut words);
                last_op = Some("(");
                i += 1;
                continue;
            }
            b')' | b'}' => {
                if c == b'}' && depth == 0 {
                    word.push('}');
                    i += 1;
                    continue;
                }
                // `case x in a) …`: a pattern's `)` closes nothing.
                if c == b')' && words.iter().any(|w| w == "case") {
                    flush(&mut word, &mut words);
                    i += 1;
                    continue;
                }
                depth -= 1;
                if depth < 0 {
                    return false;
                }
                flush(&mut word, &mut words);
                last_op = None;
                i += 1;
                continue;
            }
            b'<' if b.get(i + 1) == Some(&b'<') && b.get(i + 2) != Some(&b'<') => {
                flush(&mut word, &mut words);
                let mut j = i + 2;
                let strip = b.get(j) == Some(&b'-');
                if strip {
                    j += 1;
                }
                while j < b.len() && (b[j] == b' ' || b[j] == b'\t') {
                    j += 1;
                }
                let start = j;
                while j < b.len() && !b" \t\n;&|<>()".contains(&b[j]) {
                    j += 1;
                }
                let delim: String = s[start..j]
                    .chars()
                    .filter(|c| !"'\"\\".contains(*c))
                    .collect();
                if delim.is_empty() {
                    return false;
                }
                heredocs.push((delim, strip));
                i = j;
                last_op = None;
                continue;
            }
            b'\n' => {
                flush(&mut word, &mut words);
                i += 1;
                // Heredoc bodies start after this newline.
                for (delim, strip) in std::mem::take(&mut heredocs) {
                    // Exactly as bash ends one: the delimiter alone on its line.
                    let end = heredoc_lines(s, i, strip).find(|(_, line, _)| *line == delim);
                    let Some((_, _, next)) = end else {
                        return false;
                    };
                    i = next;
                }
                continue;
            }
            b'|' | b'&' | b';' => {
                flush(&mut word, &mut words);
                let two = b.get(i + 1) == Some(&c);
                last_op = Some(match (c, two) {
                    (b'|', true) => "||",
                    (b'|', false) => "|",
                    (b'&', true) => "&&",
                    (b'&', false) => "&",
                    _ => ";",
                });
                // `|&` (bash: pipe stderr too).
                if c == b'|' && b.get(i + 1) == Some(&b'&') {
                    i += 1;
                }
                i += if two { 2 } else { 1 };
                continue;
            }
            c if c.is_ascii_whitespace() => {
                flush(&mut word, &mut words);
                i += 1;
                continue;
            }
            _ => {
                // A heredoc terminator can only be read after a newline.
                let ch = s[i..].chars().next().unwrap_or('?');
                word.push(ch);
                i += ch.len_utf8();
                last_op = None;
                continue;
            }
        }
    }
    flush(&mut word, &mut words);
    if !heredocs.is_empty() || depth != 0 {
        return false;
    }
    if matches!(last_op, Some("|" | "||" | "&&" | "(")) {
        return false;
    }
    let count = |w: &str| words.iter().filter(|x| *x == w).count();
    count("if") == count("fi")
        && count("case") == count("esac")
        && count("do") == count("done")
        && count("do") == count("while") + count("until") + count("for") + count("select")
}

/// What the side file said: the command's own exit status and each stage's
/// status of the last pipeline that ran.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExitStatuses {
    pub status: i32,
    pub stages: Vec<i32>,
}

impl ExitStatuses {
    /// The side file's text (`<status> <stage> <stage>…\n`); `None` when
    /// missing pieces or garbled: unknown, never "passed".
    pub fn parse(text: &str) -> Option<Self> {
        let line = text.strip_suffix('\n')?;
        if line.contains('\n') || line.len() > 4096 {
            return None;
        }
        let mut nums = line
            .split(' ')
            .map(|w| w.parse::<i32>().ok().filter(|n| (0..=255).contains(n)));
        let status = nums.next()??;
        let stages = nums.collect::<Option<Vec<_>>>()?;
        if stages.is_empty() {
            return None;
        }
        Some(Self { status, stages })
    }
}

/// A stage the statuses show failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FailedStage {
    /// Its program (the model's name for it).
    pub program: String,
    /// 1-based stage and the pipeline's stage count.
    pub stage: usize,
    pub stages: usize,
    pub status: i32,
}

impl FailedStage {
    pub fn message(&self) -> String {
        if self.stages > 1 {
            format!(
                "{} (stage {} of {}) exited {}; the pipeline reported only its last stage's status",
                self.program, self.stage, self.stages, self.status
            )
        } else {
            format!("{} exited {}", self.program, self.status)
        }
    }
}

/// The command's status is the last stage's, or (`pipefail`) the last
/// non-zero one: else the statuses are of another pipeline.
fn consistent(s: &ExitStatuses) -> bool {
    let last = s.stages.last().copied();
    let last_failed = s
        .stages
        .iter()
        .rev()
        .find(|&&n| n != 0)
        .copied()
        .unwrap_or(0);
    last == Some(s.status) || last_failed == s.status
}

/// The first stage before the last of the reported pipeline that exited non-zero with a
/// status its program does not use for an answer (`grep` 1), when the
/// statuses can be matched to the model: the reported pipeline surely ran
/// (it starts the line or follows `;`/newline, not `&&`/`||`), is not in
/// the background, and has exactly as many stages as statuses. Anything
/// else: `None` (unknown).
pub fn failed_stage(model: &CallModel, statuses: &ExitStatuses) -> Option<FailedStage> {
    if model.truncated {
        return None;
    }
    let reporter = model.reporter()?;
    let stages: Vec<_> = model
        .commands
        .iter()
        .filter(|c| c.pipeline == reporter.pipeline)
        .collect();
    let first = stages.first()?;
    if reporter.background
        || !matches!(first.joiner, Joiner::Start | Joiner::Seq)
        || stages.len() != statuses.stages.len()
        || stages.iter().enumerate().any(|(i, c)| c.stage != i)
        || !consistent(statuses)
    {
        return None;
    }
    // The last stage's status is the one the harness reported already.
    stages[..stages.len() - 1]
        .iter()
        .zip(&statuses.stages)
        .find(|(c, s)| **s != 0 && !c.answer_exits.contains(s))
        .map(|(c, s)| FailedStage {
            program: c.program.clone(),
            stage: c.stage + 1,
            stages: stages.len(),
            status: *s,
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::process::Command;

    /// Commands run as written and rewritten: output and status must match.
    const SAME: &[&str] = &[
        "python3 -c 'import sys; print(\"boom\"); sys.exit(3)' | tail -1",
        "false | true",
        "echo hi | grep x",
        "ls /nonexistent-tg 2>&1 | head -1",
        "exit 4",
        "cd /tmp && pwd",
        "cat <<EOF\nhi $HOME\nEOF",
        "cat <<-'EOF'\n\tliteral $x\n\tEOF\necho after",
        "echo a # a comment",
        "sleep 0 &",
        "echo one; echo two >&2",
        "printf 'no newline'",
        "if true; then echo yes; fi",
        "for i in 1 2; do echo $i; done | tail -1",
        "echo $'it\\'s' {a,b}",
        "(exit 7)",
        "false\n",
    ];

    fn shells() -> Vec<&'static str> {
        installed(&["bash", "zsh"])
    }

    /// The shells with stage statuses, and dash: a POSIX `sh` without them.
    fn posix_shells() -> Vec<&'static str> {
        installed(&["bash", "zsh", "dash"])
    }

    fn installed(shells: &[&'static str]) -> Vec<&'static str> {
        let mut found = Vec::new();
        for &sh in shells {
            if Command::new(sh).arg("-c").arg("true").status().is_ok() {
                found.push(sh);
            } else {
                eprintln!("exact mode test: {sh} not installed, skipped (apt-get install -y {sh})");
            }
        }
        found
    }

    fn run(sh: &str, cmd: &str) -> (Vec<u8>, Vec<u8>, Option<i32>) {
        let out = Command::new(sh).arg("-c").arg(cmd).output().unwrap();
        (out.stdout, out.stderr, out.status.code())
    }

    fn side(tag: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("tg-exact-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        dir.join(tag)
    }

    #[test]
    fn rewritten_commands_keep_output_and_status_in_bash_zsh_and_dash() {
        for sh in posix_shells() {
            for (n, cmd) in SAME.iter().enumerate() {
                if sh == "dash" && cmd.contains("$'") {
                    // bash's `$'…'` is an unterminated quote to dash: a
                    // syntax error as written and rewritten (on another line).
                    continue;
                }
                let file = side(&format!("{sh}-{n}"));
                let _ = std::fs::remove_file(&file);
                let rewritten = rewrite(cmd, file.to_str().unwrap())
                    .unwrap_or_else(|| panic!("{cmd:?} not rewritten"));
                assert_eq!(run(sh, cmd), run(sh, &rewritten), "{sh}: {cmd:?}");
                assert_eq!(strip(&rewritten), Some(*cmd), "the agent's command back");
                assert_eq!(strip(cmd), None);
                let text = std::fs::read_to_string(&file).ok();
                if cmd.starts_with("exit") {
                    assert_eq!(text, None, "exit leaves before the recorder");
                    continue;
                }
                if sh == "dash" {
                    // The status alone: the stages are unknown, never "passed".
                    let text = text.unwrap_or_else(|| panic!("dash: {cmd:?}: no side file"));
                    assert!(text.ends_with(" \n"), "dash: {cmd:?}: {text:?}");
                    assert_eq!(ExitStatuses::parse(&text), None, "dash: {cmd:?}");
                    continue;
                }
                if cmd.ends_with('&') {
                    // No foreground pipeline ran (bash records none, zsh a
                    // stale 0): never matched to the background job.
                    if let Some(st) = ExitStatuses::parse(text.as_deref().unwrap_or("")) {
                        assert_eq!(failed_stage(&super::super::parse(cmd), &st), None);
                    }
                    continue;
                }
                let statuses = ExitStatuses::parse(text.as_deref().unwrap_or(""))
                    .unwrap_or_else(|| panic!("{sh}: {cmd:?}: side file {text:?}"));
                assert_eq!(statuses.status, run(sh, cmd).2.unwrap(), "{sh}: {cmd:?}");
            }
        }
    }

    #[test]
    fn side_file_holds_each_stage_status() {
        for sh in shells() {
            let file = side(&format!("{sh}-stages"));
            let cmd = "python3 -c 'import sys; sys.exit(3)' | tail -1 | cat";
            let rewritten = rewrite(cmd, file.to_str().unwrap()).unwrap();
            assert_eq!(run(sh, &rewritten).2, Some(0));
            let statuses = ExitStatuses::parse(&std::fs::read_to_string(&file).unwrap());
            assert_eq!(
                statuses,
                Some(ExitStatuses {
                    status: 0,
                    stages: vec![3, 0, 0]
                }),
                "{sh}"
            );
            let failed = failed_stage(&super::super::parse(cmd), &statuses.unwrap()).unwrap();
            assert_eq!(
                (failed.program.as_str(), failed.stage, failed.status),
                ("python3", 1, 3),
                "{sh}"
            );
        }
    }

    #[test]
    fn powershell_tools_are_never_rewritten() {
        for name in ["pwsh", "PowerShell", "run_powershell"] {
            assert!(!rewrites_tool(name), "{name}");
        }
        for name in ["bash", "Bash", "shell", "exec_command", "sh"] {
            assert!(rewrites_tool(name), "{name}");
        }
    }

    #[test]
    fn a_missing_side_directory_prints_nothing() {
        for sh in posix_shells() {
            let rewritten = rewrite("echo hi | cat", "/nonexistent-tg/dir/ps").unwrap();
            assert_eq!(
                run(sh, &rewritten),
                (b"hi\n".to_vec(), Vec::new(), Some(0)),
                "{sh}"
            );
        }
    }

    #[test]
    fn open_or_errexit_commands_are_not_rewritten() {
        let long = format!("echo {}", "x".repeat(MAX_REWRITE));
        for cmd in [
            "echo 'unclosed",
            "echo \"unclosed",
            "cat <<EOF\nhi",
            "cat <<EOF",
            "echo a \\",
            "false |",
            "false &&",
            "false ||",
            "if true; then echo",
            "( echo a",
            "echo $(echo a",
            "set -e; false | true",
            "set -euo pipefail\nfalse",
            "set -o errexit; false",
            "",
            long.as_str(),
        ] {
            assert_eq!(rewrite(cmd, "/tmp/f"), None, "{cmd:?}");
        }
    }

    #[test]
    fn garbled_side_files_are_unknown() {
        for text in ["", "0", "0 \n", "x 1\n", "0 1 2", "0 999\n", "0 1\n0 1\n"] {
            assert_eq!(ExitStatuses::parse(text), None, "{text:?}");
        }
        assert_eq!(
            ExitStatuses::parse("0 1 0\n"),
            Some(ExitStatuses {
                status: 0,
                stages: vec![1, 0]
            })
        );
    }

    #[test]
    fn statuses_are_matched_only_to_a_pipeline_that_surely_ran() {
        let st = |s: &[i32]| ExitStatuses {
            status: *s.last().unwrap(),
            stages: s.to_vec(),
        };
        let model = super::super::parse;
        // grep 1 is an answer; a stage count that does not match is unknown.
        assert_eq!(
            failed_stage(&model("grep x f | head -1"), &st(&[1, 0])),
            None
        );
        assert_eq!(failed_stage(&model("make | tail"), &st(&[2, 0, 0])), None);
        assert_eq!(failed_stage(&model("a | b || true"), &st(&[1, 0])), None);
        assert_eq!(failed_stage(&model("make 2>&1 | tail"), &st(&[0, 0])), None);
        assert!(failed_stage(&model("cd x; make 2>&1 | tail"), &st(&[2, 0])).is_some());
        // The statuses of another pipeline (the command's status is not theirs).
        let other = ExitStatuses {
            status: 0,
            stages: vec![1, 1],
        };
        assert_eq!(failed_stage(&model("a | b"), &other), None);
    }

    /// The engine's verdict on a `bash` call of `command` (after `before`)
    /// whose output says nothing of a failure, with `statuses`.
    fn verdict(
        before: &[&str],
        command: &str,
        statuses: Option<&ExitStatuses>,
    ) -> Option<crate::engine::Failure> {
        crate::shell::tests::bash_failure(before, command, "done", statuses)
    }

    #[test]
    fn a_failed_stage_is_an_error_naming_it_whatever_the_output_says() {
        use crate::engine::FailureAction;
        let st = ExitStatuses {
            status: 0,
            stages: vec![3, 0],
        };
        let cmd = "python3 run_all.py 2>&1 | tail -1";
        let f = verdict(&[], cmd, Some(&st)).expect("a verdict");
        assert_eq!(f.action, FailureAction::Error);
        assert!(
            f.text.contains("python3 (stage 1 of 2) exited 3"),
            "{}",
            f.text
        );
        assert_eq!(f.rules[0].id, crate::engine::EXIT_STATUS_ID);
        // Unknown statuses, or all passed: the output alone decides (nothing here).
        assert_eq!(verdict(&[], cmd, None), None);
        let passed = ExitStatuses {
            status: 0,
            stages: vec![0, 0],
        };
        assert_eq!(verdict(&[], cmd, Some(&passed)), None);
        // grep's 1 is an answer.
        assert_eq!(
            verdict(
                &[],
                "grep -r TODO src | head -3",
                Some(&ExitStatuses {
                    status: 0,
                    stages: vec![1, 0]
                })
            ),
            None
        );
        // The agent's own script stays context.
        let own = verdict(
            &["cat > run_all.py <<'EOF'\nraise SystemExit(3)\nEOF"],
            cmd,
            Some(&st),
        )
        .unwrap();
        assert_eq!(own.action, FailureAction::Context);
    }

    #[test]
    fn loop_detectors_count_a_failed_stage_as_a_failed_call() {
        use crate::engine::{Call, Engine, Output};
        let config: crate::config::Config = crate::config::Config::with_loops_by_default(
            &crate::config::ConfigValue::Object(Vec::new()),
        )
        .unwrap();
        // The first loop alarm: a repeated call whose result changes is
        // polling, unless the calls failed.
        let run = |statuses: Option<&ExitStatuses>| {
            let mut engine = Engine::new(&config).unwrap();
            let a = serde_json::json!({ "command": "make 2>&1 | tail -1" }).to_string();
            let call = Call {
                agent_id: Some("a"),
                name: "Bash",
                arguments_json: &a,
            };
            (1..=8).find_map(|n| {
                // A changing result: polling, unless the calls failed.
                let text = format!("built {n} targets");
                let out = Output {
                    texts: vec![&text],
                    exit_statuses: statuses,
                    ..Output::default()
                };
                Some((n, engine.observe(&call, Some(&out))?.loop_alarm?.text))
            })
        };
        let failed = ExitStatuses {
            status: 0,
            stages: vec![2, 0],
        };
        let (with, without) = (run(Some(&failed)), run(None));
        assert!(with.is_some(), "repeated failing calls are a loop");
        assert_eq!(without, None, "the same calls, unknown statuses: polling");
    }
}
