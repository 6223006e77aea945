//! The same call with the same result again, other calls in between.

use super::detect::{Found, Limits, Window};
use super::entry::{effect, MUTATION};
use super::{About, LoopKind};

impl Limits {
    pub(super) fn re_read(&self, w: &Window) -> Option<Found> {
        let (last, n, transient, multiplier) = (w.last, w.n, w.transient, w.multiplier);
        let at = |i: usize| w.at(i);
        // Re-read: the same call and outcome within the window; stop at the
        // call's last different result, and (for a success) at a successful
        // edit or other state change. Only for what reads: a state change
        // (a restore, a patch written, a click) is never a re-read, a poll
        // between other work is waiting, going back in a browser is not
        // reading again, and a run or test counts only while it fails the
        // same way ("what changed in between has not changed the failure").
        let reads = match last.effect {
            effect::WRITE | effect::WAIT | effect::NAVIGATE => false,
            effect::RUN | effect::TEST => last.troubled(),
            _ => true,
        };
        let threshold = if reads {
            self.threshold(self.re_read, multiplier, transient)
        } else {
            None
        };
        if let Some(t) = threshold {
            let mut calls = vec![last.ordinal];
            let mut newer = last;
            for i in 1..n {
                let e = at(i);
                if e.flags & MUTATION != 0 && !last.troubled() {
                    break;
                }
                // Looking again after waiting on a job (sleep, a poll) is
                // checking on it: the waiting is what the poll rule judges.
                if e.polling() {
                    break;
                }
                if e.call != last.call {
                    continue;
                }
                if !e.same_result(&newer) {
                    break;
                }
                calls.push(e.ordinal);
                newer = e;
            }
            if calls.len() as u64 >= t {
                calls.reverse();
                return Some(Found {
                    about: if matches!(last.effect, effect::RUN | effect::TEST) {
                        About::Reruns
                    } else {
                        About::Calls
                    },
                    ..Found::new(LoopKind::ReRead, calls, w)
                });
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    //! The cases both engines replay are in corpus/cases/loops/re-read.json.
    use crate::loops::testing::*;

    #[test]
    fn trap_retest_after_each_edit_while_failures_shrink() {
        let mut l = loops();
        let r = run(
            &mut l,
            &[
                (
                    "bash",
                    PYTEST,
                    "FAILED t::a\nFAILED t::b\nFAILED t::c\n3 failed\n[exit code: 1]",
                    false,
                ),
                (
                    "edit_file",
                    r#"{"path":"a.py","old_string":"x","new_string":"y"}"#,
                    "Edited a.py",
                    false,
                ),
                (
                    "bash",
                    PYTEST,
                    "FAILED t::b\nFAILED t::c\n2 failed\n[exit code: 1]",
                    false,
                ),
                (
                    "edit_file",
                    r#"{"path":"a.py","old_string":"y","new_string":"z"}"#,
                    "Edited a.py",
                    false,
                ),
                (
                    "bash",
                    PYTEST,
                    "FAILED t::c\n1 failed\n[exit code: 1]",
                    false,
                ),
                (
                    "edit_file",
                    r#"{"path":"a.py","old_string":"z","new_string":"w"}"#,
                    "Edited a.py",
                    false,
                ),
                ("bash", PYTEST, "3 passed", false),
            ],
        );
        assert_eq!(first_alarm(&r), None);
    }

    #[test]
    fn trap_reread_after_edit_and_passing_tests_after_each_edit() {
        let mut l = loops();
        let read = r#"{"path":"config.toml"}"#;
        let mut calls = Vec::new();
        for i in 0..4 {
            calls.push((
                "read_file",
                read,
                if i % 2 == 0 { "port = 1" } else { "port = 2" },
                false,
            ));
            calls.push(("edit_file", r#"{"path":"config.toml"}"#, "Edited", false));
        }
        assert_eq!(first_alarm(&run(&mut l, &calls)), None);
        // Passing tests re-run after each successful edit: checking, not looping.
        let mut l = loops();
        let mut calls = Vec::new();
        let edits: Vec<String> = (0..6).map(|i| format!(r#"{{"path":"m{i}.py"}}"#)).collect();
        for e in &edits {
            calls.push(("edit_file", e.as_str(), "Edited", false));
            calls.push(("bash", PYTEST, "5 passed in 0.1s", false));
        }
        assert_eq!(first_alarm(&run(&mut l, &calls)), None);
    }

    #[test]
    fn trap_debugger_stepping_with_prints_in_between() {
        let mut l = loops();
        let n = r#"{"chars":"n\n"}"#;
        let mut calls = Vec::new();
        for acc in 0..5 {
            calls.push(("write_stdin", n, "> walk.py(3)\n-> for x in xs:", false));
            calls.push(("write_stdin", n, "> walk.py(4)\n-> acc += x", false));
            calls.push((
                "write_stdin",
                r#"{"chars":"p acc\n"}"#,
                ["0", "1", "3", "6", "10"][acc],
                false,
            ));
        }
        assert_eq!(first_alarm(&run(&mut l, &calls)), None);
    }

    #[test]
    fn the_same_failure_at_shifted_lines_after_edits_above_it_is_the_same_failure() {
        // Each edit adds lines above the failing one: the frames' line numbers
        // move, the exception and the code it quotes do not.
        let outs: Vec<String> = [1039, 1046, 1053, 1060]
            .iter()
            .map(|&n| traceback(n, "could not convert string to float: 'n/a'"))
            .collect();
        let r = edit_and_run(&outs);
        assert_eq!(first_alarm(&r), Some((5, "re-read")), "{r:?}");
        // The same with a compiler's `path:line:col` and source gutter, and
        // a test run whose timing and line order differ.
        let rustc = |n: u32| {
            format!("error[E0308]: mismatched types\n --> src/main.rs:{n}:18\n   |\n{n} |     let x: u32 = \"a\";\n   |            ---   ^^^ expected `u32`\n[exit code: 101]")
        };
        let outs: Vec<String> = [12, 15, 19, 23].iter().map(|&n| rustc(n)).collect();
        assert_eq!(first_alarm(&edit_and_run(&outs)), Some((5, "re-read")));
        let outs = [
            "captured stdout: row 1\nFAILED t.py::test_total - AssertionError\n1 failed, 4 passed in 0.31s\n[exit code: 1]",
            "FAILED t.py::test_total - AssertionError\ncaptured stdout: row 1\n1 failed, 4 passed in 0m1.020s\n[exit code: 1]",
            "1 failed, 4 passed in 2.4s\nFAILED t.py::test_total - AssertionError\ncaptured stdout: row 1\n[exit code: 1]",
        ]
        .map(String::from);
        assert_eq!(first_alarm(&edit_and_run(&outs)), Some((5, "re-read")));
    }

    #[test]
    fn trap_edits_that_change_the_message_the_test_or_the_code_line_are_progress() {
        // The message changes at every edit: progress, wherever the frame is.
        let outs: Vec<String> = [(1039, "'n/a'"), (1046, "'-'"), (1053, "''"), (1060, "'?'")]
            .iter()
            .map(|&(n, v)| traceback(n, &format!("could not convert string to float: {v}")))
            .collect();
        assert_eq!(first_alarm(&edit_and_run(&outs)), None);
        // Another test fails after each edit; then the counts move.
        let outs: Vec<String> = ["a", "b", "c", "d"]
            .iter()
            .map(|t| format!("t.py:12: AssertionError\nFAILED t.py::test_{t}\n1 failed, 4 passed in 0.3s\n[exit code: 1]"))
            .collect();
        assert_eq!(first_alarm(&edit_and_run(&outs)), None);
        let outs: Vec<String> = [4, 3, 2, 1]
            .iter()
            .map(|n| format!("FAILED t.py::test_a\n{n} failed, 1 passed in 0.3s\n[exit code: 1]"))
            .collect();
        assert_eq!(first_alarm(&edit_and_run(&outs)), None);
        // The same error at a line that now quotes another code line: the
        // agent fixed one place and the next one fails.
        let rustc = |n: u32, code: &str| {
            format!("error[E0308]: mismatched types\n --> src/main.rs:{n}:18\n{n} |     {code}\n[exit code: 101]")
        };
        let outs = [
            rustc(12, "let x: u32 = a;"),
            rustc(15, "let y: u32 = b;"),
            rustc(19, "let z: u32 = c;"),
        ];
        assert_eq!(first_alarm(&edit_and_run(&outs)), None);
    }

    #[test]
    fn trap_restores_patches_and_clicks_are_never_rereads() {
        // Each state change recurs with the same (empty) result between
        // attempts: before the shell model, a "re-read" whose text ("the
        // content has not changed since you last read it") was false.
        for write in [
            r#"{"command":"cd /testbed && cp astroid/modutils.py.bak astroid/modutils.py"}"#,
            r#"{"command":"git checkout -- django/x.py"}"#,
            r#"{"command":"git diff > fix.patch"}"#,
        ] {
            let mut l = loops();
            let edits: Vec<String> = (0..4)
                .map(|i| format!(r#"{{"command":"python repro.py --case {i}"}}"#))
                .collect();
            let mut calls = Vec::new();
            for e in &edits {
                calls.push(("bash", write, ""));
                calls.push(("bash", e.as_str(), "ok"));
            }
            let r = timed(&mut l, &calls, 0);
            assert!(r.iter().all(Option::is_none), "{write}: {r:?}");
        }
        let mut l = loops();
        let mut calls = Vec::new();
        let reads: Vec<String> = (0..4)
            .map(|i| format!(r#"{{"url":"http://shop/item/{i}"}}"#))
            .collect();
        for r in &reads {
            calls.push(("browser_click", r#"{"ref":"e12"}"#, "clicked"));
            calls.push(("browser_navigate", r.as_str(), "page"));
        }
        assert!(timed(&mut l, &calls, 0).iter().all(Option::is_none));
        // Going back in a browser, then on to the same page again: not a cycle.
        let mut l = loops();
        let calls = [
            ("browser_navigate", r#"{"url":"http://shop/list"}"#, "list"),
            ("browser_navigate_back", "{}", "home"),
        ]
        .repeat(4);
        assert!(timed(&mut l, &calls, 0).iter().all(Option::is_none));
    }

    #[test]
    fn a_rerun_whose_output_names_an_error_is_a_failing_rerun() {
        // The script catches its own error and exits 0; edits between runs
        // do not change it. Before, an exit-0 run was a check, never a loop.
        let run_it = r#"{"command":"python test_fix.py 2>&1"}"#;
        let out = "Testing case with v_oc=0\nError: too many indices for array: array is 0-dimensional, but 1 were indexed";
        let edit = |i: usize| format!(r#"{{"command":"python fix{i}.py"}}"#);
        let (e1, e2) = (edit(1), edit(2));
        let calls = [
            ("bash", run_it, out, false),
            ("bash", e1.as_str(), "Fixed", false),
            ("bash", run_it, out, false),
            ("bash", e2.as_str(), "Fixed", false),
            ("bash", run_it, out, false),
        ];
        let mut l = loops();
        let r = run(&mut l, &calls);
        assert_eq!(first_alarm(&r), Some((4, "re-read")));
        // A passing re-run, even of tests named after errors, stays a check.
        let ok = "test_invalid_input PASSED\ntest_error_path PASSED\n2 passed in 0.1s";
        let calls = [
            ("bash", PYTEST, ok, false),
            (
                "str_replace_editor",
                r#"{"command":"str_replace","path":"a.py","old_str":"a","new_str":"b"}"#,
                "ok",
                false,
            ),
            ("bash", PYTEST, ok, false),
            (
                "str_replace_editor",
                r#"{"command":"str_replace","path":"a.py","old_str":"b","new_str":"c"}"#,
                "ok",
                false,
            ),
            ("bash", PYTEST, ok, false),
        ];
        let mut l = loops();
        assert_eq!(first_alarm(&run(&mut l, &calls)), None);
    }

    #[test]
    fn trap_verification_rerun_after_a_fix_made_in_the_shell() {
        // The fix goes in with `sed -i` or a heredoc, not an edit tool: the
        // passing re-run after it is checking, not a re-read.
        let mut l = loops();
        let r = run(
            &mut l,
            &[
                ("bash", PYTEST, "5 passed in 0.1s", false),
                ("bash", r#"{"command":"sed -i 's/a/b/' m.py"}"#, "", false),
                ("bash", PYTEST, "5 passed in 0.1s", false),
                (
                    "bash",
                    r#"{"command":"cat > n.py << 'EOF'\nx = 1\nEOF"}"#,
                    "",
                    false,
                ),
                ("bash", PYTEST, "5 passed in 0.1s", false),
            ],
        );
        assert_eq!(first_alarm(&r), None, "{r:?}");
    }

    #[test]
    fn trap_verification_reruns_and_rereads_after_an_editor_edit_in_a_shell_line() {
        // SWE-agent logs its editor as a command line in a bash call: an edit
        // there is a write, so reading the file again after it is checking.
        let edit = |i: u32| {
            format!(
                r#"{{"command":"str_replace_editor str_replace /testbed/src/a.py --old_str 'x = {i}' --new_str 'x = {}'"}}"#,
                i + 1
            )
        };
        let edited = "The file /testbed/src/a.py has been edited. Here's the result of running `cat -n` on a snippet of /testbed/src/a.py:\n    40\tx = 2\nReview the changes and make sure they are as expected.";
        let read = r#"{"command":"sed -n '1,5p' /testbed/src/a.py"}"#;
        let (e1, e2, e3) = (edit(1), edit(2), edit(3));
        let calls = [
            ("bash", read, "def f(x):\n    return x", false),
            ("bash", e1.as_str(), edited, false),
            ("bash", read, "def f(x):\n    return x", false),
            ("bash", e2.as_str(), edited, false),
            ("bash", read, "def f(x):\n    return x", false),
            ("bash", e3.as_str(), edited, false),
            ("bash", read, "def f(x):\n    return x", false),
        ];
        assert_eq!(first_alarm(&run(&mut loops(), &calls)), None);
        // A passing re-run whose output only mentions errors, after each
        // edit, is verification, not a run failing the same way.
        let repro = r#"{"command":"python reproduce.py"}"#;
        let passing = "Testing error handling...\nResult: 3 issues handled, 0 errors";
        let calls = [
            ("bash", repro, passing, false),
            ("bash", e1.as_str(), edited, false),
            ("bash", repro, passing, false),
            ("bash", e2.as_str(), edited, false),
            ("bash", repro, passing, false),
            ("bash", e3.as_str(), edited, false),
            ("bash", repro, passing, false),
        ];
        assert_eq!(first_alarm(&run(&mut loops(), &calls)), None);
        // The same re-runs failing with the same traceback each time are a loop.
        let failing = "Traceback (most recent call last):\n  File \"reproduce.py\", line 3, in <module>\n    f()\nValueError: bad";
        let calls: Vec<_> = calls
            .iter()
            .map(|&(t, a, o, f)| (t, a, if o == passing { failing } else { o }, f))
            .collect();
        assert_eq!(
            first_alarm(&run(&mut loops(), &calls)),
            Some((4, "re-read"))
        );
    }
}
