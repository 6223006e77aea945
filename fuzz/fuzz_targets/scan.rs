//! Scanning arbitrary output with the built-in table. Checks the scan
//! strategies (one regex per rule, RegexSet passes, required-literal
//! prefilter) report the same matches, and every report is well-formed: table order, 1-based line within
//! the text, excerpt at most 200 characters plus `…`.
#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use toolguard_core::markers::shows_failure;
use toolguard_core::rules::{RuleSet, Strategy};

fn rules() -> &'static RuleSet {
    static RULES: OnceLock<RuleSet> = OnceLock::new();
    RULES.get_or_init(|| RuleSet::compile(Vec::new()).expect("built-in table compiles"))
}

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let failed = shows_failure(&text);
    let by_loop = rules().scan_with(&text, failed, Strategy::Loop);
    let by_set = rules().scan_with(&text, failed, Strategy::Set);
    assert_eq!(by_loop, by_set, "Set strategy disagrees with Loop");
    let by_literal = rules().scan_with(&text, failed, Strategy::Literal);
    assert_eq!(by_loop, by_literal, "Literal strategy disagrees with Loop");
    assert_eq!(rules().scan(&text), by_loop);
    let lines = 1 + text.matches('\n').count();
    let mut last = None;
    for m in &by_loop {
        assert!(last.is_none_or(|l| l < m.rule), "not in table order");
        last = Some(m.rule);
        assert!(m.line >= 1 && m.line <= lines, "line {} of {lines}", m.line);
        let chars = m.excerpt.chars().count();
        assert!(chars <= 201, "excerpt of {chars} chars");
        // The excerpt is the start of its (trimmed) line, cut or whole.
        let line = text.split('\n').nth(m.line - 1).unwrap().trim();
        let cut = if chars == 201 {
            m.excerpt.strip_suffix('…').unwrap()
        } else {
            m.excerpt.as_str()
        };
        assert!(
            line.starts_with(cut),
            "excerpt {:?} not from line {line:?}",
            m.excerpt
        );
    }
});
