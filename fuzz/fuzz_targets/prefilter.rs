//! The literal prefilter never misses: on any text, a rule the prefilter
//! would not run (`RuleSet::prefilter_candidates` false) has no match, for
//! each line on its own and for the whole text. The table is the built-ins
//! plus case-insensitive user rules (`i` without and with `u`), whose case
//! variants fill literal sets (`(?i)error`'s 32 variants once got
//! an empty set and the rule never ran).
//!
//! Input: the first byte picks the reading. Even: the rest as text (lossy
//! UTF-8). Odd: each byte picks a piece — a required literal of the table
//! (whole, cut, or case-flipped), a Unicode lookalike or space (U+3000,
//! U+0085, U+FEFF, NBSP, ſ, K, ß, İ, ı, fullwidth letters) or an ASCII
//! byte — so lines hold literals and near-literals, not just noise.
#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use toolguard_core::rules::{compile_rule, Action, Rule, RuleSet, When};

type Matcher = Box<dyn Fn(&str) -> bool + Send + Sync>;

struct Table {
    set: RuleSet,
    /// Each rule compiled on its own, the oracle.
    full: Vec<Matcher>,
    pieces: Vec<String>,
}

const USER: &[(&str, &str, &str)] = &[
    ("user-error", "error:?[^\\n]*\\n[^\\n]*", "i"),
    ("user-warn", r"\bwarn(ing)?\b", "i"),
    ("user-fail", r"^\s*(?:failed|fatal|panic)\b", "im"),
    ("user-kelvin", r"\d+ ?k\b|stra(?:ss|ß)e|ſtop", "iu"),
    ("user-wide", r"\u3000error\u3000|ＥＲＲＯＲ|İstanbul", "i"),
    ("user-class", r"^[^\s:]+:\d+: [Ee][Rr][Rr][Oo][Rr]\b", "m"),
];

const UNICODE: &[&str] = &[
    "\u{3000}", "\u{85}", "\u{feff}", "\u{a0}", "\u{2028}", "\u{2029}", "\r", "\n", "\t", " ",
    "ſ", "\u{212a}", "ß", "ẞ", "İ", "ı", "Ｅ", "ｅ", "ＥＲＲＯＲ", "é", "✖", "ℹ", "✘", "😀",
];

fn table() -> &'static Table {
    static T: OnceLock<Table> = OnceLock::new();
    T.get_or_init(|| {
        let user: Vec<Rule> = USER
            .iter()
            .map(|&(id, pattern, flags)| Rule {
                id: id.into(),
                pattern: pattern.into(),
                flags: flags.into(),
                action: Action::Error,
                when: When::Always,
                message: id.into(),
                reason: String::new(),
                unless: None,
            })
            .collect();
        let set = RuleSet::compile(user).expect("fuzz table compiles");
        let full = set
            .rules()
            .iter()
            .map(|r| {
                let re = compile_rule(r).expect("rule compiles");
                Box::new(move |t: &str| re.is_match(t)) as Matcher
            })
            .collect();
        let mut pieces: Vec<String> = Vec::new();
        for l in set.required_literals() {
            let l = String::from_utf8_lossy(&l).into_owned();
            let half: String = l.chars().take(l.chars().count() / 2).collect();
            pieces.extend([l.to_uppercase(), l.to_lowercase(), half, l]);
        }
        pieces.extend(UNICODE.iter().map(|s| s.to_string()));
        Table { set, full, pieces }
    })
}

const ASCII: &[u8] = b"aeEr:0123 \t/.-_[](){}'\"#=*!^$";

fn text_of(data: &[u8], pieces: &[String]) -> String {
    let Some((&mode, rest)) = data.split_first() else {
        return String::new();
    };
    if mode % 2 == 0 {
        return String::from_utf8_lossy(rest).into_owned();
    }
    let mut out = String::new();
    for &b in rest {
        if (b as usize) < ASCII.len() {
            out.push(ASCII[b as usize] as char);
        } else {
            out.push_str(&pieces[(b as usize - ASCII.len()) * 7 % pieces.len()]);
        }
    }
    out
}

fuzz_target!(|data: &[u8]| {
    let t = table();
    let text = text_of(data, &t.pieces);
    let check = |part: &str| {
        let passes = t.set.prefilter_candidates(part);
        for (i, r) in t.set.rules().iter().enumerate() {
            if !passes[i] && r.action != Action::Off {
                assert!(
                    !(t.full[i])(part),
                    "prefilter skipped {} on {part:?}, which it matches",
                    r.id
                );
            }
        }
    };
    check(&text);
    if text.contains('\n') {
        for line in text.split('\n') {
            check(line);
        }
    }
});
