//! Tools that are not shells, classified by their names and arguments into
//! the same effects: one pseudo-command named after the tool.

use serde_json::Value;

use super::harness::{self, Rule};
use super::{CallModel, Command, Effect, LineRange, PathRead};

const PATH_KEYS: &[&str] = &[
    "path",
    "file_path",
    "filePath",
    "file",
    "filename",
    "target_file",
    "notebook_path",
    "absolute_path",
    "relative_path",
    "uri",
];

fn path_of(args: &Value) -> Option<String> {
    PATH_KEYS
        .iter()
        .find_map(|k| args.get(*k).and_then(Value::as_str))
        .map(str::to_owned)
}

/// The path of a tool whose `command` argument is the tool's own command
/// line (SWE-agent: `create repro.py`): the word after the tool's name,
/// unless it is a line range (`edit 1:5` edits the open file); for an
/// editor the word after its sub-command (`str_replace_editor create a.py`).
fn command_operand(short: &str, args: &Value) -> Option<String> {
    let mut words = args.get("command")?.as_str()?.split_whitespace();
    (words.next()? == short).then_some(())?;
    if matches!(harness::table().rule(short), Some(Rule::ByCommand { .. })) {
        words.next()?;
    }
    let operand = words.next()?;
    let range = operand.bytes().all(|b| b.is_ascii_digit() || b == b':');
    (!range).then(|| operand.to_owned())
}

fn num(args: &Value, keys: &[&str]) -> Option<u64> {
    keys.iter().find_map(|k| match args.get(*k)? {
        Value::Number(n) => n.as_u64(),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    })
}

/// The range a read tool's arguments name: `view_range: [a, b]`,
/// `offset`/`limit` (Claude Code's Read: 1-based offset), `start_line`/`end_line`.
fn range_of(args: &Value) -> Option<LineRange> {
    if let Some([a, b]) = args
        .get("view_range")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
    {
        let start = a.as_u64()?;
        let end = b
            .as_i64()
            .map_or(u64::MAX, |e| if e < 0 { u64::MAX } else { e as u64 });
        return Some(LineRange::Lines { start, end });
    }
    let start = num(args, &["start_line", "startLine", "line_start"]);
    let end = num(args, &["end_line", "endLine", "line_end"]);
    if let (Some(start), Some(end)) = (start, end) {
        return Some(LineRange::Lines { start, end });
    }
    let offset = num(args, &["offset"]);
    let limit = num(args, &["limit"]);
    match (offset, limit) {
        (Some(o), Some(l)) => Some(LineRange::Lines {
            start: o.max(1),
            end: o.max(1).saturating_add(l.saturating_sub(1)),
        }),
        (Some(o), None) => Some(LineRange::From(o.max(1))),
        (None, Some(l)) => Some(LineRange::First(l)),
        (None, None) => start.map(LineRange::From),
    }
}

/// Paths an `apply_patch` text touches (`*** Update File: p`, `+++ b/p`).
fn patch_paths(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in text.lines().take(10_000) {
        let p = [
            "*** Update File: ",
            "*** Add File: ",
            "*** Delete File: ",
            "*** Move to: ",
            "+++ b/",
            "+++ ",
        ]
        .iter()
        .find_map(|pre| line.strip_prefix(pre));
        if let Some(p) = p
            .map(str::trim)
            .filter(|p| !p.is_empty() && *p != "/dev/null")
        {
            if !out.iter().any(|o| o == p) {
                out.push(p.to_owned());
            }
        }
    }
    out
}

fn pseudo(name: &str, effect: Effect) -> Command {
    Command::new(name.to_owned(), effect)
}

/// The function a code cell that is one call names (`open_file('/a.py')`
/// → `open_file`), lowercased.
fn skill_call(args: &Value) -> Option<String> {
    let code = args.get("code").and_then(Value::as_str)?.trim();
    let (name, _) = code.split_once('(')?;
    let name = name.trim();
    (!name.is_empty()
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
        && code.ends_with(')'))
    .then(|| name.to_ascii_lowercase())
}

/// The sub-command an editor's arguments name: its `command` (or, with no
/// `command` member, `action`) argument; in SWE-agent's command form
/// (`{"command": "str_replace_editor view /a.py"}`) the word after the
/// tool's name.
fn sub_command<'a>(short: &str, args: &'a Value) -> Option<&'a str> {
    let sub = match args.get("command") {
        Some(v) => v.as_str()?,
        None => args.get("action")?.as_str()?,
    };
    let mut words = sub.split_whitespace();
    if words.next() == Some(short) {
        return words.next();
    }
    Some(sub)
}

/// The effect of a tool by its name (lowercased, after an MCP prefix
/// `mcp__server__`) and, for editors, its `command` argument: the harness
/// tool model (`rules/harness-tools.json`) decides.
fn effect_of(short: &str, args: &Value) -> Option<Effect> {
    let table = harness::table();
    let Some(rule) = table.rule(short) else {
        return table.prefixed(short);
    };
    match rule {
        // OpenHands' IPython tool runs one agent-skill call (`open_file(…)`,
        // `edit_file_by_replace(…)`): the skill says what the call does.
        Rule::ByCode => skill_call(args).and_then(|skill| effect_of(&skill, &Value::Null)),
        rule => harness::by_command(rule, sub_command(short, args)),
    }
}

/// The model of a non-shell tool call.
pub(super) fn classify_tool(name: &str, arguments_json: &str) -> CallModel {
    let lower = name.to_ascii_lowercase();
    let short = lower.rsplit("__").next().unwrap_or(&lower);
    let args: Value = serde_json::from_str(arguments_json).unwrap_or(Value::Null);
    let mut model = CallModel::default();
    let Some(effect) = effect_of(short, &args) else {
        return model;
    };
    let mut cmd = pseudo(name, effect);
    let path = path_of(&args);
    match effect {
        Effect::Read => {
            if let Some(p) = path {
                cmd.reads.push(PathRead {
                    path: p,
                    range: range_of(&args),
                });
            } else if let Some(paths) = args.get("paths").and_then(Value::as_array) {
                for p in paths.iter().filter_map(Value::as_str) {
                    cmd.reads.push(PathRead {
                        path: p.to_owned(),
                        range: None,
                    });
                }
            }
        }
        Effect::Write => {
            // SWE-agent's command form: `{"command": "create repro.py"}`.
            let path = path.or_else(|| command_operand(short, &args));
            if let Some(p) = path {
                cmd.writes.push(p);
            }
            if matches!(short, "apply_patch" | "applypatch") {
                let text = ["input", "patch", "diff", "content"]
                    .iter()
                    .find_map(|k| args.get(*k).and_then(Value::as_str))
                    .or_else(|| args.as_str())
                    .map(str::to_owned)
                    .unwrap_or_else(|| arguments_json.to_owned());
                for p in patch_paths(&text) {
                    if !cmd.writes.contains(&p) {
                        cmd.writes.push(p);
                    }
                }
            }
            for key in ["destination", "new_path", "target"] {
                if let Some(p) = args.get(key).and_then(Value::as_str) {
                    cmd.writes.push(p.to_owned());
                }
            }
        }
        Effect::Search => {
            cmd.answer_exits = vec![1];
        }
        Effect::Network => {
            cmd.url = args.get("url").and_then(Value::as_str).map(str::to_owned);
        }
        _ => {}
    }
    model.commands.push(cmd);
    model.reporter = Some(0);
    model.finish();
    model
}
