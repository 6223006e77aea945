//! The texts the loop detectors look for in results, from the data file
//! `rules/loops.json`: a tool's rejection said in words (a failure with no
//! error flag), a search's "nothing found" (an answer, not a failure), a
//! poll's "the job has ended". Decoded once per process; matched
//! case-insensitively as plain text.

use std::sync::OnceLock;

use aho_corasick::{AhoCorasick, AhoCorasickBuilder, AhoCorasickKind, MatchKind};
use serde_json::Value;

const DATA: &str = include_str!("../../../rules/loops.json");

/// Bytes of a result searched for a rejection phrase: a harness says it first.
const REJECTION_HEAD: usize = 1024;

struct Texts {
    rejections: AhoCorasick,
    prefixes: Vec<String>,
    no_results: Vec<String>,
    job_done: AhoCorasick,
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

fn texts() -> &'static Texts {
    static TEXTS: OnceLock<Texts> = OnceLock::new();
    TEXTS.get_or_init(|| {
        // The file is checked by the tests (`the_data_file_is_well_formed`);
        // were it broken, the detectors would run without its texts rather
        // than fail a guard.
        let root: Value = serde_json::from_str(DATA).unwrap_or(Value::Null);
        Texts {
            rejections: lower_searcher(&strings(root.pointer("/rejections/phrases"))),
            prefixes: strings(root.pointer("/rejections/prefixes")),
            no_results: strings(root.pointer("/noResults/lines")),
            job_done: searcher(&strings(root.pointer("/jobDone/phrases"))),
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
    t.rejections
        .is_match(lower_head(text, &mut [0; REJECTION_HEAD]))
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

/// Whether a poll's result says the job it watches has ended.
pub fn job_done(text: &str) -> bool {
    texts().job_done.is_match(text)
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
