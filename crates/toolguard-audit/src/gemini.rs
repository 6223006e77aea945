//! Gemini CLI chat recordings: `~/.gemini/tmp/<project>/chats/session-*.jsonl`
//! (and the older whole-document `session-*.json`).
//!
//! The JSONL form is a log the CLI appends to: a first record with
//! `sessionId` and `projectHash`, then message records (`{id, timestamp,
//! type: "user"|"gemini"|"info"|"error"|…, content, toolCalls?, tokens?,
//! model?}`), a message written again under the same `id` whenever it
//! changes (a model turn gets its tool calls' results that way),
//! `{"$set": {…}}` metadata updates (`$set.messages` restates the whole
//! list) and `{"$rewindTo": id}` when the user rewinds. Folded, each `id`
//! keeps its place of first appearance and its last version; a rewind
//! removes nothing here, because the calls it took back did run. The
//! document form holds the same messages in a `messages` list.
//!
//! Each `toolCalls` entry of a `gemini` message is one call, its result in
//! the entry (`result[].functionResponse.response`: `output`, or `error`
//! with `status: "error"`); the calls of one message were asked for
//! together, so the second and later are concurrent. `run_shell_command`
//! answers `Output: …` then `Exit Code: N` only when it is not 0 (older
//! versions: `Command:`/`Directory:` before, `Exit Code: (none)` and
//! `Signal: (none)` lines after), inside `<untrusted_context>` in recent
//! versions; the reader keeps the output and turns the code into the
//! `[exit code: N]` marker. A command the CLI cancelled (its timeout, or the
//! user) answers `Command was automatically cancelled …` / `Command was
//! cancelled by user …`: a failed call. A `user` message holding only
//! `functionResponse` parts is the results going back to the model, not a
//! prompt; the CLI's own `<session_context>` message is not the user's.

use std::collections::HashMap;

use serde_json::{Map, Value};

use super::session::{iso_ms, ReadCall, ReadEvent, ReadResult, ReadSession};
use super::shell::add_exit_marker;

/// The shell tool's name.
const SHELL: &str = "run_shell_command";

/// Whether a JSON object is a Gemini CLI recording's first record (or a
/// whole older-style document).
pub(crate) fn looks_like(object: &Map<String, Value>) -> bool {
    matches!(object.get("sessionId"), Some(Value::String(_)))
        && matches!(object.get("projectHash"), Some(Value::String(_)))
}

/// Fold a JSONL recording into one document (`messages` in order, each
/// message's last version). `Err` names the first line that is not JSON.
pub(crate) fn fold(text: &str) -> Result<Value, String> {
    let mut meta = Map::new();
    let mut order: Vec<String> = Vec::new();
    let mut by_id: HashMap<String, Value> = HashMap::new();
    let mut upsert = |message: Value, order: &mut Vec<String>| {
        if let Some(id) = message.get("id").and_then(Value::as_str).map(str::to_owned) {
            if !by_id.contains_key(&id) {
                order.push(id.clone());
            }
            by_id.insert(id, message);
        }
    };
    for (index, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let record: Value = serde_json::from_str(line)
            .map_err(|e| format!("line {}: not JSON ({e})", index + 1))?;
        let Value::Object(mut object) = record else {
            continue;
        };
        if let Some(Value::Object(set)) = object.remove("$set") {
            for (key, value) in set {
                match (key.as_str(), value) {
                    ("messages", Value::Array(messages)) => {
                        for m in messages {
                            upsert(m, &mut order);
                        }
                    }
                    (_, value) => {
                        meta.insert(key, value);
                    }
                }
            }
        } else if object.contains_key("$rewindTo") {
            continue;
        } else if looks_like(&object) {
            meta.extend(object);
        } else if object.contains_key("id") {
            upsert(Value::Object(object), &mut order);
        }
    }
    let messages: Vec<Value> = order.iter().filter_map(|id| by_id.remove(id)).collect();
    meta.insert("messages".to_owned(), Value::Array(messages));
    Ok(Value::Object(meta))
}

pub(crate) fn read(value: &Value) -> Result<ReadSession, String> {
    let Some(messages) = value.get("messages").and_then(Value::as_array) else {
        return Err("Gemini CLI session without a \"messages\" list".to_owned());
    };
    let mut read = ReadSession {
        session_id: value
            .get("sessionId")
            .and_then(Value::as_str)
            .map(str::to_owned),
        exit_codes: true,
        ..Default::default()
    };
    for message in messages {
        match message.get("type").and_then(Value::as_str) {
            Some("user") => user_message(&mut read, message.get("content")),
            Some("gemini") => {
                if read.model.is_none() {
                    read.model = message
                        .get("model")
                        .and_then(Value::as_str)
                        .map(str::to_owned);
                }
                model_turn(&mut read, message);
            }
            _ => {}
        }
    }
    Ok(read)
}

/// A user message's text parts: what the user said; after the first call,
/// a new prompt. Function responses and the CLI's own context are neither.
fn user_message(read: &mut ReadSession, content: Option<&Value>) {
    let text = match content {
        Some(Value::String(text)) => text.clone(),
        Some(Value::Array(parts)) => parts
            .iter()
            .filter_map(|p| p.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    };
    if text.trim().is_empty() || text.trim_start().starts_with("<session_context>") {
        return;
    }
    if read.calls() > 0 {
        read.events.push(ReadEvent::Prompt { line: None });
    }
    read.events.push(ReadEvent::UserText(text));
}

fn model_turn(read: &mut ReadSession, message: &Value) {
    let Some(calls) = message.get("toolCalls").and_then(Value::as_array) else {
        return;
    };
    // Tokens are per model turn; its first call carries them. The input
    // count includes cached tokens; output counts thoughts too.
    let mut usage = message.get("tokens").map(|t| {
        let n = |key: &str| t.get(key).and_then(Value::as_u64).unwrap_or(0);
        (n("input"), n("output") + n("thoughts"))
    });
    for (index, call) in calls.iter().enumerate() {
        let tool = call.get("name").and_then(Value::as_str).unwrap_or_default();
        read.events.push(ReadEvent::Call(ReadCall {
            call_id: call.get("id").and_then(Value::as_str).map(str::to_owned),
            tool: tool.to_owned(),
            arguments_json: call
                .get("args")
                .map(Value::to_string)
                .unwrap_or_else(|| "{}".to_owned()),
            time: iso_ms(message.get("timestamp")),
            end_time: iso_ms(call.get("timestamp")),
            usage: usage.take(),
            result: result(tool, call),
            concurrent: index > 0,
            ..Default::default()
        }));
    }
}

/// What the engine reads of a tool call entry; `None` when it has no
/// result yet (the recording stopped while it ran).
fn result(tool: &str, call: &Value) -> Option<ReadResult> {
    let response = call
        .get("result")
        .and_then(Value::as_array)
        .and_then(|parts| {
            parts
                .iter()
                .find_map(|p| p.pointer("/functionResponse/response"))
        });
    let status = call.get("status").and_then(Value::as_str);
    let text_of = |key: &str| response.and_then(|r| r.get(key)).and_then(Value::as_str);
    if let Some(error) = text_of("error") {
        return Some(ReadResult {
            text: error.to_owned(),
            is_error: true,
        });
    }
    let Some(output) = text_of("output") else {
        return match status {
            Some("error" | "cancelled") => Some(ReadResult {
                text: call
                    .get("resultDisplay")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_owned(),
                is_error: true,
            }),
            _ => None,
        };
    };
    if tool == SHELL {
        return Some(shell_result(output));
    }
    Some(ReadResult {
        text: output.to_owned(),
        is_error: matches!(status, Some("error" | "cancelled")),
    })
}

/// `run_shell_command`'s answer as the command's output plus the exit marker.
fn shell_result(answer: &str) -> ReadResult {
    let answer = answer
        .strip_prefix("<untrusted_context>\n")
        .and_then(|a| a.strip_suffix("\n</untrusted_context>"))
        .unwrap_or(answer);
    if answer.starts_with("Command was automatically cancelled")
        || answer.starts_with("Command was cancelled by user")
    {
        return ReadResult {
            text: answer.to_owned(),
            is_error: true,
        };
    }
    // Older versions put the command and the folder first.
    let mut body = answer;
    for key in ["Command: ", "Directory: "] {
        if body.starts_with(key) {
            body = body.split_once('\n').map_or("", |(_, rest)| rest);
        }
    }
    let Some(body) = body.strip_prefix("Output: ") else {
        return ReadResult {
            text: answer.to_owned(),
            is_error: false,
        };
    };
    let mut lines: Vec<&str> = body.split('\n').collect();
    let mut code = None;
    // The trailer, last line first, each key at most once and in the
    // order the CLI writes them; an `Error:` or `Signal:` with a value
    // stays in the text (it may as well be the command's own last line).
    for key in [
        "Process Group PGID: ",
        "Background PIDs: ",
        "Signal: ",
        "Exit Code: ",
        "Error: ",
    ] {
        let Some(value) = lines.last().and_then(|l| l.strip_prefix(key)) else {
            continue;
        };
        match key {
            "Exit Code: " => code = value.trim().parse::<i64>().ok(),
            "Signal: " | "Error: " if value.trim() != "(none)" => break,
            _ => {}
        }
        lines.pop();
    }
    let mut text = lines.join("\n");
    if text == "(empty)" {
        text.clear();
    }
    if let Some(code) = code {
        add_exit_marker(&mut text, code);
    }
    ReadResult {
        text,
        is_error: false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shell_answers_of_old_and_new_versions() {
        let r = shell_result("<untrusted_context>\nOutput: boom\nExit Code: 2\nProcess Group PGID: 9\n</untrusted_context>");
        assert_eq!(
            (r.text.as_str(), r.is_error),
            ("boom\n[exit code: 2]", false)
        );
        let r = shell_result("Command: ls\nDirectory: (root)\nOutput: a\nb\nError: (none)\nExit Code: 0\nSignal: (none)\nBackground PIDs: (none)\nProcess Group PGID: 5");
        assert_eq!(r.text, "a\nb");
        // The command's own last line that looks like a trailer stays.
        let r = shell_result("Output: Error: cannot find module\nProcess Group PGID: 7");
        assert_eq!(r.text, "Error: cannot find module");
        let r = shell_result("Output: (empty)\nExit Code: 3\nProcess Group PGID: 7");
        assert_eq!(r.text, "[exit code: 3]");
        let r = shell_result("Command was automatically cancelled because it exceeded the timeout of 5.0 minutes without output. There was no output before it was cancelled.");
        assert!(r.is_error);
    }

    #[test]
    fn a_message_written_again_keeps_its_place_and_its_last_version() {
        let text = [
            r#"{"sessionId":"s","projectHash":"h","kind":"main"}"#,
            r#"{"id":"u1","type":"user","content":[{"text":"go"}]}"#,
            r#"{"id":"g1","type":"gemini","content":"","toolCalls":[{"id":"c1","name":"run_shell_command","args":{"command":"ls"},"status":"executing"}]}"#,
            r#"{"$set":{"lastUpdated":"2026-01-01T00:00:00Z"}}"#,
            r#"{"id":"g1","type":"gemini","content":"","model":"gemini-x","toolCalls":[{"id":"c1","name":"run_shell_command","args":{"command":"ls"},"status":"success","result":[{"functionResponse":{"id":"c1","response":{"output":"Output: a"}}}]}]}"#,
            r#"{"id":"u2","type":"user","content":[{"functionResponse":{"id":"c1","response":{"output":"Output: a"}}}]}"#,
            r#"{"$rewindTo":"u2"}"#,
            r#"{"id":"u3","type":"user","content":[{"text":"again"}]}"#,
        ]
        .join("\n");
        let read = read(&fold(&text).unwrap()).unwrap();
        assert_eq!(read.session_id.as_deref(), Some("s"));
        assert_eq!(read.model.as_deref(), Some("gemini-x"));
        let kinds: Vec<String> = read
            .events
            .iter()
            .map(|e| match e {
                ReadEvent::Prompt { .. } => "prompt".to_owned(),
                ReadEvent::UserText(t) => format!("user {t}"),
                ReadEvent::Call(c) => format!("call {}", c.result.as_ref().unwrap().text),
            })
            .collect();
        assert_eq!(kinds, ["user go", "call a", "prompt", "user again"]);
    }
}
