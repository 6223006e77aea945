//! The trajectory readers on their fixtures (tests/fixtures/: mini-swe-agent
//! and the OpenHands SDK recorded with the real packages,
//! scripts/record/record-trajectory-fixtures.mjs; the others written from the
//! documented shapes, see its README).

use super::*;
use std::path::Path;
use std::path::PathBuf;
use toolguard_core::config::Config;

fn fixture(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(path)
}

fn audit_file(path: &str, format: Format) -> Vec<SessionReport> {
    let config =
        Config::with_loops_by_default(&toolguard_core::config::ConfigValue::Undefined).unwrap();
    let mut auditor = Auditor::new(&config).unwrap();
    auditor.audit_path(&fixture(path), format, &mut |_, _| {})
}

fn one(path: &str) -> SessionReport {
    super::tests::one(audit_file(path, Format::Auto))
}

fn failures(r: &SessionReport) -> Vec<(u64, Option<&str>, &str)> {
    r.failures
        .iter()
        .map(|f| {
            (
                f.site.ordinal,
                f.site.call_id.as_deref(),
                f.rule_id.as_str(),
            )
        })
        .collect()
}

fn loops(r: &SessionReport) -> Vec<(u64, &str)> {
    r.loops.iter().map(|l| (l.site.ordinal, l.kind)).collect()
}

fn notes(r: &SessionReport) -> Vec<(Option<u64>, &str)> {
    r.notes
        .iter()
        .map(|n| (n.ordinal, n.message.as_str()))
        .collect()
}

#[test]
fn mini_swe_agent_tool_calls_recorded_by_the_real_package() {
    let r = one("mini-swe-agent/scripted.traj.json");
    assert_eq!(r.format, Format::MiniSweAgent);
    assert_eq!(r.errors, vec![]);
    assert_eq!(r.model.as_deref(), Some("openai/mock"));
    // Four commands answered, the submission never is (the run exits).
    assert_eq!((r.calls, r.unanswered), (5, 1));
    assert_eq!(
        notes(&r),
        vec![(Some(5), "call 5 (bash, call_4) has no result in the log")]
    );
    let ids: Vec<_> = r
        .timeline
        .calls
        .iter()
        .map(|c| (c.ordinal, c.call_id.clone().unwrap()))
        .collect();
    assert_eq!(ids[0], (1, "call_0".to_owned()));
    assert_eq!(ids.len(), 5);
    assert!(r.timeline.calls[0].input_tokens.is_some() && r.timeline.calls[0].time.is_some());
    // The same failing import three times; a traceback hidden behind `| tail` (exit 0).
    assert_eq!(loops(&r), vec![(3, "repeat")]);
    assert_eq!(failures(&r), vec![(4, Some("call_3"), "python-traceback")]);
}

#[test]
fn mini_swe_agent_text_actions_recorded_by_the_real_package() {
    let r = one("mini-swe-agent/scripted-textbased.traj.json");
    assert_eq!(r.format, Format::MiniSweAgent);
    assert_eq!(r.errors, vec![]);
    assert_eq!((r.calls, r.unanswered), (5, 1));
    assert!(r.timeline.calls.iter().all(|c| c.call_id.is_none()));
    // The harness's format error between calls 1 and 2 is no user prompt:
    // the chain still sees three identical calls in a row.
    assert_eq!(loops(&r), vec![(3, "repeat")]);
    assert_eq!(failures(&r), vec![(4, None, "python-traceback")]);
}

#[test]
fn openhands_v1_output_has_a_report_per_line_pairs_by_id_and_notes_orphans() {
    let reports = audit_file("openhands-v1/output.jsonl", Format::Auto);
    assert_eq!(reports.len(), 2);
    let (a, b) = (&reports[0], &reports[1]);
    assert_eq!((a.session, b.session), (0, 1));
    // The sessions' bytes add up to the file's (a summary counts it once).
    let size = std::fs::metadata(fixture("openhands-v1/output.jsonl"))
        .unwrap()
        .len();
    assert_eq!(a.bytes + b.bytes, size);
    assert!(a.bytes > 0 && a.decoded_bytes == a.bytes);
    assert_eq!(a.session_id.as_deref(), Some("task-one"));
    assert_eq!(a.model.as_deref(), Some("litellm_proxy/mock-model"));
    assert_eq!(a.errors, vec![]);
    assert_eq!((a.calls, a.unanswered, b.calls), (6, 1, 1));
    assert_eq!(loops(a), vec![(3, "repeat")]);
    // Exit 0 from `| tail` over a failed pytest run.
    assert_eq!(failures(a), vec![(4, Some("call_4"), "pytest-failed")]);
    assert_eq!(
        notes(a),
        vec![
            (
                None,
                "event 13 (ObservationEvent, call_9): a result with no action before it"
            ),
            (Some(6), "call 6 (finish, call_6) has no result in the log"),
        ]
    );
    // The exit code is metadata.exit_code (127 here), shown as the DSH marker.
    let value: serde_json::Value = serde_json::from_str(
        std::fs::read_to_string(fixture("openhands-v1/output.jsonl"))
            .unwrap()
            .lines()
            .next()
            .unwrap(),
    )
    .unwrap();
    let read = read_value(Format::OpenHandsV1, &value).unwrap();
    let calls: Vec<&ReadCall> = read
        .events
        .iter()
        .filter_map(|e| match e {
            ReadEvent::Call(c) => Some(c),
            ReadEvent::Prompt { .. } | ReadEvent::UserText(_) => None,
        })
        .collect();
    let mail = calls[4].result.as_ref().unwrap();
    assert_eq!(mail.text, "bash: mail: command not found\n[exit code: 127]");
    // The user's message mid-run restarts the chains, before call 5.
    assert!(matches!(
        read.events
            .iter()
            .filter(|e| !matches!(e, ReadEvent::UserText(_)))
            .nth(4),
        Some(ReadEvent::Prompt { .. })
    ));
    let events: Vec<&ReadEvent> = read
        .events
        .iter()
        .filter(|e| !matches!(e, ReadEvent::UserText(_)))
        .collect();
    assert!(matches!(events[5], ReadEvent::Call(c) if c.call_id.as_deref() == Some("call_5")));
    // What the user said is noted (the errors it quotes are the reported bug).
    assert!(read
        .events
        .iter()
        .any(|e| matches!(e, ReadEvent::UserText(_))));
    // The file editor's error message is the result, as an error.
    let editor = b.timeline.calls[0].clone();
    assert_eq!(editor.tool, "str_replace_editor");
}

#[test]
fn openhands_v0_resolver_output_and_event_stream() {
    let r = one("openhands-v0/resolver-output.jsonl");
    assert_eq!(r.format, Format::OpenHandsV0);
    assert_eq!(r.session_id.as_deref(), Some("acme/widget#7"));
    // `message` and `finish` are no calls; run and run_ipython are.
    assert_eq!((r.calls, r.unanswered), (2, 0));
    let tools: Vec<&str> = r.timeline.calls.iter().map(|c| c.tool.as_str()).collect();
    assert_eq!(tools, ["execute_bash", "execute_ipython_cell"]);
    assert_eq!(
        notes(&r),
        vec![(
            None,
            "event 6: a \"run\" observation with no action before it"
        )]
    );
    let s = one("openhands-v0/event-stream.json");
    assert_eq!(s.format, Format::OpenHandsV0);
    assert_eq!(s.errors, vec![]);
    assert_eq!((s.calls, s.unanswered), (2, 1));
    // Paired by `cause`; the call id is the event id.
    assert_eq!(s.timeline.calls[0].call_id.as_deref(), Some("2"));
    assert_eq!(s.timeline.calls[0].tool, "execute_bash");
}

#[test]
fn classic_swe_agent_says_it_has_no_exit_codes() {
    let r = one("swe-agent/run.traj");
    assert_eq!(r.format, Format::SweAgent);
    assert_eq!(r.calls, 4);
    assert_eq!(
        notes(&r),
        vec![(
            None,
            "swe-agent records no exit codes: failures are read from the output text only"
        )]
    );
    assert_eq!(
        failures(&r)
            .into_iter()
            .map(|f| (f.0, f.2))
            .collect::<Vec<_>>(),
        vec![
            (2, "python-traceback"),
            (2, "missing-module"),
            (3, "python-traceback"),
            (3, "missing-module")
        ]
    );
}

#[test]
fn text_captures_claude_markdown_codex_exec_and_mini_swe_agent_log() {
    let md = one("claude-code-md/session-full.md");
    assert_eq!(md.format, Format::ClaudeCodeMd);
    assert_eq!(md.session_id.as_deref(), Some("0000-fixture"));
    assert_eq!(md.errors, vec![]);
    // A result written twice counts once; one with no call, and a call with
    // no result, are noted.
    assert_eq!((md.calls, md.unanswered), (4, 1));
    assert_eq!(
        notes(&md).into_iter().map(|n| n.1).collect::<Vec<_>>(),
        [
            "a tool_result for toolu_9 with no tool_use before it",
            "call 4 (Bash, toolu_4) has no result in the log"
        ]
    );
    assert_eq!(failures(&md), vec![(1, Some("toolu_1"), "npm-error")]);

    let codex = one("codex-exec-log/agent.log");
    assert_eq!(codex.format, Format::CodexExecLog);
    assert_eq!(codex.model.as_deref(), Some("o4-mini"));
    assert_eq!((codex.calls, codex.unanswered), (4, 0));
    let tools: Vec<&str> = codex
        .timeline
        .calls
        .iter()
        .map(|c| c.tool.as_str())
        .collect();
    assert_eq!(tools, ["shell", "shell", "apply_patch", "shell"]);
    // The heredoc command spans lines; its exit 1 is loud, the `| tail` one is not.
    assert_eq!(failures(&codex), vec![(4, None, "exception-tail")]);

    let mini = one("mini-swe-agent-log/agent.log");
    assert_eq!(mini.format, Format::MiniSweAgentLog);
    assert_eq!(mini.calls, 3);
    assert_eq!(
        notes(&mini),
        vec![(
            None,
            "step 4: no command ran (no <returncode> in its observation)"
        )]
    );
    // The LiteLLM traceback after step 1's output is the capture's, not the command's.
    assert!(failures(&mini).iter().all(|f| f.0 == 3));
}

#[test]
fn detection_by_content_and_forcing_a_format() {
    for (path, format) in [
        ("mini-swe-agent/scripted.traj.json", Format::MiniSweAgent),
        ("swe-agent/run.traj", Format::SweAgent),
        ("openhands-v1/output.jsonl", Format::OpenHandsV1),
        ("openhands-v0/event-stream.json", Format::OpenHandsV0),
        ("openhands-v0/resolver-output.jsonl", Format::OpenHandsV0),
        ("claude-code-md/session-full.md", Format::ClaudeCodeMd),
        ("codex-exec-log/agent.log", Format::CodexExecLog),
        ("mini-swe-agent-log/agent.log", Format::MiniSweAgentLog),
    ] {
        assert_eq!(
            detect_path(&fixture(path), 1 << 20).unwrap(),
            Some(format),
            "{path}"
        );
        // Forced by name, the same reader runs.
        let forced = audit_file(path, format);
        assert!(
            forced
                .iter()
                .all(|r| r.format == format && r.error_count == 0),
            "{path}"
        );
        assert_eq!(Format::parse(format.as_str()), Some(format));
    }
    // A page that only quotes a format is none.
    assert_eq!(detect_path(&fixture("README.md"), 1 << 20).unwrap(), None);
    // A format forced on the wrong file says what is missing.
    let wrong = audit_file("swe-agent/run.traj", Format::MiniSweAgent);
    assert_eq!(
        wrong[0].errors[0].message,
        "mini-swe-agent trajectory without a \"messages\" list"
    );
}

/// `(call id, tool, the DSH exit marker of its result)` of each call.
fn calls_read(read: &ReadSession) -> Vec<(Option<&str>, &str, Option<&str>)> {
    read.events
        .iter()
        .filter_map(|e| match e {
            ReadEvent::Call(c) => Some((
                c.call_id.as_deref(),
                c.tool.as_str(),
                c.result
                    .as_ref()
                    .and_then(|r| r.text.rfind("[exit code: ").map(|at| &r.text[at..])),
            )),
            ReadEvent::Prompt { .. } | ReadEvent::UserText(_) => None,
        })
        .collect()
}

#[test]
fn openhands_sdk_conversation_folders_recorded_by_the_real_package() {
    // The SDK's persisted folders (base_state.json + events/), recorded with
    // openhands-sdk against a scripted model (scripts/record/record-trajectory-fixtures.mjs --openhands).
    for name in ["normal", "stuck", "silent", "followup", "toolerror"] {
        let state = fixture(&format!("openhands-sdk/{name}/base_state.json"));
        assert_eq!(
            detect_path(&state, 1 << 20).unwrap(),
            Some(Format::OpenHandsV1),
            "{name}"
        );
        // One event alone is no session.
        let events = state.with_file_name("events");
        let first = std::fs::read_dir(&events).unwrap().next().unwrap().unwrap();
        assert_eq!(detect_path(&first.path(), 1 << 20).unwrap(), None);
    }
    let normal = one("openhands-sdk/normal/base_state.json");
    assert_eq!(normal.format, Format::OpenHandsV1);
    assert_eq!(normal.errors, vec![]);
    assert_eq!(
        normal.session_id.as_deref(),
        Some("00000000-0000-0000-0000-000000000001")
    );
    assert_eq!(normal.model.as_deref(), Some("openai/mock"));
    assert_eq!((normal.calls, normal.unanswered), (3, 0));
    assert_eq!(failures(&normal), vec![]);
    assert_eq!(loops(&normal), vec![]);
    assert_eq!(notes(&normal), vec![]);

    let stuck = one("openhands-sdk/stuck/base_state.json");
    assert_eq!(stuck.errors, vec![]);
    assert_eq!((stuck.calls, stuck.unanswered), (6, 0));
    // The same failing command five times: one loop, alarmed at the third.
    assert_eq!(loops(&stuck), vec![(3, "repeat")]);
    assert_eq!(failures(&stuck), vec![]);

    let silent = one("openhands-sdk/silent/base_state.json");
    assert_eq!(silent.errors, vec![]);
    assert_eq!((silent.calls, silent.unanswered), (2, 0));
    // `python3 -c 'import nope' 2>&1 | tail -1`: exit 0, the ImportError shown.
    assert_eq!(loops(&silent), vec![]);
    let silent_failures = failures(&silent);
    assert!(!silent_failures.is_empty());
    assert!(silent_failures
        .iter()
        .all(|f| f.0 == 1 && f.1 == Some("call_0")));

    // The exit codes are the observations' metadata.exit_code.
    let (document, _) =
        openhands_v1::persisted_document(&fixture("openhands-sdk/stuck/base_state.json"), 1 << 20)
            .unwrap();
    let read = read_value(Format::OpenHandsV1, &document).unwrap();
    let exit_1 = Some("[exit code: 1]");
    assert_eq!(
        calls_read(&read),
        vec![
            (Some("call_0"), "terminal", exit_1),
            (Some("call_1"), "terminal", exit_1),
            (Some("call_2"), "terminal", exit_1),
            (Some("call_3"), "terminal", exit_1),
            (Some("call_4"), "terminal", exit_1),
            (Some("call_5"), "finish", None),
        ]
    );
    // Tokens per model response, from base_state.json's stats (the events carry none).
    let usage: Vec<Option<(u64, u64)>> = read
        .events
        .iter()
        .filter_map(|e| match e {
            ReadEvent::Call(c) => Some(c.usage),
            ReadEvent::Prompt { .. } | ReadEvent::UserText(_) => None,
        })
        .collect();
    assert_eq!(
        usage,
        (0..6).map(|n| Some((100 + n, 10))).collect::<Vec<_>>()
    );
    let (document, _) =
        openhands_v1::persisted_document(&fixture("openhands-sdk/silent/base_state.json"), 1 << 20)
            .unwrap();
    let read = read_value(Format::OpenHandsV1, &document).unwrap();
    // Exit 0 (metadata.exit_code): no marker, as DSH writes none.
    assert_eq!(
        calls_read(&read),
        vec![
            (Some("call_0"), "terminal", None),
            (Some("call_1"), "finish", None),
        ]
    );
    // A second user message after the first run finished: a prompt between
    // calls 2 and 3 (it restarts the chains).
    let (document, _) = openhands_v1::persisted_document(
        &fixture("openhands-sdk/followup/base_state.json"),
        1 << 20,
    )
    .unwrap();
    let read = read_value(Format::OpenHandsV1, &document).unwrap();
    assert!(matches!(
        read.events
            .iter()
            .filter(|e| !matches!(e, ReadEvent::UserText(_)))
            .nth(2),
        Some(ReadEvent::Prompt { .. })
    ));
    assert_eq!(
        calls_read(&read),
        vec![
            (Some("call_0"), "terminal", None),
            (Some("call_1"), "finish", None),
            (Some("call_2"), "terminal", None),
            (Some("call_3"), "finish", None),
        ]
    );
    // Calls the SDK could not run (an unknown tool, arguments its schema
    // rejects): an ActionEvent answered by an AgentErrorEvent, an error result.
    let (document, _) = openhands_v1::persisted_document(
        &fixture("openhands-sdk/toolerror/base_state.json"),
        1 << 20,
    )
    .unwrap();
    let read = read_value(Format::OpenHandsV1, &document).unwrap();
    let results: Vec<(&str, bool, bool)> = read
        .events
        .iter()
        .filter_map(|e| match e {
            ReadEvent::Call(c) => c.result.as_ref().map(|r| {
                (
                    c.tool.as_str(),
                    r.is_error,
                    r.text.contains("not found") || r.text.contains("Field required"),
                )
            }),
            ReadEvent::Prompt { .. } | ReadEvent::UserText(_) => None,
        })
        .collect();
    assert_eq!(
        results,
        vec![
            ("nosuchtool", true, true),
            ("terminal", true, true),
            ("terminal", false, false),
            ("finish", false, false),
        ]
    );
    // Forced by name, the folder reads the same; a limit below its size is an error, not a cut.
    assert_eq!(
        audit_file("openhands-sdk/stuck/base_state.json", Format::OpenHandsV1)[0].calls,
        6
    );
    let config =
        Config::with_loops_by_default(&toolguard_core::config::ConfigValue::Undefined).unwrap();
    let mut auditor = Auditor::new(&config).unwrap();
    auditor.options.max_line_bytes = 1000;
    let short = auditor.audit_path(
        &fixture("openhands-sdk/stuck/base_state.json"),
        Format::Auto,
        &mut |_, _| {},
    );
    assert_eq!(short[0].calls, 0);
    assert!(short[0].errors[0]
        .message
        .contains("longer than the limit of 1000 bytes"));
}

#[test]
fn an_openhands_conversation_folder_is_read_in_index_order_and_a_bad_event_file_is_named() {
    let dir =
        std::env::temp_dir().join(format!("toolguard-openhands-folder-{}", std::process::id()));
    let events = dir.join("events");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&events).unwrap();
    std::fs::write(
        dir.join("base_state.json"),
        r#"{"id": "c1", "agent": {"llm": {"model": "m"}}}"#,
    )
    .unwrap();
    let action = |n: u32| {
        format!(
            r#"{{"kind": "ActionEvent", "id": "a{n}", "tool_name": "terminal", "tool_call_id": "call_{n}", "tool_call": {{"arguments": "{{\"command\": \"echo {n}\"}}"}}}}"#
        )
    };
    // Past 99999 the index has six digits: ordered by number, not by name.
    std::fs::write(events.join("event-100000-bbbbbbbb.json"), action(2)).unwrap();
    std::fs::write(events.join("event-99999-aaaaaaaa.json"), action(1)).unwrap();
    std::fs::write(events.join(".eventlog.lock"), "").unwrap();
    let state = dir.join("base_state.json");
    let (document, _) = openhands_v1::persisted_document(&state, 1 << 20).unwrap();
    let read = read_value(Format::OpenHandsV1, &document).unwrap();
    let ids: Vec<_> = calls_read(&read).into_iter().map(|c| c.0).collect();
    assert_eq!(ids, vec![Some("call_1"), Some("call_2")]);
    assert_eq!(read.session_id.as_deref(), Some("c1"));
    assert_eq!(read.model.as_deref(), Some("m"));
    // A malformed event file: the session's error names it.
    std::fs::write(events.join("event-100001-cccccccc.json"), "{").unwrap();
    let config =
        Config::with_loops_by_default(&toolguard_core::config::ConfigValue::Undefined).unwrap();
    let mut auditor = Auditor::new(&config).unwrap();
    let reports = auditor.audit_path(&state, Format::Auto, &mut |_, _| {});
    assert_eq!(reports.len(), 1);
    let message = &reports[0].errors[0].message;
    assert!(
        message.contains("event-100001-cccccccc.json: malformed JSON"),
        "{message}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Five background jobs failing alike, as Claude Code logs them: made in
/// one assistant message (`parallel`: every call before any result) or one
/// after the other. JSONL lines, or the same turns as the Markdown export.
fn claude_jobs(parallel: bool, markdown: bool) -> SessionReport {
    let call = |n: u32| {
        format!(
            r#"[{{"type":"tool_use","id":"t{n}","name":"Bash","input":{{"command":"python run_job.py --seed 1","run_in_background":true}}}}]"#
        )
    };
    let result = |n: u32| {
        format!(
            r#"[{{"type":"tool_result","tool_use_id":"t{n}","is_error":true,"content":"Exit code 1\nModuleNotFoundError: No module named 'jobs'"}}]"#
        )
    };
    let mut turns: Vec<(&str, String)> = vec![("user", r#""run the jobs""#.to_owned())];
    if parallel {
        turns.extend((1..=5).map(|n| ("assistant", call(n))));
        turns.extend((1..=5).map(|n| ("user", result(n))));
    } else {
        for n in 1..=5 {
            turns.push(("assistant", call(n)));
            turns.push(("user", result(n)));
        }
    }
    let (text, format) = if markdown {
        let body: Vec<String> = turns
            .iter()
            .map(|(role, content)| {
                let heading = if *role == "user" { "User" } else { "Assistant" };
                let content = content.trim_matches('"');
                format!("### {heading}\n> 2026-01-01 00:00:00\n\n{content}\n")
            })
            .collect();
        (
            format!(
                "# Claude Session Export\n\n- **Session ID**: `s1`\n\n---\n{}",
                body.join("\n---\n")
            ),
            Format::ClaudeCodeMd,
        )
    } else {
        let lines: Vec<String> = turns
            .iter()
            .enumerate()
            .map(|(i, (role, content))| {
                // One assistant message (one id) when parallel.
                let id = if parallel { "m1".to_owned() } else { format!("m{i}") };
                format!(
                    r#"{{"type":"{role}","sessionId":"s1","message":{{"id":"{id}","role":"{role}","content":{content}}}}}"#
                )
            })
            .collect();
        (lines.join("\n"), Format::ClaudeCode)
    };
    let config =
        Config::with_loops_by_default(&toolguard_core::config::ConfigValue::Undefined).unwrap();
    let mut auditor = Auditor::new(&config).unwrap();
    let mut reports = auditor.audit_reader("s.jsonl".into(), text.as_bytes(), format, &mut |_| {});
    assert_eq!(reports.len(), 1);
    let report = reports.remove(0);
    assert_eq!(report.errors, vec![], "{text}");
    assert_eq!(report.calls, 5, "{text}");
    report
}

#[test]
fn claude_code_parallel_calls_raise_no_loop_alarm() {
    for markdown in [false, true] {
        // Made before any result came back: not a reaction to a result.
        assert_eq!(claude_jobs(true, markdown).loops.len(), 0, "md {markdown}");
        // The same calls made one after the other are a loop.
        assert_eq!(claude_jobs(false, markdown).loops.len(), 1, "md {markdown}");
    }
}

#[test]
fn openhands_v1_actions_of_one_response_are_concurrent() {
    let action = |n: u32, response: &str| {
        format!(
            r#"{{"kind": "ActionEvent", "id": "a{n}", "tool_name": "terminal", "tool_call_id": "c{n}", "llm_response_id": "{response}", "tool_call": {{"arguments": "{{\"command\": \"ls\"}}"}}}}"#
        )
    };
    let events = [
        action(1, "r1"),
        action(2, "r1"),
        action(3, "r1"),
        action(4, "r2"),
        action(5, "r3"),
        action(6, "r3"),
    ];
    let document: serde_json::Value =
        serde_json::from_str(&format!(r#"{{"history": [{}]}}"#, events.join(","))).unwrap();
    let read = read_value(Format::OpenHandsV1, &document).unwrap();
    let concurrent: Vec<bool> = read
        .events
        .iter()
        .filter_map(|e| match e {
            ReadEvent::Call(c) => Some(c.concurrent),
            _ => None,
        })
        .collect();
    assert_eq!(concurrent, [false, true, true, false, false, true]);
}
