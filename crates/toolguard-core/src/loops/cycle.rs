//! A block of calls repeated round after round with the same results.

use super::detect::{span, Found, Limits, Window};
use super::entry::effect;
use super::{About, LoopKind};

impl Limits {
    pub(super) fn cycle(&self, w: &Window) -> Option<Found> {
        let (last, n, transient, multiplier) = (w.last, w.n, w.transient, w.multiplier);
        let at = |i: usize| w.at(i);
        // Cycle: the shortest period p whose trailing periodic stretch has
        // begun the `cycle`-th round.
        if let Some(rounds) = self.threshold(self.cycle, multiplier, transient) {
            for p in 2..=self.max_period.min(n / 2) {
                // A block made of a shorter period is that period's cycle.
                if (1..p).any(|d| p % d == 0 && (d..p).all(|i| at(i).same_as(&at(i - d)))) {
                    continue;
                }
                let mut len = p;
                while len < n && at(len).same_as(&at(len - p)) {
                    len += 1;
                }
                let begun = len.div_ceil(p) as u64;
                // Going back in a browser returns to a page; it does not loop.
                if (0..p).any(|i| at(i).effect == effect::NAVIGATE) {
                    continue;
                }
                // A block that polls and otherwise only looks (sleep, then
                // the log's tail) is waiting, as above.
                let polling = (0..p).any(|i| at(i).polling())
                    && (0..p).all(|i| {
                        matches!(
                            at(i).effect,
                            effect::WAIT | effect::READ | effect::SEARCH | effect::OTHER
                        )
                    });
                let span_ms = span(at(len - 1).time, last.time);
                let long_enough = !polling
                    || (self
                        .threshold(self.poll, multiplier, transient)
                        .is_some_and(|t| len as u64 >= t)
                        && self.quiet_long(span_ms));
                if len > p && begun >= rounds && long_enough {
                    return Some(Found {
                        count: begun,
                        period: p as u64,
                        // The call that follows in the block: the one p back
                        // from the one to come.
                        next_call: at(p - 1).call,
                        about: if polling { About::Polls } else { About::Calls },
                        span_ms,
                        ..Found::new(
                            LoopKind::Cycle,
                            (0..len).rev().map(|i| at(i).ordinal).collect(),
                            w,
                        )
                    });
                }
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use crate::loops::testing::*;

    #[test]
    fn cycle_of_period_two_and_three() {
        let mut l = loops();
        let edit = r#"{"path":"core.py","old_string":"a","new_string":"b"}"#;
        let mut calls = Vec::new();
        for _ in 0..4 {
            calls.push((
                "edit_file",
                edit,
                "edit_file: old_string not found in core.py",
                true,
            ));
            calls.push(("bash", PYTEST, "1 failed in 0.2s\n[exit code: 1]", false));
        }
        let r = run(&mut l, &calls);
        assert_eq!(first_alarm(&r), Some((4, "cycle")), "{r:?}");
        assert_eq!(r[4], Some(("cycle", 3)));
        assert_eq!(r[7], Some(("cycle", 4)));

        let mut l = loops();
        let mut calls = Vec::new();
        for _ in 0..3 {
            calls.push(("read_file", r#"{"path":"core.py"}"#, "def f(): pass", false));
            calls.push(("edit_file", edit, "edit_file: old_string not found", true));
            calls.push(("bash", PYTEST, "1 failed\n[exit code: 1]", false));
        }
        assert_eq!(first_alarm(&run(&mut l, &calls)), Some((6, "cycle")));
    }
}
