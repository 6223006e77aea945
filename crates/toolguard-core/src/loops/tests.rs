//! Tests of the API and of episodes: counts and reminders past the window,
//! `check` refusals, ordinals, concurrent calls.

use super::*;
use crate::loops::testing::*;

#[test]
fn reset_exempt_and_multipliers() {
    let config = LoopsConfig {
        exempt: vec!["todo_*".into()],
        multipliers: vec![("kubectl*".into(), 2.0)],
        ..Default::default()
    };
    let mut l = Loops::new(&config);
    let r = run(
        &mut l,
        &[
            ("bash", PYTEST, "same", false),
            ("todo_write", "{}", "ok", false),
            ("bash", PYTEST, "same", false),
            ("bash", PYTEST, "same", false),
        ],
    );
    assert_eq!(r[3], Some(("repeat", 3)), "an exempt tool is transparent");
    l.remove("a");
    assert_eq!(run(&mut l, &[("bash", PYTEST, "same", false)]), [None]);
    let r = run(&mut l, &[("kubectl_get", "{}", "x", false); 6]);
    assert_eq!(
        first_alarm(&r),
        Some((5, "repeat")),
        "threshold 3 × 2 = 6: {r:?}"
    );
}

#[test]
fn deny_after_reminders_never_resets_a_counter() {
    let config = LoopsConfig {
        deny: Some(2),
        ..Default::default()
    };
    let mut l = Loops::new(&config);
    let out = LoopOutcome {
        text: "no match",
        ..Default::default()
    };
    let grep = r#"{"command":"grep x"}"#;
    for _ in 0..3 {
        assert!(
            l.check("a", "bash", grep).is_none(),
            "no loop reminded twice yet"
        );
        l.observe("a", "bash", grep, &out);
    }
    assert!(l.check("a", "bash", grep).is_none(), "one reminder so far");
    l.observe("a", "bash", grep, &out);
    let deny = l.check("a", "bash", grep).expect("two reminders: deny");
    assert_eq!(deny.kind, LoopKind::Repeat);
    assert!(deny.reason.contains("repeat loop"), "{}", deny.reason);
    assert!(
        l.check("a", "bash", r#"{"command":"grep y"}"#).is_none(),
        "another call may run"
    );
    // The refused call is observed anyway (DSH counts denied calls) with the
    // refusal as its result: passed over, the run goes on.
    assert!(l
        .observe(
            "a",
            "bash",
            grep,
            &LoopOutcome {
                text: "refused",
                is_error: true,
                flagged: false
            }
        )
        .is_none());
    let next = l
        .observe("a", "bash", grep, &out)
        .expect("the loop continues");
    assert_eq!((next.count, next.reminders), (5, 3));
}

#[test]
fn a_loop_longer_than_the_window_is_one_episode_to_the_end() {
    let mut l = loops();
    let alarms = long_repeat(&mut l, 300);
    assert_eq!(alarms.len(), 298, "an alarm at every call from the 3rd");
    let last = alarms.last().unwrap();
    assert_eq!(
        (last.count, last.first, last.last, last.reminders),
        (300, 1, 300, 298),
        "the real count, the first and last call, reminders never restart"
    );
    assert!(alarms.iter().all(|a| a.first == 1), "one episode");
    assert!(
        alarms
            .windows(2)
            .all(|w| w[1].reminders == w[0].reminders + 1 && w[1].count == w[0].count + 1),
        "counts and reminders climb to the end"
    );
    assert!(
        last.text.contains("300 times")
            && last.text.contains("#1, …, #289")
            && last.text.contains("#300")
            && last.text.contains("reminder 298"),
        "{}",
        last.text
    );
    // A cycle past the window: rounds keep counting too.
    let mut l = loops();
    let mut calls = Vec::new();
    for _ in 0..100 {
        calls.push(("read_file", r#"{"path":"a.py"}"#, "x = 1", false));
        calls.push(("bash", PYTEST, "1 failed\n[exit code: 1]", false));
    }
    let out: Vec<_> = calls
        .iter()
        .filter_map(|(t, a, o, f)| {
            l.observe(
                "a",
                t,
                a,
                &LoopOutcome {
                    text: o,
                    is_error: *f,
                    flagged: false,
                },
            )
        })
        .collect();
    let last = out.last().unwrap();
    assert_eq!(
        (last.kind, last.count, last.first),
        (LoopKind::Cycle, 100, 1)
    );
    assert_eq!(last.reminders, out.len() as u64);
}

#[test]
fn deny_works_however_long_the_loop_runs() {
    let config = LoopsConfig {
        deny: Some(280),
        ..Default::default()
    };
    let mut l = Loops::new(&config);
    let out = LoopOutcome {
        text: "still waiting",
        ..Default::default()
    };
    let mut denied_at = None;
    for i in 1..=300u64 {
        if l.check("a", "bash", PYTEST).is_some() {
            denied_at = Some(i);
            break;
        }
        l.observe("a", "bash", PYTEST, &out);
    }
    assert_eq!(
        denied_at,
        Some(283),
        "280 reminders (calls 3..=282): the 283rd call is refused"
    );
}

#[test]
fn a_reread_loop_with_calls_in_between_is_one_episode() {
    let mut l = loops();
    let read = r#"{"path":"config.yaml"}"#;
    let others: Vec<String> = (0..60)
        .map(|i| format!(r#"{{"command":"grep -n k{i} app.py"}}"#))
        .collect();
    let mut alarms = Vec::new();
    for o in &others {
        for (t, a, r) in [
            ("read_file", read, "port: 8080"),
            ("bash", o.as_str(), "4:x"),
        ] {
            alarms.extend(l.observe(
                "a",
                t,
                a,
                &LoopOutcome {
                    text: r,
                    ..Default::default()
                },
            ));
        }
    }
    assert_eq!(alarms.len(), 58);
    assert!(alarms
        .iter()
        .all(|a| a.first == 1 && a.kind == LoopKind::ReRead));
    let last = alarms.last().unwrap();
    assert_eq!((last.count, last.reminders), (60, 58));
    assert!(
        last.text.contains("60 times since call #1"),
        "{}",
        last.text
    );
    // An edit in between ends it: the next alarm is a new episode.
    let mut l = loops();
    let mut firsts = Vec::new();
    for round in 0..2 {
        for o in &others[..4] {
            for (t, a, r) in [
                ("read_file", read, "port: 8080"),
                ("bash", o.as_str(), "4:x"),
            ] {
                if let Some(a) = l.observe(
                    "a",
                    t,
                    a,
                    &LoopOutcome {
                        text: r,
                        ..Default::default()
                    },
                ) {
                    firsts.push((round, a.first, a.reminders));
                }
            }
        }
        l.observe(
            "a",
            "edit_file",
            r#"{"path":"config.yaml"}"#,
            &LoopOutcome::default(),
        );
    }
    assert_eq!(firsts, [(0, 1, 1), (0, 1, 2), (1, 10, 1), (1, 10, 2)]);
}

#[test]
fn concurrent_calls_raise_nothing_but_fill_the_window() {
    // Four background jobs launched in one turn, all failing alike: the
    // model made them before it saw any result, so no alarm. The same
    // batch made again after the results is a loop, and the episode
    // counts the parallel calls too.
    let mut l = loops();
    let out = LoopOutcome {
        text: "Error: Exit code 1\nModuleNotFoundError: No module named 'foo'",
        is_error: true,
        ..Default::default()
    };
    let mut ordinal = 0;
    let mut batch = |l: &mut Loops| {
        (0..4)
            .map(|i| {
                ordinal += 1;
                l.observe_marked(
                    "a",
                    "bash",
                    PYTEST,
                    &out,
                    CallMark {
                        ordinal: Some(ordinal),
                        time_ms: None,
                        concurrent: i > 0,
                    },
                )
            })
            .collect::<Vec<_>>()
    };
    assert!(batch(&mut l).iter().all(Option::is_none));
    let again = batch(&mut l);
    let first = again[0].as_ref().expect("the batch made again");
    assert_eq!((first.first, first.last, first.reminders), (1, 5, 1));
    assert!(again[1..].iter().all(Option::is_none));
    // The same calls made one after the other: alarms from the third on.
    let mut l = loops();
    let sequential = (1..=4)
        .map(|o| {
            let mark = CallMark {
                ordinal: Some(o),
                ..Default::default()
            };
            l.observe_marked("a", "bash", PYTEST, &out, mark).is_some()
        })
        .collect::<Vec<_>>();
    assert!(sequential[3], "{sequential:?}");
}
