#![deny(clippy::all)]
// One audited exception: `transcode::utf16_to_string` (fuzzed under ASan).
#![deny(unsafe_code)]
//! toolguard's guard engine in plain Rust, with no N-API: the canonical form
//! of a call's arguments, per-agent repeat chains, the silent-failure rule
//! table and its scanner, and the one config decoder. The napi binding (the
//! root crate), the log readers (`toolguard-audit`) and the fuzz targets all
//! build on it. See ARCHITECTURE.md.

pub mod canonical;
pub mod chain;
pub mod config;
pub mod digest;
pub mod engine;
pub mod error;
pub mod json_text;
pub mod loops;
pub mod markers;
pub mod normalize;
pub mod rules;
pub mod shell;
pub mod shell_result;
pub mod status_header;
pub mod transcode;

pub use error::{ConfigError, Error, KeyPath, PathStep, RuleError};
