//! The human-readable output of `codex exec` (Codex CLI 0.2x), as a
//! terminal capture keeps it (Terminal-Bench's tmux/asciinema logs): install
//! noise, the `codex exec …` command line, a banner (`OpenAI Codex v0.23.0`,
//! `model: o4-mini`, `workdir: /app`), `User instructions:`, then records,
//! each a line starting `[<ISO time>] `:
//!
//! ```text
//! [2025-08-24T07:09:48] exec bash -lc 'ls -1 .' in /app           a shell call starts
//! [2025-08-24T07:09:48] bash -lc 'ls -1 .' succeeded in 385ms:     … and ends (exit 0), output follows
//! [2025-09-03T04:57:49] update_plan exited -1 in 0ms:               … or ends with its exit code
//! [2025-08-24T21:50:31] apply_patch auto_approved=true:            a file edit (the patch follows)
//! [2025-08-24T21:50:31] apply_patch(auto_approved=true) exited 0 in 3ms:
//! [TS] codex | thinking | tokens used: N | turn diff:               model text and bookkeeping
//! ```
//!
//! A heredoc command spans lines, so a call's start and end are matched
//! separately: the start is everything from `exec ` to ` in <dir>`; the end
//! is the first line of a record ending `succeeded in Nms:` or
//! `exited N in Nms:`. `codex exec` runs one call at a time, so an end
//! answers the oldest open call. Calls are named `shell` (as in a rollout)
//! and `apply_patch`; there are no call ids.

use std::collections::VecDeque;
use std::sync::OnceLock;

use regex::Regex;

use super::session::{command_arguments, iso_ms, ReadCall, ReadEvent, ReadResult, ReadSession};
use super::shell::add_exit_marker;

/// Terminal escapes (colours, cursor moves, bracketed paste) and carriage returns.
pub(crate) fn strip_ansi(text: &str) -> String {
    static ANSI: OnceLock<Regex> = OnceLock::new();
    let ansi = ANSI.get_or_init(|| {
        Regex::new(r"\x1b\[[0-9;?]*[a-zA-Z]|\x1b[()][0-9A-Za-z]|\x1b[=>]|\r").expect("valid")
    });
    ansi.replace_all(text, "").into_owned()
}

fn record_start() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(r"^\[(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z?)\] (.*)$").expect("valid")
    })
}

fn end_line() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| Regex::new(r"(?:succeeded|exited (-?\d+)) in \d+ms:$").expect("valid"))
}

pub(crate) fn looks_like(text: &str) -> bool {
    let text = strip_ansi(text);
    text.contains("OpenAI Codex v") && text.contains("] User instructions:")
}

pub(crate) fn read(raw: &str) -> Result<ReadSession, String> {
    let text = strip_ansi(raw);
    if !text.contains("OpenAI Codex v") {
        return Err("not a `codex exec` log: no \"OpenAI Codex v…\" banner".to_owned());
    }
    let banner = |key: &str| {
        text.lines()
            .find_map(|l| l.strip_prefix(key))
            .map(|v| v.trim().to_owned())
    };
    let mut read = ReadSession {
        model: banner("model: "),
        cwd: banner("workdir: "),
        exit_codes: true,
        ..Default::default()
    };
    // Records: (1-based line, time, first line, following lines).
    let mut records: Vec<(u64, String, String, Vec<&str>)> = Vec::new();
    for (index, line) in text.lines().enumerate() {
        if let Some(c) = record_start().captures(line) {
            records.push((
                index as u64 + 1,
                c[1].to_owned(),
                c[2].to_owned(),
                Vec::new(),
            ));
        } else if let Some(last) = records.last_mut() {
            last.3.push(line);
        }
    }
    let mut open: VecDeque<usize> = VecDeque::new();
    for (line, time, first, rest) in &records {
        let time = iso_ms(Some(&serde_json::Value::String(time.clone())));
        if let Some(after) = first.strip_prefix("exec ") {
            // The command runs to ` in <dir>` at the end of one of its lines.
            let mut command = after.to_owned();
            for more in rest {
                command.push('\n');
                command.push_str(more);
            }
            let command = match command.rfind(" in ") {
                Some(at) if !command[at + 4..].contains(' ') => command[..at].to_owned(),
                _ => command,
            };
            open.push_back(read.events.len());
            read.events.push(ReadEvent::Call(ReadCall {
                tool: "shell".to_owned(),
                arguments_json: command_arguments(&command),
                line: Some(*line),
                time,
                ..Default::default()
            }));
        } else if first.starts_with("apply_patch auto_approved=") {
            open.push_back(read.events.len());
            read.events.push(ReadEvent::Call(ReadCall {
                tool: "apply_patch".to_owned(),
                arguments_json: serde_json::json!({ "input": rest.join("\n") }).to_string(),
                line: Some(*line),
                time,
                ..Default::default()
            }));
        } else if ["codex", "thinking", "turn diff:", "User instructions:"]
            .contains(&first.as_str())
            || first.starts_with("tokens used")
        {
            continue;
        } else {
            // An end: the first of the record's lines that ends like one.
            let lines: Vec<&str> = std::iter::once(first.as_str())
                .chain(rest.iter().copied())
                .collect();
            let Some((at, code)) = lines.iter().enumerate().find_map(|(i, l)| {
                end_line().captures(l).map(|c| {
                    (
                        i,
                        c.get(1).map_or(Some(0), |n| n.as_str().parse::<i64>().ok()),
                    )
                })
            }) else {
                continue;
            };
            let Some(call) = open.pop_front() else {
                read.note(
                    Some(*line),
                    None,
                    "a command's end with no start before it".to_owned(),
                );
                continue;
            };
            let mut output = lines[at + 1..].join("\n");
            if let Some(code) = code {
                add_exit_marker(&mut output, code);
            }
            if let ReadEvent::Call(call) = &mut read.events[call] {
                call.end_time = time;
                call.result = Some(ReadResult {
                    text: output,
                    is_error: false,
                });
            }
        }
    }
    Ok(read)
}
