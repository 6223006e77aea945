//! The loop behaviour cases (`corpus/cases/loops/*.json`, format in its
//! README) replayed through the core's `Engine`: every step's loop alarm,
//! `check` refusal and (where a case names it) silent-failure verdict must
//! be what the case expects. `__test__/loop-cases.test.mjs` replays the same
//! files through the reference engine and the addon.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};
use toolguard_core::config::Config;
use toolguard_core::engine::{Call, Engine, Output, Verdict};
use toolguard_core::loops::{LoopAlarm, LoopDeny};

fn folder() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../corpus/cases/loops")
}

/// One step of a case: a call made `times` times, or the user speaking.
enum Step {
    Call {
        agent: String,
        tool: String,
        arguments_json: String,
        output: String,
        is_error: bool,
    },
    User(String),
}

fn text<'v>(value: &'v Value, key: &str, at: &str) -> &'v str {
    value
        .get(key)
        .and_then(Value::as_str)
        .unwrap_or_else(|| panic!("{at}: `{key}` must be a string"))
}

/// The steps of a case, `times` expanded.
fn steps(case: &Value, at: &str) -> Vec<Step> {
    let calls = case
        .get("calls")
        .and_then(Value::as_array)
        .unwrap_or_else(|| panic!("{at}: `calls` must be an array"));
    let mut out = Vec::new();
    for (i, call) in calls.iter().enumerate() {
        let at = format!("{at}, calls[{i}]");
        if let Some(agent) = call.get("user") {
            let agent = agent.as_str().unwrap_or("a").to_owned();
            out.push(Step::User(agent));
            continue;
        }
        let arguments_json = match call.get("args") {
            Some(Value::String(raw)) => raw.clone(),
            // Keys sorted (serde_json's map): the node runner writes them so too.
            Some(value @ Value::Object(_)) => value.to_string(),
            _ => panic!("{at}: `args` must be an object or a JSON string"),
        };
        let times = call.get("times").map_or(1, |t| {
            t.as_u64()
                .unwrap_or_else(|| panic!("{at}: `times` must be a whole number"))
        });
        for _ in 0..times {
            out.push(Step::Call {
                agent: call
                    .get("agent")
                    .and_then(Value::as_str)
                    .unwrap_or("a")
                    .to_owned(),
                tool: text(call, "tool", &at).to_owned(),
                arguments_json: arguments_json.clone(),
                output: call
                    .get("output")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_owned(),
                is_error: call
                    .get("isError")
                    .and_then(Value::as_bool)
                    .unwrap_or(false),
            });
        }
    }
    out
}

/// `want` (a string or a list of strings): each must occur in `got`.
fn contains_all(want: &Value, got: &str, what: &str, problems: &mut String) {
    let parts: Vec<&str> = match want {
        Value::String(s) => vec![s.as_str()],
        Value::Array(a) => a.iter().filter_map(Value::as_str).collect(),
        _ => vec![],
    };
    for part in parts {
        if !got.contains(part) {
            let _ = write!(problems, "\n  {what} lacks {part:?}: {got:?}");
        }
    }
}

fn number(want: &Map<String, Value>, key: &str, got: u64, problems: &mut String) {
    if let Some(w) = want.get(key) {
        if w.as_u64() != Some(got) {
            let _ = write!(problems, "\n  {key}: expected {w}, got {got}");
        }
    }
}

fn check_loop(want: Option<&Value>, got: Option<&LoopAlarm>, problems: &mut String) {
    match (want, got) {
        (None | Some(Value::Null), None) => {}
        (None | Some(Value::Null), Some(a)) => {
            let _ = write!(
                problems,
                "\n  unexpected loop alarm: {} × {}: {}",
                a.kind.as_str(),
                a.count,
                a.text
            );
        }
        (Some(w), None) => {
            let _ = write!(problems, "\n  expected loop alarm {w}, got none");
        }
        (Some(w), Some(a)) => {
            let w = w.as_object().expect("`loop` must be an object");
            if w.get("kind").and_then(Value::as_str) != Some(a.kind.as_str()) {
                let _ = write!(
                    problems,
                    "\n  kind: expected {}, got {}",
                    w["kind"],
                    a.kind.as_str()
                );
            }
            number(w, "count", a.count, problems);
            number(w, "period", a.period, problems);
            number(w, "first", a.first, problems);
            number(w, "last", a.last, problems);
            number(w, "reminders", a.reminders, problems);
            if let Some(calls) = w.get("calls") {
                let want: Vec<u64> = calls
                    .as_array()
                    .map_or(vec![], |c| c.iter().filter_map(Value::as_u64).collect());
                if want != a.calls {
                    let _ = write!(problems, "\n  calls: expected {want:?}, got {:?}", a.calls);
                }
            }
            if let Some(t) = w.get("text") {
                contains_all(t, &a.text, "text", problems);
            }
            if let Some(t) = w.get("evidence") {
                contains_all(t, &a.evidence, "evidence", problems);
            }
            if let Some(s) = w.get("summary") {
                if s.as_str() != Some(a.summary.as_str()) {
                    let _ = write!(problems, "\n  summary: expected {s}, got {:?}", a.summary);
                }
            }
        }
    }
}

fn check_deny(want: Option<&Value>, got: Option<&LoopDeny>, problems: &mut String) {
    match (want, got) {
        (None | Some(Value::Null), None) => {}
        (None | Some(Value::Null), Some(d)) => {
            let _ = write!(problems, "\n  unexpected refusal: {}", d.reason);
        }
        (Some(w), None) => {
            let _ = write!(problems, "\n  expected refusal {w}, got none");
        }
        (Some(w), Some(d)) => {
            let w = w.as_object().expect("`deny` must be an object");
            if w.get("kind").and_then(Value::as_str) != Some(d.kind.as_str()) {
                let _ = write!(
                    problems,
                    "\n  deny kind: expected {}, got {}",
                    w["kind"],
                    d.kind.as_str()
                );
            }
            number(w, "count", d.count, problems);
            number(w, "reminders", d.reminders, problems);
            if let Some(t) = w.get("reason") {
                contains_all(t, &d.reason, "reason", problems);
            }
        }
    }
}

fn check_failure(want: Option<&Value>, verdict: Option<&Verdict>, problems: &mut String) {
    let Some(want) = want else { return };
    let got = verdict
        .and_then(|v| v.failure.as_ref())
        .map(|f| f.action.as_str());
    if want.as_str() != got {
        let _ = write!(problems, "\n  failure: expected {want}, got {got:?}");
    }
}

/// Replays one case; what went other than expected, step by step.
fn replay(case: &Value, at: &str) -> String {
    let config = case
        .get("config")
        .cloned()
        .unwrap_or_else(|| serde_json::json!({ "loops": {} }));
    let config =
        Config::from_json(&config.to_string()).unwrap_or_else(|e| panic!("{at}: config: {e}"));
    let mut engine = Engine::new(&config).unwrap_or_else(|e| panic!("{at}: engine: {e}"));
    let expect = case.get("expect").and_then(Value::as_object);
    if let Some(expect) = expect {
        for key in expect.keys() {
            assert!(
                key.parse::<usize>().is_ok(),
                "{at}: expect key {key:?} is not a step number"
            );
        }
    }
    let mut problems = String::new();
    // Steps are numbered by call; the user speaking is no step.
    let mut n = 0;
    for step in steps(case, at) {
        let (agent, tool, arguments_json, output, is_error) = match &step {
            Step::User(agent) => {
                engine.reset(agent);
                continue;
            }
            Step::Call {
                agent,
                tool,
                arguments_json,
                output,
                is_error,
            } => (agent, tool, arguments_json, output, *is_error),
        };
        n += 1;
        let want = expect.and_then(|e| e.get(&n.to_string()));
        let call = Call {
            agent_id: Some(agent),
            name: tool,
            arguments_json,
        };
        let mut step_problems = String::new();
        let deny = engine.check(&call);
        check_deny(
            want.and_then(|w| w.get("deny")),
            deny.as_ref(),
            &mut step_problems,
        );
        let out = Output {
            is_error,
            texts: vec![output.as_str()],
            ..Output::default()
        };
        let verdict = engine.observe(&call, Some(&out));
        check_loop(
            want.and_then(|w| w.get("loop")),
            verdict.as_ref().and_then(|v| v.loop_alarm.as_ref()),
            &mut step_problems,
        );
        check_failure(
            want.and_then(|w| w.get("failure")),
            verdict.as_ref(),
            &mut step_problems,
        );
        if !step_problems.is_empty() {
            let _ = write!(problems, "\n{at}, step {n} ({tool}):{step_problems}");
        }
    }
    problems
}

#[test]
fn every_loop_case_gives_the_expected_verdicts() {
    let mut files: Vec<PathBuf> = std::fs::read_dir(folder())
        .unwrap_or_else(|e| panic!("{}: {e}", folder().display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no case files in {}", folder().display());
    let (mut cases, mut problems) = (0, String::new());
    for file in &files {
        let name = file.file_name().unwrap().to_string_lossy().into_owned();
        let doc: Value = serde_json::from_str(&std::fs::read_to_string(file).unwrap())
            .unwrap_or_else(|e| panic!("{name}: not JSON: {e}"));
        let list = doc
            .get("cases")
            .and_then(Value::as_array)
            .unwrap_or_else(|| panic!("{name}: `cases` must be an array"));
        for case in list {
            let at = format!("{name}: {}", text(case, "name", &name));
            problems.push_str(&replay(case, &at));
            cases += 1;
        }
    }
    assert!(
        problems.is_empty(),
        "{cases} cases, these went otherwise:{problems}"
    );
}
