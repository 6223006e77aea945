//! Formats that hold whole sessions rather than an event stream: a
//! trajectory document (mini-swe-agent, SWE-agent, an OpenHands V0 event
//! list), one session per line (OpenHands evaluation outputs), or a terminal
//! capture (`codex exec`, mini-swe-agent's log). Each reader turns one
//! session into a [`ReadSession`] — its calls in order with their results,
//! and the user messages between them — which [`Auditor::audit_session`]
//! replays through the engine. A Parquet row holding one such session goes
//! through the same two steps ([`read_value`], then `audit_session`).

use std::io::{self, BufRead, BufReader, Cursor, Read};
use std::path::Path;

use serde_json::{Map, Value};

use super::auditor::{Auditor, UTF8_BOM};
use super::detect::{detect, Format, Shape};
use super::replay::{rfc3339_ms, CallCost, CallSite, Run, Usage};
use super::report::Note;
use super::report::SessionReport;
use toolguard_core::engine::Output;

/// One session as a reader found it, before the guard sees it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ReadSession {
    /// The run's own id (instance id, conversation id), when the file says.
    pub session_id: Option<String>,
    /// The model that drove the run, when the file says.
    pub model: Option<String>,
    pub cwd: Option<String>,
    /// Whether the format records exit codes; `false` (classic SWE-agent):
    /// failures are read from output text only, and the report says so.
    pub exit_codes: bool,
    pub events: Vec<ReadEvent>,
    /// What the reader could not pair or place (an observation without its
    /// action, an action without its observation…): reported, not dropped.
    pub notes: Vec<Note>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum ReadEvent {
    /// A human or user message in the middle of the run: chains restart, as
    /// after a user prompt. `line`: 1-based line in the file, when known.
    Prompt {
        line: Option<u64>,
    },
    /// What the user said (the task, a later message): the errors it quotes
    /// are the reported bug (core `shell::intent`); restarts nothing.
    UserText(String),
    Call(ReadCall),
}

/// One tool call, in the order the model made it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ReadCall {
    /// The format's own id of the call; `None` when it has none.
    pub call_id: Option<String>,
    pub tool: String,
    /// The call's arguments as JSON text (`{"command": …}` for a shell command).
    pub arguments_json: String,
    /// 1-based line in the file where the call is, when known (a JSON
    /// document gives the line its session starts on).
    pub line: Option<u64>,
    /// When the call was made / answered, ms since the epoch.
    pub time: Option<u64>,
    pub end_time: Option<u64>,
    /// Input and output tokens of the model turn that made the call (on
    /// its first call only).
    pub usage: Option<(u64, u64)>,
    /// `None`: the log has no result for it.
    pub result: Option<ReadResult>,
    /// Made before the previous call's result came back (one of several
    /// actions of one model response): no loop alarm on it.
    pub concurrent: bool,
}

/// A call's result as the engine reads it: the output with the DSH exit
/// marker (`[exit code: N]`) for a non-zero exit, as every reader shows it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ReadResult {
    pub text: String,
    /// The tool itself failed (not a command that exited non-zero).
    pub is_error: bool,
}

impl ReadSession {
    pub(crate) fn note(&mut self, line: Option<u64>, ordinal: Option<u64>, message: String) {
        self.notes.push(Note {
            line,
            ordinal,
            message,
        });
    }

    /// Calls so far (the ordinal the next call gets is this plus one).
    pub(crate) fn calls(&self) -> u64 {
        self.events
            .iter()
            .filter(|e| matches!(e, ReadEvent::Call(_)))
            .count() as u64
    }
}

/// Which format a whole-session JSON value is in (a trajectory document,
/// an evaluation output's line, a Parquet row); `None`: none known.
pub fn detect_value(value: &Value) -> Option<Format> {
    match value {
        Value::Object(object) => detect_object(object),
        Value::Array(events) => openhands_v0::is_event_list(events).then_some(Format::OpenHandsV0),
        _ => None,
    }
}

/// [`detect_value`] of an object (also the first check of a JSONL line).
pub(crate) fn detect_object(object: &Map<String, Value>) -> Option<Format> {
    if opencode::looks_like(object) {
        return Some(Format::OpenCode);
    }
    // The older Gemini CLI document (its JSONL header has no `messages`).
    if gemini::looks_like(object) && object.get("messages").is_some_and(Value::is_array) {
        return Some(Format::GeminiCli);
    }
    if let Some(Value::Array(messages)) = object.get("messages") {
        if object.contains_key("trajectory_format") || mini_swe::looks_like(messages) {
            return Some(Format::MiniSweAgent);
        }
    }
    // An OpenHands V0 run's LLM completion log (its conversation so far).
    if openhands_llm::looks_like(object) {
        return Some(Format::OpenHandsV0);
    }
    if let Some(Value::Array(steps)) = object.get("trajectory") {
        if steps.iter().all(|s| s.get("action").is_some()) {
            return Some(Format::SweAgent);
        }
    }
    if let Some(Value::Array(history)) = object.get("history") {
        if openhands_v1::looks_like(history) {
            return Some(Format::OpenHandsV1);
        }
        if openhands_v0::looks_like(history) {
            return Some(Format::OpenHandsV0);
        }
    }
    None
}

/// Which text format a capture is in, from its text; `None`: none known.
pub fn detect_text(text: &str) -> Option<Format> {
    if gemini_header(text.as_bytes()) {
        Some(Format::GeminiCli)
    } else if claude_md::looks_like(text) {
        Some(Format::ClaudeCodeMd)
    } else if codex_log::looks_like(text) {
        Some(Format::CodexExecLog)
    } else if mini_log::looks_like(text) {
        Some(Format::MiniSweAgentLog)
    } else {
        None
    }
}

/// One session of a JSON format. `Err`: the value is not that format's
/// session (what is missing, for the report).
pub fn read_value(format: Format, value: &Value) -> Result<ReadSession, String> {
    match format {
        Format::MiniSweAgent => mini_swe::read(value),
        Format::SweAgent => swe_agent::read(value),
        Format::OpenHandsV1 => openhands_v1::read(value),
        Format::OpenHandsV0 => openhands_v0::read(value),
        Format::OpenCode => opencode::read(value),
        Format::GeminiCli => gemini::read(value),
        Format::Auto => match detect_value(value) {
            Some(found) => read_value(found, value),
            None => Err(
                "not a session of any known trajectory format (mini-swe-agent, swe-agent, openhands-v1, openhands-v0, opencode, gemini-cli)"
                    .to_owned(),
            ),
        },
        other => Err(format!(
            "{} is not read from one JSON value",
            other.as_str()
        )),
    }
}

/// One session of a text format (a terminal capture). `Err`: not that format.
pub fn read_text(format: Format, text: &str) -> Result<ReadSession, String> {
    match format {
        Format::CodexExecLog => codex_log::read(text),
        Format::MiniSweAgentLog => mini_log::read(text),
        // The JSONL recording, or the older whole document.
        Format::GeminiCli => match serde_json::from_str::<Value>(text) {
            Ok(document @ Value::Object(_)) => gemini::read(&document),
            _ => gemini::read(&gemini::fold(text)?),
        },
        Format::Auto => match detect_text(text) {
            Some(Format::ClaudeCodeMd) | None => Err(
                "not a capture of any known terminal format (codex-exec-log, mini-swe-agent-log, gemini-cli)"
                    .to_owned(),
            ),
            Some(found) => read_text(found, text),
        },
        other => Err(format!("{} is not read as one text", other.as_str())),
    }
}

use super::{
    claude_md, codex_log, gemini, mini_log, mini_swe, opencode, openhands_llm, openhands_v0,
    openhands_v1, swe_agent,
};

/// Whether the first non-blank line of `head` is a Gemini CLI recording's
/// first record (`sessionId` and `projectHash`, no `messages`): the file is
/// read whole, not a line at a time.
fn gemini_header(head: &[u8]) -> bool {
    head.split(|b| *b == b'\n')
        .find(|l| !l.iter().all(u8::is_ascii_whitespace))
        .and_then(|l| serde_json::from_slice::<Map<String, Value>>(l).ok())
        .is_some_and(|o| gemini::looks_like(&o) && !o.contains_key("messages"))
}

/// Replay a read session through the engine: calls in order, each with its
/// result; a user message restarts the chains.
pub(crate) fn replay(run: &mut Run, report: &mut SessionReport, read: &ReadSession) {
    if report.session_id.is_none() {
        report.session_id = read.session_id.clone();
    }
    report.model = read.model.clone();
    if report.cwd.is_none() {
        report.cwd = read.cwd.clone();
    }
    let agent = report
        .session_id
        .clone()
        .unwrap_or_else(|| format!("{}#{}", report.file, report.session));
    run.note_agent(report, &agent);
    if !read.exit_codes {
        report.note(
            None,
            None,
            format!(
                "{} records no exit codes: failures are read from the output text only",
                report.format.as_str()
            ),
        );
    }
    for note in &read.notes {
        report.note(note.line, note.ordinal, note.message.clone());
    }
    let mut prompts = 0u64;
    for event in &read.events {
        let call = match event {
            ReadEvent::Prompt { .. } => {
                prompts += 1;
                run.reset(&agent);
                continue;
            }
            ReadEvent::UserText(text) => {
                run.note_user_text(&agent, text);
                continue;
            }
            ReadEvent::Call(call) => call,
        };
        report.calls += 1;
        let site = CallSite {
            ordinal: report.calls,
            call_id: call.call_id.clone(),
            name: call.tool.clone(),
            agent_id: Some(agent.clone()),
            line: call.line.unwrap_or(0),
            seq: None,
            turn: Some(prompts),
            arguments_json: call.arguments_json.clone(),
            cost: CallCost {
                time: call.time,
                end_time: call.end_time,
                usage: call.usage.map(|(input, output)| Usage { input, output }),
            },
            concurrent: call.concurrent,
        };
        match &call.result {
            Some(result) if run.scans(&site.name) => {
                let output = Output {
                    is_error: result.is_error,
                    texts: vec![&result.text],
                    value_json: None,
                    exit_statuses: None,
                    status_unrecorded: !read.exit_codes,
                };
                run.observe(report, &site, &output);
            }
            Some(_) => run.advance(report, &site),
            None => {
                // Never answered: no post-execute hook would have seen it, so
                // the chains do not either; listed, counted and noted.
                report.unanswered += 1;
                report.note(
                    call.line,
                    Some(site.ordinal),
                    format!(
                        "call {} ({}{}) has no result in the log",
                        site.ordinal,
                        site.name,
                        call.call_id
                            .as_deref()
                            .map(|id| format!(", {id}"))
                            .unwrap_or_default()
                    ),
                );
                run.unanswered(report, &site);
            }
        }
    }
}

/// Seconds since the epoch (a float, as Python's `time.time()` writes) as ms.
pub(crate) fn epoch_seconds_ms(value: Option<&Value>) -> Option<u64> {
    let seconds = value?.as_f64()?;
    (seconds.is_finite() && seconds >= 0.0).then_some((seconds * 1000.0) as u64)
}

/// A naive or zoned ISO timestamp (`2025-10-30T03:50:30.915175`, taken as
/// UTC when it has no offset) as ms since the epoch.
pub(crate) fn iso_ms(value: Option<&Value>) -> Option<u64> {
    let text = value?.as_str()?;
    let ms = rfc3339_ms(text).or_else(|| rfc3339_ms(&format!("{text}Z")))?;
    u64::try_from(ms).ok()
}

/// A chat message's `content`: a string, or the `text` parts of a content
/// list joined with newlines; `None` for any other shape. The OpenAI-style
/// shape mini-swe-agent, SWE-agent and OpenHands all write.
pub(crate) fn message_text(content: Option<&Value>) -> Option<String> {
    match content? {
        Value::String(text) => Some(text.clone()),
        Value::Array(parts) => Some(
            parts
                .iter()
                .filter_map(|p| p.get("text").and_then(Value::as_str))
                .collect::<Vec<_>>()
                .join("\n"),
        ),
        _ => None,
    }
}

/// `{"command": <text>}` as JSON text: a shell call's arguments.
pub(crate) fn command_arguments(command: &str) -> String {
    serde_json::json!({ "command": command }).to_string()
}

/// How a file is read, from its first bytes: a JSON document over several
/// lines (or a JSON list) is one session; JSON on its first line is a
/// JSONL file; anything else is a text capture (or, in `auto`, lines that
/// will be reported as no known format).
pub(crate) fn shape_of(format: Format, head: &[u8]) -> Shape {
    let Some(start) = head.iter().position(|b| !b.is_ascii_whitespace()) else {
        return Shape::Lines;
    };
    let rest = &head[start..];
    let document = match rest[0] {
        // An array document, unless its first line is a complete value with
        // text after it (`[12:00] compiling…`: a plain text log).
        b'[' => {
            let line = &rest[..memchr::memchr(b'\n', rest).unwrap_or(rest.len())];
            let mut values =
                serde_json::Deserializer::from_slice(line).into_iter::<serde::de::IgnoredAny>();
            match values.next() {
                Some(Ok(_)) => line[values.byte_offset()..]
                    .iter()
                    .all(u8::is_ascii_whitespace),
                Some(Err(e)) => e.is_eof(),
                None => true,
            }
        }
        // A first line that is not JSON by itself: a pretty-printed document,
        // unless the next line is (JSON lines whose first line was cut off).
        b'{' => memchr::memchr(b'\n', rest).is_some_and(|end| {
            let whole = |l: &[u8]| serde_json::from_slice::<serde::de::IgnoredAny>(l).is_ok();
            let next = rest[end + 1..]
                .split(|b| *b == b'\n')
                .find(|l| !l.iter().all(u8::is_ascii_whitespace));
            !whole(&rest[..end]) && !next.is_some_and(whole)
        }),
        _ => false,
    };
    if format == Format::Auto && rest[0] == b'{' && gemini_header(rest) {
        return Shape::Text;
    }
    match format.shape() {
        Shape::Lines if format != Format::Auto => Shape::Lines,
        Shape::Text => Shape::Text,
        _ if document => Shape::Values,
        _ if format == Format::Auto && !matches!(rest[0], b'{' | b'[') => Shape::Text,
        _ => Shape::Lines,
    }
}

/// 1-based lines in `bytes` (a last line without a newline counts).
fn count_lines(bytes: &[u8]) -> u64 {
    let newlines = memchr::memchr_iter(b'\n', bytes).count() as u64;
    newlines + u64::from(!bytes.is_empty() && !bytes.ends_with(b"\n"))
}

/// Read a whole document or text (bounded by `--max-line-bytes`, as a line
/// is) and audit the session in it.
pub(crate) fn audit_whole(
    auditor: &mut Auditor,
    mut report: SessionReport,
    lines: &mut dyn BufRead,
    format: Format,
    shape: Shape,
    tick: &mut dyn FnMut(u64),
    emit: &mut dyn FnMut(SessionReport),
) {
    let limit = auditor.options.max_line_bytes;
    let mut buf = Vec::new();
    if let Err(e) = (&mut *lines).take(limit as u64 + 1).read_to_end(&mut buf) {
        report.error(None, format!("cannot read: {e}"));
        return emit(report);
    }
    if buf.len() > limit {
        if format == Format::Auto && shape == Shape::Text {
            // Not a capture this size: read it as lines (each reported).
            let mut rest = BufReader::new(Cursor::new(buf).chain(lines));
            return auditor.audit_lines(report, &mut rest, format, tick, emit);
        }
        let mut sink = io::sink();
        let more = io::copy(lines, &mut sink).unwrap_or(0);
        report.decoded_bytes = buf.len() as u64 + more;
        report.error(
            None,
            format!(
                "a {} of {} bytes is longer than the limit of {limit} bytes (--max-line-bytes), skipped",
                if shape == Shape::Text { "text" } else { "JSON document" },
                report.decoded_bytes
            ),
        );
        return emit(report);
    }
    report.decoded_bytes = buf.len() as u64;
    report.lines = count_lines(&buf);
    tick(report.lines);
    if shape == Shape::Text {
        let text = String::from_utf8_lossy(&buf);
        let found = match format {
            Format::Auto => detect_text(&text),
            other => Some(other),
        };
        let Some(found) = found else {
            // No capture of a known tool: lines, each told why it is not read.
            report.decoded_bytes = 0;
            report.lines = 0;
            let mut rest = Cursor::new(buf);
            return auditor.audit_lines(report, &mut rest, format, tick, emit);
        };
        report.format = found;
        if found == Format::ClaudeCodeMd {
            let mut run = Run::new(auditor, found);
            claude_md::audit(&mut run, &mut report, &text);
            run.finish(&mut report);
            return emit(report);
        }
        match read_text(found, &text) {
            Ok(read) => report = audit_read(auditor, report, &read),
            Err(message) => report.error(None, message),
        }
        return emit(report);
    }
    let value: Value = match toolguard_core::json_text::parse_lenient(&buf) {
        Ok(value) => value,
        Err(e) => {
            report.error(Some(e.line() as u64), format!("malformed JSON: {e}"));
            return emit(report);
        }
    };
    let found = match format {
        Format::Auto => detect_value(&value),
        other => Some(other),
    };
    let Some(found) = found else {
        report.error(
            None,
            "not a session of any known trajectory format (mini-swe-agent, swe-agent, openhands-v1, openhands-v0, opencode, gemini-cli); --format forces one".to_owned(),
        );
        return emit(report);
    };
    report.format = found;
    match read_value(found, &value) {
        Ok(read) => report = audit_read(auditor, report, &at_line(read, 1)),
        Err(message) => report.error(None, message),
    }
    emit(report)
}

/// A session read whole from somewhere other than one document (an
/// OpenHands conversation folder): audited as [`audit_whole`] audits one.
pub(crate) fn audit_whole_session(
    auditor: &mut Auditor,
    report: SessionReport,
    read: ReadSession,
) -> SessionReport {
    audit_read(auditor, report, &at_line(read, 1))
}

/// Calls with no line of their own are placed on `line` (where their session is).
fn at_line(mut read: ReadSession, line: u64) -> ReadSession {
    for event in &mut read.events {
        match event {
            ReadEvent::Call(call) if call.line.is_none() => call.line = Some(line),
            ReadEvent::Prompt { line: at @ None } => *at = Some(line),
            _ => {}
        }
    }
    read
}

/// Replay `read` into `report` with fresh chains (its agent is freed after).
fn audit_read(
    auditor: &mut Auditor,
    mut report: SessionReport,
    read: &ReadSession,
) -> SessionReport {
    let mut run = Run::new(auditor, report.format);
    replay(&mut run, &mut report, read);
    run.finish(&mut report);
    report
}

impl Auditor {
    /// Audit one session read by [`read_value`] or [`read_text`] (a Parquet
    /// row, a line of an evaluation output): its report, as `file`'s
    /// session number `session`.
    pub fn audit_session(
        &mut self,
        file: String,
        session: u64,
        format: Format,
        read: &ReadSession,
    ) -> SessionReport {
        let mut report = SessionReport::new(file, format);
        report.session = session;
        audit_read(self, report, read)
    }
}

impl Run<'_> {
    /// A JSONL line holding a whole session: read and audited into a report
    /// of its own (numbered in line order), handed to `emit`.
    pub(crate) fn session_line(
        &mut self,
        file: &SessionReport,
        number: u64,
        bytes: u64,
        value: &Value,
        emit: &mut dyn FnMut(SessionReport),
    ) {
        let mut report = SessionReport::new(file.file.clone(), self.format);
        report.session = self.sessions;
        report.compressed = file.compressed;
        report.lines = 1;
        report.decoded_bytes = bytes;
        // A compressed file's bytes are not told per line.
        report.bytes = if file.compressed { 0 } else { bytes };
        self.sessions += 1;
        match read_value(self.format, value) {
            Ok(read) => {
                let read = at_line(read, number);
                report = audit_read(self.auditor, report, &read);
            }
            Err(message) => report.error(Some(number), message),
        }
        emit(report);
    }
}

/// The format of the session log at `path` by its content, as `--format
/// auto` would read it (`None`: no known format). A directory search asks
/// this of files whose names do not say (`*.json`, `*.md`, `*.log`): only
/// the first `limit` bytes are read (a text capture or a JSON document
/// longer than that is not recognized).
pub fn detect_path(path: &Path, limit: usize) -> io::Result<Option<Format>> {
    if openhands_v1::is_persisted_state(path) {
        return Ok(Some(Format::OpenHandsV1));
    }
    let mut bytes = Vec::new();
    std::fs::File::open(path)?
        .take(limit as u64)
        .read_to_end(&mut bytes)?;
    if bytes.contains(&0) {
        return Ok(None);
    }
    // As the reader does (audit_reader_each): a UTF-8 byte order mark is no part of the log.
    let bytes = bytes.strip_prefix(UTF8_BOM).unwrap_or(&bytes);
    Ok(match shape_of(Format::Auto, bytes) {
        Shape::Values => serde_json::from_slice::<Value>(bytes)
            .ok()
            .and_then(|v| detect_value(&v)),
        Shape::Text => detect_text(&String::from_utf8_lossy(bytes)),
        Shape::Lines => {
            let first = bytes
                .split(|b| *b == b'\n')
                .find(|l| !l.iter().all(u8::is_ascii_whitespace));
            first
                .and_then(|l| serde_json::from_slice::<Value>(l).ok())
                .and_then(|v| v.as_object().and_then(detect))
        }
    })
}
