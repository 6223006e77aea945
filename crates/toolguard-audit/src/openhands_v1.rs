//! OpenHands V1 (software-agent-sdk) conversations: a `history` (or
//! `events`) list of events, as evaluation outputs write one conversation a
//! line (`{"instance_id", "history": […],
//! "metadata": {"llm": {"model"}}, …}`). Shapes checked against the real
//! package (openhands-sdk 1.58.2: tests/fixtures/openhands-sdk/, recorded by
//! scripts/record/record-trajectory-fixtures.mjs --openhands) and the
//! evaluation outputs in ../shared/wild.
//!
//! ```text
//! {"kind": "ActionEvent", "id", "timestamp", "tool_name": "execute_bash" (SDK 1.x: "terminal"), "tool_call_id",
//!  "tool_call": {"arguments": "{…}"}, "action": {"kind": "ExecuteBashAction", "command", …}}
//! {"kind": "ObservationEvent", "action_id", "tool_call_id", "tool_name",
//!  "observation": {"kind": "ExecuteBashObservation", "output" | "content": […],
//!                  "exit_code": null, "metadata": {"exit_code": 127}}}
//! {"kind": "AgentErrorEvent", "tool_call_id", "error"}          the call failed before it ran
//! {"kind": "UserRejectObservation", "action_id", "rejection_reason"}
//! {"kind": "MessageEvent", "source": "user" | "agent", "llm_message": {…}}
//! ```
//!
//! Every `ActionEvent` is a call (`finish` and `think` too); a result is
//! paired by `action_id` (the action's `id`) or `tool_call_id`. The shell's
//! exit code is `observation.metadata.exit_code` (`observation.exit_code`
//! is null in the published evaluation outputs; SDK 1.58 fills both). A
//! user `MessageEvent` after the first call restarts the chains. Exit code
//! -1 (or `timeout: true`) is a command that did not finish (its timeout, or
//! no new output for a while: the process may still run): a failed call
//! (`is_error`) whose result ends with the harness's message to the model
//! (`metadata.suffix`: `[The command timed out after …]`), as V0 too.
//!
//! The SDK's own store of a conversation (`LocalConversation` with a
//! `persistence_dir`) is a folder: `base_state.json` beside `events/`, one
//! event a file (`event-00000-<event id>.json`). Its `base_state.json` stands
//! for the whole folder ([`is_persisted_state`], [`persisted_document`]).

use std::collections::HashMap;
use std::path::Path;

use serde_json::Value;

use super::mini_swe::openai_usage;
use super::session::{iso_ms, message_text, ReadCall, ReadEvent, ReadResult, ReadSession};
use super::shell::{add_exit_marker, text_blocks};

const RESULT_KINDS: [&str; 3] = [
    "ObservationEvent",
    "AgentErrorEvent",
    "UserRejectObservation",
];

/// Whether `path` is the `base_state.json` of a persisted SDK conversation
/// (an `events` folder beside it).
pub(crate) fn is_persisted_state(path: &Path) -> bool {
    path.file_name().is_some_and(|n| n == "base_state.json")
        && path.with_file_name("events").is_dir()
}

/// A persisted conversation as one document, the shape an evaluation output
/// line has: `{"id", "metadata": {"llm": {"model"}}, "stats", "history": [events]}`,
/// the events in the order of their file's index. At most `limit` bytes of
/// event files are read; a longer conversation, an unreadable or malformed
/// file is an error naming it. Also the bytes read (state and events).
pub(crate) fn persisted_document(state_path: &Path, limit: usize) -> Result<(Value, u64), String> {
    let read_json = |path: &Path| -> Result<Value, String> {
        let bytes =
            std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        serde_json::from_slice(&bytes)
            .map_err(|e| format!("{}: malformed JSON: {e}", path.display()))
    };
    let state = read_json(state_path)?;
    let mut total = std::fs::metadata(state_path).map(|m| m.len()).unwrap_or(0);
    let folder = state_path.with_file_name("events");
    let entries =
        std::fs::read_dir(&folder).map_err(|e| format!("cannot read {}: {e}", folder.display()))?;
    // The SDK names them `event-{index:05}-{event id}.json` (the index may grow past 5 digits).
    let mut files: Vec<(u64, std::path::PathBuf)> = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|e| format!("cannot read {}: {e}", folder.display()))?;
        let name = entry.file_name();
        let Some(index) = name
            .to_str()
            .filter(|n| n.ends_with(".json"))
            .and_then(|n| n.strip_prefix("event-"))
            .and_then(|n| n.split('-').next())
            .and_then(|n| n.parse::<u64>().ok())
        else {
            continue; // the SDK's lock and marker files
        };
        files.push((index, entry.path()));
    }
    files.sort();
    let mut history = Vec::with_capacity(files.len());
    for (_, path) in &files {
        total += std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
        if total > limit as u64 {
            return Err(format!(
                "the events of this conversation ({}) are longer than the limit of {limit} bytes (--max-line-bytes), skipped",
                folder.display()
            ));
        }
        history.push(read_json(path)?);
    }
    let mut document = serde_json::Map::new();
    if let Some(id) = state.get("id") {
        document.insert("id".to_owned(), id.clone());
    }
    if let Some(model) = state.pointer("/agent/llm/model") {
        document.insert(
            "metadata".to_owned(),
            serde_json::json!({"llm": {"model": model}}),
        );
    }
    if let Some(stats) = state.get("stats") {
        document.insert("stats".to_owned(), stats.clone());
    }
    document.insert("history".to_owned(), Value::Array(history));
    Ok((Value::Object(document), total))
}

/// A list of V1 events: objects with a `kind` such as `ActionEvent`.
pub(crate) fn looks_like(history: &[Value]) -> bool {
    history.iter().any(|e| {
        matches!(
            e.get("kind").and_then(Value::as_str),
            Some("ActionEvent" | "ObservationEvent" | "MessageEvent" | "SystemPromptEvent")
        )
    })
}

pub(crate) fn read(value: &Value) -> Result<ReadSession, String> {
    let events = match value {
        Value::Array(events) => events,
        _ => match value.get("history").or_else(|| value.get("events")) {
            Some(Value::Array(events)) => events,
            _ => return Err("OpenHands V1 conversation without a \"history\" list".to_owned()),
        },
    };
    let mut read = ReadSession {
        session_id: ["instance_id", "id", "conversation_id"]
            .iter()
            .find_map(|k| value.get(*k))
            .and_then(|v| match v {
                Value::String(s) => Some(s.clone()),
                Value::Number(n) => Some(n.to_string()),
                _ => None,
            }),
        model: value
            .pointer("/metadata/llm/model")
            .and_then(Value::as_str)
            .map(str::to_owned),
        exit_codes: true,
        ..Default::default()
    };
    // Open calls: `events` index by action id and by tool call id.
    let mut by_action: HashMap<String, usize> = HashMap::new();
    let mut by_call: HashMap<String, usize> = HashMap::new();
    let mut usage_of_response: HashMap<String, ()> = HashMap::new();
    // A persisted conversation's token counts are per model response in its
    // `stats` (base_state.json), not on the events: by response id.
    let mut usage_by_response: HashMap<&str, &Value> = HashMap::new();
    if let Some(Value::Object(by_usage)) = value.pointer("/stats/usage_to_metrics") {
        for metrics in by_usage.values() {
            if let Some(Value::Array(usages)) = metrics.get("token_usages") {
                for usage in usages {
                    if let Some(id) = usage.get("response_id").and_then(Value::as_str) {
                        usage_by_response.entry(id).or_insert(usage);
                    }
                }
            }
        }
    }
    // The previous action's model response: actions of one response were
    // all made before any of their results came back (parallel calls).
    let mut last_response: Option<String> = None;
    for (index, event) in events.iter().enumerate() {
        let kind = event.get("kind").and_then(Value::as_str).unwrap_or("");
        let text_of = |key: &str| event.get(key).and_then(Value::as_str).map(str::to_owned);
        match kind {
            "ActionEvent" => {
                let id = text_of("id");
                let call_id = text_of("tool_call_id");
                let tool = text_of("tool_name")
                    .or_else(|| {
                        event
                            .pointer("/tool_call/name")
                            .and_then(Value::as_str)
                            .map(str::to_owned)
                    })
                    .unwrap_or_default();
                let arguments_json = match event.pointer("/tool_call/arguments") {
                    Some(Value::String(text)) => text.clone(),
                    Some(other) => other.to_string(),
                    // No tool call (an older SDK): the action's own fields.
                    None => event
                        .get("action")
                        .map(Value::to_string)
                        .unwrap_or_default(),
                };
                let response = text_of("llm_response_id");
                let concurrent = response.is_some() && response == last_response;
                last_response.clone_from(&response);
                // Tokens are per model response; its first call carries them.
                let usage = response
                    .filter(|r| usage_of_response.insert(r.clone(), ()).is_none())
                    .and_then(|response| {
                        event
                            .pointer("/metrics/accumulated_token_usage")
                            .or_else(|| usage_by_response.get(response.as_str()).copied())
                    })
                    .and_then(openai_usage);
                let at = read.events.len();
                if let Some(id) = &id {
                    by_action.insert(id.clone(), at);
                }
                if let Some(call_id) = &call_id {
                    by_call.insert(call_id.clone(), at);
                }
                read.events.push(ReadEvent::Call(ReadCall {
                    // The model's tool call id names the call; the event id pairs it.
                    call_id: call_id.or(id),
                    tool,
                    arguments_json,
                    time: iso_ms(event.get("timestamp")),
                    usage,
                    concurrent,
                    ..Default::default()
                }));
            }
            kind if RESULT_KINDS.contains(&kind) => {
                let at = text_of("action_id")
                    .and_then(|id| by_action.remove(&id))
                    .or_else(|| text_of("tool_call_id").and_then(|id| by_call.remove(&id)));
                let Some(at) = at else {
                    read.note(
                        None,
                        None,
                        format!(
                            "event {} ({kind}{}): a result with no action before it",
                            index + 1,
                            text_of("tool_call_id")
                                .map(|id| format!(", {id}"))
                                .unwrap_or_default()
                        ),
                    );
                    continue;
                };
                if let ReadEvent::Call(call) = &mut read.events[at] {
                    // Paired: forget it under its other key too.
                    if let Some(id) = &call.call_id {
                        by_call.remove(id);
                    }
                    call.end_time = iso_ms(event.get("timestamp"));
                    call.result = Some(result(kind, event));
                }
            }
            "MessageEvent" => {
                let from_user = event.get("source").and_then(Value::as_str) == Some("user");
                if from_user && read.calls() > 0 {
                    read.events.push(ReadEvent::Prompt { line: None });
                }
                if from_user {
                    let text =
                        message_text(event.pointer("/llm_message/content")).unwrap_or_default();
                    read.events.push(ReadEvent::UserText(text));
                }
            }
            _ => {}
        }
    }
    Ok(read)
}

/// What the engine reads of a result event.
fn result(kind: &str, event: &Value) -> ReadResult {
    match kind {
        "AgentErrorEvent" => ReadResult {
            text: event
                .get("error")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_owned(),
            is_error: true,
        },
        "UserRejectObservation" => ReadResult {
            text: event
                .get("rejection_reason")
                .and_then(Value::as_str)
                .unwrap_or("rejected by the user")
                .to_owned(),
            is_error: true,
        },
        _ => {
            let observation = event.get("observation").unwrap_or(&Value::Null);
            let mut text = strip_bracketed_paste(&observation_text(observation));
            let code = observation
                .pointer("/metadata/exit_code")
                .and_then(Value::as_i64)
                .or_else(|| observation.get("exit_code").and_then(Value::as_i64));
            // `error` is a message (file editor, browser) or a flag (`is_error`).
            let error = match observation.get("error") {
                Some(Value::String(message)) if !message.is_empty() => {
                    if !text.contains(message.as_str()) {
                        if !text.is_empty() && !text.ends_with('\n') {
                            text.push('\n');
                        }
                        text.push_str(message);
                    }
                    true
                }
                _ => observation.get("is_error") == Some(&Value::Bool(true)),
            };
            let timed_out = observation.get("timeout") == Some(&Value::Bool(true));
            // A command cut off by its timeout: the DSH marker says so.
            if timed_out && code.is_none() {
                add_exit_marker(&mut text, 124);
            }
            if let Some(code) = code.filter(|c| *c >= 0) {
                add_exit_marker(&mut text, code);
            }
            let unfinished = unfinished(observation.get("metadata"), code, &mut text);
            ReadResult {
                text,
                is_error: error || timed_out || unfinished,
            }
        }
    }
}

/// Whether OpenHands says a command did not finish (exit code -1: its
/// timeout, or no new output for a while); then the harness's message to
/// the model (`metadata.suffix`, `[The command timed out after …]`) ends
/// the text, as the model read it.
pub(crate) fn unfinished(metadata: Option<&Value>, code: Option<i64>, text: &mut String) -> bool {
    if code != Some(-1) {
        return false;
    }
    let suffix = metadata
        .and_then(|m| m.get("suffix"))
        .and_then(Value::as_str)
        .map(str::trim)
        .unwrap_or("");
    if !suffix.is_empty() && !text.contains(suffix) {
        if !text.is_empty() && !text.ends_with('\n') {
            text.push('\n');
        }
        text.push_str(suffix);
    }
    true
}

/// An observation's text: `output`, else its `content` text blocks, else `message`/`content` string.
fn observation_text(observation: &Value) -> String {
    if let Some(output) = observation.get("output").and_then(Value::as_str) {
        return output.to_owned();
    }
    match observation.get("content") {
        Some(Value::Array(blocks)) => return text_blocks(blocks).join("\n"),
        Some(Value::String(text)) => return text.clone(),
        _ => {}
    }
    observation
        .get("message")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_owned()
}

/// The terminal's bracketed-paste switches (`ESC[?2004l` … `ESC[?2004h`)
/// that OpenHands keeps around a command's output: not output.
pub(crate) fn strip_bracketed_paste(text: &str) -> String {
    text.replace("\u{1b}[?2004l", "")
        .replace("\u{1b}[?2004h", "")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_command_that_did_not_finish_is_a_failed_call_with_the_harness_message() {
        // Synthetic, in the SDK's shapes: exit code -1 and the suffix the
        // model read; then a hard timeout; then an ordinary exit 2.
        let unfinished = result(
            "ObservationEvent",
            &serde_json::json!({"observation": {"kind": "ExecuteBashObservation",
                "output": "Serving on 8000 ...", "exit_code": null, "error": false, "timeout": false,
                "metadata": {"exit_code": -1, "suffix": "\n[The command timed out after 10.0 seconds. You may wait longer…]"}}}),
        );
        assert_eq!(
            unfinished,
            ReadResult {
                text: "Serving on 8000 ...\n[The command timed out after 10.0 seconds. You may wait longer…]".to_owned(),
                is_error: true
            }
        );
        let killed = result(
            "ObservationEvent",
            &serde_json::json!({"observation": {"output": "partial", "timeout": true, "metadata": {}}}),
        );
        assert!(killed.is_error);
        assert!(killed.text.ends_with("[exit code: 124]"));
        let exited = result(
            "ObservationEvent",
            &serde_json::json!({"observation": {"output": "boom", "metadata": {"exit_code": 2, "suffix": "\n[The command completed with exit code 2.]"}}}),
        );
        assert_eq!(
            exited,
            ReadResult {
                text: "boom\n[exit code: 2]".to_owned(),
                is_error: false
            }
        );
    }
}
