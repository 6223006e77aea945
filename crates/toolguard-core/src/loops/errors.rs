//! What a result says of a failure, in the words of its text: the line
//! that names the error ([`error_line`]) and its signature ([`signature`]),
//! an HTTP error status, a rate limit, Codex's exit line, harness frame
//! lines, and whether an output names an error at all.

use std::sync::LazyLock;

use aho_corasick::AhoCorasick;
use memchr::memmem;

use crate::digest::xxh3_64;
use crate::normalize::normalize_line;

/// Codex's shell output starts `Exit code: N`.
pub(super) fn codex_exit_failed(text: &str) -> bool {
    let Some(rest) = text.strip_prefix("Exit code: ") else {
        return false;
    };
    let code = rest.split(['\n', '\r']).next().unwrap_or("").trim();
    !code.is_empty() && code.bytes().all(|b| b.is_ascii_digit()) && code.bytes().any(|b| b != b'0')
}

/// Lines looked at for an HTTP status or a transient-failure word: the head
/// and the tail of the output (where status lines and summaries are).
fn edge_lines(text: &str) -> impl Iterator<Item = &str> {
    let head = text.lines().take(20);
    let tail_start = text.len().saturating_sub(400);
    let tail_start = (tail_start..text.len())
        .find(|&i| text.is_char_boundary(i))
        .unwrap_or(text.len());
    let tail = if tail_start == 0 {
        None
    } else {
        Some(text[tail_start..].lines().skip(1))
    };
    head.chain(tail.into_iter().flatten())
}

/// An HTTP 4xx/5xx status line: `HTTP/1.1 404 Not Found` or `HTTP 404`.
pub(super) fn http_error(text: &str) -> Option<u16> {
    // Most results hold no `HTTP` near their edges: one search each (one in
    // all when the head is the whole text and holds the tail).
    let has = |s: &str| has_http(s.as_bytes());
    let head = &text[..floor_char(text, text.len().min(4096))];
    let found = if head.len() == text.len() {
        has(text)
    } else {
        let tail = &text[floor_char(text, text.len().saturating_sub(512))..];
        has(head) || has(tail)
    };
    if !found {
        return None;
    }
    edge_lines(text).find_map(|line| {
        let line = line.trim();
        let rest = line
            .strip_prefix("HTTP/")
            .and_then(|r| r.split_once(' ').map(|(_, s)| s))
            .or_else(|| line.strip_prefix("HTTP "))?;
        let code: u16 = rest.get(..3)?.parse().ok()?;
        let whole = rest.len() == 3 || rest.as_bytes()[3] == b' ';
        (whole && (400..600).contains(&code)).then_some(code)
    })
}

/// Whether `bytes` holds `HTTP`. This runs on every result the detectors
/// see, so it looks for `H` first (one byte: about twice as fast as a
/// substring search over text with few capitals) and falls back to the
/// substring search once `H` has turned up a few times without `HTTP`.
fn has_http(bytes: &[u8]) -> bool {
    static HTTP: LazyLock<memmem::Finder<'static>> = LazyLock::new(|| memmem::Finder::new("HTTP"));
    let mut at = 0;
    for _ in 0..8 {
        let Some(i) = memchr::memchr(b'H', &bytes[at..]) else {
            return false;
        };
        if bytes[at + i..].starts_with(b"HTTP") {
            return true;
        }
        at += i + 1;
    }
    HTTP.find(&bytes[at..]).is_some()
}

fn floor_char(text: &str, mut i: usize) -> usize {
    while !text.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// Rate limits and temporary unavailability: back-off territory.
pub(super) fn transient(text: &str) -> bool {
    if matches!(http_error(text), Some(429) | Some(503)) {
        return true;
    }
    // One search of each edge (not one of each line): a phrase holds no line
    // break, so it is on an edge line exactly when it is inside their span.
    // A substring search per phrase: each skips ahead on the phrase's rare
    // bytes (`q`, `y`, `_`, `-`), where one search for all four would stop at
    // every `t` and `r`.
    static PHRASES: LazyLock<[memmem::Finder<'static>; 4]> = LazyLock::new(|| {
        [
            "too many requests",
            "rate limit",
            "rate_limit",
            "retry-after",
        ]
        .map(memmem::Finder::new)
    });
    let (head, tail) = edge_spans(text);
    [head, tail].into_iter().any(|span| {
        LOWER.with_borrow_mut(|buf| {
            buf.clear();
            buf.extend(span.bytes().map(|b| b.to_ascii_lowercase()));
            PHRASES.iter().any(|p| p.find(buf).is_some())
        })
    })
}

/// The two spans [`edge_lines`] takes its lines from: the first 20 lines,
/// and the whole lines of the last 400 bytes.
fn edge_spans(text: &str) -> (&str, &str) {
    let head_end = memchr::memchr_iter(b'\n', text.as_bytes())
        .nth(19)
        .unwrap_or(text.len());
    let tail_start = (text.len().saturating_sub(400)..text.len())
        .find(|&i| text.is_char_boundary(i))
        .unwrap_or(text.len());
    let tail = if tail_start == 0 {
        ""
    } else {
        // The first line there is cut: it starts after the next line break.
        text[tail_start..]
            .find('\n')
            .map_or("", |n| &text[tail_start + n + 1..])
    };
    (&text[..head_end], tail)
}

/// A searcher for any of `words` (lowercase ASCII) in text lowercased by
/// [`find_lower`]: the packed (Teddy) searcher when it builds, as the
/// automaton's own prefilter lets most bytes of common English text through
/// to its DFA (~16 instructions a byte on a passing test log); the automaton
/// where it does not (no SIMD).
struct Words {
    packed: Option<aho_corasick::packed::Searcher>,
    automaton: AhoCorasick,
}

impl Words {
    fn find(&self, hay: &[u8]) -> Option<usize> {
        match &self.packed {
            Some(p) => p.find(hay).map(|m| m.start()),
            None => self.automaton.find(hay).map(|m| m.start()),
        }
    }
}

fn words(words: &[&str]) -> Words {
    Words {
        packed: aho_corasick::packed::Config::new()
            .builder()
            .extend(words)
            .build(),
        automaton: AhoCorasick::new(words).expect("a few literal words always build"),
    }
}

thread_local! {
    /// The lowercased chunk [`find_lower`] searches, reused from call to call.
    static LOWER: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Where the first of `words` (built by [`words`]) occurs in `hay[from..]`,
/// ignoring ASCII case: a lowercased copy is searched, so the searcher's
/// SIMD prefilter runs (a case-insensitive automaton goes byte by byte, ~13
/// instructions a byte). The copy is made in chunks that double from 256
/// bytes to 4 KB, so a hit early in a long text costs little. A word's
/// match ends soonest in the line of the leftmost one.
fn find_lower(words: &Words, hay: &str, from: usize) -> Option<usize> {
    const FIRST_CHUNK: usize = 256;
    const MAX_CHUNK: usize = 4096;
    // Longer than any word: a match across a chunk's end is in the next chunk.
    const OVERLAP: usize = 32;
    let bytes = hay.as_bytes();
    LOWER.with_borrow_mut(|buf| {
        let mut start = from;
        let mut chunk = FIRST_CHUNK;
        while start < bytes.len() {
            let end = (start + chunk).min(bytes.len());
            buf.clear();
            buf.extend(bytes[start..end].iter().map(u8::to_ascii_lowercase));
            if let Some(m) = words.find(&buf[..]) {
                return Some(start + m);
            }
            if end == bytes.len() {
                break;
            }
            start = end - OVERLAP;
            chunk = (chunk * 2).min(MAX_CHUNK);
        }
        None
    })
}

const ERROR_WORDS: &[&str] = &[
    "error",
    "exception",
    "fail",
    "fatal",
    "panic",
    "not found",
    "no such",
    "denied",
    "cannot",
    "can't",
    "could not",
    "unable",
    "refused",
    "does not exist",
    "invalid",
];

/// The line that names a failure: a Python traceback's exception line, else
/// the first line holding an error word or an HTTP error status (banner
/// lines such as `==== FAILURES ====` skipped), else the first non-empty
/// line of an output that has no such line.
pub fn error_line(text: &str) -> Option<&str> {
    // The last traceback: a forward (SIMD) search first, as most outputs
    // have none and the reverse search goes a byte at a time.
    const TRACEBACK: &str = "Traceback (most recent call last):";
    static FIND: LazyLock<(memmem::Finder<'static>, memmem::FinderRev<'static>)> =
        LazyLock::new(|| {
            (
                memmem::Finder::new(TRACEBACK),
                memmem::FinderRev::new(TRACEBACK),
            )
        });
    let bytes = text.as_bytes();
    let last = FIND.0.find(bytes).and_then(|_| FIND.1.rfind(bytes));
    if let Some(at) = last {
        let exception = text[at..]
            .lines()
            .skip(1)
            .filter(|l| !l.is_empty() && !l.starts_with(char::is_whitespace))
            .find(|l| !l.starts_with('^') && !l.starts_with('~'));
        if exception.is_some() {
            return exception;
        }
    }
    // The next error word at or after a line's start, searched for again
    // only once passed (an error word holds no line break, so it is in a
    // line exactly when it is in its span).
    static ERRORS: LazyLock<Words> = LazyLock::new(|| words(ERROR_WORDS));
    let next_word = |from: usize| find_lower(&ERRORS, text, from).unwrap_or(usize::MAX);
    let mut word = next_word(0);
    let mut first = None;
    let mut start = 0;
    for line in text.split_inclusive('\n') {
        let (line_start, line_end) = (start, start + line.len());
        start = line_end;
        let t = line.trim();
        if t.is_empty() || is_banner(t) || is_harness_header(t) {
            continue;
        }
        first.get_or_insert(t);
        if word < line_start {
            word = next_word(line_start);
        }
        if word < line_end || http_error(t).is_some() {
            return Some(t);
        }
    }
    first
}

/// Whether `text` names an error: a Python traceback, or a line with an
/// error word that is not a passing test's line (`test_invalid PASSED`).
pub(super) fn names_error(text: &str) -> bool {
    static TRACEBACK: LazyLock<memmem::Finder<'static>> =
        LazyLock::new(|| memmem::Finder::new("Traceback (most recent call last):"));
    if TRACEBACK.find(text.as_bytes()).is_some() {
        return true;
    }
    static ERRORS: LazyLock<Words> = LazyLock::new(|| words(ERROR_WORDS));
    let mut from = 0;
    while let Some(at) = find_lower(&ERRORS, text, from) {
        let start = text[..at].rfind('\n').map_or(0, |i| i + 1);
        let end = text[at..].find('\n').map_or(text.len(), |i| at + i);
        let line = &text[start..end];
        if !(line.contains("PASS") || line.contains("passed") || line.contains(" ok")) {
            return true;
        }
        from = end;
    }
    false
}

/// Whether `text` shows that the program failed, not merely mentions an
/// error: a line that starts as a program prints its failure — `error:`,
/// `Error: …`, `fatal:`, `panic:`, `error[E0425]:`, an exception line
/// (`ValueError: …`, `java.lang.IllegalStateException: …`), a Python
/// traceback (its header: a cut one shows it), `npm ERR!`, `[ERROR]`, after pytest's `E   ` — or a
/// located diagnostic (`a.c:3:5: error: …`, `a.ts(3,5): error TS2322: …`).
/// Text that only holds the word (`0 errors`, `error.py`, an `"error": {}`
/// key, a review comment about "the error state", a list of issues) is no
/// failure: the strong signal a run whose status was hidden or never said
/// needs before the detectors call it failed.
pub(super) fn shows_error(text: &str) -> bool {
    static LABELS: LazyLock<Words> = LazyLock::new(|| {
        words(&[
            "error",
            "exception",
            "fatal",
            "panic",
            "err!",
            "traceback (",
        ])
    });
    let mut from = 0;
    while let Some(at) = find_lower(&LABELS, text, from) {
        let start = text[..at].rfind('\n').map_or(0, |i| i + 1);
        let end = text[at..].find('\n').map_or(text.len(), |i| at + i);
        if error_label(&text[start..end]) {
            return true;
        }
        from = end;
    }
    false
}

/// Whether one line is a program's failure line ([`shows_error`]).
pub(super) fn error_label(line: &str) -> bool {
    let mut t = line.trim();
    // pytest quotes the failing line after `E   `.
    if let Some(rest) = t.strip_prefix("E ") {
        t = rest.trim_start();
    }
    if t.starts_with("[ERROR]")
        || t.starts_with("npm ERR!")
        || t.starts_with("Traceback (most recent call last):")
        || t.starts_with("Exception in thread ")
    {
        return true;
    }
    let head = t
        .split(|c: char| c == ':' || c == '[' || c.is_whitespace())
        .next()
        .unwrap_or("");
    let next = t.as_bytes().get(head.len()).copied();
    let label = ["error", "fatal", "panic", "exception"]
        .iter()
        .any(|l| head.eq_ignore_ascii_case(l));
    if label && matches!(next, Some(b':' | b'[')) {
        return true;
    }
    // An exception's name: `ValueError: x`, `java.io.IOException: x`, `AssertionError`.
    let named = (head.ends_with("Error") || head.ends_with("Exception"))
        && head.len() > "Error".len()
        && head.starts_with(|c: char| c.is_ascii_alphabetic())
        && head
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'$'));
    if named && matches!(next, None | Some(b':')) {
        return true;
    }
    t.contains(": error:")
        || t.contains(": error[")
        || t.contains(": fatal error:")
        || t.contains("): error ")
}

fn is_banner(t: &str) -> bool {
    let b = t.as_bytes();
    b.len() >= 3
        && b[..3]
            .iter()
            .all(|&c| c == b'=' || c == b'_' || c == b'-' || c == b'*')
}

/// A line a harness wraps a result in (a header, an exit-status line), not
/// the command's own output.
pub(super) fn is_frame(t: &str) -> bool {
    is_harness_header(t)
        || t.strip_prefix("Exit code ")
            .is_some_and(|c| c.bytes().all(|b| b.is_ascii_digit() || b == b'-'))
        || (t.starts_with("[Command finished with exit code ") && t.ends_with(']'))
        || (t.starts_with("<returncode>") && t.ends_with("</returncode>"))
        || (t.starts_with("[status: ") && t.ends_with(']'))
}

/// A status line, or a line of a harness's wrapper round an output that
/// holds nothing of the output itself: mini-swe-agent's template for the
/// model puts an empty output between `<output>` tags, and a host may hand
/// the engine that text. A search that found nothing is then still nothing.
pub(super) fn is_wrapper(t: &str) -> bool {
    is_frame(t) || t == "<output>" || t == "</output>"
}

/// A status line whose number says the command was stopped, not that it
/// failed: `timeout`'s 124, a kill (137, 143, -9, -15).
pub(super) fn stopped(frame: &str) -> bool {
    let digits = frame.trim_end_matches(|c: char| !c.is_ascii_digit());
    // Past the last non-digit, which may be wider than a byte (`2😀37`).
    let start = digits
        .char_indices()
        .rfind(|(_, c)| !c.is_ascii_digit())
        .map_or(0, |(i, c)| i + c.len_utf8());
    let negative = digits[..start].ends_with('-');
    matches!(
        (negative, &digits[start..]),
        (false, "124" | "137" | "143") | (true, "9" | "15")
    )
}

/// Codex's shell header lines and the harness's trailing markers.
fn is_harness_header(t: &str) -> bool {
    t.starts_with("Exit code: ")
        || t.starts_with("Wall time: ")
        || t == "Output:"
        || t.starts_with("Process running with session ID")
        || (t.starts_with("[exit code: ") && t.ends_with(']'))
}

/// The error signature of `line`: normalised, digit runs as `#`, and every
/// token that also occurs in the call's arguments as `<arg>` (the same error
/// for a new id, a new package spelling, a new file name).
pub fn signature(line: &str, arguments_json: &str, buf: &mut String) -> u64 {
    buf.clear();
    normalize_line(line, buf);
    let mut out = String::with_capacity(buf.len());
    // A run of argument tokens is one `<arg>`: a harness's error that quotes
    // the whole command line is the same error for another command line.
    let mut after_arg = false;
    for (i, token) in buf
        .split(|c: char| {
            c.is_whitespace()
                || matches!(
                    c,
                    '"' | '\'' | '`' | '(' | ')' | '[' | ']' | '{' | '}' | ','
                )
        })
        .enumerate()
    {
        let numeric = token.bytes().all(|b| b.is_ascii_digit());
        let arg = !numeric && token.len() >= 3 && arguments_json.contains(token);
        // Inside a run, a short token of the arguments (`-q`, `&&`) goes on with it.
        if after_arg && (arg || token.is_empty() || arguments_json.contains(token)) {
            continue;
        }
        if i > 0 {
            out.push(' ');
        }
        if arg {
            out.push_str("<arg>");
            after_arg = true;
            continue;
        }
        after_arg &= token.is_empty();
        let mut digits = false;
        for c in token.chars() {
            if c.is_ascii_digit() {
                if !digits {
                    out.push('#');
                }
                digits = true;
            } else {
                digits = false;
                out.push(c);
            }
        }
    }
    xxh3_64(out.as_bytes()) | 1
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::loops::testing::*;

    #[test]
    fn the_packed_word_search_finds_the_automatons_line() {
        // The packed searcher reports the leftmost match, the automaton the
        // one that ends first: no word holds a newline, so both are in the
        // same line, which is all find_lower's callers read.
        let packed = words(ERROR_WORDS);
        assert!(
            packed.packed.is_some(),
            "SIMD packed searcher expected on x86_64"
        );
        let automaton = Words {
            packed: None,
            automaton: packed.automaton.clone(),
        };
        let line_of = |t: &str, at: Option<usize>| at.map(|a| t[..a].matches('\n').count());
        let mut texts = vec![
            String::new(),
            "tests/test_1.py::test_case PASSED in 0.01s\n".repeat(100),
            "ok\ncould not found it\nerror: x\n".into(),
            "does not exist\nthe file cannot be read".into(),
            "can't\nunable\nrefused\ninvalid\npanic\nfatal\nfail".into(),
        ];
        let mut x = 0x2545_f491_u32;
        for _ in 0..300 {
            let mut t = String::new();
            for _ in 0..40 {
                x ^= x << 13;
                x ^= x >> 17;
                x ^= x << 5;
                t.push_str(
                    [
                        "error",
                        "no such",
                        "not ",
                        "found",
                        "\n",
                        "fa",
                        "il",
                        "x",
                        " ",
                        "does not exist",
                    ][x as usize % 10],
                );
            }
            texts.push(t);
        }
        for t in &texts {
            let lower = t.to_ascii_lowercase();
            assert_eq!(
                line_of(t, packed.find(lower.as_bytes())),
                line_of(t, automaton.find(lower.as_bytes())),
                "{t:?}"
            );
            assert_eq!(
                find_lower(&packed, t, 0).is_some(),
                find_lower(&automaton, t, 0).is_some(),
                "{t:?}"
            );
        }
    }

    #[test]
    fn a_harness_error_quoting_other_command_lines_is_one_error() {
        // Three ways to install numpy, each killed by the harness's timeout,
        // whose message quotes the whole command line; a failing check and
        // a listing in between.
        let timeout = |cmd: &str| {
            format!("<exception>An error occurred while executing the command: Command '['docker', 'exec', '-w', '/testbed', 'bash', '-c', '{cmd}']' timed out after 60 seconds</exception>\n<returncode>-1</returncode>")
        };
        let cmds = [
            "pip install numpy -q 2>&1 | tail -5",
            "apt-get update && apt-get install -y python3-numpy 2>&1 | tail -5",
            "python3 -m pip install numpy --no-cache-dir -q 2>&1 | tail -5",
        ];
        let args: Vec<String> = cmds
            .iter()
            .map(|c| serde_json::json!({ "command": c }).to_string())
            .collect();
        let outs: Vec<String> = cmds.iter().map(|c| timeout(c)).collect();
        let check =
            "Traceback (most recent call last):\nModuleNotFoundError: No module named 'numpy'";
        let calls = [
            ("bash", args[0].as_str(), outs[0].as_str(), true),
            (
                "bash",
                r#"{"command":"python3 -c 'import numpy' 2>&1 | head -2"}"#,
                check,
                false,
            ),
            ("bash", args[1].as_str(), outs[1].as_str(), true),
            (
                "bash",
                r#"{"command":"python3 -m pip list | head -5"}"#,
                "Package Version",
                false,
            ),
            ("bash", args[2].as_str(), outs[2].as_str(), true),
        ];
        let mut l = loops();
        let r = run(&mut l, &calls);
        assert_eq!(first_alarm(&r), Some((4, "same-error")));
    }

    #[test]
    fn a_bare_exit_status_is_its_number() {
        // Claude Code's `Exit code 7` with nothing else: curl's 7 three
        // times is one error; 7, 1, 2 are three.
        let health = |i: usize| {
            format!(r#"{{"command":"sleep {i} && curl -s http://localhost:8081/health"}}"#)
        };
        let calls: Vec<(String, &str)> = (1..=3).map(|i| (health(i), "Exit code 7")).collect();
        let mut l = loops();
        let r = run(
            &mut l,
            &calls
                .iter()
                .map(|(a, o)| ("Bash", a.as_str(), *o, true))
                .collect::<Vec<_>>(),
        );
        assert_eq!(first_alarm(&r), Some((2, "same-error")));
        // A reader that carries the status as a marker line only: before, no
        // line to sign, so never the same error.
        let mut l = loops();
        let r = run(
            &mut l,
            &calls
                .iter()
                .map(|(a, _)| ("Bash", a.as_str(), "[exit code: 7]", true))
                .collect::<Vec<_>>(),
        );
        assert_eq!(first_alarm(&r), Some((2, "same-error")));
        // Killed by a timeout, with nothing printed: stopped, not one error.
        for stop in ["[exit code: 124]", "[exit code: -9]"] {
            let mut l = loops();
            let r = run(
                &mut l,
                &calls
                    .iter()
                    .map(|(a, _)| ("Bash", a.as_str(), stop, true))
                    .collect::<Vec<_>>(),
            );
            assert_eq!(first_alarm(&r), None, "{stop}");
        }
        let codes = ["Exit code 7", "Exit code 1", "Exit code 2"];
        let mut l = loops();
        let r = run(
            &mut l,
            &calls
                .iter()
                .zip(codes)
                .map(|((a, _), o)| ("Bash", a.as_str(), o, true))
                .collect::<Vec<_>>(),
        );
        assert_eq!(first_alarm(&r), None);
    }

    /// The searches over whole spans find what a search of each line finds
    /// (the plain per-line forms are the reference).
    #[test]
    fn span_searches_match_the_per_line_forms() {
        let texts = [
            String::new(),
            "HTTP/1.1 429 Too Many Requests".to_owned(),
            "ok\nRate Limit reached\n".to_owned(),
            format!("{}Retry-After: 5\n", "line\n".repeat(25)),
            format!("{}Retry-After: 5\n{}", "line\n".repeat(25), "x".repeat(500)),
            format!("{}\nrate limit\n{}", "y".repeat(390), "z\n".repeat(3)),
            format!("é{}\nrate_limit", "w".repeat(400)),
            format!("{}\r\nToo many requests\r\n", "a\r\n".repeat(19)),
            "==== FAILURES ====\nAssertionError: boom\n".to_owned(),
            "  \n[exit code: 1]\nfine\nCannot open x\nError: y".to_owned(),
            "Exit code: 1\nWall time: 2s\nOutput:\nno ERROR here? yes".to_owned(),
            "all good\nstill good".to_owned(),
            "curl: (22) The requested URL returned error: 404\nHTTP/2 404".to_owned(),
            // Words across the ends of the chunks the search lowercases
            // (256 bytes, then twice as long each time up to 4 KB).
            format!("{}Invalid", "x".repeat(252)),
            format!("{}FaTaL", "y".repeat(256 + 512 - 32 - 2)),
            format!("{}DOES NOT EXIST", "a".repeat(4090)),
            format!("{}\nok\n{}Rate_Limit", "b".repeat(4000), "c ".repeat(2078)),
            format!("{}\n{}UnAbLe", "d\n".repeat(30), "e".repeat(8100)),
        ];
        for text in &texts {
            let per_line = edge_lines(text).any(|line| {
                let l = line.to_ascii_lowercase();
                [
                    "too many requests",
                    "rate limit",
                    "rate_limit",
                    "retry-after",
                ]
                .iter()
                .any(|w| l.contains(w))
            });
            assert_eq!(
                transient(text),
                per_line || matches!(http_error(text), Some(429 | 503)),
                "{text:?}"
            );
            let reference = {
                let mut first = None;
                let mut found = None;
                for line in text.lines() {
                    let t = line.trim();
                    if t.is_empty() || is_banner(t) || is_harness_header(t) {
                        continue;
                    }
                    first.get_or_insert(t);
                    let lower = t.to_ascii_lowercase();
                    if ERROR_WORDS.iter().any(|w| lower.contains(w)) || http_error(t).is_some() {
                        found = Some(t);
                        break;
                    }
                }
                found.or(first)
            };
            if !text.contains("Traceback") {
                assert_eq!(error_line(text), reference, "{text:?}");
            }
        }
    }

    #[test]
    fn error_lines_and_signatures() {
        assert_eq!(
            error_line("Traceback (most recent call last):\n  File \"x\"\nKeyError: 'db'\n"),
            Some("KeyError: 'db'")
        );
        assert_eq!(
            error_line("..F [100%]\n=== FAILURES ===\nE  assert 1 == 2\nFAILED t.py::test_a - assert 1 == 2\n"),
            Some("FAILED t.py::test_a - assert 1 == 2")
        );
        assert_eq!(
            error_line("Exit code: 1\nWall time: 0.1 seconds\nOutput:\n"),
            None
        );
        let mut buf = String::new();
        let a = signature(
            "ERROR: No matching distribution found for ruamel.yaml",
            r#"{"command":"pip install ruamel.yaml"}"#,
            &mut buf,
        );
        let b = signature(
            "ERROR: No matching distribution found for ruamel-yaml",
            r#"{"command":"pip install ruamel-yaml"}"#,
            &mut buf,
        );
        assert_eq!(a, b);
        let c = signature(
            "ERROR: No matching distribution found for numpy",
            r#"{"command":"pip install ruamel-yaml"}"#,
            &mut buf,
        );
        assert_ne!(a, c);
        assert!(codex_exit_failed("Exit code: 2\nWall time: 1s"));
        // A status line with a wide character before its last digits: it
        // panicked (a slice inside the emoji) where the reference answers.
        assert!(!stopped("Exit code: 2\u{1F600}37 ms"));
        assert!(stopped("Exit code: 2\u{1F600}124"));
        assert!(stopped("[exit code: -9]"));
        assert!(!codex_exit_failed("Exit code: 0\n"));
        assert_eq!(http_error("HTTP/1.0 404 Not Found\r\nServer: x"), Some(404));
        assert_eq!(http_error("body\n\nHTTP 500\n"), Some(500));
        assert_eq!(http_error("HTTP 200\n"), None);
        // `H` that is not `HTTP`, more often than the one-byte search's
        // budget, before the status line: the substring search finds it.
        let capitals = "Header Hello H H H H H H H HTT\n".repeat(3);
        assert_eq!(
            http_error(&format!("{capitals}HTTP/1.1 503 Busy\n")),
            Some(503)
        );
        assert!(has_http(b"xHTTP") && !has_http(b"HTT") && !has_http(b"") && !has_http(b"HHTTHTT"));
    }

    #[test]
    fn an_error_shown_is_a_line_a_program_prints_not_the_word() {
        for shown in [
            "Traceback (most recent call last):\n  File \"a.py\", line 1\n    import x\n",
            "ValueError: bad input",
            "E       AssertionError: 1 != 2",
            "java.lang.IllegalStateException: closed",
            "Exception in thread \"main\" java.lang.NullPointerException",
            "error: could not compile `app`",
            "error[E0425]: cannot find value `x`",
            "Error: Cannot find module 'x'",
            "ERROR: No matching distribution found",
            "fatal: not a git repository",
            "panic: runtime error: index out of range",
            "npm ERR! code ELIFECYCLE",
            "[ERROR] Failed to execute goal",
            "src/a.c:3:5: error: expected ';'",
            "src/a.ts(3,5): error TS2322: Type 'string' is not assignable",
            "  AssertionError",
        ] {
            assert!(shows_error(&format!("ok\n{shown}\nmore")), "{shown}");
        }
        for mentioned in [
            "Found 3 issues, 0 errors",
            "src/error.py\nsrc/errors/mod.rs",
            "{\"status\": \"ok\", \"error\": {}}",
            "  \"error\": null,",
            "**List-view empty state still renders alongside the error state.**",
            "test_error_handling ... ok\ntest_invalid_input PASSED",
            "Testing error handling... done",
            "     2\t    raise ValueError(\"bad\")",
            "grep: pattern 'errors' found in 2 files",
            "no errors found",
        ] {
            assert!(!shows_error(mentioned), "{mentioned}");
        }
    }
}
