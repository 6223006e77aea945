/** Failures of one tool with one error, for different arguments (crates/toolguard-core/src/loops/same_error.rs). */
import { type Found, found, type Limits, type Window } from './detect.mjs';
import { E, type Entry, failing, sameResult, SOFT } from './entry.mjs';

/** With other calls between them, failures with one error count for `same-error` only among the last this many calls. */
const RECENT = 12;

export function sameError(limits: Limits, w: Window): Found | undefined {
  const { n, at, last, transient, multiplier } = w;
  const config = limits.config;
  // Same error: failures of this tool with one signature within the window, other calls in between,
  // counted once two different calls failed so; a call that has since succeeded ends the look back.
  if (failing(last) && last.sig !== '') {
    const chain: Entry[] = [last];
    const succeeded = new Set<string>();
    let scattered = false;
    let skipped = false;
    for (let i = 1; i < n; i += 1) {
      const e = at(i);
      if (e.tool !== last.tool) continue;
      if (!(failing(e) && (e.sig === last.sig || (e.bare !== '' && e.bare === last.bare)))) {
        if (!failing(e)) succeeded.add(e.call);
        skipped = true;
        continue;
      }
      if (succeeded.has(e.call) || (skipped && i >= RECENT)) break;
      // The same call failing otherwise since (the values in the line moved): that is progress.
      if (chain.some((r) => r.call === e.call && !sameResult(r, e))) break;
      scattered ||= skipped;
      chain.push(e);
    }
    const distinct = new Set(chain.map((e) => e.call)).size;
    // With other calls between them, a loop only when one of them was a state change (an attempt);
    // a refused change tried again the same way counts alone.
    const attempt = chain.some((e) => e.attempt);
    const count = scattered && !attempt ? 1 : distinct >= 2 || (scattered && last.effect === E.WRITE) ? chain.length : 1;
    const soft = chain.some((e) => (e.flags & SOFT) !== 0);
    const limit = limits.threshold(soft ? config.softError : config.sameError, multiplier, transient);
    if (limit !== undefined && count >= limit) {
      const calls = chain.map((e) => e.ordinal).reverse();
      return { ...found('same-error', calls, w), count, distinct, scattered };
    }
  }
  return undefined;
}
