//! Tool calls in the OpenAI chat shape (`{"id", "function": {"name",
//! "arguments"}}` in an assistant message) and the `tool` messages that
//! answer them by `tool_call_id`: what mini-swe-agent trajectories and
//! OpenHands completion logs share, read once.

use std::collections::HashMap;

use serde_json::Value;

use super::session::{ReadCall, ReadEvent, ReadSession};

/// A tool call's name and its arguments as JSON text (an object the log
/// wrote unquoted is serialized).
pub(crate) fn function_call(call: &Value) -> (String, String) {
    let function = call.get("function");
    let tool = function
        .and_then(|f| f.get("name"))
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_owned();
    let arguments_json = match function.and_then(|f| f.get("arguments")) {
        Some(Value::String(text)) => text.clone(),
        Some(other) => other.to_string(),
        None => String::new(),
    };
    (tool, arguments_json)
}

/// The calls waiting for their results: `events` index by call id.
#[derive(Default)]
pub(crate) struct OpenCalls(HashMap<String, usize>);

impl OpenCalls {
    /// Pushes `call` as the next event, waiting under its `call_id`; a call
    /// without one (message `index` in the list) is noted: no result can
    /// find it.
    pub(crate) fn push(&mut self, read: &mut ReadSession, index: usize, call: ReadCall) {
        match &call.call_id {
            Some(id) => {
                self.0.insert(id.clone(), read.events.len());
            }
            None => read.note(
                None,
                Some(read.calls() + 1),
                format!("message {}: a tool call without an id", index + 1),
            ),
        }
        read.events.push(ReadEvent::Call(call));
    }

    /// The call the `tool` message `index` answers, no longer waiting; a
    /// result that answers no waiting call is noted.
    pub(crate) fn answered<'r>(
        &mut self,
        read: &'r mut ReadSession,
        index: usize,
        message: &Value,
    ) -> Option<&'r mut ReadCall> {
        let id = message.get("tool_call_id").and_then(Value::as_str);
        let Some(at) = id.and_then(|id| self.0.remove(id)) else {
            read.note(
                None,
                None,
                format!(
                    "message {}: a tool result for {} with no tool call before it",
                    index + 1,
                    id.map_or_else(|| "no call id".to_owned(), |id| format!("call {id}"))
                ),
            );
            return None;
        };
        match &mut read.events[at] {
            ReadEvent::Call(call) => Some(call),
            _ => None,
        }
    }
}
