//! Failures of one tool with one error, for different arguments.

use super::detect::{Found, Limits, Window};
use super::entry::{effect, Entry, MUTATION, PATHLESS, SOFT};
use super::LoopKind;

/// With other calls between them, failures with one error count for
/// `same-error` only among the last this many calls: a few attempts, not
/// an error met again much later.
const RECENT: usize = 12;

impl Limits {
    pub(super) fn same_error(&self, w: &Window) -> Option<Found> {
        let (last, n, transient, multiplier) = (w.last, w.n, w.transient, w.multiplier);
        let at = |i: usize| w.at(i);
        // Same error: failures of this tool with one signature within the
        // window, other calls (of this tool too) in between: the same failure
        // coming back whatever was tried between. Counted once at least two
        // different calls failed so (the same call alone is a repeat's or a
        // re-read's: they compare its whole result). A call that has since
        // succeeded ends the look back: its failure was dealt with.
        if last.failing() && last.sig != 0 {
            let mut run: Vec<Entry> = vec![last];
            let mut succeeded: Vec<u64> = Vec::new();
            let (mut scattered, mut skipped) = (false, false);
            // A successful change of files or state by another tool (an
            // editor's edit between two failing runs) since the failure
            // last counted: the run after it is a verification.
            let mut changed = false;
            for i in 1..n {
                let e = at(i);
                let change = e.flags & MUTATION != 0;
                // A refused edit of a file after a change that went
                // through, by any tool, is a new attempt on changed files:
                // the refusals before it were dealt with. (A refused click
                // names no file: clicking others between is no such change.)
                if change && last.effect == effect::WRITE && last.flags & PATHLESS == 0 {
                    break;
                }
                if e.tool != last.tool {
                    changed |= change;
                    continue;
                }
                if !(e.failing() && (e.sig == last.sig || (e.bare != 0 && e.bare == last.bare))) {
                    if !e.failing() && !succeeded.contains(&e.call) {
                        succeeded.push(e.call);
                    }
                    skipped = true;
                    continue;
                }
                if succeeded.contains(&e.call) || (skipped && i >= RECENT) {
                    break;
                }
                // The same call failing otherwise since (the values in the
                // line moved): that is progress, not the same failure.
                if run.iter().any(|r| r.call == e.call && !r.same_result(&e)) {
                    break;
                }
                // Changes made between the failures: not "in a row" — the
                // runs after them verify the changes. (The same command
                // failing the same way after each edit is a re-read.)
                scattered |= skipped || changed;
                run.push(e);
            }
            let mut distinct: Vec<u64> = run.iter().map(|e| e.call).collect();
            distinct.sort_unstable();
            distinct.dedup();
            // With other calls of the tool between them, the failures are a
            // loop only when the agent was trying to change something (one of
            // them a state change: an install, an edit, a patch): the same
            // error met while looking around is what it is investigating. A
            // refused change (a click on a missing element) tried again the
            // same way counts alone.
            let attempt = run.iter().any(|e| e.attempt);
            let count = if scattered && !attempt {
                1
            } else if distinct.len() >= 2 || (scattered && last.effect == effect::WRITE) {
                run.len()
            } else {
                1
            };
            let soft = run.iter().any(|e| e.flags & SOFT != 0);
            let base = if soft {
                self.soft_error
            } else {
                self.same_error
            };
            if let Some(t) = self.threshold(base, multiplier, transient) {
                if count as u64 >= t {
                    let mut calls: Vec<u64> = run.iter().map(|e| e.ordinal).collect();
                    calls.reverse();
                    return Some(Found {
                        count: count as u64,
                        distinct: distinct.len() as u64,
                        scattered,
                        ..Found::new(LoopKind::SameError, calls, w)
                    });
                }
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    //! The cases both engines replay are in corpus/cases/loops/same-error.json.
    use crate::loops::testing::*;

    #[test]
    fn trap_retest_after_edits_with_a_stable_first_error_line() {
        // The same assertion line fails after each edit while the values in it
        // change: the test is re-run (one call), not varied.
        let mut l = loops();
        let one = r#"{"command":"pytest -q t.py::test_median"}"#;
        let mut calls = vec![(
            "bash",
            PYTEST,
            "t.py:13: AssertionError\nassert 2 == 2.5\n[exit code: 1]",
            false,
        )];
        let outs: Vec<String> = (0..4)
            .map(|i| format!("t.py:13: AssertionError\nassert {i} == 2.5\n[exit code: 1]"))
            .collect();
        let edits: Vec<String> = (0..4)
            .map(|i| format!(r#"{{"path":"core.py","n":{i}}}"#))
            .collect();
        for (o, e) in outs.iter().zip(&edits) {
            calls.push(("edit_file", e.as_str(), "Edited core.py", false));
            calls.push(("bash", one, o.as_str(), false));
        }
        assert_eq!(first_alarm(&run(&mut l, &calls)), None);
    }

    #[test]
    fn trap_different_errors_fixed_one_by_one_and_expected_empty_greps() {
        let mut l = loops();
        let build = r#"{"command":"cargo build"}"#;
        let r = run(
            &mut l,
            &[
                (
                    "bash",
                    build,
                    "error[E0425]: cannot find value `a`\n[exit code: 101]",
                    false,
                ),
                ("edit_file", r#"{"n":1}"#, "Edited", false),
                (
                    "bash",
                    build,
                    "error[E0599]: no method named `b`\n[exit code: 101]",
                    false,
                ),
                ("edit_file", r#"{"n":2}"#, "Edited", false),
                (
                    "bash",
                    build,
                    "error[E0308]: mismatched types\n[exit code: 101]",
                    false,
                ),
                ("edit_file", r#"{"n":3}"#, "Edited", false),
                ("bash", build, "Finished", false),
            ],
        );
        assert_eq!(first_alarm(&r), None);
        let mut l = loops();
        let greps: Vec<String> = ["a_1", "b_2", "c_3", "d_4", "e_5"]
            .iter()
            .map(|n| format!(r#"{{"command":"grep -rn {n} src/"}}"#))
            .collect();
        let calls: Vec<(&str, &str, &str, bool)> = greps
            .iter()
            .map(|g| ("bash", g.as_str(), "[exit code: 1]", false))
            .collect();
        assert_eq!(
            first_alarm(&run(&mut l, &calls)),
            None,
            "an empty failure has no signature"
        );
    }

    #[test]
    fn rejected_edits_with_other_details_and_a_word_for_word_retry_are_the_same_error() {
        // SWE-agent's edit rejected three times: the detail under the
        // refusal changes (`]`, then `)`), and the last try repeats the one
        // before word for word. Three failures, two sets of arguments.
        let mut l = loops();
        let rejected = |detail: &str| {
            format!("Your proposed edit has introduced new syntax error(s). Please understand the fixes and retry your edit commmand.\n\nERRORS:\n- E999 SyntaxError: unmatched '{detail}'")
        };
        let (a, b) = (rejected("]"), rejected(")"));
        let calls = [
            (
                "bash",
                r#"{"command":"edit 287:295\n    x = [\nend_of_edit"}"#,
                a.as_str(),
            ),
            (
                "bash",
                r#"{"command":"edit 287:295\n    y = (\nend_of_edit"}"#,
                b.as_str(),
            ),
            (
                "bash",
                r#"{"command":"edit 287:295\n    y = (\nend_of_edit"}"#,
                b.as_str(),
            ),
        ];
        let r = timed(&mut l, &calls, 0);
        assert!(r[0].is_none() && r[1].is_none(), "{r:?}");
        let (kind, text) = r[2].clone().expect("the third rejection");
        assert_eq!(kind, "same-error");
        assert!(
            text.contains("3 times in a row")
                && text.contains("with 2 different sets of arguments"),
            "{text}"
        );
    }

    #[test]
    fn the_same_failure_coming_back_with_other_calls_between_is_the_same_error() {
        // An import fails, a patch script fails the same way, then (after
        // other attempts that fail otherwise or succeed) the import again:
        // the same failure whatever was tried in between.
        let import = r#"{"command":"python -c 'import astroid'"}"#;
        let patch = r#"{"command":"cat > p.py << 'EOF'\nimport inspect\nEOF\npython p.py"}"#;
        let fail = "Traceback (most recent call last):\n  File \"<string>\", line 1\nImportError: cannot import name 'formatargspec' from 'inspect'\n[exit code: 1]";
        let other = "Traceback (most recent call last):\n  File \"<string>\", line 1\nNameError: name 'inspect' is not defined\n[exit code: 1]";
        let calls = [
            ("bash", import, fail, false),
            ("bash", patch, fail, false),
            ("bash", r#"{"command":"sed -i 's/a/b/' w.py"}"#, "", false),
            ("bash", import, other, false),
            (
                "bash",
                r#"{"command":"cat > fix.py << 'EOF'\nx\nEOF"}"#,
                "",
                false,
            ),
            ("bash", import, fail, false),
        ];
        let mut l = loops();
        let r = run(&mut l, &calls);
        assert_eq!(first_alarm(&r), Some((5, "same-error")));
        assert_eq!(r[5], Some(("same-error", 3)));
        // The same error met while looking around (no attempt to change
        // anything among the failures) is what the agent is investigating.
        let mut l = loops();
        let looking = [
            ("bash", import, fail, false),
            ("bash", r#"{"command":"python repro.py"}"#, fail, false),
            (
                "bash",
                r#"{"command":"grep -n formatargspec w.py"}"#,
                "34: x",
                false,
            ),
            (
                "bash",
                r#"{"command":"python -c 'from inspect import formatargspec'"}"#,
                fail,
                false,
            ),
        ];
        assert_eq!(first_alarm(&run(&mut l, &looking)), None);
        // The same error met again much later (past the last 12 calls) is
        // not the same attempt.
        let mut l = loops();
        let mut later = vec![("bash", import, fail, false), ("bash", patch, fail, false)];
        let reads: Vec<String> = (0..10)
            .map(|i| format!(r#"{{"command":"sed -n '{i},+5p' a.py"}}"#))
            .collect();
        later.extend(reads.iter().map(|a| ("bash", a.as_str(), "x = 1", false)));
        later.push((
            "bash",
            r#"{"command":"python -c 'import astroid.x'"}"#,
            fail,
            false,
        ));
        assert_eq!(first_alarm(&run(&mut l, &later)), None);
        // Before: the success and the other failure in between ended the run.
        // A failing call that has since succeeded is dealt with: no loop.
        let mut l = loops();
        let fixed = [
            ("bash", import, fail, false),
            ("bash", patch, fail, false),
            ("bash", import, "ok", false),
            ("bash", r#"{"command":"python other.py"}"#, fail, false),
        ];
        assert_eq!(first_alarm(&run(&mut l, &fixed)), None);
    }

    #[test]
    fn a_server_started_again_and_again_is_an_attempt() {
        // A run that writes a file (a server with its log redirected) is an
        // attempt: the same bare `Exit code 7` after it, with looks between.
        let health = r#"{"command":"sleep 3 && curl -s http://localhost:8081/health"}"#;
        let start = |i: u32| {
            format!(
                r#"{{"command":"nohup uvicorn app:app --port 8081 > /tmp/app{i}.log 2>&1 &\nsleep 4\ncurl -s http://localhost:8081/health"}}"#
            )
        };
        let (s1, s2) = (start(1), start(2));
        let calls = [
            ("Bash", health, "Exit code 7", true),
            (
                "Bash",
                r#"{"command":"tail -5 /tmp/app.log"}"#,
                "ModuleNotFoundError: No module named 'app'",
                false,
            ),
            ("Bash", s1.as_str(), "Exit code 7", true),
            ("Bash", r#"{"command":"pwd"}"#, "/p", false),
            ("Bash", s2.as_str(), "Exit code 7", true),
        ];
        let mut l = loops();
        let r = run(&mut l, &calls);
        assert_eq!(first_alarm(&r), Some((4, "same-error")));
    }

    #[test]
    fn a_click_refused_again_and_again_is_the_same_error() {
        // OpenHands' browser: the element is not there, the agent clicks
        // another, looks, and clicks the missing one again.
        let calls = [
            (
                "browser_click",
                r#"{"index":1260}"#,
                "Element with index 1260 not found",
                false,
            ),
            (
                "browser_click",
                r#"{"index":1230}"#,
                "Clicked element 1230",
                false,
            ),
            ("browser_get_state", "{}", "page", false),
            (
                "browser_click",
                r#"{"index":1260}"#,
                "Element with index 1260 not found",
                false,
            ),
            (
                "browser_click",
                r#"{"index":1231}"#,
                "Clicked element 1231",
                false,
            ),
            ("browser_get_state", "{}", "page 2", false),
            (
                "browser_click",
                r#"{"index":1260}"#,
                "Element with index 1260 not found",
                false,
            ),
        ];
        let mut l = loops();
        let r = run(&mut l, &calls);
        assert_eq!(first_alarm(&r), Some((6, "same-error")));
        // Other missing ids each time: the same refusal with new arguments.
        let mut l = loops();
        let ids: Vec<(String, String)> = (0..3)
            .map(|i| {
                (
                    format!(r#"{{"index":{}}}"#, 100 + i),
                    format!("Element with index {} not found", 100 + i),
                )
            })
            .collect();
        let calls: Vec<(&str, &str, &str, bool)> = ids
            .iter()
            .map(|(a, o)| ("browser_click", a.as_str(), o.as_str(), false))
            .collect();
        assert_eq!(first_alarm(&run(&mut l, &calls)), Some((2, "same-error")));
    }

    #[test]
    fn an_edit_refused_after_a_write_that_went_through_is_a_new_attempt() {
        let refused = |s: &str| {
            format!("<tool_use_error>String to replace not found in file.\nString: {s}</tool_use_error>")
        };
        let edit =
            |s: &str| format!(r#"{{"file_path":"/p/C.tsx","old_string":"{s}","new_string":"z"}}"#);
        let (a1, a2, a3) = (edit("a1"), edit("a2"), edit("a3"));
        let (r1, r2, r3) = (refused("a1"), refused("a2"), refused("a3"));
        let read = r#"{"file_path":"/p/C.tsx"}"#;
        // The file rewritten whole between the refusals: the last refusal
        // is about the new content.
        let calls = [
            ("Edit", a1.as_str(), r1.as_str(), true),
            ("Read", read, "1→x", false),
            ("Edit", a2.as_str(), r2.as_str(), true),
            (
                "Write",
                r#"{"file_path":"/p/C.tsx","content":"y"}"#,
                "The file /p/C.tsx has been overwritten successfully.",
                false,
            ),
            (
                "Bash",
                r#"{"command":"bun test"}"#,
                "12 pass\n0 fail",
                false,
            ),
            ("Edit", a3.as_str(), r3.as_str(), true),
        ];
        assert_eq!(first_alarm(&run(&mut loops(), &calls)), None);
        // Only looks between the refusals: the same error, a loop.
        let calls = [
            ("Edit", a1.as_str(), r1.as_str(), true),
            ("Edit", a2.as_str(), r2.as_str(), true),
            ("Read", read, "1→x", false),
            ("Edit", a3.as_str(), r3.as_str(), true),
        ];
        assert_eq!(
            first_alarm(&run(&mut loops(), &calls)),
            Some((3, "same-error"))
        );
    }

    #[test]
    fn failing_checks_after_edits_of_another_tool_are_verifications() {
        // Three different checks of one import, each after an edit made with
        // an editor: each verifies an edit; the failures are not "in a row".
        let fail = "Exit code 1\nTraceback (most recent call last):\n  File \"<string>\", line 1\nImportError: cannot import name 'x' from 'pkg'";
        let edited = "The file pkg/__init__.py has been updated successfully.";
        let calls = [
            (
                "Bash",
                r#"{"command":"python -c 'import pkg'"}"#,
                fail,
                true,
            ),
            (
                "Edit",
                r#"{"file_path":"pkg/__init__.py","old_string":"a","new_string":"b"}"#,
                edited,
                false,
            ),
            ("Bash", r#"{"command":"python repro.py"}"#, fail, true),
            (
                "Edit",
                r#"{"file_path":"pkg/__init__.py","old_string":"c","new_string":"d"}"#,
                edited,
                false,
            ),
            ("Bash", r#"{"command":"python -m pkg"}"#, fail, true),
        ];
        assert_eq!(first_alarm(&run(&mut loops(), &calls)), None);
        // The same checks in a row, nothing changed between: the same error.
        let calls = [calls[0], calls[2], calls[4]];
        assert_eq!(
            first_alarm(&run(&mut loops(), &calls)),
            Some((2, "same-error"))
        );
    }
}
