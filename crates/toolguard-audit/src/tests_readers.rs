//! The Claude Code, Codex and OTLP readers on the recorded fixtures
//! (scripts/record/record-audit-fixtures.mjs, scripts/record/record-otlp-fixture.mjs), on
//! malformed and truncated input, format detection, and the line limit.

use super::*;
use crate::replay::rfc3339_ms;
use std::io::{self, Read};
use std::path::Path;
use std::path::PathBuf;
use toolguard_core::config::Config;

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../__test__/audit/fixtures")
}

/// The one file under `dir` whose path ends with `suffix`.
fn find(dir: &str, suffix: &str) -> PathBuf {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(&path, out);
            } else {
                out.push(path);
            }
        }
    }
    let mut all = Vec::new();
    walk(&fixtures().join(dir), &mut all);
    let found: Vec<PathBuf> = all
        .into_iter()
        .filter(|p| p.to_string_lossy().ends_with(suffix))
        .collect();
    assert_eq!(found.len(), 1, "{dir} *{suffix}: {found:?}");
    found.into_iter().next().unwrap()
}

fn audit_with(
    text: &[u8],
    format: Format,
    config: &Config,
    options: AuditOptions,
) -> SessionReport {
    let mut auditor = Auditor::new(config).unwrap();
    auditor.set_options(options);
    super::tests::one(auditor.audit_reader("t.jsonl".into(), text, format, &mut |_| {}))
}

fn audit(text: &[u8]) -> SessionReport {
    audit_with(
        text,
        Format::Auto,
        &Config::default(),
        AuditOptions::default(),
    )
}

fn reminders(r: &SessionReport) -> Vec<(String, u64)> {
    r.reminders
        .iter()
        .map(|x| (x.site.call_id.clone().unwrap_or_default(), x.count))
        .collect()
}

fn failures(r: &SessionReport) -> Vec<(String, String)> {
    r.failures
        .iter()
        .map(|x| {
            (
                x.site.call_id.clone().unwrap_or_default(),
                x.rule_id.clone(),
            )
        })
        .collect()
}

fn pairs(items: &[(&str, u64)]) -> Vec<(String, u64)> {
    items.iter().map(|(a, n)| ((*a).to_owned(), *n)).collect()
}

/// `text` without the lines containing `needle`.
fn without(text: &[u8], needle: &str) -> Vec<u8> {
    let text = std::str::from_utf8(text).unwrap();
    let kept: Vec<&str> = text.lines().filter(|l| !l.contains(needle)).collect();
    (kept.join("\n") + "\n").into_bytes()
}

/// A `when: always` rule: it reads output that already shows failure.
fn always_rule() -> Config {
    Config::from_json(r#"{"loudFailure":{"rules":[{"id":"value-error","pattern":"ValueError: bad","when":"always","action":"error","message":"a ValueError"}]}}"#).unwrap()
}

/// `text` audited with [`always_rule`].
fn audit_always(text: &[u8]) -> SessionReport {
    audit_with(text, Format::Auto, &always_rule(), AuditOptions::default())
}

/// The always rule's findings: (call id, summary, excerpt).
fn value_errors(r: &SessionReport) -> Vec<(String, String, String)> {
    r.failures
        .iter()
        .filter(|f| f.rule_id == "value-error")
        .map(|f| {
            (
                f.site.call_id.clone().unwrap_or_default(),
                f.summary.clone(),
                f.excerpt.clone(),
            )
        })
        .collect()
}

#[test]
fn claude_code_transcript_recorded_by_the_real_cli() {
    let text = std::fs::read(find("claude-code", "-e4a8f21ff3d1.jsonl")).unwrap();
    let report = audit(&text);
    assert_eq!(report.format, Format::ClaudeCode);
    assert_eq!(
        report.session_id.as_deref(),
        Some("84d8da81-6926-42a4-984c-e4a8f21ff3d1")
    );
    assert!(report.cwd.as_deref().unwrap().ends_with("/project"));
    assert_eq!(report.calls, 10);
    assert_eq!(report.unanswered, 0);
    assert!(report.errors.is_empty(), "{:?}", report.errors);
    // `echo hi` ×3 is a loop; Bash is scanned by default in this format.
    assert_eq!(reminders(&report), pairs(&[("toolu_a2_0", 3)]));
    assert_eq!(report.reminders[0].command.as_deref(), Some("echo hi"));
    assert_eq!(report.reminders[0].site.turn, Some(1));
    // The exit-0 traceback is a silent failure; the exit-3 one was already shown.
    assert_eq!(
        failures(&report),
        vec![("toolu_a3_0".to_owned(), "python-traceback".to_owned())]
    );

    // The second prompt (`again`) reset the chain: `echo two` ×3 across it is no loop.
    let no_prompt = without(&text, r#""content":"again""#);
    assert_eq!(
        reminders(&audit(&no_prompt)),
        pairs(&[("toolu_a2_0", 3), ("toolu_b1_0", 3)])
    );
}

#[test]
fn claude_code_non_zero_exit_is_shown_as_the_dsh_marker() {
    let text = std::fs::read(find("claude-code", "-e4a8f21ff3d1.jsonl")).unwrap();
    let report = audit_always(&text);
    let got = value_errors(&report);
    // Exit 3 (`is_error: true`, `Exit code 3`) is a command that ran: scanned, and the
    // header does not claim it exited 0.
    assert_eq!(got.len(), 2, "{got:?}");
    assert_eq!(got[1].0, "toolu_a4_0");
    let exit3 = report
        .failures
        .iter()
        .find(|f| f.site.call_id.as_deref() == Some("toolu_a4_0"))
        .unwrap();
    assert_eq!(
        exit3.line, 3,
        "the output without Claude Code's `Exit code 3` line"
    );
}

#[test]
fn claude_code_subagents_in_both_layouts() {
    // Current layout: <session>/subagents/agent-<id>.jsonl. The older layout
    // (<slug>/agent-<id>.jsonl) holds the same sidechain lines: the reader
    // keys the chain on the lines' agentId, never on the path.
    let text = std::fs::read(find("claude-code", "agent-a84ba710d36bfa1db.jsonl")).unwrap();
    let report = audit(&text);
    assert_eq!(report.format, Format::ClaudeCode);
    assert_eq!(report.agents, vec!["a84ba710d36bfa1db"]);
    assert_eq!(reminders(&report), pairs(&[("toolu_sub2", 3)]));
    // Sidechain lines inside the main transcript (the oldest layout) get their own chain.
    let main = std::fs::read(find("claude-code", "-e4a8f21ff3d1.jsonl")).unwrap();
    let mut mixed = main.clone();
    mixed.extend_from_slice(&text);
    let report = audit(&mixed);
    assert_eq!(report.agents.len(), 2);
    assert!(reminders(&report).contains(&("toolu_sub2".to_owned(), 3)));
}

#[test]
fn codex_rollout_recorded_by_the_real_cli() {
    let text = std::fs::read(find("codex", ".jsonl")).unwrap();
    let report = audit(&text);
    assert_eq!(report.format, Format::Codex);
    assert_eq!(
        report.session_id.as_deref(),
        Some("01a231d4-87d0-7be0-a891-aea47a0e61ad")
    );
    assert_eq!((report.calls, report.unanswered), (9, 0));
    assert!(report.errors.is_empty(), "{:?}", report.errors);
    assert_eq!(reminders(&report), pairs(&[("call_a2_0", 3)]));
    assert_eq!(
        failures(&report),
        vec![("call_a3_0".to_owned(), "python-traceback".to_owned())]
    );
    // The exit code came from the text header: exit 3 is shown, exit 0 is not.
    let summaries = value_errors(&audit_always(&text));
    assert_eq!(summaries.len(), 2);
    assert_ne!(
        summaries[0].1, summaries[1].1,
        "exit 0 and exit 3 must read differently"
    );
    // The second prompt reset the chain.
    let no_prompt = without(&text, r#""text":"again""#);
    assert_eq!(
        reminders(&audit(&no_prompt)),
        pairs(&[("call_a2_0", 3), ("call_b1_0", 3)])
    );
}

#[test]
fn codex_output_forms_and_tool_kinds() {
    let line = |payload: serde_json::Value, kind: &str| {
        serde_json::json!({"timestamp":"2025-10-01T12:00:00.000Z","type":kind,"payload":payload})
            .to_string()
    };
    let tb = "Traceback (most recent call last):\n  File \"x.py\", line 1\nValueError: bad\n";
    let text = [
        line(serde_json::json!({"id":"s1","cwd":"/w"}), "session_meta"),
        // `shell` with the structured JSON output: exit 0, then exit 1.
        line(serde_json::json!({"type":"function_call","name":"shell","arguments":"{\"command\":[\"bash\",\"-lc\",\"python x.py\"]}","call_id":"a"}), "response_item"),
        line(serde_json::json!({"type":"function_call_output","call_id":"a","output":serde_json::json!({"output":tb,"metadata":{"exit_code":0,"duration_seconds":0.1}}).to_string()}), "response_item"),
        line(serde_json::json!({"type":"function_call","name":"shell","arguments":"{\"command\":[\"bash\",\"-lc\",\"python y.py\"]}","call_id":"b"}), "response_item"),
        line(serde_json::json!({"type":"function_call_output","call_id":"b","output":serde_json::json!({"output":tb,"metadata":{"exit_code":1}}).to_string()}), "response_item"),
        // `shell_command`'s text form: `Exit code: N`.
        line(serde_json::json!({"type":"function_call","name":"shell_command","arguments":"{\"command\":\"python z.py\"}","call_id":"c"}), "response_item"),
        line(serde_json::json!({"type":"function_call_output","call_id":"c","output":format!("Exit code: 2\nWall time: 0.1 seconds\nOutput:\n{tb}")}), "response_item"),
        // local_shell_call, its exit code from the structured event.
        line(serde_json::json!({"type":"local_shell_call","call_id":"d","status":"completed","action":{"type":"exec","command":["bash","-lc","python w.py"]}}), "response_item"),
        line(serde_json::json!({"type":"exec_command_end","call_id":"d","exit_code":0}), "event_msg"),
        line(serde_json::json!({"type":"function_call_output","call_id":"d","output":tb}), "response_item"),
        // A custom (free-form) tool: not a shell tool, only the chain advances.
        line(serde_json::json!({"type":"custom_tool_call","name":"apply_patch","input":"*** Begin Patch\n*** End Patch\n","call_id":"e"}), "response_item"),
        line(serde_json::json!({"type":"custom_tool_call_output","call_id":"e","output":tb}), "response_item"),
        // Malformed: reported with the line, skipped.
        line(serde_json::json!({"type":"function_call","name":"shell"}), "response_item"),
        r#"{"type":"response_item"}"#.to_owned(),
    ]
    .join("\n");
    let report = audit_always(text.as_bytes());
    assert_eq!(report.format, Format::Codex);
    assert_eq!(report.calls, 5);
    let scanned = failures(&report);
    // Exit 0 (a, d): python-traceback and the always rule; exit 1/2 (b, c): the always rule only.
    assert_eq!(
        scanned,
        [
            ("a", "python-traceback"),
            ("a", "value-error"),
            ("b", "value-error"),
            ("c", "value-error"),
            ("d", "python-traceback"),
            ("d", "value-error")
        ]
        .map(|(a, b)| (a.to_owned(), b.to_owned()))
    );
    let b = report
        .failures
        .iter()
        .find(|f| f.site.call_id.as_deref() == Some("b"))
        .unwrap();
    assert_eq!(b.command.as_deref(), Some("python y.py"));
    let lines: Vec<Option<u64>> = report.errors.iter().map(|e| e.line).collect();
    assert_eq!(lines, vec![Some(13), Some(14)]);
}

#[test]
fn codex_long_command_result_comes_from_its_polls() {
    let line = |payload: serde_json::Value, kind: &str| {
        serde_json::json!({"timestamp":"2025-10-01T12:00:00.000Z","type":kind,"payload":payload})
            .to_string()
    };
    let call = |name: &str, args: serde_json::Value, id: &str| {
        line(
            serde_json::json!({"type":"function_call","name":name,"arguments":args.to_string(),"call_id":id}),
            "response_item",
        )
    };
    let out = |id: &str, header: &str, body: &str| {
        line(
            serde_json::json!({"type":"function_call_output","call_id":id,"output":format!("Chunk ID: 0c2b72\nWall time: 1.0 seconds\n{header}\nOriginal token count: 9\nOutput:\n{body}")}),
            "response_item",
        )
    };
    let tb = "Traceback (most recent call last):\n  File \"x.py\", line 1\nValueError: bad\n";
    let poll =
        |session: u64| serde_json::json!({"session_id":session,"chars":"","yield_time_ms":30000});
    let text = [
        line(serde_json::json!({"id":"s1","cwd":"/w"}), "session_meta"),
        // 1: a traceback in the first chunk; the process then exits 1 (a failure shown).
        call(
            "exec_command",
            serde_json::json!({"cmd":"python x.py"}),
            "a",
        ),
        out("a", "Process running with session ID 7", tb),
        // 2: a poll that finds it still running, 3: the poll that gets the end.
        call("write_stdin", poll(7), "p1"),
        out("p1", "Process running with session ID 7", "still going\n"),
        call("write_stdin", poll(7), "p2"),
        out("p2", "Process exited with code 1", "done\n"),
        // 4: a clean first chunk; 5: its end exits 0 with a traceback (a silent failure of 4).
        call(
            "exec_command",
            serde_json::json!({"cmd":"python y.py"}),
            "b",
        ),
        out("b", "Process running with session ID 8", "starting\n"),
        call("write_stdin", poll(8), "p3"),
        out("p3", "Process exited with code 0", tb),
        // 6: never ends in this file: its partial output is not judged.
        call(
            "exec_command",
            serde_json::json!({"cmd":"python z.py"}),
            "c",
        ),
        out("c", "Process running with session ID 9", tb),
    ]
    .join("\n");
    let report = audit(text.as_bytes());
    assert_eq!(report.calls, 6);
    assert_eq!(
        failures(&report),
        vec![("b".to_owned(), "python-traceback".to_owned())]
    );
    let b = report
        .failures
        .iter()
        .find(|f| f.site.call_id.as_deref() == Some("b"))
        .unwrap();
    assert_eq!(b.site.ordinal, 4);
    assert_eq!(b.command.as_deref(), Some("python y.py"));
    // Every call keeps its ordinal in the timeline, each listed once.
    let mut ordinals: Vec<u64> = report.timeline.calls.iter().map(|c| c.ordinal).collect();
    ordinals.sort_unstable();
    assert_eq!(ordinals, vec![1, 2, 3, 4, 5, 6]);
}

#[test]
fn otlp_genai_and_openinference_spans_in_order_hex_or_base64() {
    let hex = audit(&std::fs::read(fixtures().join("otlp/genai.jsonl")).unwrap());
    let b64 = audit(&std::fs::read(fixtures().join("otlp/genai-base64.jsonl")).unwrap());
    for report in [&hex, &b64] {
        assert_eq!(report.format, Format::Otlp);
        assert!(report.errors.is_empty(), "{:?}", report.errors);
        assert_eq!(report.calls, 9);
        assert_eq!(report.agents.len(), 2);
        // The later batch is first in the file: `t3` is still the third `npm test`.
        assert_eq!(reminders(report)[0], ("t3".to_owned(), 3));
        assert_eq!(report.reminders[1].site.name, "shell");
        let rules: Vec<&str> = report.failures.iter().map(|f| f.rule_id.as_str()).collect();
        // t4 (exit 0) is found; t5 (exit 2) and t6 (status ERROR) are not.
        assert_eq!(
            rules,
            [
                "python-traceback",
                "pytest-failed",
                "pytest-failed",
                "pytest-failed"
            ]
        );
        assert_eq!(report.failures[0].site.call_id.as_deref(), Some("t4"));
    }
    assert_eq!(hex.agents, b64.agents);
    assert_eq!(reminders(&hex)[1], reminders(&b64)[1]);
}

/// One OTLP/JSON line: `execute_tool bash` spans, each `(trace, chain, start)`.
fn toolguard_spans(spans: &[(&str, Option<&str>, u64)]) -> String {
    let spans: Vec<serde_json::Value> = spans
        .iter()
        .map(|(trace, chain, start)| {
            let mut attributes = vec![
                serde_json::json!({"key": "gen_ai.operation.name", "value": {"stringValue": "execute_tool"}}),
                serde_json::json!({"key": "gen_ai.tool.name", "value": {"stringValue": "bash"}}),
                serde_json::json!({"key": "gen_ai.tool.call.arguments", "value": {"stringValue": "{\"command\":\"cat notes.txt\"}"}}),
                serde_json::json!({"key": "gen_ai.tool.call.result", "value": {"stringValue": "cat: notes.txt: No such file or directory"}}),
            ];
            if let Some(chain) = chain {
                attributes.push(serde_json::json!({"key": "toolguard.chain", "value": {"stringValue": chain}}));
            }
            serde_json::json!({
                "traceId": trace, "spanId": format!("{start:016x}"), "name": "execute_tool bash",
                "startTimeUnixNano": (start * 1_000_000).to_string(), "attributes": attributes,
                "status": {"code": 2},
            })
        })
        .collect();
    let request = serde_json::json!({"resourceSpans": [{"scopeSpans": [{"spans": spans}]}]});
    format!("{request}\n")
}

#[test]
fn otlp_toolguard_spans_replay_per_chain_not_per_trace() {
    let trace = |n: u8| format!("{n:032x}");
    let (t1, t2, t3, t4) = (trace(1), trace(2), trace(3), trace(4));
    // Outside any agent span each call is its own trace: the chain keeps them together.
    let apart = audit(
        toolguard_spans(&[
            (&t1, Some("a"), 1000),
            (&t2, Some("a"), 2000),
            (&t3, Some("a"), 3000),
        ])
        .as_bytes(),
    );
    assert!(apart.errors.is_empty(), "{:?}", apart.errors);
    assert_eq!(apart.agents.len(), 1);
    // The default config: DSH's repeat reminder, due at the third identical call.
    assert_eq!(reminders(&apart).len(), 1);
    // Two agents in one trace stay apart: no run of three.
    let shared = audit(
        toolguard_spans(&[
            (&t4, Some("a"), 1000),
            (&t4, Some("b"), 2000),
            (&t4, Some("a"), 3000),
            (&t4, Some("b"), 4000),
        ])
        .as_bytes(),
    );
    assert_eq!(shared.agents.len(), 2);
    assert!(shared.reminders.is_empty());
    // Without the attribute a trace is a chain, as before.
    let plain = audit(
        toolguard_spans(&[(&t1, None, 1000), (&t2, None, 2000), (&t3, None, 3000)]).as_bytes(),
    );
    assert_eq!(plain.agents.len(), 3);
    assert!(plain.reminders.is_empty());
}

#[test]
fn detection_by_first_line() {
    // Issue 16: the documented trace line `{"type":"user","agentId":"main"}` first.
    let trace = b"{\"type\":\"user\",\"agentId\":\"main\"}\n{\"tool\":\"bash\",\"arguments\":{\"command\":\"ls\"},\"output\":\"x\"}\n";
    let report = audit(trace);
    assert_eq!(report.format, Format::Trace);
    assert_eq!((report.calls, report.error_count), (1, 0));
    // Claude Code transcripts may open with a snapshot line (no session id in it).
    let snapshot = br#"{"type":"file-history-snapshot","messageId":"m","snapshot":{},"isSnapshotUpdate":false}"#;
    assert_eq!(audit(snapshot).format, Format::ClaudeCode);
    // No known shape: said once, not once per line.
    let report = audit(b"{\"a\":1}\n{\"b\":2}\n{\"c\":3}\n");
    assert_eq!(report.error_count, 1);
    assert!(report.errors[0]
        .message
        .contains("not a line of any known log format"));
}

#[test]
fn binary_input_is_one_error() {
    let mut state = 7u32;
    let bytes: Vec<u8> = (0..3_000_000)
        .map(|_| {
            state = state.wrapping_mul(1_103_515_245).wrapping_add(12345);
            (state >> 16) as u8
        })
        .collect();
    let report = audit(&bytes);
    assert_eq!(report.error_count, 1, "{:?}", report.errors);
    assert!(report.errors[0].message.starts_with("not a text log"));
}

#[test]
fn a_utf8_byte_order_mark_is_skipped() {
    let trace =
        "\u{feff}{\"agentId\":\"a\",\"tool\":\"bash\",\"arguments\":{},\"output\":\"ok\"}\n";
    let report = audit(trace.as_bytes());
    assert_eq!(report.error_count, 0, "{:?}", report.errors);
    assert_eq!(report.calls, 1);
    // A whole-document trajectory too (read at once, not line by line).
    let traj = std::fs::read(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/mini-swe-agent/scripted.traj.json"),
    )
    .unwrap();
    let plain = audit(&traj);
    let report = audit(&[b"\xef\xbb\xbf".as_slice(), &traj].concat());
    assert_eq!(report.error_count, 0, "{:?}", report.errors);
    assert_eq!(report.calls, plain.calls);
    assert!(plain.calls > 0);
    // And a *.json file is still found by its content when a folder is searched.
    let file = std::env::temp_dir().join(format!("toolguard-bom-{}.json", std::process::id()));
    std::fs::write(&file, [b"\xef\xbb\xbf".as_slice(), &traj].concat()).unwrap();
    let found = crate::session::detect_path(&file, 1 << 20);
    std::fs::remove_file(&file).unwrap();
    assert_eq!(found.unwrap(), Some(Format::MiniSweAgent));
}

#[test]
fn a_plain_text_log_is_one_error_and_a_corrupt_first_object_is_not() {
    let text: String = (0..5_000)
        .map(|i| format!("[{i}] compiling module {i}\n"))
        .collect();
    let report = audit(text.as_bytes());
    assert_eq!(report.error_count, 1, "{:?}", report.errors);
    assert_eq!(report.errors[0].line, Some(1));
    assert!(report.errors[0]
        .message
        .starts_with("not a JSON-lines session log (line 1 is not JSON)"));
    // A log whose first line is a cut object is still read on: one error for that line only.
    let trace = "{\"agentId\":\"a\",\"tool\":\"ba\n{\"agentId\":\"a\",\"tool\":\"bash\",\"arguments\":{},\"output\":\"ok\"}\n";
    let report = audit(trace.as_bytes());
    assert_eq!(report.error_count, 1, "{:?}", report.errors);
    assert!(report.errors[0].message.starts_with("malformed JSON"));
    assert_eq!(report.calls, 1);
}

#[test]
fn truncated_and_malformed_input_in_every_reader() {
    for (dir, suffix) in [
        ("claude-code", "-e4a8f21ff3d1.jsonl"),
        ("codex", ".jsonl"),
        ("otlp", "genai.jsonl"),
    ] {
        let text = std::fs::read(find(dir, suffix)).unwrap();
        // Cut in the middle of the last line: reported with its number, the rest audited.
        let cut = &text[..text.len() - 40];
        let report = audit(cut);
        let last = cut.iter().filter(|&&b| b == b'\n').count() as u64 + 1;
        let error = report
            .errors
            .last()
            .unwrap_or_else(|| panic!("{dir}: no error"));
        assert_eq!(error.line, Some(last), "{dir}");
        assert!(
            error.message.starts_with("truncated last line"),
            "{dir}: {}",
            error.message
        );
        // A malformed line in the middle.
        let mut broken = text.clone();
        let second = broken.iter().position(|&b| b == b'\n').unwrap() + 1;
        broken.splice(second..second, b"{\"oops\n".iter().copied());
        let report = audit(&broken);
        assert_eq!(report.errors[0].line, Some(2), "{dir}");
        assert!(
            report.errors[0].message.starts_with("malformed JSON"),
            "{dir}"
        );
        assert_eq!(report.calls, audit(&text).calls, "{dir}");
    }
    // Claude Code lines with broken shapes.
    let text = [
        r#"{"type":"user","sessionId":"s","message":{"role":"user","content":"go"}}"#,
        r#"{"type":"assistant","sessionId":"s"}"#,
        r#"{"type":"assistant","sessionId":"s","message":{"id":"m","content":[{"type":"tool_use","name":"Bash"}]}}"#,
        r#"{"type":"user","sessionId":"s","message":{"content":[{"type":"tool_result","content":"x"}]}}"#,
    ]
    .join("\n");
    let report = audit(text.as_bytes());
    let lines: Vec<Option<u64>> = report.errors.iter().map(|e| e.line).collect();
    assert_eq!(lines, vec![Some(2), Some(3), Some(4)]);
    // OTLP tool span without a trace id.
    let text = r#"{"resourceSpans":[{"scopeSpans":[{"spans":[{"name":"execute_tool bash","attributes":[{"key":"gen_ai.operation.name","value":{"stringValue":"execute_tool"}}]}]}]}]}"#;
    let report = audit(text.as_bytes());
    assert_eq!(report.errors[0].line, Some(1));
}

#[test]
fn since_skips_older_lines() {
    let text = std::fs::read(find("claude-code", "-e4a8f21ff3d1.jsonl")).unwrap();
    let all = audit(&text);
    // The second prompt's line: everything before it is skipped.
    let again = std::str::from_utf8(&text)
        .unwrap()
        .lines()
        .find(|l| l.contains(r#""content":"again""#))
        .unwrap();
    let stamp: serde_json::Value = serde_json::from_str(again).unwrap();
    let since = rfc3339_ms(stamp["timestamp"].as_str().unwrap()).unwrap();
    let options = AuditOptions {
        since_ms: Some(since),
        ..AuditOptions::default()
    };
    let recent = audit_with(&text, Format::Auto, &Config::default(), options.clone());
    assert_eq!((all.calls, recent.calls), (10, 2));
    assert!(recent.reminders.is_empty() && recent.errors.is_empty());
    let otlp = std::fs::read(fixtures().join("otlp/genai.jsonl")).unwrap();
    assert_eq!(
        audit_with(&otlp, Format::Auto, &Config::default(), options).calls,
        0
    );
    assert_eq!(
        AuditOptions::from_json(r#"{"sinceMs":5}"#)
            .unwrap()
            .since_ms,
        Some(5)
    );
    let code_and_path = |text: &str| {
        let e = AuditOptions::from_json(text).unwrap_err();
        (e.code, e.path)
    };
    let key = |k: &str| vec![toolguard_core::PathStep::Key(k.to_owned())];
    assert_eq!(
        code_and_path(r#"{"maxLineBytes":0}"#),
        ("TOOLGUARD_OUT_OF_RANGE", key("maxLineBytes"))
    );
    assert_eq!(
        code_and_path(r#"{"maxLineBytes":"1M"}"#),
        ("TOOLGUARD_WRONG_TYPE", key("maxLineBytes"))
    );
    assert_eq!(
        code_and_path(r#"{"since":5}"#),
        ("TOOLGUARD_UNKNOWN_KEY", key("since"))
    );
    assert_eq!(code_and_path("[1]"), ("TOOLGUARD_WRONG_TYPE", vec![]));
    assert_eq!(code_and_path("{"), ("TOOLGUARD_BAD_JSON", vec![]));
    assert_eq!(
        AuditOptions::from_json(r#"{"maxLineBytes":null}"#).unwrap(),
        AuditOptions::default()
    );
}

/// A reader that yields `n` bytes of one endless JSON string, then a newline and a good line.
struct Hostile {
    left: u64,
    tail: &'static [u8],
}

impl Read for Hostile {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.left > 0 {
            let n = (buf.len() as u64).min(self.left) as usize;
            buf[..n].fill(b'a');
            self.left -= n as u64;
            return Ok(n);
        }
        let n = self.tail.len().min(buf.len());
        buf[..n].copy_from_slice(&self.tail[..n]);
        self.tail = &self.tail[n..];
        Ok(n)
    }
}

#[test]
fn an_overlong_line_is_reported_and_skipped_in_plain_and_zstd() {
    let good = b"\n{\"tool\":\"bash\",\"arguments\":{\"command\":\"ls\"},\"output\":\"x\"}\n";
    let options = AuditOptions {
        max_line_bytes: 1 << 20,
        ..AuditOptions::default()
    };
    // Plain: 64 MiB of one line, read through a 1 MiB limit.
    let mut auditor = Auditor::new(&Config::default()).unwrap();
    auditor.set_options(options.clone());
    let report = super::tests::one(auditor.audit_reader(
        "hostile.jsonl".into(),
        Hostile {
            left: 64 << 20,
            tail: good,
        },
        Format::Trace,
        &mut |_| {},
    ));
    assert_eq!(report.errors.len(), 1, "{:?}", report.errors);
    assert_eq!(report.errors[0].line, Some(1));
    assert!(report.errors[0]
        .message
        .contains("longer than the limit of 1048576 bytes"));
    assert_eq!((report.lines, report.calls), (2, 1));
    // zstd: a small file that decodes to one 48 MiB line, whole and cut.
    let mut raw = vec![b'a'; 48 << 20];
    raw.extend_from_slice(good);
    let packed = ::ruzstd::encoding::compress_to_vec(
        &raw[..],
        ::ruzstd::encoding::CompressionLevel::Fastest,
    );
    drop(raw);
    assert!(packed.len() < 4 << 20, "{}", packed.len());
    let report = audit_with(&packed, Format::Auto, &Config::default(), options.clone());
    assert!(report.compressed);
    assert_eq!(report.errors[0].line, Some(1));
    assert!(report.errors[0].message.contains("longer than the limit"));
    assert_eq!(report.calls, 1);
    let cut = audit_with(
        &packed[..packed.len() / 2],
        Format::Trace,
        &Config::default(),
        options,
    );
    assert_eq!(cut.errors[0].line, Some(1), "{:?}", cut.errors);
    assert!(
        cut.errors.iter().any(|e| e.message.contains("truncated")),
        "{:?}",
        cut.errors
    );
}

#[test]
fn claude_code_calls_of_one_message_in_the_model_order() {
    let use_line = |msg: &str, id: &str, cmd: &str| {
        serde_json::json!({"type":"assistant","sessionId":"s","message":{"id":msg,"content":[
            {"type":"tool_use","id":id,"name":"Bash","input":{"command":cmd}}]}})
        .to_string()
    };
    let result = |id: &str| {
        serde_json::json!({"type":"user","sessionId":"s","message":{"content":[
            {"type":"tool_result","tool_use_id":id,"content":"ok"}]}})
        .to_string()
    };
    // m1: ls, pwd (pwd finishes first); m2: pwd, pwd. In the model's order
    // pwd runs three times in a row; in finishing order it would not.
    // m0's call is never answered and must not hold the rest back.
    let text = [
        use_line("m0", "lost", "sleep 99"),
        use_line("m1", "a", "ls"),
        use_line("m1", "b", "pwd"),
        use_line("m1", "b", "pwd"), // the same block written twice
        result("b"),
        result("a"),
        use_line("m2", "c", "pwd"),
        result("c"),
        use_line("m3", "d", "pwd"),
        result("d"),
    ]
    .join("\n");
    let report = audit(text.as_bytes());
    assert_eq!(report.format, Format::ClaudeCode);
    assert_eq!((report.calls, report.unanswered), (5, 1));
    assert_eq!(reminders(&report), pairs(&[("d", 3)]));
}

/// The timeline (and so the waste figures) gets each call's time, its
/// result's time and its model turn's tokens from the transcript itself.
#[test]
fn claude_code_timeline_has_times_and_tokens() {
    let text = std::fs::read(find("claude-code", "-e4a8f21ff3d1.jsonl")).unwrap();
    let report = audit(&text);
    let calls = &report.timeline.calls;
    assert_eq!(calls.len(), 10);
    for call in calls {
        let (time, end) = (call.time.unwrap(), call.end_time.unwrap());
        assert!(end >= time && time > 1_600_000_000_000, "{call:?}");
    }
    // Each model turn's usage once: on the first call of its message.
    let with_tokens = calls
        .iter()
        .filter(|c| c.output_tokens.is_some_and(|n| n > 0))
        .count();
    assert!(
        with_tokens >= 1 && with_tokens < calls.len(),
        "{with_tokens}"
    );
}

/// The auditor's engines are shared by every file of a run: each reader must
/// free the agents it created when its file ends, or a long audit grows.
#[test]
fn every_reader_frees_its_agents_at_the_end_of_the_file() {
    let files = [
        (
            Format::ClaudeCode,
            find("claude-code", "-e4a8f21ff3d1.jsonl"),
        ),
        (Format::Codex, find("codex", ".jsonl")),
        (Format::Otlp, fixtures().join("otlp/genai.jsonl")),
        (Format::Trace, fixtures().join("trace/agents.jsonl")),
    ];
    let mut auditor = Auditor::new(&Config::default()).unwrap();
    for (format, path) in files {
        let text = std::fs::read(&path).unwrap();
        let report = super::tests::one(auditor.audit_reader(
            "t.jsonl".into(),
            &text[..],
            format,
            &mut |_| {},
        ));
        assert!(report.calls > 0, "{path:?} audited no call");
        assert!(!report.agents.is_empty(), "{path:?}");
        assert_eq!(auditor.engine(format).agents(), 0, "{path:?} left agents");
    }
}
