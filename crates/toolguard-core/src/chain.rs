//! Per-agent repeat chains: which calls are tracked, the run length, and the
//! reminder texts of `@deepseek-ai/dsh-repeat-tool-reminder@0.1.0-rc.8`.

use std::collections::HashMap;

use crate::digest::xxh3_128;
use regex::Regex;

use crate::canonical::canonicalize_arguments;
use crate::config::RepeatConfig;
use crate::error::Error;

/// The gentle reminder at `thresholds[0]` (official text, byte for byte).
pub const GENTLE_REMINDER: &str = "You are repeating the exact same tool call with identical arguments. Carefully analyze the previous result before calling again: if the task is not complete, try a different approach or different arguments instead of repeating the call.";

/// One `*`-wildcard pattern compiled the way the official `wildcardToRegExp`
/// does: anchored, `*` is JavaScript's `.*` (a run of anything but a line
/// terminator), every other character literal, case-sensitive.
#[derive(Debug, Clone)]
pub struct Wildcard(WildcardMatcher);

/// A pattern without `*` (most tool lists: `Bash`, `Edit`…) matches exactly
/// one name: a string comparison. Compiling it as a regex cost ~40k
/// instructions each, most of a hook process's work on an unscanned call.
#[derive(Debug, Clone)]
enum WildcardMatcher {
    Exact(String),
    Pattern(Regex),
}

impl Wildcard {
    pub fn new(pattern: &str) -> Self {
        if !pattern.contains('*') {
            return Self(WildcardMatcher::Exact(pattern.to_owned()));
        }
        let body: Vec<String> = pattern.split('*').map(regex::escape).collect();
        let source = format!("^(?:{})$", body.join("[^\n\r\u{2028}\u{2029}]*"));
        // Escaped literals and one fixed class: the pattern is always valid, and
        // its size grows linearly with the config text.
        Self(WildcardMatcher::Pattern(
            Regex::new(&source).expect("wildcard regex is built from escaped literals"),
        ))
    }

    pub fn matches(&self, name: &str) -> bool {
        match &self.0 {
            WildcardMatcher::Exact(exact) => exact == name,
            WildcardMatcher::Pattern(regex) => regex.is_match(name),
        }
    }
}

/// Whether any pattern matches `name`.
pub fn any_match(patterns: &[Wildcard], name: &str) -> bool {
    patterns.iter().any(|p| p.matches(name))
}

/// A reminder the chain produced for one call.
#[derive(Debug, Clone, PartialEq)]
pub struct Reminder {
    pub tool: String,
    pub count: u64,
    /// UTF-16 code units: the official preview cuts by code unit and can leave
    /// half of a surrogate pair, which a Rust `String` cannot hold.
    pub text: Vec<u16>,
    pub summary: String,
}

impl Reminder {
    pub fn text_lossy(&self) -> String {
        String::from_utf16_lossy(&self.text)
    }
}

/// What an agent's chain remembers: a fixed-size digest of the last tracked
/// call's key, never the canonical text, so memory does not grow with
/// argument size.
#[derive(Debug, Clone, Copy)]
struct Chain {
    digest: u128,
    count: u64,
}

#[derive(Debug)]
pub struct Chains {
    thresholds: Vec<u64>,
    include: Vec<Wildcard>,
    exclude: Vec<Wildcard>,
    preview_chars: usize,
    chains: HashMap<String, Chain>,
    /// `name \0 canonical` of the current call, reused between calls so a
    /// steady stream of calls allocates nothing.
    key: String,
}

impl Chains {
    pub fn new(config: &RepeatConfig) -> Self {
        Self {
            thresholds: config.thresholds.clone(),
            include: config.include.iter().map(|p| Wildcard::new(p)).collect(),
            exclude: config.exclude.iter().map(|p| Wildcard::new(p)).collect(),
            preview_chars: config.arguments_preview_chars,
            chains: HashMap::new(),
            key: String::new(),
        }
    }

    /// Whether a tool takes part in chains (untracked calls are transparent).
    pub fn tracks(&self, name: &str) -> bool {
        (self.include.is_empty() || any_match(&self.include, name))
            && !any_match(&self.exclude, name)
    }

    /// Advance `agent`'s chain by one call whose raw argument text is
    /// `arguments_json`, and return the reminder due at this run length.
    pub fn advance(&mut self, agent: &str, name: &str, arguments_json: &str) -> Option<Reminder> {
        if !self.tracks(name) {
            return None;
        }
        // One buffer `name \0 canonical`, hashed in one shot: canonical JSON
        // never holds a raw NUL, so the last NUL separates the pair
        // unambiguously, as the official key's JSON form does.
        self.key.clear();
        self.key.push_str(name);
        self.key.push('\0');
        canonicalize_arguments(arguments_json, &mut self.key);
        self.advance_key(agent, name)
    }

    /// [`Chains::advance`] for arguments already in canonical form (a
    /// binding that wrote them from the argument values): canonicalising
    /// them again, a second pass over every byte, is skipped (a 4 KB edit:
    /// a third of its call).
    pub fn advance_canonical(
        &mut self,
        agent: &str,
        name: &str,
        canonical: &str,
    ) -> Option<Reminder> {
        if !self.tracks(name) {
            return None;
        }
        self.key.clear();
        self.key.push_str(name);
        self.key.push('\0');
        self.key.push_str(canonical);
        self.advance_key(agent, name)
    }

    /// The chain step for the key `name \0 canonical` in `self.key`.
    fn advance_key(&mut self, agent: &str, name: &str) -> Option<Reminder> {
        let digest = xxh3_128(self.key.as_bytes());
        let canonical = &self.key[name.len() + 1..];
        let count = match self.chains.get_mut(agent) {
            Some(chain) => {
                chain.count = if chain.digest == digest {
                    chain.count.saturating_add(1)
                } else {
                    1
                };
                chain.digest = digest;
                chain.count
            }
            None => {
                self.chains
                    .insert(agent.to_owned(), Chain { digest, count: 1 });
                1
            }
        };
        if !self.thresholds.contains(&count) {
            return None;
        }
        let text = if count == self.thresholds[0] {
            GENTLE_REMINDER.encode_utf16().collect()
        } else {
            detailed_reminder(name, count, canonical, self.preview_chars)
        };
        Some(Reminder {
            tool: name.to_owned(),
            count,
            text,
            summary: format!("{name} × {count}"),
        })
    }

    /// The agent's chain starts over (the user spoke) or is dropped (the agent is gone).
    pub fn remove(&mut self, agent: &str) {
        self.chains.remove(agent);
        // A hash map keeps its peak capacity; after a wave of agents has gone,
        // give the memory back (halving keeps the cost amortised).
        let capacity = self.chains.capacity();
        if capacity > 1024 && self.chains.len() < capacity / 4 {
            self.chains.shrink_to(capacity / 2);
        }
    }

    /// An agent's chain as `(digest, count)`, for callers that must carry it
    /// across processes (the per-call hook CLI); `None` when it has none.
    pub fn state(&self, agent: &str) -> Option<(u128, u64)> {
        self.chains.get(agent).map(|c| (c.digest, c.count))
    }

    /// Put back a chain saved with [`Chains::state`]; a count of 0 is rejected
    /// because no tracked call leaves one.
    pub fn restore(&mut self, agent: &str, digest: u128, count: u64) -> Result<(), Error> {
        if count == 0 {
            return Err(Error::ChainCount);
        }
        self.chains
            .insert(agent.to_owned(), Chain { digest, count });
        Ok(())
    }

    /// Number of agents with a live chain.
    pub fn len(&self) -> usize {
        self.chains.len()
    }

    pub fn is_empty(&self) -> bool {
        self.chains.is_empty()
    }
}

fn detailed_reminder(name: &str, count: u64, canonical: &str, cap: usize) -> Vec<u16> {
    let mut text: Vec<u16> = format!(
        "Repeated tool call detected:\n- tool: {name}\n- consecutive_calls: {count}\n- arguments: "
    )
    .encode_utf16()
    .collect();
    push_preview(&mut text, canonical, cap);
    text.extend("\nThe repeated calls are not making progress. Do not call this tool with these exact arguments again. Inspect the latest result and choose a different action, different arguments, or finish the task if enough evidence has been gathered.".encode_utf16());
    text
}

/// The official `previewArguments`: lengths and the cut are in UTF-16 code units.
fn push_preview(text: &mut Vec<u16>, canonical: &str, cap: usize) {
    let start = text.len();
    text.extend(canonical.encode_utf16());
    let len = text.len() - start;
    if len > cap {
        text.truncate(start + cap);
        text.extend(format!("… (+{} more chars)", len - cap).encode_utf16());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chains(thresholds: &[u64], include: &[&str], exclude: &[&str], preview: usize) -> Chains {
        Chains::new(&RepeatConfig {
            thresholds: thresholds.to_vec(),
            include: include.iter().map(|s| s.to_string()).collect(),
            exclude: exclude.iter().map(|s| s.to_string()).collect(),
            arguments_preview_chars: preview,
        })
    }

    #[test]
    fn canonical_arguments_continue_the_chain_their_raw_text_started() {
        let mut c = chains(&[2, 3], &[], &["skip"], 500);
        let raw = r#"{ "b": 1, "a": "x\u0041" }"#;
        let mut canonical = String::new();
        canonicalize_arguments(raw, &mut canonical);
        assert_eq!(canonical, r#"{"a":"xA","b":1}"#);
        assert!(c.advance("a", "edit", raw).is_none());
        let second = c.advance_canonical("a", "edit", &canonical).unwrap();
        assert_eq!(second.count, 2);
        let third = c.advance("a", "edit", raw).unwrap();
        assert_eq!(third.count, 3);
        assert!(String::from_utf16_lossy(&third.text).contains(r#"{"a":"xA","b":1}"#));
        // Untracked tools stay transparent.
        assert!(c.advance_canonical("a", "skip", &canonical).is_none());
        assert_eq!(c.state("a").unwrap().1, 3);
    }

    #[test]
    fn wildcards_are_anchored_and_literal() {
        assert!(Wildcard::new("pr*").matches("probe"));
        assert!(!Wildcard::new("pr.be").matches("probe"));
        assert!(Wildcard::new("pr.be").matches("pr.be"));
        assert!(!Wildcard::new("bash").matches("bash2"));
        assert!(Wildcard::new("*").matches(""));
        assert!(
            !Wildcard::new("a*b").matches("a\nb"),
            "JavaScript `.` stops at line terminators"
        );
        assert!(Wildcard::new("(x)[y]{1}+?^$|\\").matches("(x)[y]{1}+?^$|\\"));
        assert!(!Wildcard::new("bash").matches("bas"));
        assert!(
            !Wildcard::new("bash").matches("bash\n"),
            "exact: no trailing newline"
        );
        assert!(Wildcard::new("").matches(""));
        assert!(!Wildcard::new("").matches("x"));
        assert!(Wildcard::new("a*").matches("a") && !Wildcard::new("a*").matches("ba"));
    }

    #[test]
    fn escalation_gentle_then_detailed_then_silent() {
        let mut c = chains(&[3, 5, 8], &[], &[], 500);
        let counts: Vec<Option<u64>> = (0..10)
            .map(|_| c.advance("a", "grep", r#"{"q":"x"}"#).map(|r| r.count))
            .collect();
        assert_eq!(
            counts,
            [
                None,
                None,
                Some(3),
                None,
                Some(5),
                None,
                None,
                Some(8),
                None,
                None
            ]
        );
        let mut c = chains(&[3, 5, 8], &[], &[], 500);
        let reminders: Vec<Reminder> = (0..5)
            .filter_map(|_| c.advance("a", "grep", r#"{"q":"x"}"#))
            .collect();
        assert_eq!(reminders[0].text_lossy(), GENTLE_REMINDER);
        assert_eq!(reminders[0].summary, "grep × 3");
        assert_eq!(
            reminders[1].text_lossy(),
            "Repeated tool call detected:\n- tool: grep\n- consecutive_calls: 5\n- arguments: {\"q\":\"x\"}\nThe repeated calls are not making progress. Do not call this tool with these exact arguments again. Inspect the latest result and choose a different action, different arguments, or finish the task if enough evidence has been gathered."
        );
    }

    #[test]
    fn untracked_calls_are_transparent_and_agents_independent() {
        let mut c = chains(&[2], &[], &["todo_*"], 500);
        assert!(c.advance("a", "grep", "{}").is_none());
        assert!(c.advance("a", "todo_write", "{}").is_none());
        assert!(c.advance("b", "grep", "{}").is_none());
        assert_eq!(c.advance("a", "grep", "{}").map(|r| r.count), Some(2));
        assert!(
            c.advance("a", "grep", r#"{"x":1}"#).is_none(),
            "a different call resets"
        );
        c.remove("a");
        assert!(
            c.advance("a", "grep", r#"{"x":1}"#).is_none(),
            "reset starts at 1"
        );
    }

    #[test]
    fn a_saved_chain_continues_in_a_fresh_engine() {
        let mut first = chains(&[3], &[], &[], 500);
        first.advance("a", "grep", "{}");
        first.advance("a", "grep", "{}");
        let (digest, count) = first.state("a").unwrap();
        assert_eq!(count, 2);
        let mut second = chains(&[3], &[], &[], 500);
        second.restore("a", digest, count).unwrap();
        assert_eq!(second.advance("a", "grep", "{}").map(|r| r.count), Some(3));
        assert!(second.restore("b", digest, 0).is_err());
        assert_eq!(second.state("nobody"), None);
    }

    #[test]
    fn forgetting_most_agents_returns_the_table_memory() {
        let mut c = chains(&[3], &[], &[], 500);
        for i in 0..100_000 {
            c.advance(&format!("agent-{i}"), "t", "{}");
        }
        let peak = c.chains.capacity();
        for i in 0..99_990 {
            c.remove(&format!("agent-{i}"));
        }
        assert_eq!(c.len(), 10);
        assert!(
            c.chains.capacity() < peak / 100,
            "{} of {peak}",
            c.chains.capacity()
        );
        assert_eq!(
            c.advance("agent-99995", "t", "{}"),
            None,
            "the survivors keep their chains"
        );
        assert_eq!(c.state("agent-99995").map(|s| s.1), Some(2));
    }

    #[test]
    fn preview_cuts_in_utf16_units() {
        let mut text = Vec::new();
        push_preview(&mut text, "😀abc", 1);
        assert_eq!(
            text,
            vec![
                0xD83D,
                '…' as u16,
                ' ' as u16,
                '(' as u16,
                '+' as u16,
                '4' as u16
            ]
            .into_iter()
            .chain(" more chars)".encode_utf16())
            .collect::<Vec<u16>>()
        );
        let mut text = Vec::new();
        push_preview(&mut text, "abc", 3);
        assert_eq!(String::from_utf16(&text).unwrap(), "abc");
    }
}
