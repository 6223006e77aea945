//! Finding each rule's first match. Two strategies, chosen by measurement
//! (numbers in `benches/scan.rs` and the README):
//! - `Loop`: one `Regex::find` per rule. Each compiled rule carries its own
//!   literal prefilter (memchr / Teddy), so on typical output a rule costs
//!   a SIMD skim of the text.
//! - `Set`: a `RegexSet` pass (rules in chunks) tells which rules match at
//!   all, then `find` runs only for those. One automaton walk replaces N
//!   prefilter skims, which wins once the table is large.

use regex::{Regex, RegexSet, RegexSetBuilder};
use std::sync::OnceLock;

/// Rules per `RegexSet`: bounds one set's automaton (and its lazy-DFA state
/// explosion) so the cost stays per-chunk.
const SET_CHUNK: usize = 64;
/// Set-strategy budgets per chunk (compiled program, lazy-DFA cache).
const SET_SIZE_LIMIT: usize = 64 << 20;
const SET_DFA_SIZE_LIMIT: usize = 8 << 20;
/// From this many active rules on, `scan` uses the `Set` strategy.
pub const SET_THRESHOLD: usize = 64;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Strategy {
    Loop,
    Set,
}

/// One chunk of the `Set` strategy: the set and the rule index of each of its patterns.
type SetChunk = (RegexSet, Vec<usize>);

pub(super) struct Scanner {
    regexes: Vec<Regex>,
    /// Indices of rules that can ever run (not `off`).
    active: Vec<usize>,
    /// Built on first use of the `Set` strategy: (set, rule index per set pattern).
    sets: OnceLock<Option<Vec<SetChunk>>>,
}

impl Scanner {
    pub(super) fn new(rules: &[super::Rule], regexes: Vec<Regex>) -> Result<Scanner, String> {
        let active = (0..rules.len())
            .filter(|&i| rules[i].action != super::Action::Off)
            .collect();
        Ok(Scanner {
            regexes,
            active,
            sets: OnceLock::new(),
        })
    }

    pub(super) fn default_strategy(&self) -> Strategy {
        if self.active.len() >= SET_THRESHOLD {
            Strategy::Set
        } else {
            Strategy::Loop
        }
    }

    fn sets(&self) -> Option<&Vec<SetChunk>> {
        self.sets
            .get_or_init(|| {
                let mut out = Vec::new();
                for chunk in self.active.chunks(SET_CHUNK) {
                    let set = RegexSetBuilder::new(chunk.iter().map(|&i| self.regexes[i].as_str()))
                        .size_limit(SET_SIZE_LIMIT)
                        .dfa_size_limit(SET_DFA_SIZE_LIMIT)
                        .build()
                        // Every pattern compiled alone; a chunk too big as a set falls back to the loop.
                        .ok()?;
                    out.push((set, chunk.to_vec()));
                }
                Some(out)
            })
            .as_ref()
    }

    /// (rule index, byte offset of its first match), ascending rule index.
    pub(super) fn first_matches(
        &self,
        text: &str,
        strategy: Strategy,
        eligible: &dyn Fn(usize) -> bool,
    ) -> Vec<(usize, usize)> {
        let find = |i: usize| self.regexes[i].find(text).map(|m| (i, m.start()));
        if strategy == Strategy::Set {
            if let Some(sets) = self.sets() {
                let mut hits = Vec::new();
                for (set, idx) in sets {
                    if !idx.iter().any(|&i| eligible(i)) {
                        continue;
                    }
                    for k in set.matches(text).iter() {
                        if eligible(idx[k]) {
                            hits.extend(find(idx[k]));
                        }
                    }
                }
                return hits;
            }
        }
        self.active
            .iter()
            .copied()
            .filter(|&i| eligible(i))
            .filter_map(find)
            .collect()
    }
}
