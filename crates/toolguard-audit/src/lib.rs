#![deny(clippy::all)]
#![forbid(unsafe_code)]
//! Session-log reading for `toolguard audit`: DSH JSONL, Claude Code
//! transcripts, Codex rollouts, OTLP/JSON traces and the generic trace
//! format, plain or zstd.
//!
//! A log is streamed line by line (zstd frames decoded on the fly), each line
//! parsed here in Rust and fed to the same [`Engine`] the plugins use, so a
//! log of any size costs at most one line of memory ([`AuditOptions::max_line_bytes`])
//! plus the engine's fixed state.
//! Bad input never stops an audit: it becomes an [`InputError`] with its line.

mod claude;
mod codex;
mod dsh;
mod lines;
mod otlp;
mod report;
mod shell;
mod trace;
pub mod validate;
pub mod zstd;

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_readers;

use std::cell::Cell;
use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::path::Path;
use std::rc::Rc;
use std::sync::Arc;

use toolguard_core::canonical::canonicalize_arguments;
use toolguard_core::config::{Config, LoudFailureConfig};
use toolguard_core::engine::{Call, Engine, Output, Scanner, Verdict};

pub use report::{
    FailureFinding, InputError, LoopFinding, OutputContext, ReminderFinding, SessionReport,
    Timeline, TimelineCall,
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
    /// Decide per file from its first JSON line (see [`detect`]).
    Auto,
    Dsh,
    Trace,
    /// Claude Code transcripts (`~/.claude/projects/<slug>/<session>.jsonl`).
    ClaudeCode,
    /// Codex rollouts (`~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`).
    Codex,
    /// OTLP/JSON trace export requests, one a line (the collector's file exporter).
    Otlp,
}

impl Format {
    /// Every format name, in the order the CLI lists them.
    pub const NAMES: &'static [&'static str] =
        &["auto", "dsh", "trace", "claude-code", "codex", "otlp"];

    pub fn parse(name: &str) -> Option<Self> {
        match name {
            "auto" => Some(Format::Auto),
            "dsh" => Some(Format::Dsh),
            "trace" => Some(Format::Trace),
            "claude-code" => Some(Format::ClaudeCode),
            "codex" => Some(Format::Codex),
            "otlp" => Some(Format::Otlp),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Format::Auto => "auto",
            Format::Dsh => "dsh",
            Format::Trace => "trace",
            Format::ClaudeCode => "claude-code",
            Format::Codex => "codex",
            Format::Otlp => "otlp",
        }
    }
}

/// Which reader a file needs, from its first JSON object line; `None`: no
/// known format has lines like it.
fn detect(object: &serde_json::Map<String, serde_json::Value>) -> Option<Format> {
    use serde_json::Value;
    let kind = object.get("type").and_then(Value::as_str);
    if kind == Some("session") {
        return Some(Format::Dsh);
    }
    if object.contains_key("resourceSpans") {
        return Some(Format::Otlp);
    }
    if object.contains_key("payload") && object.contains_key("timestamp") {
        return Some(Format::Codex);
    }
    if ["uuid", "sessionId", "parentUuid", "leafUuid"]
        .iter()
        .any(|k| object.contains_key(*k))
        || matches!(
            kind,
            Some("summary" | "file-history-snapshot" | "queue-operation")
        )
    {
        return Some(Format::ClaudeCode);
    }
    if object.contains_key("tool")
        || object.contains_key("agentId")
        || matches!(kind, Some("user" | "end" | "call"))
    {
        return Some(Format::Trace);
    }
    // A DSH log whose header line is missing still has its event shape.
    if kind.is_some() && object.contains_key("data") {
        return Some(Format::Dsh);
    }
    None
}

/// Limits of one audit, set by the caller (the CLI's flags).
#[derive(Debug, Clone, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct AuditOptions {
    /// A longer line is reported and skipped; memory stays bounded by it.
    #[serde(default = "default_max_line_bytes")]
    pub max_line_bytes: usize,
    /// Lines stamped before this time (ms since the epoch) are skipped.
    #[serde(default)]
    pub since_ms: Option<i64>,
}

/// 256 MiB: far above any real line, far below what would exhaust memory.
pub const DEFAULT_MAX_LINE_BYTES: usize = 256 << 20;

fn default_max_line_bytes() -> usize {
    DEFAULT_MAX_LINE_BYTES
}

impl Default for AuditOptions {
    fn default() -> Self {
        Self {
            max_line_bytes: DEFAULT_MAX_LINE_BYTES,
            since_ms: None,
        }
    }
}

impl AuditOptions {
    /// From the JSON text the N-API layer passes (`{maxLineBytes?, sinceMs?}`).
    pub fn from_json(text: &str) -> Result<Self, String> {
        let options: Self =
            serde_json::from_str(text).map_err(|e| format!("audit options: {e}"))?;
        if options.max_line_bytes == 0 {
            return Err("audit options: maxLineBytes must be at least 1".to_owned());
        }
        Ok(options)
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

/// Audits logs; each file starts with fresh chains.
pub struct Auditor {
    config: Config,
    /// The engine of DSH logs and generic traces (the configured shell tools).
    base: Engine,
    /// Claude Code, Codex and OTLP engines: they also scan their formats'
    /// own shell tools; made on first use.
    extra: [Option<Engine>; 3],
    preview_chars: usize,
    options: AuditOptions,
}

impl Auditor {
    pub fn new(config: &Config) -> Result<Self, toolguard_core::Error> {
        Ok(Self {
            config: config.clone(),
            base: Engine::new(config)?,
            extra: Default::default(),
            preview_chars: config.repeat.arguments_preview_chars,
            options: AuditOptions::default(),
        })
    }

    pub fn set_options(&mut self, options: AuditOptions) {
        self.options = options;
    }

    fn slot(format: Format) -> Option<usize> {
        match format {
            Format::ClaudeCode => Some(0),
            Format::Codex => Some(1),
            Format::Otlp => Some(2),
            Format::Auto | Format::Dsh | Format::Trace => None,
        }
    }

    fn engine(&mut self, format: Format) -> &mut Engine {
        let Some(slot) = Self::slot(format) else {
            return &mut self.base;
        };
        let (config, base) = (&self.config, &self.base);
        self.extra[slot].get_or_insert_with(|| {
            // Every format's shell tools are in the core's one default list.
            let loud: LoudFailureConfig = config.loud_failure.clone();
            // The rules compiled once already (in `new`), so this cannot fail;
            // were it to, the base scanner still guards.
            let scanner = Scanner::new(&loud).map_or_else(|_| base.scanner(), Arc::new);
            let mut engine = Engine::with_scanner(&config.repeat, scanner);
            engine.set_loops(config.loops.as_ref());
            engine
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
        // A NUL byte in the first block: a binary file, not a log (as git decides).
        match lines.fill_buf() {
            Ok(head) if head.contains(&0) => {
                report.error(
                    None,
                    "not a text log (binary data in the first bytes), skipped".to_owned(),
                );
                return report;
            }
            Ok(_) => {}
            Err(e) => {
                report.error(Some(1), format!("cannot read further: {e}"));
                return report;
            }
        }
        let limit = self.options.max_line_bytes;
        let mut run = Run::new(self, format);
        let mut line = Vec::with_capacity(4096);
        let mut number = 0u64;
        loop {
            line.clear();
            match lines::read_line(&mut *lines, &mut line, limit) {
                Ok(lines::Line::End) => break,
                Ok(lines::Line::Read { bytes, complete }) => {
                    number += 1;
                    report.decoded_bytes += bytes;
                    run.line(&mut report, number, &line, complete);
                    tick(number);
                }
                Ok(lines::Line::TooLong { bytes }) => {
                    number += 1;
                    report.decoded_bytes += bytes;
                    report.error(
                        Some(number),
                        format!(
                            "line of {bytes} bytes is longer than the limit of {limit} bytes (--max-line-bytes), skipped"
                        ),
                    );
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
    /// The first line no format recognized (reported once, in Auto mode).
    unrecognized: bool,
    dsh: dsh::DshState,
    claude: claude::ClaudeState,
    codex: codex::CodexState,
    otlp: otlp::OtlpState,
    canonical: String,
    /// Calls the guard has seen in this file (the timeline's ordinals).
    seen: u64,
    /// Agents with chain state in the shared engine, freed at the end of the file.
    live: Vec<String>,
}

impl<'a> Run<'a> {
    fn new(auditor: &'a mut Auditor, format: Format) -> Self {
        auditor.engine(format);
        Self {
            auditor,
            format,
            unrecognized: false,
            dsh: dsh::DshState::default(),
            claude: claude::ClaudeState::default(),
            codex: codex::CodexState::default(),
            otlp: otlp::OtlpState::default(),
            canonical: String::new(),
            seen: 0,
            live: Vec::new(),
        }
    }

    fn engine(&mut self) -> &mut Engine {
        self.auditor.engine(self.format)
    }

    /// The agent of a call: records it in the report's agent list, and as
    /// live so the end of the file frees its state in the shared engine.
    fn note_agent(&mut self, report: &mut SessionReport, agent: &str) {
        if !report.agents.iter().any(|a| a == agent) {
            report.agents.push(agent.to_owned());
        }
        if !self.live.iter().any(|a| a == agent) {
            self.live.push(agent.to_owned());
        }
    }

    /// An agent that ended before the file did (trace `end`).
    fn end_agent(&mut self, agent: &str) {
        self.engine().forget(agent);
        self.live.retain(|a| a != agent);
    }

    /// Whether a line stamped `ms` is before `--since` (and so skipped).
    fn before_since(&self, ms: Option<i64>) -> bool {
        matches!((self.auditor.options.since_ms, ms), (Some(since), Some(ms)) if ms < since)
    }

    fn line(&mut self, report: &mut SessionReport, number: u64, bytes: &[u8], complete: bool) {
        if bytes.iter().all(u8::is_ascii_whitespace) {
            return;
        }
        if self.format == Format::Dsh
            && complete
            && self.auditor.options.since_ms.is_none()
            && dsh::fast_line(self, report, bytes)
        {
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
                            "not a line of any known log format (dsh, trace, claude-code, codex, otlp), skipped; --format forces one".to_owned(),
                        );
                    }
                    return;
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
        let verdict = self.engine().observe(&call, Some(output));
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

    fn chain_state(&mut self, site: &CallSite) -> Option<(u128, u64)> {
        let agent = site.agent_id.as_deref()?;
        self.engine().chain_state(agent)
    }

    /// Whether the call's result must be read: scanned, or loops on (they digest every result).
    fn scans(&mut self, name: &str) -> bool {
        let engine = self.engine();
        engine.scans(name) || engine.loops_on()
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
        self.engine().reset(agent_id);
    }

    fn finish(mut self, report: &mut SessionReport) {
        // Results held back for ordering are observed now.
        match self.format {
            Format::Otlp => otlp::flush(&mut self, report),
            Format::ClaudeCode => claude::flush(&mut self, report),
            _ => {}
        }
        let engine = self.auditor.engine(self.format);
        match self.format {
            Format::ClaudeCode => self.claude.finish(report),
            Format::Codex => self.codex.finish(report, engine),
            Format::Dsh | Format::Auto => self.dsh.finish(report, engine),
            Format::Trace | Format::Otlp => {}
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
