//! Engine configuration: shapes, defaults and fail-loud validation — the one
//! decoder of every config and rule, whichever way it arrives.
//!
//! A config arrives as a [`ConfigValue`] tree: the binding walks the
//! JavaScript object into one (keeping `NaN`, `Infinity` and `-0` that JSON
//! would lose, because the official error texts print them);
//! [`ConfigValue::from_json`] makes one from JSON text (the audit's config,
//! the built-in rule table). [`Config::from_value`] and [`rule_from_value`]
//! validate it here. Repeat-chain errors use the official plugin's texts byte
//! for byte; everything else names the config key or the rule id.

use crate::error::{ConfigError, Error, KeyPath, RuleError};
use crate::rules::{Action, Rule, When};

/// A JavaScript value as far as configuration cares.
#[derive(Debug, Clone, PartialEq)]
pub enum ConfigValue {
    Undefined,
    Null,
    Bool(bool),
    Number(f64),
    String(String),
    Array(Vec<ConfigValue>),
    /// Own enumerable properties in JavaScript order.
    Object(Vec<(String, ConfigValue)>),
    /// Anything else (function, symbol, bigint), by its `typeof`.
    Other(&'static str),
}

/// Deeper configs are not configs; readers of nested input are recursive, so bound them.
pub const CONFIG_DEPTH_LIMIT: usize = 32;

impl ConfigValue {
    /// `object[key]` (`None` for `undefined` or a non-object).
    pub fn member(&self, key: &str) -> Option<&ConfigValue> {
        match self.get(key) {
            ConfigValue::Undefined => None,
            v => Some(v),
        }
    }

    fn get(&self, key: &str) -> &ConfigValue {
        match self {
            ConfigValue::Object(entries) => entries
                .iter()
                .rev() // a later duplicate wins, as in JavaScript
                .find(|(k, _)| k == key)
                .map_or(&ConfigValue::Undefined, |(_, v)| v),
            _ => &ConfigValue::Undefined,
        }
    }

    /// The `typeof`-like name used in error messages.
    pub fn kind(&self) -> &'static str {
        match self {
            ConfigValue::Undefined => "undefined",
            ConfigValue::Null => "null",
            ConfigValue::Bool(_) => "boolean",
            ConfigValue::Number(_) => "number",
            ConfigValue::String(_) => "string",
            ConfigValue::Array(_) => "array",
            ConfigValue::Object(_) => "object",
            ConfigValue::Other(kind) => kind,
        }
    }

    /// JSON text as a config tree (what `JSON.parse` would give the binding).
    pub fn from_json(text: &str) -> Result<Self, ConfigError> {
        let json: serde_json::Value =
            serde_json::from_str(text).map_err(|e| ConfigError::Json(e.to_string()))?;
        Self::from_json_value(&json, 0)
    }

    fn from_json_value(json: &serde_json::Value, depth: usize) -> Result<Self, ConfigError> {
        if depth > CONFIG_DEPTH_LIMIT {
            return Err(ConfigError::TooDeep);
        }
        Ok(match json {
            serde_json::Value::Null => ConfigValue::Null,
            serde_json::Value::Bool(b) => ConfigValue::Bool(*b),
            serde_json::Value::Number(n) => ConfigValue::Number(n.as_f64().unwrap_or(f64::NAN)),
            serde_json::Value::String(s) => ConfigValue::String(s.clone()),
            serde_json::Value::Array(items) => ConfigValue::Array(
                items
                    .iter()
                    .map(|v| Self::from_json_value(v, depth + 1))
                    .collect::<Result<_, _>>()?,
            ),
            serde_json::Value::Object(entries) => ConfigValue::Object(
                entries
                    .iter()
                    .map(|(k, v)| Ok((k.clone(), Self::from_json_value(v, depth + 1)?)))
                    .collect::<Result<_, ConfigError>>()?,
            ),
        })
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
    /// Counted in UTF-16 code units, as the official plugin's `slice` does.
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
            // The one default list (`rules/shell-tools.json`), compared without case.
            shell_tools: crate::shell::default_shell_tools().to_vec(),
            scan_value: false,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct Config {
    pub repeat: RepeatConfig,
    pub loud_failure: LoudFailureConfig,
    /// The result-aware loop detectors (`loops`); `None`: off (the engine
    /// API stays DSH-exact unless asked; the products turn them on).
    pub loops: Option<LoopsConfig>,
    /// `exactMode` (docs/exact-mode.md): hosts that can rewrite a shell
    /// call before it runs record each pipeline stage's exit status. Off by
    /// default.
    pub exact_mode: bool,
}

impl Config {
    pub fn from_value(value: &ConfigValue) -> Result<Self, Error> {
        if !section(
            value,
            &KeyPath::config(),
            &["repeat", "loudFailure", "loops", "exactMode"],
        )? {
            return Ok(Self::default());
        }
        Ok(Self {
            repeat: RepeatConfig::from_value(value.get("repeat"))?,
            loud_failure: LoudFailureConfig::from_value(value.get("loudFailure"))?,
            loops: LoopsConfig::from_value(value.get("loops"))?,
            exact_mode: match value.get("exactMode") {
                ConfigValue::Undefined => false,
                ConfigValue::Bool(b) => *b,
                other => {
                    return Err(
                        type_error(&KeyPath::config().key("exactMode"), "a boolean", other).into(),
                    )
                }
            },
        })
    }

    /// A config given as JSON text (the audit's `--config`, decoded by the CLI).
    pub fn from_json(text: &str) -> Result<Self, Error> {
        Self::from_value(&ConfigValue::from_json(text)?)
    }

    /// The config as toolguard's products read it (the audit, the plugins,
    /// the adapters, the hook): the loop detectors are on unless the config
    /// says `loops: false`.
    pub fn with_loops_by_default(value: &ConfigValue) -> Result<Self, Error> {
        let mut config = Self::from_value(value)?;
        if matches!(value.get("loops"), ConfigValue::Undefined) {
            config.loops = Some(LoopsConfig::default());
        }
        Ok(config)
    }
}

impl RepeatConfig {
    pub fn from_value(value: &ConfigValue) -> Result<Self, ConfigError> {
        let mut config = Self::default();
        const KNOWN: &[&str] = &["thresholds", "include", "exclude", "argumentsPreviewChars"];
        let at = KeyPath::config().key("repeat");
        if !section(value, &at, KNOWN)? {
            return Ok(config);
        }
        if let Some(thresholds) = optional_numbers(value.get("thresholds"), &at.key("thresholds"))?
        {
            config.thresholds = validate_thresholds(&thresholds)?;
        }
        if let Some(include) = optional_strings(value.get("include"), &at.key("include"))? {
            config.include = include;
        }
        if let Some(exclude) = optional_strings(value.get("exclude"), &at.key("exclude"))? {
            config.exclude = exclude;
        }
        match value.get("argumentsPreviewChars") {
            ConfigValue::Undefined => {}
            ConfigValue::Number(n) => {
                // Same order and text as the official plugin: thresholds are checked first.
                if n.fract() != 0.0 || !n.is_finite() || *n < 1.0 {
                    return Err(ConfigError::InvalidPreviewChars(*n));
                }
                config.arguments_preview_chars = if *n >= usize::MAX as f64 {
                    usize::MAX
                } else {
                    *n as usize
                };
            }
            other => {
                return Err(type_error(
                    &at.key("argumentsPreviewChars"),
                    "a number",
                    other,
                ))
            }
        }
        Ok(config)
    }
}

/// The `loops` section (docs/loops.md "Loop detection"). A threshold is an integer
/// >= 2 or `false` (that detector off).
#[derive(Debug, Clone, PartialEq)]
pub struct LoopsConfig {
    /// Calls kept per agent (digests only); 2..=256. Default 30.
    pub window: usize,
    /// Same call, same outcome, this many times in a row. Default 3.
    pub repeat: Option<u64>,
    /// Rounds begun of a repeated block of calls. Default 3.
    pub cycle: Option<u64>,
    /// Longest block a cycle may have, 2..=8. Default 4.
    pub max_period: usize,
    /// Consecutive failures of one tool with one error signature. Default 3.
    pub same_error: Option<u64>,
    /// The same, when a failure shows only as an HTTP 4xx/5xx status. Default 4.
    pub soft_error: Option<u64>,
    /// The same call and result within the window. Default 3.
    pub re_read: Option<u64>,
    /// Thresholds × this for rate limits and 503s. Default 2.
    pub transient_multiplier: u64,
    /// Polls of a running job that show nothing new, in a row, before it is
    /// a loop (a poll: what the shell model calls waiting). Default 8.
    pub poll: Option<u64>,
    /// …and, where the calls have times, over at least this many seconds
    /// (0: the count alone). Default 300.
    pub poll_quiet_seconds: u64,
    /// Refuse (`check`) a call continuing a loop reminded this many times; `None` (default): never.
    pub deny: Option<u64>,
    /// Keep the result-blind DSH repeat reminder beside the loop detectors. Default false.
    pub result_blind_repeat: bool,
    /// Argument keys left out of the call comparison, per tool pattern.
    /// Default `{"Bash": ["description"]}` (Claude Code rewrites it every call).
    pub ignore_arguments: Vec<(String, Vec<String>)>,
    /// Tools that never take part (transparent). Default none.
    pub exempt: Vec<String>,
    /// Per-tool threshold multipliers (`{"kubectl*": 2}`). Default none.
    pub multipliers: Vec<(String, f64)>,
    /// Tools whose success changes files, besides those the harness tool model
    /// (`rules/harness-tools.json`) knows: a re-read of a successful result after one is checking, not looping.
    pub mutating_tools: Vec<String>,
}

/// Tools whose success changes files beyond what the harness tool model
/// knows: none by default — `rules/harness-tools.json` says which tools of
/// every harness write (an editor's `view` is no edit, a SWE-agent `edit`
/// is), so a host lists here only tools of its own.
pub const DEFAULT_MUTATING_TOOLS: &[&str] = &[];

impl Default for LoopsConfig {
    fn default() -> Self {
        Self {
            window: 30,
            repeat: Some(3),
            cycle: Some(3),
            max_period: 4,
            same_error: Some(3),
            soft_error: Some(4),
            re_read: Some(3),
            transient_multiplier: 2,
            poll: Some(8),
            poll_quiet_seconds: 300,
            deny: None,
            result_blind_repeat: false,
            ignore_arguments: vec![("Bash".into(), vec!["description".into()])],
            exempt: Vec::new(),
            multipliers: Vec::new(),
            mutating_tools: DEFAULT_MUTATING_TOOLS
                .iter()
                .map(|s| s.to_string())
                .collect(),
        }
    }
}

/// Keys of the `loops` section, in documented order.
pub const LOOPS_KEYS: &[&str] = &[
    "window",
    "repeat",
    "cycle",
    "maxPeriod",
    "sameError",
    "softError",
    "reRead",
    "transientMultiplier",
    "poll",
    "pollQuietSeconds",
    "deny",
    "resultBlindRepeat",
    "ignoreArguments",
    "exempt",
    "multipliers",
    "mutatingTools",
];

impl LoopsConfig {
    /// `undefined`/`null`: off; `false`: off; `true` or an object: on.
    pub fn from_value(value: &ConfigValue) -> Result<Option<Self>, ConfigError> {
        let mut config = Self::default();
        match value {
            ConfigValue::Undefined | ConfigValue::Null | ConfigValue::Bool(false) => {
                return Ok(None)
            }
            ConfigValue::Bool(true) => return Ok(Some(config)),
            _ => {}
        }
        let loops = KeyPath::config().key("loops");
        if !section(value, &loops, LOOPS_KEYS)? {
            return Ok(Some(config));
        }
        let at = |k: &str| loops.key(k);
        if let Some(n) = integer(
            value.get("window"),
            &at("window"),
            2.0,
            MAX_LOOP_WINDOW as f64,
        )? {
            config.window = n as usize;
        }
        for (key, slot) in [
            ("repeat", &mut config.repeat),
            ("cycle", &mut config.cycle),
            ("sameError", &mut config.same_error),
            ("softError", &mut config.soft_error),
            ("reRead", &mut config.re_read),
            ("poll", &mut config.poll),
        ] {
            match value.get(key) {
                ConfigValue::Undefined => {}
                ConfigValue::Bool(false) => *slot = None,
                v => *slot = integer(v, &at(key), 2.0, 1e9)?,
            }
        }
        if let Some(n) = integer(value.get("maxPeriod"), &at("maxPeriod"), 2.0, 8.0)? {
            config.max_period = n as usize;
        }
        if let Some(n) = integer(
            value.get("transientMultiplier"),
            &at("transientMultiplier"),
            1.0,
            100.0,
        )? {
            config.transient_multiplier = n;
        }
        if let Some(n) = integer(
            value.get("pollQuietSeconds"),
            &at("pollQuietSeconds"),
            0.0,
            86_400.0,
        )? {
            config.poll_quiet_seconds = n;
        }
        match value.get("deny") {
            ConfigValue::Undefined | ConfigValue::Bool(false) => {}
            ConfigValue::Bool(true) => config.deny = Some(2),
            v => config.deny = integer(v, &at("deny"), 1.0, 1e9)?,
        }
        match value.get("resultBlindRepeat") {
            ConfigValue::Undefined => {}
            ConfigValue::Bool(b) => config.result_blind_repeat = *b,
            other => return Err(type_error(&at("resultBlindRepeat"), "a boolean", other)),
        }
        match value.get("ignoreArguments") {
            ConfigValue::Undefined => {}
            ConfigValue::Object(entries) => {
                config.ignore_arguments = entries
                    .iter()
                    .filter(|(_, v)| *v != ConfigValue::Undefined)
                    .map(|(tool, keys)| {
                        let keys = optional_strings(keys, &at("ignoreArguments").key(tool))?
                            .unwrap_or_default();
                        Ok((tool.clone(), keys))
                    })
                    .collect::<Result<_, ConfigError>>()?;
            }
            other => {
                return Err(type_error(
                    &at("ignoreArguments"),
                    "an object of tool: [keys]",
                    other,
                ))
            }
        }
        if let Some(v) = optional_strings(value.get("exempt"), &at("exempt"))? {
            config.exempt = v;
        }
        if let Some(v) = optional_strings(value.get("mutatingTools"), &at("mutatingTools"))? {
            config.mutating_tools = v;
        }
        match value.get("multipliers") {
            ConfigValue::Undefined => {}
            ConfigValue::Object(entries) => {
                config.multipliers = entries
                    .iter()
                    .filter(|(_, v)| *v != ConfigValue::Undefined)
                    .map(|(tool, m)| match m {
                        ConfigValue::Number(n) if n.is_finite() && *n > 0.0 && *n <= 100.0 => {
                            Ok((tool.clone(), *n))
                        }
                        other => Err(ConfigError::WrongType {
                            at: at("multipliers").key(tool),
                            expected: "a number in (0, 100]",
                            got: other.kind(),
                        }),
                    })
                    .collect::<Result<_, _>>()?;
            }
            other => {
                return Err(type_error(
                    &at("multipliers"),
                    "an object of tool: number",
                    other,
                ))
            }
        }
        Ok(Some(config))
    }
}

/// The most calls a loop window may keep (see `loops::MAX_WINDOW`).
pub const MAX_LOOP_WINDOW: usize = 256;

/// An optional integer in `[min, max]`; anything else names `at`.
fn integer(
    value: &ConfigValue,
    at: &KeyPath,
    min: f64,
    max: f64,
) -> Result<Option<u64>, ConfigError> {
    match value {
        ConfigValue::Undefined => Ok(None),
        ConfigValue::Number(n) if n.is_finite() && n.fract() == 0.0 && *n >= min && *n <= max => {
            Ok(Some(*n as u64))
        }
        other => Err(ConfigError::OutOfRange {
            at: at.clone(),
            min: min as u64,
            max: max as u64,
            got: match other {
                ConfigValue::Number(n) => js_number(*n),
                v => v.kind().to_owned(),
            },
        }),
    }
}

/// The official `validateThresholds`: fail loud, then sort ascending.
pub fn validate_thresholds(values: &[f64]) -> Result<Vec<u64>, ConfigError> {
    if values.is_empty() {
        return Err(ConfigError::EmptyThresholds);
    }
    if let Some(&v) = values
        .iter()
        .find(|v| !v.is_finite() || v.fract() != 0.0 || **v < 2.0)
    {
        return Err(ConfigError::InvalidThreshold(v));
    }
    // `new Set(values)` compares with SameValueZero; all values are finite integers here.
    let mut sorted: Vec<f64> = values.to_vec();
    sorted.sort_by(|a, b| a.total_cmp(b));
    if sorted.windows(2).any(|w| w[0] == w[1]) {
        return Err(ConfigError::DuplicateThresholds);
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
    pub fn from_value(value: &ConfigValue) -> Result<Self, Error> {
        let mut config = Self::default();
        let at = KeyPath::config().key("loudFailure");
        if !section(value, &at, &["rules", "shellTools", "scanValue"])? {
            return Ok(config);
        }
        match value.get("rules") {
            ConfigValue::Undefined => {}
            ConfigValue::Array(items) => {
                config.rules = items
                    .iter()
                    .enumerate()
                    .map(|(i, item)| rule_from_value(item, &at.key("rules").index(i)))
                    .collect::<Result<_, _>>()?;
            }
            other => return Err(type_error(&at.key("rules"), "an array", other).into()),
        }
        if let Some(tools) = optional_strings(value.get("shellTools"), &at.key("shellTools"))? {
            config.shell_tools = tools;
        }
        match value.get("scanValue") {
            ConfigValue::Undefined => {}
            ConfigValue::Bool(b) => config.scan_value = *b,
            other => return Err(type_error(&at.key("scanValue"), "a boolean", other).into()),
        }
        Ok(config)
    }
}

/// The keys of a rule object, in the order the README documents them.
pub const RULE_KEYS: &[&str] = &[
    "id", "pattern", "flags", "action", "when", "message", "reason", "unless",
];

/// One rule object — a user rule or a row of `rules/builtin.json`, the same
/// decoder for both, so a built-in copied into a config loads. `at` names
/// the rule until its id is known; then errors name the id.
///
/// Defaults: `flags` `""`, `when` `"success"`, `reason` `""`, no `unless`. A rule whose
/// `action` is `"off"` needs only its `id` (it switches a built-in off); every
/// other rule needs a non-empty `pattern` and a `message`.
pub fn rule_from_value(value: &ConfigValue, at: &KeyPath) -> Result<Rule, Error> {
    if !matches!(value, ConfigValue::Object(_)) {
        return Err(type_error(at, "a rule object", value).into());
    }
    let id = match value.get("id") {
        ConfigValue::String(s) if !s.is_empty() => s.clone(),
        ConfigValue::String(_) => return Err(ConfigError::EmptyRuleId { at: at.clone() }.into()),
        other => return Err(type_error(&at.key("id"), "a string", other).into()),
    };
    let problem = |reason: String| {
        Error::from(RuleError {
            at: Some(at.clone()),
            ..RuleError::new(&id, reason)
        })
    };
    if let Some(key) = unknown_key(value, RULE_KEYS) {
        return Err(RuleError {
            at: Some(at.clone()),
            expected: Some(RULE_KEYS),
            ..RuleError::new(
                &id,
                format!(
                    "unknown key `{key}` (expected one of: {})",
                    RULE_KEYS.join(", ")
                ),
            )
        }
        .into());
    }
    let string = |key: &str, default: Option<&str>| -> Result<String, Error> {
        match (value.get(key), default) {
            (ConfigValue::String(s), _) => Ok(s.clone()),
            (ConfigValue::Undefined, Some(d)) => Ok(d.to_owned()),
            (other, _) => Err(problem(format!(
                "`{key}` must be a string (got {})",
                other.kind()
            ))),
        }
    };
    let off = matches!(value.get("action"), ConfigValue::String(a) if a == "off");
    let optional = off.then_some("");
    let pattern = string("pattern", optional)?;
    if pattern.is_empty() && !off {
        // An empty pattern matches every output: never what a rule means.
        return Err(problem("`pattern` must not be empty".to_owned()));
    }
    let flags = string("flags", Some(""))?;
    let message = string("message", optional)?;
    // The names themselves belong to the rule model (`Action::parse`, `When::parse`).
    let action = string("action", None)?;
    let action = Action::parse(&action).ok_or_else(|| {
        problem(format!(
            "`action` must be 'error', 'context' or 'off' (got {action:?})"
        ))
    })?;
    let when = string("when", Some("success"))?;
    let when = When::parse(&when).ok_or_else(|| {
        problem(format!(
            "`when` must be 'success' or 'always' (got {when:?})"
        ))
    })?;
    let reason = string("reason", Some(""))?;
    // Its pattern is checked with the rule's (`rules::unless::check`).
    let unless = match value.get("unless") {
        ConfigValue::Undefined => None,
        _ => Some(string("unless", None)?),
    };
    Ok(Rule {
        id,
        pattern,
        flags,
        action,
        when,
        message,
        reason,
        unless,
    })
}

fn optional_numbers(value: &ConfigValue, at: &KeyPath) -> Result<Option<Vec<f64>>, ConfigError> {
    optional_array(
        value,
        at,
        ("a number", "an array of numbers"),
        |item| match item {
            ConfigValue::Number(n) => Some(*n),
            _ => None,
        },
    )
}

fn optional_strings(value: &ConfigValue, at: &KeyPath) -> Result<Option<Vec<String>>, ConfigError> {
    optional_array(
        value,
        at,
        ("a string", "an array of strings"),
        |item| match item {
            ConfigValue::String(s) => Some(s.clone()),
            _ => None,
        },
    )
}

/// An optional array whose every item `item` takes (`None`: not the kind
/// named by `one`; `many` names the array); an error names the array or
/// the item's index.
fn optional_array<T>(
    value: &ConfigValue,
    at: &KeyPath,
    (one, many): (&'static str, &'static str),
    item: impl Fn(&ConfigValue) -> Option<T>,
) -> Result<Option<Vec<T>>, ConfigError> {
    match value {
        ConfigValue::Undefined => Ok(None),
        ConfigValue::Array(items) => items
            .iter()
            .enumerate()
            .map(|(i, v)| item(v).ok_or_else(|| type_error(&at.index(i), one, v)))
            .collect::<Result<_, _>>()
            .map(Some),
        other => Err(type_error(at, many, other)),
    }
}

/// A config section: `false` when absent (`undefined`/`null`: defaults apply),
/// `true` for an object with only `known` keys, an error naming `at` otherwise.
fn section(
    value: &ConfigValue,
    at: &KeyPath,
    known: &'static [&'static str],
) -> Result<bool, ConfigError> {
    match value {
        ConfigValue::Undefined | ConfigValue::Null => Ok(false),
        ConfigValue::Object(_) => match unknown_key(value, known) {
            Some(key) => Err(ConfigError::UnknownKey {
                at: at.clone(),
                key: key.to_owned(),
                expected: known,
            }),
            None => Ok(true),
        },
        other => Err(type_error(at, "an object", other)),
    }
}

fn unknown_key<'v>(value: &'v ConfigValue, known: &[&str]) -> Option<&'v str> {
    match value {
        ConfigValue::Object(entries) => entries
            .iter()
            .find(|(k, v)| !known.contains(&k.as_str()) && *v != ConfigValue::Undefined)
            .map(|(k, _)| k.as_str()),
        _ => None,
    }
}

fn type_error(at: &KeyPath, expected: &'static str, got: &ConfigValue) -> ConfigError {
    ConfigError::WrongType {
        at: at.clone(),
        expected,
        got: got.kind(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ConfigValue as Value;

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
        Config::from_value(&obj(&[("repeat", obj(entries))])).map_err(|e| e.to_string())
    }

    #[test]
    fn defaults() {
        let c = Config::from_value(&Value::Undefined).unwrap();
        assert_eq!(c.repeat.thresholds, vec![3, 5, 8]);
        assert_eq!(c.repeat.arguments_preview_chars, 500);
        // The one default list (rules/shell-tools.json), Claude Code's and Codex's names among them.
        for tool in [
            "bash",
            "pwsh",
            "job_output",
            "shell",
            "exec_command",
            "execute_bash",
            "run",
        ] {
            assert!(
                c.loud_failure.shell_tools.iter().any(|t| t == tool),
                "{tool}"
            );
        }
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
            Config::from_value(&obj(&[("repeats", obj(&[]))]))
                .unwrap_err()
                .to_string(),
            "toolguard: unknown key config.repeats (expected one of: repeat, loudFailure, loops, exactMode)"
        );
        assert_eq!(
            Config::from_value(&Value::String("x".into()))
                .unwrap_err()
                .to_string(),
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
            .map_err(|e| e.to_string())
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
            "loud-failure: rule x: unknown key `flag` (expected one of: id, pattern, flags, action, when, message, reason, unless)"
        );
        // `unless`: a string (its pattern is checked when the table compiles).
        let with_unless = |v: Value| {
            rule(&[
                ("id", s("x")),
                ("pattern", s("a")),
                ("action", s("error")),
                ("message", s("m")),
                ("unless", v),
            ])
        };
        assert_eq!(
            with_unless(s("ignored")).unwrap().loud_failure.rules[0]
                .unless
                .as_deref(),
            Some("ignored")
        );
        assert_eq!(ok.loud_failure.rules[0].unless, None);
        assert_eq!(
            with_unless(Value::Number(3.0)).unwrap_err(),
            "loud-failure: rule x: `unless` must be a string (got number)"
        );
    }

    #[test]
    fn exact_mode_is_a_boolean_off_by_default() {
        assert!(!Config::default().exact_mode);
        let exact = |v: Value| Config::from_value(&obj(&[("exactMode", v)]));
        assert!(exact(Value::Bool(true)).unwrap().exact_mode);
        assert!(!exact(Value::Bool(false)).unwrap().exact_mode);
        let err = exact(Value::String("yes".into())).unwrap_err();
        assert_eq!(
            err.to_string(),
            "toolguard: config.exactMode must be a boolean (got string)"
        );
        assert_eq!(err.code(), "TOOLGUARD_WRONG_TYPE");
    }

    #[test]
    fn loops_section_defaults_switches_and_errors() {
        let loops = |v: Value| {
            Config::from_value(&obj(&[("loops", v)]))
                .map(|c| c.loops)
                .map_err(|e| e.to_string())
        };
        assert_eq!(Config::default().loops, None, "off unless asked");
        assert_eq!(loops(Value::Bool(false)).unwrap(), None);
        let on = loops(Value::Bool(true)).unwrap().unwrap();
        assert_eq!(on, LoopsConfig::default());
        assert_eq!(
            (
                on.repeat,
                on.cycle,
                on.same_error,
                on.soft_error,
                on.re_read
            ),
            (Some(3), Some(3), Some(3), Some(4), Some(3))
        );
        assert_eq!((on.poll, on.poll_quiet_seconds), (Some(8), 300));
        let c = loops(obj(&[
            ("poll", Value::Bool(false)),
            ("pollQuietSeconds", Value::Number(0.0)),
        ]))
        .unwrap()
        .unwrap();
        assert_eq!((c.poll, c.poll_quiet_seconds), (None, 0));
        assert_eq!(
            loops(obj(&[("pollQuietSeconds", Value::Number(-1.0))])).unwrap_err(),
            "toolguard: config.loops.pollQuietSeconds must be an integer from 0 to 86400 (got -1)"
        );
        assert_eq!(
            on.ignore_arguments,
            vec![("Bash".to_owned(), vec!["description".to_owned()])]
        );
        let c = loops(obj(&[
            ("cycle", Value::Bool(false)),
            ("reRead", Value::Number(5.0)),
            ("deny", Value::Number(2.0)),
            (
                "ignoreArguments",
                obj(&[(
                    "shell",
                    Value::Array(vec![Value::String("timeout_ms".into())]),
                )]),
            ),
            ("multipliers", obj(&[("kubectl*", Value::Number(2.0))])),
        ]))
        .unwrap()
        .unwrap();
        assert_eq!((c.cycle, c.re_read, c.deny), (None, Some(5), Some(2)));
        assert_eq!(
            c.ignore_arguments,
            vec![("shell".to_owned(), vec!["timeout_ms".to_owned()])]
        );
        assert_eq!(c.multipliers, vec![("kubectl*".to_owned(), 2.0)]);
        assert_eq!(
            loops(obj(&[("repeat", Value::Number(1.0))])).unwrap_err(),
            "toolguard: config.loops.repeat must be an integer from 2 to 1000000000, or false (got 1)"
        );
        assert_eq!(
            loops(obj(&[("maxPeriod", Value::Number(9.0))])).unwrap_err(),
            "toolguard: config.loops.maxPeriod must be an integer from 2 to 8 (got 9)"
        );
        assert_eq!(
            loops(obj(&[("reread", Value::Number(3.0))])).unwrap_err(),
            format!(
                "toolguard: unknown key config.loops.reread (expected one of: {})",
                LOOPS_KEYS.join(", ")
            )
        );
        assert_eq!(
            loops(obj(&[("multipliers", obj(&[("x", Value::Number(0.0))]))])).unwrap_err(),
            "toolguard: config.loops.multipliers.x must be a number in (0, 100] (got number)"
        );
    }

    #[test]
    fn errors_carry_a_code_and_a_key_path() {
        use crate::error::PathStep::{Index, Key};
        let check = |json: &str| {
            let value = ConfigValue::from_json(json).unwrap();
            let e = Config::from_value(&value)
                .and_then(|c| crate::engine::Engine::new(&c).map(|_| ()))
                .unwrap_err();
            (e.code(), e.path(&value))
        };
        let key = |k: &str| Key(k.to_owned());
        let cases = [
            (
                r#"{"repeat":{"treshold":1}}"#,
                "TOOLGUARD_UNKNOWN_KEY",
                vec![key("repeat"), key("treshold")],
            ),
            (
                r#"{"repeat":{"thresholds":[1]}}"#,
                "TOOLGUARD_OUT_OF_RANGE",
                vec![key("repeat"), key("thresholds")],
            ),
            (
                r#"{"loops":{"window":1}}"#,
                "TOOLGUARD_OUT_OF_RANGE",
                vec![key("loops"), key("window")],
            ),
            (
                r#"{"repeat":{"include":[1]}}"#,
                "TOOLGUARD_WRONG_TYPE",
                vec![key("repeat"), key("include"), Index(0)],
            ),
        ];
        for (json, code, path) in cases {
            assert_eq!(check(json), (code, Some(path)), "{json}");
        }
        let rule = r#"{"id":"mine","pattern":"(","action":"error","message":"m"}"#;
        let rules = format!(
            r#"{{"loudFailure":{{"rules":[{rule},{}]}}}}"#,
            rule.replace("mine", "b")
                .replace("\"(\"", "\"x\"")
                .replace("\"m\"}", "\"m\",\"flag\":1}")
        );
        assert_eq!(
            check(&rules),
            (
                "TOOLGUARD_BAD_RULE",
                Some(vec![key("loudFailure"), key("rules"), Index(1)])
            ),
            "a decoder error knows its index"
        );
        assert_eq!(
            check(&format!(r#"{{"loudFailure":{{"rules":[{rule}]}}}}"#)),
            (
                "TOOLGUARD_BAD_RULE",
                Some(vec![key("loudFailure"), key("rules"), Index(0)])
            ),
            "a pattern error is found by its id"
        );
    }

    #[test]
    fn an_unknown_key_error_lists_the_accepted_keys_as_data() {
        let expected = |json: &str| {
            let value = ConfigValue::from_json(json).unwrap();
            Config::from_value(&value).unwrap_err().expected()
        };
        let rule = r#"{"id":"x","pattern":"a","action":"error","message":"m","flag":1}"#;
        assert_eq!(
            expected(&format!(r#"{{"loudFailure":{{"rules":[{rule}]}}}}"#)),
            Some(RULE_KEYS)
        );
        assert_eq!(expected(r#"{"loops":{"reread":3}}"#), Some(LOOPS_KEYS));
        assert_eq!(
            expected(r#"{"repeats":{}}"#),
            Some(&["repeat", "loudFailure", "loops", "exactMode"][..])
        );
        // Not an unknown key: nothing to list.
        assert_eq!(expected(r#"{"loops":{"window":1}}"#), None);
        assert_eq!(
            expected(r#"{"loudFailure":{"rules":[{"id":"x","action":"loud"}]}}"#),
            None
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
