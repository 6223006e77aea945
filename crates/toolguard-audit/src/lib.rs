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

pub use report::{FailureFinding, InputError, LoopFinding, ReminderFinding, SessionReport};

/// Stored errors per file; the rest are only counted (a binary file would
/// otherwise produce one error per "line").
pub const MAX_ERRORS: usize = 100;

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
#[derive(Debug, Clone, serde::Serialize)]
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
}

impl<'a> Run<'a> {
    fn new(auditor: &'a mut Auditor, format: Format) -> Self {
        Self {
            auditor,
            format,
            dsh: dsh::DshState::default(),
            trace: trace::TraceState::default(),
            canonical: String::new(),
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
        if let Some(verdict) = self.auditor.engine.observe(&call, Some(output)) {
            self.record(report, site, verdict);
        }
    }

    /// Advance only the chain (a result that is not scanned).
    fn advance(&mut self, report: &mut SessionReport, site: &CallSite) {
        let call = Call {
            agent_id: site.agent_id.as_deref(),
            name: &site.name,
            arguments_json: &site.arguments_json,
        };
        if let Some(reminder) = self.auditor.engine.advance(&call) {
            let verdict = Verdict {
                reminder: Some(reminder),
                failure: None,
                loop_alarm: None,
            };
            self.record(report, site, verdict);
        }
    }

    /// Whether the call's result must be read: scanned, or loops on (they digest every result).
    fn scans(&self, name: &str) -> bool {
        self.auditor.engine.scans(name) || self.auditor.engine.loops_on()
    }

    fn record(&mut self, report: &mut SessionReport, site: &CallSite, verdict: Verdict) {
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
        if let Some(alarm) = verdict.loop_alarm {
            report.loops.push(LoopFinding {
                site: site.clone(),
                kind: alarm.kind.as_str(),
                count: alarm.count,
                period: alarm.period,
                calls: alarm.calls,
                summary: alarm.summary,
                evidence: alarm.evidence,
                text: alarm.text,
                reminders: alarm.reminders,
                command: command.clone(),
            });
        }
        if let Some(failure) = verdict.failure {
            for rule in failure.rules {
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

/// `text` cut to `max` characters, with `…` when cut.
pub(crate) fn preview(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text.to_owned(),
    }
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
