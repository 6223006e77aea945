//! Rule compilation from arbitrary pattern text: the JavaScript → Rust regex
//! dialect translation, then the size-limited compile. Must never panic;
//! a pattern is either rejected with a reason or compiles and runs.
#![no_main]

use libfuzzer_sys::fuzz_target;
use toolguard_core::rules::{compile_rule, dialect, Action, Rule, When};

const FLAG_SETS: [&str; 8] = ["", "i", "m", "s", "u", "iu", "imsu", "mu"];

fuzz_target!(|data: &[u8]| {
    let Some((&selector, rest)) = data.split_first() else {
        return;
    };
    let pattern = String::from_utf8_lossy(rest);
    let flags = FLAG_SETS[usize::from(selector) % FLAG_SETS.len()];
    // Translation alone: an error is a reason string, never a panic.
    let translated = dialect::translate(&pattern, flags);
    let rule = Rule {
        id: "fuzz".into(),
        pattern: pattern.into_owned(),
        flags: flags.into(),
        action: Action::Error,
        when: When::Always,
        message: "fuzz".into(),
        reason: String::new(),
        unless: None,
    };
    match compile_rule(&rule) {
        Ok(regex) => {
            assert!(translated.is_ok(), "compiled although translation failed");
            // A compiled rule runs on arbitrary text (including the pattern itself).
            let _ = regex.find(&rule.pattern);
            let _ = regex.find("error: x\r\n\u{2028}😀 \0 Traceback");
        }
        Err(error) => assert!(
            error.to_string().starts_with("loud-failure: rule fuzz: "),
            "{error}"
        ),
    }
});
