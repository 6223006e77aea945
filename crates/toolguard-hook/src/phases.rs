//! Where one hook process spends its time, phase by phase (`TOOLGUARD_HOOK_PHASES=1`:
//! the executable prints one line of phase times to stderr; benchmark/hook.mjs
//! `--phases` collects them and adds what no process can time itself, exec
//! and start-up, as the wall time outside them). Off by default: a mark is
//! then one relaxed atomic load.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;
use std::time::Instant;

static ON: AtomicBool = AtomicBool::new(false);
/// Each mark: the phase that just ended and when.
static MARKS: Mutex<Vec<(&'static str, Instant)>> = Mutex::new(Vec::new());

/// Start timing (the executable calls this first thing in `main` when asked).
pub fn enable() {
    ON.store(true, Ordering::Relaxed);
    mark("main");
}

/// The phase `name` ended now (nothing when timing is off).
pub fn mark(name: &'static str) {
    if !ON.load(Ordering::Relaxed) {
        return;
    }
    MARKS
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .push((name, Instant::now()));
}

/// The phases timed so far, one line: `toolguard hook phases (µs): a=12 b=340 total=352`
/// (each phase from the mark before it; a phase marked twice is summed); `None` when off.
pub fn report() -> Option<String> {
    if !ON.load(Ordering::Relaxed) {
        return None;
    }
    let marks = MARKS.lock().unwrap_or_else(|p| p.into_inner());
    let first = marks.first()?.1;
    let mut phases: Vec<(&str, u128)> = Vec::new();
    for pair in marks.windows(2) {
        let (name, at) = pair[1];
        let micros = at.duration_since(pair[0].1).as_micros();
        match phases.iter_mut().find(|(n, _)| *n == name) {
            Some((_, sum)) => *sum += micros,
            None => phases.push((name, micros)),
        }
    }
    let total = marks.last()?.1.duration_since(first).as_micros();
    let mut line = String::from("toolguard hook phases (µs):");
    for (name, micros) in phases {
        line.push_str(&format!(" {name}={micros}"));
    }
    line.push_str(&format!(" total={total}\n"));
    Some(line)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn phases_are_timed_only_when_enabled_and_summed_by_name() {
        mark("ignored");
        assert_eq!(report(), None);
        assert!(MARKS.lock().unwrap().is_empty());
        enable();
        mark("a");
        mark("b");
        mark("a");
        let line = report().unwrap();
        assert!(line.starts_with("toolguard hook phases (µs): a="), "{line}");
        assert_eq!(line.matches(" a=").count(), 1, "{line}");
        assert!(line.contains(" b=") && line.ends_with('\n'), "{line}");
        assert!(!line.contains("ignored"), "{line}");
    }
}
