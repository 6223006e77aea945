//! Claude Code transcripts: `~/.claude/projects/<slug>/<session>.jsonl`
//! (`$CLAUDE_CONFIG_DIR/projects/…`), subagents in `<session>/subagents/agent-*.jsonl`
//! or, in older versions, sidechain lines in `<slug>/agent-*.jsonl`.
//! Shapes checked against transcripts the real CLI wrote
//! (scripts/record/record-audit-fixtures.mjs; __test__/audit/fixtures/claude-code/).
//!
//! ```text
//! {"type":"user","message":{"role":"user","content":"go"},"sessionId":…,"timestamp":…}       a prompt
//! {"type":"assistant","message":{"id":"msg_1","content":[{"type":"tool_use","id":"toolu_1","name":"Bash","input":{…}}]},…}
//! {"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"hi","is_error":false}]},
//!  "toolUseResult":{"stdout":"hi","stderr":"","interrupted":false},…}
//! ```
//!
//! One assistant message is written as several lines sharing `message.id`
//! (one content block each); a block written twice counts once. The calls
//! of one message run in parallel and their results are written as they
//! finish, so the guard sees them in the order the model made them: a
//! result waits for those of the message's earlier calls. Every other line
//! type (attachments, queue operations, summaries…) carries no call and is
//! passed over.

use std::collections::{HashMap, HashSet, VecDeque};

use serde_json::{Map, Value};

use super::replay::{rfc3339_ms, CallCost, CallSite, Run, Usage};
use super::report::SessionReport;
use super::shell::{add_exit_marker, shell_text, text_blocks};
use toolguard_core::engine::Output;

/// The shell tool whose `is_error` result `Exit code N\n…` is a command that
/// ran and failed, not a tool error.
const BASH: &str = "Bash";

#[derive(Default)]
pub(super) struct ClaudeState {
    pending: HashMap<String, CallSite>,
    /// The current message's calls in the model's order, and their results so far.
    message: Option<String>,
    queue: VecDeque<String>,
    ready: HashMap<String, (String, bool)>,
    /// Tool calls already answered: a block written again is not a new call.
    answered: HashSet<String>,
    /// Real user prompts so far (the `turn` of the calls that follow).
    prompts: u64,
    /// The current line's `timestamp` (ms since the epoch).
    line_time: Option<u64>,
    /// The current message's token usage, given to its first call only (so
    /// sums count each model turn once).
    usage: Option<Usage>,
    /// Each agent's latest call id: a call made while it is still pending
    /// (parallel blocks of one message, or export turns before their
    /// results) is concurrent.
    last_call: HashMap<String, String>,
}

impl ClaudeState {
    /// After [`flush`]: what is still pending never got a result.
    pub(super) fn finish(&mut self, report: &mut SessionReport) {
        report.unanswered += self.pending.len() as u64;
        let mut pending: Vec<&CallSite> = self.pending.values().collect();
        pending.sort_by_key(|site| site.ordinal);
        for site in pending {
            report.note(
                Some(site.line),
                Some(site.ordinal),
                format!(
                    "call {} ({}, {}) has no result in the log",
                    site.ordinal,
                    site.name,
                    site.call_id.as_deref().unwrap_or("")
                ),
            );
        }
    }
}

pub(super) fn line(
    run: &mut Run,
    report: &mut SessionReport,
    number: u64,
    event: &Map<String, Value>,
) {
    let kind = event.get("type").and_then(Value::as_str);
    if !matches!(kind, Some("user" | "assistant")) {
        return;
    }
    let time = event
        .get("timestamp")
        .and_then(Value::as_str)
        .and_then(rfc3339_ms);
    if run.before_since(time) {
        return;
    }
    run.claude.line_time = time.and_then(|ms| u64::try_from(ms).ok());
    if report.session_id.is_none() {
        report.session_id = event
            .get("sessionId")
            .and_then(Value::as_str)
            .map(str::to_owned);
    }
    if report.cwd.is_none() {
        report.cwd = event.get("cwd").and_then(Value::as_str).map(str::to_owned);
    }
    let Some(message) = event.get("message").and_then(Value::as_object) else {
        report.error(
            Some(number),
            format!("{} line without a \"message\" object", kind.unwrap_or("")),
        );
        return;
    };
    if report.model.is_none() && kind == Some("assistant") {
        report.model = message
            .get("model")
            .and_then(Value::as_str)
            .filter(|m| !m.starts_with('<')) // `<synthetic>`: a client-made message
            .map(str::to_owned);
    }
    let agent = agent_of(event, report);
    match (kind, message.get("content")) {
        (Some("assistant"), Some(Value::Array(blocks))) => {
            // A new message: the previous one's calls are as answered as they will be.
            let id = message.get("id").and_then(Value::as_str);
            if id.is_none() || id != run.claude.message.as_deref() {
                flush(run, report);
                run.claude.message = id.map(str::to_owned);
                run.claude.usage = usage_of(message);
            }
            for block in blocks
                .iter()
                .filter(|b| b.get("type").and_then(Value::as_str) == Some("tool_use"))
            {
                tool_use(run, report, number, &agent, block);
            }
        }
        (Some("assistant"), _) => {}
        (_, Some(Value::Array(blocks))) if blocks.iter().any(is_tool_result) => {
            let results: Vec<&Value> = blocks.iter().filter(|b| is_tool_result(b)).collect();
            // `toolUseResult` belongs to the line's one result.
            let extra = (results.len() == 1)
                .then(|| event.get("toolUseResult"))
                .flatten();
            for block in results {
                tool_result(run, report, number, block, extra);
            }
        }
        (_, Some(content @ (Value::String(_) | Value::Array(_)))) => {
            if is_prompt(event) {
                flush(run, report);
                run.claude.prompts += 1;
                run.reset(&agent);
                run.note_user_text(&agent, &text_of(content));
            }
        }
        _ => report.error(
            Some(number),
            "user line without string or block content".to_owned(),
        ),
    }
}

/// A user message's text: a string, or its text blocks.
fn text_of(content: &Value) -> String {
    match content {
        Value::String(text) => text.clone(),
        Value::Array(blocks) => blocks
            .iter()
            .filter_map(|b| b.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

/// An assistant message's `usage`: input counts uncached input plus cache
/// reads and writes (all billed input), as the timeline defines it.
fn usage_of(message: &Map<String, Value>) -> Option<Usage> {
    let usage = message.get("usage")?;
    let n = |key: &str| usage.get(key).and_then(Value::as_u64).unwrap_or(0);
    Some(Usage {
        input: n("input_tokens") + n("cache_creation_input_tokens") + n("cache_read_input_tokens"),
        output: n("output_tokens"),
    })
}

/// The chain a line belongs to: a subagent's own id, else the session's.
fn agent_of(event: &Map<String, Value>, report: &SessionReport) -> String {
    let sidechain = event.get("isSidechain") == Some(&Value::Bool(true));
    let id = match (sidechain, event.get("agentId").and_then(Value::as_str)) {
        (true, Some(agent)) => Some(agent),
        _ => event.get("sessionId").and_then(Value::as_str),
    };
    id.map_or_else(|| report.file.clone(), str::to_owned)
}

fn is_tool_result(block: &Value) -> bool {
    block.get("type").and_then(Value::as_str) == Some("tool_result")
}

/// A prompt the user typed, not one Claude Code wrote in the user's place
/// (meta lines, compaction summaries, background-task notifications).
fn is_prompt(event: &Map<String, Value>) -> bool {
    let flag = |key: &str| event.get(key) == Some(&Value::Bool(true));
    if flag("isMeta") || flag("isCompactSummary") || flag("isVisibleInTranscriptOnly") {
        return false;
    }
    if event.get("promptSource").and_then(Value::as_str) == Some("system") {
        return false;
    }
    match event
        .get("origin")
        .and_then(|o| o.get("kind"))
        .and_then(Value::as_str)
    {
        None | Some("human" | "user") => true,
        Some(_) => false,
    }
}

fn tool_use(run: &mut Run, report: &mut SessionReport, number: u64, agent: &str, block: &Value) {
    let (Some(id), Some(name)) = (
        block.get("id").and_then(Value::as_str),
        block.get("name").and_then(Value::as_str),
    ) else {
        report.error(
            Some(number),
            "tool_use block without a string id and name".to_owned(),
        );
        return;
    };
    if run.claude.pending.contains_key(id) || run.claude.answered.contains(id) {
        return;
    }
    report.calls += 1;
    run.note_agent(report, agent);
    let arguments_json = block
        .get("input")
        .map_or_else(String::new, Value::to_string);
    let concurrent = run
        .claude
        .last_call
        .insert(agent.to_owned(), id.to_owned())
        .is_some_and(|previous| run.claude.pending.contains_key(&previous));
    let site = CallSite {
        ordinal: report.calls,
        call_id: Some(id.to_owned()),
        name: name.to_owned(),
        agent_id: Some(agent.to_owned()),
        line: number,
        seq: None,
        turn: Some(run.claude.prompts),
        arguments_json,
        cost: CallCost {
            time: run.claude.line_time,
            end_time: None,
            usage: run.claude.usage.take(),
        },
        concurrent,
    };
    run.claude.pending.insert(id.to_owned(), site);
    run.claude.queue.push_back(id.to_owned());
}

/// Observe the current message's answered calls in order; calls still
/// unanswered are observed when (if) their result comes.
pub(super) fn flush(run: &mut Run, report: &mut SessionReport) {
    while let Some(id) = run.claude.queue.pop_front() {
        if let Some((text, is_error)) = run.claude.ready.remove(&id) {
            deliver(run, report, &id, &text, is_error);
        }
    }
}

/// Observe one call with its result text.
fn deliver(run: &mut Run, report: &mut SessionReport, id: &str, text: &str, is_error: bool) {
    let Some(site) = run.claude.pending.remove(id) else {
        return;
    };
    if run.scans(&site.name) {
        run.observe(report, &site, &Output::text(text, is_error));
    } else {
        run.advance(report, &site);
    }
}

fn tool_result(
    run: &mut Run,
    report: &mut SessionReport,
    number: u64,
    block: &Value,
    extra: Option<&Value>,
) {
    let Some(id) = block.get("tool_use_id").and_then(Value::as_str) else {
        report.error(
            Some(number),
            "tool_result block without a string tool_use_id".to_owned(),
        );
        return;
    };
    // A result whose call is not in this file (before --since, or cut off by
    // compaction) has nothing to pair with: noted, unless it is a result
    // written again or --since left its call out.
    let Some(site) = run.claude.pending.get_mut(id) else {
        if !run.claude.answered.contains(id) && run.auditor.options.since_ms.is_none() {
            report.note(
                Some(number),
                None,
                format!("a tool_result for {id} with no tool_use before it"),
            );
        }
        return;
    };
    site.cost.end_time = run.claude.line_time;
    let name = site.name.clone();
    run.claude.answered.insert(id.to_owned());
    let (text, is_error) = if run.scans(&name) {
        result_text(&name, block, extra)
    } else {
        (String::new(), false)
    };
    if run.claude.queue.contains(&id.to_owned()) {
        run.claude.ready.insert(id.to_owned(), (text, is_error));
        // The message's calls in order, as far as they are answered.
        while let Some(front) = run.claude.queue.front() {
            let Some((text, is_error)) = run.claude.ready.remove(front) else {
                break;
            };
            let front = run.claude.queue.pop_front().expect("front exists");
            deliver(run, report, &front, &text, is_error);
        }
    } else {
        deliver(run, report, id, &text, is_error);
    }
}

/// What the engine reads of a scanned tool's result, and whether it is an error.
fn result_text(name: &str, block: &Value, extra: Option<&Value>) -> (String, bool) {
    let mut is_error = block.get("is_error") == Some(&Value::Bool(true));
    let content = match block.get("content") {
        Some(Value::String(text)) => text.clone(),
        Some(Value::Array(blocks)) => text_blocks(blocks).join("\n"),
        _ => String::new(),
    };
    let text = match extra {
        // Bash's structured result: stdout, stderr, and whether it was cut short.
        Some(value @ Value::Object(fields)) if !is_error && fields.contains_key("stdout") => {
            let mut text = shell_text(value).unwrap_or_default();
            if fields.get("interrupted") == Some(&Value::Bool(true)) {
                text.push_str(if text.ends_with('\n') { "" } else { "\n" });
                text.push_str("[killed by signal: interrupted]");
            }
            text
        }
        _ if is_error && name == BASH => match exit_code_prefix(&content) {
            // A command that ran and exited non-zero: shown as DSH shows it,
            // so `when: always` rules still read it and `when: success` ones do not.
            Some((code, rest)) => {
                is_error = false;
                let mut text = rest.to_owned();
                add_exit_marker(&mut text, code);
                text
            }
            None => content,
        },
        _ => content,
    };
    (text, is_error)
}

/// `Exit code N\n<output>`: Claude Code's result for a non-zero exit.
fn exit_code_prefix(content: &str) -> Option<(i64, &str)> {
    let rest = content.strip_prefix("Exit code ")?;
    let (code, output) = rest.split_once('\n').unwrap_or((rest, ""));
    Some((code.trim().parse().ok()?, output))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bash_command_stopped_at_its_timeout_stays_a_failed_call() {
        // Synthetic, in Claude Code's shape: the harness answers with an
        // `is_error` result that is no `Exit code N` (no exit status).
        let block = serde_json::json!({"type": "tool_result", "tool_use_id": "t",
            "is_error": true, "content": "Command timed out after 2m 0.0s\npartial"});
        assert_eq!(
            result_text(BASH, &block, None),
            ("Command timed out after 2m 0.0s\npartial".to_owned(), true)
        );
        // A command that ran and exited non-zero is not a tool error.
        let exited = serde_json::json!({"type": "tool_result", "tool_use_id": "t",
            "is_error": true, "content": "Exit code 2\nboom"});
        assert_eq!(
            result_text(BASH, &exited, None),
            ("boom\n[exit code: 2]".to_owned(), false)
        );
    }
}
