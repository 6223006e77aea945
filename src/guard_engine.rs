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
use toolguard_core::engine::{join_lines, Call, Engine, FailureAction, Output, Scanner, Verdict};
use toolguard_core::loops::{LoopAlarm, LoopOutcome};
use toolguard_core::shell::exact::{self, ExitStatuses};
use toolguard_core::shell::intent::ScanContext;
use toolguard_core::PathStep;

use crate::errors::{coded_error, config_error, core_error, guarded, test_panic_point, PanicPoint};
use crate::fast_path::registry;
use crate::js_input::{
    agent_id_argument, arguments_json, bool_property, exec_name, expect_object, read_result,
    string_property, with_short_string, ResultParts,
};
use crate::options::to_config_value;
use crate::verdict::{
    concat_failure_text, verdict_value, GuardVerdict, LoopDenyVerdict, VerdictValue,
    VERDICT_CONCAT_MIN,
};

// Every method takes `&self`: napi-rs holds the borrow of `this` until an
// `observeAsync` promise settles, so a `&mut self` method would fail with
// "cannot be borrowed mutably" while any scan is in flight. The engine sits
// in a `RefCell` instead, borrowed only while no JavaScript can run.
/// One agent's saved state (see `GuardEngine.chainState`): the repeat chain
/// (`digest`, `count`) and, with `loops` on, the loop window (`loops`).
/// States saved before loops existed (`{digest, count}`) restore unchanged.
#[napi(object)]
pub struct ChainState {
    pub digest: Option<String>,
    pub count: Option<f64>,
    /// The loop detectors' window of digests, as an opaque string.
    pub loops: Option<String>,
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
    pub fn new(env: Env, config: Option<Unknown>) -> Result<Self> {
        Self::compile(&env, config, Config::from_value)
    }

    /// An engine as toolguard's products (adapters, plugins, the MCP proxy)
    /// make one: the loop detectors on unless the config says `loops:
    /// false`, decided by the core (`Config::with_loops_by_default`) as for
    /// the hook and the audit.
    #[napi(factory, catch_unwind, ts_args_type = "config?: GuardConfig")]
    pub fn with_loops_by_default(env: Env, config: Option<Unknown>) -> Result<Self> {
        Self::compile(&env, config, Config::with_loops_by_default)
    }

    /// Whether the loop detectors run (`loops` on in the config).
    #[napi(getter, catch_unwind)]
    pub fn loops_on(&self) -> bool {
        self.engine.borrow().loops_on()
    }

    /// Whether `check` may refuse a call (`loops.deny` set): a host installs
    /// its pre-call refusal only then.
    #[napi(getter, catch_unwind)]
    pub fn denies_loops(&self) -> bool {
        self.engine.borrow().denies_loops()
    }

    /// Advance the agent's chain and scan the result; `null` when the guard has nothing to say.
    #[napi(
        catch_unwind,
        ts_args_type = "exec: ToolExecution, result?: ToolResult | string",
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
            let mut pending = self.prepare(&env, &exec, result.as_ref(), &mut sources)?;
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
            let loop_input = pending.loop_input.take();
            let parts = pending.parts.take();
            let mut verdict = pending.finish_with(parts.as_ref());
            if let Some(input) = loop_input {
                // Synchronous: the loop detectors also know whether a
                // silent-failure rule flagged this result.
                let flagged = verdict
                    .failure
                    .as_ref()
                    .is_some_and(|f| f.action == FailureAction::Error);
                verdict.loop_alarm =
                    self.observe_loop(&pending.name, parts.as_ref(), &input, flagged);
            }
            if verdict.is_empty() {
                return Ok(None);
            }
            let mut verdict = GuardVerdict::from(verdict);
            // An error verdict's text is its header plus the original output.
            // For a big output, build it in V8 as header.concat(original) (a
            // cons string, O(1)) instead of copying the output through Rust
            // and decoding it back: 10 MB, ~56 -> ~31 ms. Below a few KB the
            // extra N-API calls (~1 µs) cost more than the copy, unless the
            // output has lone surrogates, which only V8's copy keeps exactly.
            // Only when every text is a JS string as given (a shell result's
            // text the core put together is not).
            let concat = match verdict.failure.as_mut() {
                Some(failure)
                    if (original_len >= VERDICT_CONCAT_MIN || lossy)
                        && parts
                            .as_ref()
                            .is_some_and(|p| p.texts.len() == sources.len())
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
        ts_args_type = "exec: ToolExecution, result?: ToolResult | string",
        ts_return_type = "Promise<GuardVerdict | null>"
    )]
    pub fn observe_async(
        &self,
        env: Env,
        exec: Unknown,
        result: Option<Unknown>,
    ) -> Result<AsyncTask<ScanTask>> {
        guarded(|| {
            let mut pending = self.prepare(&env, &exec, result.as_ref(), &mut Vec::new())?;
            // The loop window advances now, in call order, like the chain; it
            // cannot wait for the scan, so a silent-failure verdict does not
            // count as a failure here (exit markers and isError do).
            if let Some(input) = pending.loop_input.take() {
                pending.loop_alarm =
                    self.observe_loop(&pending.name, pending.parts.as_ref(), &input, false);
            }
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

    /// The user said `text` to that agent (the task, a later message): an
    /// error it quotes, reproduced by a script, is the reported bug
    /// (`context`); an unreported one from the agent's own script is that
    /// script failing (`error`). Call it beside `reset` with the message.
    #[napi(catch_unwind, ts_args_type = "agentId: string, text: string")]
    pub fn note_user_text(&self, agent_id: Unknown, text: String) -> Result<()> {
        self.engine
            .borrow_mut()
            .note_user_text(&agent_id_argument(&agent_id)?, &text);
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

    /// The agent's saved state: `{ digest, count }` of the repeat chain
    /// (`digest`: 32 lowercase hex digits of the 128-bit key digest) and,
    /// with `loops` on, `loops` (the loop window); `null` when it has none.
    /// With `restoreChain` it carries an agent across processes (the per-call hook CLI).
    #[napi(catch_unwind)]
    pub fn chain_state(&self, agent_id: String) -> Option<ChainState> {
        let engine = self.engine.borrow();
        let chain = engine.chain_state(&agent_id);
        let loops = engine.loop_state(&agent_id);
        if chain.is_none() && loops.is_none() {
            return None;
        }
        Some(ChainState {
            digest: chain.map(|(digest, _)| format!("{digest:032x}")),
            count: chain.map(|(_, count)| count as f64),
            loops,
        })
    }

    /// Put back a state saved with `chainState`; a malformed digest, a count
    /// below 1 or a malformed loop state throws, naming the field. A loop
    /// state given to an engine with `loops` off is ignored.
    #[napi(catch_unwind)]
    pub fn restore_chain(&self, env: Env, agent_id: String, state: ChainState) -> Result<()> {
        let key = |k: &str| [PathStep::Key(k.to_owned())];
        if state.digest.is_some() || state.count.is_some() {
            let digest = state
                .digest
                .as_ref()
                .filter(|d| d.len() == 32)
                .and_then(|d| u128::from_str_radix(d, 16).ok())
                .ok_or_else(|| {
                    coded_error(
                        &env,
                        "TOOLGUARD_BAD_STATE",
                        &key("digest"),
                        "toolguard: state.digest must be 32 hexadecimal digits".into(),
                    )
                })?;
            let count = state.count.unwrap_or(f64::NAN);
            if !(count.is_finite() && count.fract() == 0.0 && count >= 1.0) {
                return Err(coded_error(
                    &env,
                    "TOOLGUARD_BAD_STATE",
                    &key("count"),
                    "toolguard: state.count must be an integer >= 1".into(),
                ));
            }
            self.engine
                .borrow_mut()
                .restore_chain(&agent_id, digest, count as u64)
                .map_err(|e| core_error(&env, e, &key("count")))?;
        }
        if let Some(loops) = state.loops.as_deref() {
            self.engine
                .borrow_mut()
                .restore_loops(&agent_id, loops)
                .map_err(|e| core_error(&env, e, &key("loops")))?;
        }
        Ok(())
    }

    /// Before a call runs: `null` to let it run, or a refusal when it would
    /// continue a loop already reminded `loops.deny` times (opt-in; never
    /// with `loops.deny` unset). Reads nothing but `exec`; a refusal resets
    /// no counter.
    #[napi(
        catch_unwind,
        ts_args_type = "exec: ToolExecution",
        ts_return_type = "LoopDenyVerdict | null"
    )]
    pub fn check(&self, env: Env, exec: Unknown) -> Result<Option<LoopDenyVerdict>> {
        guarded(|| {
            let exec = expect_object(&exec, "exec")?;
            let name = exec_name(&exec)?;
            let agent_id = string_property(&exec, "agentId", "exec.agentId")?;
            let arguments_json = arguments_json(&env, &exec)?;
            let call = Call {
                agent_id: agent_id.as_deref(),
                name: &name,
                arguments_json: &arguments_json,
            };
            Ok(self.engine.borrow_mut().check(&call).map(Into::into))
        })
    }

    /// Exact mode (docs/exact-mode.md), before a shell call runs: its
    /// arguments with the command rewritten to record each pipeline stage's
    /// exit status to a side file, and that file's path (give it back as
    /// `exec.exitStatusFile` to `observe` with the call's original
    /// arguments). `null`: run the call as written (`exactMode` off, not a
    /// shell tool, no `command`, or a command not rewritten).
    #[napi(
        catch_unwind,
        ts_args_type = "exec: ToolExecution",
        ts_return_type = "ExactCall | null"
    )]
    pub fn exact_call(&self, env: Env, exec: Unknown) -> Result<Option<ExactCall>> {
        guarded(|| {
            let exec = expect_object(&exec, "exec")?;
            let name = exec_name(&exec)?;
            let arguments_json = arguments_json(&env, &exec)?;
            let call = Call {
                agent_id: None,
                name: &name,
                arguments_json: &arguments_json,
            };
            // Off: no private directory made, nothing rewritten.
            if !self.engine.borrow().exact_mode() {
                return Ok(None);
            }
            let Some(file) = side_file() else {
                return Ok(None);
            };
            let rewritten = self.engine.borrow().exact_arguments(&call, &file);
            Ok(rewritten.map(|arguments_json| ExactCall {
                arguments_json,
                exit_status_file: file,
            }))
        })
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
        let name = exec_name(&exec)?;
        let agent_id = string_property(&exec, "agentId", "exec.agentId")?;
        let arguments_json = arguments_json(env, &exec)?;
        let concurrent = bool_property(&exec, "concurrent", "exec.concurrent")?.unwrap_or(false);
        // Exact mode: read (and delete) the side file first, so it goes
        // whatever happens to the call below.
        let exit_statuses = string_property(&exec, "exitStatusFile", "exec.exitStatusFile")?
            .and_then(|file| exact::take_side_file(std::path::Path::new(&file)));
        let call = Call {
            agent_id: agent_id.as_deref(),
            name: &name,
            arguments_json: &arguments_json,
        };
        test_panic_point(&name, PanicPoint::Observe);
        // Borrowed only here, where no JavaScript runs (a getter or toJSON
        // calling back into the engine cannot meet a live borrow).
        let (reminder, scanner, loops) = {
            let mut engine = self.engine.borrow_mut();
            (engine.advance(&call), engine.scanner(), engine.loops_on())
        };
        let loops = loops && agent_id.is_some();
        let scanned = scanner.scans(&name);
        // The command's model, for the scan wherever it runs.
        let context = match result {
            Some(_) if scanned => self.engine.borrow().scan_context(&call),
            _ => None,
        };
        // A plain-string result read for the loop detectors alone goes to
        // them now, from a reused buffer: nothing else needs its text (no
        // scan, so nothing can flag it either).
        if loops && !scanned {
            if let Some(result) = result {
                let alarm = with_short_string(result, |text| {
                    self.engine.borrow_mut().observe_outcome(
                        &call,
                        &LoopOutcome {
                            text,
                            is_error: false,
                            flagged: false,
                        },
                        concurrent,
                    )
                })?;
                if let Some(loop_alarm) = alarm {
                    return Ok(Pending {
                        scanner,
                        name,
                        reminder,
                        scanned,
                        parts: None,
                        loop_input: None,
                        loop_alarm,
                        context: None,
                        exit_statuses: None,
                    });
                }
            }
        }
        let parts = match result {
            // With loops on every tool's result is read (digested in Rust).
            Some(result) if scanned || loops => Some(read_result(
                env,
                result,
                scanned && scanner.scans_value(),
                loops,
                scanned,
                sources,
            )?),
            _ => None,
        };
        // Moved, not copied: nothing else needs them past the chain.
        let loop_input = match agent_id {
            Some(agent_id) if loops => Some(LoopInput {
                agent_id,
                arguments_json,
                concurrent,
            }),
            _ => None,
        };
        Ok(Pending {
            scanner,
            name,
            reminder,
            scanned,
            parts,
            loop_input,
            loop_alarm: None,
            context,
            exit_statuses,
        })
    }
}

/// What the loop detectors need of a call besides its result.
struct LoopInput {
    agent_id: String,
    arguments_json: String,
    /// `exec.concurrent`: made before the previous call's result came back.
    concurrent: bool,
}

impl GuardEngine {
    /// Decode a JavaScript config with `decode` and build the engine; a bad
    /// config throws naming the key or the rule id.
    fn compile(
        env: &Env,
        config: Option<Unknown>,
        decode: fn(&ConfigValue) -> std::result::Result<Config, toolguard_core::Error>,
    ) -> Result<Self> {
        let value = match config {
            Some(config) => to_config_value(env, &config, 0)?,
            None => ConfigValue::Undefined,
        };
        let config = decode(&value).map_err(|e| config_error(env, e, &value))?;
        let engine = Engine::new(&config).map_err(|e| config_error(env, e, &value))?;
        let engine = Rc::new(RefCell::new(engine));
        let call_handle = registry::register(&engine);
        Ok(Self {
            engine,
            call_handle,
        })
    }

    /// Feed one prepared call to the loop detectors (`flagged`: a
    /// silent-failure rule with action `error` matched its result).
    fn observe_loop(
        &self,
        name: &str,
        parts: Option<&ResultParts>,
        input: &LoopInput,
        flagged: bool,
    ) -> Option<LoopAlarm> {
        let (text, is_error) = match parts {
            // A result with no text block stands for its value's JSON.
            Some(parts) => match (parts.texts.is_empty(), parts.value_json.as_deref()) {
                (true, Some(json)) => (json.into(), parts.is_error),
                _ => (join_lines(&parts.texts), parts.is_error),
            },
            None => ("".into(), false),
        };
        let call = Call {
            agent_id: Some(&input.agent_id),
            name,
            arguments_json: &input.arguments_json,
        };
        self.engine.borrow_mut().observe_outcome(
            &call,
            &LoopOutcome {
                text: &text,
                is_error,
                flagged,
            },
            input.concurrent,
        )
    }
}

/// A call whose chain has advanced and whose scan is still to run.
struct Pending {
    scanner: Arc<Scanner>,
    name: String,
    reminder: Option<Reminder>,
    /// The tool's results are scanned for silent failures.
    scanned: bool,
    /// `None`: no result read (not scanned, loops off, or no result given).
    parts: Option<ResultParts>,
    /// The loop detectors still have to see this call.
    loop_input: Option<LoopInput>,
    /// Their alarm, when they already ran (`observeAsync`).
    loop_alarm: Option<LoopAlarm>,
    /// The call's command, modelled (`None`: no command; scanned as without).
    context: Option<ScanContext>,
    /// Exact mode: the statuses the rewritten command recorded.
    exit_statuses: Option<ExitStatuses>,
}

impl Pending {
    fn finish(mut self) -> Option<Verdict> {
        let parts = self.parts.take();
        let verdict = self.finish_with(parts.as_ref());
        (!verdict.is_empty()).then_some(verdict)
    }

    /// The scan's verdict; the reminder and a loop alarm already found are
    /// moved into it.
    fn finish_with(&mut self, parts: Option<&ResultParts>) -> Verdict {
        let failure = parts.filter(|_| self.scanned).and_then(|parts| {
            test_panic_point(&self.name, PanicPoint::Scan);
            let output = Output {
                is_error: parts.is_error,
                texts: parts.texts.iter().map(String::as_str).collect(),
                value_json: parts.value_json.as_deref(),
                exit_statuses: self.exit_statuses.as_ref(),
                status_unrecorded: false,
            };
            self.scanner
                .scan_in(&self.name, &output, self.context.as_ref())
        });
        Verdict {
            reminder: self.reminder.take(),
            failure,
            loop_alarm: self.loop_alarm.take(),
        }
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

/// What {@link GuardEngine.exactCall} returns.
#[napi(object)]
pub struct ExactCall {
    /// The arguments to run the tool with.
    pub arguments_json: String,
    /// Where the rewritten command records its statuses.
    pub exit_status_file: String,
}

/// A fresh side-file path in this process's private directory (created
/// once, mode 0700, so no other user can plant a file or link there);
/// `None` when it cannot be made (then no rewrite).
fn side_file() -> Option<String> {
    use std::sync::atomic::{AtomicU64, Ordering};
    use std::sync::OnceLock;
    static DIR: OnceLock<Option<std::path::PathBuf>> = OnceLock::new();
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let dir = DIR.get_or_init(|| {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .ok()?
            .subsec_nanos();
        let dir =
            std::env::temp_dir().join(format!("toolguard-exact-{}-{nanos}", std::process::id()));
        let mut builder = std::fs::DirBuilder::new();
        #[cfg(unix)]
        std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
        builder.create(&dir).ok()?;
        Some(dir)
    });
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    dir.as_ref()?
        .join(format!("ps-{n}"))
        .to_str()
        .map(str::to_owned)
}
