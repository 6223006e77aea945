//! A call as an agent's window keeps it ([`Entry`]: digests and flags,
//! never a text), how a call's result becomes one ([`entry`]), what the
//! config and the shell model say about a call ([`ToolInfo`], the effect
//! codes), and the loop episode an agent is in ([`Active`]).

use std::collections::VecDeque;

use crate::canonical::canonicalize_arguments;
use crate::chain::any_match;
use crate::digest::{xxh3_64, FastHash};
use crate::markers::shows_failure;
use crate::normalize::{failure_digest_with, result_digest_with, LineMemo};
use crate::shell::{self, Effect};

use super::detect::{About, Found};
use super::errors::{
    codex_exit_failed, error_line, http_error, is_frame, is_wrapper, names_error, shows_error,
    signature, stopped, transient,
};
use super::texts::{found_nothing, is_rejection, job_done, not_run, rejection_line};
use super::{LoopKind, LoopOutcome, Loops};

/// Entry flags ([`Entry::flags`]).
pub(super) const FAILED: u8 = 1;
pub(super) const SOFT: u8 = 2;
pub(super) const TRANSIENT: u8 = 4;
pub(super) const MUTATION: u8 = 8;
/// `result` is the normalised digest (else it is the raw one).
const NORMALIZED: u8 = 16;
/// A poll whose result says the job it watches has ended.
const DONE: u8 = 32;
/// A state change that names no file (a click, an install): what it
/// changed shows only through other looks.
pub(super) const PATHLESS: u8 = 64;
/// A run or test that came back again and whose output names an error
/// though nothing said it failed (a caught traceback, a runner's error
/// behind `| tail`): for `re-read` it fails the same way.
const TROUBLED: u8 = 0x80;

// The effect cache's bits below share values with the entry flags above
// (NO_PATH = TROUBLED, HIDDEN = PATHLESS, WRITES = DONE): safe, because they
// live in another byte (`Loops::effects`, never saved) and `observe` unpacks
// them into booleans before an entry is made. The effect codes must stay
// below them (checked at compile time under `mod effect`);
// __test__/loop-flag-bits.test.mjs checks both engines' saved entries.
/// In [`Loops::effects`], beside the effect code: the call writes no path.
pub(super) const NO_PATH: u8 = 0x80;
/// In [`Loops::effects`]: the command hid its real exit status (`| tail`,
/// `; echo`) and is no probe, so its output is all that shows a failure.
pub(super) const HIDDEN: u8 = 0x40;
/// In [`Loops::effects`]: the call writes a path (any effect).
pub(super) const WRITES: u8 = 0x20;

/// What a call does, by the shell model ([`shell::classify_call`]), as
/// [`Entry::effect`] keeps it.
pub(super) mod effect {
    pub const UNKNOWN: u8 = 0;
    pub const READ: u8 = 1;
    pub const WRITE: u8 = 2;
    pub const RUN: u8 = 3;
    pub const TEST: u8 = 4;
    pub const WAIT: u8 = 5;
    pub const SEARCH: u8 = 6;
    pub const NETWORK: u8 = 7;
    pub const NAVIGATE: u8 = 8;
    pub const OTHER: u8 = 9;
}
// Every effect code fits below the effect cache's bits (OTHER is the largest).
const _: () = assert!(effect::OTHER < WRITES && WRITES < HIDDEN && HIDDEN < NO_PATH);

fn effect_code(e: Option<Effect>) -> u8 {
    match e {
        None => effect::UNKNOWN,
        Some(Effect::Read) => effect::READ,
        Some(Effect::Write) => effect::WRITE,
        Some(Effect::Run) => effect::RUN,
        Some(Effect::Test) => effect::TEST,
        Some(Effect::Wait) => effect::WAIT,
        Some(Effect::Search) => effect::SEARCH,
        Some(Effect::Network) => effect::NETWORK,
        Some(Effect::Navigate) => effect::NAVIGATE,
        Some(Effect::Other) => effect::OTHER,
    }
}

/// One call as the window keeps it: digests and flags, 57 bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Entry {
    pub(super) call: u64,
    /// The normalised result digest when [`NORMALIZED`], else `raw`.
    pub(super) result: u64,
    /// XXH3 of the result text as it came.
    pub(super) raw: u64,
    /// Error signature of a failure; 0 when none.
    pub(super) sig: u64,
    /// The failure's line as it reads (digits as `#`, nothing taken out
    /// for the arguments): what two different calls' failures share when
    /// their arguments differ in the words the line holds; 0 when none.
    pub(super) bare: u64,
    pub(super) tool: u64,
    pub(super) ordinal: u64,
    /// When the call was made (ms since the epoch); 0: unknown.
    pub(super) time: u64,
    pub(super) flags: u8,
    /// What the call does ([`effect`]).
    pub(super) effect: u8,
    /// The call tries to change something: a state change, or a run that
    /// writes a file (a server started with its log redirected).
    pub(super) attempt: bool,
}

impl Entry {
    pub(super) fn failing(&self) -> bool {
        self.flags & (FAILED | SOFT) != 0
    }

    /// Failing, or a re-run whose output names an error ([`TROUBLED`]).
    pub(super) fn troubled(&self) -> bool {
        self.failing() || self.flags & TROUBLED != 0
    }

    /// Polls a job that has not said it ended: waiting, judged by the poll rule.
    pub(super) fn polling(&self) -> bool {
        self.effect == effect::WAIT && self.flags & DONE == 0
    }

    /// Same result: normalised digests when both have one, else the raw texts.
    pub(super) fn same_result(&self, other: &Entry) -> bool {
        if self.flags & other.flags & NORMALIZED != 0 {
            self.result == other.result
        } else {
            self.raw == other.raw
        }
    }

    /// Same call, same result.
    pub(super) fn same_as(&self, other: &Entry) -> bool {
        self.call == other.call && self.same_result(other)
    }

    /// Same call, same outcome: the same result, or, for failures, the same
    /// error signature. Only for calls in a row, where nothing ran in
    /// between that could have changed the outcome: a failing run that
    /// prints its failures in another order or cut at another place is the
    /// same failure. With edits in between, a different failure behind the
    /// same first error line is progress, so the other detectors compare results.
    pub(super) fn same_outcome_in_a_row(&self, other: &Entry) -> bool {
        self.call == other.call
            && (self.same_result(other)
                || (self.failing() && other.failing() && self.sig != 0 && self.sig == other.sig))
    }
}

/// The loop episode the agent is in: one per loop however long it runs
/// (the window only bounds what the detectors look back at; the episode's
/// counts go on past it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Active {
    pub(super) kind: LoopKind,
    /// The count the alarm reports (a cycle: rounds begun).
    pub(super) count: u64,
    /// Calls in the episode so far.
    pub(super) calls: u64,
    /// Calls per round (a cycle); 1 otherwise.
    pub(super) period: u64,
    pub(super) reminders: u64,
    /// The call that would continue the loop.
    pub(super) next_call: u64,
    /// The episode's first and latest call (ordinals).
    pub(super) first_ordinal: u64,
    pub(super) last_ordinal: u64,
    /// The loop's results are failures: a successful edit does not end it
    /// ("edits have not changed the failure").
    pub(super) failing: bool,
    /// What its calls are (the advice of a refusal).
    pub(super) about: About,
}

impl Active {
    /// Whether `found`, raised at the newest call, goes on with this
    /// episode: the same kind of loop over calls it already counted (a
    /// repeat and a re-read also of the same call, a cycle of the same period).
    pub(super) fn continued_by(&self, found: &Found) -> bool {
        self.kind == found.kind
            && self.period == found.period
            && found.first_ordinal() <= self.last_ordinal
            && match found.kind {
                LoopKind::Repeat | LoopKind::ReRead | LoopKind::Redo => {
                    self.next_call == found.next_call
                }
                LoopKind::Cycle | LoopKind::SameError => true,
            }
    }
}

#[derive(Debug, Clone, Default)]
pub(super) struct AgentLoops {
    pub(super) entries: VecDeque<Entry>,
    pub(super) ordinal: u64,
    pub(super) active: Option<Active>,
    /// A call refused by `check`: when it is observed anyway (DSH counts
    /// denied calls), it is passed over so the deny resets nothing.
    pub(super) denied: Option<u64>,
}

/// Agent ids and tool names come from the host, not from the model.
pub(super) type NameHash = FastHash;

/// The most tool names [`Loops::tools`] keeps before it starts over.
pub(super) const TOOL_CACHE: usize = 256;

/// The most calls [`Loops::effects`] keeps before it starts over.
pub(super) const EFFECT_CACHE: usize = 4096;

/// One tool name against the config's patterns.
#[derive(Debug, Clone, Copy)]
pub(super) struct ToolInfo {
    /// Not exempt.
    pub(super) tracked: bool,
    pub(super) mutating: bool,
    /// Some `ignoreArguments` pattern matches.
    pub(super) ignores: bool,
    pub(super) multiplier: f64,
    /// XXH3 of the name ([`Entry::tool`]).
    pub(super) digest: u64,
    /// A shell tool ([`shell::is_shell_tool`]): its output is its program's.
    pub(super) shell: bool,
}

/// What the config's patterns and the shell model say about a call.
impl Loops {
    /// What the config says about tool `name` (cached).
    pub(super) fn tool(&mut self, name: &str) -> ToolInfo {
        if let Some(info) = self.tools.get(name) {
            return *info;
        }
        let info = ToolInfo {
            tracked: self.tracks(name),
            mutating: any_match(&self.mutating, name),
            ignores: self.ignore_arguments.iter().any(|(p, _)| p.matches(name)),
            multiplier: self.multiplier(name),
            digest: xxh3_64(name.as_bytes()),
            shell: shell::is_shell_tool(name),
        };
        if self.tools.len() >= TOOL_CACHE {
            self.tools.clear();
        }
        self.tools.insert(name.to_owned(), info);
        info
    }

    /// The call digest: tool and canonical arguments, ignored keys removed
    /// (`ignores`: some `ignoreArguments` pattern matches the tool).
    pub(super) fn call_digest(&mut self, name: &str, arguments_json: &str, ignores: bool) -> u64 {
        self.key.clear();
        self.key.push_str(name);
        self.key.push('\0');
        canonicalize_arguments(arguments_json, &mut self.key);
        if !ignores {
            return xxh3_64(self.key.as_bytes());
        }
        let ignored: Vec<&String> = self
            .ignore_arguments
            .iter()
            .filter(|(p, _)| p.matches(name))
            .flat_map(|(_, keys)| keys.iter())
            .collect();
        if !ignored.is_empty() {
            let canonical = &self.key[name.len() + 1..];
            if let Ok(serde_json::Value::Object(mut map)) =
                serde_json::from_str::<serde_json::Value>(canonical)
            {
                if ignored.iter().any(|k| map.contains_key(k.as_str())) {
                    for k in ignored {
                        map.remove(k.as_str());
                    }
                    // Canonical again (serde_json writes keys and numbers
                    // its own way): a call with the key and one without it
                    // must digest alike.
                    let text = serde_json::Value::Object(map).to_string();
                    self.key.truncate(name.len() + 1);
                    canonicalize_arguments(&text, &mut self.key);
                }
            }
        }
        xxh3_64(self.key.as_bytes())
    }

    /// What call `call` (its digest) does, by the shell model (cached).
    pub(super) fn effect(&mut self, call: u64, name: &str, arguments_json: &str) -> u8 {
        if let Some(e) = self.effects.get(&call) {
            return *e;
        }
        let model = shell::classify_call(name, arguments_json);
        let mut e = effect_code(model.effect);
        if e == effect::WRITE && model.writes.is_empty() {
            e |= NO_PATH;
        }
        if model.hides_status() && !model.probe {
            e |= HIDDEN;
        }
        if !model.writes.is_empty() {
            e |= WRITES;
        }
        if self.effects.len() >= EFFECT_CACHE {
            self.effects.clear();
        }
        self.effects.insert(call, e);
        e
    }

    pub(super) fn multiplier(&self, name: &str) -> f64 {
        self.multipliers
            .iter()
            .rev()
            .find(|(p, _)| p.matches(name))
            .map_or(1.0, |(_, m)| *m)
    }
}

/// One call as the window keeps it (`ordinal` still 0).
#[allow(clippy::too_many_arguments)]
pub(super) fn entry(
    tool: &ToolInfo,
    call: u64,
    effect: u8,
    pathless: bool,
    hidden: bool,
    arguments_json: &str,
    outcome: &LoopOutcome,
    recurs: bool,
    line: &mut String,
    memo: &mut LineMemo,
) -> Entry {
    let text = outcome.text;
    let mut flags = 0;
    // Whether the output names an error: a search of the whole text, asked
    // up to three times below, made at most once.
    let named = std::cell::OnceCell::new();
    let names_an_error = || *named.get_or_init(|| names_error(text));
    let hard = (outcome.is_error
        || shows_failure(text)
        || codex_exit_failed(text)
        // A tool that refused the call in words (an edit rejected).
        || is_rejection(text, tool.shell))
        // A call the harness never ran (cancelled with a failing sibling)
        // did not fail, whatever flag it carries.
        && !not_run(text);
    // A failure seen only by a silent-failure rule in an output that shows
    // an HTTP error status is that status: a soft failure (a 404 can be the
    // answer wanted, as when checking that a deleted item is gone).
    let mut failed = hard || (outcome.flagged && http_error(text).is_none());
    // Whether the output shows a failure (an error line as programs print
    // it, not just the word): asked at most once.
    let shown = std::cell::OnceCell::new();
    let shows_an_error = || *shown.get_or_init(|| shows_error(text));
    // A run or test whose real status the command hid (`pytest | tail`):
    // its output showing an error is the failure the status would have
    // shown. The word alone (`0 errors`, a review about "the error state")
    // is no failure.
    if !failed && hidden && matches!(effect, effect::RUN | effect::TEST) && shows_an_error() {
        failed = true;
    }
    // A search that found nothing answered the question: not a failure.
    if failed && !outcome.flagged && effect == effect::SEARCH && found_nothing(text, is_wrapper) {
        failed = false;
    }
    if failed {
        flags |= FAILED;
    } else if http_error(text).is_some() {
        flags |= SOFT;
    }
    let (mut sig, mut bare) = (0, 0);
    if flags != 0 {
        // A refusal's own line is its error: the detail after it varies
        // from one rejected attempt to the next.
        // A failure with nothing but its exit status (`[exit code: 7]`) is
        // that status, unless the status says it was stopped (a timeout, a
        // kill): that says nothing of which error.
        let error = rejection_line(text)
            .or_else(|| error_line(text))
            .or_else(|| {
                text.lines()
                    .map(str::trim)
                    .find(|t| is_frame(t))
                    .filter(|t| !stopped(t))
            });
        if let Some(error) = error {
            // A bare exit-status line (`Exit code 7`) is all the failure
            // says: its number is the error (curl's 7 is not grep's 1).
            sig = if is_frame(error.trim()) {
                xxh3_64(error.trim().as_bytes()) | 1
            } else {
                signature(error, arguments_json, line)
            };
            bare = if is_frame(error.trim()) {
                sig
            } else {
                signature(error, "", line)
            };
        }
        if transient(text) {
            flags |= TRANSIENT;
        }
    } else if tool.mutating || effect == effect::WRITE {
        flags |= MUTATION;
    }
    if effect == effect::WAIT && job_done(text) {
        flags |= DONE;
    }
    if pathless {
        flags |= PATHLESS;
    }
    // A run or test that comes back and shows an error in its output,
    // though nothing said it failed (a caught traceback, an own script's
    // `Error: …`): only on recurrence, where the re-read rule reads it. An
    // output that only mentions errors (`test_error_handling ... ok`,
    // `0 issues`) is a passing run: after an edit, checking it again is
    // verification.
    if recurs
        && flags & FAILED == 0
        && matches!(effect, effect::RUN | effect::TEST)
        && shows_an_error()
    {
        flags |= TROUBLED;
    }
    let raw = xxh3_64(text.as_bytes()) ^ u64::from(outcome.is_error);
    // A failure (or a run whose output names an error) is the same failure
    // when it differs only in where it happened: its positions are masked
    // too ([`failure_digest_with`]), and it is normalised even at its first
    // occurrence, so the run before an edit above the failing line compares
    // with the run after it. The choice depends on the result alone, so two
    // same results always get the same form.
    let failure = flags & (FAILED | SOFT) != 0
        || (matches!(effect, effect::RUN | effect::TEST) && names_an_error());
    let result = if failure {
        flags |= NORMALIZED;
        failure_digest_with(text, outcome.is_error, line, memo)
    } else if recurs {
        flags |= NORMALIZED;
        result_digest_with(text, outcome.is_error, line, memo)
    } else {
        raw
    };
    Entry {
        call,
        result,
        raw,
        sig,
        bare,
        tool: tool.digest,
        ordinal: 0,
        time: 0,
        flags,
        effect,
        attempt: false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::loops::testing::*;

    #[test]
    fn bash_description_is_ignored_by_default() {
        let mut l = loops();
        let r = run(
            &mut l,
            &[
                (
                    "Bash",
                    r#"{"command":"grep -rn foo","description":"Search foo"}"#,
                    "",
                    false,
                ),
                (
                    "Bash",
                    r#"{"command":"grep -rn foo","description":"Search again"}"#,
                    "",
                    false,
                ),
                (
                    "Bash",
                    r#"{"command":"grep -rn foo","description":"Check once more"}"#,
                    "",
                    false,
                ),
            ],
        );
        assert_eq!(r[2], Some(("repeat", 3)));
        // Other tools keep the key.
        let mut l = loops();
        let r = run(
            &mut l,
            &[
                ("bash", r#"{"command":"x","description":"1"}"#, "", false),
                ("bash", r#"{"command":"x","description":"2"}"#, "", false),
                ("bash", r#"{"command":"x","description":"3"}"#, "", false),
            ],
        );
        assert_eq!(first_alarm(&r), None);
    }

    #[test]
    fn searches_that_found_nothing_are_not_errors() {
        // Different searches, each finding nothing, as Claude Code and
        // OpenHands report exit 1: before, "same error × 3" on "Exit code 1".
        // And mini-swe-agent's template of an empty output, as the model
        // sees it: before, "failed 3 times … with the same error:
        // <returncode>1</returncode>" for greps that found nothing.
        for out in [
            "Exit code 1",
            "\n[Command finished with exit code 1]",
            "No matches found",
            "<returncode>1</returncode>\n<output>\n</output>\n[exit code: 1]",
        ] {
            let mut l = loops();
            let greps: Vec<String> = ["alpha", "beta", "gamma", "delta"]
                .iter()
                .map(|w| format!(r#"{{"command":"grep -rn {w} src/"}}"#))
                .collect();
            let calls: Vec<(&str, &str, &str, bool)> = greps
                .iter()
                .map(|g| ("Bash", g.as_str(), out, true))
                .collect();
            assert_eq!(first_alarm(&run(&mut l, &calls)), None, "{out:?}");
        }
        // A grep that failed for real (a missing file) still counts.
        let mut l = loops();
        let greps: Vec<String> = ["a", "b", "c"]
            .iter()
            .map(|f| format!(r#"{{"command":"grep x {f}.txt"}}"#))
            .collect();
        let outs: Vec<String> = ["a", "b", "c"]
            .iter()
            .map(|f| {
                format!("grep: cannot open {f}.txt (No such file or directory)\n[exit code: 2]")
            })
            .collect();
        let calls: Vec<(&str, &str, &str, bool)> = greps
            .iter()
            .zip(&outs)
            .map(|(g, o)| ("bash", g.as_str(), o.as_str(), false))
            .collect();
        assert_eq!(first_alarm(&run(&mut l, &calls)), Some((2, "same-error")));
    }

    #[test]
    fn edits_rejected_in_words_are_failures() {
        // No error flag, no exit code: the tool's words are the failure.
        let mut l = loops();
        let edits: Vec<String> = (0..3)
            .map(|i| {
                format!(
                    r#"{{"command":"str_replace","path":"a.py","old_str":"x{i}","new_str":"y"}}"#
                )
            })
            .collect();
        let outs: Vec<String> = (0..3)
            .map(|i| {
                format!(
                    "No replacement was performed, old_str `x{i}` did not appear verbatim in a.py."
                )
            })
            .collect();
        let calls: Vec<(&str, &str, &str, bool)> = edits
            .iter()
            .zip(&outs)
            .map(|(e, o)| ("str_replace_editor", e.as_str(), o.as_str(), false))
            .collect();
        assert_eq!(first_alarm(&run(&mut l, &calls)), Some((2, "same-error")));
        // SWE-agent's edit command answers through the shell.
        let mut l = loops();
        let edits: Vec<String> = (0..3)
            .map(|i| format!(r#"{{"command":"edit 10:1{i}\n    return x\nend_of_edit"}}"#))
            .collect();
        let out = "Your proposed edit has introduced new syntax error(s). Please read this error message carefully and then retry editing the file.\n\nERRORS:\n- E999 IndentationError: unexpected indent";
        let calls: Vec<(&str, &str, &str, bool)> = edits
            .iter()
            .map(|e| ("bash", e.as_str(), out, false))
            .collect();
        assert_eq!(first_alarm(&run(&mut l, &calls)), Some((2, "same-error")));
    }

    #[test]
    fn a_test_run_behind_a_pipe_that_names_an_error_is_failing() {
        // `pytest | tail -40` exits 0 whatever pytest said: the conftest's
        // import error, three times with looks between, is one failing re-run.
        let pytest = r#"{"command":"uv run pytest tests/ -v 2>&1 | tail -40"}"#;
        let out = "ImportError while loading conftest '/p/tests/conftest.py'.\ntests/conftest.py:9: in <module>\nE   ModuleNotFoundError: No module named 'ies_backend'";
        let calls = [
            ("Bash", pytest, out, false),
            (
                "Bash",
                r#"{"command":"ls -la tests/"}"#,
                "conftest.py",
                false,
            ),
            ("Bash", pytest, out, false),
            (
                "Read",
                r#"{"file_path":"/p/tests/conftest.py"}"#,
                "import x",
                false,
            ),
            ("Bash", pytest, out, false),
        ];
        let mut l = loops();
        let r = run(&mut l, &calls);
        assert_eq!(first_alarm(&r), Some((4, "re-read")));
        // Status not hidden, the same words: a passing run's output is content.
        let plain = r#"{"command":"uv run pytest tests/ -v"}"#;
        let ok = "tests/test_errors.py::test_error_message PASSED\n1 passed";
        let calls: Vec<_> = calls
            .iter()
            .map(|&(t, a, o, f)| {
                if a == pytest {
                    (t, plain, ok, f)
                } else {
                    (t, a, o, f)
                }
            })
            .collect();
        let mut l = loops();
        assert_eq!(first_alarm(&run(&mut l, &calls)), None);
    }

    #[test]
    fn trap_a_404_flagged_by_a_rule_is_still_soft() {
        // Checking that deleted items are gone: a rule flags each 404 body,
        // but an HTTP status alone is a soft failure (softError: 4).
        let mut l = loops();
        let mut alarms = Vec::new();
        for id in [3, 5, 8] {
            let args = format!(
                r#"{{"command":"curl -s -w 'HTTP %{{http_code}}' http://h/api/items/{id}"}}"#
            );
            let out = format!(
                "{{\"error\": \"not_found\", \"message\": \"item {id} not found\"}}\n\nHTTP 404\n"
            );
            alarms.push(l.observe(
                "a",
                "Bash",
                &args,
                &LoopOutcome {
                    text: &out,
                    is_error: false,
                    flagged: true,
                },
            ));
        }
        assert!(alarms.iter().all(Option::is_none), "{alarms:?}");
    }

    #[test]
    fn queries_that_mention_errors_and_calls_never_run_are_no_failures() {
        // A review query piped through python: the status is hidden, and the
        // output talks about an "error state" three times. It did not fail.
        let queries: Vec<String> = (0..3)
            .map(|i| format!(r#"{{"command":"gh api graphql -f query='{{ thread{i} }}' | python3 -c 'import json,sys; print(json.load(sys.stdin))'"}}"#))
            .collect();
        let calls: Vec<(&str, &str, &str, bool)> = queries
            .iter()
            .map(|q| {
                (
                    "Bash",
                    q.as_str(),
                    "Thread 43: **List-view empty state still renders alongside the error state.**",
                    false,
                )
            })
            .collect();
        assert_eq!(first_alarm(&run(&mut loops(), &calls)), None);
        // The same pipe whose output shows the program failing is a failure.
        let failing: Vec<(&str, &str, &str, bool)> = queries
            .iter()
            .map(|q| ("Bash", q.as_str(), "Traceback (most recent call last):\n  File \"<string>\", line 1\njson.decoder.JSONDecodeError: Expecting value", false))
            .collect();
        assert_eq!(
            first_alarm(&run(&mut loops(), &failing)),
            Some((2, "same-error"))
        );
        // Claude Code cancels the other calls of a batch when one fails:
        // those calls never ran, so they did not fail the same way.
        let cancelled = "<tool_use_error>Cancelled: parallel tool call Bash(git-ai prompts --since 1d 2>&1) errored</tool_use_error>";
        let calls = [
            (
                "Bash",
                r#"{"command":"git-ai prompts --since 1d 2>&1"}"#,
                "Exit code 1\nError parsing --since: Invalid --since value: '1d'",
                true,
            ),
            (
                "Bash",
                r#"{"command":"git notes --ref=ai show 3e2941c"}"#,
                cancelled,
                true,
            ),
            (
                "Bash",
                r#"{"command":"ls -la ~/.git-ai/internal/daemon/"}"#,
                cancelled,
                true,
            ),
            ("Bash", r#"{"command":"git-ai help"}"#, cancelled, true),
            (
                "Glob",
                r#"{"pattern":"**/*.md"}"#,
                "<tool_use_error>Sibling tool call errored</tool_use_error>",
                true,
            ),
        ];
        assert_eq!(first_alarm(&run(&mut loops(), &calls)), None);
    }
}
