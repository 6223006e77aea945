//! Codex rollouts: `~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl` (`$CODEX_HOME/sessions`).
//! Every line is `{"timestamp", "type", "payload"}`; shapes checked against
//! a rollout the real CLI wrote (scripts/record/record-audit-fixtures.mjs;
//! __test__/audit/fixtures/codex/).
//!
//! ```text
//! session_meta   {id, cwd, …}
//! response_item  {type:"function_call", name, arguments (JSON text), call_id}
//!                {type:"custom_tool_call", name, input (free text), call_id}
//!                {type:"local_shell_call", call_id, action:{type:"exec", command:[…]}}
//!                {type:"function_call_output" | "custom_tool_call_output", call_id, output}
//! event_msg      {type:"user_message"} or {type:"item_completed", item:{type:"UserMessage"}}: the user spoke
//!                {type:"item_completed", item:{type:"CommandExecution", id, exit_code}} / {type:"exec_command_end", call_id, exit_code}
//! ```
//!
//! The exit code of a shell call is read from whichever form Codex wrote:
//! the structured events above, the `{"output", "metadata":{"exit_code"}}`
//! JSON of the `shell` tool, or the text header (`Exit code: N` /
//! `Process exited with code N`, then `Output:`); a non-zero code becomes
//! the DSH marker.
//!
//! A long command: `exec_command` answers after its `yield_time_ms` with a
//! first chunk whose header says `Process running with session ID N`; the
//! rest comes from `write_stdin` calls naming `session_id` N, the last one
//! with `Process exited with code C`. The command's result is its chunks
//! together with that code, observed as the `exec_command` call (its ordinal)
//! once the process ended; the last poll is listed in the timeline but not
//! observed apart (its text is the command's); polls that found the process
//! still running are observed as the waits they are. A command that never
//! ended is observed at the end of the file with its partial output, which
//! the engine does not judge (`status_header::still_running`).

use std::collections::HashMap;

use serde_json::{Map, Value};

use super::replay::{rfc3339_ms, CallSite, Run};
use super::report::SessionReport;
use super::shell::{add_exit_marker, text_blocks};
use toolguard_core::engine::{Engine, Output};
use toolguard_core::status_header::split_status_header;

/// The tool name a `local_shell_call` item is audited under.
pub(crate) const LOCAL_SHELL: &str = "local_shell_call";

/// Exit codes kept per file at most (events whose output never came).
const MAX_EXIT_CODES: usize = 4096;

/// Commands still running kept per file at most, and the output kept of each.
const MAX_RUNNING: usize = 256;
const MAX_RUNNING_TEXT: usize = 1 << 20;

/// A command whose process was still running when its call returned.
struct Running {
    site: CallSite,
    /// The first chunk as Codex returned it (its header says it is running).
    first: String,
    /// The output of the polls since, in order, without their headers.
    rest: String,
}

#[derive(Default)]
pub(super) struct CodexState {
    agent: Option<String>,
    pending: HashMap<String, CallSite>,
    /// Exit codes from the structured events, until the call's output line.
    exit_codes: HashMap<String, i64>,
    /// Commands still running, by the session id their polls name.
    running: HashMap<u64, Running>,
    prompts: u64,
}

impl CodexState {
    pub(super) fn finish(&mut self, report: &mut SessionReport, engine: &mut Engine) {
        report.unanswered += self.pending.len() as u64;
        self.running.clear();
        if let Some(agent) = &self.agent {
            engine.forget(agent);
        }
    }
}

pub(super) fn line(
    run: &mut Run,
    report: &mut SessionReport,
    number: u64,
    event: &Map<String, Value>,
) {
    let (Some(kind), Some(payload)) = (
        event.get("type").and_then(Value::as_str),
        event.get("payload").and_then(Value::as_object),
    ) else {
        report.error(
            Some(number),
            "not a Codex rollout line: needs a string \"type\" and a \"payload\" object".to_owned(),
        );
        return;
    };
    if kind == "session_meta" {
        if report.session_id.is_none() {
            report.session_id = str_of(payload, "id").map(str::to_owned);
            report.cwd = str_of(payload, "cwd").map(str::to_owned);
        }
        return;
    }
    if run.before_since(
        event
            .get("timestamp")
            .and_then(Value::as_str)
            .and_then(rfc3339_ms),
    ) {
        return;
    }
    if kind == "turn_context" && report.model.is_none() {
        report.model = str_of(payload, "model").map(str::to_owned);
    }
    let item = str_of(payload, "type").unwrap_or("");
    match (kind, item) {
        ("response_item", "function_call" | "custom_tool_call" | "local_shell_call") => {
            call(run, report, number, item, payload)
        }
        ("response_item", "function_call_output" | "custom_tool_call_output") => {
            output(run, report, number, payload)
        }
        ("event_msg", "user_message") => {
            prompt(run, report, str_of(payload, "message").unwrap_or(""))
        }
        ("event_msg", "item_completed") => {
            let Some(done) = payload.get("item").and_then(Value::as_object) else {
                return;
            };
            match str_of(done, "type") {
                Some("UserMessage") => {
                    let text = done
                        .get("content")
                        .and_then(Value::as_array)
                        .into_iter()
                        .flatten()
                        .filter_map(|p| p.get("text").and_then(Value::as_str))
                        .collect::<Vec<_>>()
                        .join("\n");
                    prompt(run, report, &text)
                }
                _ => note_exit(run, str_of(done, "id"), done.get("exit_code")),
            }
        }
        ("event_msg", "exec_command_end") => {
            note_exit(run, str_of(payload, "call_id"), payload.get("exit_code"))
        }
        _ => {}
    }
}

fn str_of<'v>(object: &'v Map<String, Value>, key: &str) -> Option<&'v str> {
    object.get(key).and_then(Value::as_str)
}

fn agent(run: &mut Run, report: &SessionReport) -> String {
    run.codex
        .agent
        .get_or_insert_with(|| {
            report
                .session_id
                .clone()
                .unwrap_or_else(|| report.file.clone())
        })
        .clone()
}

fn prompt(run: &mut Run, report: &SessionReport, text: &str) {
    run.codex.prompts += 1;
    let agent = agent(run, report);
    run.reset(&agent);
    run.note_user_text(&agent, text);
}

fn note_exit(run: &mut Run, call_id: Option<&str>, code: Option<&Value>) {
    if let (Some(id), Some(code)) = (call_id, code.and_then(Value::as_i64)) {
        if run.codex.exit_codes.len() < MAX_EXIT_CODES {
            run.codex.exit_codes.insert(id.to_owned(), code);
        }
    }
}

fn call(
    run: &mut Run,
    report: &mut SessionReport,
    number: u64,
    item: &str,
    payload: &Map<String, Value>,
) {
    let Some(call_id) = str_of(payload, "call_id") else {
        report.error(Some(number), format!("{item} without a string call_id"));
        return;
    };
    let (name, arguments_json) = match item {
        "function_call" => match (str_of(payload, "name"), str_of(payload, "arguments")) {
            (Some(name), Some(arguments)) => (name.to_owned(), arguments.to_owned()),
            _ => {
                report.error(
                    Some(number),
                    "function_call without string name and arguments".to_owned(),
                );
                return;
            }
        },
        "custom_tool_call" => match (str_of(payload, "name"), str_of(payload, "input")) {
            // Free-form input (an apply_patch body): the chain compares it as one string.
            (Some(name), Some(input)) => (
                name.to_owned(),
                serde_json::json!({ "input": input }).to_string(),
            ),
            _ => {
                report.error(
                    Some(number),
                    "custom_tool_call without string name and input".to_owned(),
                );
                return;
            }
        },
        _ => match payload.get("action") {
            Some(action @ Value::Object(_)) => (LOCAL_SHELL.to_owned(), action.to_string()),
            _ => {
                report.error(
                    Some(number),
                    "local_shell_call without an action object".to_owned(),
                );
                return;
            }
        },
    };
    report.calls += 1;
    let agent = agent(run, report);
    run.note_agent(report, &agent);
    let site = CallSite {
        ordinal: report.calls,
        call_id: Some(call_id.to_owned()),
        name,
        agent_id: Some(agent),
        line: number,
        seq: None,
        turn: Some(run.codex.prompts),
        arguments_json,
        // Time and token usage are not read from this format yet: waste shows n/a.
        cost: Default::default(),
        concurrent: false,
    };
    if run.codex.pending.insert(call_id.to_owned(), site).is_some() {
        report.error(
            Some(number),
            format!("second call with call_id \"{call_id}\" before its output"),
        );
        report.unanswered += 1;
    }
}

fn output(run: &mut Run, report: &mut SessionReport, number: u64, payload: &Map<String, Value>) {
    let Some(call_id) = str_of(payload, "call_id") else {
        report.error(
            Some(number),
            "tool output without a string call_id".to_owned(),
        );
        return;
    };
    let structured = run.codex.exit_codes.remove(call_id);
    let Some(site) = run.codex.pending.remove(call_id) else {
        // Its call is before --since or outside this file (a forked history).
        return;
    };
    if !run.scans(&site.name) {
        run.advance(report, &site);
        return;
    }
    let (text, code, is_error) = match payload.get("output") {
        Some(Value::String(raw)) => decode_output(raw),
        Some(Value::Array(items)) => (content_items(items), None, false),
        // `{content, success}`: the payload form before it was flattened to text.
        Some(Value::Object(object)) => {
            let (text, code, _) = decode_output(str_of(object, "content").unwrap_or(""));
            (
                text,
                code,
                object.get("success") == Some(&Value::Bool(false)) && code.is_none(),
            )
        }
        _ => {
            report.error(Some(number), "tool output without an \"output\"".to_owned());
            return;
        }
    };
    let running = match payload.get("output") {
        Some(Value::String(raw)) => split_status_header(raw).and_then(|h| h.running),
        _ => None,
    };
    let mut text = text;
    if let Some(session) = poll_session(&site) {
        if let Some(mut held) = run.codex.running.remove(&session) {
            push_bounded(&mut held.rest, &text);
            if running == Some(session) {
                run.codex.running.insert(session, held);
            } else {
                // The process ended: its chunks and exit code are the
                // command's result; the poll that fetched the end is listed.
                let mut whole = split_status_header(&held.first)
                    .map_or(held.first.as_str(), |h| h.output)
                    .to_owned();
                push_bounded(&mut whole, &held.rest);
                if let Some(code) = structured.or(code) {
                    add_exit_marker(&mut whole, code);
                }
                observe_text(run, report, &held.site, &whole, is_error);
                Run::list(report, &site, None);
                return;
            }
        }
    }
    if let Some(session) = running {
        if poll_session(&site).is_none() && run.codex.running.len() < MAX_RUNNING {
            // Not ended: the call is observed when its process ends.
            let first = match payload.get("output") {
                Some(Value::String(raw)) => raw.clone(),
                _ => String::new(),
            };
            let held = Running {
                site,
                first,
                rest: String::new(),
            };
            if let Some(old) = run.codex.running.insert(session, held) {
                flush_one(run, report, old);
            }
            return;
        }
        // A chunk of a process still running: the engine knows it is no
        // finished result by the header (status_header::still_running).
        text = format!("Process running with session ID {session}\nOutput:\n{text}");
    }
    if let Some(code) = structured.or(code) {
        add_exit_marker(&mut text, code);
    }
    run.observe(report, &site, &Output::text(&text, is_error));
}

/// Observe `site` with one result text.
fn observe_text(
    run: &mut Run,
    report: &mut SessionReport,
    site: &CallSite,
    text: &str,
    is_error: bool,
) {
    run.observe(report, site, &Output::text(text, is_error));
}

/// The session a `write_stdin` call polls (its `session_id` argument).
fn poll_session(site: &CallSite) -> Option<u64> {
    if !site.name.eq_ignore_ascii_case("write_stdin") {
        return None;
    }
    let arguments: Value = serde_json::from_str(&site.arguments_json).ok()?;
    arguments.get("session_id")?.as_u64()
}

/// Append a chunk, keeping at most [`MAX_RUNNING_TEXT`] bytes (the end is
/// dropped: the first lines of a run are kept, as a live host would cap them).
fn push_bounded(into: &mut String, chunk: &str) {
    if chunk.is_empty() || into.len() >= MAX_RUNNING_TEXT {
        return;
    }
    if !into.is_empty() && !into.ends_with('\n') {
        into.push('\n');
    }
    let mut take = chunk.len().min(MAX_RUNNING_TEXT - into.len());
    while !chunk.is_char_boundary(take) {
        take -= 1;
    }
    into.push_str(&chunk[..take]);
}

/// Observe a command that had not ended: its partial output keeps the header
/// saying so, which the engine does not judge as a finished result.
fn flush_one(run: &mut Run, report: &mut SessionReport, held: Running) {
    if !run.scans(&held.site.name) {
        run.advance(report, &held.site);
        return;
    }
    let mut text = held.first;
    push_bounded(&mut text, &held.rest);
    observe_text(run, report, &held.site, &text, false);
}

/// At the end of the file: the commands still running are observed as they stand.
pub(super) fn flush(run: &mut Run, report: &mut SessionReport) {
    let mut held: Vec<Running> = run.codex.running.drain().map(|(_, r)| r).collect();
    held.sort_by_key(|r| r.site.ordinal);
    for r in held {
        flush_one(run, report, r);
    }
}

/// Output text and exit code from the string forms Codex writes.
fn decode_output(raw: &str) -> (String, Option<i64>, bool) {
    if raw.starts_with('{') {
        if let Ok(Value::Object(object)) = serde_json::from_str::<Value>(raw) {
            if let Some(text) = str_of(&object, "output") {
                let code = object
                    .get("metadata")
                    .and_then(|m| m.get("exit_code"))
                    .and_then(Value::as_i64);
                return (text.to_owned(), code, false);
            }
        }
    }
    match split_status_header(raw) {
        Some(header) => (header.output.to_owned(), header.exit_code, false),
        None => (raw.to_owned(), None, false),
    }
}

/// Text of `input_text` / `output_text` / `text` content items.
fn content_items(items: &[Value]) -> String {
    let mut texts: Vec<&str> = items
        .iter()
        .filter(|i| {
            matches!(
                i.get("type").and_then(Value::as_str),
                Some("input_text" | "output_text")
            )
        })
        .filter_map(|i| i.get("text").and_then(Value::as_str))
        .collect();
    texts.extend(text_blocks(items));
    texts.join("\n")
}
