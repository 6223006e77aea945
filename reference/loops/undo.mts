/** The same restore again, with attempts between that end as before (crates/toolguard-core/src/loops/undo.rs). */
import { type Found, found, type Limits, type Window } from './detect.mjs';
import { E, FAILED, PATHLESS, SOFT, sameAs, sameResult, troubled } from './entry.mjs';

export function undo(limits: Limits, w: Window): Found | undefined {
  const { n, at, last, transient, multiplier } = w;
  const config = limits.config;
  // Undo: the same restore again (a state change that names a file, word
  // for word, the same result, the `reRead`-th time, each time after other
  // state changes), and an attempt since the previous restore ended exactly
  // as one before it had (the same failing run, the same output).
  const undo =
    last.effect === E.WRITE && (last.flags & (PATHLESS | FAILED | SOFT)) === 0
      ? limits.threshold(config.reRead, multiplier, transient)
      : undefined;
  if (undo !== undefined) {
    const calls = [last.ordinal];
    let previous: number | undefined;
    let newer = last;
    let changed = false;
    for (let i = 1; i < n; i += 1) {
      const e = at(i);
      if (e.call === last.call) {
        if (!changed || !sameResult(e, newer)) break;
        previous ??= i;
        calls.push(e.ordinal);
        newer = e;
        changed = false;
      } else if (e.attempt) {
        changed = true;
      }
    }
    let echo: [number, number] | undefined;
    if (previous !== undefined && calls.length >= undo) {
      for (let i = 1; i < previous && echo === undefined; i += 1) {
        const x = at(i);
        if (!((x.effect === E.RUN || x.effect === E.TEST) && troubled(x))) continue;
        for (let k = previous + 1; k < n; k += 1) {
          if (sameAs(at(k), x)) {
            echo = [at(k).ordinal, x.ordinal];
            break;
          }
        }
      }
    }
    if (echo !== undefined) {
      calls.reverse();
      return { ...found('redo', calls, w), about: 'undo', echo };
    }
  }
  return undefined;
}
