#![deny(clippy::all)]
//! toolguard: a native guard engine for LLM-agent tool calls.
//! `binding` is the N-API surface; every other module is plain Rust and
//! reads alone (see README "Map of the tree").

pub mod audit;
pub mod canonical;
pub mod chain;
pub mod config;
pub mod engine;
pub mod markers;
pub mod rules;

pub mod binding;
