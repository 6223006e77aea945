//! Finding each rule's first match. Three strategies (`benches/scan.rs`
//! measures them; numbers in the README):
//! - `Literal` (the default): one pass finding every occurrence of every
//!   rule's required literals (`literal.rs` computes them, `prefilter.rs`
//!   finds them: sampled windows for the long ones, aho-corasick's packed
//!   searcher for the few short ones). A rule runs only on lines
//!   holding one of its literals (line-local rules, searched over the line's
//!   span of the whole text so `^ $ \b` read the real neighbours; `^` rules
//!   anchored at the line start when the line has no `\r`), or once one of
//!   its literals occurs (rules that can match a `\n`) from as many lines
//!   above as a match can span (the text start when unbounded).
//!   Occurrences that cannot begin a match of a `^` rule whose literals are
//!   its prefixes are skipped. Rules without literals fall back to `Set`.
//!   Numbers for the built-ins on 10 MB of build log: README.
//! - `Set`: a `RegexSet` pass per chunk of rules tells which rules match at
//!   all, then `find` runs only for those.
//! - `Loop`: one `find` per rule. The reference the others are tested against.
//!
//! Nothing expensive is built at load: each rule's regex, the sets and the
//! literal searcher are built on first use (`OnceLock`), so constructing an
//! engine costs parsing plus a forward-program size check, and a rule whose
//! literals never occur is never compiled into automata at all.

use super::prefilter::Finder;
use super::{Action, Rule, RULE_DFA_SIZE_LIMIT};
use regex::{RegexSet, RegexSetBuilder};
use regex_automata::meta;
use regex_automata::{Anchored, Input};
use std::collections::HashMap;
use std::sync::OnceLock;

/// Rules per `RegexSet`. Bigger chunks mean fewer passes but one automaton
/// per chunk: at 4,096 similar rules the lazy DFA thrashed and a 100 KB scan
/// took 11 s (linear, but slow); 256 keeps every measured table far from that.
const SET_CHUNK: usize = 256;
/// Budgets per chunk: compiled program and lazy-DFA cache.
const SET_SIZE_LIMIT: usize = 64 << 20;
const SET_DFA_SIZE_LIMIT: usize = 8 << 20;

/// A rule verified on this many lines, on average closer together than
/// `HOT_SPACING` bytes, is searched over the rest of the text at once: a
/// regex call per line costs a few hundred instructions, the lazy DFA a few
/// per byte.
const HOT_LINES: u32 = 64;
const HOT_SPACING: usize = 128;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Strategy {
    Loop,
    Set,
    Literal,
}

/// A rule as checked at load (see `super::check_rule`).
#[derive(Clone)]
pub(super) struct Checked {
    /// Translated (Rust regex) source.
    pub(super) src: String,
    /// Translated source of the rule's `unless` (`unless.rs`), if any.
    pub(super) unless_src: Option<String>,
    pub(super) literals: Option<Vec<Vec<u8>>>,
    /// Every match starts at a line start with one of `literals`.
    pub(super) at_line_start: bool,
    /// Every match starts where `^` holds (line start, after `\r`, text start).
    pub(super) starts_line: bool,
    pub(super) line_local: bool,
    /// The most `\n`s a match holds (`None`: unbounded).
    pub(super) max_newlines: Option<usize>,
}

struct Chunk {
    /// `None` when the chunk is too big as one set: its rules run in the loop.
    set: Option<RegexSet>,
    /// Rule index of each pattern in `set`.
    rules: Vec<usize>,
}

pub(super) struct Scanner {
    srcs: Vec<String>,
    line_local: Vec<bool>,
    at_line_start: Vec<bool>,
    starts_line: Vec<bool>,
    max_newlines: Vec<Option<usize>>,
    /// Rules (not `off`) that have required literals, and those that do not.
    gated: Vec<usize>,
    ungated: Vec<usize>,
    /// Distinct literals and the rules requiring each (searcher built lazily).
    literal_list: Vec<(Vec<u8>, Vec<usize>)>,
    regexes: Vec<OnceLock<meta::Regex>>,
    literals: OnceLock<Option<Finder>>,
    /// `Set` chunks over every active rule, and over the ungated ones.
    all_chunks: OnceLock<Vec<Chunk>>,
    ungated_chunks: OnceLock<Vec<Chunk>>,
}

impl Scanner {
    pub(super) fn new(rules: &[Rule], checked: Vec<Checked>) -> Scanner {
        let mut gated = Vec::new();
        let mut ungated = Vec::new();
        let mut index: HashMap<Vec<u8>, usize> = HashMap::new();
        let mut literal_list: Vec<(Vec<u8>, Vec<usize>)> = Vec::new();
        for (i, c) in checked.iter().enumerate() {
            if rules[i].action == Action::Off {
                continue;
            }
            match &c.literals {
                Some(lits) => {
                    gated.push(i);
                    for l in lits {
                        let k = *index.entry(l.clone()).or_insert_with(|| {
                            literal_list.push((l.clone(), Vec::new()));
                            literal_list.len() - 1
                        });
                        literal_list[k].1.push(i);
                    }
                }
                None => ungated.push(i),
            }
        }
        Scanner {
            line_local: checked.iter().map(|c| c.line_local).collect(),
            at_line_start: checked.iter().map(|c| c.at_line_start).collect(),
            starts_line: checked.iter().map(|c| c.starts_line).collect(),
            max_newlines: checked.iter().map(|c| c.max_newlines).collect(),
            regexes: checked.iter().map(|_| OnceLock::new()).collect(),
            srcs: checked.into_iter().map(|c| c.src).collect(),
            gated,
            ungated,
            literal_list,
            literals: OnceLock::new(),
            all_chunks: OnceLock::new(),
            ungated_chunks: OnceLock::new(),
        }
    }

    pub(super) fn literal_list(&self) -> Vec<Vec<u8>> {
        self.literal_list.iter().map(|(l, _)| l.clone()).collect()
    }

    pub(super) fn literal_owners(&self) -> Vec<(Vec<u8>, Vec<usize>)> {
        self.literal_list.clone()
    }

    pub(super) fn literal_occurrences(&self, text: &str) -> usize {
        let Some(f) = self.literals() else { return 0 };
        let mut occurrences = f.occurrences(text.as_bytes());
        let (mut n, mut batch) = (0, Vec::new());
        while occurrences.next_batch(&mut batch) {
            n += batch.len();
        }
        n
    }

    /// Whether an occurrence of one of rule `i`'s literals at `s` can be
    /// part of a match: anywhere, except for a rule whose every match
    /// starts at a line start with one of its literals.
    fn admits(&self, bytes: &[u8], s: usize, i: usize) -> bool {
        !self.at_line_start[i] || s == 0 || matches!(bytes[s - 1], b'\n' | b'\r')
    }

    /// Per rule, whether the `Literal` strategy would run it anywhere on
    /// `text` (rules without literals: always; `off` rules: never). The
    /// prefilter's whole claim is that `false` here means the rule has no
    /// match in `text`; the `prefilter` fuzz target checks it.
    pub(super) fn candidates(&self, text: &str) -> Vec<bool> {
        let mut out = vec![false; self.srcs.len()];
        for &i in &self.ungated {
            out[i] = true;
        }
        let Some(f) = self.literals() else {
            for &i in &self.gated {
                out[i] = true;
            }
            return out;
        };
        let bytes = text.as_bytes();
        let mut occurrences = f.occurrences(bytes);
        let mut batch = Vec::new();
        while occurrences.next_batch(&mut batch) {
            for &(s, k) in &batch {
                for &i in &self.literal_list[k].1 {
                    out[i] |= self.admits(bytes, s, i);
                }
            }
        }
        out
    }

    pub(super) fn default_strategy(&self) -> Strategy {
        Strategy::Literal
    }

    /// Rule `i`'s regex, built on first use. The pattern was parsed and its
    /// program size checked at load, so building cannot fail.
    fn regex(&self, i: usize) -> &meta::Regex {
        self.regexes[i].get_or_init(|| build_regex(&self.srcs[i]))
    }

    fn find(&self, text: &str, i: usize) -> Option<(usize, usize)> {
        self.regex(i).find(text).map(|m| (i, m.start()))
    }

    fn chunks<'a>(&'a self, cell: &'a OnceLock<Vec<Chunk>>, rules: &[usize]) -> &'a [Chunk] {
        cell.get_or_init(|| {
            rules
                .chunks(SET_CHUNK)
                .map(|idx| Chunk {
                    set: RegexSetBuilder::new(idx.iter().map(|&i| self.srcs[i].as_str()))
                        .size_limit(SET_SIZE_LIMIT)
                        .dfa_size_limit(SET_DFA_SIZE_LIMIT)
                        .build()
                        .ok(),
                    rules: idx.to_vec(),
                })
                .collect()
        })
    }

    fn literals(&self) -> Option<&Finder> {
        self.literals
            .get_or_init(|| Finder::new(self.literal_list()))
            .as_ref()
    }

    /// (rule index, byte offset of its first match), ascending rule index.
    pub(super) fn first_matches(
        &self,
        text: &str,
        strategy: Strategy,
        eligible: &dyn Fn(usize) -> bool,
    ) -> Vec<(usize, usize)> {
        let mut hits = match strategy {
            Strategy::Loop => (0..self.srcs.len())
                .filter(|&i| self.regexes_active(i) && eligible(i))
                .filter_map(|i| self.find(text, i))
                .collect(),
            Strategy::Set => {
                let active: Vec<usize> = (0..self.srcs.len())
                    .filter(|&i| self.regexes_active(i))
                    .collect();
                self.by_sets(text, self.chunks(&self.all_chunks, &active), eligible)
            }
            Strategy::Literal => match self.literals() {
                Some(lits) => {
                    let mut hits = self.by_literals(text, lits, eligible);
                    hits.extend(self.by_sets(
                        text,
                        self.chunks(&self.ungated_chunks, &self.ungated),
                        eligible,
                    ));
                    hits
                }
                // No literals at all (or too many for one searcher): sets.
                None => {
                    let active: Vec<usize> = (0..self.srcs.len())
                        .filter(|&i| self.regexes_active(i))
                        .collect();
                    self.by_sets(text, self.chunks(&self.all_chunks, &active), eligible)
                }
            },
        };
        hits.sort_unstable();
        hits
    }

    fn regexes_active(&self, i: usize) -> bool {
        self.gated.binary_search(&i).is_ok() || self.ungated.binary_search(&i).is_ok()
    }

    fn by_sets(
        &self,
        text: &str,
        chunks: &[Chunk],
        eligible: &dyn Fn(usize) -> bool,
    ) -> Vec<(usize, usize)> {
        let mut hits = Vec::new();
        for chunk in chunks {
            if !chunk.rules.iter().any(|&i| eligible(i)) {
                continue;
            }
            match &chunk.set {
                Some(set) => {
                    for k in set.matches(text).iter() {
                        if eligible(chunk.rules[k]) {
                            hits.extend(self.find(text, chunk.rules[k]));
                        }
                    }
                }
                None => hits.extend(
                    chunk
                        .rules
                        .iter()
                        .copied()
                        .filter(|&i| eligible(i))
                        .filter_map(|i| self.find(text, i)),
                ),
            }
        }
        hits
    }

    /// Every match of a gated rule contains one of its literals, and a
    /// line-local match lies inside one line; so the first line (in text
    /// order) where the rule matches is among the lines holding one of its
    /// literals, and searching that line's span of the whole text finds the
    /// same leftmost start as searching the whole text. The finder reports
    /// every occurrence of every literal, a line's before the next line's.
    fn by_literals(
        &self,
        text: &str,
        lits: &Finder,
        eligible: &dyn Fn(usize) -> bool,
    ) -> Vec<(usize, usize)> {
        const DONE: usize = usize::MAX;
        // Per rule: DONE, or 1 + the start of the last line it was queued
        // for (0 = never), so a line with several occurrences verifies once.
        let mut state: Vec<usize> = vec![DONE; self.srcs.len()];
        let mut pending = 0;
        for &i in &self.gated {
            if eligible(i) {
                state[i] = 0;
                pending += 1;
            }
        }
        let mut hits = Vec::new();
        let mut queued: Vec<usize> = Vec::new();
        // Lines verified per rule: a rule whose literals are on most lines
        // (a user rule gated by `: `) costs a regex call per line; past
        // `HOT_LINES`, denser than one per `HOT_SPACING` bytes, one search
        // over the rest of the text settles it instead.
        let mut checked_lines: Vec<u32> = vec![0; self.srcs.len()];
        let (mut line_start, mut line_end) = (0, 0);
        let bytes = text.as_bytes();
        let mut occurrences = lits.occurrences(bytes);
        let mut batch = Vec::new();
        loop {
            let more = pending > 0 && occurrences.next_batch(&mut batch);
            // Every occurrence of a batch lies in one line.
            let next_line = more.then(|| batch[0].0);
            if next_line.is_none_or(|s| s > line_end) && !queued.is_empty() {
                let line = Input::new(text).range(line_start..line_end);
                // A `^` rule can only start a match at the line start when
                // the line has no `\r`: an anchored search there fails within
                // a few bytes on most lookalike lines.
                let mut anchorable: Option<bool> = None;
                for i in queued.drain(..) {
                    if state[i] == DONE {
                        continue;
                    }
                    checked_lines[i] += 1;
                    let hot = checked_lines[i] >= HOT_LINES
                        && (checked_lines[i] as usize) * HOT_SPACING > line_end;
                    let found = if self.line_local[i] && !hot {
                        // Most queued lines do not match: the forward-only
                        // check costs about half of finding the start.
                        let re = self.regex(i);
                        let anchored = self.starts_line[i]
                            && *anchorable.get_or_insert_with(|| {
                                memchr::memchr(b'\r', &bytes[line_start..line_end]).is_none()
                            });
                        let input = if anchored {
                            line.clone().anchored(Anchored::Yes)
                        } else {
                            line.clone()
                        };
                        if re.is_match(input.clone()) {
                            re.search(&input)
                        } else {
                            None
                        }
                    } else if self.line_local[i] {
                        // Hot: earlier lines had no match, so the first match
                        // from this line on is the rule's first.
                        state[i] = DONE;
                        pending -= 1;
                        self.regex(i).search(&Input::new(text).range(line_start..))
                    } else {
                        // May span lines: one search settles it. Every match
                        // holds an occurrence, none before this line (the
                        // rule's first), so a match of at most k lines' breaks
                        // starts at most k lines up: a match in the last line
                        // of 10 MB no longer searches all of it.
                        state[i] = DONE;
                        pending -= 1;
                        let from =
                            self.max_newlines[i].map_or(0, |k| lines_up(bytes, line_start, k));
                        self.regex(i).search(&Input::new(text).range(from..))
                    };
                    if let Some(f) = found {
                        if state[i] != DONE {
                            state[i] = DONE;
                            pending -= 1;
                        }
                        hits.push((i, f.start()));
                    }
                }
            }
            let Some(first) = next_line else { break };
            if first > line_end || (line_start, line_end) == (0, 0) {
                // Byte searches: a literal may start or end inside a
                // multi-byte character.
                let len0 = self.literal_list[batch[0].1].0.len();
                line_start = memchr::memrchr(b'\n', &bytes[..first]).map_or(0, |k| k + 1);
                line_end = memchr::memchr(b'\n', &bytes[first + len0..])
                    .map_or(text.len(), |k| first + len0 + k);
            }
            for &(s, k) in &batch {
                for &i in &self.literal_list[k].1 {
                    if !self.admits(bytes, s, i) {
                        continue;
                    }
                    if state[i] != DONE && state[i] != line_start + 1 {
                        state[i] = line_start + 1;
                        queued.push(i);
                    }
                }
            }
        }
        hits
    }
}

/// The start of the line `k` lines above the one starting at `line_start`
/// (the text start when there are fewer).
fn lines_up(bytes: &[u8], line_start: usize, k: usize) -> usize {
    let mut at = line_start;
    for _ in 0..k {
        if at == 0 {
            break;
        }
        at = memchr::memrchr(b'\n', &bytes[..at - 1]).map_or(0, |j| j + 1);
    }
    at
}

/// The same configuration `regex::RegexBuilder` gives a single pattern
/// (leftmost-first, UTF-8 empty matches), from the translated source.
fn build_regex(src: &str) -> meta::Regex {
    meta::Builder::new()
        .configure(
            meta::Config::new()
                .match_kind(regex_automata::MatchKind::LeftmostFirst)
                .utf8_empty(true)
                // Checked at load against the per-rule limit (forward program).
                .nfa_size_limit(None)
                .hybrid_cache_capacity(RULE_DFA_SIZE_LIMIT),
        )
        .syntax(regex_automata::util::syntax::Config::new().utf8(true))
        .build(src)
        .expect("rule pattern was validated at load")
}
