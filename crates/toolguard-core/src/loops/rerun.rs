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

// Its behaviour cases, replayed by the core and the reference engine alike:
// corpus/cases/loops/rerun.json.
