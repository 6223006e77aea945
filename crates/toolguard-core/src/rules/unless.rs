//! `unless`: a rule's veto. Some outputs hold a rule's failure line and, right
//! next to it, the sign that the failure was expected or recovered from: a
//! logged traceback of an attempt the program then retried, a `make` recipe
//! error followed by `Error 1 (ignored)`, an error quoted inside a Markdown
//! code fence. A match of such a rule is passed over when its `unless`
//! pattern matches in the match's *window*: the lines the match touches plus
//! `WINDOW_LINES` lines before and after them (DSH's `[stderr]` separator
//! line not counted), searched as a text of its own
//! (so `^`/`$` without `m` are the window's ends). The rule then counts its
//! first match that is not vetoed; none, and it is silent.
//!
//! Linear time: after a vetoed match the search resumes at the line after
//! the match's last line, so windows overlap only by their margins, and at
//! most `MAX_EXAMINED` matches of one rule are looked at per scan (all of
//! them vetoed: the rule is silent), which also bounds what a careless
//! pattern can cost. The TS reference engine (reference/rules.mts) mirrors
//! this file; the differential tests compare them.
//!
//! Kept apart from `scan.rs`: the scanner finds each rule's first match as
//! before, and only rules with `unless` whose first match is found pay for
//! the veto (their own two regexes, built on first use).

use std::sync::OnceLock;

use regex::{Regex, RegexBuilder};

use super::{
    dialect, last_line, rule_error, scan::Checked, size_checked, Rule, RULE_DFA_SIZE_LIMIT,
    RULE_SIZE_LIMIT,
};
use crate::error::RuleError;

/// Lines of context on each side of a match that `unless` sees.
pub const WINDOW_LINES: usize = 2;
/// The line DSH puts between a result's stdout and its stderr: it is not
/// output, so the window does not count it (a program's "retrying" on stdout
/// and its error on stderr are neighbours to a reader).
const STDERR_SEPARATOR: &[u8] = b"[stderr]";
/// Matches of one rule examined per scan before it gives up (silent).
pub const MAX_EXAMINED: usize = 64;

/// The load-time check of a rule's `unless`: present means a non-empty
/// pattern the native dialect accepts, with the rule's flags, and within
/// the per-rule size. Only when `checked` (user rules): the built-ins are
/// checked by the test suite (`builtin_table_is_well_formed`), and nothing
/// of a veto is needed before its rule first matches (it is built then), so
/// a per-process load (the native hook) skips a quarter of its work.
/// Returns the veto's translated source (`None`: no veto); unchecked, a
/// veto that does not translate is `None` too (built-ins are tested instead).
pub(super) fn check(rule: &Rule, checked: bool) -> Result<Option<String>, RuleError> {
    let Some(unless) = rule.unless.as_ref() else {
        return Ok(None);
    };
    if !checked {
        return Ok(dialect::translate(unless, &rule.flags).ok());
    }
    if unless.is_empty() {
        // An empty veto matches every window: the rule could never fire.
        return Err(rule_error(
            &rule.id,
            "`unless` must not be empty (leave it out for no veto)",
        ));
    }
    let src = dialect::translate(unless, &rule.flags)
        .map_err(|e| rule_error(&rule.id, &format!("`unless`: {e}")))?;
    // The load-time check of `check_rule`: parse and compile the forward
    // program against the per-rule limit (the full regex is built on first use).
    let invalid = |e: String| {
        rule_error(
            &rule.id,
            &format!("`unless`: invalid pattern: {}", last_line(&e)),
        )
    };
    let hir = regex_syntax::ParserBuilder::new()
        .utf8(true)
        .build()
        .parse(&src)
        .map_err(|e| invalid(e.to_string()))?;
    size_checked(&hir).map_err(|e| match e.size_limit() {
            Some(_) => rule_error(
                &rule.id,
                "`unless`: pattern is too big for the linear-time engine (compiled size over the per-rule limit)",
            ),
            None => invalid(e.to_string()),
        })?;
    Ok(Some(src))
}

fn build(src: &str) -> Result<Regex, regex::Error> {
    RegexBuilder::new(src)
        .size_limit(RULE_SIZE_LIMIT)
        .dfa_size_limit(RULE_DFA_SIZE_LIMIT)
        .build()
}

struct Veto {
    /// Translated sources of the rule's pattern and of its `unless`.
    pattern_src: String,
    unless_src: String,
    pattern: OnceLock<Regex>,
    unless: OnceLock<Regex>,
}

/// Per rule of a table, its veto (`None`: the rule has no `unless`).
pub(super) struct Vetoes(Vec<Option<Veto>>);

impl Vetoes {
    /// `checked[i]` is rule `i` as checked at load (its translated sources).
    pub(super) fn new(checked: &[Checked]) -> Vetoes {
        Vetoes(
            checked
                .iter()
                .map(|c| {
                    Some(Veto {
                        pattern_src: c.src.clone(),
                        unless_src: c.unless_src.clone()?,
                        pattern: OnceLock::new(),
                        unless: OnceLock::new(),
                    })
                })
                .collect(),
        )
    }

    /// Rule `i`'s first match not vetoed, given `first`, the start of its
    /// first match: `first` itself for a rule without `unless`.
    pub(super) fn first_unvetoed(&self, i: usize, text: &str, first: usize) -> Option<usize> {
        let Some(v) = &self.0[i] else {
            return Some(first);
        };
        let pattern = v
            .pattern
            .get_or_init(|| build(&v.pattern_src).expect("checked at load"));
        let unless = v
            .unless
            .get_or_init(|| build(&v.unless_src).expect("checked at load"));
        let mut at = first;
        for _ in 0..MAX_EXAMINED {
            // `find_at` reads the text before `at`, so `^` and `\b` see the real neighbours.
            let m = pattern.find_at(text, at)?;
            let (start, end, next) = window(text, m.start(), m.end());
            if !unless.is_match(&text[start..end]) {
                return Some(m.start());
            }
            if next > text.len() {
                return None;
            }
            at = next;
        }
        None
    }
}

/// The window of the match `s..e` (byte offsets): from the start of the line
/// `WINDOW_LINES` lines above its first line to the end (before the `\n`) of
/// the line `WINDOW_LINES` lines below its last line, a `[stderr]` separator
/// line not counted; and where the search
/// resumes after it, the start of the line after its last line (past the end
/// of the text when that line is the last).
fn window(text: &str, s: usize, e: usize) -> (usize, usize, usize) {
    let b = text.as_bytes();
    let line_start = |at: usize| {
        b[..at]
            .iter()
            .rposition(|&c| c == b'\n')
            .map_or(0, |k| k + 1)
    };
    let line_end = |at: usize| {
        b[at..]
            .iter()
            .position(|&c| c == b'\n')
            .map_or(b.len(), |k| at + k)
    };
    let mut start = line_start(s);
    let mut counted = 0;
    while counted < WINDOW_LINES && start > 0 {
        let prev = line_start(start - 1);
        counted += usize::from(&b[prev..start - 1] != STDERR_SEPARATOR);
        start = prev;
    }
    // The last line the match touches: the one holding its last byte.
    let last_end = line_end(if e > s { e - 1 } else { s });
    let mut end = last_end;
    let mut counted = 0;
    while counted < WINDOW_LINES && end < b.len() {
        let next = line_end(end + 1);
        counted += usize::from(&b[end + 1..next] != STDERR_SEPARATOR);
        end = next;
    }
    (start, end, last_end + 1)
}

#[cfg(test)]
mod tests {
    use super::window;

    #[test]
    fn window_spans_two_lines_each_side() {
        let t = "a\nb\nc\nMATCH\nd\ne\nf";
        let s = t.find("MATCH").unwrap();
        let (ws, we, next) = window(t, s, s + 5);
        assert_eq!(&t[ws..we], "b\nc\nMATCH\nd\ne");
        assert_eq!(&t[next..], "d\ne\nf");
        // A match ending with its `\n` touches only its own line.
        let (ws, we, next) = window(t, s, s + 6);
        assert_eq!(&t[ws..we], "b\nc\nMATCH\nd\ne");
        assert_eq!(next, s + 6);
        // At the text's ends the window is cut; after the last line, `next` is past the end.
        let (ws, we, next) = window("x\ny", 0, 1);
        assert_eq!((ws, we, next), (0, 3, 2));
        let (ws, we, next) = window("x\ny", 2, 3);
        assert_eq!((ws, we, next), (0, 3, 4));
        // An empty match touches the line it is on.
        let (ws, we, _) = window("p\nq\nr\ns\nt", 4, 4);
        assert_eq!((ws, we), (0, 9));
        // The `[stderr]` separator is not counted on either side.
        let t = "a\nb\nc\n[stderr]\nMATCH\nd\n[stderr]\ne\nf";
        let s = t.find("MATCH").unwrap();
        let (ws, we, _) = window(t, s, s + 5);
        assert_eq!(&t[ws..we], "b\nc\n[stderr]\nMATCH\nd\n[stderr]\ne");
    }
}
