//! A whole observe sequence on the plain-Rust engine: calls of a few agents
//! with arbitrary tool names, argument text and output, plus resets and
//! forgets, under a config picked by the input (thresholds, include/exclude
//! wildcards, a tiny preview cap, optionally a user rule from the input).
//!
//! A model that keeps each agent's full canonical key (the official plugin's
//! algorithm) says which calls are due a reminder; the engine, which keeps
//! only a digest, must agree on every call, and on the number of live agents.
#![no_main]

use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

use libfuzzer_sys::fuzz_target;
use toolguard_core::canonical::canonicalize_arguments;
use toolguard_core::config::{Config, LoudFailureConfig, RepeatConfig};
use toolguard_core::engine::{Call, Engine, FailureAction, Output, Scanner};
use toolguard_core::markers::{reports_exit_zero, shows_failure};
use toolguard_core::rules::{Action, Rule, RuleSet, When};

const AGENTS: [&str; 4] = ["a", "b", "c", "d"];
const TOOLS: [&str; 6] = ["bash", "pwsh", "job_output", "grep", "todo_write", "read.x"];

struct Input<'a>(&'a [u8]);

impl<'a> Input<'a> {
    fn byte(&mut self) -> Option<u8> {
        let (&b, rest) = self.0.split_first()?;
        self.0 = rest;
        Some(b)
    }
    /// A length-prefixed (one byte, ×4) piece of text, lossy UTF-8.
    fn text(&mut self) -> Option<String> {
        let len = (usize::from(self.byte()?) * 4).min(self.0.len());
        let (piece, rest) = self.0.split_at(len);
        self.0 = rest;
        Some(String::from_utf8_lossy(piece).into_owned())
    }
}

fn config(selector: u8, input: &mut Input) -> Option<Config> {
    let thresholds = match selector % 4 {
        0 => vec![3, 5, 8],
        1 => vec![2],
        2 => vec![2, 3, 4],
        _ => vec![4, 1000],
    };
    let (include, exclude) = match (selector >> 2) % 4 {
        0 => (vec![], vec![]),
        1 => (vec![], vec!["todo_*".to_string()]),
        2 => (vec!["*a*".to_string()], vec![]),
        _ => (vec!["b*".into(), "read.x".into()], vec!["*h".into()]),
    };
    let mut rules = Vec::new();
    if selector & 0x10 != 0 {
        rules.push(Rule {
            id: "user".into(),
            pattern: input.text()?,
            flags: ["", "m", "i", "imsu"][usize::from(selector >> 5) % 4].into(),
            action: if selector & 0x80 != 0 {
                Action::Error
            } else {
                Action::Context
            },
            when: When::Always,
            message: "user rule".into(),
            reason: String::new(),
            unless: None,
        });
    }
    Some(Config {
        repeat: RepeatConfig {
            thresholds,
            include,
            exclude,
            // Tiny caps cut the preview inside multi-byte and astral characters.
            arguments_preview_chars: usize::from(selector % 7) + 1,
        },
        loud_failure: LoudFailureConfig {
            rules,
            ..LoudFailureConfig::default()
        },
        // The invariants below are the DSH chain's; the loop detectors are
        // covered by their unit tests, not by this target.
        loops: None,
        exact_mode: false,
    })
}

fuzz_target!(|data: &[u8]| {
    let mut input = Input(data);
    let Some(selector) = input.byte() else { return };
    let Some(config) = config(selector, &mut input) else {
        return;
    };
    // Compiling the built-in table per input would cap the run at a few
    // inputs a second: it is compiled once and shared; a user rule runs alone.
    let scanner = if config.loud_failure.rules.is_empty() {
        static BUILTIN: OnceLock<Arc<Scanner>> = OnceLock::new();
        Arc::clone(BUILTIN.get_or_init(|| {
            Arc::new(Scanner::new(&LoudFailureConfig::default()).expect("built-ins compile"))
        }))
    } else {
        // An arbitrary user pattern may be rejected; that is a load error, not a crash.
        let Ok(rules) = RuleSet::compile_table(config.loud_failure.rules.clone()) else {
            return;
        };
        Arc::new(Scanner::with_rules(rules, &config.loud_failure))
    };
    let mut engine = Engine::with_scanner(&config.repeat, scanner);
    let mut model: HashMap<&str, (String, String, u64)> = HashMap::new();
    while let Some(op) = input.byte() {
        let agent = AGENTS[usize::from(op & 3)];
        match op >> 6 {
            0 => {
                engine.reset(agent);
                model.remove(agent);
            }
            1 => {
                engine.forget(agent);
                model.remove(agent);
            }
            _ => {
                let name = TOOLS[usize::from((op >> 2) & 7) % TOOLS.len()];
                let Some(arguments) = input.text() else { break };
                let Some(output) = input.text() else { break };
                let agentless = op & 0x20 != 0 && op & 0x10 != 0;
                let call = Call {
                    agent_id: (!agentless).then_some(agent),
                    name,
                    arguments_json: &arguments,
                };
                let texts: Vec<&str> = output.split('\u{1}').collect();
                let out = Output {
                    is_error: false,
                    texts,
                    value_json: None,
                    exit_statuses: None,
                    status_unrecorded: false,
                };
                let verdict = engine.observe(&call, Some(&out));

                // The model: the official key is (name, canonical form), kept whole.
                let mut expected = None;
                let tracked = (config.repeat.include.is_empty()
                    || config.repeat.include.iter().any(|p| wildcard(p, name)))
                    && !config.repeat.exclude.iter().any(|p| wildcard(p, name));
                if !agentless && tracked {
                    let mut canonical = String::new();
                    canonicalize_arguments(&arguments, &mut canonical);
                    let entry = model
                        .entry(agent)
                        .or_insert((String::new(), String::new(), 0));
                    if entry.0 == name && entry.1 == canonical {
                        entry.2 += 1;
                    } else {
                        *entry = (name.to_string(), canonical, 1);
                    }
                    if config.repeat.thresholds.contains(&entry.2) {
                        expected = Some(entry.2);
                    }
                }
                let reminder = verdict.as_ref().and_then(|v| v.reminder.as_ref());
                assert_eq!(reminder.map(|r| r.count), expected, "reminder count");
                if let Some(r) = reminder {
                    assert_eq!(r.summary, format!("{name} × {}", r.count));
                    assert_eq!(r.tool, name);
                }
                if let Some(failure) = verdict.as_ref().and_then(|v| v.failure.as_ref()) {
                    // The one default shell-tool list (rules/shell-tools.json).
                    assert!(
                        toolguard_core::shell::is_shell_tool(name),
                        "{name} scanned"
                    );
                    assert!(!failure.rules.is_empty());
                    assert!(failure.summary.starts_with(&format!("{name}: ")));
                    let original = out.texts.join("\n");
                    if failure.action == FailureAction::Error {
                        assert!(failure
                            .text
                            .ends_with(&format!("\nOriginal output:\n{original}")));
                        // The header claims exit 0 only where the output reported it.
                        let head = if shows_failure(&original) {
                            "output shows a failure:"
                        } else if reports_exit_zero(&original) {
                            "exited 0 but"
                        } else {
                            "reported no error but"
                        };
                        assert!(failure.text.contains(head), "{}", failure.text);
                    }
                }
            }
        }
        assert_eq!(engine.agents(), model.len(), "live agents");
    }
});

/// The official wildcard: anchored, `*` = any run of non-line-terminators.
fn wildcard(pattern: &str, name: &str) -> bool {
    let parts: Vec<&str> = pattern.split('*').collect();
    if parts.len() == 1 {
        return pattern == name;
    }
    let (first, last) = (parts[0], parts[parts.len() - 1]);
    if !name.starts_with(first) || !name.ends_with(last) || name.len() < first.len() + last.len() {
        return false;
    }
    let mut rest = &name[first.len()..name.len() - last.len()];
    for part in &parts[1..parts.len() - 1] {
        match rest.find(part) {
            Some(i) => rest = &rest[i + part.len()..],
            None => return false,
        }
    }
    true
}
