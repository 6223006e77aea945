//! Required literals of a rule: a set of strings such that every match of the
//! pattern contains at least one of them. The scanner searches all rules'
//! literals in one multi-literal pass and runs a rule's regex only where one
//! of its literals occurs, so on ordinary output most rules never run at all.
//!
//! Computed from the translated pattern's HIR. Only sound sets are produced
//! (a wrong set would make a rule miss matches); when in doubt, `None`, and
//! the rule is always run. Literals never contain `\n`, so each literal
//! occurrence lies inside one line (the scanner works line by line).

use regex_syntax::hir::{Class, Hir, HirKind};

/// Largest cross product kept (`(?i)` words, classes times classes): their
/// members are short and alike, which the shared searcher likes least.
const MAX_SET: usize = 16;
/// Largest union kept (an alternation of texts: `c-library-error`'s ~130
/// errno messages). Long, distinct literals cost the sampled search little
/// (`prefilter.rs`), far less than a weak literal (`: `) that every line holds.
const MAX_UNION: usize = 256;
/// Longest literal kept while combining.
const MAX_LEN: usize = 64;
/// Characters a class may have and still count as a literal choice (`[Ee]`,
/// `\d`: `:\d+` requires `:0`…`:9`, far rarer than `:`).
const MAX_CLASS: usize = 10;

type Set = Vec<Vec<u8>>;

/// What is known about the strings one HIR node matches.
struct Info {
    /// Every match is exactly one of these strings.
    exact: Option<Set>,
    /// Every match contains at least one of these (non-empty) strings.
    required: Option<Set>,
    /// Every match even starts with one of `required`.
    prefix: bool,
    /// Every match starts with one of these strings (the rest unknown):
    /// `\d+` starts with a digit, so a literal before it can be extended.
    starts: Option<Set>,
}

impl Info {
    fn unknown() -> Info {
        Info {
            exact: None,
            required: None,
            prefix: false,
            starts: None,
        }
    }
    fn exact(set: Set) -> Info {
        // One string is its own minimal set (most nodes: every literal).
        let (required, prefix) = if set.len() == 1 && usable(&set) {
            (Some(set.clone()), true)
        } else if usable(&set) {
            let (m, kept_all) = minimize_keeping(set.clone());
            (Some(m), kept_all)
        } else {
            (None, false)
        };
        Info {
            exact: Some(set),
            required,
            prefix,
            starts: None,
        }
    }
}

/// A set is usable as required literals when it has no empty string (the
/// empty string occurs everywhere) and is not empty (an empty set would
/// claim the node never matches; not worth the risk).
fn usable(set: &Set) -> bool {
    !set.is_empty() && set.iter().all(|s| !s.is_empty())
}

/// Literals per rule the shared searcher should get at most: the packed
/// (Teddy) searcher handles a few dozen literals in all, beyond that the
/// multi-literal pass drops to a plain automaton at a fraction of the speed.
const FEW: usize = 3;

/// The required literals of a whole pattern, or `None` when none are known.
#[cfg(test)]
pub(super) fn required_literals(hir: &Hir) -> Option<Vec<Vec<u8>>> {
    required_literals_at(hir).map(|(set, _)| set)
}

/// `required_literals`, and whether every match starts at a line start
/// (after `\n` or `\r`, or at the text start) with one of them: then an
/// occurrence elsewhere in a line cannot begin a match and needs no check.
pub(super) fn required_literals_at(hir: &Hir) -> Option<(Vec<Vec<u8>>, bool)> {
    usable_or_none(required_literals_unchecked(hir))
}

fn required_literals_unchecked(hir: &Hir) -> Option<(Set, bool)> {
    let i = info(hir);
    let set = i.required?;
    // Only the short literals share the packed searcher's budget; the
    // sampled ones (`prefilter.rs`) cost about the same however many there
    // are, and a piece covering several of them is shorter, so commoner:
    // `program-message`'s three `…directory` endings became `" directory"`,
    // which every `make: Leaving directory` line holds (2,000 lines in a
    // MiB of build log, each verified).
    let (long, short): (Set, Set) = set
        .iter()
        .cloned()
        .partition(|l| l.len() >= super::anchor::SAMPLED);
    if short.len() > FEW {
        if let Some(mut c) = cover(&short) {
            c.extend(long);
            return Some((minimize(c), false));
        }
    }
    Some((set, i.prefix && starts_line(hir)))
}

/// The one gate every set passes before the scanner trusts it: an empty set
/// would claim the rule never matches, and an empty member occurs
/// everywhere; either way the rule must run unfiltered instead.
fn usable_or_none(found: Option<(Set, bool)>) -> Option<(Set, bool)> {
    found.filter(|(set, _)| usable(set))
}

/// Every match begins where `^` (any flavour) holds.
pub(super) fn starts_line(hir: &Hir) -> bool {
    use regex_syntax::hir::Look;
    match hir.kind() {
        HirKind::Look(Look::Start | Look::StartLF | Look::StartCRLF) => true,
        HirKind::Concat(hs) => hs.first().is_some_and(starts_line),
        HirKind::Alternation(hs) => hs.iter().all(starts_line),
        HirKind::Capture(c) => starts_line(&c.sub),
        _ => false,
    }
}

/// At most `FEW` substrings such that every literal of `set` contains one
/// (so every match still contains one): greedy set cover, preferring the
/// heaviest substrings that still cover (`shell-exec-failed`'s ten endings
/// become `" denied"`, `"directory"`-like pieces).
fn cover(set: &Set) -> Option<Set> {
    // Heavy pieces first: a common word (`" directory"`, 19) would put
    // every `make: Entering directory` line through verification.
    [20, 14, 11]
        .into_iter()
        .filter_map(|min_weight| cover_with(set, min_weight))
        .find(|c| c.len() < set.len())
}

/// Which literals of a set a piece covers, one bit each.
type Mask = u128;

/// Greedy cover by pieces of at least `min_weight`; sets of more than
/// `Mask::BITS` literals are left as they are. (With a `u32` mask and the
/// test `len > 32`, a set of exactly 32 — `(?i)error` without `u` has
/// 2^5 case variants — made `1 << 32` wrap to an empty "all covered" mask in
/// release builds and the rule's literal set came out empty: the scanner
/// then never ran the rule. Issue 25, the U+3000 differential mismatch.)
fn cover_with(set: &Set, min_weight: usize) -> Option<Set> {
    if set.is_empty() || set.len() > Mask::BITS as usize {
        return None;
    }
    // From each start, the shortest substring of at least that weight:
    // short pieces are the ones several literals share. A piece of one
    // literal that occurs in another is also that one's piece from there
    // (same bytes, same weights), so which literals hold a piece is read off
    // the (piece, literal) pairs, without substring searches.
    let mut pairs: Vec<(&[u8], usize)> = Vec::new();
    for (k, l) in set.iter().enumerate() {
        for i in 0..l.len() {
            let mut w = 0;
            for j in i..l.len() {
                w += byte_weight(l[j]);
                if w >= min_weight {
                    pairs.push((&l[i..=j], k));
                    break;
                }
            }
        }
    }
    pairs.sort_unstable();
    let mut pieces: Vec<&[u8]> = Vec::new();
    let mut masks: Vec<Mask> = Vec::new();
    for (p, k) in pairs {
        if pieces.last() != Some(&p) {
            pieces.push(p);
            masks.push(0);
        }
        *masks.last_mut().unwrap() |= 1 << k;
    }
    // Every literal's bit; `MAX >> (BITS - len)`, never a shift by the width.
    let mut uncovered: Mask = Mask::MAX >> (Mask::BITS as usize - set.len());
    let mut chosen: Set = Vec::new();
    while uncovered != 0 {
        let (best, mask) = pieces
            .iter()
            .zip(&masks)
            .max_by_key(|(p, &m)| ((m & uncovered).count_ones(), p.len()))?;
        let covered_now = mask & uncovered;
        if covered_now == 0 {
            return None;
        }
        let covered: Vec<&[u8]> = (0..set.len())
            .filter(|k| covered_now & (1 << k) != 0)
            .map(|k| set[k].as_slice())
            .collect();
        uncovered &= !mask;
        chosen.push(extend(best, &covered));
    }
    Some(minimize(chosen))
}

/// Grows `piece` while every literal it was chosen for has the same byte
/// next to (its first occurrence of) it: `RROR` in `ERROR: …` becomes `ERROR: `.
fn extend(piece: &[u8], lits: &[&[u8]]) -> Vec<u8> {
    let at: Vec<usize> = lits
        .iter()
        .map(|l| l.windows(piece.len()).position(|w| w == piece).unwrap())
        .collect();
    let (mut left, mut right) = (0, piece.len());
    loop {
        let b = lits[0].get(at[0] + right);
        if b.is_some() && lits.iter().zip(&at).all(|(l, &a)| l.get(a + right) == b) {
            right += 1;
        } else {
            break;
        }
    }
    while at.iter().all(|&a| a > left) {
        let b = lits[0][at[0] - left - 1];
        if lits.iter().zip(&at).all(|(l, &a)| l[a - left - 1] == b) {
            left += 1;
        } else {
            break;
        }
    }
    lits[0][at[0] - left..at[0] + right].to_vec()
}

fn byte_weight(b: u8) -> usize {
    match b {
        b' ' => 1,
        b'a'..=b'z' => 2,
        _ => 4,
    }
}

/// Whether some match of the pattern could contain a `\n` (then the pattern
/// is verified on the whole text, not line by line).
pub(super) fn may_match_newline(hir: &Hir) -> bool {
    match hir.kind() {
        HirKind::Empty | HirKind::Look(_) => false,
        HirKind::Literal(l) => l.0.contains(&b'\n'),
        HirKind::Class(Class::Unicode(c)) => c
            .ranges()
            .iter()
            .any(|r| r.start() <= '\n' && '\n' <= r.end()),
        HirKind::Class(Class::Bytes(c)) => c
            .ranges()
            .iter()
            .any(|r| r.start() <= b'\n' && b'\n' <= r.end()),
        HirKind::Repetition(r) => r.max != Some(0) && may_match_newline(&r.sub),
        HirKind::Capture(c) => may_match_newline(&c.sub),
        HirKind::Concat(hs) | HirKind::Alternation(hs) => hs.iter().any(may_match_newline),
    }
}

/// The most `\n`s one match can hold, or `None` when unbounded (`(?:\n.*)*`).
/// A match holding an occurrence of a required literal then starts at most
/// that many lines before the occurrence's line (`scan.rs` starts a
/// multi-line rule's search there instead of at the text start).
pub(super) fn max_newlines(hir: &Hir) -> Option<usize> {
    match hir.kind() {
        HirKind::Empty | HirKind::Look(_) => Some(0),
        HirKind::Literal(l) => Some(l.0.iter().filter(|&&b| b == b'\n').count()),
        HirKind::Class(_) => Some(usize::from(may_match_newline(hir))),
        HirKind::Repetition(r) => match (max_newlines(&r.sub)?, r.max) {
            (0, _) | (_, Some(0)) => Some(0),
            (n, Some(m)) => n.checked_mul(m as usize),
            (_, None) => None,
        },
        HirKind::Capture(c) => max_newlines(&c.sub),
        HirKind::Concat(hs) => hs
            .iter()
            .try_fold(0usize, |sum, h| sum.checked_add(max_newlines(h)?)),
        HirKind::Alternation(hs) => hs
            .iter()
            .try_fold(0usize, |most, h| Some(most.max(max_newlines(h)?))),
    }
}

fn info(hir: &Hir) -> Info {
    match hir.kind() {
        HirKind::Empty | HirKind::Look(_) => Info::exact(vec![vec![]]),
        HirKind::Literal(l) => {
            if l.0.contains(&b'\n') {
                // The longest `\n`-free piece is still required.
                let piece =
                    l.0.split(|&b| b == b'\n')
                        .max_by_key(|p| p.len())
                        .unwrap_or(&[]);
                Info {
                    exact: None,
                    required: (!piece.is_empty()).then(|| vec![piece.to_vec()]),
                    prefix: false,
                    starts: None,
                }
            } else {
                Info::exact(vec![l.0.to_vec()])
            }
        }
        HirKind::Class(c) => class_set(c).map_or_else(Info::unknown, Info::exact),
        HirKind::Repetition(r) => {
            if r.max == Some(0) {
                return Info::exact(vec![vec![]]);
            }
            let sub = info(&r.sub);
            match (r.min, r.max) {
                (1, Some(1)) => sub,
                // `x?`: the sub-expression's strings or nothing.
                (0, Some(1)) => match sub.exact {
                    Some(mut set) if set.len() < MAX_SET => {
                        set.push(vec![]);
                        Info::exact(dedup(set))
                    }
                    _ => Info::unknown(),
                },
                (0, _) => Info::unknown(),
                // At least one copy of the sub-expression is in every match,
                // and every match starts with one.
                _ => Info {
                    exact: None,
                    starts: sub.exact.or(sub.starts),
                    required: sub.required,
                    prefix: sub.prefix,
                },
            }
        }
        HirKind::Capture(c) => info(&c.sub),
        HirKind::Concat(hs) => concat(hs),
        HirKind::Alternation(hs) => alternation(hs),
    }
}

/// Small classes without `\n` as their UTF-8 encodings.
fn class_set(c: &Class) -> Option<Set> {
    let mut out = Vec::new();
    match c {
        Class::Unicode(c) => {
            for r in c.ranges() {
                for ch in r.start()..=r.end() {
                    if out.len() == MAX_CLASS || ch == '\n' {
                        return None;
                    }
                    out.push(ch.to_string().into_bytes());
                }
            }
        }
        Class::Bytes(c) => {
            for r in c.ranges() {
                for b in r.start()..=r.end() {
                    if out.len() == MAX_CLASS || b == b'\n' {
                        return None;
                    }
                    out.push(vec![b]);
                }
            }
        }
    }
    (!out.is_empty()).then_some(out)
}

/// A concatenation: runs of exactly-known children are multiplied out
/// (`" "` then `failed|errors?` gives `" failed"`, `" error"`); every run and
/// every other child's required set is a candidate, and the best one wins.
fn concat(hs: &[Hir]) -> Info {
    // (set, whether every match of the concatenation starts with it)
    let mut candidates: Vec<(Set, bool)> = Vec::new();
    let mut run: Set = vec![vec![]];
    // Still in the first run: nothing non-exact or cut off before it.
    let mut at_start = true;
    for h in hs {
        let child = info(h);
        match child.exact {
            Some(set) => match cross(&run, &set) {
                Some(joined) => run = joined,
                None => {
                    candidates.push((std::mem::replace(&mut run, set), at_start));
                    at_start = false;
                }
            },
            None => {
                let only_empty = run == [Vec::<u8>::new()];
                let before = std::mem::replace(&mut run, vec![vec![]]);
                // The run followed by how the child starts (`:` then `\d+`
                // gives `:0`…`:9`): still adjacent, still in every match.
                // Both compete: the extension is rarer, but may be ten times
                // as many literals (`error[E` beats `error[E0`…`error[E9`).
                if let Some(extended) = child.starts.as_ref().and_then(|s| cross(&before, s)) {
                    candidates.push((extended, at_start));
                }
                candidates.push((before, at_start));
                if let Some(r) = child.required {
                    candidates.push((r, at_start && only_empty && child.prefix));
                }
                at_start = false;
            }
        }
    }
    if at_start {
        return Info::exact(run);
    }
    candidates.push((run, false));
    let best = candidates
        .into_iter()
        .filter(|(c, _)| usable(c))
        .map(|(c, prefix)| {
            let (m, kept_all) = minimize_keeping(c);
            (m, prefix && kept_all)
        })
        .max_by_key(|(c, _)| score(c));
    Info {
        exact: None,
        prefix: best.as_ref().is_some_and(|b| b.1),
        required: best.map(|b| b.0),
        starts: None,
    }
}

/// An alternation: every branch must have a set; their union is required.
fn alternation(hs: &[Hir]) -> Info {
    let infos: Vec<Info> = hs.iter().map(info).collect();
    if infos.iter().all(|i| i.exact.is_some()) {
        let union: Set = infos
            .iter()
            .flat_map(|i| i.exact.clone().unwrap())
            .collect();
        if union.len() <= MAX_UNION {
            return Info::exact(dedup(union));
        }
    }
    let mut union = Vec::new();
    let mut prefix = true;
    for i in infos {
        match i.required {
            Some(r) => union.extend(r),
            None => return Info::unknown(),
        }
        prefix &= i.prefix;
    }
    let (union, kept_all) = minimize_keeping(union);
    Info {
        exact: None,
        prefix: prefix && kept_all,
        required: (union.len() <= MAX_UNION).then_some(union),
        starts: None,
    }
}

fn cross(a: &Set, b: &Set) -> Option<Set> {
    if a.len() * b.len() > MAX_SET {
        return None;
    }
    let mut out = Vec::with_capacity(a.len() * b.len());
    for x in a {
        for y in b {
            if x.len() + y.len() > MAX_LEN {
                return None;
            }
            out.push([x.as_slice(), y.as_slice()].concat());
        }
    }
    Some(dedup(out))
}

fn dedup(mut set: Set) -> Set {
    set.sort();
    set.dedup();
    set
}

/// `minimize`, and whether it kept every distinct string (dropping one
/// because it contains another breaks "every match starts with a member").
fn minimize_keeping(set: Set) -> (Set, bool) {
    let set = dedup(set);
    let n = set.len();
    let m = minimize(set);
    let kept_all = m.len() == n;
    (m, kept_all)
}

/// Drops strings that contain another member: a match containing the longer
/// one contains the shorter one too, so the set stays sound and gets smaller.
fn minimize(set: Set) -> Set {
    let set = dedup(set);
    // Which bytes each string has: `t` can only be inside `s` if its bytes
    // are a subset of `s`'s, which rules out most pairs of a big union
    // (`c-library-error`'s 130 texts) without a substring search.
    let bytes: Vec<[u64; 4]> = set
        .iter()
        .map(|s| {
            let mut m = [0u64; 4];
            for &b in s {
                m[usize::from(b >> 6)] |= 1 << (b & 63);
            }
            m
        })
        .collect();
    let within = |t: usize, s: usize| (0..4).all(|k| bytes[t][k] & !bytes[s][k] == 0);
    (0..set.len())
        .filter(|&s| {
            !(0..set.len()).any(|t| {
                set[t].len() < set[s].len()
                    && within(t, s)
                    && set[s].windows(set[t].len()).any(|w| w == set[t].as_slice())
            })
        })
        .map(|s| set[s].clone())
        .collect()
}

/// Rarer is better. In build output lowercase words and spaces are common,
/// capitals, digits and punctuation less so: a literal's weight sums its
/// bytes (space 1, lowercase 2, other 4), a set is as weak as its lightest
/// literal up to a cap (beyond ~7 letters a literal is rare enough), then
/// fewer literals win: each costs the shared searcher speed.
fn score(set: &Set) -> (usize, std::cmp::Reverse<usize>) {
    let weight = |l: &Vec<u8>| l.iter().map(|&b| byte_weight(b)).sum::<usize>();
    (
        set.iter().map(weight).min().unwrap_or(0).min(14),
        std::cmp::Reverse(set.len()),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lits(pattern: &str) -> Option<Vec<String>> {
        let hir = regex_syntax::parse(pattern).unwrap();
        required_literals(&hir).map(|s| {
            s.into_iter()
                .map(|b| String::from_utf8(b).unwrap())
                .collect()
        })
    }

    #[test]
    fn literals_of_common_shapes() {
        assert_eq!(lits(r"(?m)^curl: \(\d+\) "), Some(vec!["curl: (".into()]));
        assert_eq!(
            lits(r"(?m)^(?:=+ )?\d+ (?:failed|errors?) in \d+s"),
            Some(vec![
                " error in ".into(),
                " errors in ".into(),
                " failed in ".into()
            ])
        );
        // Literals of the sampled length stay as they are (not covered by
        // the commoner `Found `): the sampled pass takes any number.
        assert_eq!(
            lits(r"(?m)^Found [1-9]\d* errors?\b"),
            Some((1..=9).map(|d| format!("Found {d}")).collect())
        );
        // A cover still applies to the short ones (the packed searcher's
        // budget), and keeps the long ones beside its pieces.
        assert_eq!(
            lits(r"ERROR1|ERROR2|ERROR3|ERROR4|Long enough"),
            Some(vec!["ERROR".into(), "Long enough".into()])
        );
        // Not `" directory"` for the three endings (every `make: Entering
        // directory` line holds it; before, 2,000 lines a MiB of build log).
        assert_eq!(
            lits(
                r"(?m)^\w+: \w(?:o such file or directory|ot a directory|s a directory|an't |annot )"
            ),
            Some(vec![
                "an't ".into(),
                "annot ".into(),
                "o such file or directory".into(),
                "ot a directory".into(),
                "s a directory".into()
            ])
        );
        assert_eq!(
            lits(r"ab|c(?:d|e)"),
            Some(vec!["ab".into(), "cd".into(), "ce".into()])
        );
        assert_eq!(
            lits(r"(?i)ab"),
            Some(vec!["AB".into(), "Ab".into(), "aB".into(), "ab".into()])
        );
        // Optional or unbounded-from-zero parts give nothing; a branch with no
        // literal spoils the whole alternation.
        assert_eq!(lits(r"a?"), None);
        assert_eq!(lits(r"\d+|abc"), None);
        assert_eq!(lits(r"[a-z]+"), None);
        // `\n` is never inside a literal.
        assert_eq!(
            lits("panic: \n\ngoroutine "),
            Some(vec!["goroutine ".into()])
        );
    }

    #[test]
    fn line_start_anchoring() {
        let at = |p: &str| required_literals_at(&regex_syntax::parse(p).unwrap()).map(|x| x.1);
        assert_eq!(at(r"(?m)^curl: \(\d+\) "), Some(true));
        assert_eq!(
            at(r"(?mR)^(?:fatal: |error: (?:pathspec '|src refspec ))"),
            Some(true)
        );
        // A later literal wins (one literal beats two): not at the start.
        assert_eq!(at(r"(?m)^(?:fatal: |error: ).*\bdisk full"), Some(false));
        // The literal is not where the match starts, or the start is not `^`.
        assert_eq!(at(r"(?m)^\d+ failed"), Some(false));
        assert_eq!(at(r"curl: \("), Some(false));
        assert_eq!(at(r"(?m)^ab|cd"), Some(false));
        // Minimizing {"ab", "xab"} to {"ab"} loses "starts with".
        assert_eq!(at(r"(?m)^(?:ab|xab)"), Some(false));
    }

    /// Every case variant of `word` (what `i` without `u` makes of it).
    fn case_variants(word: &str) -> Set {
        let mut out: Set = vec![vec![]];
        for b in word.bytes() {
            out = out
                .iter()
                .flat_map(|p| {
                    let mut up = p.clone();
                    up.push(b.to_ascii_uppercase());
                    let mut low = p.clone();
                    low.push(b.to_ascii_lowercase());
                    [up, low]
                })
                .collect();
        }
        out
    }

    /// A cover keeps the set's promise: every literal contains one of its
    /// pieces, and it is never empty. Sizes around the mask width: 32
    /// (`error`'s case variants) overflowed the `u32` mask and gave an empty
    /// cover, so the scanner never ran the rule.
    #[test]
    fn cover_covers_every_literal_at_any_set_size() {
        let mut sets: Vec<Set> = ["error", "failed", "warning", "no such", "exit st"]
            .iter()
            .map(|w| case_variants(w))
            .collect();
        for n in [1, 2, 5, 17, 31, 32, 33, 63, 64, 65, 127, 128, 129, 300] {
            sets.push(
                (0..n)
                    .map(|i| format!("lit{i:04}: error").into_bytes())
                    .collect(),
            );
            sets.push((0..n).map(|i| format!("{i}x{i}").into_bytes()).collect());
        }
        for set in sets {
            let Some(c) = cover(&set) else { continue };
            assert!(usable(&c), "{} literals: unusable cover {c:?}", set.len());
            for l in &set {
                assert!(
                    c.iter()
                        .any(|p| l.windows(p.len()).any(|w| w == p.as_slice())),
                    "{} literals: {:?} holds no piece of {c:?}",
                    set.len(),
                    String::from_utf8_lossy(l)
                );
            }
        }
    }

    /// Whatever the pattern, the set handed to the scanner is usable: an
    /// empty set (never matches) or an empty member (everywhere) never
    /// leaves this module.
    #[test]
    fn required_sets_are_never_empty() {
        assert_eq!(usable_or_none(Some((vec![], true))), None);
        assert_eq!(
            usable_or_none(Some((vec![b"a".to_vec(), vec![]], false))),
            None
        );
        for p in [
            r"(?i)error",
            r"(?i)error:?[^\n]*\n[^\n]*",
            r"(?i)warning|failed|fatal",
            r"(?i)\bwarn(ing)?\b",
            r"(?iu)skip|kelvin",
            "\u{3000}+x",
            r"[eE][rR][rR][oO][rR]",
        ] {
            let hir = regex_syntax::parse(p).unwrap();
            if let Some((set, _)) = required_literals_at(&hir) {
                assert!(usable(&set), "{p}: {set:?}");
            }
        }
    }

    #[test]
    fn newline_detection() {
        let nl = |p: &str| may_match_newline(&regex_syntax::parse(p).unwrap());
        assert!(!nl(r"(?m)^a[^\n]*$"));
        assert!(nl(r"a\s"));
        assert!(nl(r"(?s)a.b"));
        assert!(!nl(r"a.b"));
        assert!(nl("a\nb"));
    }
}
