#![deny(clippy::all)]
//! The Claude Code / Codex per-call hook (`toolguard hook`), once: event
//! handling, config files (config.rs) and state files (state.rs). Two thin
//! shells run it: the `toolguard-hook` executable (main.rs: stdin, a
//! deadline watchdog, the exit code) and the N-API functions behind the Node
//! `toolguard hook` path (src/hook.rs in the root crate). Both give the same
//! bytes because they run this code.
//!
//! `PostToolUse` advances the session's loop window (the loop detectors, on
//! unless the config says `loops: false`; then DSH's repeat chain) and scans
//! the output (loop alarm, reminder or `context` notice →
//! `hookSpecificOutput.additionalContext`, an `error` rule → `decision:
//! "block"`). `PostToolUseFailure` (Claude Code's event for a failed call, a
//! non-zero exit among them) advances them as a failed call, as the Claude
//! Agent SDK adapter does, and is not scanned. `PreToolUse` (with
//! `loops.deny`) refuses a call that would continue a loop already reminded
//! that many times, `UserPromptSubmit` starts the chain over, `SessionEnd`
//! deletes it. Every failure is fail-open: one `toolguard hook: …` line on
//! stderr, exit code 1 (a non-blocking error for both hosts), no decision.

pub mod config;
mod exact;
pub mod state;

use std::collections::HashMap;
use std::io::Read;
use std::path::Path;
use std::time::Instant;

use serde_json::value::RawValue;
use serde_json::Value;
use toolguard_core::config::js_number;
use toolguard_core::engine::{Call, Engine, FailureAction, Output, Verdict};
use toolguard_core::loops::CallMark;

/// Why the hook could not do its job; the text of its one stderr line.
#[derive(Debug)]
pub struct Failure(pub String);

/// What one hook invocation prints and its exit code.
#[derive(Debug, Default, PartialEq)]
pub struct Answer {
    pub code: i32,
    pub stdout: Vec<u8>,
    pub stderr: String,
}

impl Answer {
    fn failed(reason: &str) -> Self {
        Answer {
            code: 1,
            stdout: Vec::new(),
            stderr: fail_line(reason),
        }
    }
}

/// The one agent id inside a hook process: each process guards one chain.
const AGENT: &str = "hook";
/// Default of `TOOLGUARD_HOOK_TIMEOUT_MS`.
const HOOK_TIMEOUT_MS: f64 = 5_000.0;
/// A hook event larger than this is refused (fail-open) instead of read on.
pub const MAX_INPUT: u64 = 256 << 20;
/// The last 1 MiB of a Codex transcript holds the just-finished call; read no more.
const TRANSCRIPT_TAIL: u64 = 1 << 20;

/// `toolguard hook --help`.
pub const USAGE: &str = "usage: toolguard hook [--config <file.json|file.yaml>]
Reads one Claude Code / Codex hook event (JSON) on stdin. Register it for the
PostToolUse, PostToolUseFailure, UserPromptSubmit and SessionEnd events (and
PreToolUse to refuse calls that continue a loop, with \"loops\": {\"deny\": N}).
The config file is a GuardConfig ({repeat?, loudFailure?, loops?, exactMode?})
in JSON or YAML; TOOLGUARD_CONFIG names it too. Check it first with: toolguard
check-config FILE (the hook's errors go to stderr, which Claude Code does not
show).
State: $TOOLGUARD_STATE_DIR, else $XDG_STATE_HOME/toolguard, else
<tmpdir>/toolguard-<uid>.
Deadline: TOOLGUARD_HOOK_TIMEOUT_MS (default 5000) for the input and the
session lock.";

/// The environment as the hook reads it (the process's, or one a caller gives).
pub type Env<'a> = &'a dyn Fn(&str) -> Option<String>;

pub fn fail_line(reason: &str) -> String {
    format!("toolguard hook: {reason} (tool result passed through unchanged)\n")
}

/// What to do before reading the event: answer at once (`--help`, a bad
/// command line: stdin is never read), or read it within `timeout_ms`.
#[derive(Debug, PartialEq)]
pub enum Start {
    Answer(Answer),
    Read {
        config: Option<String>,
        timeout_ms: f64,
    },
}

/// The command line and the deadline of one invocation.
pub fn start(args: &[String], env: Env) -> Start {
    let flags = match parse_flags(args) {
        Ok(flags) => flags,
        Err(Failure(reason)) => {
            let usage = USAGE.lines().next().unwrap_or_default();
            return Start::Answer(Answer::failed(&format!("{reason} ({usage})")));
        }
    };
    if flags.help {
        return Start::Answer(Answer {
            code: 0,
            stdout: format!("{USAGE}\n").into_bytes(),
            stderr: String::new(),
        });
    }
    let timeout_ms = timeout_of(env).unwrap_or(HOOK_TIMEOUT_MS);
    // `--config`, else `$TOOLGUARD_CONFIG`; an empty path is none.
    let config = flags
        .config
        .or_else(|| env("TOOLGUARD_CONFIG"))
        .filter(|p| !p.is_empty());
    Start::Read { config, timeout_ms }
}

/// The answer of a hook that has not finished by its deadline.
pub fn timeout_answer(timeout_ms: f64) -> Answer {
    Answer::failed(&format!(
        "gave up after {} ms (TOOLGUARD_HOOK_TIMEOUT_MS)",
        js_number(timeout_ms)
    ))
}

/// Handle one event (`input`: the bytes read from stdin, at most
/// [`MAX_INPUT`] + 1) with the session lock waited for until `deadline`.
pub fn answer(config: Option<&str>, input: &[u8], env: Env, deadline: Instant) -> Answer {
    let mut stdout = Vec::new();
    let mut done = match run(config, input, env, deadline, &mut stdout) {
        Ok(()) => Answer {
            code: 0,
            stdout,
            stderr: String::new(),
        },
        Err(Failure(reason)) => Answer::failed(&reason),
    };
    // A deadline that is set but unusable is said on every answer (the hook
    // still runs, on the default: a bad setting never drops the tool call).
    if let (Some(set), None) = (env("TOOLGUARD_HOOK_TIMEOUT_MS"), timeout_of(env)) {
        done.stderr.insert_str(
            0,
            &format!(
                "toolguard hook: TOOLGUARD_HOOK_TIMEOUT_MS={set:?} is not a positive number of milliseconds; the default {} ms is used\n",
                js_number(HOOK_TIMEOUT_MS)
            ),
        );
    }
    done
}

/// `TOOLGUARD_HOOK_TIMEOUT_MS` when it is set to a positive number; `None`
/// when it is unset or unusable.
fn timeout_of(env: Env) -> Option<f64> {
    let ms = number_of(&env("TOOLGUARD_HOOK_TIMEOUT_MS")?);
    (ms.is_finite() && ms > 0.0).then_some(ms)
}

/// A number from an environment variable (trimmed; anything that is not a
/// plain decimal number is NaN, which falls back to the default).
fn number_of(text: &str) -> f64 {
    text.trim().parse::<f64>().unwrap_or(f64::NAN)
}

/// The command line of `toolguard hook`.
#[derive(Debug, Default, PartialEq)]
struct Flags {
    config: Option<String>,
    help: bool,
}

/// `parseCommandLine(argv, HOOK_OPTIONS)`: node:util's `parseArgs` (strict,
/// positionals allowed) over `--config <file>` and `--help`/`-h`, with the
/// messages ts/cli/args.mts makes of its errors.
fn parse_flags(args: &[String]) -> Result<Flags, Failure> {
    let mut flags = Flags::default();
    let unknown = |option: &str| {
        // args.mts names the flag by its text up to a quote or a space.
        let flag = option.split(['\'', ' ']).next().unwrap_or_default();
        Failure(format!("unknown option {flag}"))
    };
    let mut i = 0;
    while i < args.len() {
        let arg = args[i].as_str();
        i += 1;
        if arg == "--" {
            break; // the rest are positionals
        }
        if arg.len() < 2 || !arg.starts_with('-') {
            continue; // a positional (`-` too)
        }
        if let Some(long) = arg.strip_prefix("--") {
            let (name, inline) = match long.split_once('=') {
                Some((name, value)) if !name.is_empty() => (name, Some(value)),
                _ => (long, None),
            };
            match (name, inline) {
                ("config", Some(value)) => flags.config = Some(value.to_owned()),
                ("config", None) => match args.get(i) {
                    // parseArgs: a next argument that looks like an option is ambiguous, not a value.
                    Some(value) if !(value.len() > 1 && value.starts_with('-')) => {
                        flags.config = Some(value.clone());
                        i += 1;
                    }
                    _ => return Err(Failure("--config needs a value".into())),
                },
                ("help", None) => flags.help = true,
                // parseArgs names the option `'-h, --help'`, and args.mts its first word.
                ("help", Some(_)) => return Err(Failure("-h, takes no value".into())),
                _ => {
                    return Err(unknown(if inline.is_some() {
                        &arg[..2 + name.len()]
                    } else {
                        arg
                    }))
                }
            }
        } else {
            // A short option or a group of them: only `-h` exists.
            for c in arg[1..].chars() {
                if c != 'h' {
                    return Err(unknown(&format!("-{c}")));
                }
                flags.help = true;
            }
        }
    }
    Ok(flags)
}

/// The members of the hook event, each as its raw JSON text.
type Event = HashMap<String, Box<RawValue>>;

/// A member of the event as a JSON value (lone surrogate escapes, which
/// serde_json refuses in a `Value`, read as U+FFFD).
fn field(event: &Event, key: &str) -> Option<Value> {
    event
        .get(key)
        .and_then(|raw| serde_json::from_str(&replace_lone_surrogates(raw.get())).ok())
}

/// A member that is a non-empty string.
fn text_field(event: &Event, key: &str) -> Option<String> {
    match field(event, key) {
        Some(Value::String(s)) if !s.is_empty() => Some(s),
        _ => None,
    }
}

fn run(
    config: Option<&str>,
    input: &[u8],
    env: Env,
    deadline: Instant,
    stdout: &mut Vec<u8>,
) -> Result<(), Failure> {
    if input.len() as u64 > MAX_INPUT {
        return Err(Failure(format!(
            "hook input is larger than {} MiB",
            MAX_INPUT >> 20
        )));
    }
    // Invalid UTF-8 reads as U+FFFD.
    let text = String::from_utf8_lossy(input);
    let event: Event = serde_json::from_str(&text).map_err(|e| {
        if serde_json::from_str::<serde::de::IgnoredAny>(&text).is_ok() {
            Failure("hook input has no session_id".into()) // JSON, but not an object
        } else {
            Failure(format!("hook input is not JSON: {e}"))
        }
    })?;
    let session = text_field(&event, "session_id")
        .ok_or_else(|| Failure("hook input has no session_id".into()))?;

    let dir = state::state_dir(env);
    state::ensure_dir(&dir, env)?;
    let ttl = env("TOOLGUARD_STATE_TTL_DAYS").map_or(7.0, |v| number_of(&v));
    state::sweep(
        &dir,
        if ttl.is_finite() && ttl > 0.0 {
            ttl
        } else {
            7.0
        },
    )?;
    // A subagent's chain is its own: `<session>\0<agent>`.
    let agent_id = text_field(&event, "agent_id");
    let chain_id = match &agent_id {
        Some(agent) => format!("{session}\0{agent}"),
        None => session.clone(),
    };
    let file = dir.join(state::state_file_name(&chain_id));
    let lock_deadline = deadline.min(Instant::now() + state::LOCK_WAIT);

    match text_field(&event, "hook_event_name").as_deref() {
        Some(kind @ ("PostToolUse" | "PostToolUseFailure")) => {
            let loaded = config::read(config)?;
            let name = tool_name(&event);
            let failed = kind == "PostToolUseFailure";
            // A failed call is not scanned: no rule table for it.
            let engine = config::engine(&loaded, (!failed).then_some(name.as_str()))?;
            post_tool_use(engine, &name, &event, failed, &file, deadline, stdout)
        }
        Some("PreToolUse") => {
            let loaded = config::read(config)?;
            let updated = loaded
                .exact_config()?
                .and_then(|c| exact::updated_input(&c, &tool_name(&event), &event, &dir));
            // Without loops.deny there is nothing to refuse: no engine, no state read.
            if loaded.denies_loops() {
                let engine = config::engine(&loaded, None)?;
                pre_tool_use(engine, &event, &file, lock_deadline, stdout)?;
            }
            // A refusal wins; else the rewritten command (exact mode).
            if let (true, Some(input)) = (stdout.is_empty(), updated) {
                let answer = serde_json::json!({"hookSpecificOutput": {
                    "hookEventName": "PreToolUse",
                    "updatedInput": input,
                }});
                stdout.extend_from_slice(answer.to_string().as_bytes());
                stdout.push(b'\n');
            }
            Ok(())
        }
        // The chain starts over; what the agent wrote stays its own, as
        // `Engine::reset` keeps it (a script written before the user spoke
        // is still its reproduction script).
        // The prompt's error lines are noted (bounded, by the core): the
        // errors the user reported (`Engine::note_user_text`).
        Some("UserPromptSubmit") => state::with_lock(&file, lock_deadline, || {
            let saved = state::read_saved(&file).unwrap_or_default();
            let chain = saved.chain.unwrap_or_default();
            // No rule table: the engine only keeps the reported lines.
            let mut engine = config::engine(&config::read(config)?, None)?;
            if let Some(lines) = &chain.reported {
                engine.restore_reports(AGENT, lines.iter().map(String::as_str));
            }
            let prompt = match field(&event, "prompt") {
                Some(Value::String(p)) => p,
                _ => String::new(),
            };
            engine.note_user_text(AGENT, &prompt);
            let kept = state::SavedChain {
                writes: chain.writes,
                reported: engine
                    .reported_lines(AGENT)
                    .map(|l| l.into_iter().map(str::to_owned).collect()),
                ..Default::default()
            };
            state::write_atomic(&file, &state::saved_text(&kept, &state::Saved::default()))
        }),
        Some("SessionEnd") => {
            state::with_lock(&file, lock_deadline, || state::remove(&file))?;
            // The session's subagents end with it: their chains go too, not only at the TTL sweep.
            if agent_id.is_none() {
                let entries = std::fs::read_dir(&dir)
                    .map_err(|e| Failure(format!("{}: {e}", dir.display())))?;
                for entry in entries {
                    let entry = entry.map_err(|e| Failure(format!("{}: {e}", dir.display())))?;
                    // A name that is not UTF-8 is no name the hook writes.
                    let name = entry.file_name();
                    let Some(name) = name.to_str() else { continue };
                    if state::is_subagent_file(name, &session) {
                        let sub = dir.join(name);
                        state::with_lock(&sub, lock_deadline, || state::remove(&sub))?;
                    }
                }
            }
            Ok(())
        }
        _ => Ok(()), // events the guard does not use
    }
}

/// The tool's name: a string as is, none (or null) as `""`, anything else as its JSON text.
fn tool_name(event: &Event) -> String {
    match field(event, "tool_name") {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(name)) => name,
        Some(other) => other.to_string(),
    }
}

/// Restore the saved chain and loop window into `engine`.
fn restore(engine: &mut Engine, saved: &state::SavedChain) -> Result<(), Failure> {
    if let Some((digest, count)) = saved.chain {
        engine
            .restore_chain(AGENT, digest, count)
            .map_err(|e| Failure(e.to_string()))?;
    }
    if let Some(loops) = &saved.loops {
        engine
            .restore_loops(AGENT, loops)
            .map_err(|e| Failure(e.to_string()))?;
    }
    engine.restore_writes(AGENT, saved.writes.iter().map(String::as_str));
    if let Some(lines) = &saved.reported {
        engine.restore_reports(AGENT, lines.iter().map(String::as_str));
    }
    Ok(())
}

/// Save the engine's chain, loop window and the paths the agent wrote,
/// when it has any: untracked calls (include/exclude, exempt tools) leave
/// none and are transparent.
fn save(engine: &Engine, file: &Path, kept: &state::Saved) -> Result<(), Failure> {
    let now = state::SavedChain {
        chain: engine.chain_state(AGENT),
        loops: engine.loop_state(AGENT),
        writes: engine
            .written_paths(AGENT)
            .into_iter()
            .map(str::to_owned)
            .collect(),
        reported: engine
            .reported_lines(AGENT)
            .map(|l| l.into_iter().map(str::to_owned).collect()),
    };
    if now.chain.is_none() && now.loops.is_none() && now.writes.is_empty() && now.reported.is_none()
    {
        return Ok(());
    }
    state::write_atomic(file, &state::saved_text(&now, kept))
}

/// PreToolUse: refuse a call that would continue a loop already reminded
/// `loops.deny` times. A denial is saved, so the denied call, if the host
/// still reports it, resets nothing.
fn pre_tool_use(
    mut engine: Engine,
    event: &Event,
    file: &Path,
    lock_deadline: Instant,
    stdout: &mut Vec<u8>,
) -> Result<(), Failure> {
    let name = tool_name(event);
    let arguments = arguments_json(event);
    let call = Call {
        agent_id: Some(AGENT),
        name: &name,
        arguments_json: &arguments,
    };
    let refused = state::with_lock(file, lock_deadline, || {
        let saved = state::read_saved(file)?;
        let Some(chain) = &saved.chain else {
            return Ok(None);
        };
        restore(&mut engine, chain)?;
        let Some(refused) = engine.check(&call) else {
            return Ok(None);
        };
        save(&engine, file, &saved)?;
        Ok(Some(refused))
    })?;
    if let Some(refused) = refused {
        let answer = serde_json::json!({"hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": refused.reason,
        }});
        stdout.extend_from_slice(answer.to_string().as_bytes());
        stdout.push(b'\n');
    }
    Ok(())
}

/// The host of a hook event: they differ in what a `PostToolUse` block
/// does (Claude Code keeps the output and shows the reason after it; Codex
/// replaces the output with the reason).
#[derive(Clone, Copy, PartialEq, Debug)]
pub enum Host {
    ClaudeCode,
    Codex,
}

/// PostToolUse (`failed`: PostToolUseFailure): the chain, the scan, then the
/// loop window, as the addon's `observe` does; a failed call is observed as
/// the Claude Agent SDK adapter observes it (`{isError: true}`, nothing to scan).
fn post_tool_use(
    mut engine: Engine,
    name: &str,
    event: &Event,
    failed: bool,
    file: &Path,
    deadline: Instant,
    stdout: &mut Vec<u8>,
) -> Result<(), Failure> {
    // Codex sends a `turn_id`, Claude Code does not.
    let host = if matches!(field(event, "turn_id"), Some(Value::String(_))) {
        Host::Codex
    } else {
        Host::ClaudeCode
    };
    let raw_response = if failed {
        None
    } else {
        field(event, "tool_response")
    };
    let is_error = failed
        || matches!(&raw_response, Some(Value::Object(o))
            if ["isError", "is_error"].iter().any(|k| o.get(*k) == Some(&Value::Bool(true))));
    let response = response_of(event, raw_response, host);
    // Codex sends no exit code: a string response here means none was found in its transcript.
    let exit_code_unknown = host == Host::Codex && matches!(response, Some(Value::String(_)));
    let text = response.as_ref().and_then(shell_text);
    // The value's JSON: scanned with `scanValue`; for the loop detectors it
    // stands in for the text of a result that has none, so two different
    // values never compare equal.
    let for_loops = engine.loops_on() && text.is_none();
    let value_json = match &response {
        Some(value) if !is_error && ((engine.scans_value() && engine.scans(name)) || for_loops) => {
            Some(value.to_string())
        }
        _ => None,
    };
    // Exact mode: the statuses the rewritten command recorded (read even
    // for a failed call, so the side file goes).
    let statuses = file
        .parent()
        .and_then(|dir| exact::take_statuses(dir, event));
    let output = Output {
        is_error,
        texts: text.iter().map(String::as_str).collect(),
        value_json: value_json.as_deref(),
        exit_statuses: statuses.as_ref(),
        status_unrecorded: false,
    };
    let loop_output = Output {
        is_error,
        texts: match (&text, &value_json) {
            (None, Some(json)) => vec![json.as_str()],
            _ => text.iter().map(String::as_str).collect(),
        },
        value_json: None,
        exit_statuses: None,
        status_unrecorded: false,
    };
    let arguments = arguments_json(event);
    let arguments = exact::original_arguments(&arguments, event).unwrap_or(arguments);
    let call = Call {
        agent_id: Some(AGENT),
        name,
        arguments_json: &arguments,
    };

    let lock_deadline = deadline.min(Instant::now() + state::LOCK_WAIT);
    let mut verdict = state::with_lock(file, lock_deadline, || {
        let saved = state::read_saved(file)?;
        if let Some(chain) = &saved.chain {
            restore(&mut engine, chain)?;
        }
        // The loop window also learns whether an `error` rule flagged the result.
        let reminder = engine.advance(&call);
        let failure = engine.scan_call(&call, &output);
        let flagged = failure
            .as_ref()
            .is_some_and(|f| f.action == FailureAction::Error);
        // Each call's wall time goes into the window (the state file keeps
        // it), so a quiet poll is judged by time as well as by count.
        let mark = CallMark {
            ordinal: None,
            time_ms: Some(state::now_ms() as u64),
            // A hook sees one call at a time: it cannot tell a parallel call.
            concurrent: false,
        };
        let loop_alarm = engine.observe_loop_marked(&call, Some(&loop_output), flagged, mark);
        save(&engine, file, &saved)?;
        let verdict = Verdict {
            reminder,
            failure,
            loop_alarm,
        };
        Ok((!verdict.is_empty()).then_some(verdict))
    })?;
    if exit_code_unknown {
        // Without the exit code the hook does not know it was 0: the header must not claim it.
        let claimed = format!("[loud-failure] {name} exited 0 but its output shows it failed:");
        if let Some(failure) = verdict.as_mut().and_then(|v| v.failure.as_mut()) {
            if let Some(rest) = failure.text.strip_prefix(&claimed) {
                failure.text =
                    format!("[loud-failure] {name} output shows a failure (its exit code is unknown):{rest}");
            }
        }
    }
    let event_name = if failed {
        "PostToolUseFailure"
    } else {
        "PostToolUse"
    };
    if let Some(answer) = hook_output(verdict.as_ref(), text.as_deref(), host, event_name) {
        stdout.extend_from_slice(answer.as_bytes());
        stdout.push(b'\n');
    }
    Ok(())
}

/// The call's arguments as JSON text: a string as is (Codex may send one),
/// none as `{}`, anything else as its exact JSON text.
fn arguments_json(event: &Event) -> String {
    match event.get("tool_input").map(|raw| raw.get()) {
        None | Some("null") => "{}".into(),
        Some(raw) if raw.starts_with('"') => match field(event, "tool_input") {
            Some(Value::String(text)) => text,
            _ => raw.to_owned(),
        },
        Some(raw) => raw.to_owned(),
    }
}

/// The tool response as the engine should read it. Codex (0.171.0) sends
/// only the output text of a command; its exit code is in the transcript,
/// written before the hook runs.
fn response_of(event: &Event, response: Option<Value>, host: Host) -> Option<Value> {
    let Some(Value::String(output)) = response else {
        return response;
    };
    let exit_code = match (
        host,
        field(event, "transcript_path"),
        field(event, "tool_use_id"),
    ) {
        (Host::Codex, Some(Value::String(path)), Some(id)) if !path.is_empty() => {
            codex_exit_code(&path, &id)
        }
        _ => None,
    };
    Some(match exit_code {
        Some(code) => serde_json::json!({ "output": output, "exit_code": code }),
        None => Value::String(output),
    })
}

/// The exit code of call `call_id` from the `item_completed` event in the
/// last MiB of a Codex transcript.
fn codex_exit_code(path: &str, call_id: &Value) -> Option<f64> {
    use std::io::{Seek, SeekFrom};
    let mut file = std::fs::File::open(path).ok()?;
    let size = file.metadata().ok()?.len();
    let length = size.min(TRANSCRIPT_TAIL);
    file.seek(SeekFrom::Start(size - length)).ok()?;
    let mut bytes = Vec::with_capacity(length as usize);
    file.take(length).read_to_end(&mut bytes).ok()?;
    let text = String::from_utf8_lossy(&bytes);
    let needle = call_id.to_string();
    for line in text.split('\n').rev() {
        if !line.contains(&needle) || !line.contains("\"exit_code\"") {
            continue;
        }
        // The first line of the tail may be cut: unparsable lines are skipped.
        let Ok(record) = serde_json::from_str::<Value>(line) else {
            continue;
        };
        let payload = &record["payload"];
        let item = &payload["item"];
        if payload["type"] == "item_completed" && item["id"] == *call_id {
            if let Some(code) = item["exit_code"].as_f64() {
                return Some(code);
            }
        }
    }
    None
}

/// The text of a shell tool's output as the engine expects it (the DSH shell
/// result format; `shellText` in ts/adapters/common.mts for the in-process adapters).
fn shell_text(output: &Value) -> Option<String> {
    use toolguard_core::markers::shell_streams;
    let members = match output {
        Value::String(s) => return Some(s.clone()),
        Value::Object(members) => members,
        _ => return None,
    };
    let string = |key: &str| members.get(key).and_then(Value::as_str);
    let (stdout, stderr) = (string("stdout"), string("stderr"));
    let mut text = if let Some(text) = shell_streams(stdout, stderr) {
        text
    } else if let Some(output) = string("output") {
        output.to_owned()
    } else if let Some(Value::Array(blocks)) = members.get("content") {
        let texts: Vec<&str> = blocks
            .iter()
            .filter(|b| b["type"] == "text")
            .filter_map(|b| b["text"].as_str())
            .collect();
        if texts.is_empty() {
            return None;
        }
        texts.join("\n")
    } else {
        return None;
    };
    let code = members
        .get("exitCode")
        .and_then(Value::as_f64)
        .or_else(|| members.get("exit_code").and_then(Value::as_f64));
    if let Some(code) = code.filter(|&c| c != 0.0) {
        if !text.ends_with('\n') {
            text.push('\n');
        }
        text.push_str(&format!("[exit code: {}]", js_number(code)));
    }
    Some(text)
}

/// What a verdict has to say, as text: the form both the hook's own
/// verdicts and the in-process Claude Agent SDK adapter's (a JS verdict,
/// through the addon's `__hookOutput`) take to [`hook_output_of`].
#[derive(Debug, Default)]
pub struct Said<'a> {
    pub reminder: Option<&'a str>,
    pub loop_alarm: Option<&'a str>,
    pub failure: Option<(FailureAction, &'a str)>,
}

/// The hook's answer to one verdict as JSON text; `None`: print nothing.
fn hook_output(
    verdict: Option<&Verdict>,
    scanned: Option<&str>,
    host: Host,
    event_name: &str,
) -> Option<String> {
    let verdict = verdict?;
    let reminder = verdict
        .reminder
        .as_ref()
        .map(|r| String::from_utf16_lossy(&r.text));
    let said = Said {
        reminder: reminder.as_deref(),
        loop_alarm: verdict.loop_alarm.as_ref().map(|a| a.text.as_str()),
        failure: verdict
            .failure
            .as_ref()
            .map(|f| (f.action, f.text.as_str())),
    };
    hook_output_of(&said, scanned, host, event_name)
}

/// The answer (JSON text) to what a verdict said; `None`: print nothing.
/// An `error` failure blocks: Claude Code shows the tool output right
/// above the reason, so there the reason drops the failure text's copy of
/// it (`scanned`, the text the engine scanned); Codex replaces the output
/// with the reason, so there it is the whole failure text. The reminder,
/// the loop alarm, then a `context` notice (the DSH plugins' order) go to
/// `hookSpecificOutput.additionalContext` of `event_name`.
pub fn hook_output_of(
    said: &Said,
    scanned: Option<&str>,
    host: Host,
    event_name: &str,
) -> Option<String> {
    let mut out = serde_json::Map::new();
    if let Some((FailureAction::Error, text)) = said.failure {
        let copy = scanned
            .filter(|_| host == Host::ClaudeCode)
            .map(|s| format!("\nOriginal output:\n{s}"));
        let reason = match copy {
            Some(copy) if text.ends_with(&copy) => &text[..text.len() - copy.len()],
            _ => text,
        };
        out.insert("decision".into(), "block".into());
        out.insert("reason".into(), reason.into());
    }
    let context = match said.failure {
        Some((FailureAction::Context, text)) => Some(text),
        _ => None,
    };
    let notices: Vec<&str> = [said.reminder, said.loop_alarm, context]
        .into_iter()
        .flatten()
        .collect();
    if !notices.is_empty() {
        out.insert(
            "hookSpecificOutput".into(),
            serde_json::json!({ "hookEventName": event_name, "additionalContext": notices.join("\n\n") }),
        );
    }
    (!out.is_empty()).then(|| Value::Object(out).to_string())
}

/// Lone `\uD800`–`\uDFFF` escapes in JSON text become `\uFFFD`: hosts may
/// send them (a cut string), serde_json refuses them in a `Value`. Text
/// without any is returned as is.
pub fn replace_lone_surrogates(text: &str) -> std::borrow::Cow<'_, str> {
    let bytes = text.as_bytes();
    if !bytes
        .windows(3)
        .any(|w| w[0] == b'\\' && w[1] == b'u' && (w[2] | 0x20) == b'd')
    {
        return text.into();
    }
    let hex4 = |at: usize| -> Option<u32> {
        let digits = bytes.get(at..at + 4)?;
        if !digits.iter().all(u8::is_ascii_hexdigit) {
            return None;
        }
        u32::from_str_radix(std::str::from_utf8(digits).ok()?, 16).ok()
    };
    let mut out = String::with_capacity(text.len());
    let mut last = 0;
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] != b'\\' {
            i += 1;
            continue;
        }
        // Inside strings only a backslash starts an escape; outside, serde_json rejects it anyway.
        match (bytes.get(i + 1), hex4(i + 2)) {
            (Some(b'u'), Some(unit)) if (0xD800..0xE000).contains(&unit) => {
                let paired = unit < 0xDC00
                    && bytes.get(i + 6) == Some(&b'\\')
                    && bytes.get(i + 7) == Some(&b'u')
                    && matches!(hex4(i + 8), Some(low) if (0xDC00..0xE000).contains(&low));
                if paired {
                    i += 12;
                } else {
                    out.push_str(&text[last..i]);
                    out.push_str("\\ufffd");
                    i += 6;
                    last = i;
                }
            }
            _ => i += 2,
        }
    }
    out.push_str(&text[last..]);
    out.into()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One hook process per event: `events` answered in turn with the state
    /// in `dir`; what each printed.
    fn run_events(dir: &Path, events: &[Value]) -> Vec<String> {
        let dir = dir.to_string_lossy().into_owned();
        let env = move |key: &str| (key == "TOOLGUARD_STATE_DIR").then(|| dir.clone());
        events
            .iter()
            .map(|e| {
                let deadline = Instant::now() + std::time::Duration::from_secs(5);
                let a = answer(None, e.to_string().as_bytes(), &env, deadline);
                assert_eq!((a.code, a.stderr.as_str()), (0, ""), "{e}");
                String::from_utf8(a.stdout).unwrap()
            })
            .collect()
    }

    #[test]
    fn a_script_written_in_an_earlier_event_is_the_agents_own() {
        let dir = std::env::temp_dir().join(format!("tg-hook-writes-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let event = |name: &str, input: Value, response: Value| {
            serde_json::json!({"session_id": "s1", "hook_event_name": "PostToolUse",
                "tool_name": name, "tool_input": input, "tool_response": response})
        };
        let traceback = "Traceback (most recent call last):\n  File \"/work/repro.py\", line 3, in <module>\n    f()\nValueError: bad value\n";
        let run = event(
            "Bash",
            serde_json::json!({"command": "cd /work && python3 repro.py 2>&1 | tail -5"}),
            serde_json::json!({"stdout": traceback, "stderr": ""}),
        );
        let write = event(
            "Write",
            serde_json::json!({"file_path": "/work/repro.py", "content": "from m import f\nf()\n"}),
            serde_json::json!({"type": "create"}),
        );
        let prompt = serde_json::json!({"session_id": "s1", "hook_event_name": "UserPromptSubmit"});
        // Not written by the agent: the hidden traceback is an error.
        let out = run_events(&dir, std::slice::from_ref(&run));
        assert!(out[0].contains(r#""decision":"block""#), "{}", out[0]);
        // Written in an earlier event (another process): a reproduction, context only,
        // also after the user spoke.
        let out = run_events(&dir.join("b"), &[write, run.clone(), prompt, run.clone()]);
        for printed in [&out[1], &out[3]] {
            assert!(!printed.contains("decision"), "{printed}");
            assert!(printed.contains("python-traceback"), "{printed}");
        }
        // The user's prompt quotes that error: its reproduction is context,
        // whoever wrote the script, in later events too (the state keeps it).
        let told = serde_json::json!({"session_id": "s1", "hook_event_name": "UserPromptSubmit",
            "prompt": "f() fails with\nValueError: bad value\nplease fix"});
        let out = run_events(&dir.join("c"), &[told, run.clone(), run]);
        for printed in [&out[1], &out[2]] {
            assert!(!printed.contains("decision"), "{printed}");
            assert!(printed.contains("python-traceback"), "{printed}");
        }
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn an_unusable_deadline_is_said_and_the_default_used() {
        let deadline = Instant::now() + std::time::Duration::from_secs(5);
        let input = br#"{"session_id":"s","hook_event_name":"PostToolUse","tool_name":"Read","tool_input":{},"tool_response":"x"}"#;
        for (value, said) in [("abc", true), ("-5", true), ("0", true), ("250", false)] {
            let env = move |key: &str| match key {
                "TOOLGUARD_HOOK_TIMEOUT_MS" => Some(value.to_string()),
                "TOOLGUARD_STATE_DIR" => Some(
                    std::env::temp_dir()
                        .join("tg-hook-timeout-env")
                        .to_string_lossy()
                        .into_owned(),
                ),
                _ => None,
            };
            let a = answer(None, input, &env, deadline);
            assert_eq!(a.code, 0, "{value}");
            assert_eq!(
                a.stderr.contains("TOOLGUARD_HOOK_TIMEOUT_MS"),
                said,
                "{value}: {}",
                a.stderr
            );
            let timeout = match start(&[], &env) {
                Start::Read { timeout_ms, .. } => timeout_ms,
                Start::Answer(_) => unreachable!(),
            };
            assert_eq!(timeout, if said { HOOK_TIMEOUT_MS } else { 250.0 });
        }
    }

    #[test]
    fn numbers_of_env_text() {
        assert_eq!(number_of(" 250 "), 250.0);
        assert_eq!(number_of("1e3"), 1000.0);
        assert!(number_of("").is_nan());
        assert!(number_of("5ms").is_nan());
    }

    #[test]
    fn lone_surrogates_read_as_replacement() {
        let parse = |t: &str| serde_json::from_str::<Value>(&replace_lone_surrogates(t)).unwrap();
        assert_eq!(
            parse(r#"["\ud83d", "\ud83d\ude00", "\\ud83d", "\udc00x"]"#),
            serde_json::json!(["\u{FFFD}", "😀", "\\ud83d", "\u{FFFD}x"])
        );
    }

    #[test]
    fn shell_text_formats() {
        let t = |json: &str| shell_text(&serde_json::from_str(json).unwrap());
        assert_eq!(
            t(r#"{"stdout":"a","stderr":"b","exit_code":2}"#).unwrap(),
            "a\n[stderr]\nb\n[exit code: 2]"
        );
        assert_eq!(t(r#"{"stdout":"","stderr":""}"#).unwrap(), "(no output)");
        assert_eq!(t(r#"{"content":[{"type":"text","text":"x"},{"type":"image"},{"type":"text","text":"y"}]}"#).unwrap(), "x\ny");
        assert_eq!(
            t(r#"{"output":"o\n","exitCode":0,"exit_code":3}"#).unwrap(),
            "o\n"
        );
        assert_eq!(t("[1]"), None);
        assert_eq!(t("5"), None);
    }

    #[test]
    fn command_line_as_parse_args() {
        let parse = |args: &[&str]| {
            parse_flags(&args.iter().map(|a| a.to_string()).collect::<Vec<_>>()).map_err(|e| e.0)
        };
        let flags = |config: Option<&str>, help| {
            Ok(Flags {
                config: config.map(Into::into),
                help,
            })
        };
        assert_eq!(
            parse(&["--config", "c.yaml", "x"]),
            flags(Some("c.yaml"), false)
        );
        assert_eq!(
            parse(&["--config=a=b", "--config", "-"]),
            flags(Some("-"), false)
        );
        assert_eq!(parse(&["-hh", "--", "--bogus"]), flags(None, true));
        assert_eq!(parse(&["--bogus=1"]), Err("unknown option --bogus".into()));
        assert_eq!(parse(&["--=x"]), Err("unknown option --=x".into()));
        assert_eq!(parse(&["-h=1"]), Err("unknown option -=".into()));
        assert_eq!(
            parse(&["--config", "--help"]),
            Err("--config needs a value".into())
        );
        assert_eq!(
            parse(&["--help", "--config"]),
            Err("--config needs a value".into())
        );
        assert_eq!(parse(&["--help="]), Err("-h, takes no value".into()));
    }
}
