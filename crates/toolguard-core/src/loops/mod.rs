//! Loop detectors that look at results, not only at calls.
//!
//! Each agent keeps a fixed window of the last `window` calls, each reduced
//! to digests: the call (tool + canonical arguments without ignored keys),
//! the normalised result ([`crate::normalize`]), the tool, and for failures
//! the error signature; never a text. The detectors read the window after
//! every call, most specific first (`redo`, `undo` and the re-run of an
//! attempt are described in their own files):
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

//!
//! Where each part lives: `entry.rs` (a call as the window keeps it, its
//! flags, the episode), `detect.rs` (thresholds, the dispatcher) and one
//! file per loop shape (`repeat.rs`, `cycle.rs`, `same_error.rs`,
//! `re_read.rs`, `rerun.rs`, `redo.rs`, `undo.rs`), `texts.rs` (what the
//! alarms say, and the phrases of `rules/loops.json`), `errors.rs` (error
//! lines, signatures, HTTP and transient statuses), `state.rs` (the saved
//! window).

use std::collections::HashMap;

use crate::chain::{any_match, Wildcard};
use crate::config::LoopsConfig;
use crate::normalize::LineMemo;

mod cycle;
mod detect;
mod entry;
mod errors;
mod re_read;
mod redo;
mod repeat;
mod rerun;
mod same_error;
mod state;
pub(crate) mod texts;
mod undo;

#[cfg(test)]
mod testing;
#[cfg(test)]
mod tests;

use detect::{About, Limits};
use entry::{
    effect, entry, Active, AgentLoops, NameHash, ToolInfo, HIDDEN, MUTATION, NO_PATH, WRITES,
};
pub use errors::{error_line, signature};
pub use state::STATE_VERSION;
use texts::advice;

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

/// At most this many call ordinals are listed as evidence.
pub const EVIDENCE_CALLS: usize = 12;

/// The most calls a window may hold (`loops.window`).
pub const MAX_WINDOW: usize = crate::config::MAX_LOOP_WINDOW;

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
    /// `mutatingTools` alone has 12). Bounded by [`entry::TOOL_CACHE`].
    tools: HashMap<String, ToolInfo, NameHash>,
    /// What each call does ([`effect`]), by call digest: the shell model
    /// parses a command once, however often it recurs. Bounded by [`entry::EFFECT_CACHE`].
    effects: HashMap<u64, u8, NameHash>,
    key: String,
    line: String,
    /// Normal forms of result lines seen, shared by every agent (bounded).
    memo: LineMemo,
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

    /// Whether `check` may refuse a call (`loops.deny` set).
    pub fn denies(&self) -> bool {
        self.deny.is_some()
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
}
