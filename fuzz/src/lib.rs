//! The engine's plain-Rust modules, compiled straight from `../src` without
//! the N-API binding: the fuzz binaries link no Node symbols and need no
//! napi features. Keep this list in step with the engine modules of
//! `src/lib.rs` (everything but `binding` and `audit`).
#![allow(dead_code)]

#[path = "../../src/canonical.rs"]
pub mod canonical;
#[path = "../../src/chain.rs"]
pub mod chain;
#[path = "../../src/config.rs"]
pub mod config;
#[path = "../../src/engine.rs"]
pub mod engine;
#[path = "../../src/markers.rs"]
pub mod markers;
#[path = "../../src/rules/mod.rs"]
pub mod rules;
