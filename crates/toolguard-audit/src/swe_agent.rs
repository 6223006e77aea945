//! Classic SWE-agent trajectories (`*.traj`, SWE-agent ≤ 0.7 and the 1.x
//! `trajectory` view): `{"trajectory": [{"action", "observation", "thought",
//! "response", "state", "execution_time"?}], "history": […], "info": {…}}`.
//!
//! Each `trajectory` step is one call: its `action` is what the agent ran
//! in its shell session (plain shell, or SWE-agent's own commands such as
//! `open`, `edit 1:1 … end_of_edit`, `find_file`, defined as shell
//! functions there), so every step is a `bash` call. The format records no
//! exit code: failures are read from the output text only, and the report
//! says so (a note) rather than guess one. `history` is the chat view of
//! the same steps; a `user` message there that is not a step's observation
//! (a human's, in interactive mode) would restart chains, but `trajectory`
//! does not say where it falls, so only `trajectory` is read for calls. The
//! `user` messages of `history` before the first step (the task, with the
//! issue text) are what the user said: the errors they quote are the
//! reported bug (core `shell::intent`).

use serde_json::Value;

use super::session::{
    command_arguments, message_text, ReadCall, ReadEvent, ReadResult, ReadSession,
};

pub(crate) fn read(value: &Value) -> Result<ReadSession, String> {
    let Some(steps) = value.get("trajectory").and_then(Value::as_array) else {
        return Err("SWE-agent trajectory without a \"trajectory\" list".to_owned());
    };
    let info = value.get("info");
    let mut read = ReadSession {
        session_id: info
            .and_then(|i| i.get("instance_id"))
            .or_else(|| value.get("instance_id"))
            .and_then(Value::as_str)
            .map(str::to_owned),
        model: value
            .pointer("/replay_config")
            .and_then(Value::as_str)
            .and_then(|c| serde_json::from_str::<Value>(c).ok())
            .and_then(|c| {
                c.pointer("/agent/model/name")
                    .and_then(Value::as_str)
                    .map(str::to_owned)
            }),
        exit_codes: false,
        ..Default::default()
    };
    let history = value.get("history").and_then(Value::as_array);
    for message in history
        .into_iter()
        .flatten()
        .take_while(|m| m.get("role").and_then(Value::as_str) != Some("assistant"))
        .filter(|m| m.get("role").and_then(Value::as_str) == Some("user"))
    {
        let Some(text) = message_text(message.get("content")) else {
            continue;
        };
        read.events.push(ReadEvent::UserText(text));
    }
    for (index, step) in steps.iter().enumerate() {
        let Some(action) = step.get("action").and_then(Value::as_str) else {
            read.note(
                None,
                None,
                format!(
                    "trajectory step {}: no \"action\" string, skipped",
                    index + 1
                ),
            );
            continue;
        };
        let command = action.trim_end_matches('\n');
        let result = match step.get("observation") {
            Some(Value::String(text)) => Some(ReadResult {
                text: text.clone(),
                is_error: false,
            }),
            _ => None,
        };
        read.events.push(ReadEvent::Call(ReadCall {
            tool: "bash".to_owned(),
            arguments_json: command_arguments(command),
            result,
            ..Default::default()
        }));
    }
    Ok(read)
}
