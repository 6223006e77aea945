//! OpenHands V0 (the CodeActAgent era, ≤ 0.x): events serialized as dicts,
//! `{"id", "timestamp", "source", "action": "run", "args": {…}}` and
//! `{"id", "cause": <action id>, "observation": "run", "content", "extras": {"metadata": {"exit_code"}}}`.
//! Two containers: an event stream (a JSON list, as replay fixtures and
//! `trajectory` exports hold) where an observation names its action by
//! `cause`, and resolver / evaluation outputs (one run a line, `history`
//! a flat list of action and observation dicts, or of `[action,
//! observation]` pairs) where each observation follows its action. A run's
//! LLM completion log (`fncall_messages`) is read by `openhands_llm`.
//!
//! A call is any action of the agent but `message`, `finish` and the
//! bookkeeping ones (`change_agent_state`, `recall`, `system`); a `message`
//! from the user restarts the chains. Tool names: the tool call's
//! `function_name` when the event has `tool_call_metadata`, else `run` is
//! `execute_bash`, `run_ipython` is `execute_ipython_cell`, and any other
//! action keeps its own name.

use std::collections::HashMap;

use serde_json::Value;

use super::openhands_llm;
use super::openhands_v1::{strip_bracketed_paste, unfinished};
use super::session::{iso_ms, ReadCall, ReadEvent, ReadResult, ReadSession};
use super::shell::add_exit_marker;

/// Actions that are not tool calls.
const NOT_CALLS: [&str; 6] = [
    "message",
    "finish",
    "change_agent_state",
    "recall",
    "system",
    "null",
];

/// Whether a JSON list is a V0 event stream.
pub(crate) fn is_event_list(events: &[Value]) -> bool {
    !events.is_empty() && looks_like(events)
}

/// A V0 history: dicts (or pairs of dicts) with a string `action` or
/// `observation`, and no V1 `kind`.
pub(crate) fn looks_like(history: &[Value]) -> bool {
    let is_event = |e: &Value| {
        e.get("kind").is_none()
            && (e.get("action").is_some_and(Value::is_string)
                || e.get("observation").is_some_and(Value::is_string))
    };
    history.iter().take(8).any(|e| match e {
        Value::Array(pair) => pair.iter().any(is_event),
        other => is_event(other),
    }) && history.iter().all(|e| e.is_object() || e.is_array())
}

pub(crate) fn read(value: &Value) -> Result<ReadSession, String> {
    if value.as_object().is_some_and(openhands_llm::looks_like) {
        return openhands_llm::read(value);
    }
    let (history, container) = match value {
        Value::Array(events) => (events, None),
        _ => match value.get("history") {
            Some(Value::Array(events)) => (events, Some(value)),
            _ => return Err("OpenHands V0 output without a \"history\" list".to_owned()),
        },
    };
    let mut read = ReadSession {
        session_id: container.and_then(session_id),
        model: container
            .and_then(|c| c.pointer("/metadata/llm_config/model"))
            .and_then(Value::as_str)
            .map(str::to_owned),
        exit_codes: true,
        ..Default::default()
    };
    // Flatten `[action, observation]` pairs.
    let events: Vec<&Value> = history
        .iter()
        .flat_map(|e| match e {
            Value::Array(pair) => pair.iter().collect::<Vec<_>>(),
            other => vec![other],
        })
        .collect();
    let mut by_id: HashMap<i64, usize> = HashMap::new();
    // Without ids and causes, an observation answers the latest open call.
    let mut last_open: Option<usize> = None;
    for (index, event) in events.iter().enumerate() {
        if let Some(action) = event.get("action").and_then(Value::as_str) {
            let source = event.get("source").and_then(Value::as_str);
            if action == "message" && source == Some("user") {
                if read.calls() > 0 {
                    read.events.push(ReadEvent::Prompt { line: None });
                }
                let text = event
                    .pointer("/args/content")
                    .or_else(|| event.get("message"))
                    .and_then(Value::as_str);
                if let Some(text) = text {
                    read.events.push(ReadEvent::UserText(text.to_owned()));
                }
                continue;
            }
            if NOT_CALLS.contains(&action) || matches!(source, Some("user" | "environment")) {
                continue;
            }
            let at = read.events.len();
            let id = event.get("id").and_then(Value::as_i64);
            if let Some(id) = id {
                by_id.insert(id, at);
            }
            last_open = Some(at);
            read.events.push(ReadEvent::Call(ReadCall {
                call_id: id.map(|id| id.to_string()),
                tool: tool_name(action, event),
                arguments_json: arguments(event),
                time: iso_ms(event.get("timestamp")),
                ..Default::default()
            }));
        } else if let Some(kind) = event.get("observation").and_then(Value::as_str) {
            let cause = event.get("cause").and_then(Value::as_i64);
            let at = match cause {
                Some(cause) => by_id.remove(&cause),
                None => last_open,
            };
            let Some(at) = at else {
                // Observations of non-calls (a message's `null`, agent state) have no call.
                if cause.is_some() || matches!(kind, "agent_state_changed" | "null" | "recall") {
                    continue;
                }
                read.note(
                    None,
                    None,
                    format!(
                        "event {}: a \"{kind}\" observation with no action before it",
                        index + 1
                    ),
                );
                continue;
            };
            if let ReadEvent::Call(call) = &mut read.events[at] {
                if call.result.is_some() {
                    read.note(
                        None,
                        None,
                        format!(
                            "event {}: a second \"{kind}\" observation for one action, skipped",
                            index + 1
                        ),
                    );
                    continue;
                }
                call.end_time = iso_ms(event.get("timestamp"));
                call.result = Some(observation(kind, event));
            }
            if last_open == Some(at) {
                last_open = None;
            }
        }
    }
    Ok(read)
}

/// The run's id: the resolver's `owner/repo#number`, else `instance_id`.
fn session_id(container: &Value) -> Option<String> {
    if let Some(issue) = container.get("issue") {
        let part = |k: &str| {
            issue
                .get(k)
                .map(|v| v.as_str().map_or_else(|| v.to_string(), str::to_owned))
        };
        if let (Some(owner), Some(repo), Some(number)) =
            (part("owner"), part("repo"), part("number"))
        {
            return Some(format!("{owner}/{repo}#{number}"));
        }
    }
    container
        .get("instance_id")
        .and_then(Value::as_str)
        .map(str::to_owned)
}

fn tool_name(action: &str, event: &Value) -> String {
    if let Some(name) = event
        .pointer("/tool_call_metadata/function_name")
        .and_then(Value::as_str)
    {
        return name.to_owned();
    }
    match action {
        "run" => "execute_bash",
        "run_ipython" => "execute_ipython_cell",
        other => other,
    }
    .to_owned()
}

/// The call's arguments: `args` (newer events), else the action's own fields.
fn arguments(event: &Value) -> String {
    if let Some(args) = event.get("args") {
        return args.to_string();
    }
    let mut fields = event.as_object().cloned().unwrap_or_default();
    for key in [
        "action",
        "id",
        "timestamp",
        "source",
        "message",
        "thought",
        "tool_call_metadata",
    ] {
        fields.remove(key);
    }
    Value::Object(fields).to_string()
}

fn observation(kind: &str, event: &Value) -> ReadResult {
    let mut text =
        strip_bracketed_paste(event.get("content").and_then(Value::as_str).unwrap_or(""));
    let extras = event.get("extras").unwrap_or(event);
    let code = extras
        .pointer("/metadata/exit_code")
        .or_else(|| extras.get("exit_code"))
        .and_then(Value::as_i64);
    if let Some(code) = code.filter(|c| *c >= 0) {
        add_exit_marker(&mut text, code);
    }
    let unfinished = unfinished(extras.get("metadata"), code, &mut text);
    ReadResult {
        text,
        is_error: kind == "error" || unfinished,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_command_that_did_not_finish_is_a_failed_call_with_the_harness_message() {
        // Synthetic, in V0's shapes: exit code -1 and the suffix the model read.
        let result = observation(
            "run",
            &serde_json::json!({"observation": "run", "content": "Serving on 8000 ...",
                "extras": {"command": "python3 -m http.server", "metadata": {"exit_code": -1,
                    "suffix": "\n[The command has no new output after 30 seconds. You may wait longer…]"}}}),
        );
        assert_eq!(
            result,
            ReadResult {
                text: "Serving on 8000 ...\n[The command has no new output after 30 seconds. You may wait longer…]".to_owned(),
                is_error: true
            }
        );
        let exited = observation(
            "run",
            &serde_json::json!({"observation": "run", "content": "", "extras": {"metadata": {"exit_code": 0}}}),
        );
        assert!(!exited.is_error);
    }
}
