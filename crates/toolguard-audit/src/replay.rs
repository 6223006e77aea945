//! One file's replay through the guard engine: each line read by its
//! format's reader, each paired call observed, each verdict recorded as a
//! finding of the session's report.

use toolguard_core::canonical::canonicalize_arguments;
use toolguard_core::engine::{Call, Engine, Output, Verdict};
use toolguard_core::loops::CallMark;

use crate::auditor::{Auditor, MAX_TIMELINE_CALLS};
use crate::detect::{detect, Format};
use crate::report::{FailureFinding, OutputContext, ReminderFinding, SessionReport, TimelineCall};
use crate::{claude, codex, dsh, otlp, trace};

/// One tool call waiting for, or paired with, its result.
/// Serialized as the first keys of each finding, in this order.
#[derive(Debug, Clone, Default, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct CallSite {
    /// 1-based position of the call in its session (file order).
    pub ordinal: u64,
    /// The format's own id of the call; `None` (null) when it has none.
    pub call_id: Option<String>,
    #[serde(rename = "tool")]
    pub name: String,
    pub agent_id: Option<String>,
    /// 1-based log line of the call.
    #[serde(rename = "logLine")]
    pub line: u64,
    pub seq: Option<u64>,
    pub turn: Option<u64>,
    #[serde(skip)]
    pub arguments_json: String,
    /// When the call ran and what its model turn cost, as far as the log
    /// says; every reader fills what its format has (the timeline and the
    /// waste figures are built from it).
    #[serde(skip)]
    pub cost: CallCost,
    /// Made before the previous call's result came back (parallel calls of
    /// one model turn), as far as the log shows: no loop alarm on it.
    #[serde(skip)]
    pub concurrent: bool,
}

/// What the log says about a call's time and tokens (`None`: it says nothing).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct CallCost {
    /// When the call was made, ms since the Unix epoch.
    pub time: Option<u64>,
    /// When its result came back, ms since the Unix epoch.
    pub end_time: Option<u64>,
    /// Tokens of the model turn that made the call, given on the first call
    /// of that turn only (its other calls carry zero), so sums count each
    /// turn once.
    pub usage: Option<Usage>,
}

/// Token counts of one model turn. `input` is all input billed: uncached
/// plus cache reads and writes (DSH reports them disjoint).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Usage {
    pub input: u64,
    pub output: u64,
}

/// Whether a line's first non-blank byte opens a JSON object.
fn starts_object(bytes: &[u8]) -> bool {
    bytes.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'{')
}

/// State of one file's audit.
pub(crate) struct Run<'a> {
    pub(crate) auditor: &'a mut Auditor,
    pub(crate) format: Format,
    /// The first line no format recognized (reported once, in Auto mode).
    pub(crate) unrecognized: bool,
    /// The file's first line is not JSON (a plain text log): reported once,
    /// and the rest of the file is not read.
    pub(crate) foreign: bool,
    pub(crate) dsh: dsh::DshState,
    pub(crate) claude: claude::ClaudeState,
    pub(crate) codex: codex::CodexState,
    pub(crate) otlp: otlp::OtlpState,
    pub(crate) canonical: String,
    /// Agents with chain state in the shared engine, freed at the end of the file.
    pub(crate) live: Vec<String>,
    /// Sessions read from lines of their own so far (evaluation outputs).
    pub(crate) sessions: u64,
}

impl<'a> Run<'a> {
    pub(crate) fn new(auditor: &'a mut Auditor, format: Format) -> Self {
        auditor.engine(format);
        Self {
            auditor,
            format,
            unrecognized: false,
            foreign: false,
            dsh: dsh::DshState::default(),
            claude: claude::ClaudeState::default(),
            codex: codex::CodexState::default(),
            otlp: otlp::OtlpState::default(),
            canonical: String::new(),
            live: Vec::new(),
            sessions: 0,
        }
    }

    pub(crate) fn engine(&mut self) -> &mut Engine {
        self.auditor.engine(self.format)
    }

    /// The agent of a call: records it in the report's agent list, and as
    /// live so the end of the file frees its state in the shared engine.
    pub(crate) fn note_agent(&mut self, report: &mut SessionReport, agent: &str) {
        if !report.agents.iter().any(|a| a == agent) {
            report.agents.push(agent.to_owned());
        }
        if !self.live.iter().any(|a| a == agent) {
            self.live.push(agent.to_owned());
        }
    }

    /// An agent that ended before the file did (trace `end`).
    pub(crate) fn end_agent(&mut self, agent: &str) {
        self.engine().forget(agent);
        self.live.retain(|a| a != agent);
    }

    /// Whether a line stamped `ms` is before `--since` (and so skipped).
    pub(crate) fn before_since(&self, ms: Option<i64>) -> bool {
        matches!((self.auditor.options.since_ms, ms), (Some(since), Some(ms)) if ms < since)
    }

    /// Read one line; a line that is a whole session (a format of
    /// [`Shape::Values`]) is handed back, for a report of its own.
    pub(crate) fn line(
        &mut self,
        report: &mut SessionReport,
        number: u64,
        bytes: &[u8],
        complete: bool,
    ) -> Option<serde_json::Value> {
        if bytes.iter().all(u8::is_ascii_whitespace) {
            return None;
        }
        if self.format == Format::Dsh
            && complete
            && self.auditor.options.since_ms.is_none()
            && dsh::fast_line(self, report, bytes)
        {
            return None;
        }
        // As the hook reads its input: a lone surrogate escape (a cut string) is U+FFFD, not a bad line.
        let value: serde_json::Value = match toolguard_core::json_text::parse_lenient(bytes) {
            Ok(value) => value,
            Err(e) if !complete => {
                report.error(
                    Some(number),
                    format!(
                        "truncated last line (no newline at the end; the writer was cut off): {e}"
                    ),
                );
                return None;
            }
            // No format recognized yet and the first line is not even the start
            // of a JSON object: not a session log at all (a build log, a text
            // file). One error says so, instead of one parser error per line;
            // a log whose first object is merely corrupt is read on.
            Err(_)
                if self.format == Format::Auto
                    && !self.unrecognized
                    && report.errors.is_empty()
                    && !starts_object(bytes) =>
            {
                self.foreign = true;
                report.error(Some(number), format!("not a JSON-lines session log (line {number} is not JSON), skipped: toolguard audit reads the formats of docs/audit-formats.md"));
                return None;
            }
            Err(e) => {
                report.error(Some(number), format!("malformed JSON: {e}"));
                return None;
            }
        };
        let serde_json::Value::Object(object) = value else {
            report.error(Some(number), "not a JSON object".to_owned());
            return None;
        };
        if self.format == Format::Auto {
            match detect(&object) {
                Some(format) => {
                    self.format = format;
                    self.engine();
                }
                None => {
                    if !self.unrecognized {
                        self.unrecognized = true;
                        report.error(
                            Some(number),
                            "not a line of any known log format (dsh, trace, claude-code, codex, otlp, or a session a line: mini-swe-agent, swe-agent, openhands-v1, openhands-v0, opencode), skipped; --format forces one".to_owned(),
                        );
                    }
                    return None;
                }
            }
        }
        report.format = self.format;
        match self.format {
            Format::Trace => trace::line(self, report, number, &object),
            Format::ClaudeCode => claude::line(self, report, number, &object),
            Format::Codex => codex::line(self, report, number, &object),
            Format::Otlp => otlp::line(self, report, number, &object),
            Format::Dsh | Format::Auto => dsh::line(self, report, number, &object),
            Format::MiniSweAgent
            | Format::SweAgent
            | Format::OpenHandsV1
            | Format::OpenHandsV0
            | Format::OpenCode => return Some(serde_json::Value::Object(object)),
            // Text formats have no lines of JSON; the text reader took them
            // (a Gemini CLI recording is read whole, from its first record).
            Format::ClaudeCodeMd
            | Format::CodexExecLog
            | Format::MiniSweAgentLog
            | Format::GeminiCli => {
                if !self.unrecognized {
                    self.unrecognized = true;
                    report.error(
                        Some(number),
                        format!("a JSON line in a {} text, skipped", self.format.as_str()),
                    );
                }
            }
        }
        None
    }

    /// The guard's verdict on one paired call, recorded as findings.
    pub(crate) fn observe(&mut self, report: &mut SessionReport, site: &CallSite, output: &Output) {
        let call = Call {
            agent_id: site.agent_id.as_deref(),
            name: &site.name,
            arguments_json: &site.arguments_json,
        };
        let before = self.chain_state(site);
        // Loop alarms name calls by the timeline's ordinals (the call's place in the file).
        let mark = CallMark {
            ordinal: Some(site.ordinal),
            time_ms: site.cost.time,
            concurrent: site.concurrent,
        };
        let verdict = self.engine().observe_marked(&call, Some(output), mark);
        self.timeline(report, site, before);
        if let Some(verdict) = verdict {
            self.record(report, site, verdict, Some(output));
        }
    }

    /// Advance only the chain (a result that is not scanned).
    pub(crate) fn advance(&mut self, report: &mut SessionReport, site: &CallSite) {
        let call = Call {
            agent_id: site.agent_id.as_deref(),
            name: &site.name,
            arguments_json: &site.arguments_json,
        };
        let before = self.chain_state(site);
        let reminder = self.engine().advance(&call);
        self.timeline(report, site, before);
        if let Some(reminder) = reminder {
            let verdict = Verdict {
                reminder: Some(reminder),
                failure: None,
                loop_alarm: None,
            };
            self.record(report, site, verdict, None);
        }
    }

    pub(crate) fn chain_state(&mut self, site: &CallSite) -> Option<(u128, u64)> {
        let agent = site.agent_id.as_deref()?;
        self.engine().chain_state(agent)
    }

    /// Whether the call's result must be read: scanned, or loops on (they digest every result).
    pub(crate) fn scans(&mut self, name: &str) -> bool {
        let engine = self.engine();
        engine.scans(name) || engine.loops_on()
    }

    /// List the call the guard just saw. `repeat` is its run length in the
    /// repeat chain; a call the chain did not change (an untracked tool, or
    /// no agent) has none: a tracked call always changes the digest or the count.
    pub(crate) fn timeline(
        &mut self,
        report: &mut SessionReport,
        site: &CallSite,
        before: Option<(u128, u64)>,
    ) {
        let after = self.chain_state(site);
        let repeat = after.filter(|_| after != before).map(|(_, count)| count);
        Self::list(report, site, repeat);
    }

    /// List a call the log never answered: the engine does not see it (no
    /// post-execute hook would have), the timeline does, without a run length.
    pub(crate) fn unanswered(&mut self, report: &mut SessionReport, site: &CallSite) {
        Self::list(report, site, None);
    }

    pub(crate) fn list(report: &mut SessionReport, site: &CallSite, repeat: Option<u64>) {
        if report.timeline.calls.len() >= MAX_TIMELINE_CALLS {
            report.timeline.omitted += 1;
            return;
        }
        report.timeline.calls.push(TimelineCall {
            ordinal: site.ordinal,
            call_id: site.call_id.clone(),
            tool: site.name.clone(),
            agent_id: site.agent_id.clone(),
            log_line: site.line,
            time: site.cost.time,
            end_time: site.cost.end_time,
            input_tokens: site.cost.usage.map(|u| u.input),
            output_tokens: site.cost.usage.map(|u| u.output),
            repeat,
        });
    }

    pub(crate) fn record(
        &mut self,
        report: &mut SessionReport,
        site: &CallSite,
        verdict: Verdict,
        output: Option<&Output>,
    ) {
        let command = command_of(&site.arguments_json);
        if let Some(reminder) = verdict.reminder {
            self.canonical.clear();
            canonicalize_arguments(&site.arguments_json, &mut self.canonical);
            report.reminders.push(ReminderFinding {
                site: site.clone(),
                count: reminder.count,
                summary: reminder.summary.clone(),
                text: reminder.text_lossy(),
                arguments: preview(&self.canonical, self.auditor.preview_chars),
                command: command.clone(),
                waste: None,
            });
        }
        if let Some(alarm) = verdict.loop_alarm {
            report.loop_alarm(site, alarm, command.clone());
        }
        if let Some(failure) = verdict.failure {
            // The notice the model would have got, without the output it wraps.
            let text = match failure.text.find("\nOriginal output:\n") {
                Some(at) => failure.text[..at].to_owned(),
                None => failure.text.clone(),
            };
            let joined = output.map(|o| o.texts.join("\n")).unwrap_or_default();
            for rule in failure.rules {
                let output_context = output_context(&joined, rule.line as u64);
                report.failures.push(FailureFinding {
                    site: site.clone(),
                    verdict: failure.action,
                    summary: failure.summary.clone(),
                    rule_action: rule.action.as_str(),
                    rule_id: rule.id,
                    message: rule.message,
                    line: rule.line as u64,
                    excerpt: rule.excerpt,
                    command: command.clone(),
                    text: text.clone(),
                    output_context,
                    waste: None,
                });
            }
        }
    }

    pub(crate) fn reset(&mut self, agent_id: &str) {
        self.engine().reset(agent_id);
    }

    /// The user said `text` (see [`Engine::note_user_text`]).
    pub(crate) fn note_user_text(&mut self, agent_id: &str, text: &str) {
        self.engine().note_user_text(agent_id, text);
    }

    pub(crate) fn finish(mut self, report: &mut SessionReport) {
        // Results held back for ordering are observed now.
        match self.format {
            Format::Otlp => otlp::flush(&mut self, report),
            Format::ClaudeCode | Format::ClaudeCodeMd => claude::flush(&mut self, report),
            Format::Codex => codex::flush(&mut self, report),
            _ => {}
        }
        let engine = self.auditor.engine(self.format);
        match self.format {
            Format::ClaudeCode | Format::ClaudeCodeMd => self.claude.finish(report),
            Format::Codex => self.codex.finish(report, engine),
            Format::Dsh | Format::Auto => self.dsh.finish(report, engine),
            _ => {}
        }
        for agent in self.live.drain(..) {
            engine.forget(&agent);
        }
    }
}

/// `command` (or `cmd`) of a shell call's arguments: a string, or an argv
/// (Codex `shell`: `["bash", "-lc", "<script>"]` shows the script).
fn command_of(arguments_json: &str) -> Option<String> {
    // Only calls with findings get here, so parsing again is cheap overall.
    let value: serde_json::Value = serde_json::from_str(arguments_json).ok()?;
    ["command", "cmd", "script"]
        .iter()
        .find_map(|key| match value.get(key)? {
            serde_json::Value::String(s) => Some(s.clone()),
            serde_json::Value::Array(argv) => {
                let argv: Vec<&str> = argv.iter().filter_map(|a| a.as_str()).collect();
                match argv.as_slice() {
                    [_, flag, script] if matches!(*flag, "-c" | "-lc") => {
                        Some((*script).to_owned())
                    }
                    _ if !argv.is_empty() => Some(argv.join(" ")),
                    _ => None,
                }
            }
            _ => None,
        })
}

/// An RFC 3339 timestamp (`2025-10-01T12:00:00.123Z`) as ms since the epoch.
pub(crate) fn rfc3339_ms(text: &str) -> Option<i64> {
    let at =
        time::OffsetDateTime::parse(text, &time::format_description::well_known::Rfc3339).ok()?;
    i64::try_from(at.unix_timestamp_nanos() / 1_000_000).ok()
}

/// `text` cut to `max` UTF-16 code units (`argumentsPreviewChars` counts
/// them, as the engine's reminder does), with `…` when cut. A character that
/// would straddle the cut is left out whole: a `String` holds no half pair.
pub(crate) fn preview(text: &str, max: usize) -> String {
    let mut units = 0;
    for (at, c) in text.char_indices() {
        units += c.len_utf16();
        if units > max {
            return format!("{}…", &text[..at]);
        }
    }
    text.to_owned()
}

/// Lines of output shown around a match (each side), and the width each is cut to.
const CONTEXT_LINES: u64 = 2;
const CONTEXT_CHARS: usize = 240;

/// The output lines around 1-based `line`, each cut to [`CONTEXT_CHARS`].
fn output_context(output: &str, line: u64) -> OutputContext {
    let from = line.saturating_sub(CONTEXT_LINES).max(1);
    let lines = output
        .lines()
        .skip(from as usize - 1)
        .take((line + CONTEXT_LINES + 1 - from) as usize)
        .map(|l| preview(l, CONTEXT_CHARS))
        .collect();
    OutputContext { from, lines }
}
