//! Corroboration: when a rule's `error` stands (docs/shell-model.md,
//! "Corroboration"). The one place that decides it; the reference engine's
//! twin is `reference/corroboration.mts`.
//!
//! An `error` says *this call failed*. A generic failure word at a line
//! start (`error: …`, `Error: …`, `Could not …`, `prog: error …`: the
//! `lexiconRules` of `rules/programs.json`) is printed as often by programs
//! that did their job (a test that logs the error it expects, a query whose
//! answer mentions errors, a commit hook's log) as by programs that failed.
//! Such a match is an `error` only when something else says the status was
//! not a plain, shown 0:
//!
//! - the command hid the status of what printed it (a filter stage
//!   `| tail`, a fallback `|| true` / `|| echo`, a sequence `; echo`, a
//!   background `&`: any [`Mask`](super::Mask));
//! - the harness records no exit status (SWE-agent: a 0 cannot be told from
//!   a failure) — [`StatusShown::unrecorded`];
//! - the output already shows a failure (an exit or signal marker);
//!
//! and no test runner's all-passed summary is in the output (bun's `0 fail`,
//! pytest's `N passed in`: `passingSummaries`), which tells the status
//! whatever hid it: with one, the generic lines are what a passing suite
//! logged (the errors its tests provoke), and they are dropped.
//!
//! Otherwise it is `context`. A rule that names a program's own failure
//! (pytest's summary, cargo's, `command not found`, make's fatal line, a C
//! library message, an HTTP error body from the network, a traceback)
//! needs no corroboration, nor does an OS error's text under a lexicon
//! label (`Error: [Errno 2] No such file or directory`).

use super::CallModel;
use crate::rules::{Action, RuleMatch};

/// What the harness showed of the call's exit status.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct StatusShown {
    /// The output already shows a failure (`[exit code: 2]`, a signal).
    pub failed: bool,
    /// The harness records no exit status for its calls.
    pub unrecorded: bool,
}

/// Whether the status of `model`'s call was hidden from the harness: by
/// the command (any mask) or by the harness itself.
pub fn status_hidden(model: &CallModel, status: StatusShown) -> bool {
    status.unrecorded || !model.masks.is_empty()
}

/// Turn each uncorroborated `error` of `matches` (scanned from `text`)
/// into `context`, or drop it when a test runner's all-passed summary says
/// the run passed. Without a shell command (`model` `None`) nothing
/// changes: the scan knows nothing of the status then.
pub fn corroborate(
    model: Option<&CallModel>,
    status: StatusShown,
    text: &str,
    matches: &mut Vec<RuleMatch>,
) {
    let Some(model) = model else {
        return;
    };
    if status.failed {
        return;
    }
    let table = super::programs::table();
    // An OS error's own text (`Error: [Errno 2] No such file …`) is the C
    // library's failure, whatever label the program printed it under.
    let generic = |m: &RuleMatch| {
        m.action == Action::Error
            && table.lexicon_rules.contains(&m.id)
            && !m.excerpt.contains("[Errno ")
    };
    if !matches.iter().any(generic) {
        return;
    }
    // A test runner's all-passed summary tells the status whatever hid it:
    // the generic lines are what the passing suite logged.
    if table
        .passing_summary
        .as_ref()
        .is_some_and(|r| r.is_match(text))
    {
        matches.retain(|m| !generic(m));
        return;
    }
    if status_hidden(model, status) {
        return;
    }
    for m in matches.iter_mut() {
        if generic(m) {
            m.action = Action::Context;
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::engine::FailureAction;

    fn action(command: &str, output: &str) -> Option<FailureAction> {
        crate::shell::tests::bash_failure(&[], command, output, None).map(|f| f.action)
    }

    #[test]
    fn a_lexicon_line_with_the_status_shown_is_context() {
        // A test run that logs the error it tests for (Claude Code, exit
        // status shown and 0): `error-line` alone was an error before.
        let cut = "src/a.test.ts:\nerror: Item 3 failed\n(pass) retries a failed item\n";
        assert_eq!(
            action("bun run test 2>&1", cut),
            Some(FailureAction::Context)
        );
        // Behind `| tail`, `; echo` or `|| true` the status is hidden: the
        // line is an error.
        for cmd in [
            "bun run test 2>&1 | tail -20",
            "bun run test; echo done",
            "bun run test || true",
        ] {
            assert_eq!(action(cmd, cut), Some(FailureAction::Error), "{cmd}");
        }
        // With the runner's all-passed summary in the output, the run
        // passed whatever hid its status: the logged line is no failure.
        let passed = format!("{cut}\n 12 pass\n 0 fail\n");
        for cmd in ["bun run test 2>&1", "bun run test 2>&1 | tail -20"] {
            assert_eq!(action(cmd, &passed), None, "{cmd}");
        }
        let pytest = "app.py: error: retry budget spent\n.\n.\n.\n========== 12 passed in 0.31s ==========\n";
        assert_eq!(action("pytest -q 2>&1 | tail -3", pytest), None);
        // A failing summary is no passing one.
        let failed = format!("{cut}\n 11 pass\n 1 fail\n");
        assert_eq!(
            action("bun run test 2>&1 | tail -20", &failed),
            Some(FailureAction::Error)
        );
        // A program-specific signal needs no corroboration.
        let missing = "bash: line 1: rg: command not found\n";
        assert_eq!(action("rg foo src", missing), Some(FailureAction::Error));
    }

    #[test]
    fn a_harness_without_exit_codes_corroborates() {
        let out = "error: Item 3 failed\n";
        let mut engine = crate::engine::Engine::new(&crate::config::Config::default()).unwrap();
        let call = crate::engine::Call {
            agent_id: Some("a"),
            name: "bash",
            arguments_json: r#"{"command":"bun run test"}"#,
        };
        let shown = crate::engine::Output {
            texts: vec![out],
            ..Default::default()
        };
        let unrecorded = crate::engine::Output {
            texts: vec![out],
            status_unrecorded: true,
            ..Default::default()
        };
        let act = |e: &mut crate::engine::Engine, o| {
            e.observe(&call, Some(o))
                .and_then(|v| v.failure)
                .map(|f| f.action)
        };
        assert_eq!(act(&mut engine, &shown), Some(FailureAction::Context));
        assert_eq!(act(&mut engine, &unrecorded), Some(FailureAction::Error));
    }
}
