//! Every occurrence of the table's required literals, in text order (the
//! `Literal` strategy's one pass, `scan.rs`).
//!
//! aho-corasick's packed (Teddy/SIMD) searcher is fast for a few dozen
//! literals; the broad table has over 200, and beyond 64 the
//! searcher falls back to an automaton at ~0.3 GB/s. So literals of `LONG`
//! bytes or more are found by sampling: every `STRIDE`-th position's 4-byte
//! window is looked up in a bit set of the windows those literals have at
//! offsets `0..STRIDE` (each occurrence holds exactly one sampled position
//! at such an offset, so it is reported once); a window that passes two
//! hash filters is checked against the literals having it. The shorter
//! literals go through aho-corasick's packed (Teddy) searcher by anchors
//! (`anchor.rs`): each literal of 3–6 bytes has a 3- or 4-byte substring as
//! its anchor, at most 32 distinct (Slim Teddy; the built-ins' 38 such
//! literals were 36 + 2 patterns in a Fat and a Slim pass), and the literals
//! sharing an anchor are compared where it occurs. Literals of 1–2 bytes
//! (`:0`…`:9`) are their own anchors in a pass of their own: Teddy
//! fingerprints the shortest pattern's length, so one 2-byte pattern would
//! cost the others their selectivity.
//!
//! Tried: anchors for every literal in one pass. The 431 built-in
//! literals of 3+ bytes need over 100 distinct 4-byte anchors, and 64
//! (Teddy's limit) only with common trigrams (`er `, `in `, `ion`): 97 M
//! instructions per MiB of build log instead of 20.5 M, most of it Teddy's
//! and our verification of those hits. Rare anchors for hundreds of varied
//! literals need the sampled pass's unbounded window set.

use aho_corasick::{AhoCorasick, MatchKind};
use std::collections::HashMap;

use super::anchor;
use crate::digest::FastHash;

/// The windows map is consulted on every bit-set hit: a multiply, not SipHash.
type Windows = HashMap<u32, Vec<Sampled>, FastHash>;

/// A long literal having a window: the literal, the window's offset in it,
/// and its (up to) 8 bytes from there as a word with the mask of those
/// bytes, compared before the whole literal (a `memcmp` call each).
#[derive(Clone, Copy)]
struct Sampled {
    k: usize,
    o: usize,
    word: u64,
    mask: u64,
}

/// Per anchor, the literals having it and its offset in them.
type Members = Vec<Vec<(usize, usize)>>;

/// Literals at least this long are found by sampling.
const LONG: usize = anchor::SAMPLED;
/// Sampling step: a literal of `LONG` bytes contains a whole 4-byte window
/// starting at some multiple of `STRIDE`.
const STRIDE: usize = LONG - 3;
/// First filter: per hash of a 4-byte window (64 K entries), 0 or how many
/// bytes (4..=8) every literal with that window has from it on.
const FIRST_BITS: u32 = 16;
/// Second filter: a bit per hash of those 4..=8 bytes (2^18 bits). Common
/// 4-grams (`erro`, `warn`, `test`) pass the first; few of their longer
/// strings (`error: `) pass the second.
const SECOND_BITS: u32 = 18;

fn first_slot(w: u32) -> usize {
    (w.wrapping_mul(0x9E37_79B1) >> (32 - FIRST_BITS)) as usize
}

fn second_slot(v: u64) -> usize {
    (v.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - SECOND_BITS)) as usize
}

/// The `n` (4..=8) bytes at `p` as a little-endian number (`p + n <= len`).
fn bytes_at(text: &[u8], p: usize, n: usize) -> u64 {
    let v = match text.get(p..p + 8) {
        Some(b) => u64::from_le_bytes(b.try_into().unwrap()),
        None => {
            let mut b = [0u8; 8];
            b[..n].copy_from_slice(&text[p..p + n]);
            u64::from_le_bytes(b)
        }
    };
    if n == 8 {
        v
    } else {
        v & ((1 << (8 * n)) - 1)
    }
}

pub(super) struct Finder {
    lits: Vec<Vec<u8>>,
    /// Anchors of 3–4 bytes (literals of 3..LONG bytes), and of 1–2 bytes.
    short: Vec<Short>,
    first: Box<[u8; 1 << FIRST_BITS]>,
    second: Box<[u64; 1 << (SECOND_BITS - 6)]>,
    /// 4-byte window → (literal, offset of the window in it).
    windows: Windows,
}

/// One aho-corasick searcher over distinct anchors. Leftmost-first (the
/// packed searcher needs it) reports one anchor per start, and the search
/// resumes one byte after it, so every start of an anchor is visited;
/// `family` lists, per anchor, every anchor of the group that can match at
/// that start (it, and those it is a prefix of or that are a prefix of it);
/// `members`, per anchor, the literals having it and its offset in them.
struct Short {
    searcher: Searcher,
    family: Vec<Vec<usize>>,
    members: Vec<Vec<(usize, usize)>>,
}

/// aho-corasick's packed (Teddy) searcher when it can be built: the
/// automaton searcher would rather pick a memchr prefilter for few start
/// bytes (`E: ` and `m4:`, or `:0`…`:9`) and restart at every `E` or `:`,
/// most lines of a build log; Teddy stops only where a whole fingerprint
/// matches. The automaton where Teddy is unavailable (no SIMD, too many).
enum Searcher {
    Packed(aho_corasick::packed::Searcher),
    Ac(AhoCorasick),
}

impl Finder {
    /// `None` when there are no literals (or a searcher cannot be built).
    pub(super) fn new(lits: Vec<Vec<u8>>) -> Option<Finder> {
        if lits.is_empty() {
            return None;
        }
        let mut first = Box::new([0u8; 1 << FIRST_BITS]);
        let mut windows = Windows::default();
        let mut short_lits = Vec::new();
        for (k, l) in lits.iter().enumerate() {
            if l.len() >= LONG {
                for o in 0..STRIDE {
                    let w = bytes_at(l, o, 4) as u32;
                    let n = (l.len() - o).min(8) as u8;
                    let slot = &mut first[first_slot(w)];
                    *slot = if *slot == 0 { n } else { (*slot).min(n) };
                    let m = l.len() - o;
                    let mask = if m >= 8 { u64::MAX } else { (1 << (8 * m)) - 1 };
                    windows.entry(w).or_default().push(Sampled {
                        k,
                        o,
                        word: bytes_at(l, o, m.min(8)),
                        mask,
                    });
                }
            } else {
                short_lits.push(k);
            }
        }
        let mut second = Box::new([0u64; 1 << (SECOND_BITS - 6)]);
        for (&w, list) in &windows {
            let n = first[first_slot(w)] as usize;
            for &Sampled { k, o, .. } in list {
                let h = second_slot(bytes_at(&lits[k], o, n));
                second[h / 64] |= 1 << (h % 64);
            }
        }
        // Per group (anchors of 3+ bytes, of 1–2): distinct anchors and the
        // literals having each, with the anchor's offset in them.
        let anchors = short_anchors(&lits, &short_lits);
        let mut parts: [(Vec<&[u8]>, Members); 2] = Default::default();
        for (&k, &(off, len)) in short_lits.iter().zip(&anchors) {
            let a = &lits[k][off..off + len];
            let (names, members) = &mut parts[usize::from(len < anchor::MIN_ANCHOR)];
            match names.iter().position(|&n| n == a) {
                Some(j) => members[j].push((k, off)),
                None => {
                    names.push(a);
                    members.push(vec![(k, off)]);
                }
            }
        }
        let mut short = Vec::new();
        for (names, members) in parts {
            if names.is_empty() {
                continue;
            }
            let packed = aho_corasick::packed::Config::new()
                .match_kind(aho_corasick::packed::MatchKind::LeftmostFirst)
                .builder()
                .extend(&names)
                .build();
            let searcher = match packed {
                Some(p) => Searcher::Packed(p),
                None => Searcher::Ac(
                    AhoCorasick::builder()
                        .match_kind(MatchKind::LeftmostFirst)
                        .build(&names)
                        .ok()?,
                ),
            };
            let family = names
                .iter()
                .map(|a| {
                    (0..names.len())
                        .filter(|&j| names[j].starts_with(a) || a.starts_with(names[j]))
                        .collect()
                })
                .collect();
            short.push(Short {
                searcher,
                family,
                members,
            });
        }
        Some(Finder {
            lits,
            short,
            first,
            second,
            windows,
        })
    }

    /// The second filter: `v`, the `n` bytes the first filter asked for.
    #[inline(always)]
    fn second_passes(&self, v: u64) -> bool {
        let h = second_slot(v);
        self.second[h / 64] >> (h % 64) & 1 != 0
    }

    pub(super) fn occurrences<'a>(&'a self, text: &'a [u8]) -> Occurrences<'a> {
        Occurrences {
            f: self,
            text,
            sources: vec![Source::default(); 1 + self.short.len()],
        }
    }
}

/// The anchors of the literals `ks` (all shorter than `LONG`): those build.rs
/// chose for the built-ins when every one is a built-in literal (any subset
/// of a cover stays within the budget), else chosen now.
fn short_anchors(lits: &[Vec<u8>], ks: &[usize]) -> Vec<(usize, usize)> {
    let table = super::builtin_table::SHORT_ANCHORS;
    let known: Option<Vec<(usize, usize)>> = ks
        .iter()
        .map(|&k| {
            table
                .iter()
                .find(|a| a.0 == lits[k].as_slice())
                .map(|a| (a.1, a.2))
        })
        .collect();
    known
        .unwrap_or_else(|| anchor::choose(&ks.iter().map(|&k| lits[k].clone()).collect::<Vec<_>>()))
}

#[derive(Clone, Default)]
struct Source {
    /// Where this source resumes (sampled position, or search start).
    pos: usize,
    done: bool,
    /// Key of the batch in `batch` not yet handed out.
    key: Option<usize>,
    batch: Vec<(usize, usize)>,
}

/// Batches of occurrences `(start, literal index)`. All occurrences of one
/// batch contain one position, the batch's key (an anchor's start, or a
/// sampled position), so lie in one line (literals hold no newline);
/// batches come in order of that key, so never go back a line: an
/// occurrence starting before an earlier batch's key contains its own,
/// later key, in the same line.
pub(super) struct Occurrences<'a> {
    f: &'a Finder,
    text: &'a [u8],
    /// 0: sampled long literals; 1..: the aho-corasick groups.
    sources: Vec<Source>,
}

impl Occurrences<'_> {
    /// The next batch into `out` (cleared first); false at the end.
    pub(super) fn next_batch(&mut self, out: &mut Vec<(usize, usize)>) -> bool {
        loop {
            for i in 0..self.sources.len() {
                if self.sources[i].key.is_none() && !self.sources[i].done {
                    let mut batch = std::mem::take(&mut self.sources[i].batch);
                    batch.clear();
                    let key = if i == 0 {
                        self.sample(&mut batch)
                    } else {
                        self.search(i - 1, &mut batch)
                    };
                    let src = &mut self.sources[i];
                    src.batch = batch;
                    src.key = key;
                    src.done = key.is_none();
                }
            }
            let best = (0..self.sources.len())
                .filter_map(|i| self.sources[i].key.map(|k| (k, i)))
                .min();
            let Some((_, i)) = best else {
                out.clear();
                return false;
            };
            // Swap buffers: the source refills the caller's old one.
            self.sources[i].key = None;
            std::mem::swap(out, &mut self.sources[i].batch);
            if !out.is_empty() {
                return true;
            }
        }
    }

    /// The next sampled position holding a long literal; its occurrences
    /// into `batch`.
    fn sample(&mut self, batch: &mut Vec<(usize, usize)>) -> Option<usize> {
        let text = self.text;
        let f = self.f;
        if f.windows.is_empty() || text.len() < 4 {
            return None;
        }
        if text.len() < 4 {
            return None;
        }
        let last = text.len() - 4;
        let mut p = self.sources[0].pos;
        let first = &*f.first;
        let n_at = |w: u32| first[first_slot(w)];
        // Four samples per 16-byte block, tested together (most blocks have
        // no candidate); the block is one bounds check.
        const _: () = assert!(STRIDE == 4);
        while p + 16 <= text.len() {
            let c: &[u8; 16] = text[p..p + 16].try_into().unwrap();
            let w = |o: usize| u32::from_le_bytes([c[o], c[o + 1], c[o + 2], c[o + 3]]);
            let n = [n_at(w(0)), n_at(w(4)), n_at(w(8)), n_at(w(12))];
            if n[0] | n[1] | n[2] | n[3] == 0 {
                p += 16;
                continue;
            }
            for n in n {
                let n = n as usize;
                if n != 0
                    && p + n <= text.len()
                    && f.second_passes(bytes_at(text, p, n))
                    && self.candidate(p, bytes_at(text, p, n), batch)
                {
                    self.sources[0].pos = p + STRIDE;
                    return Some(p);
                }
                p += STRIDE;
            }
        }
        while p <= last {
            let n = f.first[first_slot(bytes_at(text, p, 4) as u32)] as usize;
            if n != 0
                && p + n <= text.len()
                && f.second_passes(bytes_at(text, p, n))
                && self.candidate(p, bytes_at(text, p, n), batch)
            {
                self.sources[0].pos = p + STRIDE;
                return Some(p);
            }
            p += STRIDE;
        }
        self.sources[0].pos = p;
        None
    }

    /// The long literals around sampled position `p` into `batch`; whether
    /// any. `v`: the bytes at `p` the first filter asked for (4..=8).
    /// Not inlined: most sampled windows that pass the first filter fail
    /// the second, tested in the loop (a call each cost ~25 instructions).
    #[inline(never)]
    fn candidate(&self, p: usize, v: u64, batch: &mut Vec<(usize, usize)>) -> bool {
        let (text, f) = (self.text, self.f);
        let Some(list) = f.windows.get(&(v as u32)) else {
            return false;
        };
        let word = bytes_at(text, p, (text.len() - p).min(8));
        for e in list {
            let Some(s) = p.checked_sub(e.o) else {
                continue;
            };
            let l = &f.lits[e.k];
            if word & e.mask == e.word && text.get(s..s + l.len()) == Some(l.as_slice()) {
                batch.push((s, e.k));
            }
        }
        !batch.is_empty()
    }

    /// The next start of an anchor of group `g`; every literal having one of
    /// the anchors starting there, found around it, into `batch`.
    fn search(&mut self, g: usize, batch: &mut Vec<(usize, usize)>) -> Option<usize> {
        let short = &self.f.short[g];
        let src = &mut self.sources[1 + g];
        if src.pos >= self.text.len() {
            return None;
        }
        let m = match &short.searcher {
            Searcher::Packed(p) => p.find_in(
                self.text,
                aho_corasick::Span::from(src.pos..self.text.len()),
            )?,
            Searcher::Ac(ac) => ac.find(aho_corasick::Input::new(self.text).range(src.pos..))?,
        };
        let s = m.start();
        src.pos = s + 1;
        for &a in &short.family[m.pattern().as_usize()] {
            for &(k, off) in &short.members[a] {
                let Some(start) = s.checked_sub(off) else {
                    continue;
                };
                let l = &self.f.lits[k];
                // Literals here are under `LONG` bytes: a byte loop is
                // cheaper than a `memcmp` call.
                if self
                    .text
                    .get(start..start + l.len())
                    .is_some_and(|t| t.iter().zip(l).all(|(a, b)| a == b))
                {
                    batch.push((start, k));
                }
            }
        }
        Some(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// xorshift: deterministic, dependency-free.
    fn rng(state: &mut u64) -> u64 {
        *state ^= *state << 13;
        *state ^= *state >> 7;
        *state ^= *state << 17;
        *state
    }

    /// Every occurrence of every literal, exactly once, against a naive
    /// search; batches never go back a line. Small alphabets so literals
    /// overlap, share windows and prefixes, and sit at the text's ends.
    #[test]
    fn finds_every_occurrence_once_in_line_order() {
        let mut s = 0x2545_F491_4F6C_DD1D;
        const ALPHABET: &[u8] = b"ab \n:e\xC3\xA9";
        for round in 0..3000 {
            let pick = |s: &mut u64, n: usize| -> Vec<u8> {
                (0..n)
                    .map(|_| ALPHABET[(rng(s) % 7) as usize])
                    .filter(|&b| b != b'\n')
                    .collect()
            };
            let mut lits: Vec<Vec<u8>> = Vec::new();
            for _ in 0..1 + rng(&mut s) % 12 {
                let n = 1 + (rng(&mut s) % 14) as usize;
                let l = pick(&mut s, n);
                if !l.is_empty() && !lits.contains(&l) {
                    lits.push(l);
                }
            }
            if lits.is_empty() {
                continue;
            }
            let mut text = Vec::new();
            for _ in 0..rng(&mut s) % 40 {
                if rng(&mut s).is_multiple_of(3) {
                    text.extend_from_slice(&lits[(rng(&mut s) % lits.len() as u64) as usize]);
                } else {
                    let n = (rng(&mut s) % 5) as usize;
                    text.extend(pick(&mut s, n));
                }
                if rng(&mut s).is_multiple_of(4) {
                    text.push(b'\n');
                }
            }
            let f = Finder::new(lits.clone()).unwrap();
            let mut got = Vec::new();
            let mut occ = f.occurrences(&text);
            let mut batch = Vec::new();
            let mut last_line = 0;
            while occ.next_batch(&mut batch) {
                let line = |p: usize| text[..p].iter().filter(|&&b| b == b'\n').count();
                let l0 = line(batch[0].0);
                assert!(batch.iter().all(|&(p, _)| line(p) == l0), "round {round}");
                assert!(l0 >= last_line, "round {round}: went back a line");
                last_line = l0;
                got.extend_from_slice(&batch);
            }
            got.sort_unstable();
            let mut want = Vec::new();
            for (k, l) in lits.iter().enumerate() {
                for p in 0..text.len() {
                    if text[p..].starts_with(l) {
                        want.push((p, k));
                    }
                }
            }
            want.sort_unstable();
            assert_eq!(got, want, "round {round}: {lits:?} in {text:?}");
        }
    }

    /// Every literal of the built-in table (and of the table doubled by a
    /// user rule that adds short ones) found at every offset of a text, on
    /// its own line and inside others, exactly once: anchors never lose an
    /// occurrence, whatever their offset in the literal.
    #[test]
    fn every_builtin_literal_is_found_at_every_offset() {
        let set = crate::rules::RuleSet::compile(vec![]).unwrap();
        let builtin = set.required_literals();
        let mut more = builtin.clone();
        more.extend([b"zq".to_vec(), b"q".to_vec(), b"qzq".to_vec()]);
        // The built-ins alone take build.rs's anchors; with more, chosen now.
        for lits in [builtin, more] {
            every_offset(&lits);
        }
    }

    fn every_offset(lits: &[Vec<u8>]) {
        let f = Finder::new(lits.to_vec()).unwrap();
        for (k, l) in lits.iter().enumerate() {
            for pad in 0..20 {
                for around in [&b"."[..], b"\n", b"xx xx"] {
                    let mut text = around.repeat(pad);
                    let at = text.len();
                    text.extend_from_slice(l);
                    text.extend_from_slice(&around.repeat(pad % 3));
                    let mut occ = f.occurrences(&text);
                    let mut batch = Vec::new();
                    let mut n = 0;
                    while occ.next_batch(&mut batch) {
                        n += batch.iter().filter(|&&o| o == (at, k)).count();
                    }
                    assert_eq!(n, 1, "{:?} at {at}", String::from_utf8_lossy(l));
                }
            }
        }
    }
}
