//! The shell-command model: what a tool call did, by effect.
//!
//! One function, [`classify_call`], turns a call (tool name + argument JSON)
//! into a [`CallModel`]: the simple commands it ran (for a shell tool, parsed
//! from its command line; for other tools, one pseudo-command from the
//! tool's name and arguments), each classified by [`Effect`] with the paths
//! it reads (and line ranges) and writes, which command's exit status the
//! harness reports and how the others' statuses were hidden ([`Mask`]),
//! and the intent signs the scanner uses (a probe, a display of files).
//! Both the silent-failure scanner and the loop detectors read it.
//!
//! Stable API (add, do not rename): [`classify_call`], [`parse`],
//! [`is_shell_tool`], [`DEFAULT_SHELL_TOOLS`], [`command_of`], [`CallModel`],
//! [`Command`], [`Effect`], [`PathRead`], [`LineRange`], [`Mask`], [`Joiner`].
//!
//! It never fails or panics: half-valid input (an unclosed quote, a heredoc
//! cut short) gives a best-effort model, and the work is bounded: the first
//! [`MAX_INPUT`] bytes are read, at most [`MAX_COMMANDS`] simple commands
//! kept, `bash -c '…'` followed [`MAX_DEPTH`] levels deep.
//!
//! The program table (effect, filter-ness, exit-code conventions, which
//! operands are paths) is data: `rules/programs.json`, decoded once per
//! process. Why a hand-written tokenizer and not a parser crate: see `lex.rs`.

pub mod corroboration;
pub mod exact;
pub mod harness;
pub mod intent;
mod lex;
mod programs;
mod runtime_noise;
mod tools;

pub use lex::Joiner;

use serde_json::Value;

/// Bytes of a command line that are modelled (the rest is ignored).
pub const MAX_INPUT: usize = 16 * 1024;
/// Simple commands kept per call.
pub const MAX_COMMANDS: usize = 64;
/// Nesting of `bash -c '…'` / `sh -c` followed.
pub const MAX_DEPTH: u32 = 2;

/// The shell tools of every harness this project knows, compared
/// case-insensitively ([`is_shell_tool`]): the one default list of every
/// reader, adapter and config (`loudFailure.shellTools`). Data, shared with
/// the TypeScript side: `rules/shell-tools.json`.
pub fn default_shell_tools() -> &'static [String] {
    programs::shell_tools()
}

/// [`default_shell_tools`] as a static slice of `&str`, for callers that
/// build a config.
pub static DEFAULT_SHELL_TOOLS: std::sync::LazyLock<Vec<&'static str>> =
    std::sync::LazyLock::new(|| default_shell_tools().iter().map(String::as_str).collect());

/// Whether `name` is a shell tool by the default list (case-insensitive).
pub fn is_shell_tool(name: &str) -> bool {
    default_shell_tools()
        .iter()
        .any(|t| t.eq_ignore_ascii_case(name))
}

/// What a command (or a non-shell tool call) does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Effect {
    /// Shows files or state without changing them (cat, sed -n, git show, read_file).
    Read,
    /// Changes files or state (cp, mv, sed -i, `> f`, git checkout -- f, pip install, edit tools, browser clicks).
    Write,
    /// Runs a program or script.
    Run,
    /// Runs a test suite (pytest, npm test, cargo test, make test…).
    Test,
    /// Waits on or polls a job (sleep, BashOutput, tail -f, ps, kubectl get, a health URL).
    Wait,
    /// Looks for something; "nothing found" is an answer (grep, rg, find, which).
    Search,
    /// Talks to the network (curl, wget, git push).
    Network,
    /// Goes back in a browser (not a state change of the page's data).
    Navigate,
    /// Prints or sets shell state only (echo, cd, export) or unknown.
    Other,
}

impl Effect {
    pub fn as_str(self) -> &'static str {
        match self {
            Effect::Read => "read",
            Effect::Write => "write",
            Effect::Run => "run",
            Effect::Test => "test",
            Effect::Wait => "wait",
            Effect::Search => "search",
            Effect::Network => "network",
            Effect::Navigate => "navigate",
            Effect::Other => "other",
        }
    }

    pub fn parse(s: &str) -> Option<Effect> {
        Some(match s {
            "read" => Effect::Read,
            "write" => Effect::Write,
            "run" => Effect::Run,
            "test" => Effect::Test,
            "wait" => Effect::Wait,
            "search" => Effect::Search,
            "network" => Effect::Network,
            "navigate" => Effect::Navigate,
            "other" => Effect::Other,
            _ => return None,
        })
    }

    /// Which effect names a call made of several commands: a state change
    /// first (it clears reads), then running/testing, waiting, the network,
    /// searching, reading.
    fn rank(self) -> u8 {
        match self {
            Effect::Write => 8,
            Effect::Test => 7,
            Effect::Run => 6,
            Effect::Wait => 5,
            Effect::Network => 4,
            Effect::Navigate => 3,
            Effect::Search => 2,
            Effect::Read => 1,
            Effect::Other => 0,
        }
    }
}

/// Lines of a file a read covers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LineRange {
    /// 1-based, inclusive (`sed -n '10,20p'`, a view range, offset/limit).
    Lines { start: u64, end: u64 },
    /// The first N lines (`head -n N`).
    First(u64),
    /// The last N lines (`tail -n N`).
    Last(u64),
    /// From line N to the end (`tail -n +N`).
    From(u64),
}

/// One file a command reads, as written in the command (not resolved
/// against `cwd`).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct PathRead {
    pub path: String,
    /// `None`: the whole file.
    pub range: Option<LineRange>,
}

/// How the real exit status of a command that may fail was kept from the
/// harness.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Mask {
    /// Not the last stage of a pipeline (`cmd | tail`): the last stage's status is reported.
    Pipeline,
    /// `cmd || true`, `cmd || echo …`: a fallback runs on failure.
    Fallback,
    /// `cmd; echo done`: a later command's status is reported.
    Sequence,
    /// `cmd &`: sent to the background; the status is never reported.
    Background,
}

/// One simple command, classified.
#[derive(Debug, Clone, PartialEq)]
pub struct Command {
    /// The program's name (basename) after wrappers (`sudo`, `timeout 60`,
    /// `env`, `uv run`, `npx`…); `python -m pytest` gives `pytest`.
    pub program: String,
    /// The words after the program.
    pub args: Vec<String>,
    pub effect: Effect,
    pub reads: Vec<PathRead>,
    pub writes: Vec<String>,
    /// Reads stdin and passes text on (tail, head, grep, tee, cat, sort, wc…).
    pub filter: bool,
    /// Exit codes that are an answer, not a failure (grep 1: no match).
    pub answer_exits: Vec<i32>,
    /// Prints or sets shell state only (echo, true, cd, sleep, test).
    pub quiet: bool,
    /// Index of its pipeline in [`CallModel::commands`]' order, and its stage in it.
    pub pipeline: usize,
    pub stage: usize,
    pub last_stage: bool,
    /// How its pipeline joins the one before it.
    pub joiner: Joiner,
    pub background: bool,
    /// How a failure of this command could be kept from the reported exit
    /// status (empty: it would be reported).
    pub masks: Vec<Mask>,
    /// `2>/dev/null` (or `&>/dev/null`).
    pub stderr_hidden: bool,
    /// stdout goes to a file (`> f`, `>> f`, `&> f`).
    pub stdout_to_file: bool,
    /// The script an interpreter runs (`python repro.py`, `bash run.sh`, `node x.js`).
    pub script: Option<String>,
    /// Inline code an interpreter runs (`python -c …`, a heredoc to `python -`).
    pub inline_code: Option<String>,
    /// A URL the command talks to (curl/wget/http).
    pub url: Option<String>,
    /// The directory of the last `cd` before it in the line, if any.
    pub cwd: Option<String>,
}

impl Command {
    /// A command that stands alone (its own pipeline's only, last stage) with
    /// nothing known yet beyond its program and effect; the classifier and
    /// the tool-name table fill in the rest.
    pub fn new(program: String, effect: Effect) -> Self {
        Command {
            program,
            args: Vec::new(),
            effect,
            reads: Vec::new(),
            writes: Vec::new(),
            filter: false,
            answer_exits: Vec::new(),
            quiet: false,
            pipeline: 0,
            stage: 0,
            last_stage: true,
            joiner: Joiner::Start,
            background: false,
            masks: Vec::new(),
            stderr_hidden: false,
            stdout_to_file: false,
            script: None,
            inline_code: None,
            url: None,
            cwd: None,
        }
    }
}

/// What one tool call did.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct CallModel {
    /// The tool is a shell (by [`is_shell_tool`]) and a command was found.
    pub is_shell: bool,
    /// The command line (shell tools), as given.
    pub command: Option<String>,
    /// The call's effect: the highest-ranked effect of its commands
    /// (write > test > run > wait > network > navigate > search > read > other).
    pub effect: Option<Effect>,
    pub commands: Vec<Command>,
    /// Every command's reads and writes, in order, deduplicated.
    pub reads: Vec<PathRead>,
    pub writes: Vec<String>,
    /// The programs that ran, in order, deduplicated.
    pub programs: Vec<String>,
    /// Index in `commands` of the command whose exit status the harness
    /// reports (the last stage of the last pipeline).
    pub reporter: Option<usize>,
    /// Every way a non-quiet command's status was hidden, deduplicated.
    pub masks: Vec<Mask>,
    /// An explicit probe: `|| echo …` fallbacks, `ls a || ls b`, `python -c` with
    /// `try:`/`except`, `test`/`[`: a negative answer is what was asked.
    pub probe: bool,
    /// Every command only reads, searches or prints: what the output shows
    /// is content the command displayed (a log), not its own failure.
    pub displays_only: bool,
    /// The input was longer than [`MAX_INPUT`] or had more than [`MAX_COMMANDS`] commands.
    pub truncated: bool,
}

impl CallModel {
    /// The command whose status the harness reports.
    pub fn reporter(&self) -> Option<&Command> {
        self.reporter.and_then(|i| self.commands.get(i))
    }

    /// Whether `program` ran (by its modelled name).
    pub fn ran(&self, program: &str) -> bool {
        self.programs.iter().any(|p| p == program)
    }

    /// Whether a command's real exit status may have been kept from the harness.
    pub fn hides_status(&self) -> bool {
        !self.masks.is_empty()
    }

    /// The exit codes that are an answer for the reported command.
    pub fn answer_exits(&self) -> &[i32] {
        self.reporter().map_or(&[], |c| &c.answer_exits)
    }

    /// Scripts run by an interpreter in this call.
    pub fn scripts(&self) -> impl Iterator<Item = &str> {
        self.commands.iter().filter_map(|c| c.script.as_deref())
    }

    fn finish(&mut self) {
        self.effect = self
            .commands
            .iter()
            .map(|c| c.effect)
            .max_by_key(|e| e.rank());
        for c in &self.commands {
            for r in &c.reads {
                if !self.reads.contains(r) {
                    self.reads.push(r.clone());
                }
            }
            for w in &c.writes {
                if !self.writes.contains(w) {
                    self.writes.push(w.clone());
                }
            }
            if !self.programs.contains(&c.program) {
                self.programs.push(c.program.clone());
            }
            if !c.quiet {
                for m in &c.masks {
                    if !self.masks.contains(m) {
                        self.masks.push(*m);
                    }
                }
            }
        }
        self.displays_only = !self.commands.is_empty()
            && self
                .commands
                .iter()
                // `sleep 3 && cat app.log`: a quiet wait prints nothing.
                .all(|c| {
                    matches!(c.effect, Effect::Read | Effect::Search | Effect::Other)
                        || (c.quiet && c.effect == Effect::Wait)
                })
            && self
                .commands
                .iter()
                .any(|c| matches!(c.effect, Effect::Read | Effect::Search));
    }
}

/// The command line of a shell tool's arguments: the member `command` (a
/// string, or an argv array such as Codex's `["bash", "-lc", "…"]`), `cmd`,
/// `script`, `commandLine`, `command_line` or `code`; `None` when there is
/// none (a bare string or malformed text is not taken for a command: every
/// shell tool names its argument).
pub fn command_of(arguments_json: &str) -> Option<String> {
    let value: Value = serde_json::from_str(arguments_json).ok()?;
    command_of_value(&value)
}

fn command_of_value(value: &Value) -> Option<String> {
    match value {
        Value::Object(o) => {
            for key in [
                "command",
                "cmd",
                "script",
                "commandLine",
                "command_line",
                "code",
            ] {
                match o.get(key) {
                    Some(Value::String(s)) => return Some(s.clone()),
                    Some(Value::Array(argv)) => return argv_command(argv),
                    _ => {}
                }
            }
            None
        }
        _ => None,
    }
}

/// `["bash", "-lc", "cmd"]` → `cmd`; another argv → its words joined (quoted where needed).
fn argv_command(argv: &[Value]) -> Option<String> {
    let words: Vec<&str> = argv.iter().filter_map(Value::as_str).collect();
    if words.is_empty() {
        return None;
    }
    if let [shell, flag, cmd] = words.as_slice() {
        let base = shell.rsplit('/').next().unwrap_or(shell);
        if matches!(base, "bash" | "sh" | "zsh" | "dash")
            && flag.starts_with('-')
            && flag.contains('c')
        {
            return Some((*cmd).to_owned());
        }
    }
    Some(
        words
            .iter()
            .map(|w| {
                if w.is_empty()
                    || w.contains(|c: char| c.is_whitespace() || "'\"|&;<>()$`\\".contains(c))
                {
                    format!("'{}'", w.replace('\'', r"'\''"))
                } else {
                    (*w).to_owned()
                }
            })
            .collect::<Vec<_>>()
            .join(" "),
    )
}

/// The model of one tool call. Shell tools (by [`is_shell_tool`]) are
/// parsed from their command; others are classified by name and arguments
/// (`read_file`, `str_replace_editor`, `apply_patch`, `browser_*`,
/// `BashOutput`…). Never fails: unknown tools give a model without effect.
pub fn classify_call(tool_name: &str, arguments_json: &str) -> CallModel {
    if is_shell_tool(tool_name) {
        if let Some(command) = command_of(arguments_json) {
            return parse(&command);
        }
    }
    tools::classify_tool(tool_name, arguments_json)
}

/// The model of one shell command line (see [`classify_call`]).
pub fn parse(command: &str) -> CallModel {
    let mut model = CallModel {
        is_shell: true,
        command: Some(command.to_owned()),
        ..CallModel::default()
    };
    let mut cut = command;
    if cut.len() > MAX_INPUT {
        let mut end = MAX_INPUT;
        while !cut.is_char_boundary(end) {
            end -= 1;
        }
        cut = &cut[..end];
        model.truncated = true;
    }
    programs::model_line(cut, 0, &mut model);
    model.finish();
    model
}

#[cfg(test)]
mod tests;
