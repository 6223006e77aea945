//! Every session in `../shared/wild/` (real agent runs from public
//! repositories, next to the repository; never copied into it) is read
//! with `--format auto`: no input errors, and the calls of each file and
//! session are the counts `manifest.json` gives. Skipped, saying so, when
//! the folder is absent (a fresh clone has none). `TOOLGUARD_WILD` names
//! another place for it (a worktree's `../shared` is elsewhere).

use super::*;
use std::path::Path;
use std::path::PathBuf;
use toolguard_core::config::Config;

fn wild() -> Option<PathBuf> {
    let dir = match std::env::var_os("TOOLGUARD_WILD") {
        Some(dir) => PathBuf::from(dir),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/wild"),
    };
    if dir.join("manifest.json").is_file() {
        Some(dir)
    } else {
        eprintln!(
            "skipped: {} is absent (the real sessions live beside the repository, not in it)",
            dir.display()
        );
        None
    }
}

#[test]
fn every_wild_session_reads_without_errors_and_with_the_manifest_counts() {
    let Some(dir) = wild() else { return };
    let manifest: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("manifest.json")).unwrap()).unwrap();
    let mut auditor = Auditor::new(
        &Config::with_loops_by_default(&toolguard_core::config::ConfigValue::Undefined).unwrap(),
    )
    .unwrap();
    let mut problems = Vec::new();
    let mut sessions = 0;
    for entry in manifest.as_array().unwrap() {
        let file = entry["file"].as_str().unwrap();
        let reports = auditor.audit_path(&dir.join(file), Format::Auto, &mut |_, _| {});
        sessions += reports.len();
        for r in &reports {
            if r.error_count > 0 {
                problems.push(format!(
                    "{file} #{}: {} errors, first {:?}",
                    r.session,
                    r.error_count,
                    &r.errors[..r.errors.len().min(3)]
                ));
            }
        }
        let calls: u64 = reports.iter().map(|r| r.calls).sum();
        let mut want = entry["calls"].as_u64().unwrap();
        // The manifest counts a terminal log's `<returncode>` blocks; a command
        // the harness killed at its timeout has none, only its timeout message
        // (line start, after the escapes), and is a call too.
        if entry["format"]
            .as_str()
            .is_some_and(|f| f.starts_with("mini-swe-agent terminal log"))
        {
            let text = std::fs::read_to_string(dir.join(file)).unwrap();
            want += codex_log::strip_ansi(&text)
                .matches("\nThe last command <command>")
                .count() as u64;
        }
        if calls != want {
            problems.push(format!(
                "{file}: {calls} calls, manifest says {want} ({})",
                reports[0].format.as_str()
            ));
        }
        if let Some(per) = entry.get("per_session").and_then(|p| p.as_array()) {
            let got: Vec<u64> = reports.iter().map(|r| r.calls).collect();
            let want: Vec<u64> = per.iter().map(|p| p[1].as_u64().unwrap()).collect();
            if got != want {
                problems.push(format!(
                    "{file}: per session {got:?}, manifest says {want:?}"
                ));
            }
        }
        // Ordinals name the calls: each once, within 1..=calls (Claude Code
        // calls never answered are counted, not listed).
        for r in &reports {
            let ordinals: Vec<u64> = r.timeline.calls.iter().map(|c| c.ordinal).collect();
            let mut sorted = ordinals.clone();
            sorted.sort_unstable();
            sorted.dedup();
            let listed = r.calls
                - if r.format == Format::ClaudeCodeMd {
                    r.unanswered
                } else {
                    0
                };
            if sorted.len() as u64 != listed || sorted.last().is_some_and(|l| *l > r.calls) {
                problems.push(format!(
                    "{file} #{}: timeline ordinals {:?}…",
                    r.session,
                    &ordinals[..ordinals.len().min(8)]
                ));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    assert_eq!(sessions, 154);
}
