//! The options a caller gives an audit (the CLI's flags, as JSON text):
//! the limits of one audit ([`AuditOptions`]) and the shape of a batch
//! (`parallel::BatchOptions`). A value that cannot be used is an
//! [`OptionError`]: data (a code and the option's key), as the core's
//! config errors are, so no caller reads the message.

use serde_json::{Map, Value};
use toolguard_core::PathStep;

/// 256 MiB: far above any real line, far below what would exhaust memory.
pub const DEFAULT_MAX_LINE_BYTES: usize = 256 << 20;

/// Limits of one audit, set by the caller (the CLI's flags).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuditOptions {
    /// A longer line is reported and skipped; memory stays bounded by it.
    pub max_line_bytes: usize,
    /// Lines stamped before this time (ms since the epoch) are skipped.
    pub since_ms: Option<i64>,
}

impl Default for AuditOptions {
    fn default() -> Self {
        Self {
            max_line_bytes: DEFAULT_MAX_LINE_BYTES,
            since_ms: None,
        }
    }
}

impl AuditOptions {
    const KEYS: &'static [&'static str] = &["maxLineBytes", "sinceMs"];

    /// From the JSON text the N-API layer passes (`{maxLineBytes?, sinceMs?}`).
    pub fn from_json(text: &str) -> Result<Self, OptionError> {
        let options = Options::parse(text, "audit options", Self::KEYS)?;
        let max_line_bytes = match options.whole("maxLineBytes")? {
            None => DEFAULT_MAX_LINE_BYTES,
            Some(0) => {
                return Err(options.error(
                    "TOOLGUARD_OUT_OF_RANGE",
                    "maxLineBytes",
                    "maxLineBytes must be at least 1".to_owned(),
                ))
            }
            Some(n) => usize::try_from(n).unwrap_or(usize::MAX),
        };
        Ok(Self {
            max_line_bytes,
            since_ms: options.integer("sinceMs")?,
        })
    }
}

/// An option that cannot be used: which (`path`, the option's key; empty:
/// the options as a whole), a stable `code` (the core's vocabulary:
/// `TOOLGUARD_BAD_JSON`, `TOOLGUARD_WRONG_TYPE`, `TOOLGUARD_UNKNOWN_KEY`,
/// `TOOLGUARD_OUT_OF_RANGE`) and a message for people.
#[derive(Debug, Clone, PartialEq)]
pub struct OptionError {
    pub code: &'static str,
    pub path: Vec<PathStep>,
    /// For an unknown key: the keys the options accept.
    pub expected: Option<&'static [&'static str]>,
    pub message: String,
}

impl std::fmt::Display for OptionError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

/// One options object being decoded: its members, and its name for messages.
pub(crate) struct Options {
    what: &'static str,
    members: Map<String, Value>,
}

impl Options {
    /// The JSON object `text`, with no key outside `keys`.
    pub(crate) fn parse(
        text: &str,
        what: &'static str,
        keys: &'static [&'static str],
    ) -> Result<Self, OptionError> {
        let whole = |code, message: String| OptionError {
            code,
            path: Vec::new(),
            expected: None,
            message,
        };
        let members = match serde_json::from_str(text) {
            Ok(Value::Object(members)) => members,
            Ok(_) => {
                return Err(whole(
                    "TOOLGUARD_WRONG_TYPE",
                    format!("{what} must be an object"),
                ))
            }
            Err(e) => return Err(whole("TOOLGUARD_BAD_JSON", format!("{what}: {e}"))),
        };
        if let Some(key) = members.keys().find(|k| !keys.contains(&k.as_str())) {
            return Err(OptionError {
                code: "TOOLGUARD_UNKNOWN_KEY",
                path: vec![PathStep::Key(key.clone())],
                expected: Some(keys),
                message: format!(
                    "{what}: unknown key {key:?} (expected one of {})",
                    keys.join(", ")
                ),
            });
        }
        Ok(Self { what, members })
    }

    /// An error about option `key`; `message` names it (the CLI shows it
    /// as its own: `--shard must be …`).
    pub(crate) fn error(&self, code: &'static str, key: &str, message: String) -> OptionError {
        OptionError {
            code,
            path: vec![PathStep::Key(key.to_owned())],
            expected: None,
            message,
        }
    }

    /// The member `key`; absent and `null` are `None`.
    fn member(&self, key: &str) -> Option<&Value> {
        self.members.get(key).filter(|v| !v.is_null())
    }

    fn wrong_type(&self, key: &str, expected: &str) -> OptionError {
        self.error(
            "TOOLGUARD_WRONG_TYPE",
            key,
            format!("{}: {key} must be {expected}", self.what),
        )
    }

    /// A whole number >= 0.
    pub(crate) fn whole(&self, key: &str) -> Result<Option<u64>, OptionError> {
        self.member(key)
            .map(|v| {
                v.as_u64()
                    .ok_or_else(|| self.wrong_type(key, "a whole number"))
            })
            .transpose()
    }

    /// An integer.
    pub(crate) fn integer(&self, key: &str) -> Result<Option<i64>, OptionError> {
        self.member(key)
            .map(|v| v.as_i64().ok_or_else(|| self.wrong_type(key, "an integer")))
            .transpose()
    }

    pub(crate) fn string(&self, key: &str) -> Result<Option<String>, OptionError> {
        self.member(key)
            .map(|v| {
                v.as_str()
                    .map(str::to_owned)
                    .ok_or_else(|| self.wrong_type(key, "a string"))
            })
            .transpose()
    }
}
