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
//! `User:` message after it, with `<returncode>`, or the harness's timeout
//! message (`The last command <command>…</command> timed out and has been
//! killed.` then `<output>`, mini-swe-agent 1.x `timeout_template`): a
//! call that failed (`is_error`, no exit status: the process was killed),
//! its result that message. A step whose `User:` has neither — a format
//! error, the final submission — ran no command and is noted, not counted. The spinner (`⠋ Waiting for the LM to respond...`)
//! is removed; the LiteLLM logging tracebacks that interleave with the
//! capture fall outside the tags and are not read as output.

use std::sync::OnceLock;

use regex::Regex;

use super::codex_log::strip_ansi;
use super::mini_swe::{bash_action, is_timeout, templated};
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
        let timed_out = observation.is_some_and(is_timeout);
        let observed = observation.filter(|o| timed_out || o.contains("<returncode>"));
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
        let result = if timed_out {
            // The harness's own message, whole: it says the command was killed.
            ReadResult {
                text: observation[..close].trim_end().to_owned(),
                is_error: true,
            }
        } else {
            let (mut output, code) = templated(&observation[..close]);
            if let Some(code) = code {
                add_exit_marker(&mut output, code);
            }
            ReadResult {
                text: output,
                is_error: false,
            }
        };
        read.events.push(ReadEvent::Call(ReadCall {
            tool: "bash".to_owned(),
            arguments_json: command_arguments(&command),
            line: Some(line),
            result: Some(result),
            ..Default::default()
        }));
    }
    Ok(read)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn results(log: &str) -> Vec<(String, Option<ReadResult>)> {
        read(log)
            .unwrap()
            .events
            .into_iter()
            .filter_map(|e| match e {
                ReadEvent::Call(c) => Some((c.arguments_json, c.result)),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn a_command_killed_by_its_timeout_is_a_failed_call() {
        // Synthetic: three steps, the second killed by the harness (its
        // message wrapped by the terminal), the third an ordinary exit 1.
        let log = "mini-swe-agent (step 1, $0.01):\n```bash\nsleep 999\n```\n\nUser:\n\
            The last command <command>sleep 999</command> timed out and has been \nkilled.\n\
            The output of the command was:\n <output>\npartial\n</output>\n\
            Please try another command and make sure to avoid those requiring interactive input.\n\
            mini-swe-agent (step 2, $0.02):\n```bash\nsleep 999\n```\n\nUser:\n\
            The last command <command>sleep 999</command> timed out and has been killed.\n\
            The output of the command was:\n <output>\n\n</output>\n\
            mini-swe-agent (step 3, $0.03):\n```bash\nfalse\n```\n\nUser:\n\
            <returncode>1</returncode>\n<output>\n</output>\n";
        let calls = results(log);
        assert_eq!(calls.len(), 3);
        let first = calls[0].1.as_ref().unwrap();
        assert!(first.is_error);
        assert!(first
            .text
            .starts_with("The last command <command>sleep 999</command>"));
        assert!(first.text.ends_with("partial\n</output>"));
        assert!(!first.text.contains("[exit code:"));
        assert!(calls[1].1.as_ref().unwrap().is_error);
        assert_eq!(
            calls[2].1,
            Some(ReadResult {
                text: "[exit code: 1]".to_owned(),
                is_error: false
            })
        );
        // A thought that only mentions a timeout is not one.
        assert!(!is_timeout(
            "THOUGHT: the last command timed out and has been killed."
        ));
    }
}
