#![deny(clippy::all)]
#![forbid(unsafe_code)]
//! Session-log reading for `toolguard audit` (DSH JSONL, zstd, generic traces).
//!
//! A log is streamed line by line (zstd frames decoded on the fly), each line
//! parsed here in Rust and fed to the same [`Engine`] the plugins use, so a
//! log of any size costs one line of memory plus the engine's fixed state.
//! Bad input never stops an audit: it becomes an [`InputError`] with its line.

mod dsh;
mod report;
mod trace;
pub mod validate;
pub mod zstd;

#[cfg(test)]
mod tests;

use std::cell::Cell;
use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::path::Path;
use std::rc::Rc;

use toolguard_core::canonical::canonicalize_arguments;
use toolguard_core::config::Config;
use toolguard_core::engine::{Call, Engine, Output, Verdict};

pub use report::{
    FailureFinding, InputError, OutputContext, ReminderFinding, SessionReport, Timeline,
    TimelineCall,
};

/// Stored errors per file; the rest are only counted (a binary file would
/// otherwise produce one error per "line").
pub const MAX_ERRORS: usize = 100;

/// Calls listed per session timeline; later calls are only counted
/// (`timeline.omitted`), so a huge log keeps a bounded report.
pub const MAX_TIMELINE_CALLS: usize = 10_000;

/// Progress is reported after at least this many more input bytes.
const PROGRESS_STEP: u64 = 4 << 20;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// Decide per file from its first line: a DSH header (`"type":"session"`) or a trace line.
    Auto,
    Dsh,
    Trace,
}

impl Format {
    pub fn parse(name: &str) -> Option<Self> {
        match name {
            "auto" => Some(Format::Auto),
            "dsh" => Some(Format::Dsh),
            "trace" => Some(Format::Trace),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Format::Auto => "auto",
            Format::Dsh => "dsh",
            Format::Trace => "trace",
        }
    }
}

/// One tool call waiting for, or paired with, its result.
/// Serialized as the first keys of each finding, in this order.
#[derive(Debug, Clone, Default, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct CallSite {
    pub call_id: String,
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

/// Audits logs with one engine; each file starts with fresh chains.
pub struct Auditor {
    engine: Engine,
    preview_chars: usize,
}

impl Auditor {
    pub fn new(config: &Config) -> Result<Self, toolguard_core::Error> {
        Ok(Self {
            engine: Engine::new(config)?,
            preview_chars: config.repeat.arguments_preview_chars,
        })
    }

    /// Audit one file; problems opening or reading it land in the report.
    pub fn audit_path(
        &mut self,
        path: &Path,
        format: Format,
        progress: &mut dyn FnMut(u64, u64),
    ) -> SessionReport {
        let name = path.to_string_lossy().into_owned();
        let file = match File::open(path) {
            Ok(file) => file,
            Err(e) => return SessionReport::unreadable(name, format, e),
        };
        let total = file.metadata().map(|m| m.len()).unwrap_or(0);
        let counted = Rc::new(Cell::new(0u64));
        let reader = Counting {
            inner: file,
            count: counted.clone(),
        };
        let mut next_report = PROGRESS_STEP;
        let mut tick = |_: u64| {
            let done = counted.get();
            if done >= next_report {
                next_report = done + PROGRESS_STEP;
                progress(done, total);
            }
        };
        let mut report = self.audit_reader(name, reader, format, &mut tick);
        report.bytes = counted.get();
        progress(counted.get(), total);
        report
    }

    /// Audit a byte stream (plain or zstd JSONL). `tick` runs after each line.
    pub fn audit_reader<R: Read>(
        &mut self,
        name: String,
        reader: R,
        format: Format,
        tick: &mut dyn FnMut(u64),
    ) -> SessionReport {
        let mut report = SessionReport::new(name, format);
        let mut buffered = BufReader::with_capacity(256 << 10, reader);
        let compressed = match buffered.fill_buf() {
            Ok(head) => head.starts_with(&zstd::MAGIC),
            Err(e) => {
                report.error(None, format!("cannot read: {e}"));
                return report;
            }
        };
        report.compressed = compressed;
        let mut lines: Box<dyn BufRead> = if compressed {
            Box::new(BufReader::with_capacity(
                256 << 10,
                zstd::ZstdFrames::new(buffered),
            ))
        } else {
            Box::new(buffered)
        };
        let mut run = Run::new(self, format);
        let mut line = Vec::with_capacity(4096);
        let mut number = 0u64;
        loop {
            line.clear();
            match lines.read_until(b'\n', &mut line) {
                Ok(0) => break,
                Ok(n) => {
                    number += 1;
                    report.decoded_bytes += n as u64;
                    let complete = line.last() == Some(&b'\n');
                    run.line(&mut report, number, &line, complete);
                    tick(number);
                }
                Err(e) => {
                    report.error(Some(number + 1), format!("cannot read further: {e}"));
                    break;
                }
            }
        }
        report.lines = number;
        run.finish(&mut report);
        report
    }
}

/// State of one file's audit.
struct Run<'a> {
    auditor: &'a mut Auditor,
    format: Format,
    dsh: dsh::DshState,
    trace: trace::TraceState,
    canonical: String,
    /// Calls the guard has seen in this file (the timeline's ordinals).
    seen: u64,
}

impl<'a> Run<'a> {
    fn new(auditor: &'a mut Auditor, format: Format) -> Self {
        Self {
            auditor,
            format,
            dsh: dsh::DshState::default(),
            trace: trace::TraceState::default(),
            canonical: String::new(),
            seen: 0,
        }
    }

    fn line(&mut self, report: &mut SessionReport, number: u64, bytes: &[u8], complete: bool) {
        if bytes.iter().all(u8::is_ascii_whitespace) {
            return;
        }
        if self.format == Format::Dsh && complete && dsh::fast_line(self, report, bytes) {
            return;
        }
        let value: serde_json::Value = match serde_json::from_slice(bytes) {
            Ok(value) => value,
            Err(e) if !complete => {
                report.error(
                    Some(number),
                    format!(
                        "truncated last line (no newline at the end; the writer was cut off): {e}"
                    ),
                );
                return;
            }
            Err(e) => {
                report.error(Some(number), format!("malformed JSON: {e}"));
                return;
            }
        };
        let serde_json::Value::Object(object) = value else {
            report.error(Some(number), "not a JSON object".to_owned());
            return;
        };
        if self.format == Format::Auto {
            self.format = if object.get("type").and_then(|t| t.as_str()) == Some("session") {
                Format::Dsh
            } else if object.contains_key("tool") {
                Format::Trace
            } else {
                Format::Dsh
            };
        }
        report.format = self.format;
        match self.format {
            Format::Trace => trace::line(self, report, number, &object),
            _ => dsh::line(self, report, number, &object),
        }
    }

    /// The guard's verdict on one paired call, recorded as findings.
    fn observe(&mut self, report: &mut SessionReport, site: &CallSite, output: &Output) {
        let call = Call {
            agent_id: site.agent_id.as_deref(),
            name: &site.name,
            arguments_json: &site.arguments_json,
        };
        let before = self.chain_state(site);
        let verdict = self.auditor.engine.observe(&call, Some(output));
        self.timeline(report, site, before);
        if let Some(verdict) = verdict {
            self.record(report, site, verdict, Some(output));
        }
    }

    /// Advance only the chain (a result that is not scanned).
    fn advance(&mut self, report: &mut SessionReport, site: &CallSite) {
        let call = Call {
            agent_id: site.agent_id.as_deref(),
            name: &site.name,
            arguments_json: &site.arguments_json,
        };
        let before = self.chain_state(site);
        let reminder = self.auditor.engine.advance(&call);
        self.timeline(report, site, before);
        if let Some(reminder) = reminder {
            let verdict = Verdict {
                reminder: Some(reminder),
                failure: None,
            };
            self.record(report, site, verdict, None);
        }
    }

    fn chain_state(&self, site: &CallSite) -> Option<(u128, u64)> {
        self.auditor.engine.chain_state(site.agent_id.as_deref()?)
    }

    /// List the call the guard just saw. `repeat` is its run length in the
    /// repeat chain; a call the chain did not change (an untracked tool, or
    /// no agent) has none: a tracked call always changes the digest or the count.
    fn timeline(
        &mut self,
        report: &mut SessionReport,
        site: &CallSite,
        before: Option<(u128, u64)>,
    ) {
        self.seen += 1;
        if report.timeline.calls.len() >= MAX_TIMELINE_CALLS {
            report.timeline.omitted += 1;
            return;
        }
        let after = self.chain_state(site);
        let repeat = after.filter(|_| after != before).map(|(_, count)| count);
        report.timeline.calls.push(TimelineCall {
            ordinal: self.seen,
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

    fn scans(&self, name: &str) -> bool {
        self.auditor.engine.scans(name)
    }

    fn record(
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
            });
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
                });
            }
        }
    }

    fn reset(&mut self, agent_id: &str) {
        self.auditor.engine.reset(agent_id);
    }

    fn finish(mut self, report: &mut SessionReport) {
        match self.format {
            Format::Trace => self.trace.finish(report, &mut self.auditor.engine),
            _ => self.dsh.finish(report, &mut self.auditor.engine),
        }
    }
}

/// `command` (or `cmd`) of a shell call's arguments, when it is a string.
fn command_of(arguments_json: &str) -> Option<String> {
    // Only calls with findings get here, so parsing again is cheap overall.
    let value: serde_json::Value = serde_json::from_str(arguments_json).ok()?;
    ["command", "cmd", "script"]
        .iter()
        .find_map(|key| value.get(key)?.as_str().map(str::to_owned))
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

/// Counts the bytes pulled from the file, for progress.
struct Counting<R> {
    inner: R,
    count: Rc<Cell<u64>>,
}

impl<R: Read> Read for Counting<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.count.set(self.count.get() + n as u64);
        Ok(n)
    }
}
