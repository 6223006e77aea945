//! OpenHands V0 LLM completion logs (`llm_completions/<instance>/<model>-<time>.json`,
//! what `log_completions` writes and evaluation runs publish as their
//! trajectories): one model call a file, whose prompt holds the whole run
//! so far. The conversation is `fncall_messages` (OpenAI tool calls and
//! `tool` results; `messages` is the same run in the text-action form the
//! model was prompted with when it has no native function calling), the
//! model's last answer `fncall_response` (its tool calls were never
//! answered: the log ends there).
//!
//! ```text
//! {"messages": [...], "response": {...}, "fncall_messages": [
//!    {"role": "system", ...}, {"role": "user", "content": "<task>"},
//!    {"role": "assistant", "content": "…", "tool_calls": [{"id", "function": {"name": "execute_bash", "arguments": "{\"command\": …}"}}]},
//!    {"role": "tool", "tool_call_id": …, "content": "<output>\n[The command completed with exit code 0.]\n[Current working directory: …]\n[Python interpreter: …]\n[Command finished with exit code 0]"}],
//!  "fncall_response": {"choices": [{"message": {"tool_calls": [...]}}]}, "kwargs": {...}, "timestamp": …, "cost": …}
//! ```
//!
//! A call is every tool call but `finish` (as V0 events count them). The
//! shell's exit code is the harness's trailer (`[Command finished with exit
//! code N]`, older `[The command completed with exit code N.]`), which is
//! taken off the output like the event stream's `metadata.suffix`; a command
//! that did not finish (exit code -1, `[The command has no new output after
//! N seconds…]`, `[The command timed out after…]`, or a command the harness
//! would not run while the previous one runs) is a failed call whose output
//! ends with the harness's message. Any other tool's result that starts
//! with the harness's `ERROR:` is a failed call (V0's ErrorObservation).

use std::sync::OnceLock;

use regex::Regex;
use serde_json::Value;

use super::chat_calls::{function_call, OpenCalls};
use super::session::{message_text, ReadCall, ReadEvent, ReadResult, ReadSession};
use super::shell::add_exit_marker;

/// Tool calls that end the run rather than act (V0's `finish` action).
const NOT_CALLS: [&str; 1] = ["finish"];

/// The shell tool of CodeActAgent (V0) runs.
const SHELL: &str = "execute_bash";

/// Whether a JSON document is a completion log whose run can be read: its
/// `fncall_messages`, or `messages` with native tool calls beside a `response`.
pub(crate) fn looks_like(object: &serde_json::Map<String, Value>) -> bool {
    conversation(object).is_some()
}

fn conversation(object: &serde_json::Map<String, Value>) -> Option<&Vec<Value>> {
    if let Some(Value::Array(messages)) = object.get("fncall_messages") {
        return Some(messages);
    }
    let Some(Value::Array(messages)) = object.get("messages") else {
        return None;
    };
    let native = object.get("response").is_some_and(Value::is_object)
        && messages.iter().any(|m| {
            m.get("role").and_then(Value::as_str) == Some("assistant")
                && m.get("tool_calls").is_some_and(Value::is_array)
        });
    native.then_some(messages)
}

pub(crate) fn read(value: &Value) -> Result<ReadSession, String> {
    let object = value
        .as_object()
        .ok_or_else(|| "an OpenHands completion log is a JSON object".to_owned())?;
    let messages = conversation(object).ok_or_else(|| {
        "OpenHands completion log without \"fncall_messages\" (or native tool calls in \"messages\")"
            .to_owned()
    })?;
    let last = object
        .get("fncall_response")
        .filter(|r| r.is_object())
        .or_else(|| object.get("response"));
    let mut read = ReadSession {
        model: last
            .and_then(|r| r.get("model"))
            .and_then(Value::as_str)
            .map(str::to_owned),
        exit_codes: true,
        ..Default::default()
    };
    let mut open = OpenCalls::default();
    let mut tasks = 0;
    for (index, message) in messages.iter().enumerate() {
        match message.get("role").and_then(Value::as_str).unwrap_or("") {
            "assistant" => push_calls(message, index, &mut open, &mut read),
            "tool" => {
                if let Some(call) = open.answered(&mut read, index, message) {
                    let text = message_text(message.get("content")).unwrap_or_default();
                    call.result = Some(if call.tool == SHELL {
                        shell_result(text)
                    } else {
                        tool_result(text)
                    });
                }
            }
            "user" => {
                // The first user message is the task; a later one, a person
                // writing in the middle of the run.
                if tasks > 0 && read.calls() > 0 {
                    read.events.push(ReadEvent::Prompt { line: None });
                }
                tasks += 1;
                read.events.push(ReadEvent::UserText(
                    message_text(message.get("content")).unwrap_or_default(),
                ));
            }
            _ => {}
        }
    }
    let answer = last
        .and_then(|r| r.pointer("/choices/0/message"))
        .filter(|m| m.get("tool_calls").is_some_and(Value::is_array));
    if let Some(answer) = answer {
        let first = read.calls() + 1;
        push_calls(answer, messages.len(), &mut open, &mut read);
        let made = read.calls() + 1 - first;
        if made > 0 {
            read.note(
                None,
                Some(first),
                format!(
                    "calls {first}–{}: the model's last answer; the log ends before their results",
                    first + made - 1
                ),
            );
        }
    }
    Ok(read)
}

/// The tool calls of one assistant message, each a call unless it ends the run.
fn push_calls(message: &Value, index: usize, open: &mut OpenCalls, read: &mut ReadSession) {
    for call in message
        .get("tool_calls")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let (tool, arguments_json) = function_call(call);
        if NOT_CALLS.contains(&tool.as_str()) {
            continue;
        }
        let call_id = call.get("id").and_then(Value::as_str).map(str::to_owned);
        let call = ReadCall {
            call_id,
            tool,
            arguments_json,
            ..Default::default()
        };
        open.push(read, index, call);
    }
}

/// The harness's lines after a command's output (exit code, working
/// directory, interpreter), in either generation's words.
fn trailer_line() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(
            r"^\[(?:The command completed with exit code (-?\d+)\.|Command finished with exit code (-?\d+)|Current working directory: [^\n]*|Python interpreter: [^\n]*)\]$",
        )
        .expect("valid")
    })
}

/// The harness's word that the command did not finish or did not run.
fn unfinished_message() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(
            r"(?m)^\[(?:The command has no new output after|The command timed out after|Command timed out|Your command .* is NOT executed)",
        )
        .expect("valid")
    })
}

/// A shell result: the output without the harness's trailer, with the
/// exit marker; a command that did not finish keeps the harness's message
/// and is a failed call.
fn shell_result(text: String) -> ReadResult {
    let mut lines: Vec<&str> = text.split('\n').collect();
    let mut code: Option<i64> = None;
    while let Some(line) = lines.last() {
        let Some(found) = trailer_line().captures(line.trim_end_matches('\r')) else {
            break;
        };
        // The last line says it last: keep the code read first from the end.
        if code.is_none() {
            code = found
                .get(1)
                .or_else(|| found.get(2))
                .and_then(|c| c.as_str().parse().ok());
        }
        lines.pop();
    }
    if code == Some(-1) || unfinished_message().is_match(&text) {
        return ReadResult {
            text,
            is_error: true,
        };
    }
    let mut output = lines.join("\n");
    if let Some(code) = code {
        add_exit_marker(&mut output, code);
    }
    ReadResult {
        text: output,
        is_error: false,
    }
}

/// Another tool's result; the harness's `ERROR:` (V0's ErrorObservation) is a failed call.
fn tool_result(text: String) -> ReadResult {
    let is_error = text.trim_start().starts_with("ERROR:");
    ReadResult { text, is_error }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_trailer_is_taken_off_and_read_as_the_exit_code() {
        let ok = shell_result(
            "a,b\n1,2\n[The command completed with exit code 0.]\n[Current working directory: /workspace]\n[Python interpreter: /usr/bin/python]\n[Command finished with exit code 0]".to_owned(),
        );
        assert_eq!(
            ok,
            ReadResult {
                text: "a,b\n1,2".to_owned(),
                is_error: false
            }
        );
        let failed = shell_result(
            "python: can't open file 'x.py'\n[The command completed with exit code 2.]\n[Current working directory: /workspace]\n[Command finished with exit code 2]".to_owned(),
        );
        assert_eq!(
            failed.text,
            "python: can't open file 'x.py'\n[exit code: 2]"
        );
        assert!(!failed.is_error);
        // Output that merely ends with a bracketed line is output.
        let plain = shell_result("[gw0] Python 3.9.0\n[100%] done".to_owned());
        assert_eq!(plain.text, "[gw0] Python 3.9.0\n[100%] done");
    }

    #[test]
    fn a_command_that_did_not_finish_is_a_failed_call_with_the_harness_message() {
        let text = "Watching for file changes\n[The command has no new output after 30 seconds. You may wait longer to see additional output by sending empty command '', send other commands to interact with the current process, or send keys to interrupt/kill the command.]";
        let r = shell_result(text.to_owned());
        assert_eq!(
            r,
            ReadResult {
                text: text.to_owned(),
                is_error: true
            }
        );
        let killed = shell_result("partial\n[Command finished with exit code -1]".to_owned());
        assert!(killed.is_error);
    }

    #[test]
    fn calls_pair_by_id_finish_is_no_call_and_the_last_answer_is_unanswered() {
        let log = serde_json::json!({
            "messages": [],
            "fncall_messages": [
                {"role": "system", "content": "You are OpenHands agent."},
                {"role": "user", "content": [{"type": "text", "text": "Fix the bug"}]},
                {"role": "assistant", "content": "", "tool_calls": [
                    {"id": "toolu_01", "type": "function", "function": {"name": "execute_bash", "arguments": "{\"command\": \"python x.py\"}"}},
                    {"id": "toolu_02", "type": "function", "function": {"name": "str_replace_editor", "arguments": "{\"command\": \"view\", \"path\": \"/a\"}"}}]},
                {"role": "tool", "tool_call_id": "toolu_01", "name": "execute_bash", "content": "boom\n[Command finished with exit code 1]"},
                {"role": "tool", "tool_call_id": "toolu_02", "name": "str_replace_editor", "content": "ERROR:\nInvalid `path` parameter: /a. The path /a does not exist."},
                {"role": "tool", "tool_call_id": "toolu_99", "content": "stray"}
            ],
            "fncall_response": {"model": null, "choices": [{"message": {"role": "assistant", "tool_calls": [
                {"id": "toolu_03", "type": "function", "function": {"name": "execute_bash", "arguments": "{\"command\": \"ls\"}"}},
                {"id": "toolu_04", "type": "function", "function": {"name": "finish", "arguments": "{}"}}]}}]},
            "kwargs": {}, "timestamp": 1.0, "cost": 0.0
        });
        assert!(looks_like(log.as_object().unwrap()));
        // `--format auto` picks it as OpenHands V0, whose reader hands it here.
        assert_eq!(crate::detect_value(&log), Some(crate::Format::OpenHandsV0));
        let read = crate::read_value(crate::Format::OpenHandsV0, &log).unwrap();
        let calls: Vec<&ReadCall> = read
            .events
            .iter()
            .filter_map(|e| match e {
                ReadEvent::Call(c) => Some(c),
                _ => None,
            })
            .collect();
        assert_eq!(calls.len(), 3);
        assert_eq!(
            calls[0].result.as_ref().unwrap().text,
            "boom\n[exit code: 1]"
        );
        assert!(calls[1].result.as_ref().unwrap().is_error);
        assert_eq!(calls[2].call_id.as_deref(), Some("toolu_03"));
        assert!(calls[2].result.is_none());
        assert!(matches!(&read.events[0], ReadEvent::UserText(t) if t == "Fix the bug"));
        assert_eq!(read.notes.len(), 2, "{:?}", read.notes);
    }

    #[test]
    fn a_chat_log_without_tool_calls_is_not_one() {
        let text_only =
            serde_json::json!({"messages": [{"role": "user", "content": "hi"}], "response": {}});
        assert!(!looks_like(text_only.as_object().unwrap()));
    }
}
