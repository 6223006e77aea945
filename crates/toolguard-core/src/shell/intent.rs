//! Command-aware scanning: what the scanner learns from the call's command
//! (see docs/shell-model.md).
//!
//! - A rule match in output the command only *displayed* (`cat`/`tail`/
//!   `less`/`head` of a log, `git show`, a grep), in a *probe*
//!   (`python -c "try: … except … print"`, `|| echo`, `test -f`), or in the
//!   run of a script the agent wrote earlier in this session (its
//!   reproduction script) is at most `context`: the agent meant to see it.
//!   A displaying program's own `prog: message` line is still its error.
//! - `prog: message` lines of a program that ran (and the shell's own
//!   `(eval):1: …`, `bash: line 3: …`) are that program's errors: the
//!   `program-message` rule counts only then, and only with a command.
//! - Rules of `commandRules` in `rules/programs.json` count only when the
//!   command ran a program of their kind (HTTP error bodies need `curl`…).
//! - Known installer noise lines (`invoke-rc.d: could not determine current
//!   runlevel`) are not failures: the scan is re-run without them.
//! - A `context` rule is `error` when the command hid the real status
//!   (`| tail`, `|| true`, `; echo`, `&`).
//!
//! Per-session state ([`SessionWrites`]) is the paths the agent wrote,
//! bounded ([`SessionWrites::CAP`]) like the loop window.

use std::collections::VecDeque;

use super::{classify_call, CallModel, Effect, Joiner, Mask};
use crate::rules::{Action, RuleMatch};

/// What the scan knows of the call that produced the output. Built for
/// every scanned call, modelled only when a rule matched (most outputs match
/// nothing, and then the command changes nothing).
#[derive(Debug)]
pub struct ScanContext {
    name: String,
    arguments_json: String,
    /// The agent's written paths whose file name occurs in the arguments
    /// (the only ones the call can run).
    written: SessionWrites,
    model: std::sync::OnceLock<Option<(CallModel, bool)>>,
}

impl ScanContext {
    /// The context of a call of tool `name` by an agent that wrote `writes`.
    pub fn new(name: &str, arguments_json: &str, writes: Option<&SessionWrites>) -> Self {
        let mut written = SessionWrites::default();
        for p in writes.into_iter().flat_map(|w| w.paths.iter()) {
            let file = p.rsplit('/').next().unwrap_or(p);
            if !file.is_empty() && arguments_json.contains(file) {
                written.paths.push_back(p.clone());
            }
        }
        Self {
            name: name.to_owned(),
            arguments_json: arguments_json.to_owned(),
            written,
            model: std::sync::OnceLock::new(),
        }
    }

    /// The call's model and whether it runs a script the agent wrote;
    /// `None` when it has no shell command (then the result scans as
    /// without a command).
    pub fn model(&self) -> Option<(&CallModel, bool)> {
        self.model
            .get_or_init(|| {
                let model = classify_call(&self.name, &self.arguments_json);
                if !model.is_shell {
                    return None;
                }
                let own_script = model
                    .commands
                    .iter()
                    .filter_map(|c| Some((c.script.as_deref()?, c.cwd.as_deref())))
                    .any(|(s, cwd)| self.written.wrote(s, cwd));
                Some((model, own_script))
            })
            .as_ref()
            .map(|(m, own)| (m, *own))
    }
}

/// The paths an agent wrote in this session (newest last), at most `CAP`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SessionWrites {
    paths: VecDeque<String>,
}

impl SessionWrites {
    pub const CAP: usize = 64;

    /// Whether a call of tool `name` may write (a cheap test before
    /// modelling it): an edit tool, or a shell command with a redirect or `tee`.
    pub fn may_write(name: &str, arguments_json: &str) -> bool {
        if super::is_shell_tool(name) {
            writes_a_file(arguments_json) || arguments_json.contains("tee ")
        } else {
            let lower = name.to_ascii_lowercase();
            [
                "edit",
                "write",
                "create",
                "patch",
                "str_replace",
                "insert",
                "replace",
            ]
            .iter()
            .any(|k| lower.contains(k))
        }
    }

    /// Record what a call wrote.
    pub fn record(&mut self, model: &CallModel) {
        if model.effect != Some(Effect::Write) && model.writes.is_empty() {
            return;
        }
        for w in &model.writes {
            let w = normalize(w);
            if let Some(i) = self.paths.iter().position(|p| *p == w) {
                self.paths.remove(i);
            }
            if self.paths.len() == Self::CAP {
                self.paths.pop_front();
            }
            self.paths.push_back(w);
        }
    }

    /// Whether `path` (run in `cwd`) is a file the agent wrote: the same
    /// path, or one path ends with the other at a `/` (`/testbed/repro.py`
    /// and `repro.py` run after `cd /testbed`).
    pub fn wrote(&self, path: &str, cwd: Option<&str>) -> bool {
        let path = normalize(path);
        let full = match cwd {
            Some(dir) if !path.starts_with('/') => {
                format!("{}/{}", dir.trim_end_matches('/'), path)
            }
            _ => path.clone(),
        };
        self.paths.iter().any(|p| {
            let same = |a: &str, b: &str| {
                a == b
                    || (a.len() > b.len()
                        && a.ends_with(b)
                        && a.as_bytes()[a.len() - b.len() - 1] == b'/')
            };
            same(p, &full) || same(p, &path) || same(&path, p)
        })
    }

    pub fn is_empty(&self) -> bool {
        self.paths.is_empty()
    }

    /// The paths, oldest first (for a state file: the native hook runs one
    /// process per event).
    pub fn paths(&self) -> impl Iterator<Item = &str> {
        self.paths.iter().map(String::as_str)
    }

    /// Paths saved with [`SessionWrites::paths`], oldest first; only the
    /// newest `CAP` are kept, as [`SessionWrites::record`] keeps them.
    pub fn from_paths<S: Into<String>>(paths: impl IntoIterator<Item = S>) -> Self {
        let mut writes = Self::default();
        for path in paths {
            if writes.paths.len() == Self::CAP {
                writes.paths.pop_front();
            }
            writes.paths.push_back(path.into());
        }
        writes
    }
}

/// A `>` redirect to a file in the text: not a dup (`2>&1`, `>&2`) or
/// `/dev/null` (most agent commands have one of those, and modelling every
/// such call would cost more than the rest of the engine's work on it).
fn writes_a_file(text: &str) -> bool {
    let b = text.as_bytes();
    memchr::memchr_iter(b'>', b).any(|i| {
        let rest = &b[i + 1..];
        let rest = rest.strip_prefix(b">").unwrap_or(rest);
        let start = rest.iter().position(|&c| c != b' ').unwrap_or(rest.len());
        let rest = &rest[start..];
        !(rest.starts_with(b"&") || rest.starts_with(b"/dev/null") || rest.is_empty())
    })
}

fn normalize(p: &str) -> String {
    p.strip_prefix("./").unwrap_or(p).to_owned()
}

/// The error lexicon of a `prog: message` line.
fn is_error_message(msg: &str) -> bool {
    let m = msg.to_ascii_lowercase();
    if m.starts_with("warning") || m.starts_with("note") || m.starts_with("info") {
        return false;
    }
    [
        "no such file or directory",
        "cannot ",
        "can't ",
        "could not ",
        "couldn't ",
        "unable to ",
        "failed",
        "not found",
        "permission denied",
        "not a directory",
        "is a directory",
        "invalid ",
        "unrecognized ",
        "illegal ",
        "unknown option",
        "missing ",
        "error",
        "fatal",
        "refused",
        "timed out",
        "bad ",
        "event not found",
        "not recognized",
        "does not exist",
    ]
    .iter()
    .any(|k| m.contains(k))
}

/// Whether `line` is a `prog: message` line of a program that ran (or of
/// the shell itself), with an error message.
pub fn is_program_message(line: &str, model: &CallModel) -> bool {
    let line = line.trim_start();
    let Some((head, rest)) = line.split_once(": ") else {
        return false;
    };
    // `(eval):1`, `bash: line 3`, `zsh:1`, `sh: 1`, `prog:12` (a line number).
    let head = head.split(':').next().unwrap_or(head);
    let rest = rest
        .strip_prefix("line ")
        .map_or(rest, |r| r.split_once(": ").map_or(r, |(_, m)| m));
    let rest = match rest.split_once(": ") {
        Some((n, m)) if n.bytes().all(|b| b.is_ascii_digit()) && !n.is_empty() => m,
        _ => rest,
    };
    let shell = matches!(
        head,
        "(eval)" | "bash" | "sh" | "zsh" | "dash" | "/bin/sh" | "/bin/bash" | "/bin/zsh"
    );
    let base = head.rsplit('/').next().unwrap_or(head);
    let ran = shell
        || model
            .commands
            .iter()
            .any(|c| !c.quiet && !c.program.is_empty() && c.program == base);
    ran && is_error_message(rest)
}

/// Adjusts the rule matches of one output by the call's context (module doc).
/// `rescan` scans another text (the output with noise lines blanked).
pub fn adjust(
    ctx: Option<&ScanContext>,
    text: &str,
    mut matches: Vec<RuleMatch>,
    rescan: &dyn Fn(&str) -> Vec<RuleMatch>,
) -> Vec<RuleMatch> {
    let table = super::programs::table();
    // Installer noise: the same scan without those lines (numbers kept).
    if matches.iter().any(|m| {
        table
            .noise
            .iter()
            .any(|n| m.excerpt.starts_with(n.as_str()))
    }) {
        let cleaned: String = text
            .split('\n')
            .map(|l| {
                if table
                    .noise
                    .iter()
                    .any(|n| l.trim_start().starts_with(n.as_str()))
                {
                    ""
                } else {
                    l
                }
            })
            .collect::<Vec<_>>()
            .join("\n");
        matches = rescan(&cleaned);
    }
    if matches.is_empty() {
        return matches;
    }
    let Some((model, own_script)) = ctx.and_then(ScanContext::model) else {
        // Without a command, the rules that need one do not count.
        matches.retain(|m| !table.command_rules.contains_key(m.id.as_str()));
        return matches;
    };
    matches.retain(|m| match table.command_rules.get(m.id.as_str()) {
        None => true,
        Some(need) => need.holds(model, &m.excerpt),
    });
    // A fallback message that says the command failed, printed: the fallback
    // ran, so the command before it failed; not a probe's asked-for answer.
    let probe = model.probe && !fallback_said_failure(model, text, &table.fallback_failure);
    // An own script or a probe that could not run its own code (a NameError,
    // an unresolved import, a call with wrong arguments) did not show the
    // behaviour it was written to show: not excused as a reproduction.
    let broken = table
        .broken_script
        .as_ref()
        .is_some_and(|r| r.is_match(text));
    let meant = (own_script || probe) && !broken;
    let hidden = model
        .masks
        .iter()
        .any(|m| matches!(m, Mask::Pipeline | Mask::Fallback | Mask::Sequence));
    // Content shown from files (`cat log`, `tail -n 50 log`, `grep -rn x .`):
    // a displaying command that names no file (`git diff HEAD~1 f | grep`)
    // prints its own errors, not a file's.
    let shows_files = model.displays_only && !model.reads.is_empty();
    for m in &mut matches {
        let own_error = is_program_message(&m.excerpt, model);
        // A test runner's verdict is the check's result, whoever wrote it.
        let excused = meant && !table.runner_verdicts.contains(&m.id);
        if m.action == Action::Error && (excused || (shows_files && !own_error)) {
            m.action = Action::Context;
        } else if m.action == Action::Context && hidden && !meant && !shows_files {
            m.action = Action::Error;
        }
    }
    matches
}

/// Whether a `|| echo …` fallback whose message says failure (a word of
/// `words`) printed that message: the command before it failed. A fallback
/// after a lookup (`which x || echo "x not found"`) is a probe's answer.
fn fallback_said_failure(model: &CallModel, text: &str, words: &[String]) -> bool {
    model.commands.iter().enumerate().any(|(k, c)| {
        if k == 0 || c.joiner != Joiner::Or || c.stage != 0 {
            return false;
        }
        if matches!(model.commands[k - 1].effect, Effect::Read | Effect::Search) {
            return false;
        }
        let msg = match c.program.as_str() {
            "echo" => c
                .args
                .iter()
                .skip_while(|a| a.starts_with('-'))
                .cloned()
                .collect::<Vec<_>>()
                .join(" "),
            "printf" => match c.args.first() {
                Some(f) if !f.contains('%') => f.trim_end_matches("\\n").to_owned(),
                _ => return false,
            },
            _ => return false,
        };
        let msg = msg.trim();
        let lower = msg.to_ascii_lowercase();
        !msg.is_empty() && words.iter().any(|w| lower.contains(w.as_str())) && text.contains(msg)
    })
}

/// When a rule of `commandRules` counts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Need {
    /// A program of the given effect ran (`network`: curl, wget, http…).
    Effect(Effect),
    /// The matched line is a `prog: message` of a program that ran.
    ProgramRan,
    /// One of these programs ran.
    Programs(Vec<String>),
}

impl Need {
    fn holds(&self, model: &CallModel, excerpt: &str) -> bool {
        match self {
            Need::Effect(e) => model
                .commands
                .iter()
                .any(|c| c.effect == *e || (*e == Effect::Network && c.url.is_some())),
            Need::ProgramRan => is_program_message(excerpt, model),
            Need::Programs(p) => model.commands.iter().any(|c| p.contains(&c.program)),
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::config::Config;
    use crate::engine::{Call, Engine, FailureAction, Output};

    /// The action of the verdict on `output` of a `bash` call running `command` (after `before`).
    fn action(before: &[&str], command: &str, output: &str) -> Option<FailureAction> {
        crate::shell::tests::bash_failure(before, command, output, None).map(|f| f.action)
    }

    const TRACEBACK: &str = "Traceback (most recent call last):\n  File \"/testbed/reproduce.py\", line 3, in <module>\n    f()\nValueError: bad value\n";

    #[test]
    fn the_agents_own_reproduction_script_is_context() {
        let write = "cat > /testbed/reproduce.py << 'EOF'\nfrom m import f\nf()\nEOF";
        assert_eq!(
            action(&[write], "cd /testbed && python reproduce.py", TRACEBACK),
            Some(FailureAction::Context)
        );
        // Written through an editor tool call.
        let mut engine = Engine::new(&Config::default()).unwrap();
        let create = r#"{"command":"create","path":"/testbed/repro_issue.py","file_text":"x"}"#;
        engine.advance(&Call {
            agent_id: Some("a"),
            name: "str_replace_editor",
            arguments_json: create,
        });
        let run = r#"{"command":"python /testbed/repro_issue.py"}"#;
        let out = Output {
            texts: vec![TRACEBACK],
            ..Output::default()
        };
        let v = engine.observe(
            &Call {
                agent_id: Some("a"),
                name: "bash",
                arguments_json: run,
            },
            Some(&out),
        );
        assert_eq!(
            v.and_then(|v| v.failure).map(|f| f.action),
            Some(FailureAction::Context)
        );
        // A script the agent did not write: still an error.
        assert_eq!(
            action(&[], "cd /testbed && python reproduce.py", TRACEBACK),
            Some(FailureAction::Error)
        );
        // Another agent's script is not this agent's.
        assert_eq!(
            action(&["echo x > other.py"], "python reproduce.py", TRACEBACK),
            Some(FailureAction::Error)
        );
    }

    #[test]
    fn an_own_script_that_cannot_run_its_own_code_is_an_error() {
        let write = "cat > /testbed/check_fix.py << 'EOF'\nprint(Path('x'))\nEOF";
        let broken = [
            "Traceback (most recent call last):\n  File \"/testbed/check_fix.py\", line 1, in <module>\nNameError: name 'Path' is not defined\n",
            "Traceback (most recent call last):\n  File \"/testbed/check_fix.py\", line 1, in <module>\nImportError: cannot import name 'helper' from 'pkg.mod'\n",
            "Traceback (most recent call last):\n  File \"/testbed/check_fix.py\", line 4, in <module>\nTypeError: Parser.parse() takes 2 positional arguments but 3 were given\n",
            "Traceback (most recent call last):\n  File \"/testbed/check_fix.py\", line 4, in <module>\nAttributeError: module 'numpy' has no attribute 'product'\n",
        ];
        for out in broken {
            assert_eq!(
                action(&[write], "cd /testbed && python check_fix.py", out),
                Some(FailureAction::Error),
                "{out}"
            );
        }
        // The behaviour it reproduces (an exception of the code under test) stays context.
        assert_eq!(
            action(&[write], "cd /testbed && python check_fix.py", TRACEBACK),
            Some(FailureAction::Context)
        );
        // A try/except probe whose own code breaks is no answer either.
        let probe =
            "python -c \"try:\n    import pkg\nexcept OSError as e:\n    print('Error:', e)\"";
        let out = "Traceback (most recent call last):\n  File \"<string>\", line 2, in <module>\nModuleNotFoundError: No module named 'pkg'\n";
        assert_eq!(action(&[], probe, out), Some(FailureAction::Error));
    }

    #[test]
    fn a_test_runners_verdict_from_an_own_script_is_an_error() {
        let write = "cat > /testbed/run_tests.py << 'EOF'\nimport unittest\nEOF";
        let out = "Ran 3 tests in 0.004s\n\nFAILED (failures=1)\n";
        assert_eq!(
            action(
                &[write],
                "cd /testbed && python run_tests.py 2>&1 | tail -50",
                out
            ),
            Some(FailureAction::Error)
        );
        // The same lines in a displayed log are its content.
        assert_eq!(
            action(&[], "cat test-output.log", out),
            Some(FailureAction::Context)
        );
    }

    #[test]
    fn a_validation_list_from_curl_is_an_error() {
        let v = "{\n    \"detail\": [\n        {\n            \"type\": \"missing\",\n            \"msg\": \"Field required\"\n        }\n    ]\n}\n";
        assert_eq!(
            action(
                &[],
                "curl -s -X POST http://localhost:8081/q | python3 -m json.tool",
                v
            ),
            Some(FailureAction::Error)
        );
        // The same JSON in a file the agent reads is content.
        assert_eq!(action(&[], "cat fixtures/422.json", v), None);
    }

    #[test]
    fn a_fallback_that_says_the_command_failed_is_not_a_probe() {
        let out = "Traceback (most recent call last):\n  File \"<frozen runpy>\", line 198, in _run_module_as_main\nModuleNotFoundError: No module named 'notebook'\nConfig generation failed, continuing...\n";
        let cmd = "python -m notebook --generate-config || echo \"Config generation failed, continuing...\"";
        assert_eq!(action(&[], cmd, out), Some(FailureAction::Error));
        // The fallback did not print (the command succeeded and printed an
        // error-looking line): the probe reading stands.
        let quiet = "Traceback (most recent call last):\n  File \"x.py\", line 1, in <module>\nValueError: bad value\n";
        assert_eq!(action(&[], cmd, quiet), Some(FailureAction::Context));
        // A lookup's negative answer is what was asked.
        let which = "which jupyter || echo \"jupyter lookup failed\"";
        assert_eq!(
            action(&[], which, "jupyter lookup failed\nTraceback (most recent call last):\n  File \"x\", line 1\nValueError: v\n"),
            Some(FailureAction::Context)
        );
        // A fallback that states a fact, not a failure, keeps the probe reading.
        let git = "git status 2>&1 || echo \"Not a git repo\"";
        assert_eq!(
            action(&[], git, "fatal: not a git repository (or any of the parent directories): .git\nNot a git repo\n"),
            Some(FailureAction::Context)
        );
    }

    #[test]
    fn a_displayed_log_is_context() {
        assert_eq!(
            action(&[], "cat server.log", TRACEBACK),
            Some(FailureAction::Context)
        );
        assert_eq!(
            action(&[], "tail -n 50 /var/log/app.log", TRACEBACK),
            Some(FailureAction::Context)
        );
        // After a quiet wait (it prints nothing).
        assert_eq!(
            action(&[], "sleep 3 && cat jupyter.log", TRACEBACK),
            Some(FailureAction::Context)
        );
        // The display program's own error is its failure.
        assert_eq!(
            action(
                &[],
                "cat missing.log 2>&1 | head",
                "cat: missing.log: No such file or directory"
            ),
            Some(FailureAction::Error)
        );
    }

    #[test]
    fn a_display_that_names_no_file_keeps_its_own_errors() {
        let out = "fatal: ambiguous argument 'src/x.py': unknown revision or path not in the working tree.\n";
        assert_eq!(
            action(&[], "git diff HEAD~1 src/x.py | grep -A5 main", out),
            Some(FailureAction::Error)
        );
    }

    #[test]
    fn a_try_except_probe_is_context() {
        let probe = "python -c \"import os\ntry:\n    os.stat('cfg.yaml')\nexcept OSError as e:\n    print('Error:', e)\"";
        let out = "Error: [Errno 2] No such file or directory: 'cfg.yaml'\n";
        assert_eq!(action(&[], probe, out), Some(FailureAction::Context));
        assert_eq!(
            action(&[], "python check.py", out),
            Some(FailureAction::Error)
        );
    }

    #[test]
    fn a_missing_log_directory_behind_a_background_job_is_an_error() {
        let cmd = "nohup python server.py > logs/x.log 2>&1 & echo Started";
        let out = "(eval):1: no such file or directory: logs/x.log\nStarted\n";
        assert_eq!(action(&[], cmd, out), Some(FailureAction::Error));
    }

    #[test]
    fn unzip_cannot_find_is_the_programs_error() {
        let out = "unzip:  cannot find or open build/release.zip, build/release.zip.zip or build/release.zip.ZIP.\n";
        assert_eq!(
            action(&[], "cd build && unzip release.zip; ls", out),
            Some(FailureAction::Error)
        );
        // The same line in a log the agent displays is content: at most context.
        assert_eq!(
            action(&[], "cat deploy.log", out),
            Some(FailureAction::Context)
        );
    }

    #[test]
    fn an_api_error_body_from_curl_is_an_error() {
        let out = "{\"detail\":\"Not Found\"}";
        assert_eq!(
            action(&[], "curl -s http://localhost:8000/api/items/9", out),
            Some(FailureAction::Error)
        );
        assert_eq!(
            action(
                &[],
                "curl -s -X POST https://api.example.com/v1/login -d @body.json",
                "{\"code\":-1,\"msg\":\"Auth failed\"}"
            ),
            Some(FailureAction::Error)
        );
        // Not from the network: the same JSON is content.
        assert_eq!(action(&[], "cat fixtures/not_found.json", out), None);
        // Without a command it scans as before (no such rule then).
        let engine = Engine::new(&Config::default()).unwrap();
        let output = Output {
            texts: vec![out],
            ..Output::default()
        };
        assert!(engine.scan("bash", &output).is_none());
    }

    #[test]
    fn installer_noise_on_a_successful_install_is_not_a_failure() {
        let out = "Setting up nginx (1.24.0-2) ...\ninvoke-rc.d: could not determine current runlevel\ninvoke-rc.d: policy-rc.d denied execution of start.\nProcessing triggers for man-db (2.12.0-4) ...\n";
        assert_eq!(action(&[], "apt-get install -y nginx", out), None);
        // A real error among the noise still counts.
        let bad = format!("{out}dpkg: error processing package nginx (--configure):\n");
        assert_eq!(
            action(&[], "apt-get install -y nginx", &bad),
            Some(FailureAction::Error)
        );
    }

    #[test]
    fn a_context_rule_behind_a_hidden_status_is_an_error() {
        let panic =
            "thread 'main' panicked at src/main.rs:2:5:\nboom\nnote: run with `RUST_BACKTRACE=1`\n";
        assert_eq!(
            action(&[], "cargo run", panic),
            Some(FailureAction::Context)
        );
        assert_eq!(
            action(&[], "cargo run 2>&1 | tail -5", panic),
            Some(FailureAction::Error)
        );
        assert_eq!(
            action(&[], "cargo run || true", panic),
            Some(FailureAction::Error)
        );
    }

    #[test]
    fn only_a_redirect_to_a_file_is_modelled_for_writes() {
        assert!(super::writes_a_file("cat > f.py << EOF"));
        assert!(super::writes_a_file("echo x >>notes.txt"));
        assert!(!super::writes_a_file("python x.py 2>&1 | tail"));
        assert!(!super::writes_a_file("grep -r x . 2>/dev/null"));
        assert!(!super::writes_a_file("echo done >&2"));
    }

    #[test]
    fn shell_tool_names_are_compared_without_case() {
        let engine = Engine::new(&Config::default()).unwrap();
        for name in [
            "Bash",
            "bash",
            "BASH",
            "execute_bash",
            "exec_command",
            "shell",
            "run",
            "pwsh",
            "job_output",
        ] {
            assert!(engine.scans(name), "{name}");
        }
        assert!(!engine.scans("Read"));
    }
}
