//! Typed errors of the core. Each variant's `Display` is the exact message
//! users see (and tests pin): the repeat texts are the official plugin's
//! byte for byte, everything else names the config key or the rule id. The
//! N-API binding maps [`Error`] to a JavaScript `Error` in one place.

use std::fmt;

use crate::config::js_number;

/// Anything the core refuses.
#[derive(Debug, Clone, PartialEq)]
pub enum Error {
    Config(ConfigError),
    Rule(RuleError),
    /// A saved chain state that no tracked call could have left.
    ChainCount,
    /// A saved loop state that is not one (the message names it).
    State(String),
}

/// A config that cannot be used, named by its key.
#[derive(Debug, Clone, PartialEq)]
pub enum ConfigError {
    /// `repeat.thresholds` is `[]` (official text).
    EmptyThresholds,
    /// A threshold that is not an integer >= 2 (official text).
    InvalidThreshold(f64),
    /// A threshold listed twice (official text).
    DuplicateThresholds,
    /// `repeat.argumentsPreviewChars` not an integer >= 1 (official text).
    InvalidPreviewChars(f64),
    /// `at` holds a value of the wrong type.
    WrongType {
        at: String,
        expected: &'static str,
        got: &'static str,
    },
    /// A key the section does not know: a typo would otherwise fall back to
    /// the default silently.
    UnknownKey {
        at: String,
        key: String,
        expected: &'static [&'static str],
    },
    /// A number outside its allowed integer range (or not a number).
    OutOfRange {
        at: String,
        min: u64,
        max: u64,
        got: String,
    },
    /// A rule whose `id` is the empty string (named by its index).
    EmptyRuleId { at: String },
    /// Deeper than any config could be; the reader is recursive.
    TooDeep,
    /// The config text is not JSON.
    Json(String),
}

/// A rule that cannot be loaded: `loud-failure: rule <id>: <reason>`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuleError {
    pub id: String,
    pub reason: String,
}

impl RuleError {
    pub fn new(id: &str, reason: impl Into<String>) -> Self {
        Self {
            id: id.to_owned(),
            reason: reason.into(),
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Config(e) => e.fmt(f),
            Error::Rule(e) => e.fmt(f),
            Error::ChainCount => f.write_str("toolguard: a chain count must be at least 1"),
            Error::State(message) => f.write_str(message),
        }
    }
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ConfigError::EmptyThresholds => {
                f.write_str("repeat-tool-reminder: `thresholds` must not be empty")
            }
            ConfigError::InvalidThreshold(v) => write!(
                f,
                "repeat-tool-reminder: invalid threshold {} — every threshold must be an integer >= 2",
                js_number(*v)
            ),
            ConfigError::DuplicateThresholds => {
                f.write_str("repeat-tool-reminder: `thresholds` must not contain duplicates")
            }
            ConfigError::InvalidPreviewChars(v) => write!(
                f,
                "repeat-tool-reminder: invalid argumentsPreviewChars {} — must be an integer >= 1",
                js_number(*v)
            ),
            ConfigError::WrongType { at, expected, got } => {
                write!(f, "toolguard: {at} must be {expected} (got {got})")
            }
            ConfigError::UnknownKey { at, key, expected } => write!(
                f,
                "toolguard: unknown key {at}.{key} (expected one of: {})",
                expected.join(", ")
            ),
            ConfigError::OutOfRange { at, min, max, got } => write!(
                f,
                "toolguard: {at} must be an integer from {min} to {max}{} (got {got})",
                if at.ends_with("window") || at.ends_with("maxPeriod") || at.ends_with("transientMultiplier") || at.ends_with("pollQuietSeconds") { "" } else { ", or false" }
            ),
            ConfigError::EmptyRuleId { at } => {
                write!(f, "loud-failure: {at}: `id` must not be empty")
            }
            ConfigError::TooDeep => f.write_str("toolguard: config is nested too deeply"),
            ConfigError::Json(e) => write!(f, "toolguard: config is not valid JSON: {e}"),
        }
    }
}

impl fmt::Display for RuleError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "loud-failure: rule {}: {}", self.id, self.reason)
    }
}

impl std::error::Error for Error {}
impl std::error::Error for ConfigError {}
impl std::error::Error for RuleError {}

impl From<ConfigError> for Error {
    fn from(e: ConfigError) -> Self {
        Error::Config(e)
    }
}

impl From<RuleError> for Error {
    fn from(e: RuleError) -> Self {
        Error::Rule(e)
    }
}
