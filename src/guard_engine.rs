//! The `GuardEngine` class: one engine per instance, its chains advanced on
//! the JavaScript thread and its scans run there (`observe`) or on the libuv
//! pool (`observeAsync`, through the shared `Arc<Scanner>`, which keeps calls
//! counted in call order whatever order their scans finish in).

use std::cell::RefCell;
use std::rc::Rc;
use std::sync::Arc;

use napi::bindgen_prelude::*;
use napi_derive::napi;
use toolguard_core::chain::Reminder;
use toolguard_core::config::{Config, ConfigValue};
use toolguard_core::engine::{Call, Engine, Output, Scanner, Verdict};

use crate::errors::{core_error, guarded, invalid, test_panic_point, PanicPoint};
use crate::fast_path::registry;
use crate::js_input::{
    agent_id_argument, arguments_json, expect_object, read_result, string_property, ResultParts,
};
use crate::options::to_config_value;
use crate::verdict::{
    concat_failure_text, verdict_value, GuardVerdict, VerdictValue, VERDICT_CONCAT_MIN,
};

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
    /// This engine's number in the `observeCall` registry.
    call_handle: u32,
}

impl Drop for GuardEngine {
    /// The engine is collected: its `callHandle` goes dead (and its registry
    /// entry is freed).
    fn drop(&mut self) {
        registry::unregister(self.call_handle);
    }
}

#[napi]
impl GuardEngine {
    /// Compile a config. Throws an `Error` naming the bad key or rule id.
    #[napi(constructor, catch_unwind, ts_args_type = "config?: GuardConfig")]
    pub fn new(config: Option<Unknown>) -> Result<Self> {
        let value = match config {
            Some(config) => to_config_value(&config, 0)?,
            None => ConfigValue::Undefined,
        };
        let config = Config::from_value(&value).map_err(core_error)?;
        let engine = Rc::new(RefCell::new(Engine::new(&config).map_err(core_error)?));
        let call_handle = registry::register(&engine);
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
            .map_err(core_error)
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
        let verdict = Verdict {
            reminder,
            failure,
            loop_alarm: None,
        };
        (!verdict.is_empty()).then_some(verdict)
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
