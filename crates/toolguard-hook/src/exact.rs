//! Exact mode in the hook (docs/exact-mode.md): `PreToolUse` answers the
//! shell command rewritten to record its stages' exit statuses to a side
//! file (`hookSpecificOutput.updatedInput`); `PostToolUse` /
//! `PostToolUseFailure` read and delete that file and hand the statuses to
//! the engine. The rewrite and the meaning of the statuses are the core's
//! (`toolguard_core::shell::exact`); this is only where they meet the host.

use std::path::{Path, PathBuf};

use serde_json::Value;
use toolguard_core::engine::{scans_with, shell_tool_patterns};
use toolguard_core::shell::exact::{self, ExitStatuses};

use crate::event::{field, text_field, Event};

/// The side file of one call: `ps-<tool_use_id>.tmp` in the state directory
/// (the `.tmp` name is swept with the state files when a call never came
/// back). `None` for an id that is not a plain token (Claude Code's are
/// `toolu_…`): no rewrite then.
pub fn side_file(dir: &Path, event: &Event) -> Option<PathBuf> {
    let id = text_field(event, "tool_use_id")?;
    let plain = id.len() <= 128
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
    plain.then(|| dir.join(format!("ps-{id}.tmp")))
}

/// PreToolUse: the tool input with its command rewritten, when exact mode
/// is on, the host is Claude Code (Codex's PreToolUse cannot change the
/// input), the tool is a shell tool of the config and the core rewrites the
/// command. `None`: the call runs as written.
pub fn updated_input(
    config: &toolguard_core::config::Config,
    tool: &str,
    event: &Event,
    dir: &Path,
) -> Option<Value> {
    if !config.exact_mode
        || matches!(field(event, "turn_id"), Some(Value::String(_)))
        || !scans_with(&shell_tool_patterns(&config.loud_failure.shell_tools), tool)
        || !exact::rewrites_tool(tool)
    {
        return None;
    }
    let Some(Value::Object(mut input)) = field(event, "tool_input") else {
        return None;
    };
    let Some(Value::String(command)) = input.get("command") else {
        return None;
    };
    let file = side_file(dir, event)?;
    let rewritten = exact::rewrite(command, file.to_str()?)?;
    // A stale file of the same call id would read as this call's.
    let _ = std::fs::remove_file(&file);
    input.insert("command".into(), Value::String(rewritten));
    Some(Value::Object(input))
}

/// PostToolUse / PostToolUseFailure: the call's recorded statuses, the side
/// file deleted. Missing, too large or garbled: `None` (unknown, never
/// "passed"); nothing here fails the call.
pub fn take_statuses(dir: &Path, event: &Event) -> Option<ExitStatuses> {
    exact::take_side_file(&side_file(dir, event)?)
}

/// The call's arguments JSON with the recorder taken out of `command`, when
/// the host reports the rewritten input: the engine models, and the loop
/// detectors compare, the command the agent wrote. `None`: not rewritten.
pub fn original_arguments(raw_arguments: &str, event: &Event) -> Option<String> {
    let Some(Value::Object(input)) = field(event, "tool_input") else {
        return None;
    };
    let Some(Value::String(command)) = input.get("command") else {
        return None;
    };
    let original = exact::strip(command)?;
    // The recorder's text as the host escaped it inside the JSON string.
    let tail = serde_json::to_string(&command[original.len()..]).ok()?;
    let tail = &tail[1..tail.len() - 1];
    (raw_arguments.matches(tail).count() == 1).then(|| raw_arguments.replacen(tail, "", 1))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn event(json: &str) -> Event {
        serde_json::from_str(json).unwrap()
    }

    #[test]
    fn side_file_names_only_plain_ids() {
        let dir = Path::new("/s");
        let e = event(r#"{"tool_use_id":"toolu_01AbC-9"}"#);
        assert_eq!(
            side_file(dir, &e),
            Some(PathBuf::from("/s/ps-toolu_01AbC-9.tmp"))
        );
        for bad in [
            r#"{"tool_use_id":"../x"}"#,
            r#"{"tool_use_id":""}"#,
            r#"{}"#,
        ] {
            assert_eq!(side_file(dir, &event(bad)), None, "{bad}");
        }
    }

    #[test]
    fn the_rewrite_round_trips_through_the_hosts_json() {
        let dir = std::env::temp_dir();
        let mut config = toolguard_core::config::Config::default();
        let e = event(
            r#"{"tool_use_id":"toolu_1","tool_input":{"command":"make 2>&1 | tail -1","description":"build"}}"#,
        );
        assert_eq!(
            updated_input(&config, "Bash", &e, &dir),
            None,
            "off by default"
        );
        config.exact_mode = true;
        assert_eq!(
            updated_input(&config, "Read", &e, &dir),
            None,
            "shell tools only"
        );
        let input = updated_input(&config, "Bash", &e, &dir).unwrap();
        assert_eq!(input["description"], "build");
        let command = input["command"].as_str().unwrap();
        assert!(
            command.starts_with("make 2>&1 | tail -1\n__tg_rc="),
            "{command}"
        );
        // The host reports the rewritten input after the call: the agent's arguments back.
        let raw = serde_json::to_string(&input).unwrap();
        let after = event(&format!(
            r#"{{"tool_use_id":"toolu_1","tool_input":{raw}}}"#
        ));
        let back = original_arguments(&raw, &after).unwrap();
        let back: Value = serde_json::from_str(&back).unwrap();
        assert_eq!(back["command"], "make 2>&1 | tail -1");
        // Codex cannot rewrite.
        let codex = event(r#"{"turn_id":"t","tool_use_id":"c1","tool_input":{"command":"a | b"}}"#);
        assert_eq!(updated_input(&config, "Bash", &codex, &dir), None);
    }

    #[test]
    fn side_files_are_read_once_and_garbled_ones_are_unknown() {
        let dir = std::env::temp_dir().join(format!("tg-hook-exact-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let e = event(r#"{"tool_use_id":"toolu_2"}"#);
        let file = side_file(&dir, &e).unwrap();
        std::fs::write(&file, "0 3 0\n").unwrap();
        assert_eq!(
            take_statuses(&dir, &e),
            Some(ExitStatuses {
                status: 0,
                stages: vec![3, 0]
            })
        );
        assert!(!file.exists(), "deleted");
        assert_eq!(take_statuses(&dir, &e), None, "missing: unknown");
        std::fs::write(&file, "garbage").unwrap();
        assert_eq!(take_statuses(&dir, &e), None, "garbled: unknown");
        assert!(!file.exists());
    }
}
