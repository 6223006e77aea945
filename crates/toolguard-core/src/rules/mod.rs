//! Silent-failure rules: model, JS-regex dialect, built-in table, scanning.
//!
//! A rule's pattern is JavaScript regex source (see `dialect`); it is
//! translated and checked at load (a bad rule fails the load, named), its
//! automata are built on first use, and every rule runs in time linear in
//! the scanned text (Rust `regex`, no backtracking).

mod anchor;
pub mod dialect;
mod literal;
mod prefilter;
mod scan;
pub(crate) mod unless;

pub use scan::Strategy;

use regex::{Regex, RegexBuilder};
use std::sync::{Arc, OnceLock};

use crate::config::{rule_from_value, ConfigValue};
use crate::error::{KeyPath, RuleError};

/// Compiled-program budget per rule. Generous for real rules (the whole
/// built-in table is far below it) yet bounds what one careless pattern
/// (`.{50000}`) can cost; exceeding it is a load error naming the rule.
pub const RULE_SIZE_LIMIT: usize = 2 << 20;
/// Lazy-DFA cache cap per rule; beyond it the engine falls back to a slower
/// but still linear matcher rather than growing.
pub const RULE_DFA_SIZE_LIMIT: usize = 2 << 20;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    Error,
    Context,
    Off,
}

impl Action {
    pub fn as_str(self) -> &'static str {
        match self {
            Action::Error => "error",
            Action::Context => "context",
            Action::Off => "off",
        }
    }
    pub fn parse(s: &str) -> Option<Action> {
        match s {
            "error" => Some(Action::Error),
            "context" => Some(Action::Context),
            "off" => Some(Action::Off),
            _ => None,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum When {
    Success,
    Always,
}

impl When {
    pub fn as_str(self) -> &'static str {
        match self {
            When::Success => "success",
            When::Always => "always",
        }
    }
    pub fn parse(s: &str) -> Option<When> {
        match s {
            "success" => Some(When::Success),
            "always" => Some(When::Always),
            _ => None,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rule {
    pub id: String,
    /// JavaScript regex source.
    pub pattern: String,
    /// JavaScript flags, a subset of `imsu`.
    pub flags: String,
    pub action: Action,
    pub when: When,
    pub message: String,
    /// Why the rule is there (the README table); never affects matching.
    pub reason: String,
    /// The veto pattern (JS source, the rule's flags): a match is passed
    /// over when this matches near it (`unless.rs`). `None`: no veto.
    pub unless: Option<String>,
}

/// `loud-failure: rule <id>: <reason>` — the one shape of every rule-table error.
pub fn rule_error(id: &str, reason: &str) -> RuleError {
    RuleError::new(id, reason)
}

/// The built-in table (`rules/builtin.json`, shared with the TS reference
/// engine), read by the same decoder as user rules.
pub fn builtin_rules() -> Vec<Rule> {
    builtin().rules.to_vec()
}

/// The built-in rows, decoded and checked once per process: every engine's
/// table starts from them (the native hook builds one per process; Node may
/// build several), and the table without user rules shares one scanner, so
/// its lazily built automata serve every engine.
struct Builtin {
    rules: Arc<[Rule]>,
    checked: Vec<scan::Checked>,
    scanner: Arc<scan::Scanner>,
    vetoes: Arc<unless::Vetoes>,
}

static BUILTIN: OnceLock<Builtin> = OnceLock::new();

/// The built-in rows as analysed by build.rs (translated source, required
/// literals, line facts), so loading them parses no pattern.
mod builtin_table {
    /// One row's `Checked`, with the pattern and flags it was made from.
    pub(super) struct Analysed {
        pub(super) pattern: &'static str,
        pub(super) flags: &'static str,
        pub(super) unless: Option<&'static str>,
        pub(super) src: &'static str,
        pub(super) unless_src: Option<&'static str>,
        pub(super) literals: Option<&'static [&'static [u8]]>,
        pub(super) at_line_start: bool,
        pub(super) starts_line: bool,
        pub(super) line_local: bool,
        pub(super) max_newlines: Option<usize>,
    }
    include!(concat!(env!("OUT_DIR"), "/builtin_table.rs"));
}

/// Built-in row `i` as checked at load: from the build-time table when it
/// was made from this very pattern and flags (always, short of a stale
/// build), else checked now like a user rule (its size by the test suite).
fn check_builtin(i: usize, rule: &Rule) -> Result<scan::Checked, RuleError> {
    match builtin_table::ANALYSED.get(i) {
        Some(Some(a))
            if a.pattern == rule.pattern
                && a.flags == rule.flags
                && a.unless == rule.unless.as_deref() =>
        {
            Ok(scan::Checked {
                src: a.src.to_string(),
                unless_src: a.unless_src.map(str::to_string),
                literals: a
                    .literals
                    .map(|set| set.iter().map(|l| l.to_vec()).collect()),
                at_line_start: a.at_line_start,
                starts_line: a.starts_line,
                line_local: a.line_local,
                max_newlines: a.max_newlines,
            })
        }
        _ => check_rule_sized(rule, false),
    }
}

/// Whether this process has decoded and checked the built-in table (a
/// table without rows, which the native hook builds for a call it does not
/// scan, must not pay for it).
#[doc(hidden)]
pub fn builtin_table_loaded() -> bool {
    BUILTIN.get().is_some()
}

fn builtin() -> &'static Builtin {
    BUILTIN.get_or_init(|| {
        let rules = decode_builtin();
        // Each row's compiled size is checked by the test suite
        // (`builtin_table_is_well_formed`), not at every load.
        let checked: Vec<scan::Checked> = rules
            .iter()
            .enumerate()
            .map(|(i, r)| {
                check_builtin(i, r).unwrap_or_else(|e| panic!("built-in rule is well-formed: {e}"))
            })
            .collect();
        let vetoes = Arc::new(unless::Vetoes::new(&checked));
        let scanner = Arc::new(scan::Scanner::new(&rules, checked.clone()));
        Builtin {
            rules: rules.into(),
            checked,
            scanner,
            vetoes,
        }
    })
}

fn decode_builtin() -> Vec<Rule> {
    const TABLE: &str = include_str!("../../../../rules/builtin.json");
    let ConfigValue::Array(rows) =
        ConfigValue::from_json(TABLE).expect("rules/builtin.json is valid JSON")
    else {
        panic!("rules/builtin.json is an array");
    };
    rows.iter()
        .enumerate()
        .map(|(i, row)| {
            rule_from_value(row, &KeyPath::root("rules/builtin.json").index(i))
                .unwrap_or_else(|e| panic!("built-in rule is well-formed: {e}"))
        })
        .collect()
}

/// Merges user rules into the built-ins: a user rule with a built-in id
/// replaces it in place, new ids are appended in order, two user rules with
/// one id are an error.
pub fn merge(builtin: Vec<Rule>, user: Vec<Rule>) -> Result<Vec<Rule>, RuleError> {
    let mut table = builtin;
    let builtin_len = table.len();
    let mut user_ids = std::collections::HashSet::with_capacity(user.len());
    for r in user {
        if !user_ids.insert(r.id.clone()) {
            return Err(rule_error(&r.id, "two user rules have this id"));
        }
        match table[..builtin_len].iter().position(|b| b.id == r.id) {
            Some(i) => table[i] = r,
            // `{id, action: 'off'}` alone can only mean a built-in: a typo in
            // its id would otherwise switch nothing off, silently.
            None if r.action == Action::Off && r.pattern.is_empty() => {
                return Err(rule_error(
                    &r.id,
                    "`action: 'off'` without a `pattern` switches off a built-in rule, and no built-in rule has this id",
                ))
            }
            None => table.push(r),
        }
    }
    Ok(table)
}

/// Translates and compiles one rule's pattern, naming the rule on failure.
/// (The scanner builds its own engines lazily; this is the one-shot form for
/// tests and tools, with exactly the load-time checks of `check_rule`.)
pub fn compile_rule(rule: &Rule) -> Result<Regex, RuleError> {
    let checked = check_rule(rule)?;
    RegexBuilder::new(&checked.src)
        .size_limit(RULE_SIZE_LIMIT)
        .dfa_size_limit(RULE_DFA_SIZE_LIMIT)
        .build()
        .map_err(|e| match e {
            regex::Error::CompiledTooBig(_) => too_big(&rule.id),
            e => rule_error(
                &rule.id,
                &format!("invalid pattern: {}", last_line(&e.to_string())),
            ),
        })
}

fn too_big(id: &str) -> RuleError {
    rule_error(
        id,
        "pattern is too big for the linear-time engine (compiled size over the per-rule limit)",
    )
}

/// The load-time check of one rule: translate, parse (the `regex` crate's
/// syntax settings) and compile the forward program against the per-rule
/// size limit — every way the full build can fail, at a fraction of its cost
/// (no DFAs, reverse program or prefilters; those are built on first scan).
fn check_rule(rule: &Rule) -> Result<scan::Checked, RuleError> {
    check_rule_sized(rule, true)
}

/// `check_rule`, with the forward-program size check only when `sized`
/// (about a fifth of the check's cost; the built-ins are sized by tests).
fn check_rule_sized(rule: &Rule, sized: bool) -> Result<scan::Checked, RuleError> {
    if rule.action == Action::Off && rule.pattern.is_empty() {
        // A built-in switched off by id alone: nothing to compile or run.
        return Ok(scan::Checked {
            src: String::new(),
            unless_src: None,
            literals: None,
            at_line_start: false,
            starts_line: false,
            line_local: true,
            max_newlines: Some(0),
        });
    }
    if rule.id.is_empty() {
        return Err(rule_error("(empty id)", "`id` must not be empty"));
    }
    if rule.message.trim().is_empty() && rule.action != Action::Off {
        return Err(rule_error(&rule.id, "`message` must not be empty"));
    }
    let unless_src = unless::check(rule, sized)?;
    let src =
        dialect::translate(&rule.pattern, &rule.flags).map_err(|e| rule_error(&rule.id, &e))?;
    let hir = regex_syntax::ParserBuilder::new()
        .utf8(true)
        .build()
        .parse(&src)
        .map_err(|e| {
            rule_error(
                &rule.id,
                &format!("invalid pattern: {}", last_line(&e.to_string())),
            )
        })?;
    if sized {
        size_checked(&hir).map_err(|e| match e.size_limit() {
            Some(_) => too_big(&rule.id),
            None => rule_error(
                &rule.id,
                &format!("invalid pattern: {}", last_line(&e.to_string())),
            ),
        })?;
    }
    let (literals, at_line_start) = match literal::required_literals_at(&hir) {
        Some((set, at)) => (Some(set), at),
        None => (None, false),
    };
    Ok(scan::Checked {
        unless_src,
        literals,
        at_line_start,
        starts_line: literal::starts_line(&hir),
        line_local: !literal::may_match_newline(&hir),
        max_newlines: literal::max_newlines(&hir),
        src,
    })
}

/// The load-time size check: the pattern's forward program compiled against
/// the per-rule limit (the full regex is built on first use). Skipped when
/// `size_bound` already shows the program fits: compiling it was a fifth of
/// a user rule's load (~0.5 M instructions of 2.3 M).
fn size_checked(
    hir: &regex_syntax::hir::Hir,
) -> Result<(), Box<regex_automata::nfa::thompson::BuildError>> {
    if size_bound(hir).is_some_and(|b| b <= RULE_SIZE_LIMIT) {
        return Ok(());
    }
    regex_automata::nfa::thompson::Compiler::new()
        .configure(
            regex_automata::nfa::thompson::Config::new()
                .nfa_size_limit(Some(RULE_SIZE_LIMIT))
                .shrink(false),
        )
        .build_from_hir(hir)
        .map(drop)
        .map_err(Box::new)
}

/// An upper bound, in bytes, of what the forward Thompson compiler counts
/// against `nfa_size_limit` for `hir`, or `None` where this does not bound it
/// cheaply (a repetition counted above 64). Generous on purpose: every state
/// is charged 256 bytes (the builder's state is a few dozen) plus 16 per
/// class range and union branch, and the whole is doubled; the test
/// `size_bound_is_never_below_the_compilers_count` builds each bounded
/// pattern with the bound as its limit.
fn size_bound(hir: &regex_syntax::hir::Hir) -> Option<usize> {
    use regex_syntax::hir::{Class, HirKind};
    const STATE: usize = 256;
    const EDGE: usize = 16;
    fn bound(h: &regex_syntax::hir::Hir) -> Option<usize> {
        Some(match h.kind() {
            HirKind::Empty | HirKind::Look(_) => STATE,
            HirKind::Literal(l) => l.0.len() * STATE,
            HirKind::Class(Class::Bytes(c)) => STATE + c.ranges().len() * EDGE,
            // A range of scalar values splits into fewer than 2L UTF-8 byte
            // sequences of L bytes per encoded length L it spans (one more
            // split at the surrogates): 4L sequences of L states each.
            HirKind::Class(Class::Unicode(c)) => {
                let mut sum = STATE;
                for r in c.ranges() {
                    sum += EDGE;
                    for l in r.start().len_utf8().max(2)..=r.end().len_utf8() {
                        sum += 4 * l * l * (STATE + EDGE);
                    }
                }
                sum
            }
            HirKind::Capture(c) => bound(&c.sub)? + 2 * STATE,
            HirKind::Concat(subs) => {
                let mut sum = STATE;
                for s in subs {
                    sum += bound(s)?;
                }
                sum
            }
            HirKind::Alternation(subs) => {
                let mut sum = 2 * STATE;
                for s in subs {
                    sum += bound(s)? + STATE + EDGE;
                }
                sum
            }
            HirKind::Repetition(r) => {
                let copies = r.max.unwrap_or(r.min + 1).max(1) as usize;
                if copies > 64 {
                    return None;
                }
                copies * (bound(&r.sub)? + 2 * STATE + 2 * EDGE) + 2 * STATE
            }
        })
    }
    // The unanchored prefix and the start, match and fail states.
    Some(2 * (bound(hir)? + 16 * STATE))
}

fn last_line(s: &str) -> &str {
    s.lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .unwrap_or(s)
        .trim()
}

/// One rule's first match in a scanned text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuleMatch {
    /// Index of the rule in the merged table.
    pub rule: usize,
    pub id: String,
    pub message: String,
    pub action: Action,
    /// 1-based line of the match start (lines end at `\n`).
    pub line: usize,
    /// That whole line, trimmed (Unicode White_Space, Rust `trim`; the TS
    /// reference engine trims the same set), cut to 200 chars + `…`.
    pub excerpt: String,
}

/// A merged, compiled rule table.
pub struct RuleSet {
    rules: Arc<[Rule]>,
    scanner: Arc<scan::Scanner>,
    vetoes: Arc<unless::Vetoes>,
}

impl RuleSet {
    /// Merges `user` into the built-ins and checks every pattern (`off`
    /// rules too: an unusable table fails the load whatever the actions).
    pub fn compile(user: Vec<Rule>) -> Result<RuleSet, RuleError> {
        if user.is_empty() {
            let b = builtin();
            return Ok(RuleSet {
                rules: b.rules.clone(),
                scanner: b.scanner.clone(),
                vetoes: b.vetoes.clone(),
            });
        }
        Self::compile_table(merge(builtin_rules(), user)?)
    }

    /// Compiles an already merged table (no built-ins added).
    pub fn compile_table(rules: Vec<Rule>) -> Result<RuleSet, RuleError> {
        // An empty table needs nothing of the built-ins.
        let b = (!rules.is_empty()).then(builtin);
        let mut checked = Vec::with_capacity(rules.len());
        for (i, r) in rules.iter().enumerate() {
            // A built-in row (merging keeps them at their index) was checked
            // once per process.
            match b.and_then(|b| Some((b.rules.get(i)?, b))) {
                Some((row, b)) if row == r => checked.push(b.checked[i].clone()),
                _ => checked.push(check_rule(r)?),
            }
        }
        let vetoes = Arc::new(unless::Vetoes::new(&checked));
        let scanner = Arc::new(scan::Scanner::new(&rules, checked));
        Ok(RuleSet {
            rules: rules.into(),
            scanner,
            vetoes,
        })
    }

    pub fn rules(&self) -> &[Rule] {
        &self.rules
    }

    /// The distinct required literals the `Literal` strategy searches for
    /// (for the measurement harness).
    #[doc(hidden)]
    pub fn required_literals(&self) -> Vec<Vec<u8>> {
        self.scanner.literal_list()
    }

    /// Per distinct required literal, the ids of the rules requiring it
    /// (for the measurement harness: who pays for a common literal).
    #[doc(hidden)]
    pub fn literal_owners(&self) -> Vec<(Vec<u8>, Vec<String>)> {
        self.scanner
            .literal_owners()
            .into_iter()
            .map(|(l, rs)| (l, rs.iter().map(|&i| self.rules[i].id.clone()).collect()))
            .collect()
    }

    /// Occurrences of the required literals in `text`, by the `Literal`
    /// strategy's one pass alone (for the measurement harness).
    #[doc(hidden)]
    pub fn literal_occurrences(&self, text: &str) -> usize {
        self.scanner.literal_occurrences(text)
    }

    /// Per rule of the table, whether the literal prefilter lets it run on
    /// `text` at all: `false` must mean the rule has no match in `text`
    /// (for the `prefilter` fuzz target and tests).
    #[doc(hidden)]
    pub fn prefilter_candidates(&self, text: &str) -> Vec<bool> {
        self.scanner.candidates(text)
    }

    /// Each matching rule once, at its first match, in table order.
    /// `when: success` rules are skipped when `text` already shows failure
    /// (`markers::shows_failure`).
    pub fn scan(&self, text: &str) -> Vec<RuleMatch> {
        self.scan_after(text, crate::markers::shows_failure(text))
    }

    /// `scan` with the failure status decided by the caller — for scanned
    /// text that has more than the shell output (the value JSON is appended
    /// after the harness markers, so the markers are no longer trailing).
    pub fn scan_after(&self, text: &str, already_failed: bool) -> Vec<RuleMatch> {
        self.scan_with(text, already_failed, self.scanner.default_strategy())
    }

    /// `scan_after` with an explicit strategy (for the measurement harness and
    /// the strategy-equivalence tests).
    #[doc(hidden)]
    pub fn scan_with(
        &self,
        text: &str,
        already_failed: bool,
        strategy: Strategy,
    ) -> Vec<RuleMatch> {
        let eligible = |i: usize| {
            let r = &self.rules[i];
            r.action != Action::Off && !(already_failed && r.when == When::Success)
        };
        self.scanner
            .first_matches(text, strategy, &eligible)
            .into_iter()
            // A rule with `unless`: its first match that is not vetoed, if any.
            .filter_map(|(i, start)| Some((i, self.vetoes.first_unvetoed(i, text, start)?)))
            .map(|(i, start)| {
                let r = &self.rules[i];
                let (line, excerpt) = line_and_excerpt(text, start);
                RuleMatch {
                    rule: i,
                    id: r.id.clone(),
                    message: r.message.clone(),
                    action: r.action,
                    line,
                    excerpt,
                }
            })
            .collect()
    }
}

pub const EXCERPT_CHARS: usize = 200;

/// `\n` bytes in `bytes`. A match in the last line of 10 MB counted ~10 MB of
/// newlines byte by byte (~3.5 ms, a third of the scan); per 255-byte chunk
/// the count fits a `u8`, which the compiler sums 16 bytes at a time.
fn count_newlines(bytes: &[u8]) -> usize {
    bytes
        .chunks(255)
        .map(|c| c.iter().fold(0u8, |n, &b| n + u8::from(b == b'\n')) as usize)
        .sum()
}

/// Line number (1-based, `\n`-separated) of byte offset `pos` and that line's excerpt.
pub fn line_and_excerpt(text: &str, pos: usize) -> (usize, String) {
    let before = &text.as_bytes()[..pos];
    let line = 1 + count_newlines(before);
    let start = before
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |i| i + 1);
    let end = text.as_bytes()[pos..]
        .iter()
        .position(|&b| b == b'\n')
        .map_or(text.len(), |i| pos + i);
    let trimmed = text[start..end].trim();
    let mut excerpt: String = trimmed.chars().take(EXCERPT_CHARS).collect();
    if excerpt.len() < trimmed.len() {
        excerpt.push('…');
    }
    (line, excerpt)
}

#[cfg(test)]
mod tests;
