//! The texts the loop detectors look for in results, from the data file
//! `rules/loops.json`: a tool's rejection said in words (a failure with no
//! error flag), a search's "nothing found" (an answer, not a failure), a
//! poll's "the job has ended". Decoded once per process; matched
//! case-insensitively as plain text.

use std::collections::HashMap;
use std::sync::OnceLock;

use aho_corasick::{AhoCorasick, AhoCorasickBuilder, AhoCorasickKind, MatchKind};
use serde_json::Value;

use crate::digest::FastHash;

const DATA: &str = include_str!("../../../rules/loops.json");

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
/// for a call new to the window, issue 25); sampling costs ~1,000.
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

/// Whether a poll's result says the job it watches has ended.
pub fn job_done(text: &str) -> bool {
    texts().job_done.is_match(text)
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
