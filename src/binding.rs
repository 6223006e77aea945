//! The N-API surface: argument checking, JavaScript ⇄ Rust conversion, errors.
//!
//! Guard semantics live in `engine.rs`; this file only reads what the engine
//! needs from the JavaScript objects (lazily: a result is read only when its
//! tool is scanned) and turns verdicts into plain objects.

use std::borrow::Cow;
use std::cell::RefCell;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::rc::{Rc, Weak};
use std::sync::{Arc, OnceLock};

use napi::bindgen_prelude::*;
use napi::{JsValue, ValueType};
use napi_derive::napi;

use crate::chain::Reminder;
use crate::config::{Config, Value};
use crate::engine::{Call, Engine, Output, Scanner, Verdict};

/// Deeper configs are not configs; the walk is recursive, so bound it.
const CONFIG_DEPTH_LIMIT: usize = 32;

// ---- TypeScript shapes of the inputs (read by hand below, so each bad field
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
}

/// Options of the silent-failure guard.
#[napi(object)]
pub struct LoudFailureOptions {
    /// Merged with the built-in rules by id.
    pub rules: Option<Vec<Rule>>,
    /// Tools whose results are scanned (default `['bash', 'pwsh', 'job_output']`, `*` wildcards).
    pub shell_tools: Option<Vec<String>>,
    /// Also scan `JSON.stringify(value)` of a successful result (default false).
    pub scan_value: Option<bool>,
}

#[napi(object)]
pub struct GuardConfig {
    pub repeat: Option<RepeatOptions>,
    pub loud_failure: Option<LoudFailureOptions>,
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
}

// ---- Verdicts.

#[napi(object)]
pub struct ReminderVerdict {
    pub tool: String,
    pub count: f64,
    /// Exactly the official reminder text.
    #[napi(ts_type = "string")]
    pub text: Utf16String,
    /// `<tool> × <count>`.
    pub summary: String,
}

#[napi(object)]
pub struct RuleHit {
    pub id: String,
    pub message: String,
    /// 1-based line of the first match in the scanned text.
    pub line: u32,
    /// The matching line, trimmed (at most 200 characters, then `…`).
    pub excerpt: String,
}

#[napi(object)]
pub struct FailureVerdict {
    #[napi(ts_type = "'error' | 'context'")]
    pub action: String,
    pub summary: String,
    /// `error`: header then the original output verbatim; `context`: the notice.
    pub text: String,
    pub rules: Vec<RuleHit>,
}

#[napi(object)]
pub struct GuardVerdict {
    pub reminder: Option<ReminderVerdict>,
    pub failure: Option<FailureVerdict>,
}

impl From<Reminder> for ReminderVerdict {
    fn from(r: Reminder) -> Self {
        ReminderVerdict {
            tool: r.tool,
            count: r.count as f64,
            text: Utf16String::from(r.text),
            summary: r.summary,
        }
    }
}

impl From<Verdict> for GuardVerdict {
    fn from(verdict: Verdict) -> Self {
        GuardVerdict {
            reminder: verdict.reminder.map(Into::into),
            failure: verdict.failure.map(|f| FailureVerdict {
                action: f.action.as_str().to_owned(),
                summary: f.summary,
                text: f.text,
                rules: f
                    .rules
                    .into_iter()
                    .map(|m| RuleHit {
                        id: m.id,
                        message: m.message,
                        line: u32::try_from(m.line).unwrap_or(u32::MAX),
                        excerpt: m.excerpt,
                    })
                    .collect(),
            }),
        }
    }
}

// Every method takes `&self`: napi-rs holds the borrow of `this` until an
// `observeAsync` promise settles, so a `&mut self` method would fail with
// "cannot be borrowed mutably" while any scan is in flight. The engine sits
// in a `RefCell` instead, borrowed only while no JavaScript can run.
/// One agent's saved chain (see `GuardEngine.chainState`).
#[napi(object)]
pub struct ChainState {
    pub digest: String,
    pub count: f64,
}

/// The guard engine: per-agent repeat chains and silent-failure rules.
#[napi]
pub struct GuardEngine {
    /// Shared with the `observeCall` registry (which holds a `Weak`).
    engine: Rc<RefCell<Engine>>,
    /// This engine's index in `CALL_ENGINES`.
    call_handle: u32,
}

thread_local! {
    /// Engines reachable from `observeCall` by number. A number is never
    /// reused, and a collected engine leaves a dead `Weak`, so a stale handle
    /// throws instead of reaching another engine. A plain index costs a few
    /// nanoseconds where a class method (napi-rs's per-call borrow registry
    /// and class check, ~230 ns) or an `External` (~95 ns) cost far more on a
    /// call whose whole budget is about a microsecond.
    static CALL_ENGINES: RefCell<Vec<Weak<RefCell<Engine>>>> = const { RefCell::new(Vec::new()) };
}

#[napi]
impl GuardEngine {
    /// Compile a config. Throws an `Error` naming the bad key or rule id.
    #[napi(constructor, catch_unwind, ts_args_type = "config?: GuardConfig")]
    pub fn new(config: Option<Unknown>) -> Result<Self> {
        let value = match config {
            Some(config) => to_config_value(&config, 0)?,
            None => Value::Undefined,
        };
        let config = Config::from_value(&value).map_err(invalid)?;
        let engine = Rc::new(RefCell::new(Engine::new(&config).map_err(invalid)?));
        let call_handle = CALL_ENGINES.with(|engines| {
            let mut engines = engines.borrow_mut();
            engines.push(Rc::downgrade(&engine));
            u32::try_from(engines.len() - 1).unwrap_or(u32::MAX)
        });
        Ok(Self {
            engine,
            call_handle,
        })
    }

    /// Advance the agent's chain and scan the result; `null` when the guard has nothing to say.
    #[napi(
        catch_unwind,
        ts_args_type = "exec: ToolExecution, result?: ToolResult",
        ts_return_type = "GuardVerdict | null"
    )]
    pub fn observe(
        &self,
        env: Env,
        exec: Unknown,
        result: Option<Unknown>,
    ) -> Result<Option<VerdictValue>> {
        guarded(|| {
            let mut sources = Vec::new();
            let pending = self.prepare(&env, &exec, result.as_ref(), &mut sources)?;
            // The original output as the error text embeds it (texts joined
            // with "\n"): its length in Rust, and whether a text had lone
            // surrogates (U+FFFD in Rust).
            let (original_len, lossy) = match pending.parts.as_ref() {
                Some(parts) if !parts.texts.is_empty() => (
                    parts.texts.iter().map(String::len).sum::<usize>() + parts.texts.len() - 1,
                    parts.lossy,
                ),
                _ => (0, false),
            };
            let Some(verdict) = pending.finish() else {
                return Ok(None);
            };
            let mut verdict = GuardVerdict::from(verdict);
            // An error verdict's text is its header plus the original output.
            // For a big output, build it in V8 as header.concat(original) (a
            // cons string, O(1)) instead of copying the output through Rust
            // and decoding it back: 10 MB, ~56 -> ~31 ms. Below a few KB the
            // extra N-API calls (~1 µs) cost more than the copy, unless the
            // output has lone surrogates, which only V8's copy keeps exactly.
            let concat = match verdict.failure.as_mut() {
                Some(failure)
                    if (original_len >= VERDICT_CONCAT_MIN || lossy)
                        && failure.action == "error"
                        && failure.text.len() > original_len =>
                {
                    failure.text.truncate(failure.text.len() - original_len);
                    true
                }
                _ => false,
            };
            let value = verdict_value(&env, verdict)?;
            if concat {
                concat_failure_text(&env, value, &sources)?;
            }
            Ok(Some(VerdictValue(value)))
        })
    }

    /// `observe` with the scan on a worker thread, for large outputs: the
    /// event loop stays free while the rules run. The chain advances now, in
    /// call order, so calls of one agent count in the order they were made
    /// whatever order their scans finish in. Bad input throws here, as with
    /// `observe`; the promise resolves to exactly what `observe` returns.
    #[napi(
        catch_unwind,
        ts_args_type = "exec: ToolExecution, result?: ToolResult",
        ts_return_type = "Promise<GuardVerdict | null>"
    )]
    pub fn observe_async(
        &self,
        env: Env,
        exec: Unknown,
        result: Option<Unknown>,
    ) -> Result<AsyncTask<ScanTask>> {
        guarded(|| {
            let pending = self.prepare(&env, &exec, result.as_ref(), &mut Vec::new())?;
            Ok(AsyncTask::new(ScanTask(Some(pending))))
        })
    }

    /// The user spoke: that agent's chain starts over.
    #[napi(catch_unwind, ts_args_type = "agentId: string")]
    pub fn reset(&self, agent_id: Unknown) -> Result<()> {
        self.engine
            .borrow_mut()
            .reset(&agent_id_argument(&agent_id)?);
        Ok(())
    }

    /// The agent is gone: free its state.
    #[napi(catch_unwind, ts_args_type = "agentId: string")]
    pub fn forget(&self, agent_id: Unknown) -> Result<()> {
        self.engine
            .borrow_mut()
            .forget(&agent_id_argument(&agent_id)?);
        Ok(())
    }

    /// The agent's chain as `{ digest, count }` (`digest`: 32 lowercase hex
    /// digits of the 128-bit key digest), or `null`. With `restoreChain` it
    /// carries a chain across processes (the per-call hook CLI).
    #[napi(catch_unwind)]
    pub fn chain_state(&self, agent_id: String) -> Option<ChainState> {
        self.engine
            .borrow()
            .chain_state(&agent_id)
            .map(|(digest, count)| ChainState {
                digest: format!("{digest:032x}"),
                count: count as f64,
            })
    }

    /// Put back a chain saved with `chainState`; a malformed digest or a count
    /// below 1 throws, naming the field.
    #[napi(catch_unwind)]
    pub fn restore_chain(&self, agent_id: String, state: ChainState) -> Result<()> {
        let digest = Some(&state.digest)
            .filter(|d| d.len() == 32)
            .and_then(|d| u128::from_str_radix(d, 16).ok())
            .ok_or_else(|| invalid("toolguard: state.digest must be 32 hexadecimal digits"))?;
        if !(state.count.is_finite() && state.count.fract() == 0.0 && state.count >= 1.0) {
            return Err(invalid("toolguard: state.count must be an integer >= 1"));
        }
        self.engine
            .borrow_mut()
            .restore_chain(&agent_id, digest, state.count as u64)
            .map_err(invalid)
    }

    /// Number of agents with live chain state (for leak checks and metrics).
    #[napi(getter, catch_unwind)]
    pub fn agent_count(&self) -> u32 {
        u32::try_from(self.engine.borrow().agents()).unwrap_or(u32::MAX)
    }

    /// This engine's handle for {@link observeCall} (valid while the engine lives).
    #[napi(getter, catch_unwind)]
    pub fn call_handle(&self) -> u32 {
        self.call_handle
    }
}

/// The live engine behind a `callHandle`; a stale handle throws instead of
/// reaching another engine.
fn engine_for_handle(handle: u32) -> Result<Rc<RefCell<Engine>>> {
    CALL_ENGINES
        .with(|engines| {
            engines
                .borrow()
                .get(handle as usize)
                .and_then(Weak::upgrade)
        })
        .ok_or_else(|| invalid(format!("toolguard: no live engine has handle {handle}")))
}

/// The repeat half of `engine.observe({ agentId, name, argumentsJson })` with
/// positional arguments, for hot paths such as the DSH plugin: it skips the
/// class-method dispatch and the property reads, about half the cost of
/// `observe` for a small call. `handle` is the engine's `callHandle`. Advances
/// the agent's chain and returns the reminder due now, or `null`. No result
/// is scanned (use `observe` for that). Throws when the engine is gone.
#[napi(
    catch_unwind,
    ts_args_type = "handle: number, agentId: string, name: string, argumentsJson: string"
)]
pub fn observe_call(
    handle: u32,
    agent_id: Unknown,
    name: Unknown,
    arguments_json: Unknown,
) -> Result<Option<ReminderVerdict>> {
    guarded(|| {
        let engine = engine_for_handle(handle)?;
        // Short strings are read straight into stack buffers: one N-API call
        // each instead of a length query, an allocation and a second call.
        let (mut agent_buf, mut name_buf, mut arguments_buf) = (
            [0u8; SHORT_STRING],
            [0u8; SHORT_STRING],
            [0u8; SHORT_STRING],
        );
        let agent_id = read_js_str(&agent_id, "agentId", &mut agent_buf)?.0;
        let name = read_js_str(&name, "name", &mut name_buf)?.0;
        let arguments_json =
            match read_js_str(&arguments_json, "argumentsJson", &mut arguments_buf)? {
                (text, false) => text,
                (_, true) => Cow::Owned(arguments_text(&arguments_json)?),
            };
        let call = Call {
            agent_id: Some(&agent_id),
            name: &name,
            arguments_json: &arguments_json,
        };
        test_panic_point(&name, PanicPoint::Observe);
        let reminder = engine.borrow_mut().advance(&call);
        Ok(reminder.map(Into::into))
    })
}

impl GuardEngine {
    /// Everything of a call that needs the JavaScript thread: read the
    /// inputs and advance the chain. What is left (the scan) needs no JS
    /// value and may run anywhere.
    /// `sources` receives the JS values of the texts read from the result.
    fn prepare(
        &self,
        env: &Env,
        exec: &Unknown,
        result: Option<&Unknown>,
        sources: &mut Vec<napi::sys::napi_value>,
    ) -> Result<Pending> {
        let exec = expect_object(exec, "exec")?;
        let name = string_property(&exec, "name", "exec.name")?
            .ok_or_else(|| invalid("toolguard: exec.name must be a string (got undefined)"))?;
        let agent_id = string_property(&exec, "agentId", "exec.agentId")?;
        let arguments_json = arguments_json(env, &exec)?;
        let call = Call {
            agent_id: agent_id.as_deref(),
            name: &name,
            arguments_json: &arguments_json,
        };
        test_panic_point(&name, PanicPoint::Observe);
        // Borrowed only here, where no JavaScript runs (a getter or toJSON
        // calling back into the engine cannot meet a live borrow).
        let (reminder, scanner) = {
            let mut engine = self.engine.borrow_mut();
            (engine.advance(&call), engine.scanner())
        };
        let parts = match result {
            Some(result) if scanner.scans(&name) => {
                Some(read_result(env, result, scanner.scans_value(), sources)?)
            }
            _ => None,
        };
        Ok(Pending {
            scanner,
            name,
            reminder,
            parts,
        })
    }
}

/// A call whose chain has advanced and whose scan is still to run.
struct Pending {
    scanner: Arc<Scanner>,
    name: String,
    reminder: Option<Reminder>,
    /// `None`: the tool is not scanned (or no result was given).
    parts: Option<ResultParts>,
}

impl Pending {
    fn finish(self) -> Option<Verdict> {
        let failure = self.parts.as_ref().and_then(|parts| {
            test_panic_point(&self.name, PanicPoint::Scan);
            let output = Output {
                is_error: parts.is_error,
                texts: parts.texts.iter().map(String::as_str).collect(),
                value_json: parts.value_json.as_deref(),
            };
            self.scanner.scan(&self.name, &output)
        });
        let reminder = self.reminder;
        (reminder.is_some() || failure.is_some()).then_some(Verdict { reminder, failure })
    }
}

/// The off-thread half of `observeAsync`: runs the scan on the libuv pool.
pub struct ScanTask(Option<Pending>);

impl Task for ScanTask {
    type Output = Option<Verdict>;
    type JsValue = Option<GuardVerdict>;

    fn compute(&mut self) -> Result<Self::Output> {
        // napi-rs does not catch panics on pool threads; one unwinding out of
        // the C callback would abort Node. Turn it into a rejection instead.
        let pending = self.0.take();
        guarded(|| Ok(pending.and_then(Pending::finish)))
    }

    fn resolve(&mut self, _env: Env, output: Self::Output) -> Result<Self::JsValue> {
        Ok(output.map(Into::into))
    }
}

/// Run `f`, turning a panic into a JavaScript `Error`: a guard bug must
/// surface as an exception the caller can fail open on, never as a crash.
fn guarded<T>(f: impl FnOnce() -> Result<T>) -> Result<T> {
    catch_unwind(AssertUnwindSafe(f)).unwrap_or_else(|payload| {
        let reason = payload
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| payload.downcast_ref::<&str>().copied())
            .unwrap_or("unknown panic");
        Err(Error::new(
            Status::GenericFailure,
            format!("toolguard: internal error (panic): {reason}"),
        ))
    })
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum PanicPoint {
    /// While the call is read and the chain advanced (JavaScript thread).
    Observe,
    /// In the scan of a result (the worker thread under `observeAsync`).
    Scan,
}

/// Test-only hook proving that no panic crosses N-API. When the environment
/// variable `TOOLGUARD_TEST_PANIC` is `observe:<tool>` or `scan:<tool>` at
/// the first call, every later call of exactly that tool name panics at that
/// point. Unset (production), this is one cached comparison per call; it
/// cannot fire without that variable naming the tool.
fn test_panic_point(name: &str, point: PanicPoint) {
    static ARMED: OnceLock<Option<(PanicPoint, String)>> = OnceLock::new();
    let armed = ARMED.get_or_init(|| {
        let spec = std::env::var("TOOLGUARD_TEST_PANIC").ok()?;
        let (at, tool) = spec.split_once(':')?;
        let at = match at {
            "observe" => PanicPoint::Observe,
            "scan" => PanicPoint::Scan,
            _ => return None,
        };
        Some((at, tool.to_owned()))
    });
    if let Some((at, tool)) = armed {
        if *at == point && tool == name {
            panic!("TOOLGUARD_TEST_PANIC forced a panic for tool {name}");
        }
    }
}

/// The canonical form of a call's arguments, exactly as the official plugin
/// computes it from the raw argument text (`JSON.stringify(sortJsonValue(parseArguments(text)))`).
///
/// Read as UTF-16: a JavaScript string may hold lone surrogates, which a
/// UTF-8 conversion would turn into U+FFFD (and so into another call).
#[napi(catch_unwind, ts_args_type = "argumentsJson: string")]
pub fn canonicalize(arguments_json: Utf16String) -> String {
    let mut out = String::with_capacity(arguments_json.len());
    crate::canonical::canonicalize_arguments_utf16(&arguments_json, &mut out);
    out
}

/// An `agentId` argument: a string, or an error naming it (napi's own
/// conversion message would not).
fn agent_id_argument(value: &Unknown) -> Result<String> {
    match value.get_type()? {
        ValueType::String => unsafe { value.cast::<String>() },
        _ => Err(invalid(format!(
            "toolguard: agentId must be a string (got {})",
            type_name(value)?
        ))),
    }
}

fn invalid(reason: impl Into<String>) -> Error {
    Error::new(Status::InvalidArg, reason.into())
}

fn type_name(value: &Unknown) -> Result<&'static str> {
    Ok(match value.get_type()? {
        ValueType::Undefined => "undefined",
        ValueType::Null => "null",
        ValueType::Boolean => "boolean",
        ValueType::Number => "number",
        ValueType::String => "string",
        ValueType::Symbol => "symbol",
        ValueType::Object if value.is_array()? => "array",
        ValueType::Object => "object",
        ValueType::Function => "function",
        ValueType::External => "external",
        ValueType::BigInt => "bigint",
        _ => "unknown",
    })
}

fn expect_object<'a>(value: &Unknown<'a>, at: &str) -> Result<Object<'a>> {
    if value.get_type()? != ValueType::Object || value.is_array()? {
        return Err(invalid(format!(
            "toolguard: {at} must be an object (got {})",
            type_name(value)?
        )));
    }
    unsafe { value.cast::<Object>() }
}

/// `undefined` → `None`; a string → `Some`; anything else is an error naming `at`.
fn string_property(object: &Object, key: &str, at: &str) -> Result<Option<String>> {
    let value: Unknown = object.get_named_property_unchecked(key)?;
    match value.get_type()? {
        ValueType::Undefined => Ok(None),
        ValueType::String => Ok(Some(read_js_string(&value)?.0)),
        _ => Err(invalid(format!(
            "toolguard: {at} must be a string (got {})",
            type_name(&value)?
        ))),
    }
}

/// `string_property` that also gives the string's JS value and whether it
/// may have had lone surrogates (see `read_js_string`).
fn text_property(
    object: &Object,
    key: &str,
    at: &str,
) -> Result<Option<(String, napi::sys::napi_value, bool)>> {
    let value: Unknown = object.get_named_property_unchecked(key)?;
    match value.get_type()? {
        ValueType::Undefined => Ok(None),
        ValueType::String => {
            let (text, lossy) = read_js_string(&value)?;
            Ok(Some((text, value.value().value, lossy)))
        }
        _ => Err(invalid(format!(
            "toolguard: {at} must be a string (got {})",
            type_name(&value)?
        ))),
    }
}

/// An argument text (a JS string value) as UTF-8 with exactly its canonical
/// form. Read as UTF-8 first (cheapest), but a conversion turns every raw lone
/// surrogate (data inside a JSON string) into U+FFFD, which would merge
/// distinct calls; so a text showing U+FFFD is read again as UTF-16 and goes
/// through `arguments_text_from_utf16`, which keeps them exact.
fn arguments_text(value: &Unknown) -> Result<String> {
    let (text, lossy) = read_js_string(value)?;
    if !lossy {
        return Ok(text);
    }
    let units = unsafe { value.cast::<Utf16String>() }?;
    Ok(crate::canonical::arguments_text_from_utf16(&units))
}

fn arguments_json(env: &Env, exec: &Object) -> Result<String> {
    let value: Unknown = exec.get_named_property_unchecked("argumentsJson")?;
    let text = match value.get_type()? {
        ValueType::Undefined => None,
        ValueType::String => Some(arguments_text(&value)?),
        _ => {
            return Err(invalid(format!(
                "toolguard: exec.argumentsJson must be a string (got {})",
                type_name(&value)?
            )))
        }
    };
    let parsed: Unknown = exec.get_named_property_unchecked("arguments")?;
    let has_parsed = parsed.get_type()? != ValueType::Undefined;
    match (text, has_parsed) {
        (Some(text), false) => Ok(text),
        (None, true) => json_stringify(env, parsed, "exec.arguments"),
        (Some(_), true) => Err(invalid(
            "toolguard: give exec.arguments or exec.argumentsJson, not both",
        )),
        (None, false) => Err(invalid(
            "toolguard: exec.arguments or exec.argumentsJson is required",
        )),
    }
}

/// JavaScript's own `JSON.stringify`: the canonical form is defined by it.
fn json_stringify(env: &Env, value: Unknown, at: &str) -> Result<String> {
    let json: Object = env.get_global()?.get_named_property_unchecked("JSON")?;
    let stringify: Function<Unknown, Unknown> = json.get_named_property_unchecked("stringify")?;
    // `call` clears the pending exception (a cycle, a BigInt, a throwing
    // toJSON), so the error below replaces it instead of racing it.
    let text = stringify.call(value).map_err(|e| {
        invalid(format!(
            "toolguard: {at} is not JSON-serializable: {}",
            e.reason
        ))
    })?;
    match text.get_type()? {
        ValueType::String => unsafe { text.cast::<String>() },
        _ => Err(invalid(format!(
            "toolguard: {at} is not JSON-serializable (JSON.stringify returned undefined)"
        ))),
    }
}

struct ResultParts {
    is_error: bool,
    texts: Vec<String>,
    /// A text had lone surrogates (U+FFFD in `texts`).
    lossy: bool,
    value_json: Option<String>,
}

fn read_result(
    env: &Env,
    result: &Unknown,
    scan_value: bool,
    sources: &mut Vec<napi::sys::napi_value>,
) -> Result<ResultParts> {
    if result.get_type()? == ValueType::Undefined {
        return Ok(ResultParts {
            is_error: false,
            texts: Vec::new(),
            lossy: false,
            value_json: None,
        });
    }
    let result = expect_object(result, "result")?;
    let flag: Unknown = result.get_named_property_unchecked("isError")?;
    let is_error = match flag.get_type()? {
        ValueType::Undefined => false,
        ValueType::Boolean => unsafe { flag.cast::<bool>() }?,
        _ => {
            return Err(invalid(format!(
                "toolguard: result.isError must be a boolean (got {})",
                type_name(&flag)?
            )))
        }
    };
    let mut texts = Vec::new();
    let mut lossy = false;
    if is_error {
        // Error results are never scanned: the model already sees the failure.
        return Ok(ResultParts {
            is_error,
            texts,
            lossy: false,
            value_json: None,
        });
    }
    if let Some((text, source, replaced)) = text_property(&result, "text", "result.text")? {
        texts.push(text);
        sources.push(source);
        lossy |= replaced;
    }
    let content: Unknown = result.get_named_property_unchecked("content")?;
    match content.get_type()? {
        ValueType::Undefined => {}
        ValueType::Object if content.is_array()? => {
            let blocks = unsafe { content.cast::<Object>() }?;
            for i in 0..blocks.get_array_length_unchecked()? {
                let block: Unknown = blocks.get_element(i)?;
                if block.get_type()? != ValueType::Object {
                    continue;
                }
                let block = unsafe { block.cast::<Object>() }?;
                let kind: Unknown = block.get_named_property_unchecked("type")?;
                if kind.get_type()? != ValueType::String
                    || unsafe { kind.cast::<String>() }? != "text"
                {
                    continue;
                }
                if let Some((text, source, replaced)) =
                    text_property(&block, "text", &format!("result.content[{i}].text"))?
                {
                    texts.push(text);
                    sources.push(source);
                    lossy |= replaced;
                }
            }
        }
        _ => {
            return Err(invalid(format!(
                "toolguard: result.content must be an array (got {})",
                type_name(&content)?
            )))
        }
    }
    let value_json = if scan_value {
        let value: Unknown = result.get_named_property_unchecked("value")?;
        match value.get_type()? {
            ValueType::Undefined => None,
            _ => Some(json_stringify(env, value, "result.value")?),
        }
    } else {
        None
    };
    Ok(ResultParts {
        is_error,
        texts,
        lossy,
        value_json,
    })
}

/// Walk a JavaScript config value into the plain tree `config.rs` validates.
fn to_config_value(value: &Unknown, depth: usize) -> Result<Value> {
    if depth > CONFIG_DEPTH_LIMIT {
        return Err(invalid("toolguard: config is nested too deeply"));
    }
    Ok(match value.get_type()? {
        ValueType::Undefined => Value::Undefined,
        ValueType::Null => Value::Null,
        ValueType::Boolean => Value::Bool(unsafe { value.cast::<bool>() }?),
        ValueType::Number => Value::Number(unsafe { value.cast::<f64>() }?),
        ValueType::String => Value::String(unsafe { value.cast::<String>() }?),
        ValueType::Object if value.is_array()? => {
            let array = unsafe { value.cast::<Object>() }?;
            let len = array.get_array_length_unchecked()?;
            let mut items = Vec::with_capacity(len as usize);
            for i in 0..len {
                items.push(to_config_value(
                    &array.get_element::<Unknown>(i)?,
                    depth + 1,
                )?);
            }
            Value::Array(items)
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
                entries.push((key, to_config_value(&item, depth + 1)?));
            }
            Value::Object(entries)
        }
        _ => Value::Other(type_name(value)?),
    })
}

/// From this length (UTF-16 units) on, a string crosses as UTF-16 and is
/// transcoded here: `napi_get_value_string_utf8` measures, then writes (two
/// V8 passes, ~0.85 GB/s on build-log text), while the UTF-16 copy plus the
/// transcoder below runs at ~2.6-3.4 GB/s. Short strings keep the UTF-8 path,
/// which costs less per call.
const UTF16_CROSSING_MIN: usize = 1024;

/// Strings whose UTF-8 form is shorter than this are read in one N-API call
/// into a stack buffer (tool names, agent ids, small argument texts).
const SHORT_STRING: usize = 512;

/// A JS string value as UTF-8, lone surrogates as U+FFFD, and whether the
/// text may have had lone surrogates (it holds U+FFFD). A value that is not
/// a string throws, naming `at`.
fn read_js_str<'b>(
    value: &Unknown,
    at: &str,
    buf: &'b mut [u8; SHORT_STRING],
) -> Result<(Cow<'b, str>, bool)> {
    let raw = value.value();
    let mut written = 0usize;
    // SAFETY: `buf` holds SHORT_STRING bytes; N-API writes at most that many
    // (whole characters, then a NUL).
    let status = unsafe {
        napi::sys::napi_get_value_string_utf8(
            raw.env,
            raw.value,
            buf.as_mut_ptr().cast(),
            SHORT_STRING,
            &mut written,
        )
    };
    if status == napi::sys::Status::napi_string_expected {
        return Err(invalid(format!(
            "toolguard: {at} must be a string (got {})",
            type_name(value)?
        )));
    }
    // A cut string fills the buffer to within one character (<= 4 bytes) of its end.
    if status == napi::sys::Status::napi_ok && written + 4 < SHORT_STRING {
        if let Ok(text) = std::str::from_utf8(&buf[..written]) {
            return Ok((Cow::Borrowed(text), text.contains('\u{FFFD}')));
        }
    }
    let (text, lossy) = read_js_string(value)?;
    Ok((Cow::Owned(text), lossy))
}

/// [`read_js_str`] for a value known to be a string, without the short path.
fn read_js_string(value: &Unknown) -> Result<(String, bool)> {
    let raw = value.value();
    let mut len = 0usize;
    // SAFETY: a null buffer asks only for the length (O(1) for V8).
    let status = unsafe {
        napi::sys::napi_get_value_string_utf16(
            raw.env,
            raw.value,
            std::ptr::null_mut(),
            0,
            &mut len,
        )
    };
    if status != napi::sys::Status::napi_ok || len < UTF16_CROSSING_MIN {
        let text = unsafe { value.cast::<String>() }?;
        let lossy = text.contains('\u{FFFD}');
        return Ok((text, lossy));
    }
    let mut units: Vec<u16> = Vec::with_capacity(len + 1);
    let mut written = 0usize;
    // SAFETY: the buffer holds len + 1 units (N-API writes a terminating NUL).
    let status = unsafe {
        napi::sys::napi_get_value_string_utf16(
            raw.env,
            raw.value,
            units.as_mut_ptr(),
            len + 1,
            &mut written,
        )
    };
    if status != napi::sys::Status::napi_ok {
        return Err(Error::new(
            Status::GenericFailure,
            "toolguard: could not read a string",
        ));
    }
    // SAFETY: N-API initialised `written` (<= len) units.
    unsafe { units.set_len(written.min(len)) };
    Ok(utf16_to_string(&units))
}

/// UTF-16 to UTF-8 with lone surrogates as U+FFFD (what the UTF-8 crossing
/// gives) and whether there were any; runs of 16 ASCII units take a path the
/// compiler vectorizes.
fn utf16_to_string(units: &[u16]) -> (String, bool) {
    let mut out = String::with_capacity(units.len() + units.len() / 8);
    let mut lossy = false;
    let mut i = 0;
    while i < units.len() {
        while let Some(chunk) = units.get(i..i + 16) {
            if chunk.iter().fold(0u16, |a, &u| a | u) >= 0x80 {
                break;
            }
            // SAFETY: all 16 units are ASCII, so the bytes are valid UTF-8.
            unsafe { out.as_mut_vec() }.extend(chunk.iter().map(|&u| u as u8));
            i += 16;
        }
        let end = (i + 16).min(units.len());
        while i < end {
            let unit = units[i];
            if unit < 0x80 {
                out.push(char::from(unit as u8));
                i += 1;
            } else {
                match char::decode_utf16(units[i..].iter().copied()).next() {
                    Some(Ok(c)) => {
                        out.push(c);
                        i += c.len_utf16();
                    }
                    _ => {
                        out.push('\u{FFFD}');
                        lossy = true;
                        i += 1;
                    }
                }
            }
        }
    }
    (out, lossy)
}

/// {@link observeCall} with the parsed arguments instead of their JSON text, for
/// a flat object holding long strings (a file write, an edit): the canonical
/// text is written here from the values, which skips `JSON.stringify` in
/// JavaScript (most of the cost of a 64 KB call). It is exactly the canonical
/// form of `JSON.stringify(argumentsValue)`. Returns `false`, having done
/// nothing, for anything else (nested values, non-ASCII or array-index keys,
/// `__proto__`/`toJSON` keys, a non-plain object, BigInt): then call
/// `observeCall` with the JSON text.
#[napi(
    catch_unwind,
    ts_args_type = "handle: number, agentId: string, name: string, argumentsValue: unknown",
    ts_return_type = "ReminderVerdict | null | false"
)]
pub fn observe_call_value(
    env: Env,
    handle: u32,
    agent_id: Unknown,
    name: Unknown,
    arguments_value: Unknown,
) -> Result<Either<bool, Option<ReminderVerdict>>> {
    guarded(|| {
        let engine = engine_for_handle(handle)?;
        let (mut agent_buf, mut name_buf) = ([0u8; SHORT_STRING], [0u8; SHORT_STRING]);
        let agent_id = read_js_str(&agent_id, "agentId", &mut agent_buf)?.0;
        let name = read_js_str(&name, "name", &mut name_buf)?.0;
        let mut canonical = String::new();
        if !flat_object_canonical(&env, &arguments_value, &mut canonical)? {
            return Ok(Either::A(false));
        }
        let call = Call {
            agent_id: Some(&agent_id),
            name: &name,
            arguments_json: &canonical,
        };
        test_panic_point(&name, PanicPoint::Observe);
        let reminder = engine.borrow_mut().advance(&call);
        Ok(Either::B(reminder.map(Into::into)))
    })
}

/// Write the canonical form of `JSON.stringify(value)` for a plain object
/// whose values are all strings, finite or non-finite numbers, booleans,
/// `null` or skipped by `JSON.stringify` (`undefined`, functions, symbols);
/// `false` (and `out` unspecified) for anything else. Keys must be ASCII and
/// not array indices, so byte order is the canonical (UTF-16) order.
fn flat_object_canonical(env: &Env, value: &Unknown, out: &mut String) -> Result<bool> {
    use napi::sys;
    if value.get_type()? != ValueType::Object || value.is_array()? {
        return Ok(false);
    }
    let object = unsafe { value.cast::<Object>() }?;
    // Only a plain object: an inherited `toJSON` (Date) or a class would
    // change what `JSON.stringify` prints.
    let object_prototype: Unknown = env
        .get_global()?
        .get_named_property_unchecked::<Object>("Object")?
        .get_named_property_unchecked("prototype")?;
    let prototype = object.get_prototype()?;
    let mut same = false;
    check_status!(unsafe {
        napi::sys::napi_strict_equals(
            prototype.value().env,
            prototype.value().value,
            object_prototype.value().value,
            &mut same,
        )
    })?;
    if !same {
        return Ok(false);
    }
    let raw = value.value();
    let mut names = std::ptr::null_mut();
    // Own enumerable string keys, as `JSON.stringify` lists them.
    check_status!(unsafe {
        sys::napi_get_all_property_names(
            raw.env,
            raw.value,
            sys::KeyCollectionMode::own_only,
            sys::KeyFilter::enumerable | sys::KeyFilter::skip_symbols,
            sys::KeyConversion::numbers_to_strings,
            &mut names,
        )
    })?;
    let names = unsafe { Object::from_napi_value(raw.env, names) }?;
    let mut members: Vec<(String, Unknown)> = Vec::new();
    let mut key_buf = [0u8; SHORT_STRING];
    for i in 0..names.get_array_length_unchecked()? {
        let key: Unknown = names.get_element(i)?;
        let (text, _) = read_js_str(&key, "key", &mut key_buf)?;
        let index_like = !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit());
        if !text.is_ascii() || index_like || text == "__proto__" || text == "toJSON" {
            return Ok(false);
        }
        let item: Unknown = object.get_property(key)?;
        match item.get_type()? {
            ValueType::Undefined | ValueType::Function | ValueType::Symbol => continue,
            ValueType::Null | ValueType::Boolean | ValueType::Number | ValueType::String => {}
            _ => return Ok(false),
        }
        members.push((text.into_owned(), item));
    }
    members.sort_unstable_by(|a, b| a.0.cmp(&b.0));
    out.push('{');
    let mut number = ryu_js::Buffer::new();
    for (i, (key, item)) in members.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        crate::canonical::push_js_string_literal(key, out);
        out.push(':');
        match item.get_type()? {
            ValueType::Null => out.push_str("null"),
            ValueType::Boolean => out.push_str(if unsafe { item.cast::<bool>() }? {
                "true"
            } else {
                "false"
            }),
            ValueType::Number => {
                let n = unsafe { item.cast::<f64>() }?;
                // `Number::toString` (-0 prints 0); NaN and ±Infinity print null.
                out.push_str(if n.is_finite() {
                    number.format_finite(n)
                } else {
                    "null"
                });
            }
            _ => {
                let (text, lossy) = read_js_string(item)?;
                if lossy {
                    // Lone surrogates (or a real U+FFFD): escape from the exact units.
                    let units = unsafe { item.cast::<Utf16String>() }?;
                    crate::canonical::push_js_string_literal_utf16(&units, out);
                } else {
                    crate::canonical::push_js_string_literal(&text, out);
                }
            }
        }
    }
    out.push('}');
    Ok(true)
}

/// From this many bytes of original output on, an error verdict's text is
/// built in V8 (see `GuardEngine::observe`).
const VERDICT_CONCAT_MIN: usize = 4096;

/// A verdict already built as a JS value.
pub struct VerdictValue(napi::sys::napi_value);

impl ToNapiValue for VerdictValue {
    unsafe fn to_napi_value(_env: napi::sys::napi_env, val: Self) -> Result<napi::sys::napi_value> {
        Ok(val.0)
    }
}

impl TypeName for VerdictValue {
    fn type_name() -> &'static str {
        "GuardVerdict"
    }
    fn value_type() -> ValueType {
        ValueType::Object
    }
}

/// `verdict.failure.text = verdict.failure.text.concat(t1, "\n", t2, …)` for
/// the result's texts, with `String.prototype.concat` (V8 makes cons
/// strings: no copy).
fn concat_failure_text(
    env: &Env,
    verdict: napi::sys::napi_value,
    texts: &[napi::sys::napi_value],
) -> Result<()> {
    let verdict = unsafe { Object::from_napi_value(env.raw(), verdict) }?;
    let mut failure: Object = verdict.get_named_property_unchecked("failure")?;
    let head: Unknown = failure.get_named_property_unchecked("text")?;
    let concat: Unknown = env
        .get_global()?
        .get_named_property_unchecked::<Object>("String")?
        .get_named_property_unchecked::<Object>("prototype")?
        .get_named_property_unchecked("concat")?;
    let newline = env.create_string("\n")?.raw();
    let mut args = Vec::with_capacity(texts.len() * 2);
    for (i, &text) in texts.iter().enumerate() {
        if i > 0 {
            args.push(newline);
        }
        args.push(text);
    }
    let mut text = std::ptr::null_mut();
    check_status!(unsafe {
        napi::sys::napi_call_function(
            env.raw(),
            head.value().value,
            concat.value().value,
            args.len(),
            args.as_ptr(),
            &mut text,
        )
    })?;
    let text = unsafe { Unknown::from_raw_unchecked(env.raw(), text) };
    failure.set_named_property("text", text)
}

thread_local! {
    /// JS functions that build a failure verdict and a rule hit, with their
    /// env. An object literal in a function compiled once has a fixed shape:
    /// one call instead of a property definition (and key internalization)
    /// per field, which made a 200-byte matching `observe` slower than the
    /// pure-TS engine.
    static SHAPES: RefCell<Option<(napi::sys::napi_env, napi::sys::napi_ref)>> =
        const { RefCell::new(None) };
}

const SHAPES_SOURCE: &str =
    "[(action, summary, text, rules) => ({ action, summary, text, rules }), \
(id, message, line, excerpt) => ({ id, message, line, excerpt })]";

/// The two builder functions of `SHAPES` for `env`.
fn shapes(env: &Env) -> Result<(napi::sys::napi_value, napi::sys::napi_value)> {
    use napi::sys;
    let raw = env.raw();
    let array = SHAPES.with(|shapes| -> Result<sys::napi_value> {
        let mut shapes = shapes.borrow_mut();
        let mut array = std::ptr::null_mut();
        match shapes.as_ref() {
            Some((cached, reference)) if *cached == raw => {
                check_status!(unsafe {
                    sys::napi_get_reference_value(raw, *reference, &mut array)
                })?;
            }
            _ => {
                let source = env.create_string(SHAPES_SOURCE)?.raw();
                check_status!(unsafe { sys::napi_run_script(raw, source, &mut array) })?;
                let mut reference = std::ptr::null_mut();
                check_status!(unsafe {
                    sys::napi_create_reference(raw, array, 1, &mut reference)
                })?;
                // Another env on this thread (rare) replaces the cached one.
                *shapes = Some((raw, reference));
            }
        }
        Ok(array)
    })?;
    let (mut failure, mut hit) = (std::ptr::null_mut(), std::ptr::null_mut());
    check_status!(unsafe { sys::napi_get_element(raw, array, 0, &mut failure) })?;
    check_status!(unsafe { sys::napi_get_element(raw, array, 1, &mut hit) })?;
    Ok((failure, hit))
}

/// Call `function` with `args` (this = undefined).
fn call_shape(
    env: &Env,
    function: napi::sys::napi_value,
    args: &[napi::sys::napi_value],
) -> Result<napi::sys::napi_value> {
    let raw = env.raw();
    let mut this = std::ptr::null_mut();
    check_status!(unsafe { napi::sys::napi_get_undefined(raw, &mut this) })?;
    let mut out = std::ptr::null_mut();
    check_status!(unsafe {
        napi::sys::napi_call_function(raw, this, function, args.len(), args.as_ptr(), &mut out)
    })?;
    Ok(out)
}

/// The verdict as a JS object: `{ reminder?, failure? }`, same shape as
/// `GuardVerdict`'s conversion.
fn verdict_value(env: &Env, verdict: GuardVerdict) -> Result<napi::sys::napi_value> {
    let raw = env.raw();
    let mut object = std::ptr::null_mut();
    check_status!(unsafe { napi::sys::napi_create_object(raw, &mut object) })?;
    let mut verdict_object = unsafe { Object::from_napi_value(raw, object) }?;
    if let Some(reminder) = verdict.reminder {
        verdict_object.set_named_property("reminder", reminder)?;
    }
    if let Some(failure) = verdict.failure {
        let (failure_shape, hit_shape) = shapes(env)?;
        let mut rules = std::ptr::null_mut();
        check_status!(unsafe {
            napi::sys::napi_create_array_with_length(raw, failure.rules.len(), &mut rules)
        })?;
        for (i, hit) in failure.rules.into_iter().enumerate() {
            let args = unsafe {
                [
                    String::to_napi_value(raw, hit.id)?,
                    String::to_napi_value(raw, hit.message)?,
                    u32::to_napi_value(raw, hit.line)?,
                    String::to_napi_value(raw, hit.excerpt)?,
                ]
            };
            let hit = call_shape(env, hit_shape, &args)?;
            check_status!(unsafe { napi::sys::napi_set_element(raw, rules, i as u32, hit) })?;
        }
        let args = unsafe {
            [
                String::to_napi_value(raw, failure.action)?,
                String::to_napi_value(raw, failure.summary)?,
                String::to_napi_value(raw, failure.text)?,
                rules,
            ]
        };
        let failure = call_shape(env, failure_shape, &args)?;
        let failure = unsafe { Unknown::from_raw_unchecked(raw, failure) };
        verdict_object.set_named_property("failure", failure)?;
    }
    Ok(object)
}
