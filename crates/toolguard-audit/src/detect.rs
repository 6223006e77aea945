//! The log formats `toolguard audit` reads, and which one a file is from
//! its first JSON object line.

use crate::session;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// Decide per file from its first JSON line (see [`detect`]).
    Auto,
    Dsh,
    Trace,
    /// Claude Code transcripts (`~/.claude/projects/<slug>/<session>.jsonl`).
    ClaudeCode,
    /// Codex rollouts (`~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`).
    Codex,
    /// OTLP/JSON trace export requests, one a line (the collector's file exporter).
    Otlp,
    /// mini-swe-agent trajectories (`*.traj.json`): tool-calling and text-action forms.
    MiniSweAgent,
    /// Classic SWE-agent trajectories (`*.traj`: `trajectory[]` of action/observation).
    SweAgent,
    /// OpenHands V1 SDK conversations (`history[]` of ActionEvent/ObservationEvent),
    /// one a line in evaluation outputs.
    OpenHandsV1,
    /// OpenHands V0: resolver outputs (`history` of action/observation dicts,
    /// one a line) and event streams (a JSON list of events with `cause`).
    OpenHandsV0,
    /// Claude Code sessions exported to Markdown (`### User|Assistant` + content blocks).
    ClaudeCodeMd,
    /// The human-readable output of `codex exec` (a terminal capture).
    CodexExecLog,
    /// mini-swe-agent's terminal output (a Terminal-Bench tmux capture).
    MiniSweAgentLog,
    /// OpenCode sessions as `opencode export` prints them (`info` + `messages[].parts`).
    OpenCode,
    /// Gemini CLI chat recordings (`~/.gemini/tmp/<project>/chats/session-*.jsonl`,
    /// or the older whole-document `session-*.json`).
    GeminiCli,
}

impl Format {
    /// Every format name, in the order the CLI lists them.
    pub const NAMES: &'static [&'static str] = &[
        "auto",
        "dsh",
        "trace",
        "claude-code",
        "codex",
        "otlp",
        "mini-swe-agent",
        "swe-agent",
        "openhands-v1",
        "openhands-v0",
        "claude-code-md",
        "codex-exec-log",
        "mini-swe-agent-log",
        "opencode",
        "gemini-cli",
    ];

    /// Every format but `Auto`, in [`Format::NAMES`] order.
    pub(crate) const ALL: [Format; 14] = [
        Format::Dsh,
        Format::Trace,
        Format::ClaudeCode,
        Format::Codex,
        Format::Otlp,
        Format::MiniSweAgent,
        Format::SweAgent,
        Format::OpenHandsV1,
        Format::OpenHandsV0,
        Format::ClaudeCodeMd,
        Format::CodexExecLog,
        Format::MiniSweAgentLog,
        Format::OpenCode,
        Format::GeminiCli,
    ];

    pub fn parse(name: &str) -> Option<Self> {
        if name == "auto" {
            return Some(Format::Auto);
        }
        Self::ALL.into_iter().find(|f| f.as_str() == name)
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Format::Auto => "auto",
            Format::Dsh => "dsh",
            Format::Trace => "trace",
            Format::ClaudeCode => "claude-code",
            Format::Codex => "codex",
            Format::Otlp => "otlp",
            Format::MiniSweAgent => "mini-swe-agent",
            Format::SweAgent => "swe-agent",
            Format::OpenHandsV1 => "openhands-v1",
            Format::OpenHandsV0 => "openhands-v0",
            Format::ClaudeCodeMd => "claude-code-md",
            Format::CodexExecLog => "codex-exec-log",
            Format::MiniSweAgentLog => "mini-swe-agent-log",
            Format::OpenCode => "opencode",
            Format::GeminiCli => "gemini-cli",
        }
    }

    /// How a file of this format is read: line by line, one session per
    /// JSON value (a whole document or a line), or as one text.
    pub(crate) fn shape(self) -> Shape {
        match self {
            Format::MiniSweAgent
            | Format::SweAgent
            | Format::OpenHandsV1
            | Format::OpenHandsV0
            | Format::OpenCode => Shape::Values,
            // A Gemini CLI recording rewrites a message by appending it again:
            // read whole, then folded (or a whole document, in older versions).
            Format::ClaudeCodeMd
            | Format::CodexExecLog
            | Format::MiniSweAgentLog
            | Format::GeminiCli => Shape::Text,
            _ => Shape::Lines,
        }
    }
}

/// See [`Format::shape`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Shape {
    Lines,
    Values,
    Text,
}

/// Which reader a file needs, from its first JSON object line; `None`: no
/// known format has lines like it.
pub(crate) fn detect(object: &serde_json::Map<String, serde_json::Value>) -> Option<Format> {
    use serde_json::Value;
    // A whole session on one line (an evaluation output, a one-line trajectory).
    if let Some(format) = session::detect_object(object) {
        return Some(format);
    }
    let kind = object.get("type").and_then(Value::as_str);
    if kind == Some("session") {
        return Some(Format::Dsh);
    }
    if object.contains_key("resourceSpans") {
        return Some(Format::Otlp);
    }
    if object.contains_key("payload") && object.contains_key("timestamp") {
        return Some(Format::Codex);
    }
    if ["uuid", "sessionId", "parentUuid", "leafUuid"]
        .iter()
        .any(|k| object.contains_key(*k))
        || matches!(
            kind,
            Some("summary" | "file-history-snapshot" | "queue-operation")
        )
    {
        return Some(Format::ClaudeCode);
    }
    if object.contains_key("tool")
        || object.contains_key("agentId")
        || matches!(kind, Some("user" | "end" | "call"))
    {
        return Some(Format::Trace);
    }
    // A DSH log whose header line is missing still has its event shape.
    if kind.is_some() && object.contains_key("data") {
        return Some(Format::Dsh);
    }
    None
}
