//! The same state change made again with the same result, only looks between.

use super::detect::{Found, Limits, Window};
use super::entry::{effect, MUTATION, PATHLESS};
use super::LoopKind;

impl Limits {
    pub(super) fn redo(&self, w: &Window) -> Option<Found> {
        let (last, n, transient, multiplier) = (w.last, w.n, w.transient, w.multiplier);
        let at = |i: usize| w.at(i);
        // Redo: the same state change that names no file (a click, an
        // install) with the same result, nothing but looks (reads, searches,
        // polls) in between: it changed nothing the agent then saw. A file
        // written again is seen through its reads (a changed read shows
        // progress), and a restore between attempts has the attempts (an
        // edit, a run) in between: neither is one.
        let redo = if last.effect == effect::WRITE && last.flags & PATHLESS != 0 {
            self.threshold(self.re_read, multiplier, transient)
        } else {
            None
        };
        if let Some(t) = redo {
            let mut calls = vec![last.ordinal];
            let mut newer = last;
            for i in 1..n {
                let e = at(i);
                if e.call == last.call {
                    if !e.same_result(&newer) {
                        break;
                    }
                    calls.push(e.ordinal);
                    newer = e;
                } else if matches!(
                    e.effect,
                    effect::WRITE | effect::RUN | effect::TEST | effect::NAVIGATE
                ) || e.flags & MUTATION != 0
                {
                    break;
                }
            }
            if calls.len() as u64 >= t {
                calls.reverse();
                return Some(Found::new(LoopKind::Redo, calls, w));
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use crate::loops::testing::*;

    #[test]
    fn the_same_click_with_only_looks_between_is_a_redo_and_going_back_is_not_a_loop() {
        // The page is looked at after each click; the look's text varies a
        // little (element numbers), the click's result does not.
        let mut l = loops();
        let states: Vec<String> = (0..4)
            .map(|i| {
                format!(
                    r#"{{"url":"http://x/files","elements":[{{"index":{}}}]}}"#,
                    2000 + i * 87
                )
            })
            .collect();
        let mut calls = Vec::new();
        for st in &states {
            calls.push(("browser_click", r#"{"index":1233}"#, "Clicked element 1233"));
            calls.push(("browser_snapshot", "{}", st.as_str()));
        }
        let r = timed(&mut l, &calls, 0);
        let (kind, text) = r[4].clone().expect("the 3rd identical click");
        assert_eq!(kind, "redo");
        assert!(
            text.contains("made the same change 3 times") && !text.contains("read it"),
            "{text}"
        );
        // Going back four times in a row: each goes further back, though it
        // says the same ("repeat × 3" before).
        let mut l = loops();
        let r = timed(&mut l, &[("browser_go_back", "{}", "Navigated back"); 4], 0);
        assert!(r.iter().all(Option::is_none), "{r:?}");
    }

    #[test]
    fn the_same_click_with_get_state_between_is_a_redo() {
        // OpenHands V1 looks at the page with `browser_get_state`: a look,
        // not a change, so it does not hide the repeated click.
        let mut l = loops();
        let states: Vec<String> = (0..4)
            .map(|i| {
                format!(
                    r#"{{"url":"http://x/files","elements":[{{"index":{}}}]}}"#,
                    2000 + i * 87
                )
            })
            .collect();
        let mut calls = Vec::new();
        for st in &states {
            calls.push(("browser_click", r#"{"index":1233}"#, "Clicked element 1233"));
            calls.push((
                "browser_get_state",
                r#"{"include_screenshot":false}"#,
                st.as_str(),
            ));
        }
        let r = timed(&mut l, &calls, 0);
        let (kind, _) = r[4].clone().expect("the 3rd identical click");
        assert_eq!(kind, "redo");
    }
}
