//! The same restore again, with attempts between that end as before.

use super::detect::{Found, Limits, Window};
use super::entry::{effect, FAILED, PATHLESS, SOFT};
use super::{About, LoopKind};

impl Limits {
    pub(super) fn undo(&self, w: &Window) -> Option<Found> {
        let (last, n, transient, multiplier) = (w.last, w.n, w.transient, w.multiplier);
        let at = |i: usize| w.at(i);
        // Undo: the same restore again. A state change that names a file
        // (`cp f.bak f`, `git checkout -- f`, an editor's undo), made word for
        // word with the same result for the `reRead`-th time, each time after
        // other state changes (the attempts it undoes), and an attempt since
        // the previous restore ended exactly as one before it had (the same
        // failing run, the same output): the agent keeps returning to the
        // same state and its attempts get no further. One restore before a
        // new approach, or restores between debug runs that each show
        // something new, are not one.
        let undo = if last.effect == effect::WRITE && last.flags & (PATHLESS | FAILED | SOFT) == 0 {
            self.threshold(self.re_read, multiplier, transient)
        } else {
            None
        };
        if let Some(t) = undo {
            let mut calls = vec![last.ordinal];
            // Where the restore before the newest one sits in the window.
            let mut previous = None;
            let mut newer = last;
            let mut changed = false;
            for i in 1..n {
                let e = at(i);
                if e.call == last.call {
                    if !changed || !e.same_result(&newer) {
                        break;
                    }
                    previous.get_or_insert(i);
                    calls.push(e.ordinal);
                    newer = e;
                    changed = false;
                } else if e.attempt {
                    changed = true;
                }
            }
            let echo = previous.filter(|_| calls.len() as u64 >= t).and_then(|p| {
                (1..p).find_map(|i| {
                    let x = at(i);
                    if !(matches!(x.effect, effect::RUN | effect::TEST) && x.troubled()) {
                        return None;
                    }
                    (p + 1..n)
                        .find(|&k| at(k).same_as(&x))
                        .map(|k| (at(k).ordinal, x.ordinal))
                })
            });
            if echo.is_some() {
                calls.reverse();
                return Some(Found {
                    about: About::Undo,
                    echo,
                    ..Found::new(LoopKind::Redo, calls, w)
                });
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    //! The cases both engines replay are in corpus/cases/loops/undo.json.
    use crate::loops::testing::*;

    #[test]
    fn trap_restores_between_attempts_that_show_something_new_are_no_undo_loop() {
        let restore = r#"{"command":"cp related.py.orig related.py"}"#;
        let fix = |i: u32| format!(r#"{{"command":"python /tmp/add_pre_save_{i}.py"}}"#);
        let debug = |i: u32| format!(r#"{{"command":"python test_debug_{i}.py 2>&1 | tail -30"}}"#);
        let out = |i: u32| {
            format!(
                "Before save: product_id = {i}\nError saving order: FOREIGN KEY constraint failed"
            )
        };
        // django-13964's shape: four restores, each round a new debug script
        // whose output says something new (the same error underneath).
        let (f, d, o): (Vec<String>, Vec<String>, Vec<String>) = (
            (0..4).map(fix).collect(),
            (0..4).map(debug).collect(),
            (0..4).map(out).collect(),
        );
        let mut calls = Vec::new();
        for i in 0..4 {
            calls.push(("bash", restore, "", false));
            calls.push(("bash", f[i].as_str(), "Added pre_save", false));
            calls.push(("bash", d[i].as_str(), o[i].as_str(), false));
        }
        let mut l = loops();
        assert_eq!(first_alarm(&run(&mut l, &calls)), None);
        // A restore before a new approach that passes; one restore before a
        // good attempt: nothing.
        let test = r#"{"command":"python -m pytest tests/test_x.py -q 2>&1 | tail -3"}"#;
        let fails = "E   AssertionError: 1 != 2\n1 failed in 0.1s";
        let calls = [
            ("bash", f[0].as_str(), "Added pre_save", false),
            ("bash", test, fails, false),
            ("bash", restore, "", false),
            ("bash", f[1].as_str(), "Added pre_save", false),
            ("bash", test, fails, false),
            ("bash", restore, "", false),
            ("bash", f[2].as_str(), "Added pre_save", false),
            ("bash", test, "3 passed in 0.1s", false),
            ("bash", restore, "", false),
        ];
        let mut l = loops();
        let r = run(&mut l, &calls);
        // The same failing test after the first restore is a failing re-run
        // at most (an attempt made again), never an undo at the restore.
        assert!(r[8].is_none(), "{r:?}");
        // Restores with nothing changed between them are not undoing attempts.
        let mut l = loops();
        let calls = [
            ("bash", test, fails, false),
            ("bash", restore, "", false),
            ("bash", test, fails, false),
            ("bash", restore, "", false),
            ("bash", restore, "", false),
        ];
        assert!(run(&mut l, &calls)[3..]
            .iter()
            .all(|a| a.map(|(k, _)| k) != Some("redo")));
    }
}
