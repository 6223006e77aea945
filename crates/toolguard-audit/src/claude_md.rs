//! Claude Code sessions exported to Markdown by a session exporter
//! ("# Claude Session Export"): a header with `- **Session ID**: `…``, then
//! turns separated by `---` lines, each a `### User` or `### Assistant`
//! heading, a `> date` line, a blank line and the message's raw content
//! blocks as a JSON array (`tool_use` / `tool_result` exactly as in the
//! JSONL transcript). Each turn is handed to the Claude Code reader as the
//! transcript line it was exported from, so pairing, duplicates, parallel
//! calls, `Exit code N` results and prompts behave as there.

use serde_json::{json, Value};

use super::claude;
use super::replay::Run;
use super::report::SessionReport;

/// Whether a text is such an export: it starts with the exporter's title,
/// or with a turn heading (a page that only quotes one, a README, is not).
pub(crate) fn looks_like(text: &str) -> bool {
    let text = text.trim_start();
    text.starts_with("# Claude Session Export")
        || text.starts_with("### User\n> ")
        || text.starts_with("### Assistant\n> ")
}

pub(crate) fn audit(run: &mut Run, report: &mut SessionReport, text: &str) {
    let session_id = text
        .lines()
        .take(40)
        .find_map(|l| l.trim().strip_prefix("- **Session ID**:"))
        .map(|id| id.trim().trim_matches('`').to_owned());
    let cwd = text
        .lines()
        .take(40)
        .find_map(|l| l.trim().strip_prefix("- **Project Path**:"))
        .map(|p| p.trim().trim_matches('`').to_owned());
    report.session_id = session_id.clone();
    report.cwd = cwd;
    let mut line = 1u64;
    for block in text.split("\n---\n") {
        let start = line;
        line += block.matches('\n').count() as u64 + 2;
        let trimmed = block.trim_start();
        let skipped = block.len() - trimmed.len();
        let role = if trimmed.starts_with("### User\n") {
            "user"
        } else if trimmed.starts_with("### Assistant\n") {
            "assistant"
        } else {
            continue;
        };
        // `### Role`, `> date`, a blank line, then the content: a JSON array
        // of blocks, or (a user's typed message) plain text.
        let mut parts = trimmed.splitn(3, '\n');
        let (date, body) = (parts.nth(1).unwrap_or(""), parts.next().unwrap_or(""));
        let at = start + block[..skipped].matches('\n').count() as u64 + 3;
        let body = body.trim();
        if !date.starts_with('>') {
            report.error(
                Some(at - 2),
                format!("### {role} turn without its \"> date\" line"),
            );
            continue;
        }
        let content = if body.starts_with('[') && body.ends_with(']') {
            match serde_json::from_str(body) {
                Ok(content) => content,
                Err(e) => {
                    report.error(Some(at), format!("malformed JSON in a {role} turn: {e}"));
                    continue;
                }
            }
        } else {
            Value::String(body.to_owned())
        };
        let mut event = json!({
            "type": role,
            "message": { "role": role, "content": content },
        });
        if let Some(id) = &session_id {
            event["sessionId"] = Value::String(id.clone());
        }
        if let Value::Object(event) = event {
            claude::line(run, report, at, &event);
        }
    }
}
