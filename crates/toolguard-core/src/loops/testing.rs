//! What the loop tests share: a default [`Loops`], a feeder of calls, and
//! the call shapes several tests use.

pub(crate) use crate::config::LoopsConfig;
pub(crate) use crate::loops::{CallMark, LoopAlarm, LoopOutcome, Loops};

pub(crate) fn loops() -> Loops {
    Loops::new(&LoopsConfig::default())
}

/// Feed `(tool, args, output, failed)` calls; the kinds of the alarms by call index.
pub(crate) fn run(
    l: &mut Loops,
    calls: &[(&str, &str, &str, bool)],
) -> Vec<Option<(&'static str, u64)>> {
    calls
        .iter()
        .map(|(tool, args, out, failed)| {
            l.observe(
                "a",
                tool,
                args,
                &LoopOutcome {
                    text: out,
                    is_error: *failed,
                    flagged: false,
                },
            )
            .map(|a| (a.kind.as_str(), a.count))
        })
        .collect()
}

pub(crate) fn first_alarm(v: &[Option<(&'static str, u64)>]) -> Option<(usize, &'static str)> {
    v.iter()
        .enumerate()
        .find_map(|(i, a)| a.map(|(k, _)| (i, k)))
}

pub(crate) const PYTEST: &str = r#"{"command":"pytest -q"}"#;

/// A traceback of `script.py` failing at `line` with `message`.
pub(crate) fn traceback(line: u32, message: &str) -> String {
    format!(
        "Traceback (most recent call last):\n  File \"/w/script.py\", line {}, in <module>\n    main()\n  File \"/w/script.py\", line {line}, in main\n    total = parse(rows)\nValueError: {message}\n[exit code: 1]",
        line + 40
    )
}

/// Edit, run, edit, run, ...: the runs' outputs as given.
pub(crate) fn edit_and_run(outs: &[String]) -> Vec<Option<(&'static str, u64)>> {
    let mut l = loops();
    let run_it = r#"{"command":"python script.py"}"#;
    let edits: Vec<String> = (0..outs.len())
        .map(|i| format!(r#"{{"path":"script.py","old_string":"a{i}","new_string":"b{i}"}}"#))
        .collect();
    let mut calls = Vec::new();
    for (o, e) in outs.iter().zip(&edits) {
        calls.push(("edit_file", e.as_str(), "Edited script.py", false));
        calls.push(("bash", run_it, o.as_str(), false));
    }
    run(&mut l, &calls)
}

/// Feed `n` identical polls with the same result; the alarms.
pub(crate) fn long_repeat(l: &mut Loops, n: usize) -> Vec<LoopAlarm> {
    let out = LoopOutcome {
        text: "still waiting",
        ..Default::default()
    };
    (0..n)
        .filter_map(|_| l.observe("a", "bash", PYTEST, &out))
        .collect()
}

/// `(tool, args, output)` calls, none failing by flag, each `between`
/// apart in wall time from `t0` (ms; 0: no times): the alarms' (kind, text).
pub(crate) fn timed(
    l: &mut Loops,
    calls: &[(&str, &str, &str)],
    between: u64,
) -> Vec<Option<(&'static str, String)>> {
    calls
        .iter()
        .enumerate()
        .map(|(i, (tool, args, out))| {
            l.observe_marked(
                "a",
                tool,
                args,
                &LoopOutcome {
                    text: out,
                    ..Default::default()
                },
                CallMark {
                    ordinal: Some(i as u64 + 1),
                    time_ms: (between > 0).then(|| 1_700_000_000_000 + i as u64 * between),
                    concurrent: false,
                },
            )
            .map(|a| (a.kind.as_str(), a.text))
        })
        .collect()
}
