//! Engine configuration: shapes, defaults and fail-loud validation.
//!
//! The binding turns the JavaScript config object into a [`Value`] tree (keeping
//! `NaN`, `Infinity` and `-0` that JSON would lose, because the official error
//! texts print them) and [`Config::from_value`] validates it here, in plain Rust.
//! Repeat-chain errors use the official plugin's texts byte for byte; everything
//! else names the config key that was wrong.

use crate::rules::{Action, Rule, When};

/// A JavaScript value as far as configuration cares.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Undefined,
    Null,
    Bool(bool),
    Number(f64),
    String(String),
    Array(Vec<Value>),
    /// Own enumerable properties in JavaScript order.
    Object(Vec<(String, Value)>),
    /// Anything else (function, symbol, bigint), by its `typeof`.
    Other(&'static str),
}

impl Value {
    fn get(&self, key: &str) -> &Value {
        match self {
            Value::Object(entries) => entries
                .iter()
                .rev() // a later duplicate wins, as in JavaScript
                .find(|(k, _)| k == key)
                .map_or(&Value::Undefined, |(_, v)| v),
            _ => &Value::Undefined,
        }
    }

    /// The `typeof`-like name used in error messages.
    pub fn kind(&self) -> &'static str {
        match self {
            Value::Undefined => "undefined",
            Value::Null => "null",
            Value::Bool(_) => "boolean",
            Value::Number(_) => "number",
            Value::String(_) => "string",
            Value::Array(_) => "array",
            Value::Object(_) => "object",
            Value::Other(kind) => kind,
        }
    }
}

/// `String(n)` for a JavaScript number (`-0` → `0`, `1e21` → `1e+21`, `NaN`).
pub fn js_number(n: f64) -> String {
    if n == 0.0 {
        return "0".to_owned();
    }
    ryu_js::Buffer::new().format(n).to_owned()
}

#[derive(Debug, Clone, PartialEq)]
pub struct RepeatConfig {
    /// Validated and sorted ascending; `thresholds[0]` is the gentle tier.
    pub thresholds: Vec<u64>,
    pub include: Vec<String>,
    pub exclude: Vec<String>,
    pub arguments_preview_chars: usize,
}

impl Default for RepeatConfig {
    fn default() -> Self {
        Self {
            thresholds: vec![3, 5, 8],
            include: Vec::new(),
            exclude: Vec::new(),
            arguments_preview_chars: 500,
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct LoudFailureConfig {
    /// User rules, merged with the built-ins when the engine compiles them.
    pub rules: Vec<Rule>,
    pub shell_tools: Vec<String>,
    pub scan_value: bool,
}

impl Default for LoudFailureConfig {
    fn default() -> Self {
        Self {
            rules: Vec::new(),
            shell_tools: vec!["bash".into(), "pwsh".into(), "job_output".into()],
            scan_value: false,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct Config {
    pub repeat: RepeatConfig,
    pub loud_failure: LoudFailureConfig,
}

impl Config {
    pub fn from_value(value: &Value) -> Result<Self, String> {
        if !section(value, "config", &["repeat", "loudFailure"])? {
            return Ok(Self::default());
        }
        Ok(Self {
            repeat: RepeatConfig::from_value(value.get("repeat"))?,
            loud_failure: LoudFailureConfig::from_value(value.get("loudFailure"))?,
        })
    }
}

impl RepeatConfig {
    pub fn from_value(value: &Value) -> Result<Self, String> {
        let mut config = Self::default();
        let known = ["thresholds", "include", "exclude", "argumentsPreviewChars"];
        if !section(value, "config.repeat", &known)? {
            return Ok(config);
        }
        if let Some(thresholds) =
            optional_numbers(value.get("thresholds"), "config.repeat.thresholds")?
        {
            config.thresholds = validate_thresholds(&thresholds)?;
        }
        if let Some(include) = optional_strings(value.get("include"), "config.repeat.include")? {
            config.include = include;
        }
        if let Some(exclude) = optional_strings(value.get("exclude"), "config.repeat.exclude")? {
            config.exclude = exclude;
        }
        match value.get("argumentsPreviewChars") {
            Value::Undefined => {}
            Value::Number(n) => {
                // Same order and text as the official plugin: thresholds are checked first.
                if n.fract() != 0.0 || !n.is_finite() || *n < 1.0 {
                    return Err(format!(
                        "repeat-tool-reminder: invalid argumentsPreviewChars {} — must be an integer >= 1",
                        js_number(*n)
                    ));
                }
                config.arguments_preview_chars = if *n >= usize::MAX as f64 {
                    usize::MAX
                } else {
                    *n as usize
                };
            }
            other => {
                return Err(type_error(
                    "config.repeat.argumentsPreviewChars",
                    "a number",
                    other,
                ))
            }
        }
        Ok(config)
    }
}

/// The official `validateThresholds`: fail loud, then sort ascending.
pub fn validate_thresholds(values: &[f64]) -> Result<Vec<u64>, String> {
    if values.is_empty() {
        return Err("repeat-tool-reminder: `thresholds` must not be empty".to_owned());
    }
    for &v in values {
        if !v.is_finite() || v.fract() != 0.0 || v < 2.0 {
            return Err(format!(
                "repeat-tool-reminder: invalid threshold {} — every threshold must be an integer >= 2",
                js_number(v)
            ));
        }
    }
    // `new Set(values)` compares with SameValueZero; all values are finite integers here.
    let mut sorted: Vec<f64> = values.to_vec();
    sorted.sort_by(|a, b| a.total_cmp(b));
    if sorted.windows(2).any(|w| w[0] == w[1]) {
        return Err("repeat-tool-reminder: `thresholds` must not contain duplicates".to_owned());
    }
    // A threshold past u64 can never be reached by a count; saturate instead of wrapping.
    Ok(sorted
        .into_iter()
        .map(|v| {
            if v >= u64::MAX as f64 {
                u64::MAX
            } else {
                v as u64
            }
        })
        .collect())
}

impl LoudFailureConfig {
    pub fn from_value(value: &Value) -> Result<Self, String> {
        let mut config = Self::default();
        if !section(
            value,
            "config.loudFailure",
            &["rules", "shellTools", "scanValue"],
        )? {
            return Ok(config);
        }
        match value.get("rules") {
            Value::Undefined => {}
            Value::Array(items) => {
                config.rules = items
                    .iter()
                    .enumerate()
                    .map(|(i, item)| rule_from_value(item, i))
                    .collect::<Result<_, _>>()?;
            }
            other => return Err(type_error("config.loudFailure.rules", "an array", other)),
        }
        if let Some(tools) =
            optional_strings(value.get("shellTools"), "config.loudFailure.shellTools")?
        {
            config.shell_tools = tools;
        }
        match value.get("scanValue") {
            Value::Undefined => {}
            Value::Bool(b) => config.scan_value = *b,
            other => {
                return Err(type_error(
                    "config.loudFailure.scanValue",
                    "a boolean",
                    other,
                ))
            }
        }
        Ok(config)
    }
}

/// One user rule. Shape errors name the rule by id when it has one, else by index.
fn rule_from_value(value: &Value, index: usize) -> Result<Rule, String> {
    let at = format!("config.loudFailure.rules[{index}]");
    if !matches!(value, Value::Object(_)) {
        return Err(type_error(&at, "a rule object", value));
    }
    let id = match value.get("id") {
        Value::String(s) if !s.is_empty() => s.clone(),
        Value::String(_) => return Err(format!("loud-failure: {at}: `id` must not be empty")),
        other => return Err(type_error(&format!("{at}.id"), "a string", other)),
    };
    let field = |key: &str| format!("loud-failure: rule {id}: `{key}`");
    const RULE_KEYS: &[&str] = &["id", "pattern", "flags", "action", "when", "message"];
    if let Some(key) = unknown_key(value, RULE_KEYS) {
        return Err(format!(
            "loud-failure: rule {id}: unknown key `{key}` (expected one of: {})",
            RULE_KEYS.join(", ")
        ));
    }
    let string = |key: &str, default: Option<&str>| -> Result<String, String> {
        match (value.get(key), default) {
            (Value::String(s), _) => Ok(s.clone()),
            (Value::Undefined, Some(d)) => Ok(d.to_owned()),
            (other, _) => Err(format!(
                "{} must be a string (got {})",
                field(key),
                other.kind()
            )),
        }
    };
    let pattern = string("pattern", None)?;
    let flags = string("flags", Some(""))?;
    let message = string("message", None)?;
    // The names themselves belong to the rule model (`Action::parse`, `When::parse`).
    let action = string("action", None)?;
    let action = Action::parse(&action).ok_or_else(|| {
        format!(
            "{} must be 'error', 'context' or 'off' (got {action:?})",
            field("action")
        )
    })?;
    let when = string("when", Some("success"))?;
    let when = When::parse(&when).ok_or_else(|| {
        format!(
            "{} must be 'success' or 'always' (got {when:?})",
            field("when")
        )
    })?;
    Ok(Rule {
        id,
        pattern,
        flags,
        action,
        when,
        message,
    })
}

fn optional_numbers(value: &Value, at: &str) -> Result<Option<Vec<f64>>, String> {
    match value {
        Value::Undefined => Ok(None),
        Value::Array(items) => items
            .iter()
            .enumerate()
            .map(|(i, item)| match item {
                Value::Number(n) => Ok(*n),
                other => Err(type_error(&format!("{at}[{i}]"), "a number", other)),
            })
            .collect::<Result<_, _>>()
            .map(Some),
        other => Err(type_error(at, "an array of numbers", other)),
    }
}

fn optional_strings(value: &Value, at: &str) -> Result<Option<Vec<String>>, String> {
    match value {
        Value::Undefined => Ok(None),
        Value::Array(items) => items
            .iter()
            .enumerate()
            .map(|(i, item)| match item {
                Value::String(s) => Ok(s.clone()),
                other => Err(type_error(&format!("{at}[{i}]"), "a string", other)),
            })
            .collect::<Result<_, _>>()
            .map(Some),
        other => Err(type_error(at, "an array of strings", other)),
    }
}

/// A config section: `false` when absent (`undefined`/`null`: defaults apply),
/// `true` for an object with only `known` keys, an error naming `at` otherwise.
fn section(value: &Value, at: &str, known: &[&str]) -> Result<bool, String> {
    match value {
        Value::Undefined | Value::Null => Ok(false),
        Value::Object(_) => reject_unknown_keys(value, at, known).map(|()| true),
        other => Err(type_error(at, "an object", other)),
    }
}

/// A misspelt key would otherwise be ignored silently and the default used.
fn reject_unknown_keys(value: &Value, at: &str, known: &[&str]) -> Result<(), String> {
    match unknown_key(value, known) {
        Some(key) => Err(format!(
            "toolguard: unknown key {at}.{key} (expected one of: {})",
            known.join(", ")
        )),
        None => Ok(()),
    }
}

fn unknown_key<'v>(value: &'v Value, known: &[&str]) -> Option<&'v str> {
    match value {
        Value::Object(entries) => entries
            .iter()
            .find(|(k, v)| !known.contains(&k.as_str()) && *v != Value::Undefined)
            .map(|(k, _)| k.as_str()),
        _ => None,
    }
}

fn type_error(at: &str, expected: &str, got: &Value) -> String {
    format!("toolguard: {at} must be {expected} (got {})", got.kind())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn obj(entries: &[(&str, Value)]) -> Value {
        Value::Object(
            entries
                .iter()
                .map(|(k, v)| (k.to_string(), v.clone()))
                .collect(),
        )
    }
    fn nums(ns: &[f64]) -> Value {
        Value::Array(ns.iter().map(|n| Value::Number(*n)).collect())
    }
    fn repeat(entries: &[(&str, Value)]) -> Result<Config, String> {
        Config::from_value(&obj(&[("repeat", obj(entries))]))
    }

    #[test]
    fn defaults() {
        let c = Config::from_value(&Value::Undefined).unwrap();
        assert_eq!(c.repeat.thresholds, vec![3, 5, 8]);
        assert_eq!(c.repeat.arguments_preview_chars, 500);
        assert_eq!(
            c.loud_failure.shell_tools,
            vec!["bash", "pwsh", "job_output"]
        );
        assert!(!c.loud_failure.scan_value);
    }

    #[test]
    fn thresholds_sorted_and_validated_with_official_texts() {
        assert_eq!(
            repeat(&[("thresholds", nums(&[4.0, 2.0]))])
                .unwrap()
                .repeat
                .thresholds,
            vec![2, 4]
        );
        assert_eq!(
            repeat(&[("thresholds", nums(&[]))]).unwrap_err(),
            "repeat-tool-reminder: `thresholds` must not be empty"
        );
        assert_eq!(
            repeat(&[("thresholds", nums(&[3.0, 1.5]))]).unwrap_err(),
            "repeat-tool-reminder: invalid threshold 1.5 — every threshold must be an integer >= 2"
        );
        assert_eq!(
            repeat(&[("thresholds", nums(&[f64::NAN]))]).unwrap_err(),
            "repeat-tool-reminder: invalid threshold NaN — every threshold must be an integer >= 2"
        );
        assert_eq!(
            repeat(&[("thresholds", nums(&[-0.0]))]).unwrap_err(),
            "repeat-tool-reminder: invalid threshold 0 — every threshold must be an integer >= 2"
        );
        assert_eq!(
            repeat(&[("thresholds", nums(&[3.0, 3.0]))]).unwrap_err(),
            "repeat-tool-reminder: `thresholds` must not contain duplicates"
        );
        assert_eq!(
            repeat(&[("argumentsPreviewChars", Value::Number(0.0))]).unwrap_err(),
            "repeat-tool-reminder: invalid argumentsPreviewChars 0 — must be an integer >= 1"
        );
        // Threshold errors win over preview errors, as in the official apply().
        assert!(repeat(&[
            ("thresholds", nums(&[])),
            ("argumentsPreviewChars", Value::Number(0.5))
        ])
        .unwrap_err()
        .contains("must not be empty"));
        assert_eq!(
            repeat(&[("thresholds", nums(&[1e300]))])
                .unwrap()
                .repeat
                .thresholds,
            vec![u64::MAX]
        );
    }

    #[test]
    fn shape_errors_name_the_key() {
        assert_eq!(
            repeat(&[("thresholds", Value::String("3".into()))]).unwrap_err(),
            "toolguard: config.repeat.thresholds must be an array of numbers (got string)"
        );
        assert_eq!(
            repeat(&[("include", Value::Array(vec![Value::Number(1.0)]))]).unwrap_err(),
            "toolguard: config.repeat.include[0] must be a string (got number)"
        );
        assert_eq!(
            Config::from_value(&obj(&[("repeats", obj(&[]))])).unwrap_err(),
            "toolguard: unknown key config.repeats (expected one of: repeat, loudFailure)"
        );
        assert_eq!(
            Config::from_value(&Value::String("x".into())).unwrap_err(),
            "toolguard: config must be an object (got string)"
        );
    }

    #[test]
    fn rule_shapes() {
        let rule = |entries: &[(&str, Value)]| {
            Config::from_value(&obj(&[(
                "loudFailure",
                obj(&[("rules", Value::Array(vec![obj(entries)]))]),
            )]))
        };
        let s = |v: &str| Value::String(v.into());
        let ok = rule(&[
            ("id", s("x")),
            ("pattern", s("a")),
            ("action", s("context")),
            ("message", s("m")),
        ])
        .unwrap();
        assert_eq!(ok.loud_failure.rules[0].when, When::Success);
        assert_eq!(ok.loud_failure.rules[0].flags, "");
        assert_eq!(
            rule(&[
                ("id", s("x")),
                ("pattern", s("a")),
                ("action", s("loud")),
                ("message", s("m"))
            ])
            .unwrap_err(),
            "loud-failure: rule x: `action` must be 'error', 'context' or 'off' (got \"loud\")"
        );
        assert_eq!(
            rule(&[("pattern", s("a"))]).unwrap_err(),
            "toolguard: config.loudFailure.rules[0].id must be a string (got undefined)"
        );
        assert_eq!(
            rule(&[("id", s("x")), ("action", s("error")), ("message", s("m"))]).unwrap_err(),
            "loud-failure: rule x: `pattern` must be a string (got undefined)"
        );
        assert_eq!(
            rule(&[("id", s("x")), ("pattern", s("a")), ("action", s("error")), ("message", s("m")), ("flag", s("i"))])
                .unwrap_err(),
            "loud-failure: rule x: unknown key `flag` (expected one of: id, pattern, flags, action, when, message)"
        );
    }

    #[test]
    fn numbers_print_like_javascript() {
        assert_eq!(js_number(-0.0), "0");
        assert_eq!(js_number(1e21), "1e+21");
        assert_eq!(js_number(f64::INFINITY), "Infinity");
        assert_eq!(js_number(2.5), "2.5");
        assert_eq!(js_number(3.0), "3");
    }
}
