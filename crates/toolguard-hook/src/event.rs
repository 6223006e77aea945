//! Decoding a hook event: its members (lone surrogate escapes repaired),
//! the tool's name, arguments and response as the engine reads them.

use std::collections::HashMap;
use std::io::Read;

use serde_json::value::RawValue;
use serde_json::Value;

/// The last 1 MiB of a Codex transcript holds the just-finished call; read no more.
const TRANSCRIPT_TAIL: u64 = 1 << 20;

/// The host of a hook event: they differ in what a `PostToolUse` block
/// does (Claude Code keeps the output and shows the reason after it; Codex
/// replaces the output with the reason).
#[derive(Clone, Copy, PartialEq, Debug)]
pub enum Host {
    ClaudeCode,
    Codex,
}

/// The members of the hook event, each as its raw JSON text.
pub(crate) type Event = HashMap<String, Box<RawValue>>;

/// A member of the event as a JSON value (lone surrogate escapes, which
/// serde_json refuses in a `Value`, read as U+FFFD).
pub(crate) fn field(event: &Event, key: &str) -> Option<Value> {
    event
        .get(key)
        .and_then(|raw| serde_json::from_str(&replace_lone_surrogates(raw.get())).ok())
}

/// A member that is a non-empty string.
pub(crate) fn text_field(event: &Event, key: &str) -> Option<String> {
    match field(event, key) {
        Some(Value::String(s)) if !s.is_empty() => Some(s),
        _ => None,
    }
}

/// The tool's name: a string as is, none (or null) as `""`, anything else as its JSON text.
pub(crate) fn tool_name(event: &Event) -> String {
    match field(event, "tool_name") {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(name)) => name,
        Some(other) => other.to_string(),
    }
}

/// The call's arguments as JSON text: a string as is (Codex may send one),
/// none as `{}`, anything else as its exact JSON text.
pub(crate) fn arguments_json(event: &Event) -> String {
    match event.get("tool_input").map(|raw| raw.get()) {
        None | Some("null") => "{}".into(),
        Some(raw) if raw.starts_with('"') => match field(event, "tool_input") {
            Some(Value::String(text)) => text,
            _ => raw.to_owned(),
        },
        Some(raw) => raw.to_owned(),
    }
}

/// The tool response as the engine should read it. Codex (0.171.0) sends
/// only the output text of a command; its exit code is in the transcript,
/// written before the hook runs.
pub(crate) fn response_of(event: &Event, response: Option<Value>, host: Host) -> Option<Value> {
    let Some(Value::String(output)) = response else {
        return response;
    };
    let exit_code = match (
        host,
        field(event, "transcript_path"),
        field(event, "tool_use_id"),
    ) {
        (Host::Codex, Some(Value::String(path)), Some(id)) if !path.is_empty() => {
            codex_exit_code(&path, &id)
        }
        _ => None,
    };
    Some(match exit_code {
        Some(code) => serde_json::json!({ "output": output, "exit_code": code }),
        None => Value::String(output),
    })
}

/// The exit code of call `call_id` from the `item_completed` event in the
/// last MiB of a Codex transcript.
fn codex_exit_code(path: &str, call_id: &Value) -> Option<f64> {
    use std::io::{Seek, SeekFrom};
    let mut file = std::fs::File::open(path).ok()?;
    let size = file.metadata().ok()?.len();
    let length = size.min(TRANSCRIPT_TAIL);
    file.seek(SeekFrom::Start(size - length)).ok()?;
    let mut bytes = Vec::with_capacity(length as usize);
    file.take(length).read_to_end(&mut bytes).ok()?;
    let text = String::from_utf8_lossy(&bytes);
    let needle = call_id.to_string();
    for line in text.split('\n').rev() {
        if !line.contains(&needle) || !line.contains("\"exit_code\"") {
            continue;
        }
        // The first line of the tail may be cut: unparsable lines are skipped.
        let Ok(record) = serde_json::from_str::<Value>(line) else {
            continue;
        };
        let payload = &record["payload"];
        let item = &payload["item"];
        if payload["type"] == "item_completed" && item["id"] == *call_id {
            if let Some(code) = item["exit_code"].as_f64() {
                return Some(code);
            }
        }
    }
    None
}

pub(crate) use toolguard_core::shell_result::shell_text;

pub use toolguard_core::json_text::replace_lone_surrogates;
