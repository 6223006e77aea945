//! Result normalisation for the loop detectors: what makes two tool results
//! "the same" once the noise that changes on every run is taken out.
//!
//! One pass over the bytes, no regex, no allocation per line beyond a reused
//! buffer. Each line is normalised, hashed (XXH3-64), and the line hashes are
//! combined order-insensitively, so output whose lines come in a different
//! order on every run (parallel test runners, `make -j`) digests the same.
//! What is taken out (docs/loops.md "Loop detection"):
//!
//! - ANSI escape sequences (colour, cursor moves);
//! - carriage-return overdraw: a line keeps only what follows its last `\r`
//!   (what a terminal shows: progress bars, spinners); a trailing `\r` of a
//!   CRLF line ending is just dropped;
//! - progress bars: a line holding a percentage and a run of 5+ bar
//!   characters (`█▓▒░#=━─>`) becomes `<progress>`;
//! - timestamps and times of day (`2026-11-30T08:00:01.037Z`, `13:10:20`) → `<time>`;
//! - durations, a number directly followed (or after one space) by a time
//!   unit (`37ms`, `0.1 seconds`, `4s`, `2m`, `1.5h`) → `<dur>`;
//! - UUIDs → `<uuid>`; hex ids (7+ hex digits holding a digit and a letter,
//!   or `0x…`) → `<hex>`;
//! - process ids: the number after `pid`, `PID`, `process` → `<pid>`;
//! - temporary paths: in a path under `/tmp/`, `/var/folders/` or
//!   `/private/var/folders/`, a segment that looks generated (`tmp…`, or 6+
//!   characters mixing 3+ digits and 2+ letters) → `<tmp>`.
//!
//! Plain numbers stay: a counter that moves (`loaded 3/5`, `RESTARTS 4`) is
//! what makes a poll a poll and not a loop.

use std::borrow::Cow;
use std::collections::HashMap;

use crate::digest::{xxh3_64, FastHash};

/// Outputs longer than this are digested by their first and last
/// [`DIGEST_EDGE`] bytes plus their length: the cost per call stays bounded
/// (a 10 MB build log is not normalised whole on every call), and two long
/// outputs that differ only in the middle compare equal.
pub const DIGEST_EDGE: usize = 32 * 1024;

/// The order-insensitive digest of `text` after normalisation. `is_error`
/// is folded in, so an error result never equals a success with the same text.
pub fn result_digest(text: &str, is_error: bool, buf: &mut String) -> u64 {
    result_digest_with(text, is_error, buf, &mut LineMemo::default())
}

/// [`result_digest`], remembering in `memo` what each line that needed
/// normalising came to. A call that recurs mostly brings back lines seen
/// before (the same test failures, a log's older lines): those cost a hash of
/// the line and a lookup instead of the normaliser (~20 instructions a byte).
pub fn result_digest_with(
    text: &str,
    is_error: bool,
    buf: &mut String,
    memo: &mut LineMemo,
) -> u64 {
    digest_lines(text, is_error, buf, memo, false)
}

/// The digest of a failure's output: [`result_digest_with`] with, in every
/// line, the numbers that say where the failure is taken out as well
/// ([`mask_positions`]): a traceback's frame lines (`File "x.py", line 1039`),
/// `path:line:col`, a compiler's source gutter (` 12 | let x`). An edit above
/// the failing line moves them; the failure (its message, the code lines
/// quoted, the failing tests, the counts) stays what it was. Never equal to
/// a [`result_digest_with`] of the same text.
pub fn failure_digest_with(
    text: &str,
    is_error: bool,
    buf: &mut String,
    memo: &mut LineMemo,
) -> u64 {
    digest_lines(text, is_error, buf, memo, true) ^ 0x5bd1_e995_f00d_cafe
}

fn digest_lines(
    text: &str,
    is_error: bool,
    buf: &mut String,
    memo: &mut LineMemo,
    positions: bool,
) -> u64 {
    let mut acc = Lines {
        positions,
        ..Lines::default()
    };
    if text.len() <= 2 * DIGEST_EDGE {
        acc.add_text(text, buf, memo);
    } else {
        let head = floor_boundary(text, DIGEST_EDGE);
        let tail = ceil_boundary(text, text.len() - DIGEST_EDGE);
        acc.add_text(&text[..head], buf, memo);
        acc.add_text(&text[tail..], buf, memo);
        acc.lines = acc.lines.wrapping_add(text.len() as u64);
    }
    let mut out = acc.sum ^ acc.xor.rotate_left(29) ^ acc.lines.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    if is_error {
        out = !out;
    }
    out
}

/// Where the ANSI escape sequence starting at `bytes[i]` (an ESC) ends, as a
/// terminal reads it (ECMA-48): CSI `ESC [`, parameter and intermediate bytes,
/// one final byte; OSC `ESC ]` up to BEL or `ESC \`; otherwise `ESC`,
/// intermediate bytes (`ESC ( B`), one final byte. A sequence never takes a
/// `\n` (line numbers stay those of the raw text) nor a byte that cannot end
/// it: a malformed one loses only what it holds so far. Always a char
/// boundary (every byte it takes is ASCII).
pub(crate) fn escape_end(bytes: &[u8], i: usize) -> usize {
    let n = bytes.len();
    let mut j = i + 1;
    match bytes.get(j) {
        Some(b'[') => {
            j += 1;
            while j < n && (0x20..=0x3f).contains(&bytes[j]) {
                j += 1;
            }
            if j < n && (0x40..=0x7e).contains(&bytes[j]) {
                j += 1;
            }
        }
        Some(b']') => {
            j += 1;
            while j < n {
                match bytes[j] {
                    0x07 => return j + 1,
                    0x1b if bytes.get(j + 1) == Some(&b'\\') => return j + 2,
                    // Unterminated on its line: the next line is text again.
                    0x1b | b'\n' => return j,
                    _ => j += 1,
                }
            }
        }
        _ => {
            while j < n && (0x20..=0x2f).contains(&bytes[j]) {
                j += 1;
            }
            if j < n && (0x30..=0x7e).contains(&bytes[j]) {
                j += 1;
            }
        }
    }
    j
}

/// `text` as a terminal shows it: ANSI escape sequences ([`escape_end`])
/// removed, everything else (newlines included) kept. Borrowed, at the cost
/// of one `memchr`, when `text` holds no ESC — the common case.
pub fn strip_ansi(text: &str) -> Cow<'_, str> {
    let bytes = text.as_bytes();
    let Some(first) = memchr::memchr(0x1b, bytes) else {
        return Cow::Borrowed(text);
    };
    let mut out = String::with_capacity(text.len());
    let (mut flushed, mut i) = (0, first);
    loop {
        out.push_str(&text[flushed..i]);
        flushed = escape_end(bytes, i);
        match memchr::memchr(0x1b, &bytes[flushed..]) {
            Some(k) => i = flushed + k,
            None => break,
        }
    }
    out.push_str(&text[flushed..]);
    Cow::Owned(out)
}

fn floor_boundary(text: &str, mut i: usize) -> usize {
    while !text.is_char_boundary(i) {
        i -= 1;
    }
    i
}

fn ceil_boundary(text: &str, mut i: usize) -> usize {
    while !text.is_char_boundary(i) {
        i += 1;
    }
    i
}

/// Bytes after which a line may need normalising: digits, ESC, `/`, `\r`,
/// `%`. A line with none of them is its own normal form and is hashed as is.
const SPECIAL: [bool; 256] = {
    let mut t = [false; 256];
    let mut c = b'0';
    while c <= b'9' {
        t[c as usize] = true;
        c += 1;
    }
    t[0x1b] = true;
    t[b'/' as usize] = true;
    t[b'\r' as usize] = true;
    t[b'%' as usize] = true;
    t
};

#[derive(Default)]
struct Lines {
    sum: u64,
    xor: u64,
    lines: u64,
    /// Positions masked too ([`failure_digest_with`]).
    positions: bool,
}

/// Line digests already worked out: the XXH3 of a raw line that needed
/// normalising → the XXH3 of its normal form (`None`: it normalises to
/// nothing). Bounded: it starts over at [`LineMemo::MAX`] lines (~0.2 MB).
#[derive(Debug, Default)]
pub struct LineMemo {
    lines: HashMap<u64, Option<u64>, FastHash>,
}

impl LineMemo {
    pub const MAX: usize = 4096;
}

impl Lines {
    fn add_text(&mut self, text: &str, buf: &mut String, memo: &mut LineMemo) {
        // Line ends found by the SIMD search (`str::split` goes a word at a time).
        let ends = memchr::memchr_iter(b'\n', text.as_bytes()).chain([text.len()]);
        let mut start = 0;
        for end in ends {
            let line = &text[start..end];
            start = end + 1;
            let plain = !line.bytes().any(|b| SPECIAL[b as usize]);
            let h = if plain {
                let normal = line.trim_end();
                if normal.is_empty() {
                    continue;
                }
                xxh3_64(normal.as_bytes())
            } else {
                // The two forms of a line are memoised apart.
                let key = xxh3_64(line.as_bytes()) ^ u64::from(self.positions);
                let known = memo.lines.get(&key).copied();
                let h = known.unwrap_or_else(|| {
                    buf.clear();
                    normalize_line(line, buf);
                    if self.positions {
                        let normal = mask_positions(buf);
                        *buf = normal;
                    }
                    let normal = buf.trim_end();
                    let h = (!normal.is_empty()).then(|| xxh3_64(normal.as_bytes()));
                    if memo.lines.len() >= LineMemo::MAX {
                        memo.lines.clear();
                    }
                    memo.lines.insert(key, h);
                    h
                });
                match h {
                    Some(h) => h,
                    None => continue,
                }
            };
            // Sum and xor of the line hashes: order-insensitive, and a line
            // repeated twice does not cancel out (the sum sees it).
            self.sum = self.sum.wrapping_add(h);
            self.xor ^= h.rotate_left(17);
            self.lines += 1;
        }
    }
}

/// Normalise one line (no `\n`) into `out`. Text between replacements is
/// copied in whole spans; only tokens that can start with a digit or a hex
/// letter are examined further.
pub fn normalize_line(line: &str, out: &mut String) {
    // Carriage-return overdraw: keep what the terminal finally shows.
    let line = line.strip_suffix('\r').unwrap_or(line);
    let line = match line.rfind('\r') {
        Some(i) => &line[i + 1..],
        None => line,
    };
    if is_progress_bar(line) {
        out.push_str("<progress>");
        return;
    }
    let bytes = line.as_bytes();
    let mut i = 0;
    // Everything before `flushed` is already in `out`.
    let mut flushed = 0;
    let mut last_word: &str = "";
    while i < bytes.len() {
        let b = bytes[i];
        if b == 0x1b {
            out.push_str(&line[flushed..i]);
            i = escape_end(bytes, i);
            flushed = i;
            continue;
        }
        let word_start = i == 0 || !is_word(bytes[i - 1]);
        if b == b'/' && word_start {
            let mut path = String::new();
            if let Some(end) = temp_path(bytes, i, &mut path) {
                out.push_str(&line[flushed..i]);
                out.push_str(&path);
                i = end;
                flushed = end;
                last_word = "";
                continue;
            }
        }
        if is_word(b) && word_start {
            let end = word_end(bytes, i);
            // A word starting with a hex letter can only be a UUID (its first
            // group is a word of 8) or a hex id (7 or more): most words are
            // ruled out by their length before any closer look.
            if b.is_ascii_hexdigit() && (b.is_ascii_digit() || end - i >= 7) {
                let replaced = if let Some(e) = (end - i == 8).then(|| uuid_at(bytes, i)).flatten()
                {
                    Some((e, "<uuid>"))
                } else if !b.is_ascii_digit() {
                    is_hex_id(&line[i..end]).then_some((end, "<hex>"))
                } else if let Some(e) = matches!(bytes.get(end), Some(b'-' | b':'))
                    .then(|| timestamp_at(bytes, i))
                    .flatten()
                {
                    // A date's first word is its year, a time's its hour.
                    Some((e, "<time>"))
                } else if let Some(e) = duration_at(bytes, i) {
                    Some((e, "<dur>"))
                } else if is_timing_word(last_word) {
                    number_end(bytes, i).map(|e| (e, "<dur>"))
                } else if last_word.eq_ignore_ascii_case("pid")
                    || last_word.eq_ignore_ascii_case("process")
                {
                    let e = run(bytes, i, |c| c.is_ascii_digit());
                    (e == bytes.len() || !is_word(bytes[e])).then_some((e, "<pid>"))
                } else {
                    is_hex_id(&line[i..end]).then_some((end, "<hex>"))
                };
                if let Some((e, placeholder)) = replaced {
                    out.push_str(&line[flushed..i]);
                    out.push_str(placeholder);
                    i = e;
                    flushed = e;
                    last_word = "";
                    continue;
                }
            }
            last_word = &line[i..end];
            i = end;
            continue;
        }
        if !b.is_ascii_whitespace() && b != b'=' && b != b':' && b != b'[' {
            last_word = "";
        }
        i += 1;
    }
    out.push_str(&line[flushed..]);
}

/// `line` (already normalised) with every number that gives a position in
/// a source file as `#`: after `line ` (`File "x.py", line 1039, in f`),
/// after a `:` that follows a file name or another position
/// (`x.py:12:5`, `(Foo.java:88)`), and a source gutter's line number at the
/// start (`  12 | let x = 1;`). Counts (`3 failed`) and values stay.
pub fn mask_positions(line: &str) -> String {
    let bytes = line.as_bytes();
    let mut out = String::with_capacity(line.len());
    let mut flushed = 0;
    let mut i = 0;
    // A gutter: optional blanks, a number, blanks, `|`.
    let lead = run(bytes, 0, |c| c == b' ' || c == b'\t');
    let digits_end = run(bytes, lead, |c| c.is_ascii_digit());
    if digits_end > lead && bytes.get(run(bytes, digits_end, |c| c == b' ')) == Some(&b'|') {
        out.push_str(&line[..lead]);
        out.push('#');
        flushed = digits_end;
        i = digits_end;
    }
    while i < bytes.len() {
        if !bytes[i].is_ascii_digit() || (i > 0 && is_word(bytes[i - 1])) {
            i += 1;
            continue;
        }
        let end = run(bytes, i, |c| c.is_ascii_digit());
        if end < bytes.len() && is_word(bytes[end]) {
            i = end;
            continue;
        }
        let before = &line[..i];
        let position = before
            .get(before.len().saturating_sub(5)..)
            .is_some_and(|w| w.eq_ignore_ascii_case("line "))
            || (before.ends_with(':') && names_a_place(&before[..before.len() - 1]));
        if position {
            out.push_str(&line[flushed..i]);
            out.push('#');
            flushed = end;
        }
        i = end;
    }
    out.push_str(&line[flushed..]);
    out
}

/// Whether the token that ends `before` names a file (a `.` or `/` in it,
/// ending in a word byte) or is a position already masked (`x.py:#`).
fn names_a_place(before: &str) -> bool {
    if before.ends_with('#') {
        return true;
    }
    // ASCII delimiters only: one byte each, and the same set as the twin's.
    let start = before
        .bytes()
        .rposition(|c| {
            c.is_ascii_whitespace() || matches!(c, b'(' | b'"' | b'\'' | b'[' | b'<' | b'`')
        })
        .map_or(0, |k| k + 1);
    let token = &before[start..];
    token.as_bytes().last().is_some_and(|&c| is_word(c)) && token.contains(['.', '/'])
}

/// The end of a number (`12`, `0.35`) at `i`, when a non-word byte follows it.
fn number_end(bytes: &[u8], i: usize) -> Option<usize> {
    let mut end = run(bytes, i, |c| c.is_ascii_digit());
    if bytes.get(end) == Some(&b'.') {
        end = run(bytes, end + 1, |c| c.is_ascii_digit());
    }
    (end == bytes.len() || !is_word(bytes[end])).then_some(end)
}

/// A key whose number is a measured time (`duration_ms: 0.25`, `elapsed 3.1`).
fn is_timing_word(word: &str) -> bool {
    let b = word.as_bytes();
    if b.len() < 4 {
        return false;
    }
    let starts = |p: &[u8]| b.len() >= p.len() && b[..p.len()].eq_ignore_ascii_case(p);
    starts(b"duration")
        || starts(b"elapsed")
        || word.eq_ignore_ascii_case("took")
        || (b.len() > 3 && b[b.len() - 3..].eq_ignore_ascii_case(b"_ms"))
}

fn is_word(b: u8) -> bool {
    WORD[b as usize]
}

/// Word bytes: ASCII letters, digits and `_`.
const WORD: [bool; 256] = {
    let mut t = [false; 256];
    let mut c = 0;
    while c < 256 {
        let b = c as u8;
        t[c] = b.is_ascii_alphanumeric() || b == b'_';
        c += 1;
    }
    t
};

/// The end of the word starting at `i` (one table lookup a byte).
fn word_end(bytes: &[u8], i: usize) -> usize {
    bytes[i..]
        .iter()
        .position(|&b| !WORD[b as usize])
        .map_or(bytes.len(), |n| i + n)
}

fn run(bytes: &[u8], mut i: usize, f: impl Fn(u8) -> bool) -> usize {
    while i < bytes.len() && f(bytes[i]) {
        i += 1;
    }
    i
}

fn hex_run(bytes: &[u8], i: usize, n: usize) -> bool {
    i + n <= bytes.len() && bytes[i..i + n].iter().all(u8::is_ascii_hexdigit)
}

fn uuid_at(bytes: &[u8], i: usize) -> Option<usize> {
    let mut at = i;
    for (k, n) in [8usize, 4, 4, 4, 12].into_iter().enumerate() {
        if !hex_run(bytes, at, n) {
            return None;
        }
        at += n;
        if k < 4 {
            if bytes.get(at) != Some(&b'-') {
                return None;
            }
            at += 1;
        }
    }
    (at == bytes.len() || !is_word(bytes[at])).then_some(at)
}

fn digits(bytes: &[u8], i: usize, n: usize) -> bool {
    i + n <= bytes.len() && bytes[i..i + n].iter().all(u8::is_ascii_digit)
}

/// `YYYY-MM-DD[T ]HH:MM[:SS[.frac]][Z|±HH:MM]`, a bare date `YYYY-MM-DD`,
/// or a time of day `H:MM[:SS[.frac]]`.
fn timestamp_at(bytes: &[u8], i: usize) -> Option<usize> {
    let mut at = i;
    let mut matched = false;
    if digits(bytes, at, 4)
        && bytes.get(at + 4) == Some(&b'-')
        && digits(bytes, at + 5, 2)
        && bytes.get(at + 7) == Some(&b'-')
        && digits(bytes, at + 8, 2)
    {
        at += 10;
        matched = true;
        if matches!(bytes.get(at), Some(b'T') | Some(b' ')) && time_at(bytes, at + 1).is_some() {
            at = time_at(bytes, at + 1).unwrap();
        }
    } else if let Some(end) = time_at(bytes, at) {
        at = end;
        matched = true;
    }
    if !matched {
        return None;
    }
    if bytes.get(at) == Some(&b'Z') {
        at += 1;
    } else if matches!(bytes.get(at), Some(b'+') | Some(b'-'))
        && digits(bytes, at + 1, 2)
        && bytes.get(at + 3) == Some(&b':')
        && digits(bytes, at + 4, 2)
    {
        at += 6;
    }
    (at == bytes.len() || !is_word(bytes[at])).then_some(at)
}

fn time_at(bytes: &[u8], i: usize) -> Option<usize> {
    let h = run(bytes, i, |c| c.is_ascii_digit());
    if h == i || h - i > 2 || bytes.get(h) != Some(&b':') || !digits(bytes, h + 1, 2) {
        return None;
    }
    let mut at = h + 3;
    if bytes.get(at) == Some(&b':') && digits(bytes, at + 1, 2) {
        at += 3;
        if bytes.get(at) == Some(&b'.') && bytes.get(at + 1).is_some_and(u8::is_ascii_digit) {
            at = run(bytes, at + 1, |c| c.is_ascii_digit());
        }
    } else if bytes.get(at).is_some_and(|c| c.is_ascii_digit()) {
        return None;
    }
    Some(at)
}

const UNITS: &[&str] = &[
    "ns", "us", "µs", "ms", "s", "sec", "secs", "second", "seconds", "m", "min", "mins", "minute",
    "minutes", "h", "hr", "hrs", "hour", "hours",
];

/// A number (`12`, `0.35`) followed by a time unit, directly or after one space.
fn duration_at(bytes: &[u8], i: usize) -> Option<usize> {
    let mut at = run(bytes, i, |c| c.is_ascii_digit());
    if bytes.get(at) == Some(&b'.') && bytes.get(at + 1).is_some_and(u8::is_ascii_digit) {
        at = run(bytes, at + 1, |c| c.is_ascii_digit());
    }
    let unit_start = if bytes.get(at) == Some(&b' ') {
        at + 1
    } else {
        at
    };
    // A unit is a run of letters (or µ) ending at a non-word byte.
    let mut end = unit_start;
    while end < bytes.len() && (bytes[end].is_ascii_alphabetic() || bytes[end] >= 0x80) {
        end += 1;
    }
    // A compound duration goes on after its hours or minutes (`0m1.234s`
    // as `time` prints it, `1h2m`).
    if unit_start == at
        && end < bytes.len()
        && bytes[end].is_ascii_digit()
        && matches!(&bytes[unit_start..end], b"h" | b"m")
    {
        return duration_at(bytes, end);
    }
    if end == unit_start || (end < bytes.len() && is_word(bytes[end])) {
        return None;
    }
    let unit = std::str::from_utf8(&bytes[unit_start..end]).ok()?;
    UNITS.contains(&unit).then_some(end)
}

/// 7+ hex digits holding both a digit and a letter (commit ids, pod hashes,
/// object ids), or `0x` and hex digits (addresses).
fn is_hex_id(word: &str) -> bool {
    if let Some(rest) = word.strip_prefix("0x") {
        return !rest.is_empty() && rest.bytes().all(|c| c.is_ascii_hexdigit());
    }
    word.len() >= 7
        && word.bytes().all(|c| c.is_ascii_hexdigit())
        && word.bytes().any(|c| c.is_ascii_digit())
        && word.bytes().any(|c| c.is_ascii_alphabetic())
}

const TEMP_ROOTS: &[&str] = &[
    "/tmp/",
    "/var/folders/",
    "/private/var/folders/",
    "/var/tmp/",
];

/// A path under a temp root starting at `i`: write it with generated-looking
/// segments replaced and return its end.
fn temp_path(bytes: &[u8], i: usize, out: &mut String) -> Option<usize> {
    let rest = &bytes[i..];
    let root = TEMP_ROOTS.iter().find(|r| rest.starts_with(r.as_bytes()))?;
    let end = i + run(rest, 0, |c| {
        !c.is_ascii_whitespace() && !matches!(c, b'"' | b'\'' | b'`' | b':' | b',' | b')' | b'(')
    });
    let path = std::str::from_utf8(&bytes[i..end]).ok()?;
    out.push_str(&root[..root.len() - 1]);
    for segment in path[root.len() - 1..].split('/').skip(1) {
        out.push('/');
        if looks_generated(segment) {
            out.push_str("<tmp>");
        } else {
            out.push_str(segment);
        }
    }
    Some(end)
}

fn looks_generated(segment: &str) -> bool {
    let stem = segment.split('.').next().unwrap_or(segment);
    if stem.len() > 3 && stem.starts_with("tmp") {
        return true;
    }
    let d = stem.bytes().filter(u8::is_ascii_digit).count();
    let a = stem.bytes().filter(u8::is_ascii_alphabetic).count();
    stem.len() >= 6 && d >= 3 && a >= 2
}

const BAR_CHARS: &[char] = &[
    '█', '▓', '▒', '░', '#', '=', '━', '─', '>', '■', '▉', '▊', '▋', '▌', '▍', '▎', '▏',
];

fn is_progress_bar(line: &str) -> bool {
    if !line.contains('%') {
        return false;
    }
    let has_percent = line
        .char_indices()
        .any(|(i, c)| c == '%' && line[..i].ends_with(|p: char| p.is_ascii_digit()));
    if !has_percent {
        return false;
    }
    let mut streak = 0;
    for c in line.chars() {
        if BAR_CHARS.contains(&c) {
            streak += 1;
            if streak >= 5 {
                return true;
            }
        } else {
            streak = 0;
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    fn norm(line: &str) -> String {
        let mut out = String::new();
        normalize_line(line, &mut out);
        out
    }

    fn same(a: &str, b: &str) -> bool {
        let mut buf = String::new();
        result_digest(a, false, &mut buf) == result_digest(b, false, &mut buf)
    }

    #[test]
    fn ansi_colour_is_dropped() {
        assert_eq!(norm("\x1b[31mFAILED\x1b[0m test_x"), "FAILED test_x");
        assert!(same("\x1b[1;32mok\x1b[0m", "ok"));
    }

    #[test]
    fn strip_ansi_shows_what_a_terminal_shows() {
        assert!(matches!(strip_ansi("plain\ntext"), Cow::Borrowed(_)));
        let cases = [
            ("\x1b[31mred\x1b[0m", "red"),
            ("\x1b[1;31mValueError\x1b[0m: bad", "ValueError: bad"),
            ("\x1b[?25l\x1b[2K\x1b[1Gdone", "done"),
            // OSC 8 hyperlink (BEL and ST terminated) and a window title.
            ("\x1b]8;;file:///x.py\x1b\\x.py\x1b]8;;\x1b\\:3", "x.py:3"),
            ("\x1b]0;title\x07ok", "ok"),
            // tput sgr0: charset designation then SGR.
            ("\x1b(B\x1b[mok", "ok"),
            ("\x1b7saved\x1b8", "saved"),
            // Never across a line end: line numbers stay the raw text's.
            ("a\x1b[31\nb", "a\nb"),
            ("a\x1b]0;unterminated\nb", "a\nb"),
            ("a\x1b\nb\x1b", "a\nb"),
            ("\x1b[31m\u{e9}t\u{e9}\x1b", "\u{e9}t\u{e9}"),
            ("\x1b\u{e9}", "\u{e9}"),
        ];
        for (raw, shown) in cases {
            assert_eq!(strip_ansi(raw), shown, "{raw:?}");
            let mut buf = String::new();
            for line in raw.split('\n') {
                buf.clear();
                normalize_line(line, &mut buf);
                // The loop detectors' normaliser drops the same sequences.
                assert!(!buf.contains('\x1b'), "{line:?}");
            }
        }
    }

    #[test]
    fn timestamps_and_times() {
        assert_eq!(norm("2026-11-30T08:00:01.037Z INFO up"), "<time> INFO up");
        assert_eq!(
            norm("Date: Tue, 01 Dec 2026 13:10:20 GMT"),
            "Date: Tue, 01 Dec 2026 <time> GMT"
        );
        assert_eq!(norm("at 2026-12-01 13:11:37+01:00."), "at <time>.");
        assert_eq!(norm("ratio 3:1"), "ratio 3:1", "not a time of day");
    }

    #[test]
    fn durations() {
        assert_eq!(norm("1 passed in 0.03s"), "1 passed in <dur>");
        assert_eq!(norm("Wall time: 0.1 seconds"), "Wall time: <dur>");
        assert_eq!(norm("handled in 437ms"), "handled in <dur>");
        assert_eq!(
            norm("real\t0m1.234s"),
            "real\t<dur>",
            "time's compound form"
        );
        assert_eq!(norm("took 1h2m3s total"), "took <dur> total");
        assert_eq!(norm("room 4m2x"), "room 4m2x", "not a duration");
        assert_eq!(
            norm("web-1   Running   0   17s"),
            "web-1   Running   0   <dur>"
        );
        assert_eq!(
            norm("3 failed, 2 passed"),
            "3 failed, 2 passed",
            "counts stay"
        );
        assert_eq!(norm("loaded 3/5 modules"), "loaded 3/5 modules");
    }

    #[test]
    fn ids() {
        assert_eq!(
            norm("X-Request-Id: 4f3c7f00-cf73-429e-9790-f3bdec927dd9"),
            "X-Request-Id: <uuid>"
        );
        assert_eq!(norm("commit 3f9a2c1d0b"), "commit <hex>");
        assert_eq!(
            norm("Breakpoint 1 at 0x1162: file sum.c"),
            "Breakpoint 1 at <hex>: file sum.c"
        );
        assert_eq!(
            norm("deadbeef"),
            "deadbeef",
            "a word of hex letters only stays"
        );
        assert_eq!(
            norm("[Inferior 1 (process 5870) exited]"),
            "[Inferior 1 (process <pid>) exited]"
        );
        assert_eq!(norm("pid: 4242 started"), "pid: <pid> started");
        assert_eq!(norm("1234567"), "1234567", "a plain number is not a hex id");
    }

    #[test]
    fn temp_paths() {
        assert_eq!(
            norm("wrote /tmp/tmpa1b2c3d4/out.txt"),
            "wrote /tmp/<tmp>/out.txt"
        );
        assert_eq!(
            norm("/tmp/pytest-of-root/pytest-12/test_x0/data"),
            "/tmp/pytest-of-root/pytest-12/test_x0/data",
            "readable segments stay"
        );
        assert_eq!(
            norm("/var/folders/x1/k9f3h2j8/T/a"),
            "/var/folders/x1/<tmp>/T/a"
        );
        assert_eq!(
            norm("/home/u/tmp1234/x"),
            "/home/u/tmp1234/x",
            "only under a temp root"
        );
    }

    #[test]
    fn progress_and_overdraw() {
        assert_eq!(norm(" 45%|█████     | 45/100"), "<progress>");
        assert_eq!(norm("[=====>    ] 60%"), "<progress>");
        assert_eq!(
            norm("downloading 10%\rdownloading 100%"),
            "downloading 100%"
        );
        assert_eq!(norm("HTTP/1.0 404 Not Found\r"), "HTTP/1.0 404 Not Found");
        assert_eq!(norm("..FFF   [100%]"), "..FFF   [100%]", "no bar run");
    }

    #[test]
    fn a_memo_gives_the_digests_it_saves_work_on() {
        // Lines that normalise (digits, ANSI, temp paths, CR overdraw, lines
        // that normalise to nothing), seen again with changes around them.
        let texts = [
            "12 passed in 0.35s\nFAILED t.py::case_1 - assert 2 == 1\n",
            "11 passed in 0.41s\nFAILED t.py::case_1 - assert 2 == 1\nFAILED t.py::case_2\n",
            "\u{1b}[31m3 failed\u{1b}[0m\r\n/tmp/tmpa1b2c3/x.py:3\n\r\n \r",
            "\u{1b}[31m3 failed\u{1b}[0m\r\n/tmp/tmpz9y8x7/x.py:3\n",
            "plain line\nanother plain line",
        ];
        let mut memo = LineMemo::default();
        let mut buf = String::new();
        for round in 0..3 {
            for text in texts {
                for is_error in [false, true] {
                    let fresh = result_digest(text, is_error, &mut buf);
                    let memoised = result_digest_with(text, is_error, &mut buf, &mut memo);
                    assert_eq!(memoised, fresh, "round {round}: {text:?}");
                }
            }
        }
        assert!(!memo.lines.is_empty() && memo.lines.len() < 20);
        // Bounded: it starts over when full.
        let many: String = (0..LineMemo::MAX + 10)
            .map(|i| format!("line {i}\n"))
            .collect();
        result_digest_with(&many, false, &mut buf, &mut memo);
        assert!(memo.lines.len() <= LineMemo::MAX);
    }

    #[test]
    fn positions_are_masked_in_a_failure_digest_only() {
        let m = |l: &str| mask_positions(l);
        assert_eq!(
            m(r#"  File "x.py", line 1039, in f"#),
            r#"  File "x.py", line #, in f"#
        );
        assert_eq!(m(" --> src/main.rs:12:5"), " --> src/main.rs:#:#");
        assert_eq!(m("    at f (/a/b.js:10:5)"), "    at f (/a/b.js:#:#)");
        assert_eq!(m("Foo.java:88)"), "Foo.java:#)");
        assert_eq!(m("12 |     let x = 1;"), "# |     let x = 1;");
        assert_eq!(m("t.py:13: AssertionError"), "t.py:#: AssertionError");
        assert_eq!(m("3 failed, 2 passed"), "3 failed, 2 passed", "counts stay");
        assert_eq!(
            m("ratio 3:1, v1.2: 7"),
            "ratio 3:1, v1.2: 7",
            "no file before"
        );
        assert_eq!(m("assert 12 == 13"), "assert 12 == 13", "values stay");
        // A multi-byte character before the number (found by the differential fuzz).
        assert_eq!(m("code: 2\u{85}12"), "code: 2\u{85}12");
        assert_eq!(m("é a.py:3"), "é a.py:#");
        assert_eq!(m("\u{85}a.py:3"), "\u{85}a.py:#", "U+0085 is no delimiter");
        let (mut buf, mut memo) = (String::new(), LineMemo::default());
        let a = "  File \"x.py\", line 1039, in f\nValueError: bad";
        let b = "  File \"x.py\", line 1046, in f\nValueError: bad";
        let fd = |t: &str, buf: &mut String, memo: &mut LineMemo| {
            failure_digest_with(t, true, buf, memo)
        };
        assert_eq!(fd(a, &mut buf, &mut memo), fd(b, &mut buf, &mut memo));
        assert_ne!(
            result_digest_with(a, true, &mut buf, &mut memo),
            result_digest_with(b, true, &mut buf, &mut memo),
            "a plain digest keeps them apart (the memo keeps the two forms apart)"
        );
        assert_ne!(
            fd(a, &mut buf, &mut memo),
            result_digest_with(a, true, &mut buf, &mut memo)
        );
    }

    #[test]
    fn digests_are_order_insensitive_but_count_lines() {
        assert!(same("a\nb\n", "b\na"));
        assert!(!same("a\na\nb", "a\nb\nb"));
        assert!(!same("a", "a\na"));
        assert!(
            !same("ready 1/5", "ready 2/5"),
            "a moving counter is a change"
        );
        let mut buf = String::new();
        assert_ne!(
            result_digest("x", true, &mut buf),
            result_digest("x", false, &mut buf)
        );
    }
}
