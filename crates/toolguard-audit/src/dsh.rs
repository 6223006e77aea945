//! DSH session logs (`@deepseek-ai/dsh-session-persistence-jsonl` 0.1.0-rc.8).
//!
//! Line 1 is the header `{"type":"session", id, cwd?, parentSession?, seedLength?, …}`;
//! every other line is a `SessionEvent` (`{type, seq, time, data}`) or a packed
//! chunk row (`text-chunks` / `reasoning-chunks` / `tool-call-chunks`, with
//! `seq0`/`time0`). The guard sees a call when its result exists, as the
//! plugin does in `tools/post-execute`: `tool/call` carries the raw arguments
//! string, `tool/result` the model-facing blocks under
//! `data.message.content[0]` (a `tool-result` block with `toolCallId`,
//! `content`, `isError`).
//!
//! For the timeline, a call's `time` is its `tool/call` event's, its end the
//! `tool/result`'s, and its tokens the `usage` of the `assistant/message`
//! of the same turn and step (the model response that made it).

use std::collections::HashMap;

use serde::Deserialize;
use serde_json::{Map, Value};

use super::replay::{CallCost, CallSite, Run, Usage};
use super::report::SessionReport;
use toolguard_core::engine::{Engine, Output};

/// `KNOWN_SESSION_EVENT_TYPES` of `@deepseek-ai/dsh-session@0.1.0-rc.8`
/// (sorted, for binary search). Any other type without `ignorable: true` is
/// reported: DSH itself refuses to load such a log, since the event may
/// change how the rest reads.
const KNOWN_EVENT_TYPES: &[&str] = &[
    "agent-preset/selected",
    "agent/inbox/spliced",
    "approval/asked",
    "approval/decided",
    "approval/policy",
    "assistant/chunk",
    "assistant/message",
    "command/done",
    "command/run",
    "compaction/end",
    "compaction/prune",
    "compaction/start",
    "compaction/summary",
    "feedback/record",
    "goal/change",
    "hook/invoked",
    "hook/result",
    "llm/retry",
    "llm/retry-started",
    "permission/preset",
    "plan/mode",
    "request/context",
    "request/header",
    "sandbox/mode",
    "schedule/change",
    "session/end-seed",
    "session/title",
    "session/title-llm-request",
    "step/end",
    "step/start",
    "subagent/descriptor",
    "team/member",
    "team/message/delivered",
    "team/message/queued",
    "team/task",
    "todo/write",
    "tool-workflow/agent-end",
    "tool-workflow/agent-start",
    "tool-workflow/run-end",
    "tool-workflow/run-start",
    "tool/call",
    "tool/code-dispatch",
    "tool/code-dispatch-start",
    "tool/result",
    "turn/end",
    "turn/start",
    "user/message",
    "web/deepseek-search-llm-request",
];

/// Storage-only rows (bare tags, never session events).
const CHUNK_ROWS: &[&str] = &["text-chunks", "reasoning-chunks", "tool-call-chunks"];

#[derive(Default)]
pub(super) struct DshState {
    /// The chain's agent id: the session id (a log is one agent's chain).
    agent: Option<String>,
    seen_header: bool,
    /// Events with `seq` below this were inherited through a fork seed.
    seed_length: u64,
    pending: HashMap<String, CallSite>,
    /// The latest step's token usage, until its first call takes it.
    usage: Option<StepUsage>,
}

struct StepUsage {
    turn: Option<u64>,
    step: Option<u64>,
    usage: Usage,
    /// A call of this step already carries it.
    taken: bool,
}

/// `data` of an `assistant/message` event: one model response (a step) and
/// what it cost. The one decoder of this shape (fast and full paths).
#[derive(Deserialize)]
struct AssistantData {
    turn: Option<u64>,
    step: Option<u64>,
    usage: Option<TokenUsage>,
}

/// `TokenUsage` of `@deepseek-ai/dsh-llm`: disjoint counts.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct TokenUsage {
    input_tokens: u64,
    output_tokens: u64,
    #[serde(default)]
    cache_read_tokens: u64,
    #[serde(default)]
    cache_write_tokens: u64,
}

#[derive(Deserialize)]
struct AssistantEvent {
    data: AssistantData,
}

impl DshState {
    fn agent(&mut self, report: &SessionReport) -> String {
        self.agent
            .get_or_insert_with(|| report.file.clone())
            .clone()
    }

    /// A step's usage (summed when a step has several messages).
    fn assistant(&mut self, data: AssistantData) {
        let Some(u) = data.usage else { return };
        let usage = Usage {
            input: u.input_tokens + u.cache_read_tokens + u.cache_write_tokens,
            output: u.output_tokens,
        };
        match &mut self.usage {
            Some(s) if (s.turn, s.step) == (data.turn, data.step) && !s.taken => {
                s.usage.input += usage.input;
                s.usage.output += usage.output;
            }
            slot => {
                *slot = Some(StepUsage {
                    turn: data.turn,
                    step: data.step,
                    usage,
                    taken: false,
                })
            }
        }
    }

    /// Tokens for a call of (`turn`, `step`): the step's usage on its first
    /// call, zero on the others, `None` when the step reported none.
    fn take_usage(&mut self, turn: Option<u64>, step: Option<u64>) -> Option<Usage> {
        let s = self.usage.as_mut()?;
        if (s.turn, s.step) != (turn, step) {
            return None;
        }
        if s.taken {
            return Some(Usage::default());
        }
        s.taken = true;
        Some(s.usage)
    }

    pub(super) fn finish(&mut self, report: &mut SessionReport, engine: &mut Engine) {
        report.unanswered += self.pending.len() as u64;
        if let Some(agent) = &self.agent {
            engine.forget(agent);
        }
        engine.forget(&report.file);
    }
}

fn known(kind: &str) -> bool {
    KNOWN_EVENT_TYPES.binary_search(&kind).is_ok()
}

/// The fast path for lines the audit needs nothing from but validity (and,
/// for a result of a tool that is not scanned, its callId): checked without
/// building a `Value`. DSH writes `type` first (`{"type":"…",…`). Returns
/// false to send the line down the full parse, which also words any error.
pub(super) fn fast_line(run: &mut Run, report: &mut SessionReport, bytes: &[u8]) -> bool {
    let Some(rest) = bytes.strip_prefix(b"{\"type\":\"") else {
        return false;
    };
    let Some(end) = rest.iter().position(|&b| b == b'"' || b == b'\\') else {
        return false;
    };
    let (Ok(kind), b'"') = (std::str::from_utf8(&rest[..end]), rest[end]) else {
        return false;
    };
    let after = &rest[end + 1..];
    if !run.dsh.seen_header {
        return false;
    }
    match kind {
        "tool/result" => fast_result(run, report, bytes, after),
        "assistant/message" => fast_assistant(run, bytes),
        _ if CHUNK_ROWS.contains(&kind) => {
            after.starts_with(b",\"seq0\":")
                && after.get(8).is_some_and(u8::is_ascii_digit)
                && is_valid_json(bytes)
        }
        "session" | "tool/call" | "user/message" | "session/end-seed" => false,
        _ => known(kind) && is_valid_json(bytes),
    }
}

/// An assistant message: only its usage is read. A line whose usage does
/// not decode goes down the full path, which reports it.
fn fast_assistant(run: &mut Run, bytes: &[u8]) -> bool {
    // A forked child's inherited steps are told apart by `seq` on the full path.
    if run.dsh.seed_length > 0 {
        return false;
    }
    // One pass: serde checks the syntax of what it skips (the message), but
    // not that skipped strings are UTF-8, hence `from_utf8` first.
    if std::str::from_utf8(bytes).is_err() {
        return false;
    }
    match serde_json::from_slice::<AssistantEvent>(bytes) {
        Ok(event) => {
            run.dsh.assistant(event.data);
            true
        }
        // Valid JSON serde will not take (a lone surrogate escape in the
        // text): nothing to read, as before usage was read.
        Err(e) if !e.is_data() && is_valid_json(bytes) => true,
        Err(_) => false,
    }
}

/// The top-level `time` of an event written the DSH way (`,"seq":N,"time":N`
/// right after the type).
fn leading_time(after: &[u8]) -> Option<u64> {
    let rest = after.strip_prefix(b",\"seq\":")?;
    let digits = rest.iter().take_while(|b| b.is_ascii_digit()).count();
    let rest = rest[digits..].strip_prefix(b",\"time\":")?;
    let digits = rest.iter().take_while(|b| b.is_ascii_digit()).count();
    std::str::from_utf8(&rest[..digits]).ok()?.parse().ok()
}

/// Whether `bytes` is exactly one JSON value in UTF-8 (surrounding whitespace
/// allowed), checked by serde_json without building it. Most lines of a DSH
/// log (streamed chunks, step markers, results of tools that are not scanned)
/// only need this; building a `Value` for them was most of the parse time. A
/// lone surrogate escape, which `JSON.stringify` writes, is valid (the value
/// is skipped, not decoded). Past serde_json's nesting limit (128) a line is
/// not taken here and goes down the full path.
fn is_valid_json(bytes: &[u8]) -> bool {
    std::str::from_utf8(bytes)
        .is_ok_and(|text| serde_json::from_str::<serde::de::IgnoredAny>(text).is_ok())
}

/// A result of a tool that is not scanned: only the chain advances.
fn fast_result(run: &mut Run, report: &mut SessionReport, bytes: &[u8], after: &[u8]) -> bool {
    if run.dsh.seed_length > 0 {
        return false;
    }
    let Some(end_time) = leading_time(after) else {
        return false;
    };
    // Quotes inside JSON strings are escaped, so this needle is a real key:
    // the first one is `data.message.content[0].toolCallId`.
    let Some(call_id) = string_after(bytes, b"\"toolCallId\":\"") else {
        return false;
    };
    let name = match run.dsh.pending.get(call_id) {
        Some(site) => site.name.clone(),
        None => return false,
    };
    if run.scans(&name) {
        return false;
    }
    if !is_valid_json(bytes) {
        return false;
    }
    let mut site = run.dsh.pending.remove(call_id).expect("checked above");
    site.cost.end_time = Some(end_time);
    run.advance(report, &site);
    true
}

/// The plain (escape-free) string value that follows `needle`.
fn string_after<'b>(bytes: &'b [u8], needle: &[u8]) -> Option<&'b str> {
    let start = bytes.windows(needle.len()).position(|w| w == needle)? + needle.len();
    let len = bytes[start..]
        .iter()
        .position(|&b| b == b'"' || b == b'\\')?;
    if bytes[start + len] != b'"' {
        return None;
    }
    std::str::from_utf8(&bytes[start..start + len]).ok()
}

fn str_field<'v>(object: &'v Map<String, Value>, key: &str) -> Option<&'v str> {
    object.get(key).and_then(Value::as_str)
}

fn u64_field(object: &Map<String, Value>, key: &str) -> Option<u64> {
    object.get(key).and_then(Value::as_u64)
}

pub(super) fn line(
    run: &mut Run,
    report: &mut SessionReport,
    number: u64,
    event: &Map<String, Value>,
) {
    let Some(kind) = str_field(event, "type") else {
        report.error(
            Some(number),
            "no string \"type\": not a DSH event".to_owned(),
        );
        return;
    };
    if kind == "session" {
        header(run, report, number, event);
        return;
    }
    if run.before_since(event.get("time").and_then(Value::as_i64)) {
        return;
    }
    if !run.dsh.seen_header {
        run.dsh.seen_header = true;
        report.error(
            Some(number),
            "no session header line before the first event (the log's start is missing)".to_owned(),
        );
    }
    if CHUNK_ROWS.contains(&kind) {
        if u64_field(event, "seq0").is_none() || !event.get("data").is_some_and(Value::is_object) {
            report.error(
                Some(number),
                format!("malformed {kind} row: needs a numeric \"seq0\" and a \"data\" object"),
            );
        }
        return;
    }
    if !KNOWN_EVENT_TYPES.contains(&kind) {
        if event.get("ignorable") != Some(&Value::Bool(true)) {
            report.error(
                Some(number),
                format!("unknown event type \"{kind}\" (not marked ignorable), skipped"),
            );
        }
        return;
    }
    let seq = u64_field(event, "seq");
    let Some(data) = event.get("data").and_then(Value::as_object) else {
        report.error(
            Some(number),
            format!("{kind} event without a \"data\" object"),
        );
        return;
    };
    // A forked child starts with its parent's events; the parent's log is where they count.
    let inherited = seq.is_some_and(|s| s < run.dsh.seed_length);
    match kind {
        "tool/call" => {
            let (Some(call_id), Some(name), Some(arguments)) = (
                str_field(data, "callId"),
                str_field(data, "name"),
                str_field(data, "arguments"),
            ) else {
                report.error(
                    Some(number),
                    "malformed tool/call: needs string callId, name and arguments".to_owned(),
                );
                return;
            };
            if inherited {
                report.inherited += 1;
                return;
            }
            report.calls += 1;
            let turn = u64_field(data, "turn");
            let cost = CallCost {
                time: u64_field(event, "time"),
                end_time: None,
                usage: run.dsh.take_usage(turn, u64_field(data, "step")),
            };
            let site = CallSite {
                ordinal: report.calls,
                agent_id: Some(run.dsh.agent(report)),
                call_id: Some(call_id.to_owned()),
                name: name.to_owned(),
                arguments_json: arguments.to_owned(),
                line: number,
                seq,
                turn,
                cost,
                concurrent: false,
            };
            if run.dsh.pending.insert(call_id.to_owned(), site).is_some() {
                report.error(
                    Some(number),
                    format!("second tool/call with callId \"{call_id}\" before its result"),
                );
                report.unanswered += 1;
            }
        }
        "tool/result" => {
            let block = data
                .get("message")
                .and_then(|m| m.get("content"))
                .and_then(|c| c.get(0))
                .and_then(Value::as_object);
            let Some(block) = block else {
                report.error(
                    Some(number),
                    "malformed tool/result: no data.message.content[0] block".to_owned(),
                );
                return;
            };
            let Some(call_id) = str_field(block, "toolCallId") else {
                report.error(
                    Some(number),
                    "malformed tool/result: content[0] has no toolCallId".to_owned(),
                );
                return;
            };
            if inherited {
                return;
            }
            let Some(mut site) = run.dsh.pending.remove(call_id) else {
                // With --since the call may be among the lines skipped.
                if run.auditor.options.since_ms.is_none() {
                    report.error(Some(number), format!("tool/result for callId \"{call_id}\" without a tool/call before it, skipped"));
                }
                return;
            };
            let texts: Vec<&str> = match block.get("content") {
                Some(Value::Array(blocks)) => blocks
                    .iter()
                    .filter(|b| b.get("type").and_then(Value::as_str) == Some("text"))
                    .filter_map(|b| b.get("text").and_then(Value::as_str))
                    .collect(),
                _ => Vec::new(),
            };
            let output = Output {
                is_error: block.get("isError") == Some(&Value::Bool(true)),
                texts,
                value_json: None,
                exit_statuses: None,
                status_unrecorded: false,
            };
            site.cost.end_time = u64_field(event, "time");
            run.observe(report, &site, &output);
        }
        "user/message" => {
            // Plugin notices (the official reminder among them) are `kind: 'plugin'`
            // and must not reset; only the user speaking does.
            let kind = data
                .get("source")
                .and_then(|s| s.get("kind"))
                .and_then(Value::as_str);
            if kind == Some("user") && !inherited {
                let agent = run.dsh.agent(report);
                run.reset(&agent);
                // The errors the user quotes are the reported bug (docs/shell-model.md).
                if let Some(Value::Array(blocks)) = data.get("content") {
                    let text: Vec<&str> = blocks
                        .iter()
                        .filter(|b| b.get("type").and_then(Value::as_str) == Some("text"))
                        .filter_map(|b| b.get("text").and_then(Value::as_str))
                        .collect();
                    if !text.is_empty() {
                        run.note_user_text(&agent, &text.join("\n"));
                    }
                }
            }
        }
        "assistant/message" if !inherited => match AssistantData::deserialize(&event["data"]) {
            Ok(data) => run.dsh.assistant(data),
            Err(e) => report.error(Some(number), format!("malformed assistant/message: {e}")),
        },
        "session/end-seed" => {
            // A new lifecycle (resume, fork) starts with fresh plugin state.
            let agent = run.dsh.agent(report);
            run.reset(&agent);
        }
        _ => {}
    }
}

fn header(run: &mut Run, report: &mut SessionReport, number: u64, event: &Map<String, Value>) {
    if run.dsh.seen_header {
        report.error(
            Some(number),
            "second session header line, skipped".to_owned(),
        );
        return;
    }
    run.dsh.seen_header = true;
    let Some(id) = str_field(event, "id") else {
        report.error(
            Some(number),
            "session header without a string \"id\"".to_owned(),
        );
        return;
    };
    report.session_id = Some(id.to_owned());
    report.parent_session = str_field(event, "parentSession").map(str::to_owned);
    report.cwd = str_field(event, "cwd").map(str::to_owned);
    run.dsh.seed_length = u64_field(event, "seedLength").unwrap_or(0);
    run.dsh.agent = Some(id.to_owned());
}

#[cfg(test)]
mod tests {
    #[test]
    fn known_types_sorted_for_binary_search() {
        assert!(super::KNOWN_EVENT_TYPES.windows(2).all(|w| w[0] < w[1]));
    }
}

#[cfg(test)]
mod validity {
    use super::is_valid_json;

    #[test]
    fn a_json_syntax_check_as_serde_json_reads_it() {
        let cases = [
            r#"{}"#,
            r#"[]"#,
            r#" {"a": [1, -2.5e+3, 0, true, false, null, "x\"y\\z\u00e9"], "b": {}} "#,
            r#"{"type":"step/start","seq":3,"time":1,"data":{"turn":1,"step":1}}"#,
            r#""just a string""#,
            r#"0"#,
            r#"{"a":1,}"#,
            r#"{"a" 1}"#,
            r#"{"a":1"#,
            r#"[1,]"#,
            r#"01"#,
            r#"{"a":tru}"#,
            r#"{"a":"\x"}"#,
            r#"{"a":"\u12G4"}"#,
            "{\"a\":\"tab\there\"}",
            r#"{} {}"#,
            r#"{"a":1}}"#,
            "",
            r#"{1:2}"#,
        ];
        for case in cases {
            let full = serde_json::from_str::<serde_json::Value>(case).is_ok();
            assert_eq!(is_valid_json(case.as_bytes()), full, "{case}");
        }
        // Lone surrogate escapes: JSON.stringify writes them; the grammar allows them.
        assert!(is_valid_json(br#"{"a":"\ud800"}"#));
        assert!(!is_valid_json(b"{\"a\":\"\xff\"}"));
    }
}
