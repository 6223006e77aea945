use super::*;
use crate::replay::preview;
use std::io::Read;
use std::path::Path;
use toolguard_core::config::Config;

fn audit(text: &[u8], format: Format) -> SessionReport {
    let mut auditor = Auditor::new(&Config::default()).unwrap();
    one(auditor.audit_reader("t.jsonl".into(), text, format, &mut |_| {}))
}

/// The one report of a one-session input.
pub(crate) fn one(mut reports: Vec<SessionReport>) -> SessionReport {
    assert_eq!(reports.len(), 1, "one session expected");
    reports.remove(0)
}

const HEADER: &str =
    r#"{"type":"session","version":0,"id":"s1","createdAt":1,"delegationDepth":0}"#;

fn call(seq: u64, id: &str, name: &str, args: &str) -> String {
    serde_json::json!({"type":"tool/call","seq":seq,"time":1,
        "data":{"turn":1,"step":1,"callId":id,"name":name,"arguments":args}})
    .to_string()
}

fn result(seq: u64, id: &str, text: &str, is_error: bool) -> String {
    serde_json::json!({"type":"tool/result","seq":seq,"time":1,"data":{"turn":1,"step":1,
        "message":{"source":{"kind":"tool","callId":id},"role":"user","id":"m",
            "content":[{"type":"tool-result","toolCallId":id,"isError":is_error,
                "content":[{"type":"text","text":text}]}]}}})
    .to_string()
}

fn user(seq: u64, kind: &str) -> String {
    serde_json::json!({"type":"user/message","seq":seq,"time":1,
        "data":{"content":[{"type":"text","text":"hi"}],"source":{"kind":kind,"plugin":"p","form":"notice","summary":"s"},"role":"user","id":"u"}})
    .to_string()
}

fn log(lines: &[String]) -> Vec<u8> {
    let mut out = format!("{HEADER}\n");
    for line in lines {
        out.push_str(line);
        out.push('\n');
    }
    out.into_bytes()
}

/// `n` identical ls calls with results, starting at seq `seq`.
fn repeats(n: usize, seq: u64, tag: &str) -> Vec<String> {
    (0..n)
        .flat_map(|i| {
            let id = format!("{tag}{i}");
            let s = seq + 2 * i as u64;
            [
                call(s, &id, "bash", r#"{"command":"ls"}"#),
                result(s + 1, &id, "a\nb", false),
            ]
        })
        .collect()
}

#[test]
fn dsh_loop_reminders_at_thresholds_with_call_ids() {
    let report = audit(&log(&repeats(5, 0, "c")), Format::Auto);
    assert_eq!(report.format, Format::Dsh);
    assert_eq!(report.session_id.as_deref(), Some("s1"));
    assert_eq!(report.calls, 5);
    let got: Vec<(&str, u64)> = report
        .reminders
        .iter()
        .map(|r| (r.site.call_id.as_deref().unwrap_or(""), r.count))
        .collect();
    assert_eq!(got, vec![("c2", 3), ("c4", 5)]);
    assert_eq!(report.reminders[0].summary, "bash × 3");
    assert_eq!(report.reminders[0].command.as_deref(), Some("ls"));
    assert_eq!(report.reminders[0].arguments, r#"{"command":"ls"}"#);
    assert_eq!(report.reminders[0].site.line, 6);
    assert!(report.errors.is_empty(), "{:?}", report.errors);
}

#[test]
fn plugin_messages_do_not_reset_but_the_user_does() {
    let mut lines = repeats(2, 0, "a");
    lines.push(user(4, "plugin"));
    lines.extend(repeats(1, 5, "b"));
    let report = audit(&log(&lines), Format::Dsh);
    assert_eq!(report.reminders.len(), 1, "plugin notice must not reset");

    let mut lines = repeats(2, 0, "a");
    lines.push(user(4, "user"));
    lines.extend(repeats(1, 5, "b"));
    assert!(audit(&log(&lines), Format::Dsh).reminders.is_empty());
}

#[test]
fn silent_failure_found_and_error_results_never_scanned() {
    let tb = "Traceback (most recent call last):\n  File \"x.py\", line 1\nValueError: x";
    let lines = vec![
        call(0, "c0", "bash", r#"{"command":"python x.py | tail"}"#),
        result(1, "c0", tb, false),
        call(2, "c1", "bash", r#"{"command":"python x.py"}"#),
        result(3, "c1", tb, true),
        call(4, "c2", "read_file", r#"{"path":"x.py"}"#),
        result(5, "c2", tb, false),
    ];
    let report = audit(&log(&lines), Format::Dsh);
    assert_eq!(report.failures.len(), 1);
    let f = &report.failures[0];
    assert_eq!(
        (
            f.site.call_id.as_deref().unwrap_or(""),
            f.rule_id.as_str(),
            f.line
        ),
        ("c0", "python-traceback", 1)
    );
    assert_eq!(f.excerpt, "Traceback (most recent call last):");
    assert_eq!(f.command.as_deref(), Some("python x.py | tail"));
    assert_eq!(f.verdict, toolguard_core::engine::FailureAction::Error);
}

#[test]
fn bad_lines_are_reported_with_their_number_and_skipped() {
    let mut text = log(&[
        "{not json".to_owned(),
        r#"{"type":"mystery/event","seq":1,"time":1,"data":{}}"#.to_owned(),
        r#"{"type":"mystery/event","seq":2,"time":1,"data":{},"ignorable":true}"#.to_owned(),
        r#"{"type":"text-chunks","time0":1,"data":{}}"#.to_owned(),
        result(3, "nope", "x", false),
        "[1,2]".to_owned(),
        r#"{"type":"step/start","seq":1,"#.to_owned(),
    ]);
    text.extend_from_slice(repeats(3, 4, "c").join("\n").as_bytes());
    text.extend_from_slice(b"\n{\"type\":\"tool/ca");
    let report = audit(&text, Format::Dsh);
    let lines: Vec<Option<u64>> = report.errors.iter().map(|e| e.line).collect();
    assert_eq!(
        lines,
        vec![
            Some(2),
            Some(3),
            Some(5),
            Some(6),
            Some(7),
            Some(8),
            Some(15)
        ]
    );
    assert!(report.errors[0].message.starts_with("malformed JSON"));
    assert!(report.errors[1]
        .message
        .contains("unknown event type \"mystery/event\""));
    assert!(report.errors[5].message.starts_with("malformed JSON"));
    assert!(report.errors[6].message.starts_with("truncated last line"));
    // The audit went on past the bad lines.
    assert_eq!(report.reminders.len(), 1);
}

/// A JSON line holding a lone surrogate escape (a host cut a string inside
/// a surrogate pair) is read with U+FFFD, as the hook reads its input, not
/// reported as malformed.
#[test]
fn a_lone_surrogate_escape_is_read_as_the_hook_reads_it() {
    let cut = result(2, "c0", "cut X", false).replace("cut X", r"cut \ud800");
    assert!(cut.contains(r"\ud800"));
    let report = audit(
        &log(&[call(1, "c0", "bash", r#"{"command":"ls"}"#), cut]),
        Format::Dsh,
    );
    assert!(report.errors.is_empty(), "{:?}", report.errors);
}

#[test]
fn errors_are_capped_but_counted() {
    let text = "x\n".repeat(MAX_ERRORS + 5);
    let report = audit(text.as_bytes(), Format::Dsh);
    assert_eq!(report.errors.len(), MAX_ERRORS);
    assert_eq!(report.error_count, MAX_ERRORS as u64 + 5);
}

#[test]
fn forked_seed_is_not_audited_again_and_end_seed_resets() {
    let header = r#"{"type":"session","version":0,"id":"child","createdAt":1,"parentSession":"p","seedLength":4,"delegationDepth":1}"#;
    let mut text = format!("{header}\n");
    for line in repeats(2, 0, "p") {
        text.push_str(&line);
        text.push('\n');
    }
    for line in repeats(2, 4, "c") {
        text.push_str(&line);
        text.push('\n');
    }
    let report = audit(text.as_bytes(), Format::Dsh);
    assert_eq!((report.calls, report.inherited), (2, 2));
    assert!(
        report.reminders.is_empty(),
        "seed calls must not extend the chain"
    );
    assert_eq!(report.parent_session.as_deref(), Some("p"));

    let mut lines = repeats(2, 0, "a");
    lines.push(r#"{"type":"session/end-seed","seq":4,"time":1,"data":{}}"#.to_owned());
    lines.extend(repeats(1, 5, "b"));
    assert!(audit(&log(&lines), Format::Dsh).reminders.is_empty());
}

#[test]
fn unanswered_calls_are_counted_not_observed() {
    let report = audit(
        &log(&[call(0, "c0", "bash", "{}"), call(1, "c1", "bash", "{}")]),
        Format::Dsh,
    );
    assert_eq!((report.calls, report.unanswered), (2, 2));
}

#[test]
fn trace_format_agents_exit_codes_and_resets() {
    let text = [
        r#"{"agentId":"a","tool":"bash","arguments":{"command":"ls"},"output":"x"}"#,
        r#"{"agentId":"b","tool":"bash","arguments":{"command":"ls"},"output":"x"}"#,
        r#"{"agentId":"a","tool":"bash","argumentsJson":"{\"command\": \"ls\"}","output":"x"}"#,
        r#"{"agentId":"a","tool":"bash","arguments":{"command":"ls"},"output":"x","callId":"third"}"#,
        r#"{"agentId":"b","type":"user"}"#,
        r#"{"agentId":"b","tool":"bash","arguments":{"command":"ls"},"output":"x"}"#,
        r#"{"agentId":"b","tool":"bash","arguments":{"command":"ls"},"output":"x"}"#,
        // Exit 1: the failure already shows, `when: success` rules stay silent.
        r#"{"tool":"bash","arguments":{"command":"pytest"},"output":"1 failed in 0.2s","exitCode":1}"#,
        r#"{"tool":"bash","arguments":{"command":"pytest | tail -1"},"output":"1 failed in 0.2s","exitCode":0}"#,
        r#"{"tool":"bash","arguments":{"command":"pytest"},"output":"1 failed in 0.2s","isError":true}"#,
        r#"{"type":"party"}"#,
    ]
    .join("\n");
    let report = audit(text.as_bytes(), Format::Auto);
    assert_eq!(report.format, Format::Trace);
    assert_eq!(report.agents, vec!["a", "b", "main"]);
    assert_eq!(report.calls, 9);
    let reminders: Vec<(&str, &str, u64)> = report
        .reminders
        .iter()
        .map(|r| {
            (
                r.site.agent_id.as_deref().unwrap(),
                r.site.call_id.as_deref().unwrap_or(""),
                r.count,
            )
        })
        .collect();
    assert_eq!(reminders, vec![("a", "third", 3)]);
    let failures: Vec<(&str, &str)> = report
        .failures
        .iter()
        .map(|f| (f.site.call_id.as_deref().unwrap_or(""), f.rule_id.as_str()))
        .collect();
    assert_eq!(failures, vec![("line 9", "pytest-failed")]);
    assert_eq!(report.errors.len(), 1);
    assert_eq!(report.errors[0].line, Some(11));
}

#[test]
fn zstd_frames_plain_and_truncated() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../__test__/audit/fixtures");
    let main = "--home-dev-report-site--/sample-main/session.jsonl";
    let plain = std::fs::read(dir.join("dsh-plain").join(main)).unwrap();
    let packed = std::fs::read(dir.join("dsh-zstd").join(format!("{main}.zstd"))).unwrap();
    let mut decoded = Vec::new();
    zstd::ZstdFrames::new(&packed[..])
        .read_to_end(&mut decoded)
        .unwrap();
    // Same session shape in both recordings: same number of lines and events.
    assert_eq!(
        decoded.iter().filter(|&&b| b == b'\n').count(),
        plain.iter().filter(|&&b| b == b'\n').count()
    );
    let a = audit(&plain, Format::Auto);
    let b = audit(&packed, Format::Auto);
    assert!(b.compressed && !a.compressed);
    let ids = |r: &SessionReport| {
        (
            r.reminders
                .iter()
                .map(|x| (x.site.call_id.clone().unwrap_or_default(), x.count))
                .collect::<Vec<_>>(),
            r.failures
                .iter()
                .map(|x| {
                    (
                        x.site.call_id.clone().unwrap_or_default(),
                        x.rule_id.clone(),
                    )
                })
                .collect::<Vec<_>>(),
        )
    };
    assert_eq!(ids(&a), ids(&b));
    assert!(
        a.errors.is_empty() && b.errors.is_empty(),
        "{:?} {:?}",
        a.errors,
        b.errors
    );

    // Cut mid-frame: what decoded is audited, the cut is reported, no panic.
    let cut = audit(&packed[..packed.len() - 40], Format::Auto);
    assert!(
        cut.errors.iter().any(|e| e.message.contains("truncated")),
        "{:?}",
        cut.errors
    );
    // A flipped byte inside a frame: a checksum or decode error, never a panic.
    let mut bad = packed.clone();
    let at = bad.len() / 2;
    bad[at] ^= 0x55;
    let _ = audit(&bad, Format::Auto);
}

#[test]
fn config_json_errors_name_the_key() {
    assert_eq!(
        Config::from_json(r#"{"repeat":{"thresholds":[]}}"#)
            .unwrap_err()
            .to_string(),
        "repeat-tool-reminder: `thresholds` must not be empty"
    );
    assert!(Config::from_json("{")
        .unwrap_err()
        .to_string()
        .contains("not valid JSON"));
    assert_eq!(
        Config::from_json(r#"{"repeat":{"thresholds":[2]}}"#)
            .unwrap()
            .repeat
            .thresholds,
        vec![2]
    );
}

#[test]
fn preview_cuts_by_utf16_units() {
    assert_eq!(preview("héllo", 2), "hé…");
    assert_eq!(preview("hé", 2), "hé");
    // Astral characters are two units each, as in the engine's reminder.
    assert_eq!(preview("😀😀", 2), "😀…");
    assert_eq!(preview("a😀b", 2), "a…");
    assert_eq!(preview("a😀b", 3), "a😀…");
}

#[test]
fn cut_frame_keeps_its_whole_blocks() {
    // One frame holding many blocks (raw blocks of 1000 bytes each, built by
    // hand), cut in the middle of a block: everything before it is recovered.
    let lines: String = (0..50).map(|i| format!("{{\"n\":{i:0>990}}}\n")).collect();
    let data = lines.as_bytes();
    let mut frame = vec![0x28, 0xB5, 0x2F, 0xFD, 0x00, 0x58];
    // Descriptor 0x00: no content size, no checksum; window 0x58 = 2 MiB, more than
    // the data, so without recovery the decoder would hand out nothing at all.
    for (i, chunk) in data.chunks(1000).enumerate() {
        let last = (i + 1) * 1000 >= data.len();
        let header = ((chunk.len() as u32) << 3) | u32::from(last);
        frame.extend_from_slice(&header.to_le_bytes()[..3]);
        frame.extend_from_slice(chunk);
    }
    let mut whole = Vec::new();
    zstd::ZstdFrames::new(&frame[..])
        .read_to_end(&mut whole)
        .unwrap();
    assert_eq!(whole, data);
    // Cut inside block 21 (each block is 3 + 1000 bytes after the 6-byte header).
    let cut = &frame[..6 + 20 * 1003 + 500];
    let mut got = Vec::new();
    let err = zstd::ZstdFrames::new(cut)
        .read_to_end(&mut got)
        .unwrap_err();
    assert!(err.to_string().contains("truncated"), "{err}");
    assert_eq!(got, &data[..20 * 1000]);
}

#[test]
fn damaged_logs_never_panic() {
    // Deterministic xorshift: flipped bytes and cuts anywhere, plain and zstd.
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../__test__/audit/fixtures");
    let main = "--home-dev-report-site--/sample-main/session.jsonl";
    let inputs = [
        std::fs::read(dir.join("dsh-plain").join(main)).unwrap(),
        std::fs::read(dir.join("dsh-zstd").join(format!("{main}.zstd"))).unwrap(),
        std::fs::read(dir.join("trace/agents.jsonl")).unwrap(),
    ];
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    for input in &inputs {
        for _ in 0..150 {
            let mut bytes = input.clone();
            for _ in 0..(next() % 4) {
                let at = (next() as usize) % bytes.len();
                bytes[at] ^= (next() % 255 + 1) as u8;
            }
            let cut = (next() as usize) % (bytes.len() + 1);
            bytes.truncate(cut.max(bytes.len() / 2));
            let report = audit(&bytes, Format::Auto);
            assert!(report.lines <= bytes.len() as u64 + 1);
        }
    }
}

fn assistant(seq: u64, turn: u64, step: u64, usage: serde_json::Value) -> String {
    serde_json::json!({"type":"assistant/message","seq":seq,"time":10 * seq,
        "data":{"turn":turn,"step":step,"message":{"role":"assistant","content":[]},"usage":usage}})
    .to_string()
}

fn timed(line: String, time: u64, step: u64) -> String {
    let mut v: serde_json::Value = serde_json::from_str(&line).unwrap();
    v["time"] = time.into();
    v["data"]["step"] = step.into();
    v.to_string()
}

#[test]
fn dsh_timeline_has_times_step_usage_and_repeat_runs() {
    let usage = serde_json::json!({"inputTokens":100,"outputTokens":20,"cacheReadTokens":900});
    let lines = [
        assistant(0, 1, 1, usage.clone()),
        // One step, two calls: the step's tokens go on its first call only.
        timed(call(1, "a", "bash", r#"{"command":"ls"}"#), 1000, 1),
        timed(call(2, "b", "read_file", r#"{"path":"x"}"#), 1001, 1),
        timed(result(3, "a", "x", false), 1500, 1),
        timed(result(4, "b", "x", false), 1600, 1),
        assistant(
            5,
            1,
            2,
            serde_json::json!({"inputTokens":7,"outputTokens":3}),
        ),
        timed(call(6, "c", "bash", r#"{"command":"ls"}"#), 2000, 2),
        timed(result(7, "c", "x", false), 2100, 2),
        // A step without usage: no tokens, not zero.
        timed(call(8, "d", "bash", r#"{"command":"ls"}"#), 3000, 3),
        timed(result(9, "d", "x", false), 3100, 3),
    ];
    let report = audit(&log(&lines), Format::Dsh);
    assert_eq!(report.errors, vec![]);
    let got: Vec<_> = report
        .timeline
        .calls
        .iter()
        .map(|c| {
            (
                c.ordinal,
                c.call_id.as_deref().unwrap_or(""),
                c.time,
                c.end_time,
                c.input_tokens,
                c.output_tokens,
                c.repeat,
            )
        })
        .collect();
    assert_eq!(
        got,
        vec![
            (
                1,
                "a",
                Some(1000),
                Some(1500),
                Some(1000),
                Some(20),
                Some(1)
            ),
            // read_file sits between two `ls`: a different call, so `ls` starts over.
            (2, "b", Some(1001), Some(1600), Some(0), Some(0), Some(1)),
            (3, "c", Some(2000), Some(2100), Some(7), Some(3), Some(1)),
            (4, "d", Some(3000), Some(3100), None, None, Some(2)),
        ]
    );
    assert_eq!(report.timeline.calls[0].log_line, 3);
    assert_eq!(report.timeline.calls[0].agent_id.as_deref(), Some("s1"));
    let text = report.to_json();
    assert!(text.contains(r#""errorCount":0,"notes":[],"noteCount":0,"timeline":{"calls":["#));
    assert!(text.ends_with(r#""omitted":0}}"#));
    let json: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(
        json["timeline"]["calls"][3],
        serde_json::json!({"ordinal":4,"callId":"d","tool":"bash","agentId":"s1","logLine":10,
            "time":3000,"endTime":3100,"repeat":2})
    );
}

#[test]
fn untracked_tools_have_no_repeat_and_bad_usage_is_reported() {
    let config = Config::from_json(r#"{"repeat":{"exclude":["read_file"]}}"#).unwrap();
    let mut auditor = Auditor::new(&config).unwrap();
    let lines = [
        call(0, "a", "bash", "{}"),
        result(1, "a", "x", false),
        call(2, "b", "read_file", "{}"),
        result(3, "b", "x", false),
        call(4, "c", "bash", "{}"),
        result(5, "c", "x", false),
        assistant(6, 1, 2, serde_json::json!({"inputTokens":"many"})),
    ];
    let report = one(auditor.audit_reader("t".into(), &log(&lines)[..], Format::Dsh, &mut |_| {}));
    let repeats: Vec<_> = report.timeline.calls.iter().map(|c| c.repeat).collect();
    // Untracked calls are transparent to the chain: `bash {}` runs on at 2.
    assert_eq!(repeats, vec![Some(1), None, Some(2)]);
    assert_eq!(report.errors.len(), 1, "{:?}", report.errors);
    assert_eq!(report.errors[0].line, Some(8));
    assert!(report.errors[0]
        .message
        .starts_with("malformed assistant/message"));
}

#[test]
fn trace_time_and_usage_fields() {
    let text = [
        r#"{"tool":"bash","arguments":{},"time":5,"endTime":9,"usage":{"inputTokens":10,"outputTokens":2,"cacheWriteTokens":5}}"#,
        r#"{"tool":"bash","arguments":{}}"#,
        r#"{"tool":"bash","arguments":{},"time":"yesterday"}"#,
        r#"{"tool":"bash","arguments":{},"usage":{"outputTokens":2}}"#,
    ]
    .join("\n");
    let report = audit(text.as_bytes(), Format::Trace);
    let calls = &report.timeline.calls;
    assert_eq!(calls.len(), 2);
    assert_eq!(
        (
            calls[0].time,
            calls[0].end_time,
            calls[0].input_tokens,
            calls[0].output_tokens
        ),
        (Some(5), Some(9), Some(15), Some(2))
    );
    assert_eq!((calls[1].time, calls[1].input_tokens), (None, None));
    let errors: Vec<_> = report
        .errors
        .iter()
        .map(|e| (e.line, e.message.as_str()))
        .collect();
    assert_eq!(
        errors,
        vec![
            (
                Some(3),
                "\"time\" must be a whole number of milliseconds since the Unix epoch"
            ),
            (
                Some(4),
                "\"usage.inputTokens\" must be a non-negative integer (required)"
            ),
        ]
    );
}

#[test]
fn timeline_is_bounded_and_counts_the_rest() {
    let line = r#"{"tool":"t","arguments":{}}"#;
    let text = vec![line; MAX_TIMELINE_CALLS + 5].join("\n");
    let report = audit(text.as_bytes(), Format::Trace);
    assert_eq!(report.timeline.calls.len(), MAX_TIMELINE_CALLS);
    assert_eq!(report.timeline.omitted, 5);
    assert_eq!(report.calls, MAX_TIMELINE_CALLS as u64 + 5);
}

#[test]
fn failure_carries_its_notice_and_the_output_around_the_match() {
    let output = "one\ntwo\nthree\nTraceback (most recent call last):\nfive\nsix\nseven";
    let lines = [
        call(0, "a", "bash", r#"{"command":"make"}"#),
        result(1, "a", output, false),
    ];
    let report = audit(&log(&lines), Format::Dsh);
    let f = &report.failures[0];
    assert_eq!(f.line, 4);
    assert_eq!(f.output_context.from, 2);
    assert_eq!(
        f.output_context.lines,
        [
            "two",
            "three",
            "Traceback (most recent call last):",
            "five",
            "six"
        ]
    );
    assert!(f.text.starts_with("[loud-failure] bash reported no error but its output shows it failed:\n- python-traceback (line 4)"), "{}", f.text);
    assert!(!f.text.contains("seven"));
}

#[test]
fn assistant_message_with_a_lone_surrogate_escape_is_still_valid() {
    // JSON.stringify writes lone surrogates as escapes: valid JSON that serde
    // will not decode into a String; the line must not become an error.
    let line = r#"{"type":"assistant/message","seq":0,"time":1,"data":{"turn":1,"step":1,"message":{"role":"assistant","content":[{"type":"text","text":"\ud800"}]},"usage":{"inputTokens":5,"outputTokens":1}}}"#;
    let lines = [
        line.to_owned(),
        call(1, "a", "bash", "{}"),
        result(2, "a", "x", false),
    ];
    let report = audit(&log(&lines), Format::Dsh);
    assert_eq!(report.errors, vec![]);
    // Skipped text is not decoded, so the usage is still read.
    assert_eq!(report.timeline.calls[0].input_tokens, Some(5));
}

#[test]
fn a_300_call_loop_is_one_finding_numbered_as_the_timeline() {
    let config = Config {
        loops: Some(toolguard_core::config::LoopsConfig::default()),
        ..Config::default()
    };
    let mut auditor = Auditor::new(&config).unwrap();
    // Five other calls and a user prompt first: the loop's calls are
    // numbered as the timeline numbers them (6..=305), not from the prompt.
    let mut lines: Vec<String> = (0..5)
        .map(|i| format!(r#"{{"tool":"bash","arguments":{{"command":"ls {i}"}},"output":"x"}}"#))
        .collect();
    lines.push(r#"{"type":"user"}"#.to_owned());
    for _ in 0..300 {
        lines.push(
            r#"{"tool":"job_output","arguments":{"id":"j1"}, "output":"running"}"#.to_owned(),
        );
    }
    lines.push(r#"{"tool":"bash","arguments":{"command":"ls"},"output":"x"}"#.to_owned());
    let mut reports = auditor.audit_reader(
        "t.jsonl".into(),
        lines.join("\n").as_bytes(),
        Format::Trace,
        &mut |_| {},
    );
    assert_eq!(reports.len(), 1);
    let report = reports.remove(0);
    assert_eq!(report.loops.len(), 1, "{:#?}", report.loops.first());
    let l = &report.loops[0];
    // Polls of a job that says nothing new: waiting, until the 8th (no
    // times in this log: the count alone decides).
    assert_eq!(
        (l.kind, l.count, l.first_call, l.last_call, l.reminders),
        ("repeat", 300, 6, 305, 293)
    );
    assert_eq!(
        (l.site.line, l.last_log_line),
        (14, 306),
        "raised at the 8th call"
    );
    let ordinal = |line: u64| {
        report
            .timeline
            .calls
            .iter()
            .find(|c| c.log_line == line)
            .map(|c| c.ordinal)
    };
    assert_eq!((ordinal(7), ordinal(306)), (Some(6), Some(305)));
    assert_eq!(l.summary, "job_output: repeat × 300");
    assert!(l.text.contains("calls #6, #7, #8"), "{}", l.text);
    assert!(l.evidence.contains("#6, …, #294"), "{}", l.evidence);
}

/// Trace lines of a reproduction: the script run reproduces the error the
/// user quoted.
fn reproduction_trace(user: &str) -> String {
    let tb = "Traceback (most recent call last):\n  File \"/w/repro.py\", line 2, in <module>\n";
    let run = serde_json::json!({"tool":"bash","arguments":{"command":"cd /w && python repro.py"},
        "output": format!("{tb}RuntimeError: Dropped elements in sequence 9 at /w/a.py\n"),"exitCode":0});
    format!("{user}\n{run}")
}

#[test]
fn trace_user_text_makes_a_reproduced_error_context() {
    let verdicts = |text: &str| -> Vec<String> {
        let report = audit(text.as_bytes(), Format::Trace);
        assert!(report.errors.is_empty(), "{:?}", report.errors);
        report
            .failures
            .iter()
            .map(|f| f.verdict.as_str().to_owned())
            .collect()
    };
    // The user spoke, but the trace says nothing of what: the traceback is an error.
    assert_eq!(
        verdicts(&reproduction_trace(r#"{"type":"user"}"#)),
        ["error"]
    );
    let issue = serde_json::json!({"type":"user","text":"Combining fails with\nRuntimeError: Dropped elements in sequence 3 at /tmp/x.py\nplease fix"});
    assert_eq!(
        verdicts(&reproduction_trace(&issue.to_string())),
        ["context"]
    );
    let bad = audit(br#"{"type":"user","text":3}"#, Format::Trace);
    assert_eq!(bad.errors.len(), 1);
    assert!(bad.errors[0].message.contains("\"text\" must be a string"));
}

#[test]
fn trace_concurrent_calls_raise_no_loop_alarm() {
    let lines = |concurrent: bool| -> String {
        (0..9)
            .map(|i| {
                serde_json::json!({"tool":"read_file","arguments":{"path":"a.py"},"output":"x = 1\n",
                    "concurrent": concurrent && i > 0})
                .to_string()
            })
            .collect::<Vec<_>>()
            .join("\n")
    };
    let config = Config {
        loops: Some(toolguard_core::config::LoopsConfig::default()),
        ..Config::default()
    };
    let with_loops = |text: String| {
        let mut auditor = Auditor::new(&config).unwrap();
        one(auditor.audit_reader(
            "t.jsonl".into(),
            text.as_bytes(),
            Format::Trace,
            &mut |_| {},
        ))
    };
    let parallel = with_loops(lines(true));
    assert!(parallel.errors.is_empty(), "{:?}", parallel.errors);
    assert!(parallel.loops.is_empty(), "{:?}", parallel.loops.len());
    let serial = with_loops(lines(false));
    assert!(!serial.loops.is_empty());
    let bad = audit(
        br#"{"tool":"bash","output":"x","concurrent":"yes"}"#,
        Format::Trace,
    );
    assert!(bad.errors[0]
        .message
        .contains("\"concurrent\" must be a boolean"));
}

#[test]
fn dsh_log_user_message_text_makes_a_reproduced_error_context() {
    let tb = "Traceback (most recent call last):\n  File \"/w/repro.py\", line 2, in <module>\nRuntimeError: Dropped elements in sequence 9 at /w/a.py\n";
    let prompt = |text: &str| {
        serde_json::json!({"type":"user/message","seq":1,"time":1,
            "data":{"content":[{"type":"text","text":text}],"source":{"kind":"user"},"role":"user","id":"u"}})
        .to_string()
    };
    let verdicts = |first: String| -> Vec<&'static str> {
        let report = audit(
            &log(&[
                first,
                call(2, "c1", "bash", r#"{"command":"cd /w && python repro.py"}"#),
                result(3, "c1", tb, false),
            ]),
            Format::Dsh,
        );
        report.failures.iter().map(|f| f.verdict.as_str()).collect()
    };
    assert_eq!(verdicts(prompt("please look at the combiner")), ["error"]);
    assert_eq!(
        verdicts(prompt(
            "Combining fails with\nRuntimeError: Dropped elements in sequence 3 at /tmp/x.py"
        )),
        ["context"]
    );
}

#[test]
fn trace_reader_scans_every_default_shell_tool_without_case() {
    // The one default list (rules/shell-tools.json), as the hook and the adapters use it.
    let out = "Traceback (most recent call last):\n  File \"app.py\", line 3, in <module>\nValueError: bad input\n";
    for tool in toolguard_core::shell::default_shell_tools() {
        for name in [tool.clone(), tool.to_uppercase()] {
            let line = serde_json::json!({"tool": name, "arguments": {"command": "python app.py"}, "output": out});
            let report = audit(line.to_string().as_bytes(), Format::Trace);
            assert_eq!(report.failures.len(), 1, "{name} is a shell tool");
        }
    }
    let other =
        serde_json::json!({"tool": "read_file", "arguments": {"path": "app.py"}, "output": out});
    assert!(audit(other.to_string().as_bytes(), Format::Trace)
        .failures
        .is_empty());
}
