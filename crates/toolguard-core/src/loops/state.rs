//! An agent's window saved as a string and read back ([`Loops::state`],
//! [`Loops::restore`]): hex digests and flags, versioned by [`STATE_VERSION`].

use std::collections::VecDeque;

use super::detect::About;
use super::entry::{Active, AgentLoops, Entry};
use super::{LoopKind, Loops};

impl Loops {
    /// The agent's window as a string (hex digests), for callers that carry
    /// state across processes; `None` when it has none. Opaque to them: its
    /// first field is the format's version ([`STATE_VERSION`]).
    pub fn state(&self, agent: &str) -> Option<String> {
        let s = self.agents.get(agent)?;
        let mut out = format!("{STATE_VERSION}.{:x}.", s.ordinal);
        match s.active {
            Some(a) => out.push_str(&format!(
                "{}:{:x}:{:x}:{:x}:{:x}:{:016x}:{:x}:{:x}:{}:{}",
                a.kind.code(),
                a.count,
                a.calls,
                a.period,
                a.reminders,
                a.next_call,
                a.first_ordinal,
                a.last_ordinal,
                u8::from(a.failing),
                a.about.code()
            )),
            None => out.push('-'),
        }
        out.push('.');
        match s.denied {
            Some(d) => out.push_str(&format!("{d:016x}")),
            None => out.push('-'),
        }
        for e in &s.entries {
            out.push_str(&format!(
                ".{:016x}{:016x}{:016x}{:016x}{:016x}{:016x}{:x}:{:x}:{:x}:{:x}:{}",
                e.call,
                e.result,
                e.raw,
                e.sig,
                e.bare,
                e.tool,
                e.flags,
                e.ordinal,
                e.time,
                e.effect,
                u8::from(e.attempt)
            ));
        }
        Some(out)
    }

    /// Put back a window saved with [`Loops::state`] (the newest `window`
    /// calls of it). A state of another version (an older toolguard's) or
    /// of no known form at all starts the agent afresh: losing a window
    /// costs a few calls of detection, refusing the state would cost the
    /// call. Only a damaged state of this version is an error.
    pub fn restore(&mut self, agent: &str, state: &str) -> Result<(), String> {
        if state.split('.').next() != Some(STATE_VERSION) {
            self.agents.remove(agent);
            return Ok(());
        }
        let restored = parse_state(state, self.window)
            .ok_or_else(|| "toolguard: state.loops is not a saved loop state".to_owned())?;
        self.agents.insert(agent.to_owned(), restored);
        Ok(())
    }
}

/// The version tag that starts a saved loop state ([`Loops::state`]); a
/// change to what the state holds changes it.
pub const STATE_VERSION: &str = "L3";

/// A state of this version back into an agent's window (`None`: damaged).
fn parse_state(state: &str, window: usize) -> Option<AgentLoops> {
    let mut parts = state.split('.');
    if parts.next() != Some(STATE_VERSION) {
        return None;
    }
    let hex = |s: &str| u64::from_str_radix(s, 16).ok();
    let ordinal = hex(parts.next()?)?;
    let active = match parts.next()? {
        "-" => None,
        a => {
            let f: Vec<&str> = a.split(':').collect();
            if f.len() != 10 {
                return None;
            }
            Some(Active {
                kind: LoopKind::from_code(f[0].parse().ok()?)?,
                count: hex(f[1])?,
                calls: hex(f[2])?,
                period: hex(f[3])?.max(1),
                reminders: hex(f[4])?,
                next_call: hex(f[5])?,
                first_ordinal: hex(f[6])?,
                last_ordinal: hex(f[7])?,
                failing: match f[8] {
                    "0" => false,
                    "1" => true,
                    _ => return None,
                },
                about: About::from_code(f[9])?,
            })
        }
    };
    let denied = match parts.next()? {
        "-" => None,
        d => Some(hex(d)?),
    };
    let mut entries = VecDeque::new();
    for e in parts {
        if e.len() < 103 || !e.is_ascii() {
            return None;
        }
        let mut tail = e[96..].split(':');
        let (flags, ord, time, effect, attempt) = (
            tail.next()?,
            tail.next()?,
            tail.next()?,
            tail.next()?,
            tail.next()?,
        );
        if tail.next().is_some() {
            return None;
        }
        entries.push_back(Entry {
            call: hex(&e[0..16])?,
            result: hex(&e[16..32])?,
            raw: hex(&e[32..48])?,
            sig: hex(&e[48..64])?,
            bare: hex(&e[64..80])?,
            tool: hex(&e[80..96])?,
            flags: u8::from_str_radix(flags, 16).ok()?,
            ordinal: hex(ord)?,
            time: hex(time)?,
            effect: u8::from_str_radix(effect, 16).ok()?,
            attempt: match attempt {
                "0" => false,
                "1" => true,
                _ => return None,
            },
        });
        if entries.len() > window {
            entries.pop_front();
        }
    }
    Some(AgentLoops {
        entries,
        ordinal,
        active,
        denied,
    })
}

/// The codes a saved state names a loop kind and its calls by.
impl LoopKind {
    pub(super) fn code(self) -> u8 {
        match self {
            LoopKind::Repeat => 1,
            LoopKind::Cycle => 2,
            LoopKind::SameError => 3,
            LoopKind::ReRead => 4,
            LoopKind::Redo => 5,
        }
    }

    pub(super) fn from_code(code: u8) -> Option<Self> {
        Some(match code {
            1 => LoopKind::Repeat,
            2 => LoopKind::Cycle,
            3 => LoopKind::SameError,
            4 => LoopKind::ReRead,
            5 => LoopKind::Redo,
            _ => return None,
        })
    }
}

impl About {
    pub(super) fn code(self) -> &'static str {
        match self {
            About::Calls => "c",
            About::Polls => "p",
            About::EndedJob => "e",
            About::Reruns => "r",
            About::Undo => "u",
        }
    }

    pub(super) fn from_code(code: &str) -> Option<Self> {
        Some(match code {
            "c" => About::Calls,
            "p" => About::Polls,
            "e" => About::EndedJob,
            "r" => About::Reruns,
            "u" => About::Undo,
            _ => return None,
        })
    }
}

#[cfg(test)]
mod tests {
    use crate::loops::testing::*;

    #[test]
    fn state_round_trips_and_is_bounded() {
        let mut l = loops();
        for _ in 0..2 {
            l.observe(
                "a",
                "bash",
                PYTEST,
                &LoopOutcome {
                    text: "x",
                    ..Default::default()
                },
            );
        }
        let saved = l.state("a").unwrap();
        let mut fresh = loops();
        fresh.restore("a", &saved).unwrap();
        assert_eq!(fresh.state("a").unwrap(), saved);
        let alarm = fresh.observe(
            "a",
            "bash",
            PYTEST,
            &LoopOutcome {
                text: "x",
                ..Default::default()
            },
        );
        assert_eq!(alarm.map(|a| (a.count, a.calls)), Some((3, vec![1, 2, 3])));
        assert!(
            fresh.restore("b", "L3.zz").is_err(),
            "a damaged state of this version"
        );
        for i in 0..1000 {
            l.observe(
                "a",
                "bash",
                &format!(r#"{{"n":{i}}}"#),
                &LoopOutcome {
                    text: "x",
                    ..Default::default()
                },
            );
        }
        assert_eq!(l.agents["a"].entries.len(), LoopsConfig::default().window);
    }

    #[test]
    fn an_old_or_foreign_state_starts_afresh() {
        let mut l = loops();
        let out = LoopOutcome {
            text: "x",
            ..Default::default()
        };
        for _ in 0..2 {
            l.observe("a", "bash", PYTEST, &out);
        }
        // A state of the previous format (v1: `L1.`, 5 active fields), one
        // from nowhere, and an empty one: each leaves the agent with no
        // window (and drops what it had), never an error.
        let old = "L1.2.-.-.00000000000000010000000000000002000000000000000300000000000000040000000000000005:1";
        // v2 (`L2.`): entries without the bare error signature.
        let v2 = "L2.2.-.-.00000000000000010000000000000002000000000000000300000000000000040000000000000005:1:0:1";
        for foreign in [old, v2, "nonsense", "", "L9.1.-.-", "{\"window\":[1]}"] {
            assert_eq!(l.restore("a", foreign), Ok(()), "{foreign:?}");
            assert!(l.state("a").is_none(), "{foreign:?} left a window");
        }
        let r = run(&mut l, &[("bash", PYTEST, "x", false); 3]);
        assert_eq!(r, [None, None, Some(("repeat", 3))], "counted from zero");
    }
}
