//! Claude Code sessions exported to Markdown by a session exporter
//! ("# Claude Session Export"): a header with `- **Session ID**: `…``, then
//! turns separated by `---` lines, each a `### User` or `### Assistant`
//! heading, a `> date` line, a blank line and the message's raw content
//! blocks as a JSON array (`tool_use` / `tool_result` exactly as in the
//! JSONL transcript). Each turn is handed to the Claude Code reader as the
//! transcript line it was exported from, so pairing, duplicates, parallel
//! calls, `Exit code N` results and prompts behave as there.

use serde_json::{json, Value};

use super::{claude, Run, SessionReport};

/// Whether a text is such an export: the title, or a turn heading followed
/// by its date line.
pub(crate) fn looks_like(text: &str) -> bool {
    text.trim_start().starts_with("# Claude Session Export")
        || ["\n### User\n> ", "\n### Assistant\n> "]
            .iter()
            .any(|h| text.contains(h))
            && text.contains("\n---\n")
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
        // `### Role`, `> date`, a blank line, then the JSON array.
        let mut parts = trimmed.splitn(3, '\n');
        let (_, date, body) = (
            parts.next(),
            parts.next().unwrap_or(""),
            parts.next().unwrap_or(""),
        );
        let at = start
            + block[..skipped].matches('\n').count() as u64
            + 2
            + (body.len() - body.trim_start().len()) as u64
            - body.trim_start().len().min(0) as u64;
        let body = body.trim();
        if !date.starts_with('>') || !body.starts_with('[') {
            report.error(
                Some(start),
                format!(
                    "### {role} turn without a \"> date\" line and a JSON array of content blocks"
                ),
            );
            continue;
        }
        let content: Value = match serde_json::from_str(body) {
            Ok(content) => content,
            Err(e) => {
                report.error(Some(at), format!("malformed JSON in a {role} turn: {e}"));
                continue;
            }
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
