//! The hook library (crates/toolguard-hook) for Node: the `toolguard hook`
//! path of the CLI and the `toolguard/hooks` module call these, so Node and
//! the native executable run the same event handling, config loading and
//! state files. What stays in JavaScript (ts/adapters/hooks.mts) is reading
//! a stream with a timer and writing the answer. Internal to the package
//! (`__` names, not re-exported by main.js): the public API is the engine.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use napi::bindgen_prelude::*;
use napi::sys;
use napi_derive::napi;
use toolguard_core::config::ConfigValue;
use toolguard_core::engine::FailureAction;

use crate::errors::{file_error, guarded, invalid};

/// What one hook invocation prints and its exit code.
#[napi(object)]
pub struct HookAnswer {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl From<toolguard_hook::Answer> for HookAnswer {
    fn from(a: toolguard_hook::Answer) -> Self {
        HookAnswer {
            code: a.code,
            stdout: String::from_utf8_lossy(&a.stdout).into_owned(),
            stderr: a.stderr,
        }
    }
}

/// Before the event is read: an answer at once (`--help`, a bad command
/// line), or how to read it.
#[napi(object)]
pub struct HookStart {
    /// Set when the invocation is already answered (stdin must not be read).
    pub answer: Option<HookAnswer>,
    /// The config file to read (`--config`, else `$TOOLGUARD_CONFIG`).
    pub config: Option<String>,
    /// The deadline for reading the event and the session lock.
    pub timeout_ms: f64,
    /// Input longer than this is refused: read no more than one byte past it.
    pub max_input_bytes: f64,
    /// What to print when the deadline passes.
    pub timeout_answer: HookAnswer,
}

fn env_fn(env: &HashMap<String, String>) -> impl Fn(&str) -> Option<String> + '_ {
    move |key| env.get(key).cloned()
}

/// `toolguard hook <argv>`: the command line and the deadline.
#[napi(js_name = "__hookStart", catch_unwind)]
pub fn hook_start(argv: Vec<String>, env: HashMap<String, String>) -> Result<HookStart> {
    guarded(|| {
        let start = toolguard_hook::start(&argv, &env_fn(&env));
        let (answer, config, timeout_ms) = match start {
            toolguard_hook::Start::Answer(a) => (Some(a.into()), None, 0.0),
            toolguard_hook::Start::Read { config, timeout_ms } => (None, config, timeout_ms),
        };
        Ok(HookStart {
            answer,
            config,
            timeout_ms,
            max_input_bytes: toolguard_hook::MAX_INPUT as f64,
            timeout_answer: toolguard_hook::timeout_answer(timeout_ms).into(),
        })
    })
}

/// Handle one hook event (the bytes read from stdin); `remainingMs` bounds
/// the wait for the session lock.
#[napi(js_name = "__hookAnswer", catch_unwind)]
pub fn hook_answer(
    config: Option<String>,
    input: Uint8Array,
    env: HashMap<String, String>,
    remaining_ms: f64,
) -> Result<HookAnswer> {
    guarded(|| {
        let deadline = Instant::now() + Duration::from_secs_f64(remaining_ms.max(0.0) / 1000.0);
        Ok(toolguard_hook::answer(config.as_deref(), &input, &env_fn(&env), deadline).into())
    })
}

/// A verdict's notice as `__hookOutput` reads it (the verdict object's `text`).
#[napi(object)]
pub struct HookNotice {
    pub text: String,
}

/// A verdict's failure as `__hookOutput` reads it.
#[napi(object)]
pub struct HookFailure {
    /// `"error"` or `"context"`.
    pub action: String,
    pub text: String,
}

/// The parts of a `GuardVerdict` a hook answer is made of (other members are ignored).
#[napi(object)]
pub struct HookVerdict {
    pub reminder: Option<HookNotice>,
    #[napi(js_name = "loop")]
    pub loop_alarm: Option<HookNotice>,
    pub failure: Option<HookFailure>,
}

/// The hook library's answer to a verdict (`toolguard_hook::hook_output_of`)
/// as JSON text, `null` when there is nothing to say: the in-process Claude
/// Agent SDK adapter answers as the hook command does. `scanned` is the
/// text the engine scanned, or the shell result value it was given (its
/// text made as the engine made it); `host` is `"claude-code"` or `"codex"`.
#[napi(
    js_name = "__hookOutput",
    catch_unwind,
    ts_args_type = "verdict: GuardVerdict | null, scanned: unknown, host: 'claude-code' | 'codex', eventName: string"
)]
pub fn hook_output(
    verdict: Option<HookVerdict>,
    scanned: Option<Unknown>,
    host: String,
    event_name: String,
) -> Result<Option<String>> {
    guarded(|| {
        let Some(verdict) = verdict else {
            return Ok(None);
        };
        let host = match host.as_str() {
            "claude-code" => toolguard_hook::Host::ClaudeCode,
            "codex" => toolguard_hook::Host::Codex,
            other => {
                return Err(invalid(format!(
                    "toolguard: host must be 'claude-code' or 'codex' (got {other:?})"
                )))
            }
        };
        let failure = match &verdict.failure {
            Some(f) => {
                let action = match f.action.as_str() {
                    "error" => FailureAction::Error,
                    "context" => FailureAction::Context,
                    other => {
                        return Err(invalid(format!(
                            "toolguard: verdict.failure.action must be 'error' or 'context' (got {other:?})"
                        )))
                    }
                };
                Some((action, f.text.as_str()))
            }
            None => None,
        };
        let said = toolguard_hook::Said {
            reminder: verdict.reminder.as_ref().map(|n| n.text.as_str()),
            loop_alarm: verdict.loop_alarm.as_ref().map(|n| n.text.as_str()),
            failure,
        };
        let scanned = match scanned {
            Some(value) => crate::js_input::shell_text(&value, false)?.map(|(text, ..)| text),
            None => None,
        };
        Ok(toolguard_hook::hook_output_of(
            &said,
            scanned.as_deref(),
            host,
            &event_name,
        ))
    })
}

/// The state folder the hook uses in this environment.
#[napi(js_name = "__hookStateDir", catch_unwind)]
pub fn hook_state_dir(env: HashMap<String, String>) -> String {
    toolguard_hook::state::state_dir(&env_fn(&env))
        .to_string_lossy()
        .into_owned()
}

/// The state file name of a chain (`<session>` or `<session>\0<agent>`).
#[napi(js_name = "__hookStateFileName", catch_unwind)]
pub fn hook_state_file_name(chain_id: String) -> String {
    toolguard_hook::state::state_file_name(&chain_id)
}

/// Read a config file (JSON or YAML) and check it as `new GuardEngine()`
/// would; the parsed config, in the file's key order. A bad file throws an
/// `Error` with `code`, `path` (the bad key's path), `file` and `line`.
#[napi(
    js_name = "__loadConfigFile",
    catch_unwind,
    ts_return_type = "GuardConfig"
)]
pub fn load_config_file(env: Env, path: String) -> Result<ConfigTree> {
    guarded(|| {
        let loaded = toolguard_hook::config::read(Some(&path)).map_err(|e| file_error(&env, e))?;
        loaded.check().map_err(|e| file_error(&env, e))?;
        Ok(ConfigTree(match loaded.value {
            // An empty (or all-comment) file: the defaults.
            ConfigValue::Undefined => ConfigValue::Object(Vec::new()),
            value => value,
        }))
    })
}

/// A config's bytes (read by the CLI from standard input, at most one past
/// the config file limit), parsed and checked as [`load_config_file`] does a
/// file's; `name` stands for the file in errors.
#[napi(
    js_name = "__loadConfigBytes",
    catch_unwind,
    ts_return_type = "GuardConfig"
)]
pub fn load_config_bytes(env: Env, name: String, bytes: Uint8Array) -> Result<ConfigTree> {
    guarded(|| {
        let loaded =
            toolguard_hook::config::parse(&name, &bytes).map_err(|e| file_error(&env, e))?;
        loaded.check().map_err(|e| file_error(&env, e))?;
        Ok(ConfigTree(match loaded.value {
            ConfigValue::Undefined => ConfigValue::Object(Vec::new()),
            value => value,
        }))
    })
}

/// A config tree as the JavaScript value it came from.
pub struct ConfigTree(ConfigValue);

impl TypeName for ConfigTree {
    fn type_name() -> &'static str {
        "GuardConfig"
    }
    fn value_type() -> ValueType {
        ValueType::Object
    }
}

impl ToNapiValue for ConfigTree {
    unsafe fn to_napi_value(env: sys::napi_env, val: Self) -> Result<sys::napi_value> {
        unsafe { tree_value(env, &val.0) }
    }
}

unsafe fn tree_value(env: sys::napi_env, value: &ConfigValue) -> Result<sys::napi_value> {
    unsafe {
        match value {
            ConfigValue::Undefined | ConfigValue::Other(_) => <()>::to_napi_value(env, ()),
            ConfigValue::Null => Null::to_napi_value(env, Null),
            ConfigValue::Bool(b) => bool::to_napi_value(env, *b),
            ConfigValue::Number(n) => f64::to_napi_value(env, *n),
            ConfigValue::String(s) => <&str>::to_napi_value(env, s),
            ConfigValue::Array(items) => {
                let mut array = std::ptr::null_mut();
                check_status!(sys::napi_create_array_with_length(
                    env,
                    items.len(),
                    &mut array
                ))?;
                for (i, item) in items.iter().enumerate() {
                    let item = tree_value(env, item)?;
                    check_status!(sys::napi_set_element(env, array, i as u32, item))?;
                }
                Ok(array)
            }
            ConfigValue::Object(members) => {
                let mut object = std::ptr::null_mut();
                check_status!(sys::napi_create_object(env, &mut object))?;
                for (key, member) in members {
                    let key = <&str>::to_napi_value(env, key)?;
                    let member = tree_value(env, member)?;
                    check_status!(sys::napi_set_property(env, object, key, member))?;
                }
                Ok(object)
            }
        }
    }
}
