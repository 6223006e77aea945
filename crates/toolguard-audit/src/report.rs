//! What an audit found in one file, and its JSON form (the `--json` document's
//! `sessions[i]`; keys documented in docs/trace-format.md and the README).
//! The structs below are that form: serialized in their declared key order,
//! which is the documented one (ts/cli/audit/types.mts types it, and a test checks
//! both agree).

use serde::Serialize;

use crate::auditor::MAX_ERRORS;
use crate::detect::Format;
use crate::replay::CallSite;
use crate::waste::{WasteJson, WasteSummary};
use toolguard_core::engine::FailureAction;

/// A reminder the repeat guard would have injected after this call.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ReminderFinding {
    #[serde(flatten)]
    pub(crate) site: CallSite,
    pub count: u64,
    /// `<tool> × <count>`.
    pub summary: String,
    pub command: Option<String>,
    /// Canonical arguments, cut to `argumentsPreviewChars` UTF-16 units.
    pub arguments: String,
    /// The exact reminder text.
    pub text: String,
    /// What the episode cost (docs/audit.md "Waste"), set by [`SessionReport::price`]:
    /// absent until priced, null for a call past the timeline's bound.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub waste: Option<Option<WasteJson>>,
}

/// One loop episode, from the call where the detectors first raised it
/// (the site) to the last call it went on (with `loops` on, the audit's
/// default). A loop alarms at every call it goes on; those alarms are this
/// one finding, which ends with the loop's real count however long it ran.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LoopFinding {
    #[serde(flatten)]
    pub(crate) site: CallSite,
    /// `repeat`, `cycle`, `same-error`, `re-read` or `redo`.
    pub kind: &'static str,
    /// Calls in the loop (a cycle: rounds begun), at its last alarm.
    pub count: u64,
    /// Calls per round of a cycle; 1 otherwise.
    pub period: u64,
    /// The loop's first call and its last one, by timeline ordinal.
    pub first_call: u64,
    pub last_call: u64,
    /// Log line of the last call.
    pub last_log_line: u64,
    /// The loop's latest calls by timeline ordinal (at most 12), at its last alarm.
    pub calls: Vec<u64>,
    /// `<tool>: <kind label> × <count>`, at its last alarm.
    pub summary: String,
    pub evidence: String,
    /// The first reminder text the model would have been shown.
    pub text: String,
    /// Reminders the loop had: one at every call it went on after it was raised.
    pub reminders: u64,
    pub command: Option<String>,
    /// What the episode cost (docs/audit.md "Waste"), set by [`SessionReport::price`]:
    /// absent until priced, null for a call past the timeline's bound.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub waste: Option<Option<WasteJson>>,
}

/// One rule that matched a call's output (a call matching two rules gives two).
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FailureFinding {
    #[serde(flatten)]
    pub(crate) site: CallSite,
    pub rule_id: String,
    /// The rule's own action.
    #[serde(rename = "action")]
    pub rule_action: &'static str,
    /// The verdict's action over all matching rules (`error` wins).
    #[serde(serialize_with = "action_name")]
    pub verdict: FailureAction,
    /// 1-based line of the match in the output.
    pub line: u64,
    pub excerpt: String,
    pub message: String,
    pub command: Option<String>,
    pub summary: String,
    /// The notice the model would have got (`[loud-failure] …` and the rule
    /// lines), without the original output an `error` verdict wraps.
    pub text: String,
    /// The output lines around `line`.
    pub output_context: OutputContext,
    /// What the episode cost (docs/audit.md "Waste"), set by [`SessionReport::price`]:
    /// absent until priced, null for a call past the timeline's bound.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub waste: Option<Option<WasteJson>>,
}

/// Output lines `from`, `from + 1`, … around a match (each cut to 240 characters).
#[derive(Debug, Clone, Serialize)]
pub struct OutputContext {
    pub from: u64,
    pub lines: Vec<String>,
}

/// Bad input: reported with its line (`None`: the file as a whole), then skipped.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct InputError {
    pub line: Option<u64>,
    pub message: String,
}

/// What a reader noticed but is not bad input: an observation without its
/// action or the reverse, a format that records no exit codes. `ordinal`:
/// the call it is about, when there is one.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Note {
    pub line: Option<u64>,
    pub ordinal: Option<u64>,
    pub message: String,
}

/// One call the guard saw, as the session timeline lists it: enough to draw
/// it and to price a loop (no arguments, no output). Findings point at it by
/// `agentId`, `callId` and `logLine`. Absent keys: the log does not say.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TimelineCall {
    /// 1-based position of the call in its session, in file (call) order:
    /// with `file` and `session`, the call's name (docs/trace-format.md).
    pub ordinal: u64,
    /// The format's own id of the call; null when it has none.
    pub call_id: Option<String>,
    pub tool: String,
    pub agent_id: Option<String>,
    pub log_line: u64,
    /// When the call was made, ms since the Unix epoch.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub time: Option<u64>,
    /// When its result came back, ms since the Unix epoch.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub end_time: Option<u64>,
    /// Tokens of the model turn that made the call (input: uncached plus
    /// cache reads and writes); on the turn's first call only, zero on its others.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub input_tokens: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub output_tokens: Option<u64>,
    /// Run length of identical calls in the agent's repeat chain, this one
    /// included (1: a new call); absent for a tool the chain does not track.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub repeat: Option<u64>,
}

/// The calls of one log in order, at most [`crate::MAX_TIMELINE_CALLS`].
#[derive(Debug, Clone, Default, Serialize)]
pub struct Timeline {
    pub calls: Vec<TimelineCall>,
    /// Calls past the bound: counted, not listed.
    pub omitted: u64,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionReport {
    pub file: String,
    /// 0-based index of the session within the file (files holding one
    /// session per line: the line's position among them; else 0).
    pub session: u64,
    #[serde(serialize_with = "format_name")]
    pub format: Format,
    pub compressed: bool,
    pub session_id: Option<String>,
    /// The model that drove the run, when the file says.
    pub model: Option<String>,
    pub parent_session: Option<String>,
    pub cwd: Option<String>,
    /// Trace files: agent ids in order of first appearance.
    pub agents: Vec<String>,
    /// Tool calls audited (paired with a result or not).
    pub calls: u64,
    /// Calls with no result in the log (never seen by a post-execute hook).
    pub unanswered: u64,
    /// DSH: calls inherited through a fork seed (audited in the parent's log).
    pub inherited: u64,
    pub lines: u64,
    /// Bytes of the file read (compressed size for zstd).
    pub bytes: u64,
    /// Bytes of JSONL text read.
    pub decoded_bytes: u64,
    pub reminders: Vec<ReminderFinding>,
    /// Loop alarms, at the call where each was raised.
    pub loops: Vec<LoopFinding>,
    /// Rule matches: one entry per rule that matched a call's output.
    pub failures: Vec<FailureFinding>,
    /// Silent failures: calls with at least one entry in `failures` (a call
    /// two rules match is one silent failure, two rule matches). Set by
    /// [`SessionReport::finish`]; every report's "silent failures" is this count.
    pub silent_failures: u64,
    pub errors: Vec<InputError>,
    /// All errors, including those past [`MAX_ERRORS`].
    pub error_count: u64,
    /// Reader notes (not errors), at most [`MAX_ERRORS`].
    pub notes: Vec<Note>,
    /// All notes, including those past [`MAX_ERRORS`].
    pub note_count: u64,
    /// The calls in order, for the HTML report and the waste figures;
    /// the first [`crate::MAX_TIMELINE_CALLS`] of them.
    pub timeline: Timeline,
    /// The session's waste, set by [`SessionReport::price`] (absent before).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub waste: Option<WasteSummary>,
}

impl SessionReport {
    pub fn new(file: String, format: Format) -> Self {
        Self {
            file,
            session: 0,
            format,
            compressed: false,
            session_id: None,
            model: None,
            parent_session: None,
            cwd: None,
            agents: Vec::new(),
            calls: 0,
            unanswered: 0,
            inherited: 0,
            lines: 0,
            bytes: 0,
            decoded_bytes: 0,
            reminders: Vec::new(),
            loops: Vec::new(),
            failures: Vec::new(),
            silent_failures: 0,
            errors: Vec::new(),
            error_count: 0,
            notes: Vec::new(),
            note_count: 0,
            timeline: Timeline::default(),
            waste: None,
        }
    }

    pub fn unreadable(file: String, format: Format, e: std::io::Error) -> Self {
        let mut report = Self::new(file, format);
        report.error(None, format!("cannot open: {e}"));
        report
    }

    pub fn error(&mut self, line: Option<u64>, message: String) {
        self.error_count += 1;
        if self.errors.len() < MAX_ERRORS {
            self.errors.push(InputError { line, message });
        }
    }

    /// A loop detector's alarm at `site`: a new finding when it raises a
    /// loop, else the agent's finding of that episode takes its count.
    pub(crate) fn loop_alarm(
        &mut self,
        site: &CallSite,
        alarm: toolguard_core::loops::LoopAlarm,
        command: Option<String>,
    ) {
        if alarm.reminders > 1 {
            let episode = self.loops.iter_mut().rev().find(|l| {
                l.site.agent_id == site.agent_id
                    && l.kind == alarm.kind.as_str()
                    && l.first_call == alarm.first
            });
            if let Some(l) = episode {
                l.count = alarm.count;
                l.last_call = alarm.last;
                l.last_log_line = site.line;
                l.calls = alarm.calls;
                l.summary = alarm.summary;
                l.evidence = alarm.evidence;
                l.reminders = alarm.reminders;
                return;
            }
        }
        self.loops.push(LoopFinding {
            site: site.clone(),
            kind: alarm.kind.as_str(),
            count: alarm.count,
            period: alarm.period,
            first_call: alarm.first,
            last_call: alarm.last,
            last_log_line: site.line,
            calls: alarm.calls,
            summary: alarm.summary,
            evidence: alarm.evidence,
            text: alarm.text,
            reminders: alarm.reminders,
            command,
            waste: None,
        });
    }

    pub fn note(&mut self, line: Option<u64>, ordinal: Option<u64>, message: String) {
        self.note_count += 1;
        if self.notes.len() < MAX_ERRORS {
            self.notes.push(Note {
                line,
                ordinal,
                message,
            });
        }
    }

    /// The report as JSON text, keys in declared order.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("a report serializes")
    }
}

fn format_name<S: serde::Serializer>(format: &Format, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(format.as_str())
}

fn action_name<S: serde::Serializer>(action: &FailureAction, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(action.as_str())
}

/// What a caller folding many sessions into one summary needs of each
/// (`--report jsonl` over a collection: the totals, the waste line, the
/// dataset figures), a few hundred bytes instead of the whole report, made
/// on the worker thread with the report (docs/audit-at-scale.md).
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionFigures<'a> {
    pub file: &'a str,
    pub session: u64,
    pub session_id: Option<&'a str>,
    pub model: Option<&'a str>,
    #[serde(serialize_with = "format_name")]
    pub format: Format,
    pub calls: u64,
    pub bytes: u64,
    pub decoded_bytes: u64,
    pub error_count: u64,
    /// Numbers of findings.
    pub reminders: u64,
    pub loops: u64,
    /// Silent failures: calls with at least one rule match ([`SessionReport::silent_failures`]).
    pub silent_failures: u64,
    /// Rule matches: entries of `failures` (a call can match several rules).
    pub rule_matches: u64,
    /// Rule matches by rule id, in order of first appearance.
    #[serde(serialize_with = "ordered_map")]
    pub rules: Vec<(&'a str, u64)>,
    /// Tokens of every listed call that says (null: none does).
    pub tokens: Option<u64>,
    pub waste: Option<&'a WasteSummary>,
}

fn ordered_map<S: serde::Serializer>(pairs: &[(&str, u64)], s: S) -> Result<S::Ok, S::Error> {
    s.collect_map(pairs.iter().map(|(k, v)| (k, v)))
}

impl SessionReport {
    /// This session's [`SessionFigures`] (after [`SessionReport::price`], with its waste).
    pub fn figures(&self) -> SessionFigures<'_> {
        let mut rules: Vec<(&str, u64)> = Vec::new();
        for f in &self.failures {
            match rules.iter_mut().find(|(id, _)| *id == f.rule_id) {
                Some((_, n)) => *n += 1,
                None => rules.push((&f.rule_id, 1)),
            }
        }
        let tokens = self.timeline.calls.iter().fold(None, |n: Option<u64>, c| {
            if c.input_tokens.is_none() && c.output_tokens.is_none() {
                return n;
            }
            Some(n.unwrap_or(0) + c.input_tokens.unwrap_or(0) + c.output_tokens.unwrap_or(0))
        });
        SessionFigures {
            file: &self.file,
            session: self.session,
            session_id: self.session_id.as_deref(),
            model: self.model.as_deref(),
            format: self.format,
            calls: self.calls,
            bytes: self.bytes,
            decoded_bytes: self.decoded_bytes,
            error_count: self.error_count,
            reminders: self.reminders.len() as u64,
            loops: self.loops.len() as u64,
            silent_failures: self.count_silent_failures(),
            rule_matches: self.failures.len() as u64,
            rules,
            tokens,
            waste: self.waste.as_ref(),
        }
    }

    /// Calls with at least one rule match: the one definition of "silent
    /// failures" (the table, `--json`, the HTML pages and the index show it).
    pub fn count_silent_failures(&self) -> u64 {
        let calls: std::collections::HashSet<_> = self
            .failures
            .iter()
            .map(|f| (f.site.agent_id.as_deref(), f.site.ordinal))
            .collect();
        calls.len() as u64
    }

    /// The report as every caller gets it: its counts set and its waste priced.
    pub fn finish(&mut self) {
        self.silent_failures = self.count_silent_failures();
        self.price();
    }

    /// Finish the report, then its JSON and its figures' JSON: all a batch's
    /// caller needs, made where the session was audited.
    pub fn finished_json(mut self) -> (String, String) {
        self.finish();
        let figures = serde_json::to_string(&self.figures()).expect("figures serialize");
        (self.to_json(), figures)
    }
}
