//! mini-swe-agent trajectories (`*.traj.json`, written by `mini`/`mini-extra`
//! with `--output`; shapes checked against the real package, see
//! scripts/record/record-audit-fixtures.mjs and __test__/audit/fixtures/mini-swe-agent/).
//!
//! ```text
//! {"info": {"config": {"model": {"model_name"}}, "exit_status", …},
//!  "messages": [
//!    {"role": "system" | "user", "content": …},
//!    {"role": "assistant", "content": "…", "tool_calls": [{"id", "function": {"name": "bash", "arguments": "{\"command\": …}"}}],
//!     "extra": {"timestamp": 1775810901.2, "response": {"usage": {…}}}},
//!    {"role": "tool", "tool_call_id": …, "content": "<returncode>0</returncode>\n<output>…</output>",
//!     "extra": {"raw_output": "…", "returncode": 0, "exception_info": ""}},
//!    {"role": "exit", "content": …, "extra": {"exit_status": "Submitted"}}],
//!  "trajectory_format": "mini-swe-agent-1.1", "instance_id": …}
//! ```
//!
//! The older text-action form (mini-swe-agent 1.x, `trajectory_format`
//! "mini-swe-agent-1") has no `tool_calls`: the action is the one fenced
//! ```` ```bash ```` block of the assistant's text, and the observation is
//! the next `user` message, `<returncode>N</returncode>` then `<output>` (or
//! `<output_head>`/`<elided_chars>`/`<output_tail>` when long). A `user`
//! message that is not an observation (a format error the harness wrote, or
//! a human's message in interactive mode) is told apart by its `extra`.
//! A command the 1.x harness killed at its timeout is answered by its
//! `timeout_template` message instead (`The last command <command>…</command>
//! timed out and has been killed.`, no `<returncode>`): a failed call
//! (`is_error`) with that message as its result. 2.x reports the same as
//! `returncode` -1 with `extra.exception_info`: a failed call too.

use std::sync::OnceLock;

use regex::Regex;

use serde_json::Value;

use super::chat_calls::{function_call, OpenCalls};
use super::session::{
    command_arguments, epoch_seconds_ms, message_text, ReadCall, ReadEvent, ReadResult, ReadSession,
};
use super::shell::add_exit_marker;

/// The tool name of a text-form action (the agent's one tool).
const BASH: &str = "bash";

/// Whether a `messages` list (without `trajectory_format`) is mini-swe-agent's:
/// chat messages whose assistant turns carry a fenced bash block or tool calls,
/// answered by `<returncode>` observations.
pub(crate) fn looks_like(messages: &[Value]) -> bool {
    messages.iter().any(|m| {
        m.get("content")
            .and_then(Value::as_str)
            .is_some_and(|c| c.contains("<returncode>"))
    })
}

pub(crate) fn read(value: &Value) -> Result<ReadSession, String> {
    let Some(messages) = value.get("messages").and_then(Value::as_array) else {
        return Err("mini-swe-agent trajectory without a \"messages\" list".to_owned());
    };
    let info = value.get("info");
    let mut read = ReadSession {
        session_id: value
            .get("instance_id")
            .and_then(Value::as_str)
            .map(str::to_owned),
        model: info
            .and_then(|i| i.pointer("/config/model/model_name"))
            .and_then(Value::as_str)
            .map(str::to_owned),
        exit_codes: true,
        ..Default::default()
    };
    let tool_calling = messages
        .iter()
        .any(|m| m.get("tool_calls").is_some_and(|c| c.is_array()))
        || messages
            .iter()
            .any(|m| m.get("role").and_then(Value::as_str) == Some("tool"));
    if tool_calling {
        read_tool_calls(messages, &mut read);
    } else {
        read_text_actions(messages, &mut read);
    }
    Ok(read)
}

/// The tool-call form: each `tool` message answers a call by its id.
fn read_tool_calls(messages: &[Value], read: &mut ReadSession) {
    let mut open = OpenCalls::default();
    for (index, message) in messages.iter().enumerate() {
        let role = message.get("role").and_then(Value::as_str).unwrap_or("");
        match role {
            "assistant" => {
                let extra = message.get("extra");
                let time = epoch_seconds_ms(extra.and_then(|e| e.get("timestamp")));
                let mut usage = extra
                    .and_then(|e| e.pointer("/response/usage"))
                    .and_then(openai_usage);
                let calls = message.get("tool_calls").and_then(Value::as_array);
                for call in calls.into_iter().flatten() {
                    let (tool, arguments_json) = function_call(call);
                    let call = ReadCall {
                        call_id: call.get("id").and_then(Value::as_str).map(str::to_owned),
                        tool,
                        arguments_json,
                        time,
                        usage: usage.take(),
                        ..Default::default()
                    };
                    open.push(read, index, call);
                }
            }
            "tool" => {
                if let Some(call) = open.answered(read, index, message) {
                    call.end_time = epoch_seconds_ms(message.pointer("/extra/timestamp"));
                    call.result = Some(observation(message));
                }
            }
            "user" if is_human(message) => {
                if index > 0 && read.calls() > 0 {
                    read.events.push(ReadEvent::Prompt { line: None });
                }
                read.events.push(ReadEvent::UserText(content_text(message)));
            }
            _ => {}
        }
    }
}

/// The text form: one fenced bash block per assistant turn, answered by the
/// next `user` message that carries a `<returncode>` or says the harness
/// killed the command.
fn read_text_actions(messages: &[Value], read: &mut ReadSession) {
    let mut waiting: Option<usize> = None;
    for (index, message) in messages.iter().enumerate() {
        let role = message.get("role").and_then(Value::as_str).unwrap_or("");
        let content = content_text(message);
        match role {
            "assistant" => {
                let Some(command) = bash_action(&content) else {
                    continue;
                };
                if let Some(at) = waiting.take() {
                    unanswered_before(read, at, index);
                }
                waiting = Some(read.events.len());
                let extra = message.get("extra");
                read.events.push(ReadEvent::Call(ReadCall {
                    tool: BASH.to_owned(),
                    arguments_json: command_arguments(&command),
                    time: epoch_seconds_ms(extra.and_then(|e| e.get("timestamp"))),
                    usage: extra
                        .and_then(|e| e.pointer("/response/usage"))
                        .and_then(openai_usage),
                    ..Default::default()
                }));
            }
            "user" if is_timeout(&content) => match waiting.take() {
                Some(at) => {
                    if let ReadEvent::Call(call) = &mut read.events[at] {
                        call.end_time = epoch_seconds_ms(message.pointer("/extra/timestamp"));
                        call.result = Some(timeout_result(&content));
                    }
                }
                None => read.note(
                    None,
                    None,
                    format!(
                        "message {}: a timeout message with no action before it",
                        index + 1
                    ),
                ),
            },
            "user" | "tool" if content.contains("<returncode>") => match waiting.take() {
                Some(at) => {
                    if let ReadEvent::Call(call) = &mut read.events[at] {
                        call.end_time = epoch_seconds_ms(message.pointer("/extra/timestamp"));
                        call.result = Some(observation(message));
                    }
                }
                None => read.note(
                    None,
                    None,
                    format!(
                        "message {}: an observation with no action before it",
                        index + 1
                    ),
                ),
            },
            "user" if is_human(message) => {
                if index > 0 && read.calls() > 0 {
                    read.events.push(ReadEvent::Prompt { line: None });
                }
                read.events.push(ReadEvent::UserText(content_text(message)));
            }
            _ => {}
        }
    }
}

/// The result of a command the harness killed: its own message (the
/// command, then the output so far), a failure with no exit status.
pub(crate) fn timeout_result(message: &str) -> ReadResult {
    let end = message
        .find("</output>")
        .map_or(message.len(), |at| at + "</output>".len());
    ReadResult {
        text: message[..end].trim().to_owned(),
        is_error: true,
    }
}

/// mini-swe-agent 1.x's `timeout_template` (the terminal may wrap its line).
fn timeout_message() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(r"^\s*The last command <command>(?s:.*?)</command>\s+timed\s+out\s+and\s+has\s+been\s+killed\.")
            .expect("valid")
    })
}

/// Whether an observation is the harness's message for a command it killed.
pub(crate) fn is_timeout(observation: &str) -> bool {
    timeout_message().is_match(observation)
}

/// A note for a text-form action whose observation never came (the next
/// action came first).
fn unanswered_before(read: &mut ReadSession, at: usize, index: usize) {
    let ordinal = read.events[..=at]
        .iter()
        .filter(|e| matches!(e, ReadEvent::Call(_)))
        .count() as u64;
    read.note(
        None,
        Some(ordinal),
        format!(
            "call {ordinal}: the next action (message {}) came before its observation",
            index + 1
        ),
    );
}

/// A `user` message a person wrote: not the harness's own messages (a
/// format error, a timeout, the observation of a command).
fn is_human(message: &Value) -> bool {
    let extra = message.get("extra");
    if extra
        .and_then(|e| e.get("interrupt_type"))
        .is_some_and(|t| !t.is_null())
    {
        return false;
    }
    let content = content_text(message);
    !(content.contains("<returncode>")
        || content.starts_with("Tool call error:")
        || is_timeout(&content))
}

/// A message's text: a string, or the text parts of a content list.
fn content_text(message: &Value) -> String {
    message_text(message.get("content")).unwrap_or_default()
}

/// The command of a text-form action: the one ```` ```bash ```` (or
/// ```` ```sh ````) block; none, or several, is a format error, no action.
/// Read as the harness reads it (mini-swe-agent's `action_regex`: a block
/// whose closing fence starts a line, indented or not; exactly one match,
/// stripped), so a fence quoted in the prose before it or a stray fence
/// after it does not hide a command the harness ran, and a block closed on
/// its last line (`PY` and the fence on one line) is the format error the harness answered.
pub(crate) fn bash_action(text: &str) -> Option<String> {
    static RE: OnceLock<Regex> = OnceLock::new();
    let re = RE.get_or_init(|| {
        Regex::new(r"(?s)```(?:bash|sh|mswea_bash_command)\s*\n(.*?)\n\s*```").expect("valid")
    });
    let mut blocks = re.captures_iter(text);
    let command = blocks.next()?.get(1)?.as_str().trim().to_owned();
    blocks.next().is_none().then_some(command)
}

/// A result: `extra.raw_output` (the untemplated output, whole even when
/// the message elides it) with the exit code of `extra.returncode`, else
/// the text of the templated message.
fn observation(message: &Value) -> ReadResult {
    let extra = message.get("extra");
    let raw = extra
        .and_then(|e| e.get("raw_output"))
        .and_then(Value::as_str);
    let content = content_text(message);
    let (mut text, code) = match raw {
        Some(raw) => (
            raw.to_owned(),
            extra
                .and_then(|e| e.get("returncode"))
                .and_then(Value::as_i64)
                .or_else(|| templated(&content).1),
        ),
        None => templated(&content),
    };
    // A command the environment could not run (a timeout, a docker error).
    let exception = extra
        .and_then(|e| e.get("exception_info"))
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty());
    if let (Some(exception), Some(_)) = (exception, raw) {
        if !text.is_empty() && !text.ends_with('\n') {
            text.push('\n');
        }
        text.push_str(exception);
    }
    if let Some(code) = code {
        add_exit_marker(&mut text, code);
    }
    ReadResult {
        text,
        // The environment could not run or finish it (a timeout): the tool failed.
        // (The template puts `<exception>` first; output that quotes the tag is not one.)
        is_error: exception.is_some() || content.trim_start().starts_with("<exception>"),
    }
}

/// The output and exit code of a templated observation:
/// `[<exception>…</exception>] <returncode>N</returncode> <output>…</output>`
/// or its long form `<output_head>…</output_head> <elided_chars>…</elided_chars>
/// <output_tail>…</output_tail>`.
pub(crate) fn templated(content: &str) -> (String, Option<i64>) {
    let code = tag(content, "returncode").and_then(|c| c.trim().parse().ok());
    let mut text = String::new();
    if let Some(exception) = tag(content, "exception") {
        text.push_str(exception.trim_matches('\n'));
        text.push('\n');
    }
    if let Some(output) = tag(content, "output") {
        text.push_str(output.strip_prefix('\n').unwrap_or(output));
    } else if let (Some(head), Some(tail)) =
        (tag(content, "output_head"), tag(content, "output_tail"))
    {
        text.push_str(head.strip_prefix('\n').unwrap_or(head));
        if !text.ends_with('\n') {
            text.push('\n');
        }
        let elided = tag(content, "elided_chars").unwrap_or("").trim();
        text.push_str(&format!("[… {elided} …]\n"));
        text.push_str(tail.strip_prefix('\n').unwrap_or(tail));
    } else if code.is_none() {
        text.push_str(content);
    }
    (text, code)
}

/// The text between `<name>` and the last `</name>` (outputs may hold the tag).
fn tag<'t>(text: &'t str, name: &str) -> Option<&'t str> {
    let open = format!("<{name}>");
    let close = format!("</{name}>");
    let start = text.find(&open)? + open.len();
    let end = text.rfind(&close)?;
    (end >= start).then(|| &text[start..end])
}

/// OpenAI `usage` (`prompt_tokens` counts cached input too) as (input, output).
pub(crate) fn openai_usage(usage: &Value) -> Option<(u64, u64)> {
    let n = |key: &str| usage.get(key).and_then(Value::as_u64);
    let input = n("prompt_tokens").or_else(|| n("input_tokens"));
    let output = n("completion_tokens").or_else(|| n("output_tokens"));
    (input.is_some() || output.is_some()).then(|| (input.unwrap_or(0), output.unwrap_or(0)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_action_blocks() {
        assert_eq!(
            bash_action("THOUGHT: x\n\n```bash\nls -la\n```\n").as_deref(),
            Some("ls -la")
        );
        assert_eq!(bash_action("no block"), None);
        // A stray closing fence after the block (real: grok-4-fast under
        // mini-swe-agent 1.14, which ran the command).
        assert_eq!(
            bash_action("THOUGHT: x\n\n```bash\ncd app && npm run dev\n```\n```").as_deref(),
            Some("cd app && npm run dev")
        );
        // Two actions in one turn: the agent rejects it as a format error.
        assert_eq!(bash_action("```bash\na\n```\n```bash\nb\n```"), None);
        // An indented block ran (gpt-5 under mini-swe-agent 1.17); one closed
        // on its last line got the harness's format error.
        assert_eq!(
            bash_action("Plan:\n    ```bash\n    cd /testbed && ls\n    ```").as_deref(),
            Some("cd /testbed && ls")
        );
        assert_eq!(
            bash_action("```bash\npython - <<'PY'\nprint(1)\nPY```"),
            None
        );
        // Three backticks quoted in the prose before the block (real: gemini-3-pro
        // under mini-swe-agent 1.15 writing `:kbd:```, the harness ran the command).
        assert_eq!(
            bash_action(
                "Empty input `:kbd:``` -> `split` -> ['']\nSo apply it.\n\n```bash\ncat a.py\n```"
            )
            .as_deref(),
            Some("cat a.py")
        );
        assert_eq!(
            bash_action("```python\nx\n```\n```bash\npytest\n```").as_deref(),
            Some("pytest")
        );
    }

    #[test]
    fn templated_observations() {
        assert_eq!(
            templated("<returncode>2</returncode>\n<output>\nboom\n</output>"),
            ("boom\n".to_owned(), Some(2))
        );
        let long = "<returncode>0</returncode>\n<warning>\nlong\n</warning><output_head>\nA\n</output_head>\n<elided_chars>\n12 characters elided\n</elided_chars>\n<output_tail>\nZ\n</output_tail>";
        assert_eq!(
            templated(long),
            ("A\n[… 12 characters elided …]\nZ\n".to_owned(), Some(0))
        );
    }

    fn results(value: serde_json::Value) -> Vec<(String, Option<ReadResult>)> {
        read(&value)
            .unwrap()
            .events
            .into_iter()
            .filter_map(|e| match e {
                ReadEvent::Call(c) => Some((c.arguments_json, c.result)),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn a_text_action_killed_by_its_timeout_is_a_failed_call_not_a_human_message() {
        // Synthetic, in 1.x's shapes: the harness answers a killed command
        // with its `timeout_template`, a `user` message with no <returncode>.
        let calls = results(serde_json::json!({"messages": [
            {"role": "system", "content": "s"},
            {"role": "user", "content": "the task"},
            {"role": "assistant", "content": "```bash\nsleep 999\n```"},
            {"role": "user", "content": "The last command <command>sleep 999</command> timed out and has been killed.\nThe output of the command was:\n <output>\npartial\n</output>\nPlease try another command and make sure to avoid those requiring interactive input."},
            {"role": "assistant", "content": "```bash\nls\n```"},
            {"role": "user", "content": "<returncode>0</returncode>\n<output>\na\n</output>"}
        ]}));
        assert_eq!(calls.len(), 2);
        let killed = calls[0].1.as_ref().expect("answered");
        assert!(killed.is_error);
        assert_eq!(
            killed.text,
            "The last command <command>sleep 999</command> timed out and has been killed.\nThe output of the command was:\n <output>\npartial\n</output>"
        );
        let read = read(&serde_json::json!({"messages": [
            {"role": "assistant", "content": "```bash\nsleep 999\n```"},
            {"role": "user", "content": "The last command <command>sleep 999</command> timed out and has been killed.\nThe output of the command was:\n <output>\n\n</output>"}
        ]}))
        .unwrap();
        // Not a person's message: no prompt, no user text, no note.
        assert!(read.events.iter().all(|e| matches!(e, ReadEvent::Call(_))));
        assert!(read.notes.is_empty());
    }

    #[test]
    fn a_tool_call_the_environment_could_not_finish_is_a_failed_call() {
        // Synthetic, in 2.x's shapes: a timeout is returncode -1 with
        // `exception_info`.
        let calls = results(serde_json::json!({"messages": [
            {"role": "assistant", "content": "", "tool_calls": [
                {"id": "c1", "function": {"name": "bash", "arguments": "{\"command\": \"sleep 999\"}"}}]},
            {"role": "tool", "tool_call_id": "c1",
             "content": "<exception>An error occurred while executing the command: Command 'sleep 999' timed out after 30 seconds</exception>\n<returncode>-1</returncode>\n<output>\n</output>",
             "extra": {"raw_output": "", "returncode": -1,
                       "exception_info": "An error occurred while executing the command: Command 'sleep 999' timed out after 30 seconds"}}
        ]}));
        let result = calls[0].1.as_ref().expect("answered");
        assert!(result.is_error);
        assert!(result.text.starts_with(
            "An error occurred while executing the command: Command 'sleep 999' timed out"
        ));
        assert!(result.text.ends_with("[exit code: -1]"));
    }
}
