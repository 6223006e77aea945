//! Anchors for the literal prefilter (`prefilter.rs`): per required literal,
//! one substring of at most `ANCHOR` bytes that the literal contains, chosen
//! so the distinct anchors are few (one packed/Teddy pass holds at most
//! `BUDGET`) and rare in typical logs. Literals shorter than `ANCHOR` are their
//! own anchors. Every literal contains its anchor, so finding every anchor
//! occurrence and comparing the literals sharing it there misses nothing.
//!
//! No dependencies: `build.rs` runs this file too (`#[path]`), so the
//! built-ins' anchors are chosen at build time.

use std::collections::HashMap;

/// Anchors are substrings of `MIN_ANCHOR..=MAX_ANCHOR` bytes; shorter
/// literals are their own anchors (and go to a pass of their own: Teddy
/// fingerprints the shortest pattern's length). Teddy fingerprints up to
/// four bytes; three-byte anchors are shared by more literals (the 431
/// built-in literals of 3+ bytes need over 100 distinct four-byte anchors).
pub const MIN_ANCHOR: usize = 4;
/// Literals this long or longer are not anchored: the prefilter finds them
/// by sampled 4-byte windows (`prefilter.rs`), for any number of them.
pub const SAMPLED: usize = 7;
pub const MAX_ANCHOR: usize = 4;
/// At most this many distinct anchors when the table allows: the packed
/// searcher holds 64 patterns (Fat Teddy above 32).
pub const BUDGET: usize = 32;

/// Estimated share of `b` among the bytes of a build or test log (English
/// letter frequencies, spaces, digits, some punctuation; upper case and
/// other bytes rare). Only the order of magnitude matters: it ranks anchors.
fn byte_share(b: u8) -> f64 {
    match b {
        b' ' => 0.15,
        b'e' => 0.09,
        b't' | b'a' | b'o' | b'i' | b'n' | b's' | b'r' => 0.06,
        b'h' | b'l' | b'd' | b'c' | b'u' | b'm' => 0.03,
        b'f' | b'p' | b'g' | b'w' | b'y' | b'b' => 0.015,
        b'v' | b'k' => 0.007,
        b'x' | b'j' | b'q' | b'z' => 0.001,
        b'0'..=b'9' => 0.01,
        b'.' | b'/' | b'-' | b'_' | b':' | b'=' | b',' | b'\n' => 0.01,
        b'A'..=b'Z' => 0.003,
        0x80..=0xff => 0.0005,
        _ => 0.002,
    }
}

/// Estimated occurrences of `w` per byte of log (bytes taken as independent).
pub fn share(w: &[u8]) -> f64 {
    w.iter().map(|&b| byte_share(b)).product()
}

/// Per literal, the offset of its anchor and the anchor's length
/// (`lits[k][off..off + len]`). Deterministic for a given list.
///
/// Literals of `MIN_ANCHOR`+ bytes get anchors of `MIN_ANCHOR..=MAX_ANCHOR`
/// bytes, at most `BUDGET` distinct ones; those these cannot cover (a table
/// too varied, like the built-ins' case variants and errno texts) get
/// two-byte anchors, which join the short literals' pass.
pub fn choose(lits: &[Vec<u8>]) -> Vec<(usize, usize)> {
    let mut out: Vec<(usize, usize)> = lits.iter().map(|l| (0, l.len())).collect();
    let long: Vec<usize> = (0..lits.len())
        .filter(|&k| lits[k].len() >= MIN_ANCHOR)
        .collect();
    let left = cover(lits, &long, MIN_ANCHOR..=MAX_ANCHOR, Some(BUDGET), &mut out);
    let left = cover(lits, &left, 2..=3, None, &mut out);
    debug_assert!(left.is_empty());
    out
}

/// Anchors of `sizes` bytes for the literals `ks` into `out`, at most
/// `budget` distinct ones; the literals left without one.
fn cover(
    lits: &[Vec<u8>],
    ks: &[usize],
    sizes: std::ops::RangeInclusive<usize>,
    budget: Option<usize>,
    out: &mut [(usize, usize)],
) -> Vec<usize> {
    if ks.is_empty() {
        return Vec::new();
    }
    // Candidate windows, and per window the literals containing it.
    let mut index: HashMap<&[u8], usize> = HashMap::new();
    let mut windows: Vec<(&[u8], f64, Vec<usize>)> = Vec::new();
    let mut of_lit: Vec<Vec<usize>> = vec![Vec::new(); lits.len()];
    for &k in ks {
        let l = &lits[k];
        let all = sizes
            .clone()
            .filter(|&n| n <= l.len())
            .flat_map(|n| l.windows(n));
        for w in all {
            let c = *index.entry(w).or_insert_with(|| {
                windows.push((w, share(w), Vec::new()));
                windows.len() - 1
            });
            // A window may occur twice in a literal: one entry.
            if windows[c].2.last() != Some(&k) {
                windows[c].2.push(k);
                of_lit[k].push(c);
            }
        }
    }
    // Greedy weighted cover: take the window with the most uncovered
    // literals per (share + lambda). A small lambda prefers rare windows, a
    // large one few windows; the smallest lambda whose cover fits the budget
    // wins. The last try covers by count alone, as far as the budget goes.
    let limit = budget.unwrap_or(usize::MAX);
    let mut result = (Vec::new(), ks.len());
    for lambda in [0.0, 1e-9, 1e-8, 1e-7, 1e-6, 1e-5, 1e-4, 1e-3, f64::INFINITY] {
        let mut count: Vec<usize> = windows.iter().map(|w| w.2.len()).collect();
        let mut covered = vec![false; lits.len()];
        let mut left = ks.len();
        let mut chosen = Vec::new();
        let last = lambda.is_infinite();
        while left > 0 && chosen.len() < limit {
            let score = |c: usize| {
                if last {
                    // Ties (common) go to the rarer window.
                    count[c] as f64 - windows[c].1
                } else {
                    count[c] as f64 / (windows[c].1 + lambda)
                }
            };
            let Some(c) = (0..windows.len())
                .filter(|&c| count[c] > 0)
                .max_by(|&a, &b| score(a).total_cmp(&score(b)).then(b.cmp(&a)))
            else {
                break;
            };
            chosen.push(c);
            for &k in &windows[c].2 {
                if !covered[k] {
                    covered[k] = true;
                    left -= 1;
                    for &d in &of_lit[k] {
                        count[d] -= 1;
                    }
                }
            }
        }
        if left == 0 || last {
            result = (chosen, left);
            break;
        }
    }
    let chosen = result.0;
    let mut is_chosen = vec![false; windows.len()];
    for &c in &chosen {
        is_chosen[c] = true;
    }
    // Each covered literal takes the rarest chosen window it contains.
    let mut left = Vec::new();
    for &k in ks {
        let best = of_lit[k]
            .iter()
            .copied()
            .filter(|&c| is_chosen[c])
            .min_by(|&a, &b| windows[a].1.total_cmp(&windows[b].1).then(a.cmp(&b)));
        match best {
            Some(c) => {
                let w = windows[c].0;
                let off = lits[k].windows(w.len()).position(|x| x == w).unwrap();
                out[k] = (off, w.len());
            }
            None => left.push(k),
        }
    }
    left
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every literal contains its anchor; the built-ins' literals below the
    /// sampled length (7 bytes, `prefilter.rs`) fit one Slim Teddy pass of
    /// 4-byte anchors plus the short literals' own.
    #[test]
    fn anchors_are_substrings_and_the_builtins_fit_the_budget() {
        let set = crate::rules::RuleSet::compile(vec![]).unwrap();
        let lits: Vec<Vec<u8>> = set
            .required_literals()
            .into_iter()
            .filter(|l| l.len() < SAMPLED)
            .collect();
        let anchors = choose(&lits);
        let mut long: Vec<&[u8]> = Vec::new();
        for (l, &(off, len)) in lits.iter().zip(&anchors) {
            assert!(len >= 1 && off + len <= l.len(), "{l:?}");
            assert!(len == l.len() || len >= 2);
            if len >= MIN_ANCHOR {
                long.push(&l[off..off + len]);
            }
        }
        long.sort_unstable();
        long.dedup();
        assert!(long.len() <= BUDGET, "{} anchors", long.len());
    }

    /// Any list: anchors are substrings; no more than `BUDGET` of 4+ bytes.
    #[test]
    fn any_list_gets_sound_anchors() {
        let mut s = 0x9E37_79B9_7F4A_7C15u64;
        for _ in 0..300 {
            let mut lits: Vec<Vec<u8>> = Vec::new();
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            for i in 0..(s % 200) {
                let n = 1 + ((s >> (i % 50)) % 9) as usize;
                lits.push(
                    (0..n)
                        .map(|j| b"abcxyz :E"[((s >> ((i as usize + j) % 60)) % 9) as usize])
                        .collect(),
                );
            }
            lits.sort();
            lits.dedup();
            let anchors = choose(&lits);
            let mut long: Vec<&[u8]> = Vec::new();
            for (l, &(off, len)) in lits.iter().zip(&anchors) {
                assert!(len >= 1 && off + len <= l.len());
                if len >= MIN_ANCHOR {
                    long.push(&l[off..off + len]);
                }
            }
            long.sort_unstable();
            long.dedup();
            assert!(long.len() <= BUDGET);
        }
    }

    /// The build-time anchors (build.rs) cover every built-in literal the
    /// prefilter anchors, so a process with the built-ins chooses none; each
    /// is a substring of its literal, and they fit the budget.
    #[test]
    fn build_time_anchors_cover_the_builtins() {
        let table = crate::rules::builtin_table::SHORT_ANCHORS;
        let set = crate::rules::RuleSet::compile(vec![]).unwrap();
        for l in set.required_literals() {
            if l.len() < SAMPLED {
                assert!(table.iter().any(|a| a.0 == l.as_slice()), "{l:?}");
            }
        }
        let mut long: Vec<&[u8]> = Vec::new();
        for &(l, off, len) in table {
            assert!(len >= 1 && off + len <= l.len(), "{l:?}");
            if len >= MIN_ANCHOR {
                long.push(&l[off..off + len]);
            }
        }
        long.sort_unstable();
        long.dedup();
        assert!(long.len() <= BUDGET, "{} anchors", long.len());
    }
}
