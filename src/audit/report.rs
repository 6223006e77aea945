//! What an audit found in one file, and its JSON form (the `--json` document's
//! `sessions[i]`; keys documented in docs/trace-format.md and the README).

use serde_json::{json, Value};

use super::{CallSite, Format, MAX_ERRORS};
use crate::engine::FailureAction;

/// A reminder the repeat guard would have injected after this call.
#[derive(Debug, Clone)]
pub struct ReminderFinding {
    pub(crate) site: CallSite,
    pub count: u64,
    /// `<tool> × <count>`.
    pub summary: String,
    /// The exact reminder text.
    pub text: String,
    /// Canonical arguments, cut to `argumentsPreviewChars`.
    pub arguments: String,
    pub command: Option<String>,
}

/// One rule that matched a call's output (a call matching two rules gives two).
#[derive(Debug, Clone)]
pub struct FailureFinding {
    pub(crate) site: CallSite,
    /// The verdict's action over all matching rules (`error` wins).
    pub verdict: FailureAction,
    pub summary: String,
    pub rule_id: String,
    pub rule_action: &'static str,
    pub message: String,
    /// 1-based line of the match in the output.
    pub line: u64,
    pub excerpt: String,
    pub command: Option<String>,
}

/// Bad input: reported with its line (`None`: the file as a whole), then skipped.
#[derive(Debug, Clone, PartialEq)]
pub struct InputError {
    pub line: Option<u64>,
    pub message: String,
}

#[derive(Debug, Clone)]
pub struct SessionReport {
    pub file: String,
    pub format: Format,
    pub compressed: bool,
    pub session_id: Option<String>,
    pub parent_session: Option<String>,
    pub cwd: Option<String>,
    /// Trace files: agent ids in order of first appearance.
    pub agents: Vec<String>,
    /// Tool calls audited (paired with a result or not).
    pub calls: u64,
    /// Calls with no result in the log (never seen by a post-execute hook).
    pub unanswered: u64,
    /// DSH: calls inherited through a fork seed (audited in the parent's log).
    pub inherited: u64,
    pub lines: u64,
    /// Bytes of the file read (compressed size for zstd).
    pub bytes: u64,
    /// Bytes of JSONL text read.
    pub decoded_bytes: u64,
    pub reminders: Vec<ReminderFinding>,
    pub failures: Vec<FailureFinding>,
    pub errors: Vec<InputError>,
    /// All errors, including those past [`MAX_ERRORS`].
    pub error_count: u64,
}

impl SessionReport {
    pub fn new(file: String, format: Format) -> Self {
        Self {
            file,
            format,
            compressed: false,
            session_id: None,
            parent_session: None,
            cwd: None,
            agents: Vec::new(),
            calls: 0,
            unanswered: 0,
            inherited: 0,
            lines: 0,
            bytes: 0,
            decoded_bytes: 0,
            reminders: Vec::new(),
            failures: Vec::new(),
            errors: Vec::new(),
            error_count: 0,
        }
    }

    pub fn unreadable(file: String, format: Format, e: std::io::Error) -> Self {
        let mut report = Self::new(file, format);
        report.error(None, format!("cannot open: {e}"));
        report
    }

    pub fn error(&mut self, line: Option<u64>, message: String) {
        self.error_count += 1;
        if self.errors.len() < MAX_ERRORS {
            self.errors.push(InputError { line, message });
        }
    }

    pub fn to_json(&self) -> Value {
        let site = |s: &CallSite| {
            json!({
                "callId": s.call_id,
                "tool": s.name,
                "agentId": s.agent_id,
                "logLine": s.line,
                "seq": s.seq,
                "turn": s.turn,
            })
        };
        let merge = |mut base: Value, extra: Value| {
            if let (Value::Object(base), Value::Object(extra)) = (&mut base, extra) {
                base.extend(extra);
            }
            base
        };
        json!({
            "file": self.file,
            "format": self.format.as_str(),
            "compressed": self.compressed,
            "sessionId": self.session_id,
            "parentSession": self.parent_session,
            "cwd": self.cwd,
            "agents": self.agents,
            "calls": self.calls,
            "unanswered": self.unanswered,
            "inherited": self.inherited,
            "lines": self.lines,
            "bytes": self.bytes,
            "decodedBytes": self.decoded_bytes,
            "reminders": self.reminders.iter().map(|r| merge(site(&r.site), json!({
                "count": r.count,
                "summary": r.summary,
                "arguments": r.arguments,
                "command": r.command,
                "text": r.text,
            }))).collect::<Vec<_>>(),
            "failures": self.failures.iter().map(|f| merge(site(&f.site), json!({
                "ruleId": f.rule_id,
                "action": f.rule_action,
                "verdict": f.verdict.as_str(),
                "line": f.line,
                "excerpt": f.excerpt,
                "message": f.message,
                "command": f.command,
                "summary": f.summary,
            }))).collect::<Vec<_>>(),
            "errors": self.errors.iter().map(|e| json!({"line": e.line, "message": e.message})).collect::<Vec<_>>(),
            "errorCount": self.error_count,
        })
    }
}
