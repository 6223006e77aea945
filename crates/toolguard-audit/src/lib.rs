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
mod claude_md;
mod codex;
mod codex_log;
mod dsh;
mod lines;
mod mini_log;
mod mini_swe;
mod openhands_llm;
mod openhands_v0;
mod openhands_v1;
mod otlp;
pub mod parallel;
mod parquet;
mod report;
mod session;
mod shell;
mod swe_agent;
mod trace;
pub mod waste;
pub mod zstd;

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_parallel;
#[cfg(test)]
mod tests_readers;
#[cfg(test)]
mod tests_trajectories;
#[cfg(test)]
mod tests_wild;

use std::cell::Cell;
use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::path::Path;
use std::rc::Rc;
use std::sync::Arc;

use toolguard_core::canonical::canonicalize_arguments;
use toolguard_core::config::{Config, LoudFailureConfig};
use toolguard_core::engine::{Call, Engine, Output, Scanner, Verdict};
use toolguard_core::loops::CallMark;

pub use report::{
    FailureFinding, InputError, LoopFinding, Note, OutputContext, ReminderFinding, SessionReport,
    Timeline, TimelineCall,
};
pub use session::{
    detect_path, detect_text, detect_value, read_text, read_value, ReadCall, ReadEvent, ReadResult,
    ReadSession,
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
    /// mini-swe-agent trajectories (`*.traj.json`): tool-calling and text-action forms.
    MiniSweAgent,
    /// Classic SWE-agent trajectories (`*.traj`: `trajectory[]` of action/observation).
    SweAgent,
    /// OpenHands V1 SDK conversations (`history[]` of ActionEvent/ObservationEvent),
    /// one a line in evaluation outputs.
    OpenHandsV1,
    /// OpenHands V0: resolver outputs (`history` of action/observation dicts,
    /// one a line) and event streams (a JSON list of events with `cause`).
    OpenHandsV0,
    /// Claude Code sessions exported to Markdown (`### User|Assistant` + content blocks).
    ClaudeCodeMd,
    /// The human-readable output of `codex exec` (a terminal capture).
    CodexExecLog,
    /// mini-swe-agent's terminal output (a Terminal-Bench tmux capture).
    MiniSweAgentLog,
}

impl Format {
    /// Every format name, in the order the CLI lists them.
    pub const NAMES: &'static [&'static str] = &[
        "auto",
        "dsh",
        "trace",
        "claude-code",
        "codex",
        "otlp",
        "mini-swe-agent",
        "swe-agent",
        "openhands-v1",
        "openhands-v0",
        "claude-code-md",
        "codex-exec-log",
        "mini-swe-agent-log",
    ];

    /// Every format but `Auto`, in [`Format::NAMES`] order.
    const ALL: [Format; 12] = [
        Format::Dsh,
        Format::Trace,
        Format::ClaudeCode,
        Format::Codex,
        Format::Otlp,
        Format::MiniSweAgent,
        Format::SweAgent,
        Format::OpenHandsV1,
        Format::OpenHandsV0,
        Format::ClaudeCodeMd,
        Format::CodexExecLog,
        Format::MiniSweAgentLog,
    ];

    pub fn parse(name: &str) -> Option<Self> {
        if name == "auto" {
            return Some(Format::Auto);
        }
        Self::ALL.into_iter().find(|f| f.as_str() == name)
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Format::Auto => "auto",
            Format::Dsh => "dsh",
            Format::Trace => "trace",
            Format::ClaudeCode => "claude-code",
            Format::Codex => "codex",
            Format::Otlp => "otlp",
            Format::MiniSweAgent => "mini-swe-agent",
            Format::SweAgent => "swe-agent",
            Format::OpenHandsV1 => "openhands-v1",
            Format::OpenHandsV0 => "openhands-v0",
            Format::ClaudeCodeMd => "claude-code-md",
            Format::CodexExecLog => "codex-exec-log",
            Format::MiniSweAgentLog => "mini-swe-agent-log",
        }
    }

    /// How a file of this format is read: line by line, one session per
    /// JSON value (a whole document or a line), or as one text.
    fn shape(self) -> Shape {
        match self {
            Format::MiniSweAgent | Format::SweAgent | Format::OpenHandsV1 | Format::OpenHandsV0 => {
                Shape::Values
            }
            Format::ClaudeCodeMd | Format::CodexExecLog | Format::MiniSweAgentLog => Shape::Text,
            _ => Shape::Lines,
        }
    }
}

/// See [`Format::shape`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Shape {
    Lines,
    Values,
    Text,
}

/// Which reader a file needs, from its first JSON object line; `None`: no
/// known format has lines like it.
fn detect(object: &serde_json::Map<String, serde_json::Value>) -> Option<Format> {
    use serde_json::Value;
    // A whole session on one line (an evaluation output, a one-line trajectory).
    if let Some(format) = session::detect_object(object) {
        return Some(format);
    }
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

/// The UTF-8 byte order mark, skipped at the start of an input.
pub(crate) const UTF8_BOM: &[u8] = b"\xef\xbb\xbf";

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

/// Audits logs; each file starts with fresh chains.
pub struct Auditor {
    config: Config,
    /// The engine of DSH logs and generic traces (the configured shell tools).
    base: Engine,
    /// The engines of formats with shell tools of their own (Claude Code,
    /// Codex, OTLP, the trajectory formats): they also scan those; made on
    /// first use, by [`Format::ALL`] index.
    extra: [Option<Engine>; Format::ALL.len()],
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

    /// A fresh auditor with the same config and limits (one per worker
    /// thread of [`parallel::audit_batch`]).
    pub fn fork(&self) -> Result<Self, toolguard_core::Error> {
        let mut auditor = Self::new(&self.config)?;
        auditor.options = self.options.clone();
        Ok(auditor)
    }

    /// Each format with shell tools of its own gets an engine of its own
    /// (DSH and traces share the base one).
    fn slot(format: Format) -> Option<usize> {
        match format {
            Format::Auto | Format::Dsh | Format::Trace => None,
            _ => Format::ALL.iter().position(|f| *f == format),
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
    /// One report per session: most files hold one, an evaluation output
    /// (one session per line) holds many. See [`Auditor::audit_path_each`].
    pub fn audit_path(
        &mut self,
        path: &Path,
        format: Format,
        progress: &mut dyn FnMut(u64, u64),
    ) -> Vec<SessionReport> {
        let mut reports = Vec::new();
        self.audit_path_each(path, format, progress, &mut |r| reports.push(r));
        reports
    }

    /// Audit one file, handing each session's report to `emit` as it is
    /// done, in file order (at least one report per file).
    pub fn audit_path_each(
        &mut self,
        path: &Path,
        format: Format,
        progress: &mut dyn FnMut(u64, u64),
        emit: &mut dyn FnMut(SessionReport),
    ) {
        let name = path.to_string_lossy().into_owned();
        if matches!(format, Format::Auto | Format::OpenHandsV1)
            && openhands_v1::is_persisted_state(path)
        {
            let report = self.audit_persisted_conversation(name, path);
            progress(report.bytes, report.bytes);
            return emit(report);
        }
        let file = match File::open(path) {
            Ok(file) => file,
            Err(e) => return emit(SessionReport::unreadable(name, format, e)),
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
        // Sessions a line carry their line's bytes; the last report gets the
        // rest of the file, so the reports' bytes add up to the file's.
        let mut held: Option<SessionReport> = None;
        let mut told = 0u64;
        self.audit_reader_each(name, reader, format, &mut tick, &mut |report| {
            if let Some(done) = held.replace(report) {
                told += done.bytes;
                emit(done);
            }
        });
        if let Some(mut report) = held {
            report.bytes = counted.get().saturating_sub(told);
            emit(report);
        }
        progress(counted.get(), total);
    }

    /// An OpenHands SDK conversation folder, named by its `base_state.json`:
    /// its event files, in order, are one session.
    fn audit_persisted_conversation(&mut self, name: String, path: &Path) -> SessionReport {
        let mut report = SessionReport::new(name, Format::OpenHandsV1);
        let read = openhands_v1::persisted_document(path, self.options.max_line_bytes).and_then(
            |(document, bytes)| {
                report.bytes = bytes;
                report.decoded_bytes = bytes;
                openhands_v1::read(&document)
            },
        );
        match read {
            Ok(read) => session::audit_whole_session(self, report, read),
            Err(message) => {
                report.error(None, message);
                report
            }
        }
    }

    /// Audit a byte stream (plain or zstd); one report per session.
    pub fn audit_reader<R: Read>(
        &mut self,
        name: String,
        reader: R,
        format: Format,
        tick: &mut dyn FnMut(u64),
    ) -> Vec<SessionReport> {
        let mut reports = Vec::new();
        self.audit_reader_each(name, reader, format, tick, &mut |r| reports.push(r));
        reports
    }

    /// Audit a byte stream (plain or zstd), handing each session's report
    /// to `emit` in file order. `tick` runs after each line.
    pub fn audit_reader_each<R: Read>(
        &mut self,
        name: String,
        reader: R,
        format: Format,
        tick: &mut dyn FnMut(u64),
        emit: &mut dyn FnMut(SessionReport),
    ) {
        let mut report = SessionReport::new(name, format);
        let mut buffered = BufReader::with_capacity(256 << 10, reader);
        let compressed = match buffered.fill_buf() {
            Ok(head) => head.starts_with(&zstd::MAGIC),
            Err(e) => {
                report.error(None, format!("cannot read: {e}"));
                return emit(report);
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
        // A UTF-8 byte order mark (PowerShell and Windows editors write one)
        // is no part of the log, and JSON parsers refuse it: skip it.
        if matches!(lines.fill_buf(), Ok(head) if head.starts_with(UTF8_BOM)) {
            lines.consume(UTF8_BOM.len());
        }
        // A NUL byte in the first block: a binary file, not a log (as git decides).
        let shape = match lines.fill_buf() {
            Ok(head) if head.contains(&0) => {
                report.error(
                    None,
                    "not a text log (binary data in the first bytes), skipped".to_owned(),
                );
                return emit(report);
            }
            Ok(head) => session::shape_of(format, head),
            Err(e) => {
                report.error(Some(1), format!("cannot read further: {e}"));
                return emit(report);
            }
        };
        if shape != Shape::Lines {
            // A whole document or text: read at once, bounded like a line.
            return session::audit_whole(self, report, &mut *lines, format, shape, tick, emit);
        }
        self.audit_lines(report, &mut *lines, format, tick, emit);
    }

    /// The line-by-line reading of a file (JSONL, plain or decoded zstd).
    fn audit_lines(
        &mut self,
        mut report: SessionReport,
        lines: &mut dyn BufRead,
        format: Format,
        tick: &mut dyn FnMut(u64),
        emit: &mut dyn FnMut(SessionReport),
    ) {
        let limit = self.options.max_line_bytes;
        let mut run = Run::new(self, format);
        let mut line = Vec::with_capacity(4096);
        let mut number = 0u64;
        loop {
            line.clear();
            match lines::read_line(lines, &mut line, limit) {
                Ok(lines::Line::End) => break,
                Ok(lines::Line::Read { bytes, complete }) => {
                    number += 1;
                    report.decoded_bytes += bytes;
                    if let Some(value) = run.line(&mut report, number, &line, complete) {
                        // One session on this line: its own report, its own bytes.
                        report.decoded_bytes -= bytes;
                        run.session_line(&report, number, bytes, &value, emit);
                    }
                    tick(number);
                    if run.foreign {
                        break;
                    }
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
        let sessions = run.sessions;
        run.finish(&mut report);
        // A file of sessions a line has given their reports already; its
        // own is added only to carry what went wrong around them.
        if sessions == 0 || report.error_count > 0 {
            report.session = sessions;
            emit(report);
        }
    }
}

/// Whether a line's first non-blank byte opens a JSON object.
fn starts_object(bytes: &[u8]) -> bool {
    bytes.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'{')
}

/// State of one file's audit.
struct Run<'a> {
    auditor: &'a mut Auditor,
    format: Format,
    /// The first line no format recognized (reported once, in Auto mode).
    unrecognized: bool,
    /// The file's first line is not JSON (a plain text log): reported once,
    /// and the rest of the file is not read.
    foreign: bool,
    dsh: dsh::DshState,
    claude: claude::ClaudeState,
    codex: codex::CodexState,
    otlp: otlp::OtlpState,
    canonical: String,
    /// Agents with chain state in the shared engine, freed at the end of the file.
    live: Vec<String>,
    /// Sessions read from lines of their own so far (evaluation outputs).
    sessions: u64,
}

impl<'a> Run<'a> {
    fn new(auditor: &'a mut Auditor, format: Format) -> Self {
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

    /// Read one line; a line that is a whole session (a format of
    /// [`Shape::Values`]) is handed back, for a report of its own.
    fn line(
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
        let value: serde_json::Value = match serde_json::from_slice(bytes) {
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
                            "not a line of any known log format (dsh, trace, claude-code, codex, otlp, or a session a line: mini-swe-agent, swe-agent, openhands-v1, openhands-v0), skipped; --format forces one".to_owned(),
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
            Format::MiniSweAgent | Format::SweAgent | Format::OpenHandsV1 | Format::OpenHandsV0 => {
                return Some(serde_json::Value::Object(object))
            }
            // Text formats have no lines of JSON; the text reader took them.
            Format::ClaudeCodeMd | Format::CodexExecLog | Format::MiniSweAgentLog => {
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
    fn observe(&mut self, report: &mut SessionReport, site: &CallSite, output: &Output) {
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
        let after = self.chain_state(site);
        let repeat = after.filter(|_| after != before).map(|(_, count)| count);
        Self::list(report, site, repeat);
    }

    /// List a call the log never answered: the engine does not see it (no
    /// post-execute hook would have), the timeline does, without a run length.
    fn unanswered(&mut self, report: &mut SessionReport, site: &CallSite) {
        Self::list(report, site, None);
    }

    fn list(report: &mut SessionReport, site: &CallSite, repeat: Option<u64>) {
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

    fn reset(&mut self, agent_id: &str) {
        self.engine().reset(agent_id);
    }

    /// The user said `text` (see [`Engine::note_user_text`]).
    fn note_user_text(&mut self, agent_id: &str, text: &str) {
        self.engine().note_user_text(agent_id, text);
    }

    fn finish(mut self, report: &mut SessionReport) {
        // Results held back for ordering are observed now.
        match self.format {
            Format::Otlp => otlp::flush(&mut self, report),
            Format::ClaudeCode | Format::ClaudeCodeMd => claude::flush(&mut self, report),
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
