#![deny(clippy::all)]
//! `toolguard-hook`: the Claude Code / Codex per-call hook (`toolguard hook`)
//! as a native executable — one process per hook event, no Node start-up.
//!
//! It behaves as ts/adapters/hooks.mts does, event for event: `PostToolUse`
//! advances the session's loop window (the loop detectors, on unless the
//! config says `loops: false`; then DSH's repeat chain) and scans the output
//! (loop alarm, reminder or `context` notice →
//! `hookSpecificOutput.additionalContext`, an `error` rule → `decision:
//! "block"`), `PreToolUse` (with `loops.deny`) refuses a call that would
//! continue a loop already reminded that many times, `UserPromptSubmit`
//! starts the chain over, `SessionEnd` deletes it. It reads the same config
//! files and the same state files (state.rs; the chain and loop window as the
//! core serialises them), so Node and native hook processes can take turns on
//! one session. Every failure is fail-open: one `toolguard hook: …` line on
//! stderr, exit code 1 (a non-blocking error for both hosts), no decision;
//! past the deadline (`TOOLGUARD_HOOK_TIMEOUT_MS`, default 5000) too.
//! (A library with a one-line `main.rs`, so `cargo test --lib` runs its tests.)

mod config;
mod js;
mod state;

use std::collections::HashMap;
use std::io::{Read, Write};
use std::path::Path;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use serde_json::value::RawValue;
use toolguard_core::canonical::arguments_text_from_utf16;
use toolguard_core::config::js_number;
use toolguard_core::engine::{Call, Engine, FailureAction, Output, Verdict};

use crate::js::Js;

/// Why the hook could not do its job; the text of its one stderr line.
#[derive(Debug)]
pub struct Failure(pub String);

/// The one agent id inside a hook process: each process guards one chain.
const AGENT: &str = "hook";
/// Default of `TOOLGUARD_HOOK_TIMEOUT_MS`.
const HOOK_TIMEOUT_MS: f64 = 5_000.0;
/// A hook event larger than this is refused (fail-open) instead of read on.
const MAX_INPUT: u64 = 256 << 20;
/// The last 1 MiB of a Codex transcript holds the just-finished call; read no more.
const TRANSCRIPT_TAIL: u64 = 1 << 20;

/// The Node hook's `HOOK_USAGE`, and which hook answered.
const USAGE: &str = "usage: toolguard hook [--config <file.json|file.yaml>]
Reads one Claude Code / Codex hook event (JSON) on stdin. Register it for the
PostToolUse, UserPromptSubmit and SessionEnd events (and PreToolUse to refuse
calls that continue a loop, with \"loops\": {\"deny\": N}). The config file is a
GuardConfig ({repeat?, loudFailure?, loops?}) in JSON or YAML; TOOLGUARD_CONFIG
names it too. Check it first with: toolguard check-config FILE (the hook's errors go to
stderr, which Claude Code does not show).
State: $TOOLGUARD_STATE_DIR, else $XDG_STATE_HOME/toolguard, else <tmpdir>/toolguard-<uid>.
Deadline: TOOLGUARD_HOOK_TIMEOUT_MS (default 5000) for the input and the session lock.
(native executable toolguard-hook)";

/// Set once the hook has started its answer: the deadline then lets it finish.
static ANSWERED: Mutex<bool> = Mutex::new(false);

fn fail_line(reason: &str) -> String {
    format!("toolguard hook: {reason} (tool result passed through unchanged)\n")
}

/// The executable's `main`: exits the process with the hook's exit code.
pub fn main() {
    // A bug must not break the tool call either: fail open, one line, exit 1 (not Rust's 101).
    std::panic::set_hook(Box::new(|info| {
        if let Ok(mut held) = state::HELD_LOCK.try_lock() {
            if let Some(lock) = held.take() {
                let _ = std::fs::remove_file(lock);
            }
        }
        let _ =
            std::io::stderr().write_all(fail_line(&format!("internal error: {info}")).as_bytes());
        std::process::exit(1);
    }));
    let args: Vec<String> = std::env::args().skip(1).collect();
    let flags = match parse_flags(&args) {
        Ok(flags) => flags,
        Err(Failure(reason)) => {
            let usage = USAGE.lines().next().unwrap_or_default();
            let _ =
                std::io::stderr().write_all(fail_line(&format!("{reason} ({usage})")).as_bytes());
            std::process::exit(1);
        }
    };
    if flags.help {
        println!("{USAGE}");
        return;
    }
    let env = |key: &str| std::env::var(key).ok();
    let timeout = {
        let ms = env("TOOLGUARD_HOOK_TIMEOUT_MS").map_or(HOOK_TIMEOUT_MS, |v| js_number_of(&v));
        if ms.is_finite() && ms > 0.0 {
            ms
        } else {
            HOOK_TIMEOUT_MS
        }
    };
    let deadline = Instant::now() + Duration::from_secs_f64(timeout / 1000.0);
    // Without a watchdog thread (none could be started) the hook still runs, unbounded as the Node hook is.
    let _ = std::thread::Builder::new().spawn(move || watchdog(deadline, timeout));

    let mut stdout = Vec::new();
    let code = match run(flags.config, &env, deadline, &mut stdout) {
        Ok(()) => 0,
        Err(Failure(reason)) => {
            let _answer = ANSWERED.lock().unwrap_or_else(|p| p.into_inner());
            let _ = std::io::stderr().write_all(fail_line(&reason).as_bytes());
            std::process::exit(1);
        }
    };
    let mut answered = ANSWERED.lock().unwrap_or_else(|p| p.into_inner());
    *answered = true;
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(&stdout).and_then(|_| out.flush());
    std::process::exit(code);
}

/// Ends a hook that has not answered by the deadline (a host keeping stdin
/// open, a lock held by a stuck process, a state directory that hangs):
/// releases the session lock it holds and fails open.
fn watchdog(deadline: Instant, timeout: f64) {
    std::thread::sleep(deadline.saturating_duration_since(Instant::now()));
    let answered = ANSWERED.lock().unwrap_or_else(|p| p.into_inner());
    if *answered {
        return;
    }
    if let Some(lock) = state::HELD_LOCK
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .take()
    {
        let _ = std::fs::remove_file(lock);
    }
    let reason = format!(
        "gave up after {} ms (TOOLGUARD_HOOK_TIMEOUT_MS)",
        js_number(timeout)
    );
    let _ = std::io::stderr().write_all(fail_line(&reason).as_bytes());
    std::process::exit(1);
}

/// `Number(text)` for an environment variable: JavaScript's string-to-number
/// (trimmed; empty is 0; hex/octal/binary literals; anything else malformed is NaN).
fn js_number_of(text: &str) -> f64 {
    let t = text.trim_matches(|c: char| c.is_whitespace() || c == '\u{FEFF}');
    if t.is_empty() {
        return 0.0;
    }
    for (prefix, radix) in [
        ("0x", 16),
        ("0X", 16),
        ("0o", 8),
        ("0O", 8),
        ("0b", 2),
        ("0B", 2),
    ] {
        if let Some(digits) = t.strip_prefix(prefix) {
            return u128::from_str_radix(digits, radix).map_or(f64::NAN, |n| n as f64);
        }
    }
    match t.trim_start_matches(['+', '-']) {
        "Infinity" if t.len() - 8 <= 1 => {
            if t.starts_with('-') {
                f64::NEG_INFINITY
            } else {
                f64::INFINITY
            }
        }
        _ if t
            .bytes()
            .all(|b| b.is_ascii_digit() || b"+-.eE".contains(&b)) =>
        {
            t.parse().unwrap_or(f64::NAN)
        }
        _ => f64::NAN,
    }
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

fn field(event: &Event, key: &str) -> Option<Js> {
    event.get(key).and_then(|raw| Js::parse(raw.get()).ok())
}

/// A string member as the UTF-16 units JavaScript holds (lone surrogates kept).
fn string_units(event: &Event, key: &str) -> Option<Vec<u16>> {
    event
        .get(key)
        .map(|raw| raw.get())
        .filter(|t| t.starts_with('"'))
        .and_then(js::json_string_units)
}

fn run(
    config: Option<String>,
    env: &dyn Fn(&str) -> Option<String>,
    deadline: Instant,
    stdout: &mut Vec<u8>,
) -> Result<(), Failure> {
    // `flags.config ?? env.TOOLGUARD_CONFIG`, then only a non-empty path is read.
    let config = config
        .or_else(|| env("TOOLGUARD_CONFIG"))
        .filter(|p| !p.is_empty());
    let text = read_stdin()?;
    let event: Event = serde_json::from_str(&text).map_err(|e| {
        if serde_json::from_str::<serde::de::IgnoredAny>(&text).is_ok() {
            Failure("hook input has no session_id".into()) // JSON, but not an object
        } else {
            Failure(format!("hook input is not JSON: {e}"))
        }
    })?;
    let session = string_units(&event, "session_id")
        .filter(|s| !s.is_empty())
        .ok_or_else(|| Failure("hook input has no session_id".into()))?;

    let dir = state::state_dir(env);
    state::ensure_dir(&dir, env)?;
    let ttl = env("TOOLGUARD_STATE_TTL_DAYS").map_or(7.0, |v| js_number_of(&v));
    state::sweep(
        &dir,
        if ttl.is_finite() && ttl > 0.0 {
            ttl
        } else {
            7.0
        },
    )?;
    let mut chain_id = session.clone();
    let agent_id = field(&event, "agent_id").filter(Js::truthy);
    if let Some(agent) = &agent_id {
        chain_id.push(0);
        match string_units(&event, "agent_id") {
            Some(units) => chain_id.extend(units),
            None => chain_id.extend(agent.to_js_string().encode_utf16()),
        }
    }
    let file = dir.join(state::state_file_name(&chain_id));
    let lock_deadline = deadline.min(Instant::now() + state::LOCK_WAIT);

    match field(&event, "hook_event_name")
        .as_ref()
        .and_then(Js::as_str)
    {
        Some("PostToolUse") => {
            let loaded = config::read(config.as_deref())?;
            let name = tool_name(&event);
            let engine = config::engine(&loaded, Some(&name))?;
            post_tool_use(engine, &name, &event, &file, deadline, stdout)
        }
        Some("PreToolUse") => {
            let loaded = config::read(config.as_deref())?;
            // Without loops.deny there is nothing to refuse: no engine, no state read.
            if !loaded.denies_loops() {
                return Ok(());
            }
            let engine = config::engine(&loaded, None)?;
            pre_tool_use(engine, &event, &file, lock_deadline, stdout)
        }
        Some("UserPromptSubmit") => state::with_lock(&file, lock_deadline, || state::remove(&file)),
        Some("SessionEnd") => {
            state::with_lock(&file, lock_deadline, || state::remove(&file))?;
            // The session's subagents end with it: their chains go too, not only at the TTL sweep.
            if agent_id.is_none() {
                let entries = std::fs::read_dir(&dir)
                    .map_err(|e| Failure(format!("{}: {e}", dir.display())))?;
                for entry in entries {
                    let entry = entry.map_err(|e| Failure(format!("{}: {e}", dir.display())))?;
                    // A name that is not UTF-8 is no name the hooks write.
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

/// `String(input.tool_name ?? '')`.
fn tool_name(event: &Event) -> String {
    match field(event, "tool_name") {
        None | Some(Js::Null) => String::new(),
        Some(name) => name.to_js_string(),
    }
}

/// Restore the saved chain and loop window into `engine` (`restoreChain`).
fn restore(engine: &mut Engine, fields: &state::ChainFields) -> Result<(), Failure> {
    let saved = state::saved_chain(fields)?;
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
    Ok(())
}

/// Save the engine's chain and loop window (`chainState`), when it has either:
/// untracked calls (include/exclude, exempt tools) leave none and are transparent.
fn save(engine: &Engine, file: &Path, kept: &state::Saved) -> Result<(), Failure> {
    let now = state::SavedChain {
        chain: engine.chain_state(AGENT),
        loops: engine.loop_state(AGENT),
    };
    if now.chain.is_none() && now.loops.is_none() {
        return Ok(());
    }
    state::write_atomic(file, &state::saved_text(&now, kept))
}

/// PreToolUse (`checkCall`): refuse a call that would continue a loop already
/// reminded `loops.deny` times. A denial is saved, so the denied call, if
/// the host still reports it, resets nothing.
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
        let saved = state::read_saved(file);
        let Some(fields) = &saved.chain else {
            return Ok(None);
        };
        restore(&mut engine, fields)?;
        let Some(refused) = engine.check(&call) else {
            return Ok(None);
        };
        save(&engine, file, &saved)?;
        Ok(Some(refused))
    })?;
    if let Some(refused) = refused {
        stdout.extend_from_slice(
            b"{\"hookSpecificOutput\":{\"hookEventName\":\"PreToolUse\",\"permissionDecision\":\"deny\",\"permissionDecisionReason\":",
        );
        let mut reason = String::new();
        toolguard_core::canonical::push_js_string_literal(&refused.reason, &mut reason);
        stdout.extend_from_slice(reason.as_bytes());
        stdout.extend_from_slice(b"}}\n");
    }
    Ok(())
}

fn read_stdin() -> Result<String, Failure> {
    let mut bytes = Vec::new();
    std::io::stdin()
        .lock()
        .take(MAX_INPUT + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| Failure(format!("cannot read the hook input: {e}")))?;
    if bytes.len() as u64 > MAX_INPUT {
        return Err(Failure(format!(
            "hook input is larger than {} MiB",
            MAX_INPUT >> 20
        )));
    }
    // As Node's readFileSync(fd, 'utf8'): invalid UTF-8 reads as U+FFFD.
    Ok(match String::from_utf8(bytes) {
        Ok(text) => text,
        Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
    })
}

#[derive(Clone, Copy, PartialEq)]
enum Host {
    ClaudeCode,
    Codex,
}

fn post_tool_use(
    mut engine: Engine,
    name: &str,
    event: &Event,
    file: &Path,
    deadline: Instant,
    stdout: &mut Vec<u8>,
) -> Result<(), Failure> {
    // Codex sends a `turn_id`, Claude Code does not.
    let host = if matches!(field(event, "turn_id"), Some(Js::Str(_))) {
        Host::Codex
    } else {
        Host::ClaudeCode
    };
    let raw_response = field(event, "tool_response");
    let is_error = matches!(&raw_response, Some(Js::Obj(o)) if o.iter().any(|(k, v)| (k == "isError" || k == "is_error") && *v == Js::Bool(true)));
    let response = response_of(event, raw_response, host);
    // Codex sends no exit code: a string response here means none was found in its transcript.
    let exit_code_unknown = host == Host::Codex && matches!(response, Some(Js::Str(_)));
    let text = response.as_ref().and_then(shell_text);
    // The value's JSON (`resultOf`'s `value`, as the addon reads it): scanned
    // with `scanValue`; for the loop detectors it stands in for the text of
    // a result that has none, so two different values never compare equal.
    let for_loops = engine.loops_on() && text.is_none();
    let value_json = match &response {
        Some(value) if !is_error && ((engine.scans_value() && engine.scans(name)) || for_loops) => {
            Some(value.stringify())
        }
        _ => None,
    };
    let output = Output {
        is_error,
        texts: text.iter().map(String::as_str).collect(),
        value_json: value_json.as_deref(),
    };
    let loop_output = Output {
        is_error,
        texts: match (&text, &value_json) {
            (None, Some(json)) => vec![json.as_str()],
            _ => text.iter().map(String::as_str).collect(),
        },
        value_json: None,
    };
    let arguments = arguments_json(event);
    let call = Call {
        agent_id: Some(AGENT),
        name,
        arguments_json: &arguments,
    };

    // As observeWithSavedChain: the lock wait is counted from here, within the deadline.
    let lock_deadline = deadline.min(Instant::now() + state::LOCK_WAIT);
    let mut verdict = state::with_lock(file, lock_deadline, || {
        let saved = state::read_saved(file);
        if let Some(fields) = &saved.chain {
            restore(&mut engine, fields)?;
        }
        // As the addon's `observe`: the chain, the scan, then the loop window,
        // which also learns whether an `error` rule flagged the result.
        let reminder = engine.advance(&call);
        let failure = engine.scan_call(&call, &output);
        let flagged = failure
            .as_ref()
            .is_some_and(|f| f.action == FailureAction::Error);
        let loop_alarm = engine.observe_loop(&call, Some(&loop_output), flagged);
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
    if let Some(answer) = hook_output(verdict.as_ref(), text.as_deref(), host) {
        stdout.extend_from_slice(answer.as_bytes());
        stdout.push(b'\n');
    }
    Ok(())
}

/// `argumentsJson(input.tool_input ?? {})`: a string as is, anything else as
/// its JSON text (the canonical form reads raw text as `JSON.stringify`'s).
fn arguments_json(event: &Event) -> String {
    match event.get("tool_input").map(|raw| raw.get()) {
        None | Some("null") => "{}".into(),
        Some(raw) if raw.starts_with('"') => match js::json_string_units(raw) {
            Some(units) => match String::from_utf16(&units) {
                Ok(text) => text,
                // Lone surrogates: the text whose canonical form keeps them exact.
                Err(_) => arguments_text_from_utf16(&units),
            },
            None => raw.to_owned(),
        },
        Some(raw) => raw.to_owned(),
    }
}

/// The tool response as the engine should read it (`responseOf`). Codex
/// (0.171.0) sends only the output text of a command; its exit code is in the
/// transcript, written before the hook runs.
fn response_of(event: &Event, response: Option<Js>, host: Host) -> Option<Js> {
    let Some(Js::Str(output)) = response else {
        return response;
    };
    let transcript = field(event, "transcript_path").filter(Js::truthy);
    let call_id = field(event, "tool_use_id").filter(Js::truthy);
    if host != Host::Codex || transcript.is_none() || call_id.is_none() {
        return Some(Js::Str(output));
    }
    let exit_code = match (transcript, call_id) {
        (Some(Js::Str(path)), Some(id)) => codex_exit_code(&path, &id),
        _ => None,
    };
    Some(match exit_code {
        Some(code) => Js::Obj(vec![
            ("output".into(), Js::Str(output)),
            ("exit_code".into(), Js::Num(code)),
        ]),
        None => Js::Str(output),
    })
}

/// The exit code of call `call_id` from the `item_completed` event in the
/// last MiB of a Codex transcript.
fn codex_exit_code(path: &str, call_id: &Js) -> Option<f64> {
    use std::io::{Seek, SeekFrom};
    let mut file = std::fs::File::open(path).ok()?;
    let size = file.metadata().ok()?.len();
    let length = size.min(TRANSCRIPT_TAIL);
    file.seek(SeekFrom::Start(size - length)).ok()?;
    let mut bytes = Vec::with_capacity(length as usize);
    file.take(length).read_to_end(&mut bytes).ok()?;
    let text = String::from_utf8_lossy(&bytes);
    let needle = call_id.stringify();
    let same = |id: &Js| {
        matches!(
            (id, call_id),
            (Js::Str(_), Js::Str(_)) | (Js::Num(_), Js::Num(_)) | (Js::Bool(_), Js::Bool(_))
        ) && id == call_id
    };
    for line in text.split('\n').rev() {
        if !line.contains(&needle) || !line.contains("\"exit_code\"") {
            continue;
        }
        // The first line of the tail may be cut: unparsable lines are skipped.
        let Ok(record) = Js::parse(line) else {
            continue;
        };
        let Some(payload) = record.get("payload") else {
            continue;
        };
        let item = payload.get("item");
        if payload.get("type").and_then(Js::as_str) == Some("item_completed")
            && item.and_then(|i| i.get("id")).is_some_and(same)
        {
            if let Some(code) = item.and_then(|i| i.get("exit_code")).and_then(Js::as_num) {
                return Some(code);
            }
        }
    }
    None
}

/// The text of a shell tool's output as the engine expects it (`shellText`
/// in ts/adapters/common.mts, the DSH shell result format).
fn shell_text(output: &Js) -> Option<String> {
    use toolguard_core::markers::shell_streams;
    let members = match output {
        Js::Str(s) => return Some(s.clone()),
        Js::Obj(_) => output,
        Js::Arr(_) => return None, // an array has none of the fields read here
        _ => return None,
    };
    let string = |key: &str| members.get(key).and_then(Js::as_str);
    let (stdout, stderr) = (string("stdout"), string("stderr"));
    let mut text = if let Some(text) = shell_streams(stdout, stderr) {
        text
    } else if let Some(output) = string("output") {
        output.to_owned()
    } else if let Some(Js::Arr(blocks)) = members.get("content") {
        let texts: Vec<&str> = blocks
            .iter()
            .filter(|b| b.get("type").and_then(Js::as_str) == Some("text"))
            .filter_map(|b| b.get("text").and_then(Js::as_str))
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
        .and_then(Js::as_num)
        .or_else(|| members.get("exit_code").and_then(Js::as_num));
    if let Some(code) = code.filter(|&c| c != 0.0) {
        if !text.ends_with('\n') {
            text.push('\n');
        }
        text.push_str(&format!("[exit code: {}]", js_number(code)));
    }
    Some(text)
}

/// The hook's answer to one verdict (`hookOutputFor`), as the JSON text
/// `JSON.stringify` gives; `None`: print nothing. Claude Code shows the tool
/// output right above the reason, so there the reason drops the failure
/// text's copy of it; Codex replaces the output with the reason.
fn hook_output(verdict: Option<&Verdict>, scanned: Option<&str>, host: Host) -> Option<String> {
    let verdict = verdict?;
    let mut out = String::from("{");
    if let Some(failure) = verdict
        .failure
        .as_ref()
        .filter(|f| f.action == FailureAction::Error)
    {
        let copy = scanned
            .filter(|_| host == Host::ClaudeCode)
            .map(|s| format!("\nOriginal output:\n{s}"));
        let reason = match copy {
            Some(copy) if failure.text.ends_with(&copy) => {
                &failure.text[..failure.text.len() - copy.len()]
            }
            _ => failure.text.as_str(),
        };
        out.push_str("\"decision\":\"block\",\"reason\":");
        toolguard_core::canonical::push_js_string_literal(reason, &mut out);
    }
    // Reminder, loop alarm, then a `context` notice, as the DSH plugins order them (`noticesOf`).
    let mut notices: Vec<Vec<u16>> = Vec::new();
    if let Some(reminder) = &verdict.reminder {
        notices.push(reminder.text.clone());
    }
    if let Some(alarm) = &verdict.loop_alarm {
        notices.push(alarm.text.encode_utf16().collect());
    }
    if let Some(failure) = verdict
        .failure
        .as_ref()
        .filter(|f| f.action == FailureAction::Context)
    {
        notices.push(failure.text.encode_utf16().collect());
    }
    if !notices.is_empty() {
        let separator: Vec<u16> = "\n\n".encode_utf16().collect();
        let context = notices.join(separator.as_slice());
        if out.len() > 1 {
            out.push(',');
        }
        out.push_str(
            "\"hookSpecificOutput\":{\"hookEventName\":\"PostToolUse\",\"additionalContext\":",
        );
        js::push_units_literal(&context, &mut out);
        out.push('}');
    }
    (out.len() > 1).then(|| out + "}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn number_of_env_text_as_javascript() {
        assert_eq!(js_number_of(""), 0.0);
        assert_eq!(js_number_of(" 250 "), 250.0);
        assert_eq!(js_number_of("0x10"), 16.0);
        assert_eq!(js_number_of("1e3"), 1000.0);
        assert!(js_number_of("inf").is_nan());
        assert!(js_number_of("5ms").is_nan());
        assert_eq!(js_number_of("-Infinity"), f64::NEG_INFINITY);
    }

    #[test]
    fn shell_text_formats() {
        let t = |json: &str| shell_text(&Js::parse(json).unwrap());
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
