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

/// One step of a key path: an object key or an array index.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PathStep {
    Key(String),
    Index(usize),
}

/// Where a value sits in a config: a root name (`config`, or the built-in
/// table's file) and the steps from it. Printed as `config.loops.window` or
/// `config.loudFailure.rules[2]`; the steps are what a JavaScript error's
/// `path` property holds, so nothing needs to read the printed form back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyPath {
    pub root: String,
    pub steps: Vec<PathStep>,
}

impl KeyPath {
    /// The top of a user config (`config`).
    pub fn config() -> Self {
        Self::root("config")
    }

    pub fn root(name: &str) -> Self {
        Self {
            root: name.to_owned(),
            steps: Vec::new(),
        }
    }

    /// This path, one object key further.
    pub fn key(&self, key: &str) -> Self {
        let mut next = self.clone();
        next.steps.push(PathStep::Key(key.to_owned()));
        next
    }

    /// This path, one array index further.
    pub fn index(&self, i: usize) -> Self {
        let mut next = self.clone();
        next.steps.push(PathStep::Index(i));
        next
    }
}

impl fmt::Display for KeyPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.root)?;
        for step in &self.steps {
            match step {
                PathStep::Key(k) => write!(f, ".{k}")?,
                PathStep::Index(i) => write!(f, "[{i}]")?,
            }
        }
        Ok(())
    }
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
        at: KeyPath,
        expected: &'static str,
        got: &'static str,
    },
    /// A key the section does not know: a typo would otherwise fall back to
    /// the default silently.
    UnknownKey {
        at: KeyPath,
        key: String,
        expected: &'static [&'static str],
    },
    /// A number outside its allowed integer range (or not a number).
    OutOfRange {
        at: KeyPath,
        min: u64,
        max: u64,
        got: String,
    },
    /// A rule whose `id` is the empty string (named by its index).
    EmptyRuleId { at: KeyPath },
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
    /// Where the rule is, when the decoder knew (a pattern that does not
    /// compile is found later, by id: see [`Error::path`]).
    pub at: Option<KeyPath>,
    /// For an unknown key: the keys a rule accepts (see [`Error::expected`]).
    pub expected: Option<&'static [&'static str]>,
}

impl RuleError {
    pub fn new(id: &str, reason: impl Into<String>) -> Self {
        Self {
            id: id.to_owned(),
            reason: reason.into(),
            at: None,
            expected: None,
        }
    }
}

impl Error {
    /// A stable name of what is wrong, for programs (a JavaScript error's
    /// `code`); the message is for people and may change.
    pub fn code(&self) -> &'static str {
        match self {
            Error::Config(e) => e.code(),
            Error::Rule(_) => "TOOLGUARD_BAD_RULE",
            Error::ChainCount | Error::State(_) => "TOOLGUARD_BAD_STATE",
        }
    }

    /// For an unknown key, the keys its section accepts: the one list the
    /// decoder checks against, as data (a JavaScript error's `expected`), so
    /// no caller reads it back from the message.
    pub fn expected(&self) -> Option<&'static [&'static str]> {
        match self {
            Error::Config(ConfigError::UnknownKey { expected, .. }) => Some(expected),
            Error::Rule(e) => e.expected,
            _ => None,
        }
    }

    /// The key path of the bad value inside `config` (the tree the error
    /// came from), as steps below the root; `None` when the error is about
    /// no one key (a saved state, a config nested too deeply). A rule whose
    /// pattern does not compile is found by its id in
    /// `config.loudFailure.rules`.
    pub fn path(&self, config: &crate::config::ConfigValue) -> Option<Vec<PathStep>> {
        match self {
            Error::Config(e) => e.path(),
            Error::Rule(RuleError { at: Some(at), .. }) => Some(at.steps.clone()),
            Error::Rule(RuleError { id, .. }) => {
                let rules = config.member("loudFailure")?.member("rules")?;
                let crate::config::ConfigValue::Array(rules) = rules else {
                    return None;
                };
                let index = rules.iter().position(|rule| {
                    matches!(rule.member("id"), Some(crate::config::ConfigValue::String(s)) if s == id)
                })?;
                Some(
                    KeyPath::config()
                        .key("loudFailure")
                        .key("rules")
                        .index(index)
                        .steps,
                )
            }
            Error::ChainCount | Error::State(_) => None,
        }
    }
}

impl ConfigError {
    /// See [`Error::code`].
    pub fn code(&self) -> &'static str {
        match self {
            ConfigError::EmptyThresholds
            | ConfigError::InvalidThreshold(_)
            | ConfigError::DuplicateThresholds
            | ConfigError::InvalidPreviewChars(_)
            | ConfigError::OutOfRange { .. } => "TOOLGUARD_OUT_OF_RANGE",
            ConfigError::WrongType { .. } => "TOOLGUARD_WRONG_TYPE",
            ConfigError::UnknownKey { .. } => "TOOLGUARD_UNKNOWN_KEY",
            ConfigError::EmptyRuleId { .. } => "TOOLGUARD_BAD_RULE",
            ConfigError::TooDeep => "TOOLGUARD_TOO_DEEP",
            ConfigError::Json(_) => "TOOLGUARD_BAD_JSON",
        }
    }

    /// The key path of the bad value (steps below `config`); an unknown
    /// key's path ends with that key.
    pub fn path(&self) -> Option<Vec<PathStep>> {
        let repeat = |key: &str| Some(KeyPath::config().key("repeat").key(key).steps);
        match self {
            ConfigError::EmptyThresholds
            | ConfigError::InvalidThreshold(_)
            | ConfigError::DuplicateThresholds => repeat("thresholds"),
            ConfigError::InvalidPreviewChars(_) => repeat("argumentsPreviewChars"),
            ConfigError::WrongType { at, .. }
            | ConfigError::OutOfRange { at, .. }
            | ConfigError::EmptyRuleId { at } => Some(at.steps.clone()),
            ConfigError::UnknownKey { at, key, .. } => Some(at.key(key).steps),
            ConfigError::TooDeep | ConfigError::Json(_) => None,
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
                // Only the detector thresholds can be switched off.
                if matches!(at.steps.last(), Some(PathStep::Key(k)) if ["window", "maxPeriod", "transientMultiplier", "pollQuietSeconds"].contains(&k.as_str())) { "" } else { ", or false" }
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
