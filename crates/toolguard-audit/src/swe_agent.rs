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
//!
//! A command the harness stopped at its timeout is a failed call
//! (`is_error`), its observation (the harness's message) the result: 0.x
//! appends a last line `EXECUTION TIMED OUT` (`… AND INTERRUPT FAILED.
//! RESTARTING PROCESS.`; and `COMMAND FAILED TO EXECUTE.`, `BROKEN PIPE
//! ERROR.`, `EXECUTION FAILED OR COMMAND MALFORMED` when it could not run
//! it), 1.x answers with `command_cancelled_timeout_template` (`The command
//! '…' was cancelled because it took more than N seconds.`).

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
                is_error: harness_stopped(text),
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

/// Whether an observation is the harness's word that it stopped (or could
/// not run) the command, not the command's output.
fn harness_stopped(observation: &str) -> bool {
    let last = observation.trim_end().rsplit('\n').next().unwrap_or("");
    [
        "EXECUTION TIMED OUT",
        "COMMAND FAILED TO EXECUTE.",
        "BROKEN PIPE ERROR.",
        "EXECUTION FAILED OR COMMAND MALFORMED",
    ]
    .iter()
    .any(|m| last.starts_with(m))
        || (observation.starts_with("The command '")
            && observation.contains("' was cancelled because it took more than "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_command_stopped_at_its_timeout_is_a_failed_call() {
        // Synthetic, in 0.x's and 1.x's shapes.
        let read = read(&serde_json::json!({"trajectory": [
            {"action": "python slow.py\n", "observation": "partial\nEXECUTION TIMED OUT"},
            {"action": "sleep 999", "observation": "The command 'sleep 999' was cancelled because it took more than 30 seconds. Please try a different command that completes more quickly."},
            {"action": "ls", "observation": "EXECUTION TIMED OUT is a string in this file\na.py"}
        ]}))
        .unwrap();
        let errors: Vec<bool> = read
            .events
            .iter()
            .filter_map(|e| match e {
                ReadEvent::Call(c) => c.result.as_ref().map(|r| r.is_error),
                _ => None,
            })
            .collect();
        assert_eq!(errors, [true, true, false]);
    }
}
