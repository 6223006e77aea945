//! One event handled: the state file locked, the engine restored, the
//! event's kind (`PostToolUse`, `PostToolUseFailure`, `PreToolUse`,
//! `UserPromptSubmit`, `SessionEnd`) dispatched, the state saved.

use std::path::Path;
use std::time::Instant;

use serde_json::Value;
use toolguard_core::config::js_number;
use toolguard_core::engine::{Call, Engine, FailureAction, Output, Verdict};
use toolguard_core::loops::CallMark;

use crate::answer::{hook_output, Answer, Failure};
use crate::args::{number_of, timeout_of, Env, HOOK_TIMEOUT_MS};
use crate::event::{
    arguments_json, field, response_of, shell_text, text_field, tool_name, Event, Host,
};
use crate::{config, exact, phases, state};

/// The one agent id inside a hook process: each process guards one chain.
const AGENT: &str = "hook";
/// A hook event larger than this is refused (fail-open) instead of read on.
pub const MAX_INPUT: u64 = 256 << 20;

/// Handle one event (`input`: the bytes read from stdin, at most
/// [`MAX_INPUT`] + 1) with the session lock waited for until `deadline`.
pub fn answer(config: Option<&str>, input: &[u8], env: Env, deadline: Instant) -> Answer {
    let mut stdout = Vec::new();
    let mut stderr = String::new();
    let mut done = match run(config, input, env, deadline, &mut stdout, &mut stderr) {
        Ok(()) => Answer {
            code: 0,
            stdout,
            stderr,
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

fn run(
    config: Option<&str>,
    input: &[u8],
    env: Env,
    deadline: Instant,
    stdout: &mut Vec<u8>,
    stderr: &mut String,
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
    phases::mark("input");

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
    phases::mark("state-dir");
    let lock_deadline = deadline.min(Instant::now() + state::LOCK_WAIT);

    match text_field(&event, "hook_event_name").as_deref() {
        Some(kind @ ("PostToolUse" | "PostToolUseFailure")) => {
            let loaded = config::read(config)?;
            phases::mark("config");
            let name = tool_name(&event);
            let failed = kind == "PostToolUseFailure";
            // A failed call is not scanned: no rule table for it.
            let engine = config::engine(&loaded, (!failed).then_some(name.as_str()))?;
            phases::mark("engine");
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
        // Not an event of either host (a hand-made test, another host's
        // payload): said, so a hook that never fires is not a mystery; the
        // tool call goes on (exit 0, nothing on stdout).
        None => {
            stderr.push_str("toolguard hook: the event has no hook_event_name: nothing was guarded (see docs/adapters.md)\n");
            Ok(())
        }
        _ => Ok(()), // events the guard does not use
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
    phases::mark("event");
    let verdict = state::with_lock(file, lock_deadline, || {
        phases::mark("lock");
        let saved = state::read_saved(file)?;
        if let Some(chain) = &saved.chain {
            restore(&mut engine, chain)?;
        }
        phases::mark("state-read");
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
        phases::mark("scan");
        save(&engine, file, &saved)?;
        phases::mark("state-write");
        let verdict = Verdict {
            reminder,
            failure,
            loop_alarm,
        };
        Ok((!verdict.is_empty()).then_some(verdict))
    })?;
    phases::mark("unlock");
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::args::{start, Start};

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
    fn an_event_without_its_name_is_said_and_fails_open() {
        let deadline = Instant::now() + std::time::Duration::from_secs(5);
        let input = br#"{"session_id":"s","tool_name":"Bash","tool_input":{},"tool_response":"Traceback (most recent call last):"}"#;
        let dir = std::env::temp_dir().join("tg-hook-no-event-name");
        let env = move |key: &str| match key {
            "TOOLGUARD_STATE_DIR" => Some(dir.to_string_lossy().into_owned()),
            _ => None,
        };
        let a = answer(None, input, &env, deadline);
        assert_eq!(a.code, 0);
        assert!(a.stdout.is_empty());
        assert!(a.stderr.contains("no hook_event_name"), "{}", a.stderr);
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
}
