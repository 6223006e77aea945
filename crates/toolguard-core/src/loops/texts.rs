//! What the loop detectors say and what they read in words. The alarm's
//! text (evidence, reminder, advice) and a refusal's advice; and the
//! phrases of the data file `rules/loops.json` the detectors look for in
//! results: a tool's rejection said in words (a failure with no error
//! flag), a search's "nothing found" (an answer, not a failure), a poll's
//! "the job has ended" (decoded once per process; matched
//! case-insensitively as plain text).

use std::collections::HashMap;
use std::sync::OnceLock;

use aho_corasick::{AhoCorasick, AhoCorasickBuilder, AhoCorasickKind, MatchKind};
use serde_json::Value;

use crate::digest::FastHash;
use crate::shell;

use super::detect::{About, Found};
use super::entry::Active;
use super::errors::error_line;
use super::{LoopAlarm, LoopKind, Loops, EVIDENCE_CALLS};

impl Loops {
    /// The alarm for `found`, the newest step of `episode`, raised at a
    /// call of `tool` whose result is `text`.
    pub(super) fn alarm(
        &self,
        tool: &str,
        found: Found,
        episode: &Active,
        text: &str,
        arguments_json: &str,
    ) -> LoopAlarm {
        let calls = list_calls(episode.first_ordinal, &found.calls, episode.calls);
        let count = episode.count;
        let first = episode.first_ordinal;
        let over = found
            .span_ms
            .filter(|ms| *ms >= 60_000)
            .map(|ms| format!(" over {}", minutes(ms)))
            .unwrap_or_default();
        let (evidence, head) = match (found.kind, found.about) {
            (LoopKind::Repeat, About::Polls) => (
                format!("calls {calls}: the same {tool} poll, nothing new each time{over}"),
                format!("{tool} polled the same job {count} times in a row and showed nothing new each time{over} (calls {calls})."),
            ),
            (LoopKind::Repeat, About::EndedJob) => (
                format!("calls {calls}: the same {tool} poll of a job that has ended, the same result each time"),
                format!("{tool} polled a job that has already ended {count} times in a row and got the same result each time (calls {calls})."),
            ),
            (LoopKind::Repeat, _) => (
                format!("calls {calls}: the same {tool} call, the same result each time"),
                format!("{tool} was called {count} times in a row with the same arguments and returned the same result each time (calls {calls})."),
            ),
            (LoopKind::Cycle, About::Polls) => (
                format!(
                    "calls {calls}: a block of {} polls repeated with nothing new, {count} rounds{over}",
                    found.period
                ),
                format!(
                    "the last {} calls (calls {calls}) poll the same job in the same block of {} calls and show nothing new each round{over}; this is round {count}.",
                    episode.calls,
                    found.period
                ),
            ),
            (LoopKind::Cycle, _) => (
                format!(
                    "calls {calls}: a block of {} calls repeated with the same results, {count} rounds",
                    found.period
                ),
                format!(
                    "the last {} calls (calls {calls}) repeat the same block of {} calls with the same results every round; this is round {count}.",
                    episode.calls,
                    found.period
                ),
            ),
            (LoopKind::SameError, _) => {
                let line = error_line(text).map(excerpt).unwrap_or_default();
                let how = if found.distinct == 1 {
                    "the same call each time".to_owned()
                } else if found.distinct < found.count {
                    format!("with {} different sets of arguments", found.distinct)
                } else {
                    "each time with other arguments".to_owned()
                };
                let row = if found.scattered {
                    ", whatever was tried in between,"
                } else {
                    " in a row"
                };
                (
                    format!("calls {calls}: {tool} failed with the same error each time: {line}"),
                    format!("{tool} failed {count} times{row} with the same error, {how} (calls {calls}): {line}"),
                )
            }
            (LoopKind::Redo, About::Undo) => {
                let what = restored(tool, arguments_json);
                let (before, failed) = found.echo.unwrap_or_default();
                (
                    format!("calls {calls}: the same {tool} restore of {what}, attempts in between; call #{failed} failed as call #{before} had"),
                    format!("{tool} restored {what} the same way {count} times since call #{first} (calls {calls}), each time undoing the changes made since, and the attempts in between end as before: call #{failed} failed exactly as call #{before} had."),
                )
            }
            (LoopKind::Redo, _) => (
                format!("calls {calls}: the same {tool} change made again with the same result, only looks in between"),
                format!("{tool} made the same change {count} times since call #{first} with the same result each time, with nothing but looking in between (calls {calls})."),
            ),
            (LoopKind::ReRead, About::Reruns) if found.scattered => (
                format!("calls {calls}: the same {tool} run failed the same way after the same steps as before"),
                format!("{tool} ran the same command {count} times since call #{first} and it failed the same way each time, after the same steps as the time before (calls {calls})."),
            ),
            (LoopKind::ReRead, About::Reruns) => (
                format!("calls {calls}: the same {tool} run failed the same way each time, other calls in between"),
                format!("{tool} ran the same command {count} times since call #{first} and it failed the same way each time, whatever was done in between (calls {calls})."),
            ),
            (LoopKind::ReRead, _) => (
                format!("calls {calls}: the same {tool} call returned the same result, other calls in between"),
                format!("{tool} was called with the same arguments {count} times since call #{first} and returned the same result each time (calls {calls})."),
            ),
        };
        let reminders = episode.reminders;
        // A loop that goes on after its first reminder hears it again, and
        // louder: the model is told how many it has already had.
        let lead = if reminders > 1 {
            format!("[toolguard] Loop detected (reminder {reminders} for this loop, which began at call #{first}):")
        } else {
            "[toolguard] Loop detected:".to_owned()
        };
        let text = format!(
            "{lead} {head} {}",
            advice(found.kind, found.transient, found.about)
        );
        let mut shown = found.calls;
        if shown.len() > EVIDENCE_CALLS {
            shown.drain(..shown.len() - EVIDENCE_CALLS);
        }
        LoopAlarm {
            kind: found.kind,
            tool: tool.to_owned(),
            count,
            period: found.period,
            calls: shown,
            first,
            last: episode.last_ordinal,
            evidence,
            text,
            summary: format!("{tool}: {} × {count}", found.kind.label()),
            reminders,
        }
    }
}

pub(super) fn advice(kind: LoopKind, transient: bool, about: About) -> &'static str {
    if transient {
        return "The service is rate-limiting or temporarily unavailable: wait before the next attempt (back off, and longer each time) or check its status instead of retrying at once.";
    }
    match about {
        About::Polls => return "The job may still be running and simply quiet: wait longer before the next check (back off, and longer each time), or look at it another way (its log file, its process, what it writes); if it has hung, stop it and say so.",
        About::EndedJob => return "The job has ended, so polling it again will return the same thing: read its final output and exit status and act on them.",
        About::Reruns => return "What changed in between has not changed the failure: find out why it fails (read the error, check your assumption) before running it again.",
        About::Undo => return "Undoing the change and trying again has not got you further: find out why the attempts fail (read the error, check your assumption) before the next one, or try another approach.",
        About::Calls => {}
    }
    match kind {
        LoopKind::Repeat => "Calling it again will return the same thing. Read the result you already have, then change something (the arguments, the approach), or stop and report what blocks you.",
        LoopKind::Cycle => "Nothing changes between rounds. Stop the cycle: find out why the failing step keeps failing (read the error, check your assumption) and do something different.",
        LoopKind::SameError => "Changing the arguments does not reach the cause. Diagnose the error itself (read it, check what it names) before trying again.",
        LoopKind::ReRead => "The content has not changed since you last read it. Use what you already have instead of fetching it again.",
        LoopKind::Redo => "Doing it again has not changed anything: check whether it took effect, and why not, before doing it again; try another way.",
    }
}

/// What a restore writes, for an undo alarm: the first two paths the call
/// writes (by the shell model), or "the same files".
fn restored(tool: &str, arguments_json: &str) -> String {
    let model = shell::classify_call(tool, arguments_json);
    let paths: Vec<String> = model.writes.iter().take(2).map(|p| excerpt(p)).collect();
    if paths.is_empty() {
        "the same files".to_owned()
    } else {
        paths.join(" and ")
    }
}

/// `12 min`, `2 h 5 min`.
fn minutes(ms: u64) -> String {
    let m = ms / 60_000;
    if m < 60 {
        format!("{m} min")
    } else if m.is_multiple_of(60) {
        format!("{} h", m / 60)
    } else {
        format!("{} h {} min", m / 60, m % 60)
    }
}

/// `#3, #4, #5`: the episode's latest calls (at most [`EVIDENCE_CALLS`]),
/// after its first call and `…` when the episode (`total` calls, begun at
/// `first`) holds more than they show.
fn list_calls(first: u64, calls: &[u64], total: u64) -> String {
    let skip = calls.len().saturating_sub(EVIDENCE_CALLS);
    let shown = &calls[skip..];
    let mut out: Vec<String> = shown.iter().map(|c| format!("#{c}")).collect();
    if total > shown.len() as u64 && shown.first() != Some(&first) {
        out.insert(0, "…".to_owned());
        out.insert(0, format!("#{first}"));
    }
    out.join(", ")
}

fn excerpt(line: &str) -> String {
    let line = line.trim();
    match line.char_indices().nth(160) {
        Some((i, _)) => format!("{}…", &line[..i]),
        None => line.to_owned(),
    }
}

const DATA: &str = include_str!("../../../../rules/loops.json");

/// Bytes of a result searched for a rejection phrase: a harness says it first.
const REJECTION_HEAD: usize = 1024;

struct Texts {
    rejections: AhoCorasick,
    /// The same phrases for [`is_rejection`]'s yes/no, when all are long
    /// enough to be sampled (the data file's are).
    sampled: Option<Sampled>,
    prefixes: Vec<String>,
    no_results: Vec<String>,
    job_done: AhoCorasick,
    not_run: Vec<String>,
}

fn strings(v: Option<&Value>) -> Vec<String> {
    v.and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .filter(|s| !s.is_empty())
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default()
}

fn searcher(words: &[String]) -> AhoCorasick {
    AhoCorasickBuilder::new()
        .ascii_case_insensitive(true)
        .match_kind(MatchKind::LeftmostFirst)
        // Built in every hook process: a DFA's build (~1.8 M instructions)
        // costs more than the few short texts it would ever search.
        .kind(Some(AhoCorasickKind::ContiguousNFA))
        .build(words)
        .expect("a few literal phrases always build")
}

/// A searcher for `words` in text lowercased by [`lower_head`]. Built
/// case-sensitive on purpose: aho-corasick's case-insensitive automaton has
/// no SIMD prefilter and walks every byte (~16 instructions a byte, most of
/// a `read_file` call's loop cost); on lowercased text the packed searcher
/// applies, and ASCII lowercasing keeps every byte offset.
fn lower_searcher(words: &[String]) -> AhoCorasick {
    let lower: Vec<String> = words.iter().map(|w| w.to_ascii_lowercase()).collect();
    AhoCorasickBuilder::new()
        .match_kind(MatchKind::LeftmostFirst)
        .kind(Some(AhoCorasickKind::ContiguousNFA))
        .build(&lower)
        .expect("a few literal phrases always build")
}

/// The first [`REJECTION_HEAD`] bytes of `text`, ASCII-lowercased into `buf`
/// (same length, same offsets as `head(text, REJECTION_HEAD)`).
fn lower_head<'b>(text: &str, buf: &'b mut [u8; REJECTION_HEAD]) -> &'b [u8] {
    let h = head(text, REJECTION_HEAD).as_bytes();
    let out = &mut buf[..h.len()];
    out.copy_from_slice(h);
    out.make_ascii_lowercase();
    out
}

/// Sampling step of [`Sampled`]: a phrase of `MIN_SAMPLED` bytes or more
/// holds a whole 8-byte window starting at a multiple of `STEP`.
const STEP: usize = 8;
const MIN_SAMPLED: usize = 8 + STEP - 1;

/// Case-insensitive "does any phrase occur" by sampling: every `STEP`-th
/// 8-byte window of the head, its letters folded (`| 0x20` on every byte,
/// which equal-but-for-ASCII-case bytes share), is tested against a bit set
/// of the phrases' folded windows at offsets `0..STEP`, and a hit is
/// compared whole. A `read_file` result cost ~2,900 instructions a call in
/// the lowercased copy and packed search (most of the loop detectors' cost
/// for a call new to the window); sampling costs ~1,000.
struct Sampled {
    bits: Box<[u64; 1 << (BITS - 6)]>,
    windows: HashMap<u64, Vec<(usize, usize)>, FastHash>,
    /// The phrases, ASCII-lowercased.
    phrases: Vec<Vec<u8>>,
}

const BITS: u32 = 12;
const FOLD: u64 = 0x2020_2020_2020_2020;

fn slot(w: u64) -> usize {
    (w.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - BITS)) as usize
}

fn word(b: &[u8]) -> u64 {
    u64::from_le_bytes(b[..8].try_into().unwrap()) | FOLD
}

impl Sampled {
    fn new(words: &[String]) -> Option<Sampled> {
        if words.iter().any(|w| w.len() < MIN_SAMPLED) {
            return None;
        }
        let phrases: Vec<Vec<u8>> = words
            .iter()
            .map(|w| w.to_ascii_lowercase().into_bytes())
            .collect();
        let mut bits = Box::new([0u64; 1 << (BITS - 6)]);
        let mut windows: HashMap<u64, Vec<(usize, usize)>, FastHash> = HashMap::default();
        for (k, p) in phrases.iter().enumerate() {
            for o in 0..STEP {
                let w = word(&p[o..]);
                bits[slot(w) / 64] |= 1 << (slot(w) % 64);
                windows.entry(w).or_default().push((k, o));
            }
        }
        Some(Sampled {
            bits,
            windows,
            phrases,
        })
    }

    /// Whether a phrase occurs in `h`, ignoring ASCII case.
    fn any_in(&self, h: &[u8]) -> bool {
        // The samples are the whole `STEP`-byte chunks, four tested together
        // (most blocks have no hit): no bounds checks, one branch a block.
        const _: () = assert!(STEP == 8);
        let hit = |c: &[u8]| {
            let w = u64::from_le_bytes(c[..8].try_into().unwrap()) | FOLD;
            let b = slot(w);
            (self.bits[b / 64] >> (b % 64)) & 1
        };
        let blocks = h.chunks_exact(4 * STEP);
        let tail = blocks.remainder();
        for (i, c) in blocks.enumerate() {
            if hit(&c[..8]) | hit(&c[8..16]) | hit(&c[16..24]) | hit(&c[24..]) != 0 {
                let at = i * 4 * STEP;
                if (0..4).any(|j| self.confirm(h, at + j * STEP, &c[j * STEP..])) {
                    return true;
                }
            }
        }
        let at = h.len() - tail.len();
        tail.chunks_exact(STEP)
            .enumerate()
            .any(|(j, c)| hit(c) != 0 && self.confirm(h, at + j * STEP, c))
    }

    /// Whether a phrase having the window at `p` (`c` starts there) occurs
    /// around it.
    #[inline(never)]
    fn confirm(&self, h: &[u8], p: usize, c: &[u8]) -> bool {
        let w = word(c);
        self.windows.get(&w).into_iter().flatten().any(|&(k, o)| {
            let phrase = &self.phrases[k];
            p.checked_sub(o)
                .and_then(|s| h.get(s..s + phrase.len()))
                .is_some_and(|t| t.eq_ignore_ascii_case(phrase))
        })
    }
}

fn texts() -> &'static Texts {
    static TEXTS: OnceLock<Texts> = OnceLock::new();
    TEXTS.get_or_init(|| {
        // The file is checked by the tests (`the_data_file_is_well_formed`);
        // were it broken, the detectors would run without its texts rather
        // than fail a guard.
        let root: Value = serde_json::from_str(DATA).unwrap_or(Value::Null);
        let phrases = strings(root.pointer("/rejections/phrases"));
        Texts {
            rejections: lower_searcher(&phrases),
            sampled: Sampled::new(&phrases),
            prefixes: strings(root.pointer("/rejections/prefixes")),
            no_results: strings(root.pointer("/noResults/lines")),
            job_done: searcher(&strings(root.pointer("/jobDone/phrases"))),
            not_run: strings(root.pointer("/notRun/phrases"))
                .iter()
                .map(|p| p.to_ascii_lowercase())
                .collect(),
        }
    })
}

fn head(text: &str, max: usize) -> &str {
    let mut end = text.len().min(max);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

/// Whether a result says the tool refused the call (`shell`: the tool is a
/// shell, whose output is its program's: only the phrases count).
pub fn is_rejection(text: &str, shell: bool) -> bool {
    let t = texts();
    let start = text.trim_start();
    if !shell
        && t.prefixes.iter().any(|p| {
            start.len() >= p.len()
                && start.is_char_boundary(p.len())
                && start[..p.len()].eq_ignore_ascii_case(p)
        })
    {
        return true;
    }
    match &t.sampled {
        Some(s) => s.any_in(head(text, REJECTION_HEAD).as_bytes()),
        None => t
            .rejections
            .is_match(lower_head(text, &mut [0; REJECTION_HEAD])),
    }
}

/// The line of a result that holds a rejection phrase, if any: a refusal
/// is the error, whatever detail follows it (one rejected edit names an
/// unmatched `]`, the next an unmatched `)`). A bare prefix (`ERROR:`) is no
/// such line: what follows it is the error.
pub fn rejection_line(text: &str) -> Option<&str> {
    let at = texts()
        .rejections
        .find(lower_head(text, &mut [0; REJECTION_HEAD]))?
        .start();
    let from = text[..at].rfind('\n').map_or(0, |i| i + 1);
    let to = text[at..].find('\n').map_or(text.len(), |i| at + i);
    Some(text[from..to].trim_end_matches('\r'))
}

/// Whether a search's result says it found nothing: every line is empty, a
/// harness header or marker (`is_frame`), or a "no matches" line.
pub fn found_nothing(text: &str, is_frame: impl Fn(&str) -> bool) -> bool {
    let t = texts();
    text.lines().map(str::trim).all(|l| {
        l.is_empty() || is_frame(l) || t.no_results.iter().any(|n| l.eq_ignore_ascii_case(n))
    })
}

/// Whether a result says the harness never ran the call (a parallel
/// call cancelled because another failed): asked of failures only.
pub fn not_run(text: &str) -> bool {
    let head = head(text, 256).to_ascii_lowercase();
    texts().not_run.iter().any(|p| head.contains(p.as_str()))
}

/// Whether a poll's result says the job it watches has ended.
pub fn job_done(text: &str) -> bool {
    texts().job_done.is_match(text)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::loops::testing::*;

    /// The sampled test says what the lowercased search says: every phrase
    /// in mixed case at every offset of the head (and across its end),
    /// phrases cut short by a byte, and plain texts.
    #[test]
    fn sampled_rejections_agree_with_the_search() {
        let t = texts();
        let s = t
            .sampled
            .as_ref()
            .expect("the data file's phrases are sampled");
        let oracle = |text: &str| {
            t.rejections
                .is_match(lower_head(text, &mut [0; REJECTION_HEAD]))
        };
        let mut n = 0;
        for phrase in strings(
            serde_json::from_str::<Value>(DATA)
                .unwrap()
                .pointer("/rejections/phrases"),
        ) {
            let mixed: String = phrase
                .chars()
                .enumerate()
                .map(|(i, c)| {
                    if i % 3 == 0 {
                        c.to_ascii_uppercase()
                    } else {
                        c
                    }
                })
                .collect();
            let cut = &phrase[..phrase.len() - 1];
            for pad in (0..40).chain(REJECTION_HEAD - 40..REJECTION_HEAD + 2) {
                for body in [&phrase[..], &mixed[..], cut] {
                    let text = format!("{}{body}\nrest", "x".repeat(pad));
                    let got = s.any_in(head(&text, REJECTION_HEAD).as_bytes());
                    assert_eq!(got, oracle(&text), "{body:?} at {pad}");
                    n += usize::from(got);
                }
            }
        }
        assert!(n > 0);
        for text in [
            "",
            "short",
            "     1\tdef f(x): return x + 1\n",
            "Found multiple occurrence",
        ] {
            assert_eq!(s.any_in(text.as_bytes()), oracle(text), "{text:?}");
        }
    }

    #[test]
    fn the_data_file_is_well_formed() {
        let root: Value = serde_json::from_str(DATA).expect("rules/loops.json is JSON");
        for at in [
            "/rejections/phrases",
            "/rejections/prefixes",
            "/noResults/lines",
            "/jobDone/phrases",
        ] {
            let list = root.pointer(at).and_then(Value::as_array).expect(at);
            assert!(!list.is_empty(), "{at} is empty");
            assert!(
                list.iter()
                    .all(|v| v.as_str().is_some_and(|s| !s.trim().is_empty())),
                "{at}: every entry a non-empty string"
            );
        }
    }

    #[test]
    fn rejections_no_results_and_ended_jobs() {
        assert!(is_rejection(
            "Your proposed edit has introduced new syntax error(s). Please read this error message carefully",
            true
        ));
        assert!(is_rejection("ERROR:\nInvalid `path` parameter: /x", false));
        assert!(
            !is_rejection("ERROR: test_x failed", true),
            "a program's own output"
        );
        assert!(!is_rejection("The file a.py has been edited.", false));
        let frame = |l: &str| l.starts_with("[exit code:");
        assert!(found_nothing("", frame));
        assert!(found_nothing("\n[exit code: 1]\n", frame));
        assert!(found_nothing("No matches found", frame));
        assert!(!found_nothing("a.py:3: x\n[exit code: 1]", frame));
        assert!(job_done(
            "<status>completed</status>\n<exit_code>0</exit_code>"
        ));
        assert!(!job_done(
            "<status>running</status>\n<stdout>epoch 3</stdout>"
        ));
    }

    #[test]
    fn rejection_phrases_ignore_case_and_keep_their_line() {
        // Searched in a lowercased copy: any ASCII case matches, and the
        // line returned is the original text's, not the copy's.
        assert!(is_rejection("NO EXACT MATCH FOUND in a.py", false));
        let text = "é header\nERROR: No Replacement Was Performed, OLD_STR x\nmore";
        assert_eq!(
            rejection_line(text),
            Some("ERROR: No Replacement Was Performed, OLD_STR x")
        );
        // Only the head is searched, cut at a character boundary.
        let long = format!("{}No exact match found", "é".repeat(REJECTION_HEAD));
        assert!(!is_rejection(&long, false));
        assert_eq!(rejection_line(&long), None);
    }

    #[test]
    fn caller_ordinals_name_the_calls() {
        let mut l = loops();
        let out = LoopOutcome {
            text: "same",
            ..Default::default()
        };
        let mut last = None;
        for ordinal in [40, 47, 52] {
            last = l.observe_marked(
                "a",
                "bash",
                PYTEST,
                &out,
                CallMark {
                    ordinal: Some(ordinal),
                    time_ms: None,
                    concurrent: false,
                },
            );
        }
        let a = last.expect("three in a row");
        assert_eq!((a.first, a.last, a.calls), (40, 52, vec![40, 47, 52]));
        assert!(a.text.contains("#40, #47, #52"), "{}", a.text);
    }

    #[test]
    fn the_texts_of_a_scattered_same_error_say_so() {
        let mut l = loops();
        let fail = "E: ModuleNotFoundError: No module named 'numpy'\n[exit code: 1]";
        let mut last = None;
        for (i, cmd) in [
            "pip install numpy",
            "ls",
            "apt-get install numpy",
            "ls",
            "pip3 install numpy",
        ]
        .iter()
        .enumerate()
        {
            let args = format!(r#"{{"command":"{cmd}"}}"#);
            let out = if i % 2 == 0 { fail } else { "a b" };
            last = l.observe(
                "a",
                "bash",
                &args,
                &LoopOutcome {
                    text: out,
                    is_error: false,
                    flagged: false,
                },
            );
        }
        let alarm = last.expect("an alarm at the third install");
        assert!(
            alarm
                .text
                .contains("failed 3 times, whatever was tried in between, with the same error"),
            "{}",
            alarm.text
        );
    }
}
