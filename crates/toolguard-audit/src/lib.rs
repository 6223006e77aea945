#![deny(clippy::all)]
#![forbid(unsafe_code)]
//! Session-log reading for `toolguard audit`: DSH JSONL, Claude Code
//! transcripts, Codex rollouts, OTLP/JSON traces and the generic trace
//! format, plain or zstd.
//!
//! A log is streamed line by line (zstd frames decoded on the fly), each line
//! parsed here in Rust and fed to the same [`Engine`] the plugins use, so a
//! log of any size costs at most one line of memory ([`AuditOptions::max_line_bytes`])
//! plus the engine's fixed state.
//! Bad input never stops an audit: it becomes an [`InputError`] with its line.

mod auditor;
mod chat_calls;
mod claude;
mod claude_md;
mod codex;
mod codex_log;
mod detect;
mod dsh;
mod gemini;
mod lines;
mod mini_log;
mod mini_swe;
mod opencode;
mod openhands_llm;
mod openhands_v0;
mod openhands_v1;
mod options;
mod otlp;
pub mod parallel;
mod parquet;
mod replay;
mod report;
mod session;
mod shell;
mod swe_agent;
mod trace;
pub mod waste;
pub mod zstd;

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_cli_sessions;
#[cfg(test)]
mod tests_parallel;
#[cfg(test)]
mod tests_readers;
#[cfg(test)]
mod tests_trajectories;
#[cfg(test)]
mod tests_wild;

pub use auditor::{Auditor, MAX_ERRORS, MAX_TIMELINE_CALLS};
pub use detect::Format;
pub use options::{AuditOptions, OptionError, DEFAULT_MAX_LINE_BYTES};
pub use report::{
    FailureFinding, InputError, LoopFinding, Note, OutputContext, ReminderFinding, SessionReport,
    Timeline, TimelineCall,
};
pub use session::{
    detect_path, detect_text, detect_value, read_text, read_value, ReadCall, ReadEvent, ReadResult,
    ReadSession,
};
