//! What loops and silent failures cost: calls, wall time and tokens from the
//! first flaggable call until the agent moved on, read off a session's
//! timeline (the logs' own timestamps and usage). Definitions: README
//! "Waste" and docs/trace-format.md.
//!
//! Priced here, on the thread that audited the session (a batch's worker),
//! so the report's JSON leaves the worker finished and the caller's thread
//! only writes it (docs/audit-at-scale.md). The text and HTML reports
//! format these figures (ts/cli/waste.mts); nothing else computes them.

use std::collections::{HashMap, HashSet};

use serde::Serialize;

use crate::replay::CallSite;
use crate::report::{SessionReport, TimelineCall};

/// One episode's cost; every finding of the episode carries a copy.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct WasteJson {
    /// 1-based within the session; findings of one episode share it.
    pub episode: u64,
    /// `loop` or `failure`.
    pub kind: &'static str,
    /// The first flaggable call and the last before the agent moved on
    /// (call ids; null: the format has none).
    pub from: Option<String>,
    pub to: Option<String>,
    /// The call the agent moved on with; null: the log ended first (or it has no id).
    pub moved_on_at: Option<String>,
    /// The same calls by ordinal (every format has one).
    pub from_ordinal: u64,
    pub to_ordinal: u64,
    pub moved_on_at_ordinal: Option<u64>,
    pub calls: u64,
    /// None (null): the log has no timestamps for these calls.
    pub wall_ms: Option<u64>,
    /// None (null): the log has no token usage for these calls.
    pub tokens: Option<u64>,
    /// The episode runs past the timeline's bound: the figures cover its listed part.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub partial: bool,
}

/// The cost of a set of episodes, each call and each millisecond counted once.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct WasteTotals {
    pub episodes: u64,
    pub calls: u64,
    pub wall_ms: Option<u64>,
    pub tokens: Option<u64>,
    /// Episodes whose wall time or tokens the log cannot tell.
    pub episodes_without_time: u64,
    pub episodes_without_tokens: u64,
}

/// A session's waste: all its episodes, then the loops and the failures apart.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct WasteSummary {
    #[serde(flatten)]
    pub all: WasteTotals,
    #[serde(rename = "loop")]
    pub loops: WasteTotals,
    pub failure: WasteTotals,
}

struct Episode {
    waste: WasteJson,
    /// Timeline indexes of the episode's calls.
    members: Vec<usize>,
}

fn call_tokens(c: &TimelineCall) -> Option<u64> {
    (c.input_tokens.is_some() || c.output_tokens.is_some())
        .then(|| c.input_tokens.unwrap_or(0) + c.output_tokens.unwrap_or(0))
}

fn add(a: Option<u64>, b: Option<u64>) -> Option<u64> {
    match (a, b) {
        (None, b) => b,
        (a, None) => a,
        (Some(a), Some(b)) => Some(a + b),
    }
}

/// Call `i` repeats call `last` (the repeat chain's run length grew by one).
fn runs_on(calls: &[TimelineCall], i: usize, last: usize) -> bool {
    matches!((calls[i].repeat, calls[last].repeat), (Some(r), Some(l)) if r == l + 1)
}

/// The episode starting at timeline index `start`: the agent's later calls
/// while `continues(i, last)` holds. With `transparent`, calls of a tool the
/// repeat chain does not track (no `repeat`) are passed over as the chain
/// passes over them, inside the episode only when a continuing call follows.
fn episode_from(
    calls: &[TimelineCall],
    start: usize,
    kind: &'static str,
    continues: &dyn Fn(usize, usize) -> bool,
    transparent: bool,
    omitted: u64,
) -> (Vec<usize>, WasteJson) {
    let agent = &calls[start].agent_id;
    let mut members = vec![start];
    let mut pending: Vec<usize> = Vec::new();
    let mut last = start;
    let mut moved_on: Option<usize> = None;
    for (i, call) in calls.iter().enumerate().skip(start + 1) {
        if call.agent_id != *agent {
            continue;
        }
        if continues(i, last) {
            members.append(&mut pending);
            members.push(i);
            last = i;
        } else if transparent && call.repeat.is_none() {
            pending.push(i);
        } else {
            moved_on = Some(i);
            break;
        }
    }
    // The first call after the episode's last one is where the agent moved on.
    if let Some(&first_pending) = pending.first() {
        moved_on = Some(first_pending);
    }
    let (first, end) = (&calls[start], &calls[last]);
    let stop = end.end_time.or(end.time);
    let wall_ms = match (first.time, stop) {
        (Some(a), Some(b)) => Some(b.saturating_sub(a)),
        _ => None,
    };
    let tokens = members
        .iter()
        .fold(None, |n, &i| add(n, call_tokens(&calls[i])));
    let waste = WasteJson {
        episode: 0,
        kind,
        from: first.call_id.clone(),
        to: end.call_id.clone(),
        moved_on_at: moved_on.and_then(|i| calls[i].call_id.clone()),
        from_ordinal: first.ordinal,
        to_ordinal: end.ordinal,
        moved_on_at_ordinal: moved_on.map(|i| calls[i].ordinal),
        calls: members.len() as u64,
        wall_ms,
        tokens,
        partial: moved_on.is_none() && omitted > 0,
    };
    (members, waste)
}

fn totals(episodes: &[&Episode], calls: &[TimelineCall]) -> WasteTotals {
    let mut seen = HashSet::new();
    let mut spans: Vec<(u64, u64)> = Vec::new();
    let mut out = WasteTotals {
        episodes: episodes.len() as u64,
        ..WasteTotals::default()
    };
    for e in episodes {
        match (e.waste.wall_ms, calls[e.members[0]].time) {
            (Some(ms), Some(start)) => spans.push((start, start + ms)),
            _ => out.episodes_without_time += 1,
        }
        if e.waste.tokens.is_none() {
            out.episodes_without_tokens += 1;
        }
        for &i in &e.members {
            if seen.insert(i) {
                out.tokens = add(out.tokens, call_tokens(&calls[i]));
            }
        }
    }
    out.calls = seen.len() as u64;
    if episodes.is_empty() {
        // No episode wasted nothing: 0 ms and 0 tokens, not "the log cannot
        // tell" (null), which a page without findings showed as "n/a".
        out.wall_ms = Some(0);
        out.tokens = Some(0);
        return out;
    }
    // Overlapping episodes (a loop of failing calls) count their time once.
    spans.sort_unstable();
    let mut reach: Option<u64> = None;
    for (a, b) in spans {
        let from = reach.map_or(a, |r| a.max(r));
        out.wall_ms = Some(out.wall_ms.unwrap_or(0) + b.saturating_sub(from));
        reach = Some(reach.map_or(b, |r| r.max(b)));
    }
    out
}

type Key<'a> = (Option<&'a str>, u64);
fn key(site: &CallSite) -> Key<'_> {
    (site.agent_id.as_deref(), site.ordinal)
}

/// Group `sites` (findings, in report order) into episodes built by
/// `build` from the finding's timeline index; a finding inside an earlier
/// episode joins it. Returns each finding's waste (None: its call is past
/// the timeline's bound) in the order of `sites`.
fn claim(
    index: &HashMap<Key<'_>, usize>,
    sites: &[&CallSite],
    numbered: &mut u64,
    list: &mut Vec<Episode>,
    build: &dyn Fn(usize) -> (Vec<usize>, WasteJson),
) -> Vec<Option<WasteJson>> {
    let mut out = vec![None; sites.len()];
    // Findings in timeline order; ties (and unlisted calls, last) keep report order.
    let mut order: Vec<(usize, Option<usize>)> = sites
        .iter()
        .enumerate()
        .map(|(n, s)| (n, index.get(&key(s)).copied()))
        .collect();
    order.sort_by_key(|&(_, i)| i.unwrap_or(usize::MAX));
    let mut by_index: HashMap<usize, usize> = HashMap::new();
    for (n, i) in order {
        let Some(i) = i else { continue };
        let at = match by_index.get(&i) {
            Some(&at) => at,
            None => {
                let (members, mut waste) = build(i);
                *numbered += 1;
                waste.episode = *numbered;
                for &m in &members {
                    by_index.insert(m, list.len());
                }
                list.push(Episode { waste, members });
                list.len() - 1
            }
        };
        out[n] = Some(list[at].waste.clone());
    }
    out
}

impl SessionReport {
    /// Price the session's findings: sets `waste` on each finding (null when
    /// its call is past the timeline's bound) and on the session. Loop
    /// findings when there are any, else the repeat reminders (DSH's, with
    /// `loops: false`); failures always.
    pub fn price(&mut self) {
        let calls = &self.timeline.calls;
        let omitted = self.timeline.omitted;
        let index: HashMap<Key<'_>, usize> = calls
            .iter()
            .enumerate()
            .map(|(i, c)| ((c.agent_id.as_deref(), c.ordinal), i))
            .collect();
        let mut loops: Vec<Episode> = Vec::new();
        let mut failures: Vec<Episode> = Vec::new();
        let mut numbered = 0u64;
        let (loop_waste, reminder_waste) = if self.loops.is_empty() {
            // Repeat reminders fire at thresholds only: the episode runs on
            // while the agent repeats the same call (the chain's run length grows).
            let sites: Vec<&CallSite> = self.reminders.iter().map(|r| &r.site).collect();
            let build = |start| {
                episode_from(
                    calls,
                    start,
                    "loop",
                    &|i, last| runs_on(calls, i, last),
                    true,
                    omitted,
                )
            };
            (
                None,
                Some(claim(&index, &sites, &mut numbered, &mut loops, &build)),
            )
        } else {
            // A loop finding is one episode, from the call where it was raised
            // to its last call; the agent's next call moved on.
            let last_of: HashMap<usize, u64> = self
                .loops
                .iter()
                .filter_map(|l| index.get(&key(&l.site)).map(|&i| (i, l.last_call)))
                .collect();
            let sites: Vec<&CallSite> = self.loops.iter().map(|l| &l.site).collect();
            let build = |start: usize| {
                let last = last_of[&start];
                episode_from(
                    calls,
                    start,
                    "loop",
                    &|i, _| calls[i].ordinal <= last,
                    false,
                    omitted,
                )
            };
            (
                Some(claim(&index, &sites, &mut numbered, &mut loops, &build)),
                None,
            )
        };
        // A silent failure: the failing call and the agent's immediate retries of it.
        let sites: Vec<&CallSite> = self.failures.iter().map(|f| &f.site).collect();
        let build = |start| {
            episode_from(
                calls,
                start,
                "failure",
                &|i, last| runs_on(calls, i, last),
                true,
                omitted,
            )
        };
        let failure_waste = claim(&index, &sites, &mut numbered, &mut failures, &build);

        let all: Vec<&Episode> = loops.iter().chain(&failures).collect();
        let summary = WasteSummary {
            all: totals(&all, calls),
            loops: totals(&loops.iter().collect::<Vec<_>>(), calls),
            failure: totals(&failures.iter().collect::<Vec<_>>(), calls),
        };
        drop(index);
        for (l, w) in self.loops.iter_mut().zip(loop_waste.into_iter().flatten()) {
            l.waste = Some(w);
        }
        for (r, w) in self
            .reminders
            .iter_mut()
            .zip(reminder_waste.into_iter().flatten())
        {
            r.waste = Some(w);
        }
        for (f, w) in self.failures.iter_mut().zip(failure_waste) {
            f.waste = Some(w);
        }
        self.waste = Some(summary);
    }
}

#[cfg(test)]
mod tests {
    //! Hand-made timelines for the edge cases (the recorded sample is
    //! priced end to end in __test__/audit/waste.test.mjs).
    use super::*;
    use crate::detect::Format;
    use crate::report::{
        FailureFinding, LoopFinding, OutputContext, ReminderFinding, SessionReport, Timeline,
    };
    use toolguard_core::engine::FailureAction;

    /// `(callId, tool, repeat, time, endTime, tokens, agent)`.
    type Call = (
        &'static str,
        &'static str,
        Option<u64>,
        Option<u64>,
        Option<u64>,
        Option<u64>,
        &'static str,
    );
    fn c(id: &'static str, tool: &'static str, repeat: Option<u64>) -> Call {
        (id, tool, repeat, None, None, None, "a")
    }
    fn timed(
        id: &'static str,
        tool: &'static str,
        repeat: Option<u64>,
        time: u64,
        end: u64,
        tokens: u64,
    ) -> Call {
        (id, tool, repeat, Some(time), Some(end), Some(tokens), "a")
    }

    fn session(calls: &[Call], omitted: u64) -> SessionReport {
        let mut s = SessionReport::new("t".into(), Format::Trace);
        s.timeline = Timeline {
            calls: calls
                .iter()
                .enumerate()
                .map(
                    |(i, &(id, tool, repeat, time, end_time, tokens, agent))| TimelineCall {
                        ordinal: i as u64 + 1,
                        call_id: Some(id.into()),
                        tool: tool.into(),
                        agent_id: Some(agent.into()),
                        log_line: i as u64 + 1,
                        time,
                        end_time,
                        input_tokens: tokens,
                        output_tokens: tokens.map(|_| 0),
                        repeat,
                    },
                )
                .collect(),
            omitted,
        };
        s
    }
    fn at(s: &SessionReport, id: &str) -> CallSite {
        let c = s
            .timeline
            .calls
            .iter()
            .find(|c| c.call_id.as_deref() == Some(id))
            .unwrap();
        CallSite {
            ordinal: c.ordinal,
            call_id: c.call_id.clone(),
            agent_id: c.agent_id.clone(),
            line: c.log_line,
            ..CallSite::default()
        }
    }
    fn reminder(site: CallSite) -> ReminderFinding {
        ReminderFinding {
            site,
            count: 3,
            summary: String::new(),
            command: None,
            arguments: String::new(),
            text: String::new(),
            waste: None,
        }
    }
    fn failure(site: CallSite) -> FailureFinding {
        FailureFinding {
            site,
            rule_id: "x".into(),
            rule_action: "error",
            verdict: FailureAction::Error,
            line: 1,
            excerpt: String::new(),
            message: String::new(),
            command: None,
            summary: String::new(),
            text: String::new(),
            output_context: OutputContext {
                from: 1,
                lines: Vec::new(),
            },
            waste: None,
        }
    }
    fn looped(site: CallSite, last_call: u64) -> LoopFinding {
        LoopFinding {
            first_call: site.ordinal,
            site,
            kind: "cycle",
            count: 2,
            period: 2,
            last_call,
            last_log_line: last_call,
            calls: Vec::new(),
            summary: String::new(),
            evidence: String::new(),
            text: String::new(),
            reminders: 1,
            command: None,
            waste: None,
        }
    }
    fn waste_of(w: &Option<Option<WasteJson>>) -> &WasteJson {
        w.as_ref().unwrap().as_ref().unwrap()
    }
    fn id(s: &str) -> Option<String> {
        Some(s.into())
    }

    #[test]
    fn untracked_calls_inside_a_loop_count_in_it_after_its_last_repeat_they_are_where_it_moved_on()
    {
        let mut s = session(
            &[
                c("c1", "ls", Some(1)),
                c("c2", "ls", Some(2)),
                timed("c3", "ls", Some(3), 100, 110, 10),
                timed("t1", "todo", None, 120, 125, 5),
                timed("c4", "ls", Some(4), 130, 190, 10),
                timed("t2", "todo", None, 200, 201, 5),
                timed("d1", "cat", Some(1), 210, 220, 10),
            ],
            0,
        );
        s.reminders = vec![reminder(at(&s, "c3"))];
        s.price();
        assert_eq!(
            *waste_of(&s.reminders[0].waste),
            WasteJson {
                episode: 1,
                kind: "loop",
                from: id("c3"),
                to: id("c4"),
                moved_on_at: id("t2"),
                from_ordinal: 3,
                to_ordinal: 5,
                moved_on_at_ordinal: Some(6),
                calls: 3,
                wall_ms: Some(90),
                tokens: Some(25),
                partial: false,
            }
        );
        // The JSON form: keys in the documented order, no `partial` unless true.
        assert_eq!(
            serde_json::to_string(waste_of(&s.reminders[0].waste)).unwrap(),
            r#"{"episode":1,"kind":"loop","from":"c3","to":"c4","movedOnAt":"t2","fromOrdinal":3,"toOrdinal":5,"movedOnAtOrdinal":6,"calls":3,"wallMs":90,"tokens":25}"#
        );
    }

    #[test]
    fn other_agents_do_not_interrupt_an_episode_and_no_figures_without_timestamps_or_usage() {
        let mut s = session(
            &[
                c("a1", "ls", Some(1)),
                c("a2", "ls", Some(2)),
                c("a3", "ls", Some(3)),
                ("b1", "cat", Some(1), None, None, None, "b"),
                c("a4", "ls", Some(4)),
                c("a5", "cat", Some(1)),
            ],
            0,
        );
        s.reminders = vec![reminder(at(&s, "a3"))];
        s.price();
        let w = waste_of(&s.reminders[0].waste);
        assert_eq!(
            (&w.from, &w.to, &w.moved_on_at, w.calls, w.wall_ms, w.tokens),
            (&id("a3"), &id("a4"), &id("a5"), 2, None, None)
        );
        let total = s.waste.as_ref().unwrap();
        assert_eq!(
            (total.all.wall_ms, total.all.episodes_without_time),
            (None, 1)
        );
    }

    #[test]
    fn no_episode_costs_zero_not_unknown() {
        // A timed log without findings wasted 0 ms and 0 tokens; null would
        // say the log cannot tell (a Claude Code run page showed "n/a").
        let mut s = session(&[timed("a", "ls", Some(1), 0, 5, 10)], 0);
        s.price();
        let w = s.waste.as_ref().unwrap();
        for t in [&w.all, &w.loops, &w.failure] {
            assert_eq!(
                (t.episodes, t.calls, t.wall_ms, t.tokens),
                (0, 0, Some(0), Some(0))
            );
        }
    }

    #[test]
    fn a_failing_call_retried_as_is_and_overlapping_episodes_count_once_in_the_totals() {
        let mut s = session(
            &[
                timed("f1", "bash", Some(1), 0, 10, 100),
                timed("f2", "bash", Some(2), 20, 30, 100),
                timed("f3", "bash", Some(3), 40, 50, 100),
                timed("g1", "bash", Some(1), 60, 70, 100),
            ],
            0,
        );
        s.failures = vec![failure(at(&s, "f1")), failure(at(&s, "f2"))];
        s.reminders = vec![reminder(at(&s, "f3"))];
        s.price();
        assert_eq!(s.failures[0].waste, s.failures[1].waste);
        let f = waste_of(&s.failures[0].waste);
        assert_eq!(
            (f.calls, f.wall_ms, &f.moved_on_at),
            (3, Some(50), &id("g1"))
        );
        let r = waste_of(&s.reminders[0].waste);
        assert_eq!((r.calls, r.wall_ms), (1, Some(10)));
        // Union: three calls, 0..50 ms, 300 tokens; not 4 calls / 60 ms / 400.
        let all = &s.waste.as_ref().unwrap().all;
        assert_eq!(
            (all.episodes, all.calls, all.wall_ms, all.tokens),
            (2, 3, Some(50), Some(300))
        );
    }

    #[test]
    fn loop_findings_replace_reminders_from_the_call_raised_to_the_loops_last_call() {
        let mut s = session(
            &[
                timed("a", "read", Some(1), 0, 1, 1),
                timed("b", "grep", Some(1), 2, 3, 1),
                timed("a2", "read", Some(1), 4, 5, 1),
                timed("b2", "grep", Some(1), 6, 7, 1),
                timed("a3", "read", Some(1), 8, 9, 1),
                timed("n", "edit", Some(1), 10, 11, 1),
            ],
            0,
        );
        s.reminders = vec![reminder(at(&s, "a3"))];
        s.loops = vec![looped(at(&s, "b2"), 5), looped(at(&s, "a3"), 5)];
        s.price();
        let (first, second) = (waste_of(&s.loops[0].waste), waste_of(&s.loops[1].waste));
        assert_eq!(first.episode, second.episode);
        assert_eq!(
            (&first.from, &first.to, &first.moved_on_at, first.calls),
            (&id("b2"), &id("a3"), &id("n"), 2)
        );
        assert!(
            s.reminders[0].waste.is_none(),
            "reminders are not priced when loops are present"
        );
        assert_eq!(s.waste.as_ref().unwrap().loops.episodes, 1);
    }

    #[test]
    fn past_the_timeline_bound_no_waste_for_an_unlisted_call_partial_for_an_episode_running_off_it()
    {
        let mut s = session(
            &[
                c("c1", "ls", Some(1)),
                c("c2", "ls", Some(2)),
                timed("c3", "ls", Some(3), 0, 5, 1),
            ],
            10,
        );
        let unlisted = CallSite {
            ordinal: 99,
            call_id: id("c9"),
            agent_id: id("a"),
            line: 99,
            ..CallSite::default()
        };
        s.reminders = vec![reminder(at(&s, "c3")), reminder(unlisted)];
        s.price();
        assert!(waste_of(&s.reminders[0].waste).partial);
        assert_eq!(s.reminders[1].waste, Some(None));
        let json = s.to_json();
        assert!(json.contains(r#""partial":true}"#) && json.contains(r#""waste":null}"#));
    }
}
