//! Finding each rule's first match. Two strategies, chosen by measurement
//! (`benches/scan.rs`; numbers in the README):
//! - `Set` (the default): a `RegexSet` pass per chunk of rules tells which
//!   rules match at all, then `find` runs only for those. One automaton walk
//!   replaces one pass per rule: on build-log text the built-in table scans
//!   ~5-6× faster than the loop at 200 B, 100 KB and 10 MB, and 10,000 user
//!   rules ~15× faster.
//! - `Loop`: one `Regex::find` per rule, each with its own literal
//!   prefilter. Kept for chunks whose set exceeds its size budget and as the
//!   reference the set strategy is tested against.

use regex::{Regex, RegexSet, RegexSetBuilder};

/// Rules per `RegexSet`. Bigger chunks mean fewer passes but one automaton
/// per chunk: at 4,096 similar rules the lazy DFA thrashed and a 100 KB scan
/// took 11 s (linear, but slow); 256 keeps every measured table far from that.
const SET_CHUNK: usize = 256;
/// Budgets per chunk: compiled program and lazy-DFA cache.
const SET_SIZE_LIMIT: usize = 64 << 20;
const SET_DFA_SIZE_LIMIT: usize = 8 << 20;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Strategy {
    Loop,
    Set,
}

struct Chunk {
    /// `None` when the chunk is too big as one set: its rules run in the loop.
    set: Option<RegexSet>,
    /// Rule index of each pattern in `set`.
    rules: Vec<usize>,
}

pub(super) struct Scanner {
    regexes: Vec<Regex>,
    chunks: Vec<Chunk>,
}

impl Scanner {
    /// Builds the sets at load, so the first scan costs what every scan costs.
    pub(super) fn new(rules: &[super::Rule], regexes: Vec<Regex>) -> Scanner {
        let active: Vec<usize> = (0..rules.len())
            .filter(|&i| rules[i].action != super::Action::Off)
            .collect();
        let chunks = active
            .chunks(SET_CHUNK)
            .map(|idx| Chunk {
                set: RegexSetBuilder::new(idx.iter().map(|&i| regexes[i].as_str()))
                    .size_limit(SET_SIZE_LIMIT)
                    .dfa_size_limit(SET_DFA_SIZE_LIMIT)
                    .build()
                    .ok(),
                rules: idx.to_vec(),
            })
            .collect();
        Scanner { regexes, chunks }
    }

    pub(super) fn default_strategy(&self) -> Strategy {
        Strategy::Set
    }

    /// (rule index, byte offset of its first match), ascending rule index.
    pub(super) fn first_matches(
        &self,
        text: &str,
        strategy: Strategy,
        eligible: &dyn Fn(usize) -> bool,
    ) -> Vec<(usize, usize)> {
        let find = |i: usize| self.regexes[i].find(text).map(|m| (i, m.start()));
        let mut hits = Vec::new();
        for chunk in &self.chunks {
            if !chunk.rules.iter().any(|&i| eligible(i)) {
                continue;
            }
            match (&chunk.set, strategy) {
                (Some(set), Strategy::Set) => {
                    for k in set.matches(text).iter() {
                        if eligible(chunk.rules[k]) {
                            hits.extend(find(chunk.rules[k]));
                        }
                    }
                }
                _ => hits.extend(
                    chunk
                        .rules
                        .iter()
                        .copied()
                        .filter(|&i| eligible(i))
                        .filter_map(find),
                ),
            }
        }
        hits
    }
}
