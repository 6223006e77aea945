/** The same state change made again with the same result, only looks between (crates/toolguard-core/src/loops/redo.rs). */
import { type Found, found, type Limits, type Window } from './detect.mjs';
import { E, MUTATION, PATHLESS, sameResult } from './entry.mjs';

export function redo(limits: Limits, w: Window): Found | undefined {
  const { n, at, last, transient, multiplier } = w;
  const config = limits.config;
  // Redo: the same state change that names no file (a click, an install)
  // with the same result, nothing but looks in between.
  const redo =
    last.effect === E.WRITE && (last.flags & PATHLESS) !== 0 ? limits.threshold(config.reRead, multiplier, transient) : undefined;
  if (redo !== undefined) {
    const calls = [last.ordinal];
    let newer = last;
    for (let i = 1; i < n; i += 1) {
      const e = at(i);
      if (e.call === last.call) {
        if (!sameResult(e, newer)) break;
        calls.push(e.ordinal);
        newer = e;
      } else if (
        e.effect === E.WRITE ||
        e.effect === E.RUN ||
        e.effect === E.TEST ||
        e.effect === E.NAVIGATE ||
        (e.flags & MUTATION) !== 0
      ) {
        break;
      }
    }
    if (calls.length >= redo) {
      calls.reverse();
      return found('redo', calls, w);
    }
  }
  return undefined;
}
