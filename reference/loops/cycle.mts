/** A block of calls repeated round after round with the same results (crates/toolguard-core/src/loops/cycle.rs). */
import { type Found, found, type Limits, span, type Window } from './detect.mjs';
import { E, polling, sameAs } from './entry.mjs';

export function cycle(limits: Limits, w: Window): Found | undefined {
  const { n, at, last, transient, multiplier, ordinals } = w;
  const config = limits.config;
  // Cycle: the shortest period whose trailing periodic stretch has begun the `cycle`-th round.
  const rounds = limits.threshold(config.cycle, multiplier, transient);
  if (rounds !== undefined) {
    for (let p = 2; p <= Math.min(config.maxPeriod, Math.floor(n / 2)); p += 1) {
      let shorter = false;
      for (let d = 1; d < p && !shorter; d += 1) {
        if (p % d !== 0) continue;
        let all = true;
        for (let i = d; i < p; i += 1) if (!sameAs(at(i), at(i - d))) all = false;
        shorter = all;
      }
      if (shorter) continue;
      let len = p;
      while (len < n && sameAs(at(len), at(len - p))) len += 1;
      const begun = Math.ceil(len / p);
      const block = Array.from({ length: p }, (_, i) => at(i));
      // Going back in a browser returns to a page; it does not loop.
      if (block.some((e) => e.effect === E.NAVIGATE)) continue;
      // A block that polls and otherwise only looks is waiting, as above.
      const blockPolls =
        block.some(polling) &&
        block.every((e) => e.effect === E.WAIT || e.effect === E.READ || e.effect === E.SEARCH || e.effect === E.OTHER);
      const spanMs = span(at(len - 1).time, last.time);
      const pollT = limits.threshold(config.poll, multiplier, transient);
      const longEnough = !blockPolls || (pollT !== undefined && len >= pollT && limits.quietLong(spanMs));
      if (len > p && begun >= rounds && longEnough) {
        return {
          ...found('cycle', ordinals(len), w),
          count: begun,
          period: p,
          nextCall: at(p - 1).call,
          about: blockPolls ? 'polls' : 'calls',
          spanMs,
        };
      }
    }
  }
  return undefined;
}
