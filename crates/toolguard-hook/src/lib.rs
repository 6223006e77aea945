#![deny(clippy::all)]
//! The Claude Code / Codex per-call hook (`toolguard hook`), once: the
//! command line and deadline (args.rs), decoding the event (event.rs),
//! handling it (dispatch.rs), what is printed (answer.rs), config files
//! (config.rs) and state files (state.rs); phases.rs times them on request. Two thin
//! shells run it: the `toolguard-hook` executable (main.rs: stdin, a
//! deadline watchdog, the exit code) and the N-API functions behind the Node
//! `toolguard hook` path (src/hook.rs in the root crate). Both give the same
//! bytes because they run this code.
//!
//! `PostToolUse` advances the session's loop window (the loop detectors, on
//! unless the config says `loops: false`; then DSH's repeat chain) and scans
//! the output (loop alarm, reminder or `context` notice →
//! `hookSpecificOutput.additionalContext`, an `error` rule → `decision:
//! "block"`). `PostToolUseFailure` (Claude Code's event for a failed call, a
//! non-zero exit among them) advances them as a failed call, as the Claude
//! Agent SDK adapter does, and is not scanned. `PreToolUse` (with
//! `loops.deny`) refuses a call that would continue a loop already reminded
//! that many times, `UserPromptSubmit` starts the chain over, `SessionEnd`
//! deletes it. Every failure is fail-open: one `toolguard hook: …` line on
//! stderr, exit code 1 (a non-blocking error for both hosts), no decision.

mod answer;
mod args;
pub mod config;
mod dispatch;
mod event;
mod exact;
pub mod phases;
pub mod state;

pub use answer::{fail_line, hook_output_of, timeout_answer, Answer, Failure, Said};
pub use args::{start, Env, Start, USAGE};
pub use dispatch::{answer, MAX_INPUT};
pub use event::{replace_lone_surrogates, Host};
