/** The same call with the same result again, other calls in between (crates/toolguard-core/src/loops/re_read.rs). */
import { type About, type Found, found, type Limits, type Window } from './detect.mjs';
import { E, MUTATION, polling, sameResult, troubled } from './entry.mjs';

export function reRead(limits: Limits, w: Window): Found | undefined {
  const { n, at, last, transient, multiplier } = w;
  const config = limits.config;
  // Re-read: only for what reads; a run or test counts only while it fails the same way.
  const reads =
    last.effect === E.WRITE || last.effect === E.WAIT || last.effect === E.NAVIGATE
      ? false
      : last.effect === E.RUN || last.effect === E.TEST
        ? troubled(last)
        : true;
  const reRead = reads ? limits.threshold(config.reRead, multiplier, transient) : undefined;
  if (reRead !== undefined) {
    const calls = [last.ordinal];
    let newer = last;
    for (let i = 1; i < n; i += 1) {
      const e = at(i);
      if ((e.flags & MUTATION) !== 0 && !troubled(last)) break;
      // Looking again after waiting on a job is checking on it.
      if (polling(e)) break;
      if (e.call !== last.call) continue;
      if (!sameResult(e, newer)) break;
      calls.push(e.ordinal);
      newer = e;
    }
    if (calls.length >= reRead) {
      calls.reverse();
      const about: About = last.effect === E.RUN || last.effect === E.TEST ? 'reruns' : 'calls';
      return { ...found('re-read', calls, w), about };
    }
  }
  return undefined;
}
