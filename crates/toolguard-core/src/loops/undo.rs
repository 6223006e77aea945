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
    use crate::loops::testing::*;

    #[test]
    fn the_same_restore_after_attempts_that_end_as_before_is_an_undo_loop() {
        // sqlfluff-1733's shape: instrument the file, the import breaks,
        // restore the backup, start over; every edit differs, and the import
        // check comes back with the same traceback after a restore.
        let restore = r#"{"command":"cp src/rules/L003.py.backup src/rules/L003.py"}"#;
        let check = r#"{"command":"cd /testbed && python -c \"import pkg.L003; print('ok')\" 2>&1 | head -5"}"#;
        let broken = "Traceback (most recent call last):\n  File \"<string>\", line 1, in <module>\n  File \"/testbed/src/pkg/__init__.py\", line 3, in <module>\n    import pytest\n";
        let edit = |i: u32| {
            format!(r#"{{"command":"sed -i '{i} i\\    sys.stderr.write(x)' src/rules/L003.py"}}"#)
        };
        let (e1, e2, e3, e4) = (edit(150), edit(185), edit(206), edit(219));
        let calls = [
            ("bash", e1.as_str(), "", false),
            ("bash", r#"{"command":"python -c 'import pkg.L003' 2>&1 | head -20"}"#, "Traceback (most recent call last):\n  File \"<string>\", line 1\nNameError: name 'sys' is not defined", false),
            ("bash", restore, "", false),
            ("bash", e2.as_str(), "", false),
            ("bash", check, "ok", false),
            ("bash", r#"{"command":"python debug.py 2>&1 | head -30"}"#, "", false),
            ("bash", restore, "", false),
            ("bash", e3.as_str(), "", false),
            ("bash", check, broken, false),
            ("bash", r#"{"command":"git log --oneline -30"}"#, "a1579a16b MySQL", false),
            ("bash", restore, "", false),
            ("bash", e4.as_str(), "", false),
            ("bash", check, broken, false),
            ("bash", r#"{"command":"grep -n desired_indent src/rules/L003.py"}"#, "264: desired_indent", false),
            ("bash", restore, "", false),
        ];
        let mut l = loops();
        let r = run(&mut l, &calls);
        assert_eq!(first_alarm(&r), Some((14, "redo")), "{r:?}");
        assert_eq!(r[14], Some(("redo", 4)));
        // The text says what is undone, and which attempt ended as before.
        let mut l = loops();
        for (tool, args, out, failed) in &calls[..14] {
            let outcome = LoopOutcome {
                text: out,
                is_error: *failed,
                flagged: false,
            };
            l.observe("a", tool, args, &outcome);
        }
        let outcome = LoopOutcome {
            text: "",
            is_error: false,
            flagged: false,
        };
        let alarm = l
            .observe("a", "bash", restore, &outcome)
            .expect("an undo loop");
        assert!(
            alarm.text.contains("bash restored src/rules/L003.py the same way 4 times since call #3 (calls #3, #7, #11, #15)")
                && alarm.text.contains("call #13 failed exactly as call #9 had"),
            "{}",
            alarm.text
        );
        assert!(!alarm
            .text
            .contains("has not changed since you last read it"));
    }

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
