//! The OpenCode and Gemini CLI readers on sessions the real CLIs wrote
//! (tests/fixtures/opencode, tests/fixtures/gemini-cli: recorded against a
//! scripted local model by scripts/record/record-opencode-fixtures.mjs and
//! record-gemini-fixtures.mjs).

use super::*;
use std::path::{Path, PathBuf};
use toolguard_core::config::Config;

fn fixture(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(path)
}

fn audit(path: &str, format: Format) -> SessionReport {
    let config =
        Config::with_loops_by_default(&toolguard_core::config::ConfigValue::Undefined).unwrap();
    let mut auditor = Auditor::new(&config).unwrap();
    super::tests::one(auditor.audit_path(&fixture(path), format, &mut |_, _| {}))
}

/// `(ordinal, loop kind)` of each loop alarm, `ordinal` of each failure.
fn findings(r: &SessionReport) -> (Vec<(u64, &str)>, Vec<u64>) {
    (
        r.loops.iter().map(|l| (l.site.ordinal, l.kind)).collect(),
        r.failures.iter().map(|f| f.site.ordinal).collect(),
    )
}

/// Each call's (tool, the end of what the engine read, concurrent).
fn calls(read: &ReadSession) -> Vec<(String, String, bool)> {
    read.events
        .iter()
        .filter_map(|e| match e {
            ReadEvent::Call(c) => Some((
                c.tool.clone(),
                c.result
                    .as_ref()
                    .map(|r| {
                        let t = r.text.trim_end();
                        format!(
                            "{}{}",
                            &t[t.len().saturating_sub(24)..],
                            if r.is_error { " (error)" } else { "" }
                        )
                    })
                    .unwrap_or_default(),
                c.concurrent,
            )),
            _ => None,
        })
        .collect()
}

fn check(dir: &str, ext: &str, format: Format, shell: &str, model: &str) {
    let path = |name: &str| format!("{dir}/{name}.{ext}");
    for name in ["normal", "silent", "stuck", "toolerror"] {
        assert_eq!(
            detect_path(&fixture(&path(name)), 1 << 20).unwrap(),
            Some(format),
            "{name}"
        );
        // Forced by name, the same reader runs.
        let forced = audit(&path(name), format);
        assert_eq!((forced.format, forced.error_count), (format, 0), "{name}");
    }
    let normal = audit(&path("normal"), Format::Auto);
    assert_eq!(normal.errors, vec![]);
    assert_eq!(normal.model.as_deref(), Some(model));
    assert!(normal.session_id.is_some());
    assert_eq!((normal.calls, normal.unanswered), (3, 0));
    assert_eq!(findings(&normal), (vec![], vec![]));

    // `python3 -c 'import nope' 2>&1 | tail -1`: exit 0, the error shown.
    let silent = audit(&path("silent"), Format::Auto);
    assert_eq!((silent.calls, silent.unanswered), (1, 0));
    let (silent_loops, silent_failures) = findings(&silent);
    assert_eq!(silent_loops, vec![]);
    assert!(!silent_failures.is_empty() && silent_failures.iter().all(|o| *o == 1));

    // The same failing command four times: one loop, alarmed at the third.
    let stuck = audit(&path("stuck"), Format::Auto);
    assert_eq!((stuck.calls, stuck.unanswered), (4, 0));
    assert_eq!(findings(&stuck).0, vec![(3, "repeat")]);

    let text = std::fs::read_to_string(fixture(&path("toolerror"))).unwrap();
    let read = match format {
        Format::OpenCode => read_value(format, &serde_json::from_str(&text).unwrap()).unwrap(),
        _ => read_text(format, &text).unwrap(),
    };
    let got = calls(&read);
    // A missing file is the tool's own error; `exit 3` carries the exit
    // marker and was asked for in the same model turn as `cat`.
    assert!(got[0].1.ends_with("(error)"), "{got:?}");
    assert_eq!(
        got[got.len() - 2..].to_vec(),
        vec![
            (
                shell.to_owned(),
                "first line\nsecond line".to_owned(),
                false
            ),
            (shell.to_owned(), "[exit code: 3]".to_owned(), true),
        ]
    );
}

#[test]
fn opencode_exports_recorded_by_the_real_cli() {
    check(
        "opencode",
        "json",
        Format::OpenCode,
        "bash",
        "scripted-model",
    );
}

#[test]
fn gemini_cli_recordings_recorded_by_the_real_cli() {
    check(
        "gemini-cli",
        "jsonl",
        Format::GeminiCli,
        "run_shell_command",
        "gemini-2.5-flash",
    );
}
