//! mini-swe-agent's terminal output, as Terminal-Bench's tmux capture keeps
//! it (`sessions/agent.log`). After the ANSI escapes are stripped:
//!
//! ````text
//! mini-swe-agent (step 1, $0.01):
//! THOUGHT: …
//!
//! ```bash
//! ls -la
//! ```
//!
//! User:
//! <returncode>0</returncode>
//! <output>
//! …
//! </output>
//! ````
//!
//! A step's action is its one fenced bash block; its observation is the
//! `User:` message after it, with `<returncode>` (a step whose `User:` has
//! none — a format error, the final submission — ran no command and is
//! noted, not counted). The spinner (`⠋ Waiting for the LM to respond...`)
//! is removed; the LiteLLM logging tracebacks that interleave with the
//! capture fall outside the tags and are not read as output.

use std::sync::OnceLock;

use regex::Regex;

use super::codex_log::strip_ansi;
use super::mini_swe::{bash_action, templated};
use super::session::{command_arguments, ReadCall, ReadEvent, ReadResult, ReadSession};
use super::shell::add_exit_marker;

fn step_line() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| Regex::new(r"(?m)^mini-swe-agent \(step (\d+), \$[0-9.]+\):").expect("valid"))
}

fn spinner() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(r"[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] Waiting for the LM to respond\.\.\.").expect("valid")
    })
}

pub(crate) fn looks_like(text: &str) -> bool {
    let text = strip_ansi(text);
    step_line().is_match(&text)
}

pub(crate) fn read(raw: &str) -> Result<ReadSession, String> {
    let text = spinner().replace_all(&strip_ansi(raw), "").into_owned();
    let starts: Vec<(usize, String)> = step_line()
        .captures_iter(&text)
        .map(|c| (c.get(0).expect("match").start(), c[1].to_owned()))
        .collect();
    if starts.is_empty() {
        return Err(
            "not a mini-swe-agent terminal log: no \"mini-swe-agent (step N, $…):\" line"
                .to_owned(),
        );
    }
    let mut read = ReadSession {
        model: text
            .lines()
            .find_map(|l| l.split_once("mini -m ").map(|(_, m)| m))
            .and_then(|m| m.split_whitespace().next())
            .map(str::to_owned),
        exit_codes: true,
        ..Default::default()
    };
    for (i, (start, step)) in starts.iter().enumerate() {
        let end = starts.get(i + 1).map_or(text.len(), |s| s.0);
        let body = &text[*start..end];
        let line = text[..*start].matches('\n').count() as u64 + 1;
        let (turn, observation) = match body.find("\nUser:\n") {
            Some(at) => (&body[..at], Some(&body[at + 7..])),
            None => (body, None),
        };
        let observed = observation.filter(|o| o.contains("<returncode>"));
        let Some(observation) = observed else {
            read.note(
                Some(line),
                None,
                format!("step {step}: no command ran (no <returncode> in its observation)"),
            );
            continue;
        };
        let command = bash_action(turn).unwrap_or_default();
        // The observation ends at its closing tag; what follows is the capture's.
        let close = ["</output>", "</output_tail>"]
            .iter()
            .filter_map(|t| observation.find(t).map(|at| at + t.len()))
            .min()
            .unwrap_or(observation.len());
        let (mut output, code) = templated(&observation[..close]);
        if let Some(code) = code {
            add_exit_marker(&mut output, code);
        }
        read.events.push(ReadEvent::Call(ReadCall {
            tool: "bash".to_owned(),
            arguments_json: command_arguments(&command),
            line: Some(line),
            result: Some(ReadResult {
                text: output,
                is_error: false,
            }),
            ..Default::default()
        }));
    }
    Ok(read)
}
