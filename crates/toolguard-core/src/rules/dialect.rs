//! JavaScript regex source + flags → Rust `regex` syntax, preserving meaning or
//! rejecting. Rule patterns are written by JavaScript users and also run in the
//! pure-TS reference engine with `RegExp`, so both readings must agree.
//!
//! How meaning is kept:
//! - Every character class is computed here as an explicit set of code points
//!   and emitted as `\x{…}` ranges, so Rust's nested-class and set-operation
//!   syntax (`[`, `&&`, `--`, `~~`) can never trigger, `[]` matches nothing and
//!   `[^]` matches anything.
//! - `\d \w \s` and their negations are JavaScript's sets (ASCII digits and
//!   word characters; the exact JS whitespace + line-terminator set for `\s`).
//!   `\b`/`\B` become ASCII `(?-u:\b)`/`(?-u:\B)`.
//! - `.` is "not `\n \r U+2028 U+2029`" (anything with `s`).
//! - `^`/`$` are input ends without `m`; with `m` they are `(?mR:^)`/`(?mR:$)`
//!   (CRLF mode, so a line ending in `\r\n` ends before the `\r` as in JS).
//! - `i` without `u` is the JS spec's `Canonicalize` (uppercase, single
//!   code unit, never non-ASCII → ASCII) applied here to every literal and
//!   class, so `k` does not match the Kelvin sign and `s` not `ſ`. `i` with `u`
//!   is simple case folding, which is what Rust's `(?i)` implements.
//! - Groups are emitted non-capturing: captures are never read (backreferences
//!   are rejected and a match is only used for its start), and it keeps Rust's
//!   fastest engines eligible and sidesteps group-name syntax differences.
//!
//! Rejected (JavaScript meaning not reproducible by a linear-time engine, or a
//! JS-only reading that would silently change meaning): lookahead and
//! lookbehind, backreferences (`\1`, `\k<n>`), legacy octal escapes,
//! identity escapes of letters/digits (`\z` is a literal `z` in JS), `\p`
//! without `u`, lone surrogates, astral characters that non-`u` JS splits in
//! two (quantified or inside a class), inline modifiers `(?i:…)`, flags
//! `g y d v` and unknown or duplicate flags, every JS syntax error.
//!
//! Documented divergences (the only places the two readings can differ):
//! 1. With `m`, U+2028/U+2029 are not line terminators for `^`/`$`, and the
//!    position between `\r` and `\n` is not a line boundary (JS: it is). Only
//!    patterns that match an empty line or start with `\n` / end with `\r` at
//!    an anchor can tell.
//! 2. Without `u`, JavaScript sees a character outside the BMP (most emoji) as
//!    two UTF-16 units, and `.`, negated classes, `\S \W \D` and ranges
//!    spanning the surrogates match one half. Here they match whole
//!    characters. Only an atom that must consume exactly half of such a
//!    character can tell (`a.b` against `a😀b`).
//! 3. Lone surrogates cannot exist in Rust text: they arrive as U+FFFD.
//! 4. Case folding under `i` uses Rust's Unicode tables (std's uppercase
//!    mapping without `u`, regex's simple case folding with `u`); V8's ICU may
//!    be a different Unicode version, so recently added letters can differ.
//! 5. With both `i` and `u`, JavaScript counts `ſ` (U+017F) and `K` (U+212A) as
//!    word characters for `\b`/`\B`; here `\b`/`\B` are ASCII only (`\w`/`\W`
//!    do follow JS).
//! 6. `\p{…}` (with `u`) uses Rust's Unicode version and its loose name
//!    matching, so a few property spellings JavaScript rejects are accepted.

use std::collections::HashMap;
use std::sync::OnceLock;

const MAX_CP: u32 = 0x10FFFF;
/// JS `\s`: WhiteSpace ∪ LineTerminator (ECMA-262 §22.2.2.9, Zs as of Unicode 15).
const JS_SPACE: &[(u32, u32)] = &[
    (0x09, 0x0D),
    (0x20, 0x20),
    (0xA0, 0xA0),
    (0x1680, 0x1680),
    (0x2000, 0x200A),
    (0x2028, 0x2029),
    (0x202F, 0x202F),
    (0x205F, 0x205F),
    (0x3000, 0x3000),
    (0xFEFF, 0xFEFF),
];
const DIGIT: &[(u32, u32)] = &[(0x30, 0x39)];
const WORD: &[(u32, u32)] = &[(0x30, 0x39), (0x41, 0x5A), (0x5F, 0x5F), (0x61, 0x7A)];
/// `\w` under `iu`: JS adds the characters whose simple case fold is a word character.
const WORD_IU: &[(u32, u32)] = &[
    (0x30, 0x39),
    (0x41, 0x5A),
    (0x5F, 0x5F),
    (0x61, 0x7A),
    (0x17F, 0x17F),
    (0x212A, 0x212A),
];
const LINE_TERMINATORS: &[(u32, u32)] = &[(0x0A, 0x0A), (0x0D, 0x0D), (0x2028, 0x2029)];
/// Repetition bounds above this are rejected up front (JS accepts up to 2^53;
/// Rust would only fail later on its size limit with a less useful message).
const MAX_REPEAT: u32 = 100_000;

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Flags {
    pub ignore_case: bool,
    pub multiline: bool,
    pub dot_all: bool,
    pub unicode: bool,
}

/// Parses a JS flags string. Only `i m s u` are accepted, each at most once.
pub fn parse_flags(flags: &str) -> Result<Flags, String> {
    let mut f = Flags::default();
    for c in flags.chars() {
        let slot = match c {
            'i' => &mut f.ignore_case,
            'm' => &mut f.multiline,
            's' => &mut f.dot_all,
            'u' => &mut f.unicode,
            'g' | 'y' => {
                return Err(format!(
                    "flag '{c}' is stateful (lastIndex) and is not supported"
                ))
            }
            'd' => return Err("flag 'd' (match indices) is not supported".into()),
            'v' => return Err("flag 'v' (unicodeSets) is not supported; use 'u'".into()),
            _ => return Err(format!("unknown flag '{c}'")),
        };
        if *slot {
            return Err(format!("duplicate flag '{c}'"));
        }
        *slot = true;
    }
    Ok(f)
}

/// Translates JS regex `source` with `flags` into Rust `regex` syntax.
/// The error is the reason only; the caller prefixes the rule id.
pub fn translate(source: &str, flags: &str) -> Result<String, String> {
    let flags = parse_flags(flags)?;
    let chars: Vec<char> = source.chars().collect();
    let (groups, names) = count_groups(&chars);
    let mut p = Parser {
        s: chars,
        i: 0,
        f: flags,
        groups,
        has_names: !names.is_empty(),
        seen_names: Vec::new(),
    };
    let out = p.disjunction()?;
    if p.i < p.s.len() {
        // disjunction only stops early on ')'
        return Err("unmatched ')'".into());
    }
    Ok(out)
}

/// Counts capturing groups and collects their names in a quick pre-pass, so
/// `\N` can be told apart as backreference or legacy octal escape.
fn count_groups(s: &[char]) -> (usize, Vec<String>) {
    let (mut n, mut names, mut i, mut in_class) = (0, Vec::new(), 0, false);
    while i < s.len() {
        match s[i] {
            '\\' => i += 1,
            '[' => in_class = true,
            ']' => in_class = false,
            '(' if !in_class => {
                if s.get(i + 1) != Some(&'?') {
                    n += 1;
                } else if s.get(i + 2) == Some(&'<') && !matches!(s.get(i + 3), Some('=' | '!')) {
                    n += 1;
                    let name: String = s[i + 3..].iter().take_while(|c| **c != '>').collect();
                    names.push(name);
                }
            }
            _ => {}
        }
        i += 1;
    }
    (n, names)
}

/// One parsed class atom: a single character or a predefined set.
enum ClassAtom {
    Char(u32),
    Set(Vec<(u32, u32)>),
    Prop(String),
}

/// A character class as an explicit code point set plus `\p{…}` items (u mode).
#[derive(Default)]
struct ClassSet {
    ranges: Vec<(u32, u32)>,
    props: Vec<String>,
}

struct Parser {
    s: Vec<char>,
    i: usize,
    f: Flags,
    groups: usize,
    has_names: bool,
    seen_names: Vec<String>,
}

impl Parser {
    fn peek(&self) -> Option<char> {
        self.s.get(self.i).copied()
    }
    fn peek_at(&self, k: usize) -> Option<char> {
        self.s.get(self.i + k).copied()
    }
    fn eat(&mut self, c: char) -> bool {
        if self.peek() == Some(c) {
            self.i += 1;
            true
        } else {
            false
        }
    }

    fn disjunction(&mut self) -> Result<String, String> {
        let mut out = self.alternative()?;
        while self.eat('|') {
            out.push('|');
            out.push_str(&self.alternative()?);
        }
        Ok(out)
    }

    fn alternative(&mut self) -> Result<String, String> {
        let mut out = String::new();
        while let Some(c) = self.peek() {
            if c == '|' || c == ')' {
                break;
            }
            self.term(&mut out)?;
        }
        Ok(out)
    }

    fn term(&mut self, out: &mut String) -> Result<(), String> {
        let c = self.peek().unwrap_or('\0');
        // Assertions: never quantifiable (a quantifier after one is a JS SyntaxError).
        let assertion = match c {
            '^' => Some(if self.f.multiline { "(?mR:^)" } else { r"\A" }),
            '$' => Some(if self.f.multiline { "(?mR:$)" } else { r"\z" }),
            '\\' if self.peek_at(1) == Some('b') => Some(r"(?-u:\b)"),
            '\\' if self.peek_at(1) == Some('B') => Some(r"(?-u:\B)"),
            _ => None,
        };
        let start = self.i;
        if let Some(a) = assertion {
            self.i += if c == '\\' { 2 } else { 1 };
            out.push_str(a);
            if self.at_quantifier() {
                let name: String = self.s[start..self.i].iter().collect();
                return Err(format!(
                    "nothing to repeat: quantifier after assertion {name}"
                ));
            }
            return Ok(());
        }
        let (atom, splits_in_utf16) = self.atom()?;
        if self.at_quantifier() {
            if splits_in_utf16 {
                let text: String = self.s[start..self.i].iter().collect();
                return Err(format!(
                    "quantifier after astral character {text} without the u flag: JavaScript repeats only its second UTF-16 unit; add the u flag"
                ));
            }
            let q = self.quantifier()?;
            out.push_str(&atom);
            out.push_str(&q);
        } else {
            out.push_str(&atom);
        }
        Ok(())
    }

    /// Whether a quantifier starts here (`{` only when it is a well-formed braced one).
    fn at_quantifier(&self) -> bool {
        match self.peek() {
            Some('*' | '+' | '?') => true,
            Some('{') => self.braced_quantifier_len().is_some(),
            _ => false,
        }
    }

    /// Length and bounds of a `{n}`, `{n,}`, `{n,m}` at the cursor.
    fn braced_quantifier_len(&self) -> Option<(usize, u64, Option<u64>)> {
        let s = &self.s[self.i..];
        if s.first() != Some(&'{') {
            return None;
        }
        let mut k = 1;
        let num = |k: &mut usize| -> Option<u64> {
            let st = *k;
            let mut v: u64 = 0;
            while let Some(d) = s.get(*k).and_then(|c| c.to_digit(10)) {
                v = v.saturating_mul(10).saturating_add(d as u64);
                *k += 1;
            }
            (*k > st).then_some(v)
        };
        let lo = num(&mut k)?;
        let hi = if s.get(k) == Some(&',') {
            k += 1;
            if s.get(k) == Some(&'}') {
                None
            } else {
                Some(num(&mut k)?)
            }
        } else {
            Some(lo)
        };
        (s.get(k) == Some(&'}')).then_some((k + 1, lo, hi))
    }

    fn quantifier(&mut self) -> Result<String, String> {
        let mut q = match self.peek() {
            Some(c @ ('*' | '+' | '?')) => {
                self.i += 1;
                c.to_string()
            }
            _ => {
                let (len, lo, hi) = self
                    .braced_quantifier_len()
                    .expect("checked by at_quantifier");
                self.i += len;
                if let Some(h) = hi {
                    if h < lo {
                        return Err(format!("numbers out of order in {{{lo},{h}}} quantifier"));
                    }
                }
                if lo > MAX_REPEAT as u64 || hi.is_some_and(|h| h > MAX_REPEAT as u64) {
                    return Err(format!(
                        "repetition count above {MAX_REPEAT} is not supported"
                    ));
                }
                match hi {
                    Some(h) if h == lo => format!("{{{lo}}}"),
                    Some(h) => format!("{{{lo},{h}}}"),
                    None => format!("{{{lo},}}"),
                }
            }
        };
        if self.eat('?') {
            q.push('?');
        }
        if self.at_quantifier() {
            return Err("nothing to repeat: two quantifiers in a row".into());
        }
        Ok(q)
    }

    /// Parses one atom. Returns its Rust text and whether it is an astral
    /// character that non-`u` JavaScript sees as two units.
    fn atom(&mut self) -> Result<(String, bool), String> {
        let c = self.peek().expect("caller checked");
        match c {
            '.' => {
                self.i += 1;
                let set = if self.f.dot_all {
                    vec![(0, MAX_CP)]
                } else {
                    complement(LINE_TERMINATORS)
                };
                Ok((emit_set(&set, false), false))
            }
            '(' => self.group().map(|g| (g, false)),
            '[' => self.class().map(|c| (c, false)),
            '\\' => self.atom_escape(),
            '*' | '+' | '?' => Err(format!(
                "nothing to repeat: '{c}' without an atom before it"
            )),
            ')' => Err("unmatched ')'".into()),
            '{' if self.braced_quantifier_len().is_some() => {
                Err("nothing to repeat: braced quantifier without an atom before it".into())
            }
            '{' | '}' | ']' if self.f.unicode => {
                Err(format!("lone '{c}' must be escaped with the u flag"))
            }
            _ => {
                self.i += 1;
                let cp = c as u32;
                let splits = !self.f.unicode && cp > 0xFFFF;
                Ok((self.emit_char(cp), splits))
            }
        }
    }

    fn group(&mut self) -> Result<String, String> {
        self.i += 1; // '('
        if self.eat('?') {
            match (self.peek(), self.peek_at(1)) {
                (Some(':'), _) => self.i += 1,
                (Some('='), _) => {
                    return Err("lookahead (?=…) is not supported by the linear-time engine".into())
                }
                (Some('!'), _) => {
                    return Err(
                        "negative lookahead (?!…) is not supported by the linear-time engine"
                            .into(),
                    )
                }
                (Some('<'), Some('=')) => {
                    return Err(
                        "lookbehind (?<=…) is not supported by the linear-time engine".into(),
                    )
                }
                (Some('<'), Some('!')) => {
                    return Err(
                        "negative lookbehind (?<!…) is not supported by the linear-time engine"
                            .into(),
                    )
                }
                (Some('<'), _) => {
                    self.i += 1;
                    let st = self.i;
                    while self.peek().is_some_and(|c| c != '>') {
                        self.i += 1;
                    }
                    let name: String = self.s[st..self.i].iter().collect();
                    if !self.eat('>') {
                        return Err("unterminated group name (?<…".into());
                    }
                    if !valid_group_name(&name) {
                        return Err(format!("invalid capture group name '{name}'"));
                    }
                    if self.seen_names.contains(&name) {
                        return Err(format!("duplicate capture group name '{name}'"));
                    }
                    self.seen_names.push(name);
                }
                _ => {
                    return Err(
                        "inline modifiers or unknown group syntax (?… are not supported".into(),
                    )
                }
            }
        }
        let inner = self.disjunction()?;
        if !self.eat(')') {
            return Err("unterminated group: missing ')'".into());
        }
        Ok(format!("(?:{inner})"))
    }

    /// Escape outside a class (`\b`/`\B` were handled as assertions).
    fn atom_escape(&mut self) -> Result<(String, bool), String> {
        self.i += 1; // '\'
        let Some(c) = self.peek() else {
            return Err(r"'\' at end of pattern".into());
        };
        match c {
            'd' | 'D' | 'w' | 'W' | 's' | 'S' => {
                self.i += 1;
                Ok((emit_set(&self.class_escape_set(c), false), false))
            }
            'p' | 'P' if self.f.unicode => {
                let prop = self.property(c)?;
                Ok((self.wrap_fold(prop), false))
            }
            _ => {
                let (cp, pair) = self.char_escape(false)?;
                // A surrogate pair written as two \u escapes is two atoms in non-u JS.
                Ok((self.emit_char(cp), pair && !self.f.unicode))
            }
        }
    }

    /// `\d \D \w \W \s \S` as explicit sets (already closed under JS case folding).
    fn class_escape_set(&self, c: char) -> Vec<(u32, u32)> {
        let word = if self.f.ignore_case && self.f.unicode {
            WORD_IU
        } else {
            WORD
        };
        match c {
            'd' => DIGIT.to_vec(),
            'D' => complement(DIGIT),
            'w' => word.to_vec(),
            'W' => complement(word),
            's' => JS_SPACE.to_vec(),
            _ => complement(JS_SPACE),
        }
    }

    /// `\p{…}` / `\P{…}` (u mode), cursor on the letter. Emits Rust syntax.
    fn property(&mut self, c: char) -> Result<String, String> {
        self.i += 1;
        if !self.eat('{') {
            return Err(format!(r"\{c} must be followed by {{…}}"));
        }
        let st = self.i;
        while self.peek().is_some_and(|x| x != '}') {
            self.i += 1;
        }
        let body: String = self.s[st..self.i].iter().collect();
        if !self.eat('}') {
            return Err(format!(r"unterminated \{c}{{…}}"));
        }
        let ok_part = |p: &str| {
            p.chars().next().is_some_and(|x| x.is_ascii_alphabetic())
                && p.chars().all(|x| x.is_ascii_alphanumeric() || x == '_')
        };
        let valid = match body.split_once('=') {
            Some((k, v)) => ok_part(k) && ok_part(v),
            None => ok_part(&body),
        };
        if !valid {
            return Err(format!(r"invalid property escape \{c}{{{body}}}"));
        }
        Ok(format!(r"\{c}{{{body}}}"))
    }

    /// A character escape (cursor after the backslash). Returns the code point
    /// and whether it came from a surrogate pair of two `\u` escapes.
    fn char_escape(&mut self, in_class: bool) -> Result<(u32, bool), String> {
        let c = self.peek().expect("caller checked");
        self.i += 1;
        let simple = match c {
            't' => Some(0x09),
            'n' => Some(0x0A),
            'v' => Some(0x0B),
            'f' => Some(0x0C),
            'r' => Some(0x0D),
            'b' if in_class => Some(0x08),
            '-' if in_class => Some('-' as u32),
            '/' | '^' | '$' | '\\' | '.' | '*' | '+' | '?' | '(' | ')' | '[' | ']' | '{' | '}'
            | '|' => Some(c as u32),
            _ => None,
        };
        if let Some(v) = simple {
            return Ok((v, false));
        }
        match c {
            'c' => match self.peek() {
                Some(l) if l.is_ascii_alphabetic() => {
                    self.i += 1;
                    Ok(((l as u32) % 32, false))
                }
                _ => Err(r"\c without a control letter (A-Z) is not supported".into()),
            },
            '0' if !self.peek().is_some_and(|d| d.is_ascii_digit()) => Ok((0, false)),
            '0'..='9' => {
                let st = self.i - 1;
                while self.peek().is_some_and(|d| d.is_ascii_digit()) {
                    self.i += 1;
                }
                let text: String = self.s[st..self.i].iter().collect();
                let n: usize = text.parse().unwrap_or(usize::MAX);
                if !in_class && (self.f.unicode || (n >= 1 && n <= self.groups)) {
                    Err(format!(
                        r"backreference \{text} is not supported by the linear-time engine"
                    ))
                } else {
                    Err(format!(
                        r"legacy octal escape \{text} is not supported (write \xHH or \uHHHH)"
                    ))
                }
            }
            'k' => {
                if self.peek() == Some('<') && (self.f.unicode || self.has_names) {
                    Err(r"backreference \k<…> is not supported by the linear-time engine".into())
                } else {
                    Err(
                        r"escape \k is a literal 'k' in JavaScript without named groups; write k"
                            .into(),
                    )
                }
            }
            'x' => {
                let h = self.hex_digits(2);
                h.ok_or_else(|| r"incomplete \x escape (needs two hex digits)".to_string())
                    .map(|v| (v, false))
            }
            'u' => self.unicode_escape(),
            'p' | 'P' => Err(format!(
                r"\{c}{{…}} needs the u flag (without it JavaScript reads a literal '{c}')"
            )),
            _ if c.is_ascii_alphanumeric() => Err(format!(
                r"escape \{c} is a literal '{c}' in JavaScript but means something else in other dialects; write {c}"
            )),
            _ if self.f.unicode => Err(format!(r"invalid escape \{c} with the u flag")),
            // Annex B identity escape of punctuation or a non-ASCII character.
            _ => Ok((c as u32, false)),
        }
    }

    fn hex_digits(&mut self, n: usize) -> Option<u32> {
        let mut v = 0;
        for k in 0..n {
            v = v * 16 + self.peek_at(k)?.to_digit(16)?;
        }
        self.i += n;
        Some(v)
    }

    /// `\uHHHH` (with surrogate pair joining) or `\u{…}` (u mode); cursor after 'u'.
    fn unicode_escape(&mut self) -> Result<(u32, bool), String> {
        if self.peek() == Some('{') {
            if !self.f.unicode {
                return Err(
                    r"\u{…} needs the u flag (without it JavaScript reads 'u' repeated)".into(),
                );
            }
            self.i += 1;
            let st = self.i;
            while self.peek().is_some_and(|c| c.is_ascii_hexdigit()) {
                self.i += 1;
            }
            let hex: String = self.s[st..self.i].iter().collect();
            if hex.is_empty() || !self.eat('}') {
                return Err(r"invalid \u{…} escape".into());
            }
            let v = u32::from_str_radix(&hex, 16).ok().filter(|v| *v <= MAX_CP);
            let v = v.ok_or_else(|| format!(r"\u{{{hex}}} is beyond U+10FFFF"))?;
            if is_surrogate(v) {
                return Err(format!(
                    r"lone surrogate \u{{{hex}}} cannot occur in UTF-8 text"
                ));
            }
            return Ok((v, false));
        }
        let hi = self
            .hex_digits(4)
            .ok_or_else(|| r"incomplete \u escape (needs four hex digits)".to_string())?;
        if (0xD800..0xDC00).contains(&hi)
            && self.peek() == Some('\\')
            && self.peek_at(1) == Some('u')
        {
            let save = self.i;
            self.i += 2;
            if let Some(lo) = self
                .hex_digits(4)
                .filter(|lo| (0xDC00..0xE000).contains(lo))
            {
                return Ok((0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00), true));
            }
            self.i = save;
        }
        if is_surrogate(hi) {
            return Err(format!(
                r"lone surrogate \u{hi:04X} cannot occur in UTF-8 text"
            ));
        }
        Ok((hi, false))
    }

    fn class(&mut self) -> Result<String, String> {
        self.i += 1; // '['
        let negated = self.eat('^');
        let mut set = ClassSet::default();
        loop {
            match self.peek() {
                None => return Err("unterminated character class".into()),
                Some(']') => {
                    self.i += 1;
                    break;
                }
                _ => {}
            }
            let a = self.class_atom()?;
            if self.peek() == Some('-') && self.peek_at(1).is_some_and(|c| c != ']') {
                self.i += 1;
                let b = self.class_atom()?;
                match (a, b) {
                    (ClassAtom::Char(x), ClassAtom::Char(y)) => {
                        if x > y {
                            return Err("range out of order in character class".into());
                        }
                        set.ranges.push((x, y));
                    }
                    (a, b) if !self.f.unicode => {
                        // Annex B: a range with a class escape is the two items and a literal '-'.
                        add_class_atom(&mut set, a);
                        set.ranges.push(('-' as u32, '-' as u32));
                        add_class_atom(&mut set, b);
                    }
                    _ => return Err("character class escape used as a range bound".into()),
                }
            } else {
                add_class_atom(&mut set, a);
            }
        }
        let mut ranges = normalize(set.ranges);
        if self.f.ignore_case && !self.f.unicode {
            ranges = close_nonu(&ranges);
        }
        let body = class_body(&ranges, &set.props);
        let cls = match (negated, body.is_empty()) {
            (false, true) => format!("[^{}]", class_body(&[(0, MAX_CP)], &[])),
            (true, true) => format!("[{}]", class_body(&[(0, MAX_CP)], &[])),
            (false, false) => format!("[{body}]"),
            (true, false) => format!("[^{body}]"),
        };
        Ok(if self.f.ignore_case && self.f.unicode {
            format!("(?i:{cls})")
        } else {
            cls
        })
    }

    fn class_atom(&mut self) -> Result<ClassAtom, String> {
        let c = self.peek().expect("caller checked");
        if c != '\\' {
            self.i += 1;
            let cp = c as u32;
            if cp > 0xFFFF && !self.f.unicode {
                return Err(format!(
                    "astral character {c} in a class without the u flag: JavaScript matches either UTF-16 half; add the u flag"
                ));
            }
            return Ok(ClassAtom::Char(cp));
        }
        self.i += 1;
        let Some(e) = self.peek() else {
            return Err(r"'\' at end of pattern".into());
        };
        match e {
            'd' | 'D' | 'w' | 'W' | 's' | 'S' => {
                self.i += 1;
                Ok(ClassAtom::Set(self.class_escape_set(e)))
            }
            'p' | 'P' if self.f.unicode => Ok(ClassAtom::Prop(self.property(e)?)),
            'B' => Err(r"escape \B in a class is a literal 'B' in JavaScript; write B".into()),
            'c' if !self.peek_at(1).is_some_and(|l| l.is_ascii_alphabetic()) => {
                Err(r"\c without a control letter (A-Z) is not supported".into())
            }
            _ => {
                let (cp, pair) = self.char_escape(true)?;
                if pair && !self.f.unicode {
                    return Err(
                        "surrogate pair in a class without the u flag: JavaScript matches either UTF-16 half; add the u flag"
                            .into(),
                    );
                }
                Ok(ClassAtom::Char(cp))
            }
        }
    }

    /// One literal code point under the current flags.
    fn emit_char(&self, cp: u32) -> String {
        if self.f.ignore_case {
            if self.f.unicode {
                return self.wrap_fold(lit(cp));
            }
            let set = close_nonu(&[(cp, cp)]);
            if set.len() > 1 || set[0].0 != set[0].1 {
                return emit_set(&set, false);
            }
        }
        lit(cp)
    }

    fn wrap_fold(&self, s: String) -> String {
        if self.f.ignore_case && self.f.unicode {
            format!("(?i:{s})")
        } else {
            s
        }
    }
}

fn valid_group_name(name: &str) -> bool {
    let mut cs = name.chars();
    cs.next()
        .is_some_and(|c| c.is_alphabetic() || c == '$' || c == '_')
        && cs.all(|c| {
            c.is_alphanumeric() || c == '$' || c == '_' || c == '\u{200C}' || c == '\u{200D}'
        })
}

fn add_class_atom(set: &mut ClassSet, a: ClassAtom) {
    match a {
        ClassAtom::Char(c) => set.ranges.push((c, c)),
        ClassAtom::Set(s) => set.ranges.extend(s),
        ClassAtom::Prop(p) => set.props.push(p),
    }
}

fn is_surrogate(c: u32) -> bool {
    (0xD800..=0xDFFF).contains(&c)
}

/// A literal outside a class. ASCII alphanumerics stay readable; everything
/// else is a `\x{…}` escape so no Rust metacharacter or flag can interfere.
fn lit(cp: u32) -> String {
    match char::from_u32(cp) {
        Some(c) if c.is_ascii_alphanumeric() || c == '_' || c == ' ' => c.to_string(),
        _ => format!(r"\x{{{cp:X}}}"),
    }
}

fn emit_set(ranges: &[(u32, u32)], negated: bool) -> String {
    let body = class_body(ranges, &[]);
    if body.is_empty() {
        // matches nothing (or, negated, anything)
        let all = class_body(&[(0, MAX_CP)], &[]);
        return if negated {
            format!("[{all}]")
        } else {
            format!("[^{all}]")
        };
    }
    if negated {
        format!("[^{body}]")
    } else {
        format!("[{body}]")
    }
}

/// Class body from code point ranges (surrogates dropped: Rust text has none).
fn class_body(ranges: &[(u32, u32)], props: &[String]) -> String {
    let mut out = String::new();
    for &(lo, hi) in ranges {
        for (a, b) in [(lo, hi.min(0xD7FF)), (lo.max(0xE000), hi)] {
            if a > b {
                continue;
            }
            if a == b {
                out.push_str(&format!(r"\x{{{a:X}}}"));
            } else {
                out.push_str(&format!(r"\x{{{a:X}}}-\x{{{b:X}}}"));
            }
        }
    }
    for p in props {
        out.push_str(p);
    }
    out
}

/// Sorted, merged ranges.
fn normalize(mut r: Vec<(u32, u32)>) -> Vec<(u32, u32)> {
    r.sort_unstable();
    let mut out: Vec<(u32, u32)> = Vec::with_capacity(r.len());
    for (lo, hi) in r {
        match out.last_mut() {
            Some(last) if lo <= last.1.saturating_add(1) => last.1 = last.1.max(hi),
            _ => out.push((lo, hi)),
        }
    }
    out
}

fn complement(r: &[(u32, u32)]) -> Vec<(u32, u32)> {
    let mut out = Vec::new();
    let mut next = 0u32;
    for &(lo, hi) in &normalize(r.to_vec()) {
        if lo > next {
            out.push((next, lo - 1));
        }
        next = hi + 1;
    }
    if next <= MAX_CP {
        out.push((next, MAX_CP));
    }
    out
}

fn contains(r: &[(u32, u32)], c: u32) -> bool {
    let i = r.partition_point(|&(_, hi)| hi < c);
    r.get(i).is_some_and(|&(lo, _)| lo <= c)
}

/// JS `Canonicalize` without `u` (ECMA-262 §22.2.2.7.3): full uppercase
/// mapping of one UTF-16 unit, kept only when it is a single unit and does
/// not map a non-ASCII unit to ASCII.
fn canonicalize_nonu(c: u32) -> u32 {
    let Some(ch) = char::from_u32(c) else {
        return c;
    };
    let mut up = ch.to_uppercase();
    match (up.next(), up.next()) {
        (Some(u), None) if (u as u32) <= 0xFFFF && !(c >= 128 && (u as u32) < 128) => u as u32,
        _ => c,
    }
}

/// Equivalence classes (size ≥ 2) of BMP units under `canonicalize_nonu`.
/// Astral characters are two units without `u` and never fold.
fn nonu_case_classes() -> &'static Vec<Vec<u32>> {
    static CLASSES: OnceLock<Vec<Vec<u32>>> = OnceLock::new();
    CLASSES.get_or_init(|| {
        let mut by_canon: HashMap<u32, Vec<u32>> = HashMap::new();
        for c in 0..=0xFFFFu32 {
            if is_surrogate(c) {
                continue;
            }
            let k = canonicalize_nonu(c);
            if k != c {
                by_canon.entry(k).or_default().push(c);
            }
        }
        let mut out: Vec<Vec<u32>> = by_canon
            .into_iter()
            .map(|(k, mut v)| {
                if canonicalize_nonu(k) == k {
                    v.push(k);
                }
                v
            })
            .filter(|v| v.len() > 1)
            .collect();
        out.sort();
        out
    })
}

/// The set JS matches for class `r` under `i` without `u`: every unit whose
/// canonical form equals that of some member.
fn close_nonu(r: &[(u32, u32)]) -> Vec<(u32, u32)> {
    let r = normalize(r.to_vec());
    let mut out = r.clone();
    for class in nonu_case_classes() {
        if class.iter().any(|&c| contains(&r, c)) {
            out.extend(class.iter().map(|&c| (c, c)));
        }
    }
    normalize(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use regex::Regex;

    fn tr(src: &str, flags: &str) -> Regex {
        let p = translate(src, flags).unwrap_or_else(|e| panic!("{src:?}/{flags}: {e}"));
        Regex::new(&p).unwrap_or_else(|e| panic!("{src:?} → {p:?}: {e}"))
    }
    fn m(src: &str, flags: &str, text: &str) -> bool {
        tr(src, flags).is_match(text)
    }
    fn err(src: &str, flags: &str) -> String {
        translate(src, flags).expect_err(&format!("{src:?} should be rejected"))
    }

    #[test]
    fn flags() {
        assert!(parse_flags("imsu").is_ok());
        assert!(parse_flags("").is_ok());
        assert!(err("a", "g").contains("stateful"));
        assert!(err("a", "y").contains("stateful"));
        assert!(err("a", "d").contains("'d'"));
        assert!(err("a", "v").contains("'v'"));
        assert!(err("a", "x").contains("unknown flag 'x'"));
        assert!(err("a", "ii").contains("duplicate flag 'i'"));
    }

    #[test]
    fn ascii_classes_keep_js_meaning() {
        assert!(m(r"^\d$", "", "7"));
        assert!(!m(r"\d", "", "٣")); // Arabic-Indic digit: not \d in JS
        assert!(m(r"\D", "", "٣"));
        assert!(!m(r"\w", "", "é"));
        assert!(m(r"\W", "", "é"));
        assert!(m(r"^\w+$", "", "a_Z9"));
        // \b is ASCII: é is not a word character, so "é" has no boundary inside "aé"… but one after 'a'
        assert!(m(r"a\b", "", "aé"));
        assert!(m(r"x\bé", "", "xé") && !m(r"\bé", "", " é") && !m(r"x\B", "", "x"));
        assert!(m(r"x\B", "", "xy"));
    }

    #[test]
    fn whitespace_is_the_js_set() {
        for ws in [
            "\t", "\n", "\u{B}", "\u{C}", "\r", " ", "\u{A0}", "\u{1680}", "\u{2000}", "\u{200A}",
            "\u{2028}", "\u{2029}", "\u{202F}", "\u{205F}", "\u{3000}", "\u{FEFF}",
        ] {
            assert!(m(r"^\s$", "", ws), "{ws:?}");
            assert!(!m(r"\S", "", ws), "{ws:?}");
        }
        // U+0085 and U+180E are not JS whitespace (Rust's Unicode \s has U+0085).
        assert!(!m(r"\s", "", "\u{85}"));
        assert!(!m(r"\s", "", "\u{180E}"));
        assert!(m(r"[^\S\r\n]", "", "\t"));
        assert!(!m(r"[^\S\r\n]", "", "\r\n"));
    }

    #[test]
    fn dot_and_dot_all() {
        for lt in ["\n", "\r", "\u{2028}", "\u{2029}"] {
            assert!(!m(".", "", lt));
            assert!(m(".", "s", lt));
        }
        assert!(m("^.$", "", "é"));
        assert!(m("^.$", "u", "😀"));
    }

    #[test]
    fn anchors() {
        assert!(!m("^b", "", "a\nb"));
        assert!(m("^b", "m", "a\nb"));
        assert!(m("^b", "m", "a\rb"));
        assert!(!m("a$", "", "a\n"));
        assert!(m("a$", "m", "a\n"));
        assert!(m("a$", "m", "a\r\nb"));
        assert!(m("^a$", "", "a"));
    }

    #[test]
    fn empty_classes() {
        assert!(!m("[]", "", "a\n"));
        assert!(m("a[^]b", "", "a\nb"));
        assert!(!m("a[]", "", "a"));
    }

    #[test]
    fn rust_class_syntax_never_triggers() {
        assert!(m("[a&&b]", "", "&"));
        assert!(m("^[a&&b]$", "", "a"));
        assert!(m("^[!--]$", "", ",") && !m("[!--]", "", "a"));
        assert!(err("[a--b]", "").contains("out of order"));
        assert!(m("[a~~b]", "", "~"));
        assert!(m("[[a]", "", "["));
        assert!(m("^[[a]]$", "", "a]"));
        assert!(m(r"^[\w-.]+$", "", "a-b.c"));
        assert!(m(r"[\d-z]", "", "-"));
        assert!(!m(r"[\d-z]", "", "m"));
        assert!(m("[-a]", "", "-") && m("[a-]", "", "-"));
        assert!(m(r"[\b]", "", "\u{8}"));
        assert!(m(r"[\]]", "", "]"));
    }

    #[test]
    fn annex_b_literals() {
        assert!(m("a{", "", "a{"));
        assert!(m("a{1,", "", "a{1,"));
        assert!(m("a{,3}", "", "a{,3}"));
        assert!(m("^}$", "", "}"));
        assert!(m("^]$", "", "]"));
        assert!(m("^a{2}$", "", "aa"));
        assert!(m("^a{2,}$", "", "aaa"));
        assert!(m("^a{1,2}?$", "", "aa"));
        assert!(m(r"^\/\.\*$", "", "/.*"));
        assert!(m(r"^\-\:$", "", "-:"));
        assert!(err("{", "u").contains("'{'"));
        assert!(err("]", "u").contains("']'"));
        assert!(err("{2}", "").contains("nothing to repeat"));
    }

    #[test]
    fn character_escapes() {
        assert!(m(r"^\cJ$", "", "\n"));
        assert!(m(r"^\ca$", "", "\u{1}"));
        assert!(m(r"^\x41$", "", "A"));
        assert!(m(r"^\u00e9$", "", "é"));
        assert!(m(r"^\uD83D\uDE00$", "", "😀"));
        assert!(m(r"^\u{1F600}$", "u", "😀"));
        assert!(m(r"^\0$", "", "\0"));
        assert!(m(r"^\t\n\v\f\r$", "", "\t\n\u{B}\u{C}\r"));
        assert!(m(r"^[\uD83D\uDE00]$", "u", "😀"));
        assert!(m(r"^\é$", "", "é"));
        assert!(m(r"^\_$", "", "_"));
    }

    #[test]
    fn groups() {
        assert!(m("^(?<word>ab)+$", "", "abab"));
        assert!(m("^(?:a|b)(c)$", "", "bc"));
        assert!(m("^(a|)$", "", ""));
        assert!(err("(?<a>x)(?<a>y)", "").contains("duplicate capture group name 'a'"));
        assert!(err("(?<1a>x)", "").contains("invalid capture group name"));
        assert!(err("(a", "").contains("unterminated group"));
        assert!(err("a)", "").contains("unmatched ')'"));
    }

    #[test]
    fn rejections_name_the_construct() {
        assert!(err("a(?=b)", "").contains("lookahead (?=…)"));
        assert!(err("a(?!b)", "").contains("negative lookahead (?!…)"));
        assert!(err("(?<=a)b", "").contains("lookbehind (?<=…)"));
        assert!(err("(?<!a)b", "").contains("negative lookbehind (?<!…)"));
        assert!(err(r"(a)\1", "").contains(r"backreference \1"));
        assert!(err(r"(?<n>a)\k<n>", "").contains(r"backreference \k<…>"));
        assert!(err(r"\k<n>", "").contains(r"\k"));
        assert!(err(r"\1", "").contains("legacy octal"));
        assert!(err(r"\01", "").contains("legacy octal"));
        assert!(err(r"[\1]", "").contains("legacy octal"));
        assert!(err(r"\8", "").contains("legacy octal"));
        assert!(err(r"\z", "").contains(r"escape \z"));
        assert!(err(r"\A", "").contains(r"escape \A"));
        assert!(err(r"\e", "").contains(r"escape \e"));
        assert!(err(r"[\B]", "").contains(r"\B"));
        assert!(err(r"\p{L}", "").contains("needs the u flag"));
        assert!(err(r"\u{41}", "").contains("needs the u flag"));
        assert!(err(r"\x4", "").contains(r"\x"));
        assert!(err(r"\u12", "").contains(r"\u"));
        assert!(err(r"\c1", "").contains(r"\c"));
        assert!(err(r"\uD83D", "").contains("lone surrogate"));
        assert!(err(r"\u{D800}", "u").contains("lone surrogate"));
        assert!(err("(?i:a)", "").contains("inline modifiers"));
        assert!(err(r"a\", "").contains("end of pattern"));
        assert!(err("[a", "").contains("unterminated character class"));
        assert!(err("[z-a]", "").contains("out of order"));
        assert!(err("a{3,1}", "").contains("out of order"));
        assert!(err("a{1000000}", "").contains("repetition count"));
        assert!(err("*a", "").contains("nothing to repeat"));
        assert!(err("a**", "").contains("nothing to repeat"));
        assert!(err("^*", "").contains("nothing to repeat"));
        assert!(err(r"\B+", "").contains(r"assertion \B"));
        assert!(err("😀+", "").contains("astral"));
        assert!(err(r"\uD83D\uDE00+", "").contains("astral"));
        assert!(err("[😀]", "").contains("astral"));
        assert!(err(r"[\uD83D\uDE00]", "").contains("surrogate pair"));
        assert!(err(r"\-", "u").contains("invalid escape"));
        assert!(err(r"[\d-z]", "u").contains("range bound"));
    }

    #[test]
    fn unicode_mode() {
        assert!(m("^😀+$", "u", "😀😀"));
        assert!(m("^[😀]$", "u", "😀"));
        assert!(m(r"^\p{Lu}\p{Script=Greek}$", "u", "AΩ"));
        assert!(m(r"^[\p{L}\d]+$", "u", "é9"));
        assert!(!m(r"\P{L}", "u", "é"));
        assert!(m(r"^[\-]$", "u", "-"));
    }

    #[test]
    fn ignore_case_without_u_is_js_canonicalize() {
        assert!(m("^traceback$", "i", "TRACEBACK"));
        assert!(m("^[a-z]+$", "i", "ABC"));
        assert!(!m("k", "i", "\u{212A}")); // Kelvin sign: non-ASCII → ASCII is excluded
        assert!(!m("s", "i", "ſ"));
        assert!(!m("[a-z]", "i", "\u{212A}"));
        assert!(m("é", "i", "É"));
        assert!(m("σ", "i", "ς") && m("ς", "i", "Σ"));
        assert!(m("[^a]", "i", "b") && !m("[^a]", "i", "A"));
        assert!(!m(r"\w", "i", "ſ"));
    }

    #[test]
    fn ignore_case_with_u_is_simple_folding() {
        assert!(m("k", "iu", "\u{212A}"));
        assert!(m("s", "iu", "ſ"));
        assert!(m(r"\w", "iu", "ſ"));
        assert!(!m(r"\W", "iu", "ſ"));
        assert!(m(r"\W", "u", "ſ"));
        assert!(m("[^x]", "iu", "y") && !m("[^x]", "iu", "X"));
    }

    #[test]
    fn lazy_and_greedy_extents_match_backtracking() {
        let r = tr("a.*?b", "");
        assert_eq!(r.find("xaxbxb").map(|m| m.range()), Some(1..4));
        let r = tr("a.*b", "");
        assert_eq!(r.find("xaxbxb").map(|m| m.range()), Some(1..6));
        let r = tr("a|ab", "");
        assert_eq!(r.find("ab").map(|m| m.range()), Some(0..1));
    }

    #[test]
    fn catastrophic_js_patterns_are_linear_here() {
        let r = tr("(a+)+$", "");
        let text = "a".repeat(1 << 20) + "!";
        assert!(!r.is_match(&text));
        let r = tr("(a*)*b", "");
        assert!(!r.is_match(&"a".repeat(1000)));
    }
}
