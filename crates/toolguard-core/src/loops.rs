//! Loop detectors that look at results, not only at calls (issue 10).
//!
//! Each agent keeps a fixed window of the last `window` calls, each reduced
//! to digests: the call (tool + canonical arguments without ignored keys),
//! the normalised result ([`crate::normalize`]), the tool, and for failures
//! the error signature; never a text. Four detectors read the window after
//! every call, most specific first:
//!
//! - **repeat**: the same call `repeat` times in a row with the same outcome.
//!   The same call with a changing result is polling and is never flagged.
//! - **cycle**: the last calls repeat a block of 2..=`maxPeriod` calls with
//!   the same outcomes, and a `cycle`-th round has begun.
//! - **same-error**: consecutive failures of one tool whose error
//!   signatures match, made with `sameError` different arguments (`softError` when the
//!   failure shows only as an HTTP 4xx/5xx status in the output).
//! - **re-read**: the same call with the same result `reRead` times within
//!   the window, other calls in between, and the call never returned
//!   anything else meanwhile (a debugger's `next` returns different lines,
//!   so it is stepping, not re-reading). A successful edit in between starts
//!   the count over for successful results (reading a file again after
//!   editing it is checking, not looping); failing results keep counting
//!   ("edits have not changed the failure").
//!
//! A call's first occurrence in the window keeps only the raw digest of its
//! result (normalising costs far more than hashing, and matters only when
//! the call recurs); from its second occurrence on, results are normalised.
//! Two results are the same when their normalised digests match (their raw
//! digests, when one of them has none); for calls
//! in a row (the repeat detector), two failures with the same error
//! signature are also the same outcome (a failing test run cut at a
//! different place, its failures in a different order). Transient failures (HTTP
//! 429/503, rate limits) get thresholds × `transientMultiplier` and back-off
//! advice. A reminder is due at every call the loop goes on, not once.
//! With `deny`, [`Loops::check`] refuses a call that would continue a loop
//! already reminded that many times; a denied call never resets a counter.

use std::collections::{HashMap, VecDeque};
use std::sync::LazyLock;

use aho_corasick::AhoCorasick;
use memchr::memmem;

use crate::canonical::canonicalize_arguments;
use crate::chain::{any_match, Wildcard};
use crate::config::LoopsConfig;
use crate::digest::{xxh3_64, FastHash};
use crate::loop_texts;
use crate::markers::shows_failure;
use crate::normalize::{failure_digest_with, normalize_line, result_digest_with, LineMemo};
use crate::shell::{self, Effect};

/// What kind of loop an alarm is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LoopKind {
    Repeat,
    Cycle,
    SameError,
    ReRead,
    /// The same state change again with the same result, with only looks
    /// in between (a click that changes nothing, clicked again).
    Redo,
}

impl LoopKind {
    /// The verdict's `kind`.
    pub fn as_str(self) -> &'static str {
        match self {
            LoopKind::Repeat => "repeat",
            LoopKind::Cycle => "cycle",
            LoopKind::SameError => "same-error",
            LoopKind::ReRead => "re-read",
            LoopKind::Redo => "redo",
        }
    }

    /// How the summary and the audit table name it (`same error × 3`).
    pub fn label(self) -> &'static str {
        match self {
            LoopKind::Repeat => "repeat",
            LoopKind::Cycle => "cycle",
            LoopKind::SameError => "same error",
            LoopKind::ReRead => "re-read",
            LoopKind::Redo => "redo",
        }
    }

    fn code(self) -> u8 {
        match self {
            LoopKind::Repeat => 1,
            LoopKind::Cycle => 2,
            LoopKind::SameError => 3,
            LoopKind::ReRead => 4,
            LoopKind::Redo => 5,
        }
    }

    fn from_code(code: u8) -> Option<Self> {
        Some(match code {
            1 => LoopKind::Repeat,
            2 => LoopKind::Cycle,
            3 => LoopKind::SameError,
            4 => LoopKind::ReRead,
            5 => LoopKind::Redo,
            _ => return None,
        })
    }
}

/// A loop alarm on one call.
#[derive(Debug, Clone, PartialEq)]
pub struct LoopAlarm {
    pub kind: LoopKind,
    /// The tool of the call the alarm is raised at.
    pub tool: String,
    /// Repeat / same-error / re-read: calls in the loop since it began, past
    /// the window too; cycle: rounds begun.
    pub count: u64,
    /// Cycle: calls per round; 1 otherwise.
    pub period: u64,
    /// The loop's latest calls, by ordinal (the caller's, see [`CallMark`];
    /// else 1-based since the last user prompt), oldest first; at most [`EVIDENCE_CALLS`].
    pub calls: Vec<u64>,
    /// The loop's first call (ordinal): where the episode began, however
    /// long ago; the same on every alarm of one episode.
    pub first: u64,
    /// The loop's latest call (ordinal): the call this alarm is raised at.
    pub last: u64,
    /// What repeated, in words.
    pub evidence: String,
    /// The reminder shown to the model.
    pub text: String,
    /// `<tool>: <label> × <count>`.
    pub summary: String,
    /// How many reminders this loop has had, this one included: it grows
    /// for as long as the loop goes on, past the window too.
    pub reminders: u64,
}

/// Where a call stands in its log, when the caller knows (the audit does;
/// a live host gives none): its ordinal, so alarm texts name the calls as
/// the report numbers them, and when it was made, so a quiet poll can be
/// judged by wall time too.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CallMark {
    /// 1-based; must grow from call to call of one agent.
    pub ordinal: Option<u64>,
    /// When the call was made, ms since the Unix epoch.
    pub time_ms: Option<u64>,
    /// The call was made before the previous call's result came back (one
    /// of several parallel calls of a model turn): it cannot be a reaction
    /// to that result, so it raises no alarm. It still enters the window,
    /// so the same batch made again after its results is a loop.
    pub concurrent: bool,
}

/// A call refused before it runs.
#[derive(Debug, Clone, PartialEq)]
pub struct LoopDeny {
    pub kind: LoopKind,
    pub count: u64,
    pub reminders: u64,
    /// Shown to the model instead of the call's result.
    pub reason: String,
}

/// With other calls between them, failures with one error count for
/// `same-error` only among the last this many calls: a few attempts, not
/// an error met again much later.
const RECENT: usize = 12;

/// At most this many call ordinals are listed as evidence.
pub const EVIDENCE_CALLS: usize = 12;

/// The most calls a window may hold (`loops.window`).
pub const MAX_WINDOW: usize = crate::config::MAX_LOOP_WINDOW;

const FAILED: u8 = 1;
const SOFT: u8 = 2;
const TRANSIENT: u8 = 4;
const MUTATION: u8 = 8;
/// `result` is the normalised digest (else it is the raw one).
const NORMALIZED: u8 = 16;
/// A poll whose result says the job it watches has ended.
const DONE: u8 = 32;
/// A state change that names no file (a click, an install): what it
/// changed shows only through other looks.
const PATHLESS: u8 = 64;
/// A run or test that came back again and whose output names an error
/// though nothing said it failed (a caught traceback, a runner's error
/// behind `| tail`): for `re-read` it fails the same way.
const TROUBLED: u8 = 0x80;

// The effect cache's bits below share values with the entry flags above
// (NO_PATH = TROUBLED, HIDDEN = PATHLESS, WRITES = DONE): safe, because they
// live in another byte (`Loops::effects`, never saved) and `observe` unpacks
// them into booleans before an entry is made. The effect codes must stay
// below them (checked at compile time under `mod effect`);
// __test__/loop-flag-bits.test.mjs checks both engines' saved entries.
/// In [`Loops::effects`], beside the effect code: the call writes no path.
const NO_PATH: u8 = 0x80;
/// In [`Loops::effects`]: the command hid its real exit status (`| tail`,
/// `; echo`) and is no probe, so its output is all that shows a failure.
const HIDDEN: u8 = 0x40;
/// In [`Loops::effects`]: the call writes a path (any effect).
const WRITES: u8 = 0x20;

/// What a call does, by the shell model ([`shell::classify_call`]), as
/// [`Entry::effect`] keeps it.
mod effect {
    pub const UNKNOWN: u8 = 0;
    pub const READ: u8 = 1;
    pub const WRITE: u8 = 2;
    pub const RUN: u8 = 3;
    pub const TEST: u8 = 4;
    pub const WAIT: u8 = 5;
    pub const SEARCH: u8 = 6;
    pub const NETWORK: u8 = 7;
    pub const NAVIGATE: u8 = 8;
    pub const OTHER: u8 = 9;
}
// Every effect code fits below the effect cache's bits (OTHER is the largest).
const _: () = assert!(effect::OTHER < WRITES && WRITES < HIDDEN && HIDDEN < NO_PATH);

fn effect_code(e: Option<Effect>) -> u8 {
    match e {
        None => effect::UNKNOWN,
        Some(Effect::Read) => effect::READ,
        Some(Effect::Write) => effect::WRITE,
        Some(Effect::Run) => effect::RUN,
        Some(Effect::Test) => effect::TEST,
        Some(Effect::Wait) => effect::WAIT,
        Some(Effect::Search) => effect::SEARCH,
        Some(Effect::Network) => effect::NETWORK,
        Some(Effect::Navigate) => effect::NAVIGATE,
        Some(Effect::Other) => effect::OTHER,
    }
}

/// One call as the window keeps it: digests and flags, 57 bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Entry {
    call: u64,
    /// The normalised result digest when [`NORMALIZED`], else `raw`.
    result: u64,
    /// XXH3 of the result text as it came.
    raw: u64,
    /// Error signature of a failure; 0 when none.
    sig: u64,
    /// The failure's line as it reads (digits as `#`, nothing taken out
    /// for the arguments): what two different calls' failures share when
    /// their arguments differ in the words the line holds; 0 when none.
    bare: u64,
    tool: u64,
    ordinal: u64,
    /// When the call was made (ms since the epoch); 0: unknown.
    time: u64,
    flags: u8,
    /// What the call does ([`effect`]).
    effect: u8,
    /// The call tries to change something: a state change, or a run that
    /// writes a file (a server started with its log redirected).
    attempt: bool,
}

impl Entry {
    fn failing(&self) -> bool {
        self.flags & (FAILED | SOFT) != 0
    }

    /// Failing, or a re-run whose output names an error ([`TROUBLED`]).
    fn troubled(&self) -> bool {
        self.failing() || self.flags & TROUBLED != 0
    }

    /// Polls a job that has not said it ended: waiting, judged by the poll rule.
    fn polling(&self) -> bool {
        self.effect == effect::WAIT && self.flags & DONE == 0
    }

    /// Same result: normalised digests when both have one, else the raw texts.
    fn same_result(&self, other: &Entry) -> bool {
        if self.flags & other.flags & NORMALIZED != 0 {
            self.result == other.result
        } else {
            self.raw == other.raw
        }
    }

    /// Same call, same result.
    fn same_as(&self, other: &Entry) -> bool {
        self.call == other.call && self.same_result(other)
    }

    /// Same call, same outcome: the same result, or, for failures, the same
    /// error signature. Only for calls in a row, where nothing ran in
    /// between that could have changed the outcome: a failing run that
    /// prints its failures in another order or cut at another place is the
    /// same failure. With edits in between, a different failure behind the
    /// same first error line is progress, so the other detectors compare results.
    fn same_outcome_in_a_row(&self, other: &Entry) -> bool {
        self.call == other.call
            && (self.same_result(other)
                || (self.failing() && other.failing() && self.sig != 0 && self.sig == other.sig))
    }
}

/// The loop episode the agent is in: one per loop however long it runs
/// (the window only bounds what the detectors look back at; the episode's
/// counts go on past it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Active {
    kind: LoopKind,
    /// The count the alarm reports (a cycle: rounds begun).
    count: u64,
    /// Calls in the episode so far.
    calls: u64,
    /// Calls per round (a cycle); 1 otherwise.
    period: u64,
    reminders: u64,
    /// The call that would continue the loop.
    next_call: u64,
    /// The episode's first and latest call (ordinals).
    first_ordinal: u64,
    last_ordinal: u64,
    /// The loop's results are failures: a successful edit does not end it
    /// ("edits have not changed the failure").
    failing: bool,
    /// What its calls are (the advice of a refusal).
    about: About,
}

impl Active {
    /// Whether `found`, raised at the newest call, goes on with this
    /// episode: the same kind of loop over calls it already counted (a
    /// repeat and a re-read also of the same call, a cycle of the same period).
    fn continued_by(&self, found: &Found) -> bool {
        self.kind == found.kind
            && self.period == found.period
            && found.first_ordinal() <= self.last_ordinal
            && match found.kind {
                LoopKind::Repeat | LoopKind::ReRead | LoopKind::Redo => {
                    self.next_call == found.next_call
                }
                LoopKind::Cycle | LoopKind::SameError => true,
            }
    }
}

#[derive(Debug, Clone, Default)]
struct AgentLoops {
    entries: VecDeque<Entry>,
    ordinal: u64,
    active: Option<Active>,
    /// A call refused by `check`: when it is observed anyway (DSH counts
    /// denied calls), it is passed over so the deny resets nothing.
    denied: Option<u64>,
}

/// One call's result as the detectors need it.
#[derive(Debug, Clone, Copy, Default)]
pub struct LoopOutcome<'a> {
    /// The result's text blocks joined with `\n` (empty when none).
    pub text: &'a str,
    pub is_error: bool,
    /// A silent-failure rule matched with action `error`.
    pub flagged: bool,
}

/// Compiled `loops` config plus every agent's window.
#[derive(Debug)]
pub struct Loops {
    window: usize,
    limits: Limits,
    deny: Option<u64>,
    ignore_arguments: Vec<(Wildcard, Vec<String>)>,
    exempt: Vec<Wildcard>,
    multipliers: Vec<(Wildcard, f64)>,
    mutating: Vec<Wildcard>,
    agents: HashMap<String, AgentLoops, NameHash>,
    /// What the patterns say about each tool name seen, so a call costs one
    /// lookup instead of a wildcard match per pattern (the default
    /// `mutatingTools` alone has 12). Bounded by [`TOOL_CACHE`].
    tools: HashMap<String, ToolInfo, NameHash>,
    /// What each call does ([`effect`]), by call digest: the shell model
    /// parses a command once, however often it recurs. Bounded by [`EFFECT_CACHE`].
    effects: HashMap<u64, u8, NameHash>,
    key: String,
    line: String,
    /// Normal forms of result lines seen, shared by every agent (bounded).
    memo: LineMemo,
}

/// The detectors' thresholds, apart from the rest of the config so they can
/// be read while an agent's window is borrowed.
#[derive(Debug, Clone, Copy)]
struct Limits {
    repeat: Option<u64>,
    cycle: Option<u64>,
    max_period: usize,
    same_error: Option<u64>,
    soft_error: Option<u64>,
    re_read: Option<u64>,
    transient_multiplier: u64,
    /// Polls of a running job with nothing new, in a row…
    poll: Option<u64>,
    /// …over at least this long (ms; 0, or calls without times: the count alone).
    poll_quiet_ms: u64,
}

/// Agent ids and tool names come from the host, not from the model.
type NameHash = FastHash;

/// The most tool names [`Loops::tools`] keeps before it starts over.
const TOOL_CACHE: usize = 256;

/// The most calls [`Loops::effects`] keeps before it starts over.
const EFFECT_CACHE: usize = 4096;

/// One tool name against the config's patterns.
#[derive(Debug, Clone, Copy)]
struct ToolInfo {
    /// Not exempt.
    tracked: bool,
    mutating: bool,
    /// Some `ignoreArguments` pattern matches.
    ignores: bool,
    multiplier: f64,
    /// XXH3 of the name ([`Entry::tool`]).
    digest: u64,
    /// A shell tool ([`shell::is_shell_tool`]): its output is its program's.
    shell: bool,
}

impl Loops {
    pub fn new(config: &LoopsConfig) -> Self {
        let wild = |v: &[String]| v.iter().map(|p| Wildcard::new(p)).collect::<Vec<_>>();
        Self {
            window: config.window.clamp(2, MAX_WINDOW),
            limits: Limits {
                repeat: config.repeat,
                cycle: config.cycle,
                max_period: config.max_period.clamp(2, 8),
                same_error: config.same_error,
                soft_error: config.soft_error,
                re_read: config.re_read,
                transient_multiplier: config.transient_multiplier.max(1),
                poll: config.poll,
                poll_quiet_ms: config.poll_quiet_seconds.saturating_mul(1000),
            },
            deny: config.deny,
            ignore_arguments: config
                .ignore_arguments
                .iter()
                .map(|(p, keys)| (Wildcard::new(p), keys.clone()))
                .collect(),
            exempt: wild(&config.exempt),
            multipliers: config
                .multipliers
                .iter()
                .map(|(p, m)| (Wildcard::new(p), *m))
                .collect(),
            mutating: wild(&config.mutating_tools),
            agents: HashMap::default(),
            tools: HashMap::default(),
            effects: HashMap::default(),
            key: String::new(),
            line: String::new(),
            memo: LineMemo::default(),
        }
    }

    /// Whether a tool takes part (exempt tools are transparent).
    pub fn tracks(&self, name: &str) -> bool {
        !any_match(&self.exempt, name)
    }

    /// What the config says about tool `name` (cached).
    fn tool(&mut self, name: &str) -> ToolInfo {
        if let Some(info) = self.tools.get(name) {
            return *info;
        }
        let info = ToolInfo {
            tracked: self.tracks(name),
            mutating: any_match(&self.mutating, name),
            ignores: self.ignore_arguments.iter().any(|(p, _)| p.matches(name)),
            multiplier: self.multiplier(name),
            digest: xxh3_64(name.as_bytes()),
            shell: shell::is_shell_tool(name),
        };
        if self.tools.len() >= TOOL_CACHE {
            self.tools.clear();
        }
        self.tools.insert(name.to_owned(), info);
        info
    }

    /// The call digest: tool and canonical arguments, ignored keys removed
    /// (`ignores`: some `ignoreArguments` pattern matches the tool).
    fn call_digest(&mut self, name: &str, arguments_json: &str, ignores: bool) -> u64 {
        self.key.clear();
        self.key.push_str(name);
        self.key.push('\0');
        canonicalize_arguments(arguments_json, &mut self.key);
        if !ignores {
            return xxh3_64(self.key.as_bytes());
        }
        let ignored: Vec<&String> = self
            .ignore_arguments
            .iter()
            .filter(|(p, _)| p.matches(name))
            .flat_map(|(_, keys)| keys.iter())
            .collect();
        if !ignored.is_empty() {
            let canonical = &self.key[name.len() + 1..];
            if let Ok(serde_json::Value::Object(mut map)) =
                serde_json::from_str::<serde_json::Value>(canonical)
            {
                if ignored.iter().any(|k| map.contains_key(k.as_str())) {
                    for k in ignored {
                        map.remove(k.as_str());
                    }
                    // Canonical again (serde_json writes keys and numbers
                    // its own way): a call with the key and one without it
                    // must digest alike.
                    let text = serde_json::Value::Object(map).to_string();
                    self.key.truncate(name.len() + 1);
                    canonicalize_arguments(&text, &mut self.key);
                }
            }
        }
        xxh3_64(self.key.as_bytes())
    }

    /// What call `call` (its digest) does, by the shell model (cached).
    fn effect(&mut self, call: u64, name: &str, arguments_json: &str) -> u8 {
        if let Some(e) = self.effects.get(&call) {
            return *e;
        }
        let model = shell::classify_call(name, arguments_json);
        let mut e = effect_code(model.effect);
        if e == effect::WRITE && model.writes.is_empty() {
            e |= NO_PATH;
        }
        if model.hides_status() && !model.probe {
            e |= HIDDEN;
        }
        if !model.writes.is_empty() {
            e |= WRITES;
        }
        if self.effects.len() >= EFFECT_CACHE {
            self.effects.clear();
        }
        self.effects.insert(call, e);
        e
    }

    fn multiplier(&self, name: &str) -> f64 {
        self.multipliers
            .iter()
            .rev()
            .find(|(p, _)| p.matches(name))
            .map_or(1.0, |(_, m)| *m)
    }

    /// Would `call` continue a loop already reminded `deny` times? Read-only
    /// but for remembering the refusal, so the refused call, if it is
    /// observed anyway, resets nothing.
    pub fn check(&mut self, agent: &str, name: &str, arguments_json: &str) -> Option<LoopDeny> {
        let after = self.deny?;
        if !self.agents.contains_key(agent) {
            return None;
        }
        let tool = self.tool(name);
        if !tool.tracked {
            return None;
        }
        let call = self.call_digest(name, arguments_json, tool.ignores);
        let state = self.agents.get_mut(agent)?;
        let active = state.active?;
        if active.reminders < after || active.next_call != call {
            return None;
        }
        state.denied = Some(call);
        Some(LoopDeny {
            kind: active.kind,
            count: active.count,
            reminders: active.reminders,
            reason: format!(
                "[toolguard] Call refused: it would continue a {} loop (since call #{}) that has already had {} reminder{}. {}",
                active.kind.label(),
                active.first_ordinal,
                active.reminders,
                if active.reminders == 1 { "" } else { "s" },
                advice(active.kind, false, active.about)
            ),
        })
    }

    /// Record one call and its result; the alarm due at it, if any.
    pub fn observe(
        &mut self,
        agent: &str,
        name: &str,
        arguments_json: &str,
        outcome: &LoopOutcome,
    ) -> Option<LoopAlarm> {
        self.observe_marked(agent, name, arguments_json, outcome, CallMark::default())
    }

    /// [`Loops::observe`] of a call whose place in its log is known.
    pub fn observe_marked(
        &mut self,
        agent: &str,
        name: &str,
        arguments_json: &str,
        outcome: &LoopOutcome,
        mark: CallMark,
    ) -> Option<LoopAlarm> {
        let tool = self.tool(name);
        if !tool.tracked {
            return None;
        }
        let call = self.call_digest(name, arguments_json, tool.ignores);
        let effect = self.effect(call, name, arguments_json);
        let (effect, pathless, hidden, writes) = (
            effect & !(NO_PATH | HIDDEN | WRITES),
            effect & NO_PATH != 0,
            effect & HIDDEN != 0,
            effect & WRITES != 0,
        );
        if !self.agents.contains_key(agent) {
            self.agents.insert(agent.to_owned(), AgentLoops::default());
        }
        let state = self.agents.get_mut(agent).expect("just inserted");
        if state.denied.take() == Some(call) {
            return None;
        }
        // Normalising a result costs far more than hashing it; it only matters
        // when the call recurs. A first occurrence keeps the raw digest (and
        // compares by it); from the second on, results are normalised.
        let recurs = state.entries.iter().any(|e| e.call == call);
        let mut entry = entry(
            &tool,
            call,
            effect,
            pathless,
            hidden,
            arguments_json,
            outcome,
            recurs,
            &mut self.line,
            &mut self.memo,
        );
        state.ordinal = mark
            .ordinal
            .unwrap_or_else(|| state.ordinal.saturating_add(1));
        entry.ordinal = state.ordinal;
        entry.time = mark.time_ms.unwrap_or(0);
        entry.attempt = writes || entry.effect == effect::WRITE;
        if state.entries.len() == self.window {
            state.entries.pop_front();
        }
        state.entries.push_back(entry);
        // A call new to the window can only be in a same-error loop (the
        // other detectors all need it to recur), and only when it failed.
        let found = if recurs || entry.failing() {
            self.limits.detect(&state.entries, tool.multiplier)
        } else {
            None
        };
        if mark.concurrent && found.is_some() {
            // Not a reaction to what came back: no alarm, and the episode
            // (if any) stays as it was for the next call to carry on.
            return None;
        }
        let Some(found) = found else {
            // A re-read loop has other calls in between: it stays open until
            // the call comes back without an alarm, or an edit ends it
            // (unless what keeps coming back is a failure, or the loop is one
            // of undoing attempts: they are edits). Every other loop ends at
            // the first call that does not carry it on.
            state.active = state.active.filter(|a| {
                matches!(a.kind, LoopKind::ReRead | LoopKind::Redo)
                    && a.next_call != entry.call
                    && (a.failing || a.about == About::Undo || entry.flags & MUTATION == 0)
            });
            return None;
        };
        let active = match state.active {
            Some(a) if a.continued_by(&found) => {
                let new = found.calls.iter().filter(|&&o| o > a.last_ordinal).count() as u64;
                let calls = a.calls + new;
                Active {
                    count: match found.kind {
                        LoopKind::Cycle => calls.div_ceil(a.period),
                        _ => a.count + new,
                    },
                    calls,
                    reminders: a.reminders + 1,
                    next_call: found.next_call,
                    last_ordinal: entry.ordinal,
                    failing: entry.failing(),
                    about: found.about,
                    ..a
                }
            }
            _ => Active {
                kind: found.kind,
                count: found.count,
                calls: found.calls.len() as u64,
                period: found.period,
                reminders: 1,
                next_call: found.next_call,
                first_ordinal: found.first_ordinal(),
                last_ordinal: entry.ordinal,
                failing: entry.failing(),
                about: found.about,
            },
        };
        state.active = Some(active);
        Some(self.alarm(name, found, &active, outcome.text, arguments_json))
    }

    fn alarm(
        &self,
        tool: &str,
        found: Found,
        episode: &Active,
        text: &str,
        arguments_json: &str,
    ) -> LoopAlarm {
        let calls = list_calls(episode.first_ordinal, &found.calls, episode.calls);
        let count = episode.count;
        let first = episode.first_ordinal;
        let over = found
            .span_ms
            .filter(|ms| *ms >= 60_000)
            .map(|ms| format!(" over {}", minutes(ms)))
            .unwrap_or_default();
        let (evidence, head) = match (found.kind, found.about) {
            (LoopKind::Repeat, About::Polls) => (
                format!("calls {calls}: the same {tool} poll, nothing new each time{over}"),
                format!("{tool} polled the same job {count} times in a row and showed nothing new each time{over} (calls {calls})."),
            ),
            (LoopKind::Repeat, About::EndedJob) => (
                format!("calls {calls}: the same {tool} poll of a job that has ended, the same result each time"),
                format!("{tool} polled a job that has already ended {count} times in a row and got the same result each time (calls {calls})."),
            ),
            (LoopKind::Repeat, _) => (
                format!("calls {calls}: the same {tool} call, the same result each time"),
                format!("{tool} was called {count} times in a row with the same arguments and returned the same result each time (calls {calls})."),
            ),
            (LoopKind::Cycle, About::Polls) => (
                format!(
                    "calls {calls}: a block of {} polls repeated with nothing new, {count} rounds{over}",
                    found.period
                ),
                format!(
                    "the last {} calls (calls {calls}) poll the same job in the same block of {} calls and show nothing new each round{over}; this is round {count}.",
                    episode.calls,
                    found.period
                ),
            ),
            (LoopKind::Cycle, _) => (
                format!(
                    "calls {calls}: a block of {} calls repeated with the same results, {count} rounds",
                    found.period
                ),
                format!(
                    "the last {} calls (calls {calls}) repeat the same block of {} calls with the same results every round; this is round {count}.",
                    episode.calls,
                    found.period
                ),
            ),
            (LoopKind::SameError, _) => {
                let line = error_line(text).map(excerpt).unwrap_or_default();
                let how = if found.distinct == 1 {
                    "the same call each time".to_owned()
                } else if found.distinct < found.count {
                    format!("with {} different sets of arguments", found.distinct)
                } else {
                    "each time with other arguments".to_owned()
                };
                let row = if found.scattered {
                    ", whatever was tried in between,"
                } else {
                    " in a row"
                };
                (
                    format!("calls {calls}: {tool} failed with the same error each time: {line}"),
                    format!("{tool} failed {count} times{row} with the same error, {how} (calls {calls}): {line}"),
                )
            }
            (LoopKind::Redo, About::Undo) => {
                let what = restored(tool, arguments_json);
                let (before, failed) = found.echo.unwrap_or_default();
                (
                    format!("calls {calls}: the same {tool} restore of {what}, attempts in between; call #{failed} failed as call #{before} had"),
                    format!("{tool} restored {what} the same way {count} times since call #{first} (calls {calls}), each time undoing the changes made since, and the attempts in between end as before: call #{failed} failed exactly as call #{before} had."),
                )
            }
            (LoopKind::Redo, _) => (
                format!("calls {calls}: the same {tool} change made again with the same result, only looks in between"),
                format!("{tool} made the same change {count} times since call #{first} with the same result each time, with nothing but looking in between (calls {calls})."),
            ),
            (LoopKind::ReRead, About::Reruns) if found.scattered => (
                format!("calls {calls}: the same {tool} run failed the same way after the same steps as before"),
                format!("{tool} ran the same command {count} times since call #{first} and it failed the same way each time, after the same steps as the time before (calls {calls})."),
            ),
            (LoopKind::ReRead, About::Reruns) => (
                format!("calls {calls}: the same {tool} run failed the same way each time, other calls in between"),
                format!("{tool} ran the same command {count} times since call #{first} and it failed the same way each time, whatever was done in between (calls {calls})."),
            ),
            (LoopKind::ReRead, _) => (
                format!("calls {calls}: the same {tool} call returned the same result, other calls in between"),
                format!("{tool} was called with the same arguments {count} times since call #{first} and returned the same result each time (calls {calls})."),
            ),
        };
        let reminders = episode.reminders;
        // A loop that goes on after its first reminder hears it again, and
        // louder: the model is told how many it has already had.
        let lead = if reminders > 1 {
            format!("[toolguard] Loop detected (reminder {reminders} for this loop, which began at call #{first}):")
        } else {
            "[toolguard] Loop detected:".to_owned()
        };
        let text = format!(
            "{lead} {head} {}",
            advice(found.kind, found.transient, found.about)
        );
        let mut shown = found.calls;
        if shown.len() > EVIDENCE_CALLS {
            shown.drain(..shown.len() - EVIDENCE_CALLS);
        }
        LoopAlarm {
            kind: found.kind,
            tool: tool.to_owned(),
            count,
            period: found.period,
            calls: shown,
            first,
            last: episode.last_ordinal,
            evidence,
            text,
            summary: format!("{tool}: {} × {count}", found.kind.label()),
            reminders,
        }
    }

    /// The user spoke (or the agent is gone): the agent's window starts over.
    pub fn remove(&mut self, agent: &str) {
        self.agents.remove(agent);
        let capacity = self.agents.capacity();
        if capacity > 1024 && self.agents.len() < capacity / 4 {
            self.agents.shrink_to(capacity / 2);
        }
    }

    pub fn len(&self) -> usize {
        self.agents.len()
    }

    pub fn is_empty(&self) -> bool {
        self.agents.is_empty()
    }

    pub fn agent_ids(&self) -> impl Iterator<Item = &str> {
        self.agents.keys().map(String::as_str)
    }

    /// The agent's window as a string (hex digests), for callers that carry
    /// state across processes; `None` when it has none. Opaque to them: its
    /// first field is the format's version ([`STATE_VERSION`]).
    pub fn state(&self, agent: &str) -> Option<String> {
        let s = self.agents.get(agent)?;
        let mut out = format!("{STATE_VERSION}.{:x}.", s.ordinal);
        match s.active {
            Some(a) => out.push_str(&format!(
                "{}:{:x}:{:x}:{:x}:{:x}:{:016x}:{:x}:{:x}:{}:{}",
                a.kind.code(),
                a.count,
                a.calls,
                a.period,
                a.reminders,
                a.next_call,
                a.first_ordinal,
                a.last_ordinal,
                u8::from(a.failing),
                a.about.code()
            )),
            None => out.push('-'),
        }
        out.push('.');
        match s.denied {
            Some(d) => out.push_str(&format!("{d:016x}")),
            None => out.push('-'),
        }
        for e in &s.entries {
            out.push_str(&format!(
                ".{:016x}{:016x}{:016x}{:016x}{:016x}{:016x}{:x}:{:x}:{:x}:{:x}:{}",
                e.call,
                e.result,
                e.raw,
                e.sig,
                e.bare,
                e.tool,
                e.flags,
                e.ordinal,
                e.time,
                e.effect,
                u8::from(e.attempt)
            ));
        }
        Some(out)
    }

    /// Put back a window saved with [`Loops::state`] (the newest `window`
    /// calls of it). A state of another version (an older toolguard's) or
    /// of no known form at all starts the agent afresh: losing a window
    /// costs a few calls of detection, refusing the state would cost the
    /// call. Only a damaged state of this version is an error.
    pub fn restore(&mut self, agent: &str, state: &str) -> Result<(), String> {
        if state.split('.').next() != Some(STATE_VERSION) {
            self.agents.remove(agent);
            return Ok(());
        }
        let restored = parse_state(state, self.window)
            .ok_or_else(|| "toolguard: state.loops is not a saved loop state".to_owned())?;
        self.agents.insert(agent.to_owned(), restored);
        Ok(())
    }
}

/// The version tag that starts a saved loop state ([`Loops::state`]); a
/// change to what the state holds changes it.
pub const STATE_VERSION: &str = "L3";

/// A state of this version back into an agent's window (`None`: damaged).
fn parse_state(state: &str, window: usize) -> Option<AgentLoops> {
    let mut parts = state.split('.');
    if parts.next() != Some(STATE_VERSION) {
        return None;
    }
    let hex = |s: &str| u64::from_str_radix(s, 16).ok();
    let ordinal = hex(parts.next()?)?;
    let active = match parts.next()? {
        "-" => None,
        a => {
            let f: Vec<&str> = a.split(':').collect();
            if f.len() != 10 {
                return None;
            }
            Some(Active {
                kind: LoopKind::from_code(f[0].parse().ok()?)?,
                count: hex(f[1])?,
                calls: hex(f[2])?,
                period: hex(f[3])?.max(1),
                reminders: hex(f[4])?,
                next_call: hex(f[5])?,
                first_ordinal: hex(f[6])?,
                last_ordinal: hex(f[7])?,
                failing: match f[8] {
                    "0" => false,
                    "1" => true,
                    _ => return None,
                },
                about: About::from_code(f[9])?,
            })
        }
    };
    let denied = match parts.next()? {
        "-" => None,
        d => Some(hex(d)?),
    };
    let mut entries = VecDeque::new();
    for e in parts {
        if e.len() < 103 || !e.is_ascii() {
            return None;
        }
        let mut tail = e[96..].split(':');
        let (flags, ord, time, effect, attempt) = (
            tail.next()?,
            tail.next()?,
            tail.next()?,
            tail.next()?,
            tail.next()?,
        );
        if tail.next().is_some() {
            return None;
        }
        entries.push_back(Entry {
            call: hex(&e[0..16])?,
            result: hex(&e[16..32])?,
            raw: hex(&e[32..48])?,
            sig: hex(&e[48..64])?,
            bare: hex(&e[64..80])?,
            tool: hex(&e[80..96])?,
            flags: u8::from_str_radix(flags, 16).ok()?,
            ordinal: hex(ord)?,
            time: hex(time)?,
            effect: u8::from_str_radix(effect, 16).ok()?,
            attempt: match attempt {
                "0" => false,
                "1" => true,
                _ => return None,
            },
        });
        if entries.len() > window {
            entries.pop_front();
        }
    }
    Some(AgentLoops {
        entries,
        ordinal,
        active,
        denied,
    })
}

/// Milliseconds from `from` to `to`, when both are known.
fn span(from: u64, to: u64) -> Option<u64> {
    (from != 0 && to != 0).then(|| to.saturating_sub(from))
}

impl Limits {
    /// Whether polls that showed nothing new over `span_ms` have waited long
    /// enough to be a loop (unknown times: the count alone decides).
    fn quiet_long(&self, span_ms: Option<u64>) -> bool {
        span_ms.is_none_or(|ms| ms >= self.poll_quiet_ms)
    }

    fn threshold(&self, base: Option<u64>, multiplier: f64, transient: bool) -> Option<u64> {
        let base = base?;
        let mut t = (base as f64 * multiplier).ceil().max(2.0) as u64;
        if transient {
            t = t.saturating_mul(self.transient_multiplier);
        }
        Some(t)
    }

    /// The loop the window's newest call is in, if any (`multiplier`: the tool's).
    fn detect(&self, entries: &VecDeque<Entry>, multiplier: f64) -> Option<Found> {
        let last = *entries.back()?;
        let transient = last.flags & TRANSIENT != 0;
        let n = entries.len();
        let at = |i: usize| entries[n - 1 - i]; // 0 = newest

        // Repeat: the trailing run of the same call with the same outcome.
        let mut run = 1;
        // Each call against the next one: a first occurrence compares raw,
        // later ones normalised, so equality is checked link by link.
        while run < n && at(run).same_outcome_in_a_row(&at(run - 1)) {
            run += 1;
        }
        // A running job's polls that show nothing new are waiting: only
        // long (by count, and by wall time where the calls have it) is a loop.
        let polling = last.polling();
        // Going back in a browser says the same ("Navigated back") while it
        // goes further back each time.
        let base = if polling {
            self.poll
        } else if last.effect == effect::NAVIGATE {
            None
        } else {
            self.repeat
        };
        if let Some(t) = self.threshold(base, multiplier, transient) {
            let span_ms = span(at(run - 1).time, last.time);
            if run as u64 >= t && (!polling || self.quiet_long(span_ms)) {
                return Some(Found {
                    kind: LoopKind::Repeat,
                    count: run as u64,
                    period: 1,
                    calls: (0..run).rev().map(|i| at(i).ordinal).collect(),
                    next_call: last.call,
                    transient,
                    about: if polling {
                        About::Polls
                    } else if last.effect == effect::WAIT {
                        About::EndedJob
                    } else {
                        About::Calls
                    },
                    span_ms,
                    distinct: 0,
                    scattered: false,
                    echo: None,
                });
            }
        }

        // Cycle: the shortest period p whose trailing periodic stretch has
        // begun the `cycle`-th round.
        if let Some(rounds) = self.threshold(self.cycle, multiplier, transient) {
            for p in 2..=self.max_period.min(n / 2) {
                // A block made of a shorter period is that period's cycle.
                if (1..p).any(|d| p % d == 0 && (d..p).all(|i| at(i).same_as(&at(i - d)))) {
                    continue;
                }
                let mut len = p;
                while len < n && at(len).same_as(&at(len - p)) {
                    len += 1;
                }
                let begun = len.div_ceil(p) as u64;
                // Going back in a browser returns to a page; it does not loop.
                if (0..p).any(|i| at(i).effect == effect::NAVIGATE) {
                    continue;
                }
                // A block that polls and otherwise only looks (sleep, then
                // the log's tail) is waiting, as above.
                let polling = (0..p).any(|i| at(i).polling())
                    && (0..p).all(|i| {
                        matches!(
                            at(i).effect,
                            effect::WAIT | effect::READ | effect::SEARCH | effect::OTHER
                        )
                    });
                let span_ms = span(at(len - 1).time, last.time);
                let long_enough = !polling
                    || (self
                        .threshold(self.poll, multiplier, transient)
                        .is_some_and(|t| len as u64 >= t)
                        && self.quiet_long(span_ms));
                if len > p && begun >= rounds && long_enough {
                    return Some(Found {
                        kind: LoopKind::Cycle,
                        count: begun,
                        period: p as u64,
                        calls: (0..len).rev().map(|i| at(i).ordinal).collect(),
                        // The call that follows in the block: the one p back
                        // from the one to come.
                        next_call: at(p - 1).call,
                        transient,
                        about: if polling { About::Polls } else { About::Calls },
                        span_ms,
                        distinct: 0,
                        scattered: false,
                        echo: None,
                    });
                }
            }
        }

        // Same error: failures of this tool with one signature within the
        // window, other calls (of this tool too) in between: the same failure
        // coming back whatever was tried between. Counted once at least two
        // different calls failed so (the same call alone is a repeat's or a
        // re-read's: they compare its whole result). A call that has since
        // succeeded ends the look back: its failure was dealt with.
        if last.failing() && last.sig != 0 {
            let mut run: Vec<Entry> = vec![last];
            let mut succeeded: Vec<u64> = Vec::new();
            let (mut scattered, mut skipped) = (false, false);
            for i in 1..n {
                let e = at(i);
                if e.tool != last.tool {
                    continue;
                }
                if !(e.failing() && (e.sig == last.sig || (e.bare != 0 && e.bare == last.bare))) {
                    if !e.failing() && !succeeded.contains(&e.call) {
                        succeeded.push(e.call);
                    }
                    skipped = true;
                    continue;
                }
                if succeeded.contains(&e.call) || (skipped && i >= RECENT) {
                    break;
                }
                // The same call failing otherwise since (the values in the
                // line moved): that is progress, not the same failure.
                if run.iter().any(|r| r.call == e.call && !r.same_result(&e)) {
                    break;
                }
                scattered |= skipped;
                run.push(e);
            }
            let mut distinct: Vec<u64> = run.iter().map(|e| e.call).collect();
            distinct.sort_unstable();
            distinct.dedup();
            // With other calls of the tool between them, the failures are a
            // loop only when the agent was trying to change something (one of
            // them a state change: an install, an edit, a patch): the same
            // error met while looking around is what it is investigating. A
            // refused change (a click on a missing element) tried again the
            // same way counts alone.
            let attempt = run.iter().any(|e| e.attempt);
            let count = if scattered && !attempt {
                1
            } else if distinct.len() >= 2 || (scattered && last.effect == effect::WRITE) {
                run.len()
            } else {
                1
            };
            let soft = run.iter().any(|e| e.flags & SOFT != 0);
            let base = if soft {
                self.soft_error
            } else {
                self.same_error
            };
            if let Some(t) = self.threshold(base, multiplier, transient) {
                if count as u64 >= t {
                    let mut calls: Vec<u64> = run.iter().map(|e| e.ordinal).collect();
                    calls.reverse();
                    return Some(Found {
                        kind: LoopKind::SameError,
                        count: count as u64,
                        distinct: distinct.len() as u64,
                        scattered,
                        period: 1,
                        calls,
                        next_call: last.call,
                        transient,
                        about: About::Calls,
                        span_ms: None,
                        echo: None,
                    });
                }
            }
        }

        // Re-read: the same call and outcome within the window; stop at the
        // call's last different result, and (for a success) at a successful
        // edit or other state change. Only for what reads: a state change
        // (a restore, a patch written, a click) is never a re-read, a poll
        // between other work is waiting, going back in a browser is not
        // reading again, and a run or test counts only while it fails the
        // same way ("what changed in between has not changed the failure").
        let reads = match last.effect {
            effect::WRITE | effect::WAIT | effect::NAVIGATE => false,
            effect::RUN | effect::TEST => last.troubled(),
            _ => true,
        };
        let threshold = if reads {
            self.threshold(self.re_read, multiplier, transient)
        } else {
            None
        };
        if let Some(t) = threshold {
            let mut calls = vec![last.ordinal];
            let mut newer = last;
            for i in 1..n {
                let e = at(i);
                if e.flags & MUTATION != 0 && !last.troubled() {
                    break;
                }
                // Looking again after waiting on a job (sleep, a poll) is
                // checking on it: the waiting is what the poll rule judges.
                if e.polling() {
                    break;
                }
                if e.call != last.call {
                    continue;
                }
                if !e.same_result(&newer) {
                    break;
                }
                calls.push(e.ordinal);
                newer = e;
            }
            if calls.len() as u64 >= t {
                calls.reverse();
                return Some(Found {
                    kind: LoopKind::ReRead,
                    count: calls.len() as u64,
                    period: 1,
                    calls,
                    next_call: last.call,
                    transient,
                    about: if matches!(last.effect, effect::RUN | effect::TEST) {
                        About::Reruns
                    } else {
                        About::Calls
                    },
                    span_ms: None,
                    distinct: 0,
                    scattered: false,
                    echo: None,
                });
            }
        }

        // Attempt again: a failing run or test whose last run failed the
        // same way, with a run between them that had already run, with the
        // same result, before that last one (the same fix script, the same
        // import check): the agent went round the same attempt again.
        let again = if matches!(last.effect, effect::RUN | effect::TEST) && last.troubled() {
            self.re_read
                .and(self.threshold(Some(2), multiplier, transient))
                .filter(|t| *t <= 2)
        } else {
            None
        };
        if again.is_some() {
            if let Some(j) = (1..n).find(|&i| at(i).call == last.call) {
                let prev = at(j);
                let same = prev.troubled()
                    && (last.same_result(&prev)
                        || (last.failing()
                            && prev.failing()
                            && last.sig != 0
                            && last.sig == prev.sig));
                let step = same
                    && (1..j).any(|i| {
                        let y = at(i);
                        matches!(y.effect, effect::RUN | effect::TEST)
                            && y.call != last.call
                            && (j + 1..n).any(|k| at(k).same_as(&y))
                    });
                if step {
                    return Some(Found {
                        kind: LoopKind::ReRead,
                        count: 2,
                        period: 1,
                        calls: vec![prev.ordinal, last.ordinal],
                        next_call: last.call,
                        transient,
                        about: About::Reruns,
                        span_ms: None,
                        distinct: 0,
                        scattered: true,
                        echo: None,
                    });
                }
            }
        }

        // Redo: the same state change that names no file (a click, an
        // install) with the same result, nothing but looks (reads, searches,
        // polls) in between: it changed nothing the agent then saw. A file
        // written again is seen through its reads (a changed read shows
        // progress), and a restore between attempts has the attempts (an
        // edit, a run) in between: neither is one.
        let redo = if last.effect == effect::WRITE && last.flags & PATHLESS != 0 {
            self.threshold(self.re_read, multiplier, transient)
        } else {
            None
        };
        if let Some(t) = redo {
            let mut calls = vec![last.ordinal];
            let mut newer = last;
            for i in 1..n {
                let e = at(i);
                if e.call == last.call {
                    if !e.same_result(&newer) {
                        break;
                    }
                    calls.push(e.ordinal);
                    newer = e;
                } else if matches!(
                    e.effect,
                    effect::WRITE | effect::RUN | effect::TEST | effect::NAVIGATE
                ) || e.flags & MUTATION != 0
                {
                    break;
                }
            }
            if calls.len() as u64 >= t {
                calls.reverse();
                return Some(Found {
                    kind: LoopKind::Redo,
                    count: calls.len() as u64,
                    period: 1,
                    calls,
                    next_call: last.call,
                    transient,
                    about: About::Calls,
                    span_ms: None,
                    distinct: 0,
                    scattered: false,
                    echo: None,
                });
            }
        }

        // Undo: the same restore again. A state change that names a file
        // (`cp f.bak f`, `git checkout -- f`, an editor's undo), made word for
        // word with the same result for the `reRead`-th time, each time after
        // other state changes (the attempts it undoes), and an attempt since
        // the previous restore ended exactly as one before it had (the same
        // failing run, the same output): the agent keeps returning to the
        // same state and its attempts get no further. One restore before a
        // new approach, or restores between debug runs that each show
        // something new, are not one.
        let undo = if last.effect == effect::WRITE && last.flags & (PATHLESS | FAILED | SOFT) == 0 {
            self.threshold(self.re_read, multiplier, transient)
        } else {
            None
        };
        if let Some(t) = undo {
            let mut calls = vec![last.ordinal];
            // Where the restore before the newest one sits in the window.
            let mut previous = None;
            let mut newer = last;
            let mut changed = false;
            for i in 1..n {
                let e = at(i);
                if e.call == last.call {
                    if !changed || !e.same_result(&newer) {
                        break;
                    }
                    previous.get_or_insert(i);
                    calls.push(e.ordinal);
                    newer = e;
                    changed = false;
                } else if e.attempt {
                    changed = true;
                }
            }
            let echo = previous.filter(|_| calls.len() as u64 >= t).and_then(|p| {
                (1..p).find_map(|i| {
                    let x = at(i);
                    if !(matches!(x.effect, effect::RUN | effect::TEST) && x.troubled()) {
                        return None;
                    }
                    (p + 1..n)
                        .find(|&k| at(k).same_as(&x))
                        .map(|k| (at(k).ordinal, x.ordinal))
                })
            });
            if echo.is_some() {
                calls.reverse();
                return Some(Found {
                    kind: LoopKind::Redo,
                    count: calls.len() as u64,
                    period: 1,
                    calls,
                    next_call: last.call,
                    transient,
                    about: About::Undo,
                    span_ms: None,
                    distinct: 0,
                    scattered: false,
                    echo,
                });
            }
        }
        None
    }
}

/// One call as the window keeps it (`ordinal` still 0).
#[allow(clippy::too_many_arguments)]
fn entry(
    tool: &ToolInfo,
    call: u64,
    effect: u8,
    pathless: bool,
    hidden: bool,
    arguments_json: &str,
    outcome: &LoopOutcome,
    recurs: bool,
    line: &mut String,
    memo: &mut LineMemo,
) -> Entry {
    let text = outcome.text;
    let mut flags = 0;
    // Whether the output names an error: a search of the whole text, asked
    // up to three times below, made at most once.
    let named = std::cell::OnceCell::new();
    let names_an_error = || *named.get_or_init(|| names_error(text));
    let hard = outcome.is_error
        || shows_failure(text)
        || codex_exit_failed(text)
        // A tool that refused the call in words (an edit rejected).
        || loop_texts::is_rejection(text, tool.shell);
    // A failure seen only by a silent-failure rule in an output that shows
    // an HTTP error status is that status: a soft failure (a 404 can be the
    // answer wanted, as when checking that a deleted item is gone).
    let mut failed = hard || (outcome.flagged && http_error(text).is_none());
    // A run or test whose real status the command hid (`pytest | tail`):
    // its output naming an error is the failure the status would have shown.
    if !failed && hidden && matches!(effect, effect::RUN | effect::TEST) && names_an_error() {
        failed = true;
    }
    // A search that found nothing answered the question: not a failure.
    if failed
        && !outcome.flagged
        && effect == effect::SEARCH
        && loop_texts::found_nothing(text, is_wrapper)
    {
        failed = false;
    }
    if failed {
        flags |= FAILED;
    } else if http_error(text).is_some() {
        flags |= SOFT;
    }
    let (mut sig, mut bare) = (0, 0);
    if flags != 0 {
        // A refusal's own line is its error: the detail after it varies
        // from one rejected attempt to the next.
        // A failure with nothing but its exit status (`[exit code: 7]`) is
        // that status, unless the status says it was stopped (a timeout, a
        // kill): that says nothing of which error.
        let error = loop_texts::rejection_line(text)
            .or_else(|| error_line(text))
            .or_else(|| {
                text.lines()
                    .map(str::trim)
                    .find(|t| is_frame(t))
                    .filter(|t| !stopped(t))
            });
        if let Some(error) = error {
            // A bare exit-status line (`Exit code 7`) is all the failure
            // says: its number is the error (curl's 7 is not grep's 1).
            sig = if is_frame(error.trim()) {
                xxh3_64(error.trim().as_bytes()) | 1
            } else {
                signature(error, arguments_json, line)
            };
            bare = if is_frame(error.trim()) {
                sig
            } else {
                signature(error, "", line)
            };
        }
        if transient(text) {
            flags |= TRANSIENT;
        }
    } else if tool.mutating || effect == effect::WRITE {
        flags |= MUTATION;
    }
    if effect == effect::WAIT && loop_texts::job_done(text) {
        flags |= DONE;
    }
    if pathless {
        flags |= PATHLESS;
    }
    // A run or test that comes back and names an error in its output,
    // though nothing said it failed (a caught traceback, a runner's error
    // behind `| tail`): only on recurrence, where the re-read rule reads it.
    if recurs
        && flags & FAILED == 0
        && matches!(effect, effect::RUN | effect::TEST)
        && names_an_error()
    {
        flags |= TROUBLED;
    }
    let raw = xxh3_64(text.as_bytes()) ^ u64::from(outcome.is_error);
    // A failure (or a run whose output names an error) is the same failure
    // when it differs only in where it happened: its positions are masked
    // too ([`failure_digest_with`]), and it is normalised even at its first
    // occurrence, so the run before an edit above the failing line compares
    // with the run after it. The choice depends on the result alone, so two
    // same results always get the same form.
    let failure = flags & (FAILED | SOFT) != 0
        || (matches!(effect, effect::RUN | effect::TEST) && names_an_error());
    let result = if failure {
        flags |= NORMALIZED;
        failure_digest_with(text, outcome.is_error, line, memo)
    } else if recurs {
        flags |= NORMALIZED;
        result_digest_with(text, outcome.is_error, line, memo)
    } else {
        raw
    };
    Entry {
        call,
        result,
        raw,
        sig,
        bare,
        tool: tool.digest,
        ordinal: 0,
        time: 0,
        flags,
        effect,
        attempt: false,
    }
}

struct Found {
    kind: LoopKind,
    count: u64,
    period: u64,
    /// The loop's calls by ordinal, oldest first.
    calls: Vec<u64>,
    next_call: u64,
    transient: bool,
    /// What the loop's calls do, for the alarm's words.
    about: About,
    /// Wall time from the loop's oldest call in the window to its newest (ms), when known.
    span_ms: Option<u64>,
    /// Same error: how many of its calls differ (fewer than `count` when
    /// some were retried word for word); 0 for the other kinds.
    distinct: u64,
    /// Same error: other calls of the tool came between its failures; a
    /// re-run: the same attempt was made again (the same steps before it).
    scattered: bool,
    /// Undo: a failing run since the previous restore and the same run with
    /// the same result before it (ordinals, earlier first).
    echo: Option<(u64, u64)>,
}

/// What a loop's calls are, as far as the alarm's text must be true for them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum About {
    Calls,
    /// Polls of a job that has not ended: waiting.
    Polls,
    /// Polls of a job that has ended.
    EndedJob,
    /// Runs or tests with the same failure, other calls in between.
    Reruns,
    /// The same restore, with attempts between that end as before.
    Undo,
}

impl About {
    fn code(self) -> &'static str {
        match self {
            About::Calls => "c",
            About::Polls => "p",
            About::EndedJob => "e",
            About::Reruns => "r",
            About::Undo => "u",
        }
    }

    fn from_code(code: &str) -> Option<Self> {
        Some(match code {
            "c" => About::Calls,
            "p" => About::Polls,
            "e" => About::EndedJob,
            "r" => About::Reruns,
            "u" => About::Undo,
            _ => return None,
        })
    }
}

impl Found {
    /// Where the loop began: its oldest call.
    fn first_ordinal(&self) -> u64 {
        self.calls[0]
    }
}

fn advice(kind: LoopKind, transient: bool, about: About) -> &'static str {
    if transient {
        return "The service is rate-limiting or temporarily unavailable: wait before the next attempt (back off, and longer each time) or check its status instead of retrying at once.";
    }
    match about {
        About::Polls => return "The job may still be running and simply quiet: wait longer before the next check (back off, and longer each time), or look at it another way (its log file, its process, what it writes); if it has hung, stop it and say so.",
        About::EndedJob => return "The job has ended, so polling it again will return the same thing: read its final output and exit status and act on them.",
        About::Reruns => return "What changed in between has not changed the failure: find out why it fails (read the error, check your assumption) before running it again.",
        About::Undo => return "Undoing the change and trying again has not got you further: find out why the attempts fail (read the error, check your assumption) before the next one, or try another approach.",
        About::Calls => {}
    }
    match kind {
        LoopKind::Repeat => "Calling it again will return the same thing. Read the result you already have, then change something (the arguments, the approach), or stop and report what blocks you.",
        LoopKind::Cycle => "Nothing changes between rounds. Stop the cycle: find out why the failing step keeps failing (read the error, check your assumption) and do something different.",
        LoopKind::SameError => "Changing the arguments does not reach the cause. Diagnose the error itself (read it, check what it names) before trying again.",
        LoopKind::ReRead => "The content has not changed since you last read it. Use what you already have instead of fetching it again.",
        LoopKind::Redo => "Doing it again has not changed anything: check whether it took effect, and why not, before doing it again; try another way.",
    }
}

/// What a restore writes, for an undo alarm: the first two paths the call
/// writes (by the shell model), or "the same files".
fn restored(tool: &str, arguments_json: &str) -> String {
    let model = shell::classify_call(tool, arguments_json);
    let paths: Vec<String> = model.writes.iter().take(2).map(|p| excerpt(p)).collect();
    if paths.is_empty() {
        "the same files".to_owned()
    } else {
        paths.join(" and ")
    }
}

/// `12 min`, `2 h 5 min`.
fn minutes(ms: u64) -> String {
    let m = ms / 60_000;
    if m < 60 {
        format!("{m} min")
    } else if m.is_multiple_of(60) {
        format!("{} h", m / 60)
    } else {
        format!("{} h {} min", m / 60, m % 60)
    }
}

/// `#3, #4, #5`: the episode's latest calls (at most [`EVIDENCE_CALLS`]),
/// after its first call and `…` when the episode (`total` calls, begun at
/// `first`) holds more than they show.
fn list_calls(first: u64, calls: &[u64], total: u64) -> String {
    let skip = calls.len().saturating_sub(EVIDENCE_CALLS);
    let shown = &calls[skip..];
    let mut out: Vec<String> = shown.iter().map(|c| format!("#{c}")).collect();
    if total > shown.len() as u64 && shown.first() != Some(&first) {
        out.insert(0, "…".to_owned());
        out.insert(0, format!("#{first}"));
    }
    out.join(", ")
}

fn excerpt(line: &str) -> String {
    let line = line.trim();
    match line.char_indices().nth(160) {
        Some((i, _)) => format!("{}…", &line[..i]),
        None => line.to_owned(),
    }
}

/// Codex's shell output starts `Exit code: N`.
fn codex_exit_failed(text: &str) -> bool {
    let Some(rest) = text.strip_prefix("Exit code: ") else {
        return false;
    };
    let code = rest.split(['\n', '\r']).next().unwrap_or("").trim();
    !code.is_empty() && code.bytes().all(|b| b.is_ascii_digit()) && code.bytes().any(|b| b != b'0')
}

/// Lines looked at for an HTTP status or a transient-failure word: the head
/// and the tail of the output (where status lines and summaries are).
fn edge_lines(text: &str) -> impl Iterator<Item = &str> {
    let head = text.lines().take(20);
    let tail_start = text.len().saturating_sub(400);
    let tail_start = (tail_start..text.len())
        .find(|&i| text.is_char_boundary(i))
        .unwrap_or(text.len());
    let tail = if tail_start == 0 {
        None
    } else {
        Some(text[tail_start..].lines().skip(1))
    };
    head.chain(tail.into_iter().flatten())
}

/// An HTTP 4xx/5xx status line: `HTTP/1.1 404 Not Found` or `HTTP 404`.
fn http_error(text: &str) -> Option<u16> {
    // Most results hold no `HTTP` near their edges: one search each (one in
    // all when the head is the whole text and holds the tail).
    let has = |s: &str| has_http(s.as_bytes());
    let head = &text[..floor_char(text, text.len().min(4096))];
    let found = if head.len() == text.len() {
        has(text)
    } else {
        let tail = &text[floor_char(text, text.len().saturating_sub(512))..];
        has(head) || has(tail)
    };
    if !found {
        return None;
    }
    edge_lines(text).find_map(|line| {
        let line = line.trim();
        let rest = line
            .strip_prefix("HTTP/")
            .and_then(|r| r.split_once(' ').map(|(_, s)| s))
            .or_else(|| line.strip_prefix("HTTP "))?;
        let code: u16 = rest.get(..3)?.parse().ok()?;
        let whole = rest.len() == 3 || rest.as_bytes()[3] == b' ';
        (whole && (400..600).contains(&code)).then_some(code)
    })
}

/// Whether `bytes` holds `HTTP`. This runs on every result the detectors
/// see, so it looks for `H` first (one byte: about twice as fast as a
/// substring search over text with few capitals) and falls back to the
/// substring search once `H` has turned up a few times without `HTTP`.
fn has_http(bytes: &[u8]) -> bool {
    static HTTP: LazyLock<memmem::Finder<'static>> = LazyLock::new(|| memmem::Finder::new("HTTP"));
    let mut at = 0;
    for _ in 0..8 {
        let Some(i) = memchr::memchr(b'H', &bytes[at..]) else {
            return false;
        };
        if bytes[at + i..].starts_with(b"HTTP") {
            return true;
        }
        at += i + 1;
    }
    HTTP.find(&bytes[at..]).is_some()
}

fn floor_char(text: &str, mut i: usize) -> usize {
    while !text.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// Rate limits and temporary unavailability: back-off territory.
fn transient(text: &str) -> bool {
    if matches!(http_error(text), Some(429) | Some(503)) {
        return true;
    }
    // One search of each edge (not one of each line): a phrase holds no line
    // break, so it is on an edge line exactly when it is inside their span.
    // A substring search per phrase: each skips ahead on the phrase's rare
    // bytes (`q`, `y`, `_`, `-`), where one search for all four would stop at
    // every `t` and `r`.
    static PHRASES: LazyLock<[memmem::Finder<'static>; 4]> = LazyLock::new(|| {
        [
            "too many requests",
            "rate limit",
            "rate_limit",
            "retry-after",
        ]
        .map(memmem::Finder::new)
    });
    let (head, tail) = edge_spans(text);
    [head, tail].into_iter().any(|span| {
        LOWER.with_borrow_mut(|buf| {
            buf.clear();
            buf.extend(span.bytes().map(|b| b.to_ascii_lowercase()));
            PHRASES.iter().any(|p| p.find(buf).is_some())
        })
    })
}

/// The two spans [`edge_lines`] takes its lines from: the first 20 lines,
/// and the whole lines of the last 400 bytes.
fn edge_spans(text: &str) -> (&str, &str) {
    let head_end = memchr::memchr_iter(b'\n', text.as_bytes())
        .nth(19)
        .unwrap_or(text.len());
    let tail_start = (text.len().saturating_sub(400)..text.len())
        .find(|&i| text.is_char_boundary(i))
        .unwrap_or(text.len());
    let tail = if tail_start == 0 {
        ""
    } else {
        // The first line there is cut: it starts after the next line break.
        text[tail_start..]
            .find('\n')
            .map_or("", |n| &text[tail_start + n + 1..])
    };
    (&text[..head_end], tail)
}

/// A searcher for any of `words` (lowercase ASCII) in text lowercased by
/// [`find_lower`]: the packed (Teddy) searcher when it builds, as the
/// automaton's own prefilter lets most bytes of common English text through
/// to its DFA (~16 instructions a byte on a passing test log); the automaton
/// where it does not (no SIMD).
struct Words {
    packed: Option<aho_corasick::packed::Searcher>,
    automaton: AhoCorasick,
}

impl Words {
    fn find(&self, hay: &[u8]) -> Option<usize> {
        match &self.packed {
            Some(p) => p.find(hay).map(|m| m.start()),
            None => self.automaton.find(hay).map(|m| m.start()),
        }
    }
}

fn words(words: &[&str]) -> Words {
    Words {
        packed: aho_corasick::packed::Config::new()
            .builder()
            .extend(words)
            .build(),
        automaton: AhoCorasick::new(words).expect("a few literal words always build"),
    }
}

thread_local! {
    /// The lowercased chunk [`find_lower`] searches, reused from call to call.
    static LOWER: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Where the first of `words` (built by [`words`]) occurs in `hay[from..]`,
/// ignoring ASCII case: a lowercased copy is searched, so the searcher's
/// SIMD prefilter runs (a case-insensitive automaton goes byte by byte, ~13
/// instructions a byte). The copy is made in chunks that double from 256
/// bytes to 4 KB, so a hit early in a long text costs little. A word's
/// match ends soonest in the line of the leftmost one.
fn find_lower(words: &Words, hay: &str, from: usize) -> Option<usize> {
    const FIRST_CHUNK: usize = 256;
    const MAX_CHUNK: usize = 4096;
    // Longer than any word: a match across a chunk's end is in the next chunk.
    const OVERLAP: usize = 32;
    let bytes = hay.as_bytes();
    LOWER.with_borrow_mut(|buf| {
        let mut start = from;
        let mut chunk = FIRST_CHUNK;
        while start < bytes.len() {
            let end = (start + chunk).min(bytes.len());
            buf.clear();
            buf.extend(bytes[start..end].iter().map(u8::to_ascii_lowercase));
            if let Some(m) = words.find(&buf[..]) {
                return Some(start + m);
            }
            if end == bytes.len() {
                break;
            }
            start = end - OVERLAP;
            chunk = (chunk * 2).min(MAX_CHUNK);
        }
        None
    })
}

const ERROR_WORDS: &[&str] = &[
    "error",
    "exception",
    "fail",
    "fatal",
    "panic",
    "not found",
    "no such",
    "denied",
    "cannot",
    "can't",
    "could not",
    "unable",
    "refused",
    "does not exist",
    "invalid",
];

/// The line that names a failure: a Python traceback's exception line, else
/// the first line holding an error word or an HTTP error status (banner
/// lines such as `==== FAILURES ====` skipped), else the first non-empty
/// line of an output that has no such line.
pub fn error_line(text: &str) -> Option<&str> {
    // The last traceback: a forward (SIMD) search first, as most outputs
    // have none and the reverse search goes a byte at a time.
    const TRACEBACK: &str = "Traceback (most recent call last):";
    static FIND: LazyLock<(memmem::Finder<'static>, memmem::FinderRev<'static>)> =
        LazyLock::new(|| {
            (
                memmem::Finder::new(TRACEBACK),
                memmem::FinderRev::new(TRACEBACK),
            )
        });
    let bytes = text.as_bytes();
    let last = FIND.0.find(bytes).and_then(|_| FIND.1.rfind(bytes));
    if let Some(at) = last {
        let exception = text[at..]
            .lines()
            .skip(1)
            .filter(|l| !l.is_empty() && !l.starts_with(char::is_whitespace))
            .find(|l| !l.starts_with('^') && !l.starts_with('~'));
        if exception.is_some() {
            return exception;
        }
    }
    // The next error word at or after a line's start, searched for again
    // only once passed (an error word holds no line break, so it is in a
    // line exactly when it is in its span).
    static ERRORS: LazyLock<Words> = LazyLock::new(|| words(ERROR_WORDS));
    let next_word = |from: usize| find_lower(&ERRORS, text, from).unwrap_or(usize::MAX);
    let mut word = next_word(0);
    let mut first = None;
    let mut start = 0;
    for line in text.split_inclusive('\n') {
        let (line_start, line_end) = (start, start + line.len());
        start = line_end;
        let t = line.trim();
        if t.is_empty() || is_banner(t) || is_harness_header(t) {
            continue;
        }
        first.get_or_insert(t);
        if word < line_start {
            word = next_word(line_start);
        }
        if word < line_end || http_error(t).is_some() {
            return Some(t);
        }
    }
    first
}

/// Whether `text` names an error: a Python traceback, or a line with an
/// error word that is not a passing test's line (`test_invalid PASSED`).
fn names_error(text: &str) -> bool {
    static TRACEBACK: LazyLock<memmem::Finder<'static>> =
        LazyLock::new(|| memmem::Finder::new("Traceback (most recent call last):"));
    if TRACEBACK.find(text.as_bytes()).is_some() {
        return true;
    }
    static ERRORS: LazyLock<Words> = LazyLock::new(|| words(ERROR_WORDS));
    let mut from = 0;
    while let Some(at) = find_lower(&ERRORS, text, from) {
        let start = text[..at].rfind('\n').map_or(0, |i| i + 1);
        let end = text[at..].find('\n').map_or(text.len(), |i| at + i);
        let line = &text[start..end];
        if !(line.contains("PASS") || line.contains("passed") || line.contains(" ok")) {
            return true;
        }
        from = end;
    }
    false
}

fn is_banner(t: &str) -> bool {
    let b = t.as_bytes();
    b.len() >= 3
        && b[..3]
            .iter()
            .all(|&c| c == b'=' || c == b'_' || c == b'-' || c == b'*')
}

/// A line a harness wraps a result in (a header, an exit-status line), not
/// the command's own output.
fn is_frame(t: &str) -> bool {
    is_harness_header(t)
        || t.strip_prefix("Exit code ")
            .is_some_and(|c| c.bytes().all(|b| b.is_ascii_digit() || b == b'-'))
        || (t.starts_with("[Command finished with exit code ") && t.ends_with(']'))
        || (t.starts_with("<returncode>") && t.ends_with("</returncode>"))
        || (t.starts_with("[status: ") && t.ends_with(']'))
}

/// A status line, or a line of a harness's wrapper round an output that
/// holds nothing of the output itself: mini-swe-agent's template for the
/// model puts an empty output between `<output>` tags, and a host may hand
/// the engine that text. A search that found nothing is then still nothing.
fn is_wrapper(t: &str) -> bool {
    is_frame(t) || t == "<output>" || t == "</output>"
}

/// A status line whose number says the command was stopped, not that it
/// failed: `timeout`'s 124, a kill (137, 143, -9, -15).
fn stopped(frame: &str) -> bool {
    let digits = frame.trim_end_matches(|c: char| !c.is_ascii_digit());
    // Past the last non-digit, which may be wider than a byte (`2😀37`).
    let start = digits
        .char_indices()
        .rfind(|(_, c)| !c.is_ascii_digit())
        .map_or(0, |(i, c)| i + c.len_utf8());
    let negative = digits[..start].ends_with('-');
    matches!(
        (negative, &digits[start..]),
        (false, "124" | "137" | "143") | (true, "9" | "15")
    )
}

/// Codex's shell header lines and the harness's trailing markers.
fn is_harness_header(t: &str) -> bool {
    t.starts_with("Exit code: ")
        || t.starts_with("Wall time: ")
        || t == "Output:"
        || t.starts_with("Process running with session ID")
        || (t.starts_with("[exit code: ") && t.ends_with(']'))
}

/// The error signature of `line`: normalised, digit runs as `#`, and every
/// token that also occurs in the call's arguments as `<arg>` (the same error
/// for a new id, a new package spelling, a new file name).
pub fn signature(line: &str, arguments_json: &str, buf: &mut String) -> u64 {
    buf.clear();
    normalize_line(line, buf);
    let mut out = String::with_capacity(buf.len());
    // A run of argument tokens is one `<arg>`: a harness's error that quotes
    // the whole command line is the same error for another command line.
    let mut after_arg = false;
    for (i, token) in buf
        .split(|c: char| {
            c.is_whitespace()
                || matches!(
                    c,
                    '"' | '\'' | '`' | '(' | ')' | '[' | ']' | '{' | '}' | ','
                )
        })
        .enumerate()
    {
        let numeric = token.bytes().all(|b| b.is_ascii_digit());
        let arg = !numeric && token.len() >= 3 && arguments_json.contains(token);
        // Inside a run, a short token of the arguments (`-q`, `&&`) goes on with it.
        if after_arg && (arg || token.is_empty() || arguments_json.contains(token)) {
            continue;
        }
        if i > 0 {
            out.push(' ');
        }
        if arg {
            out.push_str("<arg>");
            after_arg = true;
            continue;
        }
        after_arg &= token.is_empty();
        let mut digits = false;
        for c in token.chars() {
            if c.is_ascii_digit() {
                if !digits {
                    out.push('#');
                }
                digits = true;
            } else {
                digits = false;
                out.push(c);
            }
        }
    }
    xxh3_64(out.as_bytes()) | 1
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::LoopsConfig;

    fn loops() -> Loops {
        Loops::new(&LoopsConfig::default())
    }

    /// Feed `(tool, args, output, failed)` calls; the kinds of the alarms by call index.
    fn run(l: &mut Loops, calls: &[(&str, &str, &str, bool)]) -> Vec<Option<(&'static str, u64)>> {
        calls
            .iter()
            .map(|(tool, args, out, failed)| {
                l.observe(
                    "a",
                    tool,
                    args,
                    &LoopOutcome {
                        text: out,
                        is_error: *failed,
                        flagged: false,
                    },
                )
                .map(|a| (a.kind.as_str(), a.count))
            })
            .collect()
    }

    fn first_alarm(v: &[Option<(&'static str, u64)>]) -> Option<(usize, &'static str)> {
        v.iter()
            .enumerate()
            .find_map(|(i, a)| a.map(|(k, _)| (i, k)))
    }

    const PYTEST: &str = r#"{"command":"pytest -q"}"#;

    #[test]
    fn the_packed_word_search_finds_the_automatons_line() {
        // The packed searcher reports the leftmost match, the automaton the
        // one that ends first: no word holds a newline, so both are in the
        // same line, which is all find_lower's callers read.
        let packed = words(ERROR_WORDS);
        assert!(
            packed.packed.is_some(),
            "SIMD packed searcher expected on x86_64"
        );
        let automaton = Words {
            packed: None,
            automaton: packed.automaton.clone(),
        };
        let line_of = |t: &str, at: Option<usize>| at.map(|a| t[..a].matches('\n').count());
        let mut texts = vec![
            String::new(),
            "tests/test_1.py::test_case PASSED in 0.01s\n".repeat(100),
            "ok\ncould not found it\nerror: x\n".into(),
            "does not exist\nthe file cannot be read".into(),
            "can't\nunable\nrefused\ninvalid\npanic\nfatal\nfail".into(),
        ];
        let mut x = 0x2545_f491_u32;
        for _ in 0..300 {
            let mut t = String::new();
            for _ in 0..40 {
                x ^= x << 13;
                x ^= x >> 17;
                x ^= x << 5;
                t.push_str(
                    [
                        "error",
                        "no such",
                        "not ",
                        "found",
                        "\n",
                        "fa",
                        "il",
                        "x",
                        " ",
                        "does not exist",
                    ][x as usize % 10],
                );
            }
            texts.push(t);
        }
        for t in &texts {
            let lower = t.to_ascii_lowercase();
            assert_eq!(
                line_of(t, packed.find(lower.as_bytes())),
                line_of(t, automaton.find(lower.as_bytes())),
                "{t:?}"
            );
            assert_eq!(
                find_lower(&packed, t, 0).is_some(),
                find_lower(&automaton, t, 0).is_some(),
                "{t:?}"
            );
        }
    }

    #[test]
    fn repeat_needs_the_same_result_and_recurs_at_every_step() {
        let mut l = loops();
        let out = "..F\n1 failed, 2 passed in 0.03s\n[exit code: 1]";
        let r = run(&mut l, &[("bash", PYTEST, out, false); 6]);
        assert_eq!(r[..2], [None, None]);
        assert_eq!(r[2], Some(("repeat", 3)));
        assert_eq!(
            r[5],
            Some(("repeat", 6)),
            "the reminder comes again at every call"
        );
        // The timing differs between runs: normalised away.
        let mut l = loops();
        let r = run(
            &mut l,
            &[
                ("bash", PYTEST, "1 failed in 0.03s", false),
                ("bash", PYTEST, "1 failed in 0.31s", false),
                ("bash", PYTEST, "1 failed in 1.2s", false),
                ("bash", PYTEST, "1 failed in 0.5s", false),
            ],
        );
        // A failure is normalised at its first occurrence too: the first run
        // differs from the second only in its timing, the same failure.
        assert_eq!(r, [None, None, Some(("repeat", 3)), Some(("repeat", 4))]);
        let mut l = loops();
        let r = run(
            &mut l,
            &[
                ("bash", PYTEST, "1 failed in 0.03s", false),
                ("bash", PYTEST, "1 failed in 0.03s", false),
                ("bash", PYTEST, "1 failed in 1.2s", false),
            ],
        );
        assert_eq!(r[2], Some(("repeat", 3)));
    }

    #[test]
    fn trap_polling_with_a_changing_result_is_never_a_loop() {
        let mut l = loops();
        let polls: Vec<String> = (1..=12)
            .map(|i| format!("epoch {i}/20 loss 0.{}\n[status: running]", 90 - i))
            .collect();
        let calls: Vec<(&str, &str, &str, bool)> = polls
            .iter()
            .map(|p| ("job_output", r#"{"job_id":"j1"}"#, p.as_str(), false))
            .collect();
        assert_eq!(first_alarm(&run(&mut l, &calls)), None);
    }

    #[test]
    fn trap_retest_after_each_edit_while_failures_shrink() {
        let mut l = loops();
        let r = run(
            &mut l,
            &[
                (
                    "bash",
                    PYTEST,
                    "FAILED t::a\nFAILED t::b\nFAILED t::c\n3 failed\n[exit code: 1]",
                    false,
                ),
                (
                    "edit_file",
                    r#"{"path":"a.py","old_string":"x","new_string":"y"}"#,
                    "Edited a.py",
                    false,
                ),
                (
                    "bash",
                    PYTEST,
                    "FAILED t::b\nFAILED t::c\n2 failed\n[exit code: 1]",
                    false,
                ),
                (
                    "edit_file",
                    r#"{"path":"a.py","old_string":"y","new_string":"z"}"#,
                    "Edited a.py",
                    false,
                ),
                (
                    "bash",
                    PYTEST,
                    "FAILED t::c\n1 failed\n[exit code: 1]",
                    false,
                ),
                (
                    "edit_file",
                    r#"{"path":"a.py","old_string":"z","new_string":"w"}"#,
                    "Edited a.py",
                    false,
                ),
                ("bash", PYTEST, "3 passed", false),
            ],
        );
        assert_eq!(first_alarm(&r), None);
    }

    #[test]
    fn trap_reread_after_edit_and_passing_tests_after_each_edit() {
        let mut l = loops();
        let read = r#"{"path":"config.toml"}"#;
        let mut calls = Vec::new();
        for i in 0..4 {
            calls.push((
                "read_file",
                read,
                if i % 2 == 0 { "port = 1" } else { "port = 2" },
                false,
            ));
            calls.push(("edit_file", r#"{"path":"config.toml"}"#, "Edited", false));
        }
        assert_eq!(first_alarm(&run(&mut l, &calls)), None);
        // Passing tests re-run after each successful edit: checking, not looping.
        let mut l = loops();
        let mut calls = Vec::new();
        let edits: Vec<String> = (0..6).map(|i| format!(r#"{{"path":"m{i}.py"}}"#)).collect();
        for e in &edits {
            calls.push(("edit_file", e.as_str(), "Edited", false));
            calls.push(("bash", PYTEST, "5 passed in 0.1s", false));
        }
        assert_eq!(first_alarm(&run(&mut l, &calls)), None);
    }

    #[test]
    fn trap_429_then_success() {
        let mut l = loops();
        let curl = r#"{"command":"curl -s -w '\\nHTTP %{http_code}\\n' http://h/api"}"#;
        let limited = "{\"error\": \"rate_limited\"}\n\nHTTP 429\n";
        let r = run(
            &mut l,
            &[
                ("bash", curl, limited, false),
                ("bash", curl, limited, false),
                ("bash", curl, limited, false),
                ("bash", curl, "{\"rows\": 42}\n\nHTTP 200\n", false),
            ],
        );
        assert_eq!(
            first_alarm(&r),
            None,
            "a rate limit gets a doubled threshold"
        );
        // …but a rate limit hammered on and on is still a loop, with back-off advice.
        let mut l = loops();
        let mut last = None;
        for _ in 0..6 {
            last = l.observe(
                "a",
                "bash",
                curl,
                &LoopOutcome {
                    text: limited,
                    ..Default::default()
                },
            );
        }
        let alarm = last.expect("six identical 429s");
        assert_eq!(alarm.kind, LoopKind::Repeat);
        assert!(alarm.text.contains("back off"), "{}", alarm.text);
    }

    #[test]
    fn cycle_of_period_two_and_three() {
        let mut l = loops();
        let edit = r#"{"path":"core.py","old_string":"a","new_string":"b"}"#;
        let mut calls = Vec::new();
        for _ in 0..4 {
            calls.push((
                "edit_file",
                edit,
                "edit_file: old_string not found in core.py",
                true,
            ));
            calls.push(("bash", PYTEST, "1 failed in 0.2s\n[exit code: 1]", false));
        }
        let r = run(&mut l, &calls);
        assert_eq!(first_alarm(&r), Some((4, "cycle")), "{r:?}");
        assert_eq!(r[4], Some(("cycle", 3)));
        assert_eq!(r[7], Some(("cycle", 4)));

        let mut l = loops();
        let mut calls = Vec::new();
        for _ in 0..3 {
            calls.push(("read_file", r#"{"path":"core.py"}"#, "def f(): pass", false));
            calls.push(("edit_file", edit, "edit_file: old_string not found", true));
            calls.push(("bash", PYTEST, "1 failed\n[exit code: 1]", false));
        }
        assert_eq!(first_alarm(&run(&mut l, &calls)), Some((6, "cycle")));
    }

    #[test]
    fn trap_debugger_stepping_with_prints_in_between() {
        let mut l = loops();
        let n = r#"{"chars":"n\n"}"#;
        let mut calls = Vec::new();
        for acc in 0..5 {
            calls.push(("write_stdin", n, "> walk.py(3)\n-> for x in xs:", false));
            calls.push(("write_stdin", n, "> walk.py(4)\n-> acc += x", false));
            calls.push((
                "write_stdin",
                r#"{"chars":"p acc\n"}"#,
                ["0", "1", "3", "6", "10"][acc],
                false,
            ));
        }
        assert_eq!(first_alarm(&run(&mut l, &calls)), None);
    }

    #[test]
    fn same_error_with_new_arguments() {
        let mut l = loops();
        let outs: Vec<(String, String)> = ["python3 app.py", "python app.py", "python3 -B app.py", "py app.py"]
            .iter()
            .map(|c| {
                (
                    format!(r#"{{"command":"{c}"}}"#),
                    "Traceback (most recent call last):\n  File \"app.py\", line 1\n    import ruamel\nModuleNotFoundError: No module named 'ruamel'\n[exit code: 1]".to_owned(),
                )
            })
            .collect();
        let calls: Vec<(&str, &str, &str, bool)> = outs
            .iter()
            .map(|(a, o)| ("bash", a.as_str(), o.as_str(), false))
            .collect();
        let r = run(&mut l, &calls);
        assert_eq!(first_alarm(&r), Some((2, "same-error")));
        // A 404 naming the new id each time: the id is scrubbed as an argument.
        let mut l = loops();
        let outs: Vec<(String, String)> = [101, 102, 1001, 7]
            .iter()
            .map(|id| {
                (
                    format!(r#"{{"command":"curl -s http://h/api/issues/{id}"}}"#),
                    format!("{{\"error\": \"not_found\", \"message\": \"Issue {id} does not exist\"}}\nHTTP/1.1 404 Not Found"),
                )
            })
            .collect();
        let calls: Vec<(&str, &str, &str, bool)> = outs
            .iter()
            .map(|(a, o)| ("bash", a.as_str(), o.as_str(), false))
            .collect();
        let r = run(&mut l, &calls);
        assert_eq!(
            first_alarm(&r),
            Some((3, "same-error")),
            "an HTTP status alone needs softError (4)"
        );
    }

    #[test]
    fn trap_retest_after_edits_with_a_stable_first_error_line() {
        // The same assertion line fails after each edit while the values in it
        // change: the test is re-run (one call), not varied.
        let mut l = loops();
        let one = r#"{"command":"pytest -q t.py::test_median"}"#;
        let mut calls = vec![(
            "bash",
            PYTEST,
            "t.py:13: AssertionError\nassert 2 == 2.5\n[exit code: 1]",
            false,
        )];
        let outs: Vec<String> = (0..4)
            .map(|i| format!("t.py:13: AssertionError\nassert {i} == 2.5\n[exit code: 1]"))
            .collect();
        let edits: Vec<String> = (0..4)
            .map(|i| format!(r#"{{"path":"core.py","n":{i}}}"#))
            .collect();
        for (o, e) in outs.iter().zip(&edits) {
            calls.push(("edit_file", e.as_str(), "Edited core.py", false));
            calls.push(("bash", one, o.as_str(), false));
        }
        assert_eq!(first_alarm(&run(&mut l, &calls)), None);
    }

    /// A traceback of `script.py` failing at `line` with `message`.
    fn traceback(line: u32, message: &str) -> String {
        format!(
            "Traceback (most recent call last):\n  File \"/w/script.py\", line {}, in <module>\n    main()\n  File \"/w/script.py\", line {line}, in main\n    total = parse(rows)\nValueError: {message}\n[exit code: 1]",
            line + 40
        )
    }

    /// Edit, run, edit, run, ...: the runs' outputs as given.
    fn edit_and_run(outs: &[String]) -> Vec<Option<(&'static str, u64)>> {
        let mut l = loops();
        let run_it = r#"{"command":"python script.py"}"#;
        let edits: Vec<String> = (0..outs.len())
            .map(|i| format!(r#"{{"path":"script.py","old_string":"a{i}","new_string":"b{i}"}}"#))
            .collect();
        let mut calls = Vec::new();
        for (o, e) in outs.iter().zip(&edits) {
            calls.push(("edit_file", e.as_str(), "Edited script.py", false));
            calls.push(("bash", run_it, o.as_str(), false));
        }
        run(&mut l, &calls)
    }

    #[test]
    fn the_same_failure_at_shifted_lines_after_edits_above_it_is_the_same_failure() {
        // Each edit adds lines above the failing one: the frames' line numbers
        // move, the exception and the code it quotes do not.
        let outs: Vec<String> = [1039, 1046, 1053, 1060]
            .iter()
            .map(|&n| traceback(n, "could not convert string to float: 'n/a'"))
            .collect();
        let r = edit_and_run(&outs);
        assert_eq!(first_alarm(&r), Some((5, "re-read")), "{r:?}");
        // The same with a compiler's `path:line:col` and source gutter, and
        // a test run whose timing and line order differ.
        let rustc = |n: u32| {
            format!("error[E0308]: mismatched types\n --> src/main.rs:{n}:18\n   |\n{n} |     let x: u32 = \"a\";\n   |            ---   ^^^ expected `u32`\n[exit code: 101]")
        };
        let outs: Vec<String> = [12, 15, 19, 23].iter().map(|&n| rustc(n)).collect();
        assert_eq!(first_alarm(&edit_and_run(&outs)), Some((5, "re-read")));
        let outs = [
            "captured stdout: row 1\nFAILED t.py::test_total - AssertionError\n1 failed, 4 passed in 0.31s\n[exit code: 1]",
            "FAILED t.py::test_total - AssertionError\ncaptured stdout: row 1\n1 failed, 4 passed in 0m1.020s\n[exit code: 1]",
            "1 failed, 4 passed in 2.4s\nFAILED t.py::test_total - AssertionError\ncaptured stdout: row 1\n[exit code: 1]",
        ]
        .map(String::from);
        assert_eq!(first_alarm(&edit_and_run(&outs)), Some((5, "re-read")));
    }

    #[test]
    fn trap_edits_that_change_the_message_the_test_or_the_code_line_are_progress() {
        // The message changes at every edit: progress, wherever the frame is.
        let outs: Vec<String> = [(1039, "'n/a'"), (1046, "'-'"), (1053, "''"), (1060, "'?'")]
            .iter()
            .map(|&(n, v)| traceback(n, &format!("could not convert string to float: {v}")))
            .collect();
        assert_eq!(first_alarm(&edit_and_run(&outs)), None);
        // Another test fails after each edit; then the counts move.
        let outs: Vec<String> = ["a", "b", "c", "d"]
            .iter()
            .map(|t| format!("t.py:12: AssertionError\nFAILED t.py::test_{t}\n1 failed, 4 passed in 0.3s\n[exit code: 1]"))
            .collect();
        assert_eq!(first_alarm(&edit_and_run(&outs)), None);
        let outs: Vec<String> = [4, 3, 2, 1]
            .iter()
            .map(|n| format!("FAILED t.py::test_a\n{n} failed, 1 passed in 0.3s\n[exit code: 1]"))
            .collect();
        assert_eq!(first_alarm(&edit_and_run(&outs)), None);
        // The same error at a line that now quotes another code line: the
        // agent fixed one place and the next one fails.
        let rustc = |n: u32, code: &str| {
            format!("error[E0308]: mismatched types\n --> src/main.rs:{n}:18\n{n} |     {code}\n[exit code: 101]")
        };
        let outs = [
            rustc(12, "let x: u32 = a;"),
            rustc(15, "let y: u32 = b;"),
            rustc(19, "let z: u32 = c;"),
        ];
        assert_eq!(first_alarm(&edit_and_run(&outs)), None);
    }

    #[test]
    fn trap_different_errors_fixed_one_by_one_and_expected_empty_greps() {
        let mut l = loops();
        let build = r#"{"command":"cargo build"}"#;
        let r = run(
            &mut l,
            &[
                (
                    "bash",
                    build,
                    "error[E0425]: cannot find value `a`\n[exit code: 101]",
                    false,
                ),
                ("edit_file", r#"{"n":1}"#, "Edited", false),
                (
                    "bash",
                    build,
                    "error[E0599]: no method named `b`\n[exit code: 101]",
                    false,
                ),
                ("edit_file", r#"{"n":2}"#, "Edited", false),
                (
                    "bash",
                    build,
                    "error[E0308]: mismatched types\n[exit code: 101]",
                    false,
                ),
                ("edit_file", r#"{"n":3}"#, "Edited", false),
                ("bash", build, "Finished", false),
            ],
        );
        assert_eq!(first_alarm(&r), None);
        let mut l = loops();
        let greps: Vec<String> = ["a_1", "b_2", "c_3", "d_4", "e_5"]
            .iter()
            .map(|n| format!(r#"{{"command":"grep -rn {n} src/"}}"#))
            .collect();
        let calls: Vec<(&str, &str, &str, bool)> = greps
            .iter()
            .map(|g| ("bash", g.as_str(), "[exit code: 1]", false))
            .collect();
        assert_eq!(
            first_alarm(&run(&mut l, &calls)),
            None,
            "an empty failure has no signature"
        );
    }

    #[test]
    fn reread_between_other_steps_and_failing_build_after_unrelated_edits() {
        let mut l = loops();
        let read = r#"{"path":"config.yaml"}"#;
        let others: Vec<String> = (0..5)
            .map(|i| format!(r#"{{"command":"grep -n k{i} app.py"}}"#))
            .collect();
        let mut calls = Vec::new();
        for o in &others {
            calls.push(("read_file", read, "port: 8080", false));
            calls.push(("bash", o.as_str(), "4:x", false));
        }
        assert_eq!(first_alarm(&run(&mut l, &calls)), Some((4, "re-read")));
        // The same failing build after each (successful) edit of another file.
        let mut l = loops();
        let build = r#"{"command":"cargo build","description":"Run the build"}"#;
        let edits: Vec<String> = (0..4)
            .map(|i| format!(r#"{{"file_path":"main.rs","n":{i}}}"#))
            .collect();
        let mut calls = Vec::new();
        for e in &edits {
            calls.push((
                "Bash",
                build,
                "error[E0308]: mismatched types\n --> src/lib.rs:13:9\n[exit code: 101]",
                false,
            ));
            calls.push((
                "Edit",
                e.as_str(),
                "The file main.rs has been updated.",
                false,
            ));
        }
        assert_eq!(first_alarm(&run(&mut l, &calls)), Some((4, "re-read")));
    }

    #[test]
    fn bash_description_is_ignored_by_default() {
        let mut l = loops();
        let r = run(
            &mut l,
            &[
                (
                    "Bash",
                    r#"{"command":"grep -rn foo","description":"Search foo"}"#,
                    "",
                    false,
                ),
                (
                    "Bash",
                    r#"{"command":"grep -rn foo","description":"Search again"}"#,
                    "",
                    false,
                ),
                (
                    "Bash",
                    r#"{"command":"grep -rn foo","description":"Check once more"}"#,
                    "",
                    false,
                ),
            ],
        );
        assert_eq!(r[2], Some(("repeat", 3)));
        // Other tools keep the key.
        let mut l = loops();
        let r = run(
            &mut l,
            &[
                ("bash", r#"{"command":"x","description":"1"}"#, "", false),
                ("bash", r#"{"command":"x","description":"2"}"#, "", false),
                ("bash", r#"{"command":"x","description":"3"}"#, "", false),
            ],
        );
        assert_eq!(first_alarm(&r), None);
    }

    #[test]
    fn reset_exempt_and_multipliers() {
        let config = LoopsConfig {
            exempt: vec!["todo_*".into()],
            multipliers: vec![("kubectl*".into(), 2.0)],
            ..Default::default()
        };
        let mut l = Loops::new(&config);
        let r = run(
            &mut l,
            &[
                ("bash", PYTEST, "same", false),
                ("todo_write", "{}", "ok", false),
                ("bash", PYTEST, "same", false),
                ("bash", PYTEST, "same", false),
            ],
        );
        assert_eq!(r[3], Some(("repeat", 3)), "an exempt tool is transparent");
        l.remove("a");
        assert_eq!(run(&mut l, &[("bash", PYTEST, "same", false)]), [None]);
        let r = run(&mut l, &[("kubectl_get", "{}", "x", false); 6]);
        assert_eq!(
            first_alarm(&r),
            Some((5, "repeat")),
            "threshold 3 × 2 = 6: {r:?}"
        );
    }

    #[test]
    fn deny_after_reminders_never_resets_a_counter() {
        let config = LoopsConfig {
            deny: Some(2),
            ..Default::default()
        };
        let mut l = Loops::new(&config);
        let out = LoopOutcome {
            text: "no match",
            ..Default::default()
        };
        let grep = r#"{"command":"grep x"}"#;
        for _ in 0..3 {
            assert!(
                l.check("a", "bash", grep).is_none(),
                "no loop reminded twice yet"
            );
            l.observe("a", "bash", grep, &out);
        }
        assert!(l.check("a", "bash", grep).is_none(), "one reminder so far");
        l.observe("a", "bash", grep, &out);
        let deny = l.check("a", "bash", grep).expect("two reminders: deny");
        assert_eq!(deny.kind, LoopKind::Repeat);
        assert!(deny.reason.contains("repeat loop"), "{}", deny.reason);
        assert!(
            l.check("a", "bash", r#"{"command":"grep y"}"#).is_none(),
            "another call may run"
        );
        // The refused call is observed anyway (DSH counts denied calls) with the
        // refusal as its result: passed over, the run goes on.
        assert!(l
            .observe(
                "a",
                "bash",
                grep,
                &LoopOutcome {
                    text: "refused",
                    is_error: true,
                    flagged: false
                }
            )
            .is_none());
        let next = l
            .observe("a", "bash", grep, &out)
            .expect("the loop continues");
        assert_eq!((next.count, next.reminders), (5, 3));
    }

    #[test]
    fn state_round_trips_and_is_bounded() {
        let mut l = loops();
        for _ in 0..2 {
            l.observe(
                "a",
                "bash",
                PYTEST,
                &LoopOutcome {
                    text: "x",
                    ..Default::default()
                },
            );
        }
        let saved = l.state("a").unwrap();
        let mut fresh = loops();
        fresh.restore("a", &saved).unwrap();
        assert_eq!(fresh.state("a").unwrap(), saved);
        let alarm = fresh.observe(
            "a",
            "bash",
            PYTEST,
            &LoopOutcome {
                text: "x",
                ..Default::default()
            },
        );
        assert_eq!(alarm.map(|a| (a.count, a.calls)), Some((3, vec![1, 2, 3])));
        assert!(
            fresh.restore("b", "L3.zz").is_err(),
            "a damaged state of this version"
        );
        for i in 0..1000 {
            l.observe(
                "a",
                "bash",
                &format!(r#"{{"n":{i}}}"#),
                &LoopOutcome {
                    text: "x",
                    ..Default::default()
                },
            );
        }
        assert_eq!(l.agents["a"].entries.len(), LoopsConfig::default().window);
    }

    #[test]
    fn an_old_or_foreign_state_starts_afresh() {
        let mut l = loops();
        let out = LoopOutcome {
            text: "x",
            ..Default::default()
        };
        for _ in 0..2 {
            l.observe("a", "bash", PYTEST, &out);
        }
        // A state of the previous format (v1: `L1.`, 5 active fields), one
        // from nowhere, and an empty one: each leaves the agent with no
        // window (and drops what it had), never an error.
        let old = "L1.2.-.-.00000000000000010000000000000002000000000000000300000000000000040000000000000005:1";
        // v2 (`L2.`): entries without the bare error signature.
        let v2 = "L2.2.-.-.00000000000000010000000000000002000000000000000300000000000000040000000000000005:1:0:1";
        for foreign in [old, v2, "nonsense", "", "L9.1.-.-", "{\"window\":[1]}"] {
            assert_eq!(l.restore("a", foreign), Ok(()), "{foreign:?}");
            assert!(l.state("a").is_none(), "{foreign:?} left a window");
        }
        let r = run(&mut l, &[("bash", PYTEST, "x", false); 3]);
        assert_eq!(r, [None, None, Some(("repeat", 3))], "counted from zero");
    }

    /// Feed `n` identical polls with the same result; the alarms.
    fn long_repeat(l: &mut Loops, n: usize) -> Vec<LoopAlarm> {
        let out = LoopOutcome {
            text: "still waiting",
            ..Default::default()
        };
        (0..n)
            .filter_map(|_| l.observe("a", "bash", PYTEST, &out))
            .collect()
    }

    #[test]
    fn a_loop_longer_than_the_window_is_one_episode_to_the_end() {
        let mut l = loops();
        let alarms = long_repeat(&mut l, 300);
        assert_eq!(alarms.len(), 298, "an alarm at every call from the 3rd");
        let last = alarms.last().unwrap();
        assert_eq!(
            (last.count, last.first, last.last, last.reminders),
            (300, 1, 300, 298),
            "the real count, the first and last call, reminders never restart"
        );
        assert!(alarms.iter().all(|a| a.first == 1), "one episode");
        assert!(
            alarms
                .windows(2)
                .all(|w| w[1].reminders == w[0].reminders + 1 && w[1].count == w[0].count + 1),
            "counts and reminders climb to the end"
        );
        assert!(
            last.text.contains("300 times")
                && last.text.contains("#1, …, #289")
                && last.text.contains("#300")
                && last.text.contains("reminder 298"),
            "{}",
            last.text
        );
        // A cycle past the window: rounds keep counting too.
        let mut l = loops();
        let mut calls = Vec::new();
        for _ in 0..100 {
            calls.push(("read_file", r#"{"path":"a.py"}"#, "x = 1", false));
            calls.push(("bash", PYTEST, "1 failed\n[exit code: 1]", false));
        }
        let out: Vec<_> = calls
            .iter()
            .filter_map(|(t, a, o, f)| {
                l.observe(
                    "a",
                    t,
                    a,
                    &LoopOutcome {
                        text: o,
                        is_error: *f,
                        flagged: false,
                    },
                )
            })
            .collect();
        let last = out.last().unwrap();
        assert_eq!(
            (last.kind, last.count, last.first),
            (LoopKind::Cycle, 100, 1)
        );
        assert_eq!(last.reminders, out.len() as u64);
    }

    #[test]
    fn deny_works_however_long_the_loop_runs() {
        let config = LoopsConfig {
            deny: Some(280),
            ..Default::default()
        };
        let mut l = Loops::new(&config);
        let out = LoopOutcome {
            text: "still waiting",
            ..Default::default()
        };
        let mut denied_at = None;
        for i in 1..=300u64 {
            if l.check("a", "bash", PYTEST).is_some() {
                denied_at = Some(i);
                break;
            }
            l.observe("a", "bash", PYTEST, &out);
        }
        assert_eq!(
            denied_at,
            Some(283),
            "280 reminders (calls 3..=282): the 283rd call is refused"
        );
    }

    #[test]
    fn a_reread_loop_with_calls_in_between_is_one_episode() {
        let mut l = loops();
        let read = r#"{"path":"config.yaml"}"#;
        let others: Vec<String> = (0..60)
            .map(|i| format!(r#"{{"command":"grep -n k{i} app.py"}}"#))
            .collect();
        let mut alarms = Vec::new();
        for o in &others {
            for (t, a, r) in [
                ("read_file", read, "port: 8080"),
                ("bash", o.as_str(), "4:x"),
            ] {
                alarms.extend(l.observe(
                    "a",
                    t,
                    a,
                    &LoopOutcome {
                        text: r,
                        ..Default::default()
                    },
                ));
            }
        }
        assert_eq!(alarms.len(), 58);
        assert!(alarms
            .iter()
            .all(|a| a.first == 1 && a.kind == LoopKind::ReRead));
        let last = alarms.last().unwrap();
        assert_eq!((last.count, last.reminders), (60, 58));
        assert!(
            last.text.contains("60 times since call #1"),
            "{}",
            last.text
        );
        // An edit in between ends it: the next alarm is a new episode.
        let mut l = loops();
        let mut firsts = Vec::new();
        for round in 0..2 {
            for o in &others[..4] {
                for (t, a, r) in [
                    ("read_file", read, "port: 8080"),
                    ("bash", o.as_str(), "4:x"),
                ] {
                    if let Some(a) = l.observe(
                        "a",
                        t,
                        a,
                        &LoopOutcome {
                            text: r,
                            ..Default::default()
                        },
                    ) {
                        firsts.push((round, a.first, a.reminders));
                    }
                }
            }
            l.observe(
                "a",
                "edit_file",
                r#"{"path":"config.yaml"}"#,
                &LoopOutcome::default(),
            );
        }
        assert_eq!(firsts, [(0, 1, 1), (0, 1, 2), (1, 10, 1), (1, 10, 2)]);
    }

    #[test]
    fn caller_ordinals_name_the_calls() {
        let mut l = loops();
        let out = LoopOutcome {
            text: "same",
            ..Default::default()
        };
        let mut last = None;
        for ordinal in [40, 47, 52] {
            last = l.observe_marked(
                "a",
                "bash",
                PYTEST,
                &out,
                CallMark {
                    ordinal: Some(ordinal),
                    time_ms: None,
                    concurrent: false,
                },
            );
        }
        let a = last.expect("three in a row");
        assert_eq!((a.first, a.last, a.calls), (40, 52, vec![40, 47, 52]));
        assert!(a.text.contains("#40, #47, #52"), "{}", a.text);
    }

    #[test]
    fn concurrent_calls_raise_nothing_but_fill_the_window() {
        // Four background jobs launched in one turn, all failing alike: the
        // model made them before it saw any result, so no alarm. The same
        // batch made again after the results is a loop, and the episode
        // counts the parallel calls too.
        let mut l = loops();
        let out = LoopOutcome {
            text: "Error: Exit code 1\nModuleNotFoundError: No module named 'foo'",
            is_error: true,
            ..Default::default()
        };
        let mut ordinal = 0;
        let mut batch = |l: &mut Loops| {
            (0..4)
                .map(|i| {
                    ordinal += 1;
                    l.observe_marked(
                        "a",
                        "bash",
                        PYTEST,
                        &out,
                        CallMark {
                            ordinal: Some(ordinal),
                            time_ms: None,
                            concurrent: i > 0,
                        },
                    )
                })
                .collect::<Vec<_>>()
        };
        assert!(batch(&mut l).iter().all(Option::is_none));
        let again = batch(&mut l);
        let first = again[0].as_ref().expect("the batch made again");
        assert_eq!((first.first, first.last, first.reminders), (1, 5, 1));
        assert!(again[1..].iter().all(Option::is_none));
        // The same calls made one after the other: alarms from the third on.
        let mut l = loops();
        let sequential = (1..=4)
            .map(|o| {
                let mark = CallMark {
                    ordinal: Some(o),
                    ..Default::default()
                };
                l.observe_marked("a", "bash", PYTEST, &out, mark).is_some()
            })
            .collect::<Vec<_>>();
        assert!(sequential[3], "{sequential:?}");
    }

    /// `(tool, args, output)` calls, none failing by flag, each `between`
    /// apart in wall time from `t0` (ms; 0: no times): the alarms' (kind, text).
    fn timed(
        l: &mut Loops,
        calls: &[(&str, &str, &str)],
        between: u64,
    ) -> Vec<Option<(&'static str, String)>> {
        calls
            .iter()
            .enumerate()
            .map(|(i, (tool, args, out))| {
                l.observe_marked(
                    "a",
                    tool,
                    args,
                    &LoopOutcome {
                        text: out,
                        ..Default::default()
                    },
                    CallMark {
                        ordinal: Some(i as u64 + 1),
                        time_ms: (between > 0).then(|| 1_700_000_000_000 + i as u64 * between),
                        concurrent: false,
                    },
                )
                .map(|a| (a.kind.as_str(), a.text))
            })
            .collect()
    }

    #[test]
    fn trap_restores_patches_and_clicks_are_never_rereads() {
        // Each state change recurs with the same (empty) result between
        // attempts: before the shell model, a "re-read" whose text ("the
        // content has not changed since you last read it") was false.
        for write in [
            r#"{"command":"cd /testbed && cp astroid/modutils.py.bak astroid/modutils.py"}"#,
            r#"{"command":"git checkout -- django/x.py"}"#,
            r#"{"command":"git diff > fix.patch"}"#,
        ] {
            let mut l = loops();
            let edits: Vec<String> = (0..4)
                .map(|i| format!(r#"{{"command":"python repro.py --case {i}"}}"#))
                .collect();
            let mut calls = Vec::new();
            for e in &edits {
                calls.push(("bash", write, ""));
                calls.push(("bash", e.as_str(), "ok"));
            }
            let r = timed(&mut l, &calls, 0);
            assert!(r.iter().all(Option::is_none), "{write}: {r:?}");
        }
        let mut l = loops();
        let mut calls = Vec::new();
        let reads: Vec<String> = (0..4)
            .map(|i| format!(r#"{{"url":"http://shop/item/{i}"}}"#))
            .collect();
        for r in &reads {
            calls.push(("browser_click", r#"{"ref":"e12"}"#, "clicked"));
            calls.push(("browser_navigate", r.as_str(), "page"));
        }
        assert!(timed(&mut l, &calls, 0).iter().all(Option::is_none));
        // Going back in a browser, then on to the same page again: not a cycle.
        let mut l = loops();
        let calls = [
            ("browser_navigate", r#"{"url":"http://shop/list"}"#, "list"),
            ("browser_navigate_back", "{}", "home"),
        ]
        .repeat(4);
        assert!(timed(&mut l, &calls, 0).iter().all(Option::is_none));
    }

    #[test]
    fn the_same_click_with_only_looks_between_is_a_redo_and_going_back_is_not_a_loop() {
        // The page is looked at after each click; the look's text varies a
        // little (element numbers), the click's result does not.
        let mut l = loops();
        let states: Vec<String> = (0..4)
            .map(|i| {
                format!(
                    r#"{{"url":"http://x/files","elements":[{{"index":{}}}]}}"#,
                    2000 + i * 87
                )
            })
            .collect();
        let mut calls = Vec::new();
        for st in &states {
            calls.push(("browser_click", r#"{"index":1233}"#, "Clicked element 1233"));
            calls.push(("browser_snapshot", "{}", st.as_str()));
        }
        let r = timed(&mut l, &calls, 0);
        let (kind, text) = r[4].clone().expect("the 3rd identical click");
        assert_eq!(kind, "redo");
        assert!(
            text.contains("made the same change 3 times") && !text.contains("read it"),
            "{text}"
        );
        // Going back four times in a row: each goes further back, though it
        // says the same ("repeat × 3" before).
        let mut l = loops();
        let r = timed(&mut l, &[("browser_go_back", "{}", "Navigated back"); 4], 0);
        assert!(r.iter().all(Option::is_none), "{r:?}");
    }

    #[test]
    fn the_same_click_with_get_state_between_is_a_redo() {
        // OpenHands V1 looks at the page with `browser_get_state`: a look,
        // not a change, so it does not hide the repeated click.
        let mut l = loops();
        let states: Vec<String> = (0..4)
            .map(|i| {
                format!(
                    r#"{{"url":"http://x/files","elements":[{{"index":{}}}]}}"#,
                    2000 + i * 87
                )
            })
            .collect();
        let mut calls = Vec::new();
        for st in &states {
            calls.push(("browser_click", r#"{"index":1233}"#, "Clicked element 1233"));
            calls.push((
                "browser_get_state",
                r#"{"include_screenshot":false}"#,
                st.as_str(),
            ));
        }
        let r = timed(&mut l, &calls, 0);
        let (kind, _) = r[4].clone().expect("the 3rd identical click");
        assert_eq!(kind, "redo");
    }

    #[test]
    fn polling_a_quiet_running_job_is_waiting_until_long() {
        let poll = (
            "BashOutput",
            r#"{"bash_id":"b1"}"#,
            "<status>running</status>\n<timestamp>x</timestamp>",
        );
        // Five quiet polls: before, "repeat × 3" with "calling it again will
        // return the same thing"; a running job is waiting.
        let mut l = loops();
        let r = timed(&mut l, &[poll; 7], 0);
        assert!(r.iter().all(Option::is_none), "{r:?}");
        // Eight in a row, 10 s apart: still waiting (80 s is not long).
        let mut l = loops();
        assert!(timed(&mut l, &[poll; 12], 10_000)
            .iter()
            .all(Option::is_none));
        // One a minute: from the 8th on, nothing new for 7+ minutes.
        let mut l = loops();
        let r = timed(&mut l, &[poll; 9], 60_000);
        assert_eq!(r[6], None);
        let (kind, text) = r[7].clone().expect("8 quiet polls over 7 min");
        assert_eq!(kind, "repeat");
        assert!(
            text.contains("showed nothing new") && text.contains("over 7 min"),
            "{text}"
        );
        assert!(
            text.contains("back off") && !text.contains("return the same thing"),
            "{text}"
        );
        // Without times (a live host): the count alone.
        let mut l = loops();
        let r = timed(&mut l, &[poll; 8], 0);
        assert!(r[7].is_some() && r[6].is_none());
        // The job has ended and the agent polls on: the plain repeat rule.
        let done = (
            "BashOutput",
            r#"{"bash_id":"b1"}"#,
            "<status>completed</status>\n<exit_code>0</exit_code>",
        );
        let mut l = loops();
        let r = timed(&mut l, &[done; 3], 0);
        let (kind, text) = r[2].clone().expect("a finished job polled 3 times");
        assert_eq!(kind, "repeat");
        assert!(text.contains("already ended"), "{text}");
        // A sleep-then-look cycle of a running job is waiting too.
        let mut l = loops();
        let calls = [
            ("bash", r#"{"command":"sleep 30"}"#, ""),
            ("bash", r#"{"command":"tail -5 /tmp/train.log"}"#, "epoch 3"),
        ]
        .repeat(4);
        assert!(timed(&mut l, &calls, 10_000).iter().all(Option::is_none));
    }

    #[test]
    fn searches_that_found_nothing_are_not_errors() {
        // Different searches, each finding nothing, as Claude Code and
        // OpenHands report exit 1: before, "same error × 3" on "Exit code 1".
        // And mini-swe-agent's template of an empty output, as the model
        // sees it: before, "failed 3 times … with the same error:
        // <returncode>1</returncode>" for greps that found nothing.
        for out in [
            "Exit code 1",
            "\n[Command finished with exit code 1]",
            "No matches found",
            "<returncode>1</returncode>\n<output>\n</output>\n[exit code: 1]",
        ] {
            let mut l = loops();
            let greps: Vec<String> = ["alpha", "beta", "gamma", "delta"]
                .iter()
                .map(|w| format!(r#"{{"command":"grep -rn {w} src/"}}"#))
                .collect();
            let calls: Vec<(&str, &str, &str, bool)> = greps
                .iter()
                .map(|g| ("Bash", g.as_str(), out, true))
                .collect();
            assert_eq!(first_alarm(&run(&mut l, &calls)), None, "{out:?}");
        }
        // A grep that failed for real (a missing file) still counts.
        let mut l = loops();
        let greps: Vec<String> = ["a", "b", "c"]
            .iter()
            .map(|f| format!(r#"{{"command":"grep x {f}.txt"}}"#))
            .collect();
        let outs: Vec<String> = ["a", "b", "c"]
            .iter()
            .map(|f| {
                format!("grep: cannot open {f}.txt (No such file or directory)\n[exit code: 2]")
            })
            .collect();
        let calls: Vec<(&str, &str, &str, bool)> = greps
            .iter()
            .zip(&outs)
            .map(|(g, o)| ("bash", g.as_str(), o.as_str(), false))
            .collect();
        assert_eq!(first_alarm(&run(&mut l, &calls)), Some((2, "same-error")));
    }

    #[test]
    fn edits_rejected_in_words_are_failures() {
        // No error flag, no exit code: the tool's words are the failure.
        let mut l = loops();
        let edits: Vec<String> = (0..3)
            .map(|i| {
                format!(
                    r#"{{"command":"str_replace","path":"a.py","old_str":"x{i}","new_str":"y"}}"#
                )
            })
            .collect();
        let outs: Vec<String> = (0..3)
            .map(|i| {
                format!(
                    "No replacement was performed, old_str `x{i}` did not appear verbatim in a.py."
                )
            })
            .collect();
        let calls: Vec<(&str, &str, &str, bool)> = edits
            .iter()
            .zip(&outs)
            .map(|(e, o)| ("str_replace_editor", e.as_str(), o.as_str(), false))
            .collect();
        assert_eq!(first_alarm(&run(&mut l, &calls)), Some((2, "same-error")));
        // SWE-agent's edit command answers through the shell.
        let mut l = loops();
        let edits: Vec<String> = (0..3)
            .map(|i| format!(r#"{{"command":"edit 10:1{i}\n    return x\nend_of_edit"}}"#))
            .collect();
        let out = "Your proposed edit has introduced new syntax error(s). Please read this error message carefully and then retry editing the file.\n\nERRORS:\n- E999 IndentationError: unexpected indent";
        let calls: Vec<(&str, &str, &str, bool)> = edits
            .iter()
            .map(|e| ("bash", e.as_str(), out, false))
            .collect();
        assert_eq!(first_alarm(&run(&mut l, &calls)), Some((2, "same-error")));
    }

    #[test]
    fn rejected_edits_with_other_details_and_a_word_for_word_retry_are_the_same_error() {
        // SWE-agent's edit rejected three times: the detail under the
        // refusal changes (`]`, then `)`), and the last try repeats the one
        // before word for word. Three failures, two sets of arguments.
        let mut l = loops();
        let rejected = |detail: &str| {
            format!("Your proposed edit has introduced new syntax error(s). Please understand the fixes and retry your edit commmand.\n\nERRORS:\n- E999 SyntaxError: unmatched '{detail}'")
        };
        let (a, b) = (rejected("]"), rejected(")"));
        let calls = [
            (
                "bash",
                r#"{"command":"edit 287:295\n    x = [\nend_of_edit"}"#,
                a.as_str(),
            ),
            (
                "bash",
                r#"{"command":"edit 287:295\n    y = (\nend_of_edit"}"#,
                b.as_str(),
            ),
            (
                "bash",
                r#"{"command":"edit 287:295\n    y = (\nend_of_edit"}"#,
                b.as_str(),
            ),
        ];
        let r = timed(&mut l, &calls, 0);
        assert!(r[0].is_none() && r[1].is_none(), "{r:?}");
        let (kind, text) = r[2].clone().expect("the third rejection");
        assert_eq!(kind, "same-error");
        assert!(
            text.contains("3 times in a row")
                && text.contains("with 2 different sets of arguments"),
            "{text}"
        );
    }

    #[test]
    fn the_same_failure_coming_back_with_other_calls_between_is_the_same_error() {
        // An import fails, a patch script fails the same way, then (after
        // other attempts that fail otherwise or succeed) the import again:
        // the same failure whatever was tried in between.
        let import = r#"{"command":"python -c 'import astroid'"}"#;
        let patch = r#"{"command":"cat > p.py << 'EOF'\nimport inspect\nEOF\npython p.py"}"#;
        let fail = "Traceback (most recent call last):\n  File \"<string>\", line 1\nImportError: cannot import name 'formatargspec' from 'inspect'\n[exit code: 1]";
        let other = "Traceback (most recent call last):\n  File \"<string>\", line 1\nNameError: name 'inspect' is not defined\n[exit code: 1]";
        let calls = [
            ("bash", import, fail, false),
            ("bash", patch, fail, false),
            ("bash", r#"{"command":"sed -i 's/a/b/' w.py"}"#, "", false),
            ("bash", import, other, false),
            (
                "bash",
                r#"{"command":"cat > fix.py << 'EOF'\nx\nEOF"}"#,
                "",
                false,
            ),
            ("bash", import, fail, false),
        ];
        let mut l = loops();
        let r = run(&mut l, &calls);
        assert_eq!(first_alarm(&r), Some((5, "same-error")));
        assert_eq!(r[5], Some(("same-error", 3)));
        // The same error met while looking around (no attempt to change
        // anything among the failures) is what the agent is investigating.
        let mut l = loops();
        let looking = [
            ("bash", import, fail, false),
            ("bash", r#"{"command":"python repro.py"}"#, fail, false),
            (
                "bash",
                r#"{"command":"grep -n formatargspec w.py"}"#,
                "34: x",
                false,
            ),
            (
                "bash",
                r#"{"command":"python -c 'from inspect import formatargspec'"}"#,
                fail,
                false,
            ),
        ];
        assert_eq!(first_alarm(&run(&mut l, &looking)), None);
        // The same error met again much later (past the last 12 calls) is
        // not the same attempt.
        let mut l = loops();
        let mut later = vec![("bash", import, fail, false), ("bash", patch, fail, false)];
        let reads: Vec<String> = (0..10)
            .map(|i| format!(r#"{{"command":"sed -n '{i},+5p' a.py"}}"#))
            .collect();
        later.extend(reads.iter().map(|a| ("bash", a.as_str(), "x = 1", false)));
        later.push((
            "bash",
            r#"{"command":"python -c 'import astroid.x'"}"#,
            fail,
            false,
        ));
        assert_eq!(first_alarm(&run(&mut l, &later)), None);
        // Before: the success and the other failure in between ended the run.
        // A failing call that has since succeeded is dealt with: no loop.
        let mut l = loops();
        let fixed = [
            ("bash", import, fail, false),
            ("bash", patch, fail, false),
            ("bash", import, "ok", false),
            ("bash", r#"{"command":"python other.py"}"#, fail, false),
        ];
        assert_eq!(first_alarm(&run(&mut l, &fixed)), None);
    }

    #[test]
    fn the_texts_of_a_scattered_same_error_say_so() {
        let mut l = loops();
        let fail = "E: ModuleNotFoundError: No module named 'numpy'\n[exit code: 1]";
        let mut last = None;
        for (i, cmd) in [
            "pip install numpy",
            "ls",
            "apt-get install numpy",
            "ls",
            "pip3 install numpy",
        ]
        .iter()
        .enumerate()
        {
            let args = format!(r#"{{"command":"{cmd}"}}"#);
            let out = if i % 2 == 0 { fail } else { "a b" };
            last = l.observe(
                "a",
                "bash",
                &args,
                &LoopOutcome {
                    text: out,
                    is_error: false,
                    flagged: false,
                },
            );
        }
        let alarm = last.expect("an alarm at the third install");
        assert!(
            alarm
                .text
                .contains("failed 3 times, whatever was tried in between, with the same error"),
            "{}",
            alarm.text
        );
    }

    #[test]
    fn a_harness_error_quoting_other_command_lines_is_one_error() {
        // Three ways to install numpy, each killed by the harness's timeout,
        // whose message quotes the whole command line; a failing check and
        // a listing in between.
        let timeout = |cmd: &str| {
            format!("<exception>An error occurred while executing the command: Command '['docker', 'exec', '-w', '/testbed', 'bash', '-c', '{cmd}']' timed out after 60 seconds</exception>\n<returncode>-1</returncode>")
        };
        let cmds = [
            "pip install numpy -q 2>&1 | tail -5",
            "apt-get update && apt-get install -y python3-numpy 2>&1 | tail -5",
            "python3 -m pip install numpy --no-cache-dir -q 2>&1 | tail -5",
        ];
        let args: Vec<String> = cmds
            .iter()
            .map(|c| serde_json::json!({ "command": c }).to_string())
            .collect();
        let outs: Vec<String> = cmds.iter().map(|c| timeout(c)).collect();
        let check =
            "Traceback (most recent call last):\nModuleNotFoundError: No module named 'numpy'";
        let calls = [
            ("bash", args[0].as_str(), outs[0].as_str(), true),
            (
                "bash",
                r#"{"command":"python3 -c 'import numpy' 2>&1 | head -2"}"#,
                check,
                false,
            ),
            ("bash", args[1].as_str(), outs[1].as_str(), true),
            (
                "bash",
                r#"{"command":"python3 -m pip list | head -5"}"#,
                "Package Version",
                false,
            ),
            ("bash", args[2].as_str(), outs[2].as_str(), true),
        ];
        let mut l = loops();
        let r = run(&mut l, &calls);
        assert_eq!(first_alarm(&r), Some((4, "same-error")));
    }

    #[test]
    fn a_server_started_again_and_again_is_an_attempt() {
        // A run that writes a file (a server with its log redirected) is an
        // attempt: the same bare `Exit code 7` after it, with looks between.
        let health = r#"{"command":"sleep 3 && curl -s http://localhost:8081/health"}"#;
        let start = |i: u32| {
            format!(
                r#"{{"command":"nohup uvicorn app:app --port 8081 > /tmp/app{i}.log 2>&1 &\nsleep 4\ncurl -s http://localhost:8081/health"}}"#
            )
        };
        let (s1, s2) = (start(1), start(2));
        let calls = [
            ("Bash", health, "Exit code 7", true),
            (
                "Bash",
                r#"{"command":"tail -5 /tmp/app.log"}"#,
                "ModuleNotFoundError: No module named 'app'",
                false,
            ),
            ("Bash", s1.as_str(), "Exit code 7", true),
            ("Bash", r#"{"command":"pwd"}"#, "/p", false),
            ("Bash", s2.as_str(), "Exit code 7", true),
        ];
        let mut l = loops();
        let r = run(&mut l, &calls);
        assert_eq!(first_alarm(&r), Some((4, "same-error")));
    }

    #[test]
    fn a_bare_exit_status_is_its_number() {
        // Claude Code's `Exit code 7` with nothing else: curl's 7 three
        // times is one error; 7, 1, 2 are three.
        let health = |i: usize| {
            format!(r#"{{"command":"sleep {i} && curl -s http://localhost:8081/health"}}"#)
        };
        let calls: Vec<(String, &str)> = (1..=3).map(|i| (health(i), "Exit code 7")).collect();
        let mut l = loops();
        let r = run(
            &mut l,
            &calls
                .iter()
                .map(|(a, o)| ("Bash", a.as_str(), *o, true))
                .collect::<Vec<_>>(),
        );
        assert_eq!(first_alarm(&r), Some((2, "same-error")));
        // A reader that carries the status as a marker line only: before, no
        // line to sign, so never the same error.
        let mut l = loops();
        let r = run(
            &mut l,
            &calls
                .iter()
                .map(|(a, _)| ("Bash", a.as_str(), "[exit code: 7]", true))
                .collect::<Vec<_>>(),
        );
        assert_eq!(first_alarm(&r), Some((2, "same-error")));
        // Killed by a timeout, with nothing printed: stopped, not one error.
        for stop in ["[exit code: 124]", "[exit code: -9]"] {
            let mut l = loops();
            let r = run(
                &mut l,
                &calls
                    .iter()
                    .map(|(a, _)| ("Bash", a.as_str(), stop, true))
                    .collect::<Vec<_>>(),
            );
            assert_eq!(first_alarm(&r), None, "{stop}");
        }
        let codes = ["Exit code 7", "Exit code 1", "Exit code 2"];
        let mut l = loops();
        let r = run(
            &mut l,
            &calls
                .iter()
                .zip(codes)
                .map(|((a, _), o)| ("Bash", a.as_str(), o, true))
                .collect::<Vec<_>>(),
        );
        assert_eq!(first_alarm(&r), None);
    }

    #[test]
    fn a_rerun_whose_output_names_an_error_is_a_failing_rerun() {
        // The script catches its own error and exits 0; edits between runs
        // do not change it. Before, an exit-0 run was a check, never a loop.
        let run_it = r#"{"command":"python test_fix.py 2>&1"}"#;
        let out = "Testing case with v_oc=0\nError: too many indices for array: array is 0-dimensional, but 1 were indexed";
        let edit = |i: usize| format!(r#"{{"command":"python fix{i}.py"}}"#);
        let (e1, e2) = (edit(1), edit(2));
        let calls = [
            ("bash", run_it, out, false),
            ("bash", e1.as_str(), "Fixed", false),
            ("bash", run_it, out, false),
            ("bash", e2.as_str(), "Fixed", false),
            ("bash", run_it, out, false),
        ];
        let mut l = loops();
        let r = run(&mut l, &calls);
        assert_eq!(first_alarm(&r), Some((4, "re-read")));
        // A passing re-run, even of tests named after errors, stays a check.
        let ok = "test_invalid_input PASSED\ntest_error_path PASSED\n2 passed in 0.1s";
        let calls = [
            ("bash", PYTEST, ok, false),
            (
                "str_replace_editor",
                r#"{"command":"str_replace","path":"a.py","old_str":"a","new_str":"b"}"#,
                "ok",
                false,
            ),
            ("bash", PYTEST, ok, false),
            (
                "str_replace_editor",
                r#"{"command":"str_replace","path":"a.py","old_str":"b","new_str":"c"}"#,
                "ok",
                false,
            ),
            ("bash", PYTEST, ok, false),
        ];
        let mut l = loops();
        assert_eq!(first_alarm(&run(&mut l, &calls)), None);
    }

    #[test]
    fn a_test_run_behind_a_pipe_that_names_an_error_is_failing() {
        // `pytest | tail -40` exits 0 whatever pytest said: the conftest's
        // import error, three times with looks between, is one failing re-run.
        let pytest = r#"{"command":"uv run pytest tests/ -v 2>&1 | tail -40"}"#;
        let out = "ImportError while loading conftest '/p/tests/conftest.py'.\ntests/conftest.py:9: in <module>\nE   ModuleNotFoundError: No module named 'ies_backend'";
        let calls = [
            ("Bash", pytest, out, false),
            (
                "Bash",
                r#"{"command":"ls -la tests/"}"#,
                "conftest.py",
                false,
            ),
            ("Bash", pytest, out, false),
            (
                "Read",
                r#"{"file_path":"/p/tests/conftest.py"}"#,
                "import x",
                false,
            ),
            ("Bash", pytest, out, false),
        ];
        let mut l = loops();
        let r = run(&mut l, &calls);
        assert_eq!(first_alarm(&r), Some((4, "re-read")));
        // Status not hidden, the same words: a passing run's output is content.
        let plain = r#"{"command":"uv run pytest tests/ -v"}"#;
        let ok = "tests/test_errors.py::test_error_message PASSED\n1 passed";
        let calls: Vec<_> = calls
            .iter()
            .map(|&(t, a, o, f)| {
                if a == pytest {
                    (t, plain, ok, f)
                } else {
                    (t, a, o, f)
                }
            })
            .collect();
        let mut l = loops();
        assert_eq!(first_alarm(&run(&mut l, &calls)), None);
    }

    #[test]
    fn the_same_attempt_made_again_with_the_same_failure_is_a_rerun() {
        // Edit, check the import, run the test: it fails; restore, the same
        // import check, the test fails the same way again. Round two of one
        // attempt, though its edits differ.
        let test = r#"{"command":"python test_fix.py"}"#;
        let check = r#"{"command":"python -c 'import pkg'"}"#;
        let fail = |line: u32| {
            format!("Traceback (most recent call last):\n  File \"pkg/a.py\", line {line}\n    import struct\nSyntaxError: invalid syntax\n[exit code: 1]")
        };
        let (f1, f2) = (fail(13), fail(500));
        let calls = [
            ("bash", r#"{"command":"python fix1.py"}"#, "Updated", false),
            ("bash", check, "", false),
            ("bash", test, f1.as_str(), false),
            ("bash", r#"{"command":"cp a.py.bak a.py"}"#, "", false),
            ("bash", r#"{"command":"python fix2.py"}"#, "Updated", false),
            ("bash", check, "", false),
            ("bash", test, f2.as_str(), false),
        ];
        let mut l = loops();
        let r = run(&mut l, &calls);
        assert_eq!(first_alarm(&r), Some((6, "re-read")));
        assert_eq!(r[6], Some(("re-read", 2)));
        // A fix that changed the failure (another error) is progress.
        let other = "Traceback (most recent call last):\n  File \"t.py\", line 3\nAssertionError: 1 != 2\n[exit code: 1]";
        let mut calls = calls;
        calls[6].2 = other;
        let mut l = loops();
        assert_eq!(first_alarm(&run(&mut l, &calls)), None);
    }

    #[test]
    fn the_same_restore_after_attempts_that_end_as_before_is_an_undo_loop() {
        // sqlfluff-1733's shape: instrument the file, the import breaks,
        // restore the backup, start over; every edit differs, and the import
        // check comes back with the same traceback after a restore.
        let restore = r#"{"command":"cp src/rules/L003.py.backup src/rules/L003.py"}"#;
        let check = r#"{"command":"cd /testbed && python -c \"import pkg.L003; print('ok')\" 2>&1 | head -5"}"#;
        let broken = "Traceback (most recent call last):\n  File \"<string>\", line 1, in <module>\n  File \"/testbed/src/pkg/__init__.py\", line 3, in <module>\n    import pytest\n";
        let edit = |i: u32| {
            format!(r#"{{"command":"sed -i '{i} i\\    sys.stderr.write(x)' src/rules/L003.py"}}"#)
        };
        let (e1, e2, e3, e4) = (edit(150), edit(185), edit(206), edit(219));
        let calls = [
            ("bash", e1.as_str(), "", false),
            ("bash", r#"{"command":"python -c 'import pkg.L003' 2>&1 | head -20"}"#, "Traceback (most recent call last):\n  File \"<string>\", line 1\nNameError: name 'sys' is not defined", false),
            ("bash", restore, "", false),
            ("bash", e2.as_str(), "", false),
            ("bash", check, "ok", false),
            ("bash", r#"{"command":"python debug.py 2>&1 | head -30"}"#, "", false),
            ("bash", restore, "", false),
            ("bash", e3.as_str(), "", false),
            ("bash", check, broken, false),
            ("bash", r#"{"command":"git log --oneline -30"}"#, "a1579a16b MySQL", false),
            ("bash", restore, "", false),
            ("bash", e4.as_str(), "", false),
            ("bash", check, broken, false),
            ("bash", r#"{"command":"grep -n desired_indent src/rules/L003.py"}"#, "264: desired_indent", false),
            ("bash", restore, "", false),
        ];
        let mut l = loops();
        let r = run(&mut l, &calls);
        assert_eq!(first_alarm(&r), Some((14, "redo")), "{r:?}");
        assert_eq!(r[14], Some(("redo", 4)));
        // The text says what is undone, and which attempt ended as before.
        let mut l = loops();
        for (tool, args, out, failed) in &calls[..14] {
            let outcome = LoopOutcome {
                text: out,
                is_error: *failed,
                flagged: false,
            };
            l.observe("a", tool, args, &outcome);
        }
        let outcome = LoopOutcome {
            text: "",
            is_error: false,
            flagged: false,
        };
        let alarm = l
            .observe("a", "bash", restore, &outcome)
            .expect("an undo loop");
        assert!(
            alarm.text.contains("bash restored src/rules/L003.py the same way 4 times since call #3 (calls #3, #7, #11, #15)")
                && alarm.text.contains("call #13 failed exactly as call #9 had"),
            "{}",
            alarm.text
        );
        assert!(!alarm
            .text
            .contains("has not changed since you last read it"));
    }

    #[test]
    fn trap_restores_between_attempts_that_show_something_new_are_no_undo_loop() {
        let restore = r#"{"command":"cp related.py.orig related.py"}"#;
        let fix = |i: u32| format!(r#"{{"command":"python /tmp/add_pre_save_{i}.py"}}"#);
        let debug = |i: u32| format!(r#"{{"command":"python test_debug_{i}.py 2>&1 | tail -30"}}"#);
        let out = |i: u32| {
            format!(
                "Before save: product_id = {i}\nError saving order: FOREIGN KEY constraint failed"
            )
        };
        // django-13964's shape: four restores, each round a new debug script
        // whose output says something new (the same error underneath).
        let (f, d, o): (Vec<String>, Vec<String>, Vec<String>) = (
            (0..4).map(fix).collect(),
            (0..4).map(debug).collect(),
            (0..4).map(out).collect(),
        );
        let mut calls = Vec::new();
        for i in 0..4 {
            calls.push(("bash", restore, "", false));
            calls.push(("bash", f[i].as_str(), "Added pre_save", false));
            calls.push(("bash", d[i].as_str(), o[i].as_str(), false));
        }
        let mut l = loops();
        assert_eq!(first_alarm(&run(&mut l, &calls)), None);
        // A restore before a new approach that passes; one restore before a
        // good attempt: nothing.
        let test = r#"{"command":"python -m pytest tests/test_x.py -q 2>&1 | tail -3"}"#;
        let fails = "E   AssertionError: 1 != 2\n1 failed in 0.1s";
        let calls = [
            ("bash", f[0].as_str(), "Added pre_save", false),
            ("bash", test, fails, false),
            ("bash", restore, "", false),
            ("bash", f[1].as_str(), "Added pre_save", false),
            ("bash", test, fails, false),
            ("bash", restore, "", false),
            ("bash", f[2].as_str(), "Added pre_save", false),
            ("bash", test, "3 passed in 0.1s", false),
            ("bash", restore, "", false),
        ];
        let mut l = loops();
        let r = run(&mut l, &calls);
        // The same failing test after the first restore is a failing re-run
        // at most (an attempt made again), never an undo at the restore.
        assert!(r[8].is_none(), "{r:?}");
        // Restores with nothing changed between them are not undoing attempts.
        let mut l = loops();
        let calls = [
            ("bash", test, fails, false),
            ("bash", restore, "", false),
            ("bash", test, fails, false),
            ("bash", restore, "", false),
            ("bash", restore, "", false),
        ];
        assert!(run(&mut l, &calls)[3..]
            .iter()
            .all(|a| a.map(|(k, _)| k) != Some("redo")));
    }

    #[test]
    fn a_click_refused_again_and_again_is_the_same_error() {
        // OpenHands' browser: the element is not there, the agent clicks
        // another, looks, and clicks the missing one again.
        let calls = [
            (
                "browser_click",
                r#"{"index":1260}"#,
                "Element with index 1260 not found",
                false,
            ),
            (
                "browser_click",
                r#"{"index":1230}"#,
                "Clicked element 1230",
                false,
            ),
            ("browser_get_state", "{}", "page", false),
            (
                "browser_click",
                r#"{"index":1260}"#,
                "Element with index 1260 not found",
                false,
            ),
            (
                "browser_click",
                r#"{"index":1231}"#,
                "Clicked element 1231",
                false,
            ),
            ("browser_get_state", "{}", "page 2", false),
            (
                "browser_click",
                r#"{"index":1260}"#,
                "Element with index 1260 not found",
                false,
            ),
        ];
        let mut l = loops();
        let r = run(&mut l, &calls);
        assert_eq!(first_alarm(&r), Some((6, "same-error")));
        // Other missing ids each time: the same refusal with new arguments.
        let mut l = loops();
        let ids: Vec<(String, String)> = (0..3)
            .map(|i| {
                (
                    format!(r#"{{"index":{}}}"#, 100 + i),
                    format!("Element with index {} not found", 100 + i),
                )
            })
            .collect();
        let calls: Vec<(&str, &str, &str, bool)> = ids
            .iter()
            .map(|(a, o)| ("browser_click", a.as_str(), o.as_str(), false))
            .collect();
        assert_eq!(first_alarm(&run(&mut l, &calls)), Some((2, "same-error")));
    }

    #[test]
    fn trap_a_404_flagged_by_a_rule_is_still_soft() {
        // Checking that deleted items are gone: a rule flags each 404 body,
        // but an HTTP status alone is a soft failure (softError: 4).
        let mut l = loops();
        let mut alarms = Vec::new();
        for id in [3, 5, 8] {
            let args = format!(
                r#"{{"command":"curl -s -w 'HTTP %{{http_code}}' http://h/api/items/{id}"}}"#
            );
            let out = format!(
                "{{\"error\": \"not_found\", \"message\": \"item {id} not found\"}}\n\nHTTP 404\n"
            );
            alarms.push(l.observe(
                "a",
                "Bash",
                &args,
                &LoopOutcome {
                    text: &out,
                    is_error: false,
                    flagged: true,
                },
            ));
        }
        assert!(alarms.iter().all(Option::is_none), "{alarms:?}");
    }

    #[test]
    fn trap_verification_rerun_after_a_fix_made_in_the_shell() {
        // The fix goes in with `sed -i` or a heredoc, not an edit tool: the
        // passing re-run after it is checking, not a re-read.
        let mut l = loops();
        let r = run(
            &mut l,
            &[
                ("bash", PYTEST, "5 passed in 0.1s", false),
                ("bash", r#"{"command":"sed -i 's/a/b/' m.py"}"#, "", false),
                ("bash", PYTEST, "5 passed in 0.1s", false),
                (
                    "bash",
                    r#"{"command":"cat > n.py << 'EOF'\nx = 1\nEOF"}"#,
                    "",
                    false,
                ),
                ("bash", PYTEST, "5 passed in 0.1s", false),
            ],
        );
        assert_eq!(first_alarm(&r), None, "{r:?}");
    }

    /// The searches over whole spans find what a search of each line finds
    /// (the plain per-line forms are the reference).
    #[test]
    fn span_searches_match_the_per_line_forms() {
        let texts = [
            String::new(),
            "HTTP/1.1 429 Too Many Requests".to_owned(),
            "ok\nRate Limit reached\n".to_owned(),
            format!("{}Retry-After: 5\n", "line\n".repeat(25)),
            format!("{}Retry-After: 5\n{}", "line\n".repeat(25), "x".repeat(500)),
            format!("{}\nrate limit\n{}", "y".repeat(390), "z\n".repeat(3)),
            format!("é{}\nrate_limit", "w".repeat(400)),
            format!("{}\r\nToo many requests\r\n", "a\r\n".repeat(19)),
            "==== FAILURES ====\nAssertionError: boom\n".to_owned(),
            "  \n[exit code: 1]\nfine\nCannot open x\nError: y".to_owned(),
            "Exit code: 1\nWall time: 2s\nOutput:\nno ERROR here? yes".to_owned(),
            "all good\nstill good".to_owned(),
            "curl: (22) The requested URL returned error: 404\nHTTP/2 404".to_owned(),
            // Words across the ends of the chunks the search lowercases
            // (256 bytes, then twice as long each time up to 4 KB).
            format!("{}Invalid", "x".repeat(252)),
            format!("{}FaTaL", "y".repeat(256 + 512 - 32 - 2)),
            format!("{}DOES NOT EXIST", "a".repeat(4090)),
            format!("{}\nok\n{}Rate_Limit", "b".repeat(4000), "c ".repeat(2078)),
            format!("{}\n{}UnAbLe", "d\n".repeat(30), "e".repeat(8100)),
        ];
        for text in &texts {
            let per_line = edge_lines(text).any(|line| {
                let l = line.to_ascii_lowercase();
                [
                    "too many requests",
                    "rate limit",
                    "rate_limit",
                    "retry-after",
                ]
                .iter()
                .any(|w| l.contains(w))
            });
            assert_eq!(
                transient(text),
                per_line || matches!(http_error(text), Some(429 | 503)),
                "{text:?}"
            );
            let reference = {
                let mut first = None;
                let mut found = None;
                for line in text.lines() {
                    let t = line.trim();
                    if t.is_empty() || is_banner(t) || is_harness_header(t) {
                        continue;
                    }
                    first.get_or_insert(t);
                    let lower = t.to_ascii_lowercase();
                    if ERROR_WORDS.iter().any(|w| lower.contains(w)) || http_error(t).is_some() {
                        found = Some(t);
                        break;
                    }
                }
                found.or(first)
            };
            if !text.contains("Traceback") {
                assert_eq!(error_line(text), reference, "{text:?}");
            }
        }
    }

    #[test]
    fn error_lines_and_signatures() {
        assert_eq!(
            error_line("Traceback (most recent call last):\n  File \"x\"\nKeyError: 'db'\n"),
            Some("KeyError: 'db'")
        );
        assert_eq!(
            error_line("..F [100%]\n=== FAILURES ===\nE  assert 1 == 2\nFAILED t.py::test_a - assert 1 == 2\n"),
            Some("FAILED t.py::test_a - assert 1 == 2")
        );
        assert_eq!(
            error_line("Exit code: 1\nWall time: 0.1 seconds\nOutput:\n"),
            None
        );
        let mut buf = String::new();
        let a = signature(
            "ERROR: No matching distribution found for ruamel.yaml",
            r#"{"command":"pip install ruamel.yaml"}"#,
            &mut buf,
        );
        let b = signature(
            "ERROR: No matching distribution found for ruamel-yaml",
            r#"{"command":"pip install ruamel-yaml"}"#,
            &mut buf,
        );
        assert_eq!(a, b);
        let c = signature(
            "ERROR: No matching distribution found for numpy",
            r#"{"command":"pip install ruamel-yaml"}"#,
            &mut buf,
        );
        assert_ne!(a, c);
        assert!(codex_exit_failed("Exit code: 2\nWall time: 1s"));
        // A status line with a wide character before its last digits: it
        // panicked (a slice inside the emoji) where the reference answers.
        assert!(!stopped("Exit code: 2\u{1F600}37 ms"));
        assert!(stopped("Exit code: 2\u{1F600}124"));
        assert!(stopped("[exit code: -9]"));
        assert!(!codex_exit_failed("Exit code: 0\n"));
        assert_eq!(http_error("HTTP/1.0 404 Not Found\r\nServer: x"), Some(404));
        assert_eq!(http_error("body\n\nHTTP 500\n"), Some(500));
        assert_eq!(http_error("HTTP 200\n"), None);
        // `H` that is not `HTTP`, more often than the one-byte search's
        // budget, before the status line: the substring search finds it.
        let capitals = "Header Hello H H H H H H H HTT\n".repeat(3);
        assert_eq!(
            http_error(&format!("{capitals}HTTP/1.1 503 Busy\n")),
            Some(503)
        );
        assert!(has_http(b"xHTTP") && !has_http(b"HTT") && !has_http(b"") && !has_http(b"HHTTHTT"));
    }
}
