//! The guard engine in plain Rust: one call in, one verdict out.
//!
//! `binding.rs` adapts it to JavaScript; the audit reader and the fuzz targets
//! drive it directly.

use std::sync::Arc;

use crate::chain::{any_match, Chains, Reminder, Wildcard};
use crate::config::{Config, LoopsConfig, LoudFailureConfig, RepeatConfig};
use crate::error::{Error, RuleError};
use crate::loops::texts;
use crate::loops::{CallMark, LoopAlarm, LoopDeny, LoopOutcome, Loops};
use crate::markers::{reports_exit_zero, shows_failure};
use crate::rules::{line_and_excerpt, Action, RuleMatch, RuleSet};
use crate::shell::corroboration::{corroborate, StatusShown};
use crate::shell::exact::{self, ExitStatuses};
use crate::shell::intent::{self, ScanContext, SessionReports, SessionWrites};

/// One tool call as the engine sees it.
#[derive(Debug, Clone, Copy)]
pub struct Call<'a> {
    /// `None`: the call takes part in no chain (still scanned).
    pub agent_id: Option<&'a str>,
    pub name: &'a str,
    /// Raw argument JSON text; malformed text counts as a raw string, as in DSH.
    pub arguments_json: &'a str,
}

/// The result of a tool call, as far as scanning needs it.
#[derive(Debug, Clone, Default)]
pub struct Output<'a> {
    pub is_error: bool,
    /// The text blocks (or the plain text), in order.
    pub texts: Vec<&'a str>,
    /// `JSON.stringify(value)` of a successful result's value, when given.
    pub value_json: Option<&'a str>,
    /// Exact mode: each stage's exit status of the command's last pipeline,
    /// as the rewritten command recorded them (`None`: unknown).
    pub exit_statuses: Option<&'a ExitStatuses>,
    /// The harness records no exit status for its calls (SWE-agent): a
    /// shown 0 cannot be told from a failure (`shell::corroboration`).
    pub status_unrecorded: bool,
}

impl<'a> Output<'a> {
    /// One result text, nothing else known: what most log readers have.
    pub fn text(text: &'a str, is_error: bool) -> Self {
        Output {
            is_error,
            texts: vec![text],
            ..Output::default()
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FailureAction {
    Error,
    Context,
}

impl FailureAction {
    pub fn as_str(self) -> &'static str {
        match self {
            FailureAction::Error => "error",
            FailureAction::Context => "context",
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Failure {
    pub action: FailureAction,
    pub summary: String,
    /// `error`: the header then the original output; `context`: the notice.
    pub text: String,
    pub rules: Vec<RuleMatch>,
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct Verdict {
    pub reminder: Option<Reminder>,
    pub failure: Option<Failure>,
    /// A loop detector's alarm (with `loops` on).
    pub loop_alarm: Option<LoopAlarm>,
}

impl Verdict {
    pub fn is_empty(&self) -> bool {
        self.reminder.is_none() && self.failure.is_none() && self.loop_alarm.is_none()
    }
}

/// The silent-failure half of the engine: compiled rules and which tools
/// they apply to. Immutable once built and shared (`Arc`), so a scan can run
/// on another thread while the owning engine goes on advancing chains.
pub struct Scanner {
    rules: RuleSet,
    shell_tools: Vec<Wildcard>,
    scan_value: bool,
}

impl Scanner {
    /// Merge the config's rules into the built-ins and compile them; errors name the rule id.
    pub fn new(config: &LoudFailureConfig) -> Result<Self, RuleError> {
        Ok(Self::with_rules(
            RuleSet::compile(config.rules.clone())?,
            config,
        ))
    }

    /// A scanner over an already compiled table (`config.rules` is ignored).
    pub fn with_rules(rules: RuleSet, config: &LoudFailureConfig) -> Self {
        Self {
            rules,
            shell_tools: shell_tool_patterns(&config.shell_tools),
            scan_value: config.scan_value,
        }
    }

    /// Whether results of this tool are scanned for silent failures. Callers
    /// use it to skip reading a result they would only throw away.
    pub fn scans(&self, name: &str) -> bool {
        scans_with(&self.shell_tools, name)
    }

    /// Whether results should carry the value JSON (the `scanValue` option).
    pub fn scans_value(&self) -> bool {
        self.scan_value
    }

    /// Whether any tool's results are scanned (`shellTools` not empty).
    pub fn scans_any(&self) -> bool {
        !self.shell_tools.is_empty()
    }

    /// Scan one result of tool `name`; `None` when not scanned or nothing matched.
    pub fn scan(&self, name: &str, output: &Output) -> Option<Failure> {
        self.scan_in(name, output, None)
    }

    /// [`Scanner::scan`] knowing the call's command ([`ScanContext`]): what
    /// ran, which status was reported, why the agent ran it
    /// (`shell::intent`). `None` scans as without a command.
    pub fn scan_in(
        &self,
        name: &str,
        output: &Output,
        ctx: Option<&ScanContext>,
    ) -> Option<Failure> {
        if output.is_error || !self.scans(name) {
            return None;
        }
        // A chunk of a command still running (Codex's `exec_command` or
        // `write_stdin` before the process ended) is no finished result: its
        // end, with the exit code, comes in a later poll.
        if output
            .texts
            .first()
            .is_some_and(|t| crate::status_header::still_running(t))
        {
            return None;
        }
        let raw = join_lines(&output.texts);
        // The rules read the output as a terminal shows it: colour and cursor
        // escapes removed (same line numbers; the verdict quotes plain lines).
        let original = crate::normalize::strip_ansi(&raw);
        let value_json = output.value_json.filter(|_| self.scan_value);
        let scanned = match value_json {
            Some(json) if output.texts.is_empty() => std::borrow::Cow::Borrowed(json),
            Some(json) => std::borrow::Cow::Owned(format!("{original}\n{json}")),
            None => std::borrow::Cow::Borrowed(original.as_ref()),
        };
        // The harness markers trail the shell output; the appended value JSON
        // must not hide them.
        let already_failed = shows_failure(&original);
        let matches = self.rules.scan_after(&scanned, already_failed);
        let mut matches = intent::adjust(ctx, &scanned, matches, &|text| {
            self.rules.scan_after(text, already_failed)
        });
        // An `error` needs corroboration: a hidden status or a
        // program-specific signal, not a generic failure word alone. (Only
        // with an `error` to judge: the call is modelled no more often.)
        if matches.iter().any(|m| m.action == Action::Error) {
            let status = StatusShown {
                failed: already_failed,
                unrecorded: output.status_unrecorded,
            };
            corroborate(
                ctx.and_then(ScanContext::model).map(|(m, _)| m),
                status,
                &scanned,
                &mut matches,
            );
        }
        if let Some(known) = exact_failure(ctx, output.exit_statuses) {
            matches.insert(0, known);
        }
        if let Some(refused) = tool_rejection(&original) {
            matches.insert(0, refused);
        }
        if matches.is_empty() {
            return None;
        }
        // Only `when: always` rules can match output that already shows failure;
        // the header must not then claim the command exited 0, nor claim it
        // when no status was reported (an MCP tool, a framework's tool result).
        // `Original output` is the output as the tool returned it.
        let status = if already_failed {
            ReportedStatus::Failed
        } else if reports_exit_zero(&original)
            || output.exit_statuses.is_some_and(|s| s.status == 0)
        {
            ReportedStatus::ExitZero
        } else {
            ReportedStatus::None
        };
        Some(failure_verdict(name, &raw, status, matches))
    }
}

/// Exact mode: a stage of the reported pipeline that exited non-zero with a
/// status its program does not use for an answer failed, whatever the output
/// says (`error`); in a probe or the agent's own script it stays `context`,
/// as in command-aware scanning. Unknown statuses or a command the model
/// cannot match them to add nothing.
fn exact_failure(ctx: Option<&ScanContext>, statuses: Option<&ExitStatuses>) -> Option<RuleMatch> {
    let (model, own_script) = ctx?.model()?;
    let failed = exact::failed_stage(model, statuses?)?;
    let meant = own_script || model.probe;
    let command = model.command.as_deref().unwrap_or_default();
    let mut excerpt: String = command.trim().chars().take(200).collect();
    if command.trim().chars().count() > 200 {
        excerpt.push('…');
    }
    Some(RuleMatch {
        // Not a rule of the table: no index in it.
        rule: usize::MAX,
        id: EXIT_STATUS_ID.to_owned(),
        message: failed.message(),
        action: if meant {
            Action::Context
        } else {
            Action::Error
        },
        line: 1,
        excerpt,
    })
}

/// A tool that runs in the shell (SWE-agent's `edit`, a harness's file
/// tools) refused the call and said so as its output's first line, with the
/// shell's status 0: the loop detectors' rejection phrases
/// (`rules/loops.json`, one list for both), never the table's. Only the
/// first non-blank line counts: a tool says its refusal first, while a
/// phrase further down is a program's output (a grep hit, a catted log).
/// An error even in a probe or the agent's own script: the call did nothing.
fn tool_rejection(output: &str) -> Option<RuleMatch> {
    let lead = output.len() - output.trim_start().len();
    let start = output[..lead].rfind('\n').map_or(0, |i| i + 1);
    let end = output[start..]
        .find('\n')
        .map_or(output.len(), |i| start + i);
    if !texts::is_rejection(&output[start..end], true) {
        return None;
    }
    let (line, excerpt) = line_and_excerpt(output, start);
    Some(RuleMatch {
        // Not a rule of the table: no index in it.
        rule: usize::MAX,
        id: REJECTED_ID.to_owned(),
        message: REJECTED_MESSAGE.to_owned(),
        action: Action::Error,
        line,
        excerpt,
    })
}

/// The id of a tool's refusal in its shell output (not a rule of the table).
pub const REJECTED_ID: &str = "tool-rejected";
const REJECTED_MESSAGE: &str = "The tool refused the call (its output says so first): nothing was changed, though the shell exited 0.";

/// The id an exact-mode verdict names (not a rule of the table).
pub const EXIT_STATUS_ID: &str = "stage-exit-status";

/// `loudFailure.shellTools` as matchers. Tool names are compared without
/// case (`Bash` is `bash`): the one place that decides it.
pub fn shell_tool_patterns(tools: &[String]) -> Vec<Wildcard> {
    tools
        .iter()
        .map(|p| Wildcard::new(&p.to_lowercase()))
        .collect()
}

/// Whether tool `name` is scanned by patterns from [`shell_tool_patterns`].
pub fn scans_with(patterns: &[Wildcard], name: &str) -> bool {
    if name.chars().any(char::is_uppercase) {
        any_match(patterns, &name.to_lowercase())
    } else {
        any_match(patterns, name)
    }
}

pub struct Engine {
    chains: Chains,
    scanner: Arc<Scanner>,
    /// The result-aware loop detectors; `None` with `loops` off.
    loops: Option<Loops>,
    /// The result-blind DSH repeat chain runs (always with loops off).
    blind_repeat: bool,
    /// Per agent, the paths it wrote (its own scripts: `shell::intent`).
    writes: std::collections::HashMap<String, SessionWrites>,
    /// Per agent, the error lines its user quoted (`shell::intent`).
    reports: std::collections::HashMap<String, Arc<SessionReports>>,
    /// `exactMode`: shell calls may be rewritten to record their statuses.
    exact_mode: bool,
}

impl Engine {
    /// Compile a validated config; rule errors name the rule id.
    pub fn new(config: &Config) -> Result<Self, Error> {
        let mut engine = Self::with_scanner(
            &config.repeat,
            Arc::new(Scanner::new(&config.loud_failure)?),
        );
        engine.set_loops(config.loops.as_ref());
        engine.exact_mode = config.exact_mode;
        Ok(engine)
    }

    /// Whether the config turned exact mode on.
    pub fn exact_mode(&self) -> bool {
        self.exact_mode
    }

    /// Exact mode: `call`'s arguments JSON with its shell command rewritten
    /// to record its stages' statuses to `side_file`
    /// ([`exact::rewrite_arguments`]); `None` with `exactMode` off, for a
    /// tool not scanned, or a command not rewritten.
    pub fn exact_arguments(&self, call: &Call, side_file: &str) -> Option<String> {
        if !self.exact_mode || !self.scans(call.name) || !exact::rewrites_tool(call.name) {
            return None;
        }
        exact::rewrite_arguments(call.arguments_json, side_file)
    }

    /// Switch the loop detectors on (with this config) or off.
    pub fn set_loops(&mut self, config: Option<&LoopsConfig>) {
        self.loops = config.map(Loops::new);
        self.blind_repeat = config.is_none_or(|c| c.result_blind_repeat);
    }

    /// Whether the loop detectors run: callers then hand every tool's result over.
    pub fn loops_on(&self) -> bool {
        self.loops.is_some()
    }

    /// Whether `check` may refuse a call: the loop detectors run with `loops.deny` set.
    pub fn denies_loops(&self) -> bool {
        self.loops.as_ref().is_some_and(Loops::denies)
    }

    /// Fresh chains over a compiled scanner: engines that differ only in
    /// their chains (or repeat options) share one rule table.
    pub fn with_scanner(repeat: &RepeatConfig, scanner: Arc<Scanner>) -> Self {
        Self {
            chains: Chains::new(repeat),
            scanner,
            loops: None,
            blind_repeat: true,
            writes: std::collections::HashMap::new(),
            reports: std::collections::HashMap::new(),
            exact_mode: false,
        }
    }

    /// The shared scanner, for scans that run off the caller's thread.
    pub fn scanner(&self) -> Arc<Scanner> {
        Arc::clone(&self.scanner)
    }

    /// See [`Scanner::scans`].
    pub fn scans(&self, name: &str) -> bool {
        self.scanner.scans(name)
    }

    /// See [`Scanner::scans_value`].
    pub fn scans_value(&self) -> bool {
        self.scanner.scans_value()
    }

    /// Advance the chain for `call` (when it has an agent) and return what
    /// the guard has to say about it, or `None`.
    pub fn observe(&mut self, call: &Call, output: Option<&Output>) -> Option<Verdict> {
        self.observe_marked(call, output, CallMark::default())
    }

    /// [`Engine::observe`] of a call whose place in its log is known (the
    /// audit): loop alarms then number calls as the log's report does.
    pub fn observe_marked(
        &mut self,
        call: &Call,
        output: Option<&Output>,
        mark: CallMark,
    ) -> Option<Verdict> {
        let reminder = self.advance(call);
        let failure = output.and_then(|output| self.scan_call(call, output));
        let flagged = failure
            .as_ref()
            .is_some_and(|f| f.action == FailureAction::Error);
        let loop_alarm = match self.loops.as_mut() {
            Some(loops) => match call.agent_id {
                Some(agent) => {
                    let text = output.map(|o| join_lines(&o.texts)).unwrap_or_default();
                    let outcome = LoopOutcome {
                        text: &text,
                        is_error: output.is_some_and(|o| o.is_error),
                        flagged,
                    };
                    loops.observe_marked(agent, call.name, call.arguments_json, &outcome, mark)
                }
                None => None,
            },
            None => None,
        };
        let verdict = Verdict {
            reminder,
            failure,
            loop_alarm,
        };
        (!verdict.is_empty()).then_some(verdict)
    }

    /// Advance only the chain: the result-blind repeat guard alone (a no-op
    /// when the loop detectors replace it).
    pub fn advance(&mut self, call: &Call) -> Option<Reminder> {
        self.note_writes(call);
        if !self.blind_repeat {
            return None;
        }
        call.agent_id
            .and_then(|agent| self.chains.advance(agent, call.name, call.arguments_json))
    }

    /// [`Engine::advance`] of a call whose `arguments_json` is already the
    /// canonical form (`canonical::canonicalize_arguments` of the raw text):
    /// the chain keys it as it is.
    pub fn advance_canonical(&mut self, call: &Call) -> Option<Reminder> {
        self.note_writes(call);
        if !self.blind_repeat {
            return None;
        }
        call.agent_id.and_then(|agent| {
            self.chains
                .advance_canonical(agent, call.name, call.arguments_json)
        })
    }

    /// Feed the loop detectors one call and its result (`flagged`: a
    /// silent-failure rule with action `error` matched it).
    pub fn observe_loop(
        &mut self,
        call: &Call,
        output: Option<&Output>,
        flagged: bool,
    ) -> Option<LoopAlarm> {
        self.observe_loop_marked(call, output, flagged, CallMark::default())
    }

    /// [`Engine::observe_loop`] of a call whose time (or ordinal) the host
    /// knows: a live host that gives the wall time lets a quiet poll be
    /// judged by time as well as by count.
    pub fn observe_loop_marked(
        &mut self,
        call: &Call,
        output: Option<&Output>,
        flagged: bool,
        mark: CallMark,
    ) -> Option<LoopAlarm> {
        let text = output.map(|o| join_lines(&o.texts)).unwrap_or_default();
        let outcome = LoopOutcome {
            text: &text,
            is_error: output.is_some_and(|o| o.is_error),
            flagged,
        };
        let loops = self.loops.as_mut()?;
        loops.observe_marked(
            call.agent_id?,
            call.name,
            call.arguments_json,
            &outcome,
            mark,
        )
    }

    /// [`Engine::observe_loop`] with the result already one text: a binding
    /// that holds the texts owned need not build an [`Output`] (an
    /// allocation on every call) to hand them over. `concurrent`: see
    /// [`CallMark::concurrent`] (the host says so, or it is `false`).
    pub fn observe_outcome(
        &mut self,
        call: &Call,
        outcome: &LoopOutcome,
        concurrent: bool,
    ) -> Option<LoopAlarm> {
        let loops = self.loops.as_mut()?;
        let mark = CallMark {
            concurrent,
            ..CallMark::default()
        };
        loops.observe_marked(
            call.agent_id?,
            call.name,
            call.arguments_json,
            outcome,
            mark,
        )
    }

    /// Before a call runs: refuse it when it would continue a loop already
    /// reminded `loops.deny` times (`None`: let it run).
    pub fn check(&mut self, call: &Call) -> Option<LoopDeny> {
        let loops = self.loops.as_mut()?;
        loops.check(call.agent_id?, call.name, call.arguments_json)
    }

    /// See [`Scanner::scan`].
    pub fn scan(&self, name: &str, output: &Output) -> Option<Failure> {
        self.scanner.scan(name, output)
    }

    /// Scan `call`'s result knowing its command and what the agent wrote
    /// before ([`Scanner::scan_in`]).
    pub fn scan_call(&self, call: &Call, output: &Output) -> Option<Failure> {
        if output.is_error || !self.scans(call.name) {
            return None;
        }
        let ctx = self.scan_context(call);
        self.scanner.scan_in(call.name, output, ctx.as_ref())
    }

    /// What the scan of `call`'s result needs to know of it (for a scan
    /// that runs off this thread; modelled only if a rule matches).
    pub fn scan_context(&self, call: &Call) -> Option<ScanContext> {
        let writes = call.agent_id.and_then(|a| self.writes.get(a));
        let reports = call.agent_id.and_then(|a| self.reports.get(a)).cloned();
        Some(ScanContext::new(call.name, call.arguments_json, writes).with_reports(reports))
    }

    /// Remember the paths `call` writes, per agent (bounded).
    fn note_writes(&mut self, call: &Call) {
        let Some(agent) = call.agent_id else {
            return;
        };
        // Only a scan reads them (an agent's own scripts): an engine that
        // scans no tool (the DSH repeat plugin) would model every edit's and
        // write's arguments for nothing (a 4 KB edit: a third of its call).
        if !self.scanner.scans_any() {
            return;
        }
        if !SessionWrites::may_write(call.name, call.arguments_json) {
            return;
        }
        let model = crate::shell::classify_call(call.name, call.arguments_json);
        if model.writes.is_empty() {
            return;
        }
        match self.writes.get_mut(agent) {
            Some(w) => w.record(&model),
            None => {
                let mut w = SessionWrites::default();
                w.record(&model);
                self.writes.insert(agent.to_owned(), w);
            }
        }
    }

    /// The user spoke: that agent's chain starts over.
    pub fn reset(&mut self, agent_id: &str) {
        // What the agent wrote stays its own (a script written before the
        // user spoke is still its reproduction script).
        let writes = self.writes.remove(agent_id);
        let reports = self.reports.remove(agent_id);
        self.forget(agent_id);
        if let Some(w) = writes {
            self.writes.insert(agent_id.to_owned(), w);
        }
        if let Some(r) = reports {
            self.reports.insert(agent_id.to_owned(), r);
        }
    }

    /// The user said `text` to that agent (the task, a later message): the
    /// errors it quotes are the reported bug (`shell::intent`). Noting any
    /// user text turns the signal on for the agent; bounded.
    pub fn note_user_text(&mut self, agent_id: &str, text: &str) {
        let reports = self.reports.entry(agent_id.to_owned()).or_default();
        Arc::make_mut(reports).note(text);
    }

    /// The error lines the agent's user quoted, oldest first (`None`: no
    /// user message noted).
    pub fn reported_lines(&self, agent_id: &str) -> Option<Vec<&str>> {
        self.reports.get(agent_id).map(|r| r.lines().collect())
    }

    /// Put back lines saved with [`Engine::reported_lines`].
    pub fn restore_reports<S: Into<String>>(
        &mut self,
        agent_id: &str,
        lines: impl IntoIterator<Item = S>,
    ) {
        self.reports.insert(
            agent_id.to_owned(),
            Arc::new(SessionReports::from_lines(lines)),
        );
    }

    /// The agent is gone: free its state.
    pub fn forget(&mut self, agent_id: &str) {
        self.chains.remove(agent_id);
        self.writes.remove(agent_id);
        self.reports.remove(agent_id);
        if let Some(loops) = self.loops.as_mut() {
            loops.remove(agent_id);
        }
    }

    /// The agent's loop window as a string (see [`Loops::state`]).
    pub fn loop_state(&self, agent_id: &str) -> Option<String> {
        self.loops.as_ref()?.state(agent_id)
    }

    /// Put back a loop window saved with [`Engine::loop_state`]; ignored with loops off.
    pub fn restore_loops(&mut self, agent_id: &str, state: &str) -> Result<(), Error> {
        match self.loops.as_mut() {
            Some(loops) => loops.restore(agent_id, state).map_err(Error::State),
            None => Ok(()),
        }
    }

    /// The paths the agent wrote in this session, oldest first (empty: none).
    pub fn written_paths(&self, agent_id: &str) -> Vec<&str> {
        self.writes
            .get(agent_id)
            .map_or_else(Vec::new, |w| w.paths().collect())
    }

    /// Put back paths saved with [`Engine::written_paths`] (bounded as the
    /// engine bounds them).
    pub fn restore_writes<S: Into<String>>(
        &mut self,
        agent_id: &str,
        paths: impl IntoIterator<Item = S>,
    ) {
        let writes = SessionWrites::from_paths(paths);
        if writes.is_empty() {
            self.writes.remove(agent_id);
        } else {
            self.writes.insert(agent_id.to_owned(), writes);
        }
    }

    /// The agent's chain as `(digest, count)` (see [`Chains::state`]).
    pub fn chain_state(&self, agent_id: &str) -> Option<(u128, u64)> {
        self.chains.state(agent_id)
    }

    /// Put back a chain saved with [`Engine::chain_state`].
    pub fn restore_chain(&mut self, agent_id: &str, digest: u128, count: u64) -> Result<(), Error> {
        self.chains.restore(agent_id, digest, count)
    }

    /// Number of agents with live chain state.
    pub fn agents(&self) -> usize {
        match self.loops.as_ref() {
            Some(loops) if !loops.is_empty() => {
                let only_loops = loops
                    .agent_ids()
                    .filter(|a| self.chains.state(a).is_none())
                    .count();
                self.chains.len() + only_loops
            }
            _ => self.chains.len(),
        }
    }
}

/// A result's text blocks as the one text the rules and the loop detectors
/// read: joined with `\n` (borrowed when there is one).
pub fn join_lines<S: AsRef<str>>(texts: &[S]) -> std::borrow::Cow<'_, str> {
    match texts {
        [] => "".into(),
        [one] => one.as_ref().into(),
        many => {
            let parts: Vec<&str> = many.iter().map(AsRef::as_ref).collect();
            parts.join("\n").into()
        }
    }
}

/// What the result itself said about how the command ended: the verdict's
/// header states no more than this.
#[derive(Clone, Copy, PartialEq, Eq)]
enum ReportedStatus {
    /// A failure marker (non-zero exit code, timeout, signal, sandbox).
    Failed,
    /// An exit code of 0 (a marker, or the exact-mode statuses).
    ExitZero,
    /// No status at all.
    None,
}

/// Build the verdict texts (formats in docs/engine.md "Verdicts").
fn failure_verdict(
    tool: &str,
    original: &str,
    status: ReportedStatus,
    rules: Vec<RuleMatch>,
) -> Failure {
    let action = if rules.iter().any(|m| m.action == Action::Error) {
        FailureAction::Error
    } else {
        FailureAction::Context
    };
    let ids: Vec<&str> = rules.iter().map(|m| m.id.as_str()).collect();
    let summary = format!("{tool}: {}", ids.join(", "));
    let lines: Vec<String> = rules
        .iter()
        .map(|m| {
            format!(
                "- {} (line {}): {}\n  > {}",
                m.id, m.line, m.message, m.excerpt
            )
        })
        .collect();
    let text = match action {
        FailureAction::Error => {
            let head = match status {
                ReportedStatus::Failed => format!("[loud-failure] {tool} output shows a failure:"),
                ReportedStatus::ExitZero => {
                    format!("[loud-failure] {tool} exited 0 but its output shows it failed:")
                }
                ReportedStatus::None => {
                    format!(
                        "[loud-failure] {tool} reported no error but its output shows it failed:"
                    )
                }
            };
            format!("{head}\n{}\nOriginal output:\n{original}", lines.join("\n"))
        }
        FailureAction::Context => {
            format!(
                "[loud-failure] {tool} output may show a silent failure:\n{}",
                lines.join("\n")
            )
        }
    };
    Failure {
        action,
        summary,
        text,
        rules,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call<'a>(agent: &'a str) -> Call<'a> {
        Call {
            agent_id: Some(agent),
            name: "bash",
            arguments_json: r#"{"command":"make"}"#,
        }
    }

    #[test]
    fn what_an_agent_writes_is_kept_only_by_an_engine_that_scans() {
        let edit = Call {
            agent_id: Some("a"),
            name: "edit",
            arguments_json: r#"{"file_path":"repro.py","old_string":"a","new_string":"b"}"#,
        };
        let mut scanning = Engine::new(&Config::default()).unwrap();
        scanning.advance(&edit);
        assert_eq!(scanning.written_paths("a"), ["repro.py"]);
        // The DSH repeat plugin's engine: no tool scanned, nothing modelled.
        let mut config = Config::default();
        config.loud_failure.shell_tools.clear();
        let mut repeat_only = Engine::new(&config).unwrap();
        assert!(repeat_only.advance(&edit).is_none());
        assert!(repeat_only.written_paths("a").is_empty());
    }

    #[test]
    fn engines_sharing_a_scanner_keep_their_own_chains() {
        let config = Config::default();
        let first = Engine::new(&config).unwrap();
        let mut second = Engine::with_scanner(&config.repeat, first.scanner());
        let mut first = first;
        for _ in 0..2 {
            assert!(first.advance(&call("a")).is_none());
        }
        assert!(
            second.advance(&call("a")).is_none(),
            "second engine starts at 1"
        );
        assert_eq!(first.advance(&call("a")).map(|r| r.count), Some(3));
        let output = Output {
            texts: vec!["Traceback (most recent call last):"],
            ..Output::default()
        };
        assert_eq!(first.scan("bash", &output), second.scan("bash", &output));
        assert!(first.scan("bash", &output).is_some());
    }

    #[test]
    fn coloured_output_is_scanned_as_the_terminal_shows_it() {
        let engine = Engine::new(&Config::default()).unwrap();
        let output = Output {
            texts: vec![
                "\x1b[31mTraceback (most recent call last):\x1b[0m\n  File \"x.py\", line 1, in <module>",
                "\x1b[1;31mValueError\x1b[0m: bad",
            ],
            ..Output::default()
        };
        let failure = engine.scan("bash", &output).expect("coloured traceback");
        assert_eq!(failure.summary, "bash: python-traceback");
        assert_eq!(failure.rules[0].line, 1);
        assert_eq!(
            failure.rules[0].excerpt,
            "Traceback (most recent call last):"
        );
        // The verdict's `Original output` is the output as the tool gave it.
        assert!(failure.text.contains("\x1b[1;31mValueError"));
    }

    #[test]
    fn a_scan_off_the_owning_thread_sees_the_same_rules() {
        let engine = Engine::new(&Config::default()).unwrap();
        let scanner = engine.scanner();
        let off_thread = std::thread::spawn(move || {
            let output = Output {
                texts: vec!["ok", "npm ERR! code E404"],
                ..Output::default()
            };
            scanner.scan("bash", &output).map(|f| f.summary)
        })
        .join()
        .unwrap();
        assert_eq!(off_thread.as_deref(), Some("bash: npm-error"));
    }

    #[test]
    fn a_tool_refusal_in_exit_0_shell_output_is_an_error() {
        // SWE-agent's `edit` runs in the shell: its refusal is exit-0 output.
        let engine = Engine::new(&Config::default()).unwrap();
        let call = Call {
            agent_id: Some("a"),
            name: "bash",
            arguments_json: r#"{"command":"edit 287:295"}"#,
        };
        let refused = Output {
            texts: vec![
                "\nYour proposed edit has introduced new syntax error(s). Please understand the fixes and retry your edit commmand.",
                "",
                "ERRORS:",
                "- E999 SyntaxError: unmatched ']'",
            ],
            ..Output::default()
        };
        let verdict = engine.scan_call(&call, &refused).expect("a refusal");
        assert_eq!(verdict.action, FailureAction::Error);
        assert_eq!(verdict.rules[0].id, REJECTED_ID);
        assert_eq!(verdict.rules[0].line, 2);
        assert!(verdict.rules[0].excerpt.starts_with("Your proposed edit"));
        // The same phrase further down is a program's output (a catted log).
        let quoted = Output {
            texts: vec!["[agent.log]", "No replacement was performed"],
            ..Output::default()
        };
        assert!(engine.scan_call(&call, &quoted).is_none());
    }
}
