//! The same call again and again with the same outcome (or a quiet poll, long enough).

use super::detect::{span, Found, Limits, Window};
use super::entry::effect;
use super::{About, LoopKind};

impl Limits {
    pub(super) fn repeat(&self, w: &Window) -> Option<Found> {
        let (last, n, transient, multiplier) = (w.last, w.n, w.transient, w.multiplier);
        let at = |i: usize| w.at(i);
        // Repeat: the trailing run of the same call with the same outcome.
        let mut run = 1;
        // Each call against the next one: a first occurrence compares raw,
        // later ones normalised, so equality is checked link by link.
        while run < n && at(run).same_outcome_in_a_row(&at(run - 1)) {
            run += 1;
        }
        // A running job's polls that show nothing new are waiting: only
        // long (by count, and by wall time where the calls have it) is a loop.
        let polling = last.polling();
        // Going back in a browser says the same ("Navigated back") while it
        // goes further back each time.
        let base = if polling {
            self.poll
        } else if last.effect == effect::NAVIGATE {
            None
        } else {
            self.repeat
        };
        if let Some(t) = self.threshold(base, multiplier, transient) {
            let span_ms = span(at(run - 1).time, last.time);
            if run as u64 >= t && (!polling || self.quiet_long(span_ms)) {
                return Some(Found {
                    about: if polling {
                        About::Polls
                    } else if last.effect == effect::WAIT {
                        About::EndedJob
                    } else {
                        About::Calls
                    },
                    span_ms,
                    ..Found::new(
                        LoopKind::Repeat,
                        (0..run).rev().map(|i| at(i).ordinal).collect(),
                        w,
                    )
                });
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::loops::testing::*;

    #[test]
    fn repeat_needs_the_same_result_and_recurs_at_every_step() {
        let mut l = loops();
        let out = "..F\n1 failed, 2 passed in 0.03s\n[exit code: 1]";
        let r = run(&mut l, &[("bash", PYTEST, out, false); 6]);
        assert_eq!(r[..2], [None, None]);
        assert_eq!(r[2], Some(("repeat", 3)));
        assert_eq!(
            r[5],
            Some(("repeat", 6)),
            "the reminder comes again at every call"
        );
        // The timing differs between runs: normalised away.
        let mut l = loops();
        let r = run(
            &mut l,
            &[
                ("bash", PYTEST, "1 failed in 0.03s", false),
                ("bash", PYTEST, "1 failed in 0.31s", false),
                ("bash", PYTEST, "1 failed in 1.2s", false),
                ("bash", PYTEST, "1 failed in 0.5s", false),
            ],
        );
        // A failure is normalised at its first occurrence too: the first run
        // differs from the second only in its timing, the same failure.
        assert_eq!(r, [None, None, Some(("repeat", 3)), Some(("repeat", 4))]);
        let mut l = loops();
        let r = run(
            &mut l,
            &[
                ("bash", PYTEST, "1 failed in 0.03s", false),
                ("bash", PYTEST, "1 failed in 0.03s", false),
                ("bash", PYTEST, "1 failed in 1.2s", false),
            ],
        );
        assert_eq!(r[2], Some(("repeat", 3)));
    }

    #[test]
    fn trap_polling_with_a_changing_result_is_never_a_loop() {
        let mut l = loops();
        let polls: Vec<String> = (1..=12)
            .map(|i| format!("epoch {i}/20 loss 0.{}\n[status: running]", 90 - i))
            .collect();
        let calls: Vec<(&str, &str, &str, bool)> = polls
            .iter()
            .map(|p| ("job_output", r#"{"job_id":"j1"}"#, p.as_str(), false))
            .collect();
        assert_eq!(first_alarm(&run(&mut l, &calls)), None);
    }

    #[test]
    fn trap_429_then_success() {
        let mut l = loops();
        let curl = r#"{"command":"curl -s -w '\\nHTTP %{http_code}\\n' http://h/api"}"#;
        let limited = "{\"error\": \"rate_limited\"}\n\nHTTP 429\n";
        let r = run(
            &mut l,
            &[
                ("bash", curl, limited, false),
                ("bash", curl, limited, false),
                ("bash", curl, limited, false),
                ("bash", curl, "{\"rows\": 42}\n\nHTTP 200\n", false),
            ],
        );
        assert_eq!(
            first_alarm(&r),
            None,
            "a rate limit gets a doubled threshold"
        );
        // …but a rate limit hammered on and on is still a loop, with back-off advice.
        let mut l = loops();
        let mut last = None;
        for _ in 0..6 {
            last = l.observe(
                "a",
                "bash",
                curl,
                &LoopOutcome {
                    text: limited,
                    ..Default::default()
                },
            );
        }
        let alarm = last.expect("six identical 429s");
        assert_eq!(alarm.kind, LoopKind::Repeat);
        assert!(alarm.text.contains("back off"), "{}", alarm.text);
    }

    #[test]
    fn polling_a_quiet_running_job_is_waiting_until_long() {
        let poll = (
            "BashOutput",
            r#"{"bash_id":"b1"}"#,
            "<status>running</status>\n<timestamp>x</timestamp>",
        );
        // Five quiet polls: before, "repeat × 3" with "calling it again will
        // return the same thing"; a running job is waiting.
        let mut l = loops();
        let r = timed(&mut l, &[poll; 7], 0);
        assert!(r.iter().all(Option::is_none), "{r:?}");
        // Eight in a row, 10 s apart: still waiting (80 s is not long).
        let mut l = loops();
        assert!(timed(&mut l, &[poll; 12], 10_000)
            .iter()
            .all(Option::is_none));
        // One a minute: from the 8th on, nothing new for 7+ minutes.
        let mut l = loops();
        let r = timed(&mut l, &[poll; 9], 60_000);
        assert_eq!(r[6], None);
        let (kind, text) = r[7].clone().expect("8 quiet polls over 7 min");
        assert_eq!(kind, "repeat");
        assert!(
            text.contains("showed nothing new") && text.contains("over 7 min"),
            "{text}"
        );
        assert!(
            text.contains("back off") && !text.contains("return the same thing"),
            "{text}"
        );
        // Without times (a live host): the count alone.
        let mut l = loops();
        let r = timed(&mut l, &[poll; 8], 0);
        assert!(r[7].is_some() && r[6].is_none());
        // The job has ended and the agent polls on: the plain repeat rule.
        let done = (
            "BashOutput",
            r#"{"bash_id":"b1"}"#,
            "<status>completed</status>\n<exit_code>0</exit_code>",
        );
        let mut l = loops();
        let r = timed(&mut l, &[done; 3], 0);
        let (kind, text) = r[2].clone().expect("a finished job polled 3 times");
        assert_eq!(kind, "repeat");
        assert!(text.contains("already ended"), "{text}");
        // A sleep-then-look cycle of a running job is waiting too.
        let mut l = loops();
        let calls = [
            ("bash", r#"{"command":"sleep 30"}"#, ""),
            ("bash", r#"{"command":"tail -5 /tmp/train.log"}"#, "epoch 3"),
        ]
        .repeat(4);
        assert!(timed(&mut l, &calls, 10_000).iter().all(Option::is_none));
    }
}
