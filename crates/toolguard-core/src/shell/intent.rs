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
//! - What the user reported ([`SessionReports`]): an exception line in an
//!   own script's output whose type and message the user's messages name is
//!   the reported bug reproduced (at most `context`, even from a script the
//!   agent did not write); one the user never named, from its own script,
//!   is the script failing (`error`). Only once a user message was noted.
//!
//! Per-session state ([`SessionWrites`], [`SessionReports`]) is the paths
//! the agent wrote and the error lines the user quoted, bounded
//! ([`SessionWrites::CAP`], [`SessionReports::CAP`]) like the loop window.

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
    /// What the user said this session (`None`: no user message noted).
    reported: Option<std::sync::Arc<SessionReports>>,
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
            reported: None,
            model: std::sync::OnceLock::new(),
        }
    }

    /// This context knowing what the user reported this session.
    pub fn with_reports(mut self, reported: Option<std::sync::Arc<SessionReports>>) -> Self {
        self.reported = reported;
        self
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
    /// modelling it): an edit tool, or a shell command with a redirect or
    /// `tee`, or one that starts with a write program (`create repro.py`).
    pub fn may_write(name: &str, arguments_json: &str) -> bool {
        if super::is_shell_tool(name) {
            writes_a_file(arguments_json)
                || arguments_json.contains("tee ")
                || first_word(arguments_json).is_some_and(super::programs::is_write_program)
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

/// The error-like lines of what the user said this session (normalised by
/// [`words`]), newest last: at most `CAP` lines of at most `LINE` bytes.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SessionReports {
    lines: VecDeque<String>,
}

impl SessionReports {
    pub const CAP: usize = 32;
    pub const LINE: usize = 256;

    /// Note one user message: keep its lines that name an error.
    pub fn note(&mut self, text: &str) {
        for line in text.split('\n') {
            let lower = line.to_ascii_lowercase();
            if !(lower.contains("error") || lower.contains("exception")) {
                continue;
            }
            let w = words(line);
            if w.trim().is_empty() {
                continue;
            }
            let mut end = w.len().min(Self::LINE);
            while !w.is_char_boundary(end) {
                end -= 1;
            }
            let w = w[..end].to_owned();
            if let Some(i) = self.lines.iter().position(|l| *l == w) {
                self.lines.remove(i);
            }
            if self.lines.len() == Self::CAP {
                self.lines.pop_front();
            }
            self.lines.push_back(w);
        }
    }

    /// The lines, oldest first (for a state file).
    pub fn lines(&self) -> impl Iterator<Item = &str> {
        self.lines.iter().map(String::as_str)
    }

    /// Lines saved with [`SessionReports::lines`]; the newest `CAP` kept.
    pub fn from_lines<S: Into<String>>(lines: impl IntoIterator<Item = S>) -> Self {
        let mut reports = Self::default();
        for line in lines {
            let line: String = line.into();
            if line.len() > Self::LINE {
                continue;
            }
            if reports.lines.len() == Self::CAP {
                reports.lines.pop_front();
            }
            reports.lines.push_back(line);
        }
        reports
    }

    /// Whether the user named exception `kind` with `message`: a line of
    /// theirs holds the first words of the message, and the type too when
    /// the message is shorter than three words.
    fn names(&self, kind: &str, message: &str) -> bool {
        let kind = format!(" {} ", words(kind).trim());
        let message = words(message);
        let msg: Vec<&str> = message.split_whitespace().take(4).collect();
        let typed = msg.len() < 3;
        let msg = format!(" {} ", msg.join(" "));
        self.lines.iter().any(|l| {
            (!typed || l.contains(kind.as_str()))
                && (msg.trim().is_empty() || l.contains(msg.as_str()))
        })
    }
}

/// A text as its words, lowercased, masked, space-separated with a space at
/// both ends: a token holding `/` or `\\` is a path (`<p>`), a word with a
/// digit is a number or id (`#`); other punctuation separates words.
fn words(text: &str) -> String {
    let mut out = String::from(" ");
    for token in text.split_whitespace() {
        if token.contains('/') || token.contains('\\') {
            out.push_str("<p> ");
            continue;
        }
        for w in token
            .split(|c: char| !(c.is_alphanumeric() || c == '_'))
            .filter(|w| !w.is_empty())
        {
            if w.chars().any(|c| c.is_ascii_digit()) {
                out.push_str("# ");
            } else {
                // `str::to_lowercase`, not per char: a final sigma as in JS.
                out.push_str(&w.to_lowercase());
                out.push(' ');
            }
        }
    }
    out
}

/// An exception head: `Type: message` or a bare `Type`, where the type's
/// last dotted part is `Error`, or ends in `Error` or `Exception`.
fn exception_head(line: &str) -> Option<(&str, &str)> {
    let end = line
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '.'))
        .unwrap_or(line.len());
    let (kind, rest) = line.split_at(end);
    let last = kind.rsplit('.').next().unwrap_or(kind);
    let named = last.starts_with(|c: char| c.is_ascii_uppercase())
        && (last.ends_with("Error") || last.ends_with("Exception"));
    let message = match rest.strip_prefix(':') {
        Some(m) => m.trim(),
        None if rest.trim().is_empty() => "",
        None => return None,
    };
    named.then_some((last, message))
}

/// Whether `line` is an exception line (`Type: message`, a bare `Type`).
pub(super) fn is_exception_line(line: &str) -> bool {
    exception_head(line.trim()).is_some()
}

/// The exception lines of an output, at the start of a line (after blanks
/// and pytest's `E `): `(type, message, caught)`. `caught`: a script's own
/// `Error: message` print (non-empty), whose message may be another
/// exception line (`Error: KeyError: 'x'`: that one is the type).
fn exception_lines(text: &str) -> impl Iterator<Item = (&str, &str, bool)> {
    text.split('\n').filter_map(|line| {
        let line = line.trim();
        let line = line.strip_prefix("E ").map_or(line, str::trim_start);
        let (kind, message) = exception_head(line)?;
        if kind != "Error" || message.is_empty() {
            return Some((kind, message, false));
        }
        Some(match exception_head(message) {
            Some((inner, rest)) => (inner, rest, true),
            None => (kind, message, true),
        })
    })
}

/// What the user's reports say of an output: `Some(true)` when an exception
/// line of it is one they named, `Some(false)` when it has exception lines
/// and they named none, `None` without a noted user message or exception line.
fn reported_by_user(reported: Option<&SessionReports>, text: &str) -> Option<bool> {
    let reported = reported?;
    let mut any = false;
    for (kind, message, _) in exception_lines(text) {
        if reported.names(kind, message) {
            return Some(true);
        }
        any = true;
    }
    any.then_some(false)
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

/// The first word of the `command` argument, read off the JSON text (no
/// escapes, no leading blanks: otherwise `None`, and the call is modelled
/// only if another test says so).
fn first_word(arguments_json: &str) -> Option<&str> {
    let (_, rest) = arguments_json.split_once("\"command\"")?;
    let rest = rest.trim_start().strip_prefix(':')?.trim_start();
    let rest = rest.strip_prefix('"')?;
    let end = rest
        .find(|c: char| c.is_ascii_whitespace() || c == '"' || c == '\\')
        .unwrap_or(rest.len());
    (end > 0).then(|| &rest[..end])
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
    // The runtime's own noise (an interpreter-exit report, SIGPIPE under
    // `| head`): the same scan without it, and the rest reads it so.
    let quiet = super::runtime_noise::blank(text, ctx.and_then(ScanContext::model).map(|(m, _)| m));
    let text = match &quiet {
        Some(cleaned) => {
            matches = rescan(cleaned);
            if matches.is_empty() {
                return matches;
            }
            cleaned.as_str()
        }
        None => text,
    };
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
    let probe = model.probe
        && !fallback_said_failure(model, text, &table.fallback_failure)
        && !fallback_unanswered(model, text);
    // An own script or a probe that could not run its own code (a NameError,
    // an unresolved import, a call with wrong arguments) did not show the
    // behaviour it was written to show: not excused as a reproduction.
    let broken = matches.iter().any(|m| table.broken_script.contains(&m.id));
    // What the user reported: their bug reproduced is meant, whoever wrote
    // the script; an exception they never named, from the agent's own
    // script, is that script failing (a probe's answer stays an answer).
    let user = reported_by_user(ctx.and_then(|c| c.reported.as_deref()), text);
    // The script's own `Error: …` print: it caught an exception and said so.
    let caught = exception_lines(text).any(|(_, _, caught)| caught);
    let own_script = own_script && !(user == Some(false) && caught);
    let meant = (user == Some(true) && !model.displays_only) || ((own_script || probe) && !broken);
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
        // A missing command is the answer only of a probe that asked about
        // it; otherwise the script or probe failed to ask (a name from a
        // mangled quote, a tool its subprocess lacked, the probe's own tool).
        let unasked_missing = table.missing_command.as_deref() == Some(m.id.as_str())
            && missing_command(&m.excerpt).is_some_and(|name| !asked_about(model, name));
        let excused = meant && !table.runner_verdicts.contains(&m.id) && !unasked_missing;
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
    fallback_messages(model, true).any(|msg| {
        let lower = msg.to_ascii_lowercase();
        words.iter().any(|w| lower.contains(w.as_str())) && text.contains(msg.as_str())
    })
}

/// Whether the call is a probe only through `|| echo …` / `|| printf …`
/// fallbacks after commands that ran something (not a lookup, a read or a
/// search), and none of their messages is in the output: no fallback ran,
/// so the command before it reported success, and an error in its output
/// is no negative answer the agent asked for (`curl … | python3 -m
/// json.tool || echo "No stats endpoint"` printing `{"detail": "Not
/// Found"}`). A message with an expansion (`$f`, a backtick) may print
/// differently: then the probe reading stands.
fn fallback_unanswered(model: &CallModel, text: &str) -> bool {
    let mut any = false;
    for (k, c) in model.commands.iter().enumerate() {
        if let Some(code) = c.inline_code.as_deref() {
            if super::programs::is_probe_code(code) {
                return false;
            }
        }
        if super::programs::is_probe_program(&c.program) {
            return false;
        }
        if k == 0 || c.joiner != Joiner::Or || c.stage != 0 {
            continue;
        }
        let before = &model.commands[k - 1];
        if before.quiet || matches!(before.effect, Effect::Read | Effect::Search) {
            return false;
        }
        let msg = match fallback_message(c) {
            Some(m) => m,
            None => return false,
        };
        if msg.contains('$') || msg.contains('`') || text.contains(msg.as_str()) {
            return false;
        }
        any = true;
    }
    any
}

/// The message of one `echo …` / `printf …` command (trimmed, non-empty).
fn fallback_message(c: &super::Command) -> Option<String> {
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
            _ => return None,
        },
        _ => return None,
    };
    let msg = msg.trim();
    (!msg.is_empty()).then(|| msg.to_owned())
}

/// The messages of the `|| echo …` / `|| printf …` fallbacks of the call
/// (with `after_run`, only those after a command that is not a read or a
/// search), trimmed and non-empty.
fn fallback_messages(model: &CallModel, after_run: bool) -> impl Iterator<Item = String> + '_ {
    model.commands.iter().enumerate().filter_map(move |(k, c)| {
        if k == 0 || c.joiner != Joiner::Or || c.stage != 0 {
            return None;
        }
        if after_run && matches!(model.commands[k - 1].effect, Effect::Read | Effect::Search) {
            return None;
        }
        fallback_message(c)
    })
}

/// The name a shell's `command not found` line says is missing: bash
/// `bash: line 1: foo: command not found`, dash `/bin/sh: 1: foo: not found`,
/// zsh `zsh: command not found: foo`.
fn missing_command(line: &str) -> Option<&str> {
    if let Some((_, name)) = line.split_once("command not found: ") {
        return Some(name.trim());
    }
    let head = line
        .strip_suffix(": command not found")
        .or_else(|| line.strip_suffix(": not found"))?;
    head.rsplit(": ").next().map(str::trim)
}

/// Whether the call asked about the missing command `name`: a command
/// names it as a word (`type foo`, `hash foo`), or a fallback message
/// mentions it (`foo --version || echo "foo is not installed"`).
fn asked_about(model: &CallModel, name: &str) -> bool {
    let word = |text: &str| {
        text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '-' || c == '.'))
            .any(|w| w.eq_ignore_ascii_case(name))
    };
    model
        .commands
        .iter()
        .any(|c| c.args.iter().any(|a| a == name))
        || fallback_messages(model, false).any(|m| word(&m))
}

/// When a rule of `commandRules` counts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Need {
    /// A program of one of the given effects ran (`network`: curl, wget,
    /// http…; `run,test`: code ran).
    Effect(Vec<Effect>),
    /// The matched line is a `prog: message` of a program that ran.
    ProgramRan,
    /// One of these programs ran.
    Programs(Vec<String>),
    /// Inline code that ran (`python -c`, a heredoc) contains one of these
    /// texts (an HTTP client: `requests.`, `TestClient(`).
    Code(Vec<String>),
    /// Any of these holds.
    Any(Vec<Need>),
}

impl Need {
    fn holds(&self, model: &CallModel, excerpt: &str) -> bool {
        match self {
            Need::Effect(effects) => model.commands.iter().any(|c| {
                effects
                    .iter()
                    .any(|e| c.effect == *e || (*e == Effect::Network && c.url.is_some()))
            }),
            Need::ProgramRan => is_program_message(excerpt, model),
            Need::Programs(p) => model.commands.iter().any(|c| p.contains(&c.program)),
            Need::Code(texts) => model.commands.iter().any(|c| {
                c.inline_code
                    .as_deref()
                    .is_some_and(|code| texts.iter().any(|t| code.contains(t.as_str())))
            }),
            Need::Any(needs) => needs.iter().any(|n| n.holds(model, excerpt)),
        }
    }
}

#[cfg(test)]
mod tests;
