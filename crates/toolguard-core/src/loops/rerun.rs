//! The same failing attempt made again after the same steps.

use super::detect::{Found, Limits, Window};
use super::entry::effect;
use super::{About, LoopKind};

impl Limits {
    pub(super) fn rerun(&self, w: &Window) -> Option<Found> {
        let (last, n, transient, multiplier) = (w.last, w.n, w.transient, w.multiplier);
        let at = |i: usize| w.at(i);
        // Attempt again: a failing run or test whose last run failed the
        // same way, with a run between them that had already run, with the
        // same result, before that last one (the same fix script, the same
        // import check): the agent went round the same attempt again.
        let again = if matches!(last.effect, effect::RUN | effect::TEST) && last.troubled() {
            self.re_read
                .and(self.threshold(Some(2), multiplier, transient))
                .filter(|t| *t <= 2)
        } else {
            None
        };
        if again.is_some() {
            if let Some(j) = (1..n).find(|&i| at(i).call == last.call) {
                let prev = at(j);
                let same = prev.troubled()
                    && (last.same_result(&prev)
                        || (last.failing()
                            && prev.failing()
                            && last.sig != 0
                            && last.sig == prev.sig));
                let step = same
                    && (1..j).any(|i| {
                        let y = at(i);
                        matches!(y.effect, effect::RUN | effect::TEST)
                            && y.call != last.call
                            && (j + 1..n).any(|k| at(k).same_as(&y))
                    });
                if step {
                    return Some(Found {
                        about: About::Reruns,
                        scattered: true,
                        ..Found::new(LoopKind::ReRead, vec![prev.ordinal, last.ordinal], w)
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
    fn the_same_attempt_made_again_with_the_same_failure_is_a_rerun() {
        // Edit, check the import, run the test: it fails; restore, the same
        // import check, the test fails the same way again. Round two of one
        // attempt, though its edits differ.
        let test = r#"{"command":"python test_fix.py"}"#;
        let check = r#"{"command":"python -c 'import pkg'"}"#;
        let fail = |line: u32| {
            format!("Traceback (most recent call last):\n  File \"pkg/a.py\", line {line}\n    import struct\nSyntaxError: invalid syntax\n[exit code: 1]")
        };
        let (f1, f2) = (fail(13), fail(500));
        let calls = [
            ("bash", r#"{"command":"python fix1.py"}"#, "Updated", false),
            ("bash", check, "", false),
            ("bash", test, f1.as_str(), false),
            ("bash", r#"{"command":"cp a.py.bak a.py"}"#, "", false),
            ("bash", r#"{"command":"python fix2.py"}"#, "Updated", false),
            ("bash", check, "", false),
            ("bash", test, f2.as_str(), false),
        ];
        let mut l = loops();
        let r = run(&mut l, &calls);
        assert_eq!(first_alarm(&r), Some((6, "re-read")));
        assert_eq!(r[6], Some(("re-read", 2)));
        // A fix that changed the failure (another error) is progress.
        let other = "Traceback (most recent call last):\n  File \"t.py\", line 3\nAssertionError: 1 != 2\n[exit code: 1]";
        let mut calls = calls;
        calls[6].2 = other;
        let mut l = loops();
        assert_eq!(first_alarm(&run(&mut l, &calls)), None);
    }
}
