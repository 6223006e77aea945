//! Options conversion: the config's TypeScript shapes (for index.d.ts) and
//! the walk of a JavaScript config object into the core's [`ConfigValue`]
//! tree, which `toolguard_core::config` decodes (the one decoder).

use napi::bindgen_prelude::*;
use napi::{JsValue, ValueType};
use napi_derive::napi;
use toolguard_core::config::{ConfigValue, CONFIG_DEPTH_LIMIT};
use toolguard_core::ConfigError;

use crate::errors::config_error;
use crate::js_input::type_name;

// ---- TypeScript shapes of the inputs (read by hand, so each bad field
// gets an error that names it; these structs only give index.d.ts its types).

/// Options of the repeat guard; defaults and validation are the official plugin's.
#[napi(object)]
pub struct RepeatOptions {
    /// Run lengths at which a reminder is due (default `[3, 5, 8]`); sorted at load.
    pub thresholds: Option<Vec<f64>>,
    /// Only these tools are tracked (`*` wildcards; empty: all tools).
    pub include: Option<Vec<String>>,
    /// These tools are never tracked; their calls are transparent to the chain.
    pub exclude: Option<Vec<String>>,
    /// How many UTF-16 code units of the canonical arguments the detailed reminder quotes (default 500).
    pub arguments_preview_chars: Option<f64>,
}

/// One silent-failure rule. `pattern` is JavaScript regex source.
#[napi(object)]
pub struct Rule {
    pub id: String,
    pub pattern: String,
    /// Any of `i`, `m`, `s`, `u`.
    pub flags: Option<String>,
    #[napi(ts_type = "'error' | 'context' | 'off'")]
    pub action: String,
    /// Default `'success'`: silent when the output already shows failure.
    #[napi(ts_type = "'success' | 'always'")]
    pub when: Option<String>,
    pub message: String,
    /// Why the rule is high precision (documentation only).
    pub reason: Option<String>,
    /// A veto (same dialect and flags as `pattern`): a match is passed over
    /// when this matches in its window, the lines it touches plus 2 lines
    /// before and after; the rule reports its first match not vetoed.
    pub unless: Option<String>,
}

/// Options of the silent-failure guard.
#[napi(object)]
pub struct LoudFailureOptions {
    /// Merged with the built-in rules by id.
    pub rules: Option<Vec<Rule>>,
    /// Tools whose results are scanned, compared without case (default: `rules/shell-tools.json`, `*` wildcards).
    pub shell_tools: Option<Vec<String>>,
    /// Also scan `JSON.stringify(value)` of a successful result (default false).
    pub scan_value: Option<bool>,
}

/// Options of the result-aware loop detectors (docs/loops.md "Loop detection").
/// A threshold is an integer >= 2, or `false` to switch that detector off.
#[napi(object)]
pub struct LoopsOptions {
    /// Calls kept per agent, as digests (default 30, at most 256).
    pub window: Option<f64>,
    /// The same call with the same outcome this many times in a row (default 3).
    #[napi(ts_type = "number | false")]
    pub repeat: Option<()>,
    /// Rounds begun of a repeated block of calls (default 3).
    #[napi(ts_type = "number | false")]
    pub cycle: Option<()>,
    /// Longest block a cycle may have, 2 to 8 (default 4).
    pub max_period: Option<f64>,
    /// Consecutive failures of one tool with the same error, new arguments each time (default 3).
    #[napi(ts_type = "number | false")]
    pub same_error: Option<()>,
    /// The same, when the failure shows only as an HTTP 4xx/5xx status (default 4).
    #[napi(ts_type = "number | false")]
    pub soft_error: Option<()>,
    /// The same call and result within the window, other calls in between (default 3).
    #[napi(ts_type = "number | false")]
    pub re_read: Option<()>,
    /// Thresholds × this for rate limits and 503s (default 2).
    pub transient_multiplier: Option<f64>,
    /// Polls of a running job that show nothing new, in a row, before it is a loop (default 8).
    #[napi(ts_type = "number | false")]
    pub poll: Option<()>,
    /// …over at least this many seconds where the calls have times (default 300; 0: the count alone).
    pub poll_quiet_seconds: Option<f64>,
    /// `check` refuses a call continuing a loop reminded this many times (`true`: 2; default false: never).
    #[napi(ts_type = "number | boolean")]
    pub deny: Option<()>,
    /// Keep the result-blind DSH repeat reminder too (default false).
    pub result_blind_repeat: Option<bool>,
    /// Argument keys left out of the comparison, per tool pattern (default `{ Bash: ['description'] }`).
    #[napi(ts_type = "Record<string, string[]>")]
    pub ignore_arguments: Option<()>,
    /// Tools that never take part (`*` wildcards).
    pub exempt: Option<Vec<String>>,
    /// Threshold multipliers per tool pattern (`{ 'kubectl*': 2 }`).
    #[napi(ts_type = "Record<string, number>")]
    pub multipliers: Option<()>,
    /// Tools whose success edits files (a re-read after one is a check, not a loop).
    pub mutating_tools: Option<Vec<String>>,
}

#[napi(object)]
pub struct GuardConfig {
    pub repeat: Option<RepeatOptions>,
    pub loud_failure: Option<LoudFailureOptions>,
    /// Loop detectors over calls and their results; off unless given (`true` or options).
    #[napi(ts_type = "boolean | LoopsOptions")]
    pub loops: Option<()>,
    /// Exact mode (docs/exact-mode.md): hosts that can rewrite a shell call
    /// before it runs record each pipeline stage's exit status. Off by default.
    pub exact_mode: Option<bool>,
}

/// A tool call. Give exactly one of `arguments` and `argumentsJson`.
#[napi(object)]
pub struct ToolExecution {
    /// Absent: the call takes part in no chain.
    pub agent_id: Option<String>,
    pub name: String,
    /// The parsed arguments (serialized with `JSON.stringify`).
    #[napi(ts_type = "unknown")]
    pub arguments: Option<()>,
    /// The arguments' JSON text (the fast path); malformed text counts as a raw string, as in DSH.
    pub arguments_json: Option<String>,
    /// Exact mode: the side file of {@link GuardEngine.exactCall}, read and
    /// deleted by `observe` (missing or garbled: the statuses are unknown).
    pub exit_status_file: Option<String>,
    /// The call was made before the previous call's result came back (one
    /// of several parallel calls of a model turn): the loop detectors record
    /// it but raise no alarm on it. A host that cannot tell leaves it out.
    pub concurrent: Option<bool>,
}

#[napi(object)]
pub struct ContentBlock {
    pub r#type: String,
    pub text: Option<String>,
}

/// A tool result. Only text blocks (or `text`) are scanned.
#[napi(object)]
pub struct ToolResult {
    pub is_error: Option<bool>,
    pub content: Option<Vec<ContentBlock>>,
    pub text: Option<String>,
    /// A successful canonical value (scanned only with `scanValue`).
    #[napi(ts_type = "unknown")]
    pub value: Option<()>,
    /// A shell tool's output as the host gives it (a string, `{stdout,
    /// stderr, exitCode}`, `{output, exit_code}`, `{content}`): the engine
    /// makes its text in the DSH shell result format (`[exit code: N]` for a
    /// non-zero exit), as the hook and the audit do.
    #[napi(ts_type = "unknown")]
    pub shell: Option<()>,
}

/// Walk a JavaScript config value into the tree `toolguard_core::config` validates.
pub fn to_config_value(env: &Env, value: &Unknown, depth: usize) -> Result<ConfigValue> {
    if depth > CONFIG_DEPTH_LIMIT {
        return Err(config_error(
            env,
            ConfigError::TooDeep.into(),
            &ConfigValue::Undefined,
        ));
    }
    Ok(match value.get_type()? {
        ValueType::Undefined => ConfigValue::Undefined,
        ValueType::Null => ConfigValue::Null,
        ValueType::Boolean => ConfigValue::Bool(unsafe { value.cast::<bool>() }?),
        ValueType::Number => ConfigValue::Number(unsafe { value.cast::<f64>() }?),
        ValueType::String => ConfigValue::String(unsafe { value.cast::<String>() }?),
        ValueType::Object if value.is_array()? => {
            let array = unsafe { value.cast::<Object>() }?;
            let len = array.get_array_length_unchecked()?;
            let mut items = Vec::with_capacity(len as usize);
            for i in 0..len {
                items.push(to_config_value(
                    env,
                    &array.get_element::<Unknown>(i)?,
                    depth + 1,
                )?);
            }
            ConfigValue::Array(items)
        }
        ValueType::Object => {
            let object = unsafe { value.cast::<Object>() }?;
            let keys = object.get_property_names()?;
            let len = keys.get_array_length_unchecked()?;
            let mut entries = Vec::with_capacity(len as usize);
            for i in 0..len {
                let key: String = keys
                    .get_element::<Unknown>(i)?
                    .coerce_to_string()?
                    .into_utf8()?
                    .into_owned()?;
                let item: Unknown = object.get_named_property_unchecked(&key)?;
                entries.push((key, to_config_value(env, &item, depth + 1)?));
            }
            ConfigValue::Object(entries)
        }
        _ => ConfigValue::Other(type_name(value)?),
    })
}
