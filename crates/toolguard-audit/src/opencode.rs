//! OpenCode sessions as `opencode export <session>` prints them (and as
//! session recorders store them): one JSON document,
//! `{"info": {id, directory, version, …}, "messages": [{"info": {role,
//! modelID, providerID, tokens, …}, "parts": […]}]}`.
//!
//! Each `{"type": "tool", callID, tool, state}` part of an assistant
//! message is one call, its result in the same part: `state.status` is
//! `completed` (`state.output`; the bash tool's exit code in
//! `state.metadata.exit`), `error` (`state.error`: the tool failed, e.g. a
//! file that is not there) or, for a call the export caught unfinished,
//! `pending`/`running` (no result). Parts of one model step (between
//! `step-start` and `step-finish`) were asked for together: the second and
//! later calls of a step are concurrent. A user message with text the user
//! typed (not a `synthetic` part OpenCode wrote itself) after the first call
//! restarts the chains.
//!
//! A command OpenCode stopped at its timeout (or that the user aborted) has
//! no exit code (`exit: null`, the process was killed) and ends in
//! `<bash_metadata>bash tool terminated command after exceeding timeout N
//! ms</bash_metadata>` (or `User aborted the command`): a failed call, its
//! output as the model read it.

use serde_json::{Map, Value};

use super::session::{ReadCall, ReadEvent, ReadResult, ReadSession};
use super::shell::add_exit_marker;

/// Whether a JSON object is an OpenCode session export: an `info` object
/// and a `messages` list whose messages hold `info` and a `parts` list.
pub(crate) fn looks_like(object: &Map<String, Value>) -> bool {
    let (Some(Value::Object(_)), Some(Value::Array(messages))) =
        (object.get("info"), object.get("messages"))
    else {
        return false;
    };
    messages.first().is_some_and(|m| {
        m.get("info").is_some_and(Value::is_object) && m.get("parts").is_some_and(Value::is_array)
    })
}

pub(crate) fn read(value: &Value) -> Result<ReadSession, String> {
    let Some(messages) = value.get("messages").and_then(Value::as_array) else {
        return Err("OpenCode session without a \"messages\" list".to_owned());
    };
    let text_at = |v: &Value, pointer: &str| {
        v.pointer(pointer)
            .and_then(Value::as_str)
            .map(str::to_owned)
    };
    let mut read = ReadSession {
        session_id: text_at(value, "/info/id"),
        cwd: text_at(value, "/info/directory"),
        exit_codes: true,
        ..Default::default()
    };
    for (index, message) in messages.iter().enumerate() {
        let info = message.get("info").unwrap_or(&Value::Null);
        let Some(parts) = message.get("parts").and_then(Value::as_array) else {
            read.note(
                None,
                None,
                format!("message {}: no \"parts\" list, skipped", index + 1),
            );
            continue;
        };
        match info.get("role").and_then(Value::as_str) {
            Some("user") => user_message(&mut read, parts),
            Some("assistant") => {
                if read.model.is_none() {
                    read.model = text_at(info, "/modelID");
                }
                assistant_message(&mut read, info, parts);
            }
            _ => {}
        }
    }
    Ok(read)
}

/// The user's own text parts: what they said; after the first call, a new
/// prompt. Text OpenCode wrote itself (`synthetic`) restarts nothing.
fn user_message(read: &mut ReadSession, parts: &[Value]) {
    let typed: Vec<&str> = parts
        .iter()
        .filter(|p| p.get("type").and_then(Value::as_str) == Some("text"))
        .filter(|p| p.get("synthetic") != Some(&Value::Bool(true)))
        .filter_map(|p| p.get("text").and_then(Value::as_str))
        .collect();
    if typed.is_empty() {
        return;
    }
    if read.calls() > 0 {
        read.events.push(ReadEvent::Prompt { line: None });
    }
    read.events.push(ReadEvent::UserText(typed.join("\n")));
}

fn assistant_message(read: &mut ReadSession, info: &Value, parts: &[Value]) {
    // Tokens are per message; its first call carries them.
    let mut usage = tokens(info);
    let mut calls_in_step = 0usize;
    for part in parts {
        match part.get("type").and_then(Value::as_str) {
            Some("step-start") => calls_in_step = 0,
            Some("tool") => {
                let state = part.get("state").unwrap_or(&Value::Null);
                let time = |key: &str| {
                    state
                        .pointer(&format!("/time/{key}"))
                        .and_then(Value::as_u64)
                };
                read.events.push(ReadEvent::Call(ReadCall {
                    call_id: part
                        .get("callID")
                        .and_then(Value::as_str)
                        .map(str::to_owned),
                    tool: part
                        .get("tool")
                        .and_then(Value::as_str)
                        .unwrap_or_default()
                        .to_owned(),
                    arguments_json: state
                        .get("input")
                        .map(Value::to_string)
                        .unwrap_or_else(|| "{}".to_owned()),
                    time: time("start"),
                    end_time: time("end"),
                    usage: usage.take(),
                    result: result(state),
                    concurrent: calls_in_step > 0,
                    ..Default::default()
                }));
                calls_in_step += 1;
            }
            _ => {}
        }
    }
}

/// A message's `tokens`: input counts uncached input plus cache reads and
/// writes (as for Claude Code); output counts reasoning too.
fn tokens(info: &Value) -> Option<(u64, u64)> {
    let tokens = info.get("tokens")?;
    let n = |pointer: &str| tokens.pointer(pointer).and_then(Value::as_u64).unwrap_or(0);
    Some((
        n("/input") + n("/cache/read") + n("/cache/write"),
        n("/output") + n("/reasoning"),
    ))
}

/// What the engine reads of a tool part's state; `None` for a call the
/// export caught before it finished.
fn result(state: &Value) -> Option<ReadResult> {
    let text_of = |key: &str| {
        state
            .get(key)
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_owned()
    };
    match state.get("status").and_then(Value::as_str) {
        Some("completed") => {
            let mut text = text_of("output");
            let exit = state.pointer("/metadata/exit");
            let stopped = exit == Some(&Value::Null) && harness_stopped(&text);
            if let Some(code) = exit.and_then(Value::as_i64) {
                add_exit_marker(&mut text, code);
            }
            Some(ReadResult {
                text,
                is_error: stopped,
            })
        }
        Some("error") => Some(ReadResult {
            text: text_of("error"),
            is_error: true,
        }),
        _ => None,
    }
}

/// Whether a bash output ends in OpenCode's own note that it killed the
/// command (its timeout) or the user aborted it.
fn harness_stopped(output: &str) -> bool {
    let Some(at) = output.rfind("<bash_metadata>") else {
        return false;
    };
    let note = &output[at..];
    note.contains("bash tool terminated command after exceeding timeout")
        || note.contains("User aborted the command")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn results(read: &ReadSession) -> Vec<Option<(String, bool)>> {
        read.events
            .iter()
            .filter_map(|e| match e {
                ReadEvent::Call(c) => Some(c.result.as_ref().map(|r| (r.text.clone(), r.is_error))),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn a_command_killed_at_its_timeout_is_a_failed_call_and_an_unfinished_one_has_no_result() {
        // Synthetic, in the shape OpenCode 1.2's bash tool writes.
        let killed = "partial\n\n<bash_metadata>\nbash tool terminated command after exceeding timeout 120000 ms\n</bash_metadata>";
        let read = read(&json!({"info": {"id": "ses_1"}, "messages": [
            {"info": {"role": "user"}, "parts": [{"type": "text", "text": "go"}]},
            {"info": {"role": "assistant", "modelID": "m"}, "parts": [
                {"type": "step-start"},
                {"type": "tool", "callID": "a", "tool": "bash", "state": {"status": "completed",
                    "input": {"command": "sleep 999"}, "output": killed, "metadata": {"exit": null}}},
                {"type": "tool", "callID": "b", "tool": "bash", "state": {"status": "completed",
                    "input": {"command": "cat x"}, "output": "<bash_metadata> is text here\n", "metadata": {"exit": 0}}},
                {"type": "tool", "callID": "c", "tool": "bash", "state": {"status": "running",
                    "input": {"command": "make"}}},
                {"type": "step-finish"}
            ]}
        ]}))
        .unwrap();
        assert_eq!(
            results(&read),
            [
                Some((killed.to_owned(), true)),
                Some(("<bash_metadata> is text here\n".to_owned(), false)),
                None
            ]
        );
        let concurrent: Vec<bool> = read
            .events
            .iter()
            .filter_map(|e| match e {
                ReadEvent::Call(c) => Some(c.concurrent),
                _ => None,
            })
            .collect();
        assert_eq!(concurrent, [false, true, true]);
    }

    #[test]
    fn only_typed_user_text_after_a_call_is_a_new_prompt() {
        let read = read(&json!({"info": {"id": "ses_1"}, "messages": [
            {"info": {"role": "user"}, "parts": [{"type": "text", "text": "first"}]},
            {"info": {"role": "assistant"}, "parts": [
                {"type": "tool", "tool": "read", "state": {"status": "error", "input": {}, "error": "Error: File not found: x"}}
            ]},
            {"info": {"role": "user"}, "parts": [{"type": "text", "synthetic": true, "text": "The following tool was executed by the user"}]},
            {"info": {"role": "user"}, "parts": [{"type": "text", "text": "again"}]}
        ]}))
        .unwrap();
        let kinds: Vec<&str> = read
            .events
            .iter()
            .map(|e| match e {
                ReadEvent::Prompt { .. } => "prompt",
                ReadEvent::UserText(_) => "user",
                ReadEvent::Call(_) => "call",
            })
            .collect();
        assert_eq!(kinds, ["user", "call", "prompt", "user"]);
        assert_eq!(
            results(&read),
            [Some(("Error: File not found: x".to_owned(), true))]
        );
    }
}
