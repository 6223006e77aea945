//! The detectors' common ground: their thresholds ([`Limits`]), the window
//! they read ([`Window`]), what they report ([`Found`]), and the dispatcher
//! that asks each in turn, most specific first. Each loop shape is a
//! function of its own file: `repeat.rs`, `cycle.rs`, `same_error.rs`,
//! `re_read.rs`, `rerun.rs`, `redo.rs`, `undo.rs`.

use std::collections::VecDeque;

use super::entry::{Entry, TRANSIENT};
use super::LoopKind;

/// The detectors' thresholds, apart from the rest of the config so they can
/// be read while an agent's window is borrowed.
#[derive(Debug, Clone, Copy)]
pub(super) struct Limits {
    pub(super) repeat: Option<u64>,
    pub(super) cycle: Option<u64>,
    pub(super) max_period: usize,
    pub(super) same_error: Option<u64>,
    pub(super) soft_error: Option<u64>,
    pub(super) re_read: Option<u64>,
    pub(super) transient_multiplier: u64,
    /// Polls of a running job with nothing new, in a row…
    pub(super) poll: Option<u64>,
    /// …over at least this long (ms; 0, or calls without times: the count alone).
    pub(super) poll_quiet_ms: u64,
}

/// Milliseconds from `from` to `to`, when both are known.
pub(super) fn span(from: u64, to: u64) -> Option<u64> {
    (from != 0 && to != 0).then(|| to.saturating_sub(from))
}

impl Limits {
    /// Whether polls that showed nothing new over `span_ms` have waited long
    /// enough to be a loop (unknown times: the count alone decides).
    pub(super) fn quiet_long(&self, span_ms: Option<u64>) -> bool {
        span_ms.is_none_or(|ms| ms >= self.poll_quiet_ms)
    }

    pub(super) fn threshold(
        &self,
        base: Option<u64>,
        multiplier: f64,
        transient: bool,
    ) -> Option<u64> {
        let base = base?;
        let mut t = (base as f64 * multiplier).ceil().max(2.0) as u64;
        if transient {
            t = t.saturating_mul(self.transient_multiplier);
        }
        Some(t)
    }

    /// The loop the window's newest call is in, if any (`multiplier`: the
    /// tool's): the first detector, in this order, that finds one.
    pub(super) fn detect(&self, entries: &VecDeque<Entry>, multiplier: f64) -> Option<Found> {
        let w = Window::new(entries, multiplier)?;
        self.repeat(&w)
            .or_else(|| self.cycle(&w))
            .or_else(|| self.same_error(&w))
            .or_else(|| self.re_read(&w))
            .or_else(|| self.rerun(&w))
            .or_else(|| self.redo(&w))
            .or_else(|| self.undo(&w))
    }
}

/// An agent's window as every detector reads it, newest call first.
pub(super) struct Window<'a> {
    entries: &'a VecDeque<Entry>,
    /// The newest call: the one a loop is looked for at.
    pub(super) last: Entry,
    /// Calls in the window.
    pub(super) n: usize,
    /// The newest call failed transiently: thresholds × `transientMultiplier`.
    pub(super) transient: bool,
    /// The newest call's tool's multiplier.
    pub(super) multiplier: f64,
}

impl<'a> Window<'a> {
    fn new(entries: &'a VecDeque<Entry>, multiplier: f64) -> Option<Self> {
        let last = *entries.back()?;
        Some(Window {
            entries,
            last,
            n: entries.len(),
            transient: last.flags & TRANSIENT != 0,
            multiplier,
        })
    }

    /// The call `i` back from the newest (0 = the newest).
    pub(super) fn at(&self, i: usize) -> Entry {
        self.entries[self.n - 1 - i]
    }
}

pub(super) struct Found {
    pub(super) kind: LoopKind,
    pub(super) count: u64,
    pub(super) period: u64,
    /// The loop's calls by ordinal, oldest first.
    pub(super) calls: Vec<u64>,
    pub(super) next_call: u64,
    pub(super) transient: bool,
    /// What the loop's calls do, for the alarm's words.
    pub(super) about: About,
    /// Wall time from the loop's oldest call in the window to its newest (ms), when known.
    pub(super) span_ms: Option<u64>,
    /// Same error: how many of its calls differ (fewer than `count` when
    /// some were retried word for word); 0 for the other kinds.
    pub(super) distinct: u64,
    /// Same error: other calls of the tool came between its failures; a
    /// re-run: the same attempt was made again (the same steps before it).
    pub(super) scattered: bool,
    /// Undo: a failing run since the previous restore and the same run with
    /// the same result before it (ordinals, earlier first).
    pub(super) echo: Option<(u64, u64)>,
}

/// What a loop's calls are, as far as the alarm's text must be true for them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum About {
    Calls,
    /// Polls of a job that has not ended: waiting.
    Polls,
    /// Polls of a job that has ended.
    EndedJob,
    /// Runs or tests with the same failure, other calls in between.
    Reruns,
    /// The same restore, with attempts between that end as before.
    Undo,
}

impl Found {
    /// A loop of `kind` over `calls` (ordinals, oldest first) at the
    /// window's newest call: one call a step, a count of its calls, the
    /// newest call the one that would continue it; the rest as most loops
    /// have it (their calls as such, no span, no same-error details).
    pub(super) fn new(kind: LoopKind, calls: Vec<u64>, w: &Window) -> Self {
        Found {
            kind,
            count: calls.len() as u64,
            period: 1,
            calls,
            next_call: w.last.call,
            transient: w.transient,
            about: About::Calls,
            span_ms: None,
            distinct: 0,
            scattered: false,
            echo: None,
        }
    }

    /// Where the loop began: its oldest call.
    pub(super) fn first_ordinal(&self) -> u64 {
        self.calls[0]
    }
}
