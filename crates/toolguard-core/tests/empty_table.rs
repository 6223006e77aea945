//! Its own test binary, so its own process: whether the built-in table was
//! loaded is a per-process fact, which other tests in a shared binary would
//! change.

use toolguard_core::rules::{builtin_table_loaded, RuleSet};

/// The native hook builds an empty table for a call it does not scan (most
/// calls); loading the built-ins there cost it ~80M instructions a call.
#[test]
fn an_empty_table_does_not_load_the_builtins() {
    let set = RuleSet::compile_table(Vec::new()).unwrap();
    assert!(set.rules().is_empty());
    assert!(!builtin_table_loaded());
    RuleSet::compile(Vec::new()).unwrap();
    assert!(builtin_table_loaded());
}
