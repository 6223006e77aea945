//! What one invocation prints and its exit code, and the JSON answer to a
//! verdict (shared with the in-process Claude Agent SDK adapter).

use serde_json::Value;
use toolguard_core::config::js_number;
use toolguard_core::engine::{FailureAction, Verdict};

use crate::event::Host;

/// Why the hook could not do its job; the text of its one stderr line.
#[derive(Debug)]
pub struct Failure(pub String);

/// What one hook invocation prints and its exit code.
#[derive(Debug, Default, PartialEq)]
pub struct Answer {
    pub code: i32,
    pub stdout: Vec<u8>,
    pub stderr: String,
}

impl Answer {
    pub(crate) fn failed(reason: &str) -> Self {
        Answer {
            code: 1,
            stdout: Vec::new(),
            stderr: fail_line(reason),
        }
    }
}

pub fn fail_line(reason: &str) -> String {
    format!("toolguard hook: {reason} (tool result passed through unchanged)\n")
}

/// The answer of a hook that has not finished by its deadline.
pub fn timeout_answer(timeout_ms: f64) -> Answer {
    Answer::failed(&format!(
        "gave up after {} ms (TOOLGUARD_HOOK_TIMEOUT_MS)",
        js_number(timeout_ms)
    ))
}

/// What a verdict has to say, as text: the form both the hook's own
/// verdicts and the in-process Claude Agent SDK adapter's (a JS verdict,
/// through the addon's `__hookOutput`) take to [`hook_output_of`].
#[derive(Debug, Default)]
pub struct Said<'a> {
    pub reminder: Option<&'a str>,
    pub loop_alarm: Option<&'a str>,
    pub failure: Option<(FailureAction, &'a str)>,
}

/// The hook's answer to one verdict as JSON text; `None`: print nothing.
pub(crate) fn hook_output(
    verdict: Option<&Verdict>,
    scanned: Option<&str>,
    host: Host,
    event_name: &str,
) -> Option<String> {
    let verdict = verdict?;
    let reminder = verdict
        .reminder
        .as_ref()
        .map(|r| String::from_utf16_lossy(&r.text));
    let said = Said {
        reminder: reminder.as_deref(),
        loop_alarm: verdict.loop_alarm.as_ref().map(|a| a.text.as_str()),
        failure: verdict
            .failure
            .as_ref()
            .map(|f| (f.action, f.text.as_str())),
    };
    hook_output_of(&said, scanned, host, event_name)
}

/// The answer (JSON text) to what a verdict said; `None`: print nothing.
/// An `error` failure blocks: Claude Code shows the tool output right
/// above the reason, so there the reason drops the failure text's copy of
/// it (`scanned`, the text the engine scanned); Codex replaces the output
/// with the reason, so there it is the whole failure text. The reminder,
/// the loop alarm, then a `context` notice (the DSH plugins' order) go to
/// `hookSpecificOutput.additionalContext` of `event_name`.
pub fn hook_output_of(
    said: &Said,
    scanned: Option<&str>,
    host: Host,
    event_name: &str,
) -> Option<String> {
    let mut out = serde_json::Map::new();
    if let Some((FailureAction::Error, text)) = said.failure {
        let copy = scanned
            .filter(|_| host == Host::ClaudeCode)
            .map(|s| format!("\nOriginal output:\n{s}"));
        let reason = match copy {
            Some(copy) if text.ends_with(&copy) => &text[..text.len() - copy.len()],
            _ => text,
        };
        out.insert("decision".into(), "block".into());
        out.insert("reason".into(), reason.into());
    }
    let context = match said.failure {
        Some((FailureAction::Context, text)) => Some(text),
        _ => None,
    };
    let notices: Vec<&str> = [said.reminder, said.loop_alarm, context]
        .into_iter()
        .flatten()
        .collect();
    if !notices.is_empty() {
        out.insert(
            "hookSpecificOutput".into(),
            serde_json::json!({ "hookEventName": event_name, "additionalContext": notices.join("\n\n") }),
        );
    }
    (!out.is_empty()).then(|| Value::Object(out).to_string())
}
