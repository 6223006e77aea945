/** The same call again and again with the same outcome (or a quiet poll, long enough) (crates/toolguard-core/src/loops/repeat.rs). */
import { type About, type Found, found, type Limits, span, type Window } from './detect.mjs';
import { E, polling, sameOutcomeInARow } from './entry.mjs';

export function repeat(limits: Limits, w: Window): Found | undefined {
  const { n, at, last, transient, multiplier, ordinals } = w;
  const config = limits.config;
  // Repeat: the trailing run of the same call with the same outcome, link by link.
  let run = 1;
  while (run < n && sameOutcomeInARow(at(run), at(run - 1))) run += 1;
  // A running job's polls that show nothing new are waiting: only long is a loop.
  const isPolling = polling(last);
  // Going back in a browser says the same while it goes further back each time.
  const t = limits.threshold(isPolling ? config.poll : last.effect === E.NAVIGATE ? undefined : config.repeat, multiplier, transient);
  if (t !== undefined) {
    const spanMs = span(at(run - 1).time, last.time);
    if (run >= t && (!isPolling || limits.quietLong(spanMs))) {
      const about: About = isPolling ? 'polls' : last.effect === E.WAIT ? 'ended-job' : 'calls';
      return { ...found('repeat', ordinals(run), w), about, spanMs };
    }
  }
  return undefined;
}
