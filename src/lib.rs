#![deny(clippy::all)]
//! toolguard's N-API binding: a thin layer over `toolguard-core` (the
//! engine) and `toolguard-audit` (the log readers). Split by concern:
//!
//! - `guard_engine`: the `GuardEngine` class (`observe`, `observeAsync`, chains);
//! - `fast_path`: `observeCall` / `observeCallValue` by engine handle, `canonicalize`;
//! - `js_input`: reading JavaScript values (strings, calls, results);
//! - `options`: the config's TypeScript shapes and JS → config tree;
//! - `verdict`: verdicts as JavaScript objects;
//! - `auditor`: the `Auditor` class behind `toolguard audit`;
//! - `hook`: the hook library (crates/toolguard-hook) and config files for Node;
//! - `status_header`: a status header above a command's output, for `toolguard scan`;
//! - `errors`: core errors → JavaScript errors, panics caught.

pub mod auditor;
pub mod errors;
pub mod fast_path;
pub mod guard_engine;
pub mod hook;
pub mod js_input;
pub mod options;
pub mod status_header;
pub mod verdict;
