/** The same failing attempt made again after the same steps (crates/toolguard-core/src/loops/rerun.rs). */
import { type Found, found, type Limits, type Window } from './detect.mjs';
import { E, failing, sameAs, sameResult, troubled } from './entry.mjs';

export function rerun(limits: Limits, w: Window): Found | undefined {
  const { n, at, last, transient, multiplier } = w;
  const config = limits.config;
  // Attempt again: a failing run or test whose last run failed the same way, with a run between them
  // that had already run, with the same result, before that last one.
  const againT =
    (last.effect === E.RUN || last.effect === E.TEST) && troubled(last) && config.reRead !== undefined
      ? limits.threshold(2, multiplier, transient)
      : undefined;
  if (againT !== undefined && againT <= 2) {
    let j = -1;
    for (let i = 1; i < n; i += 1) {
      if (at(i).call === last.call) {
        j = i;
        break;
      }
    }
    if (j > 0) {
      const prev = at(j);
      const same =
        troubled(prev) && (sameResult(last, prev) || (failing(last) && failing(prev) && last.sig !== '' && last.sig === prev.sig));
      let step = false;
      for (let i = 1; i < j && same && !step; i += 1) {
        const y = at(i);
        if ((y.effect !== E.RUN && y.effect !== E.TEST) || y.call === last.call) continue;
        for (let k = j + 1; k < n && !step; k += 1) if (sameAs(at(k), y)) step = true;
      }
      if (step) {
        return { ...found('re-read', [prev.ordinal, last.ordinal], w), about: 'reruns', scattered: true };
      }
    }
  }
  return undefined;
}
