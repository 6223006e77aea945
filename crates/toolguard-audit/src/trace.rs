//! The generic trace format (docs/trace-format.md): one JSON object a line,
//! for harnesses other than DSH.
//!
//! ```text
//! {"agentId":"main","tool":"bash","arguments":{"command":"make"},"output":"…","exitCode":0}
//! {"agentId":"main","type":"user","text":"…"}  the user spoke: that agent's chain starts over
//!                                               (`text`, optional: what the user said)
//! {"agentId":"main","type":"end"}       the agent is gone: its chain is dropped
//! ```

use serde_json::{Map, Value};

use super::replay::{CallCost, CallSite, Run, Usage};
use super::report::SessionReport;
use toolguard_core::engine::Output;
use toolguard_core::markers::shows_failure;

/// The agent of lines without `agentId`.
pub const DEFAULT_AGENT: &str = "main";

pub(super) fn line(
    run: &mut Run,
    report: &mut SessionReport,
    number: u64,
    event: &Map<String, Value>,
) {
    let agent = match event.get("agentId") {
        None | Some(Value::Null) => DEFAULT_AGENT,
        Some(Value::String(id)) => id.as_str(),
        Some(_) => {
            report.error(Some(number), "\"agentId\" must be a string".to_owned());
            return;
        }
    };
    run.note_agent(report, agent);
    let kind = match event.get("type") {
        None => "call",
        Some(Value::String(kind)) => kind.as_str(),
        Some(_) => {
            report.error(Some(number), "\"type\" must be a string".to_owned());
            return;
        }
    };
    match kind {
        "call" => call(run, report, number, agent, event),
        "user" => {
            let text = match event.get("text") {
                None | Some(Value::Null) => None,
                Some(Value::String(text)) => Some(text.as_str()),
                Some(_) => {
                    report.error(Some(number), "\"text\" must be a string".to_owned());
                    None
                }
            };
            run.reset(agent);
            // The errors the user quotes are the reported bug (docs/shell-model.md).
            if let Some(text) = text {
                run.note_user_text(agent, text);
            }
        }
        "end" => run.end_agent(agent),
        other => report.error(
            Some(number),
            format!("unknown trace line type \"{other}\" (expected call, user or end), skipped"),
        ),
    }
}

fn call(
    run: &mut Run,
    report: &mut SessionReport,
    number: u64,
    agent: &str,
    event: &Map<String, Value>,
) {
    let Some(name) = event.get("tool").and_then(Value::as_str) else {
        report.error(
            Some(number),
            "call line without a string \"tool\"".to_owned(),
        );
        return;
    };
    let arguments_json = match (event.get("arguments"), event.get("argumentsJson")) {
        (Some(_), Some(_)) => {
            report.error(
                Some(number),
                "give \"arguments\" or \"argumentsJson\", not both".to_owned(),
            );
            return;
        }
        (None, Some(Value::String(raw))) => raw.clone(),
        (None, Some(_)) => {
            report.error(
                Some(number),
                "\"argumentsJson\" must be a string".to_owned(),
            );
            return;
        }
        (Some(value), None) => value.to_string(),
        (None, None) => String::new(),
    };
    let mut texts: Vec<&str> = match (event.get("output"), event.get("content")) {
        (Some(Value::String(text)), None) => vec![text.as_str()],
        (None, Some(Value::Array(blocks))) => blocks
            .iter()
            .filter(|b| b.get("type").and_then(Value::as_str) == Some("text"))
            .filter_map(|b| b.get("text").and_then(Value::as_str))
            .collect(),
        (None, None) => Vec::new(),
        _ => {
            report.error(
                Some(number),
                "give \"output\" (a string) or \"content\" (text blocks), not both".to_owned(),
            );
            return;
        }
    };
    let is_error = match flag(event, "isError") {
        Ok(b) => b,
        Err(message) => return report.error(Some(number), message),
    };
    // A non-zero exit shown the DSH way, so `when: success` rules stay silent
    // exactly as they would behind DSH's shell tools.
    let marker;
    match event.get("exitCode") {
        None | Some(Value::Null) => {}
        Some(code) => match code.as_i64() {
            Some(0) => {}
            Some(code) => {
                let joined = texts.join("\n");
                if !shows_failure(&joined) {
                    marker = format!("[exit code: {code}]");
                    texts.push(&marker);
                }
            }
            None => {
                report.error(Some(number), "\"exitCode\" must be an integer".to_owned());
                return;
            }
        },
    }
    // Issued before the previous call's result came back (parallel calls
    // of one model turn): recorded, never alarmed on (docs/loops.md).
    let concurrent = match flag(event, "concurrent") {
        Ok(b) => b,
        Err(message) => return report.error(Some(number), message),
    };
    let cost = match cost(event) {
        Ok(cost) => cost,
        Err(message) => {
            report.error(Some(number), message);
            return;
        }
    };
    report.calls += 1;
    let call_id = match event.get("callId").and_then(Value::as_str) {
        Some(id) => id.to_owned(),
        None => format!("line {number}"),
    };
    let site = CallSite {
        ordinal: report.calls,
        agent_id: Some(agent.to_owned()),
        call_id: Some(call_id),
        name: name.to_owned(),
        arguments_json,
        line: number,
        seq: None,
        turn: None,
        cost,
        concurrent,
    };
    let output = Output {
        is_error,
        texts,
        value_json: None,
        exit_statuses: None,
        status_unrecorded: false,
    };
    run.observe(report, &site, &output);
}

/// An optional boolean field of a call line: absent or null is `false`.
fn flag(event: &Map<String, Value>, key: &str) -> Result<bool, String> {
    match event.get(key) {
        None | Some(Value::Null) => Ok(false),
        Some(Value::Bool(b)) => Ok(*b),
        Some(_) => Err(format!("\"{key}\" must be a boolean")),
    }
}

/// `time`, `endTime` (ms since the Unix epoch) and `usage` of a call line.
fn cost(event: &Map<String, Value>) -> Result<CallCost, String> {
    let ms = |key: &str| match event.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => v.as_u64().map(Some).ok_or_else(|| {
            format!("\"{key}\" must be a whole number of milliseconds since the Unix epoch")
        }),
    };
    let usage = match event.get("usage") {
        None | Some(Value::Null) => None,
        Some(Value::Object(u)) => {
            let count = |key: &str, required: bool| match u.get(key) {
                None if !required => Ok(0),
                Some(v) if v.as_u64().is_some() => Ok(v.as_u64().unwrap_or(0)),
                _ => Err(format!(
                    "\"usage.{key}\" must be a non-negative integer{}",
                    if required { " (required)" } else { "" }
                )),
            };
            Some(Usage {
                input: count("inputTokens", true)?
                    + count("cacheReadTokens", false)?
                    + count("cacheWriteTokens", false)?,
                output: count("outputTokens", true)?,
            })
        }
        Some(_) => return Err("\"usage\" must be an object {inputTokens, outputTokens}".to_owned()),
    };
    Ok(CallCost {
        time: ms("time")?,
        end_time: ms("endTime")?,
        usage,
    })
}
