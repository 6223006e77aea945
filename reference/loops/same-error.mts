/** Failures of one tool with one error, for different arguments (crates/toolguard-core/src/loops/same_error.rs). */
import { type Found, found, type Limits, type Window } from './detect.mjs';
import { E, type Entry, failing, MUTATION, PATHLESS, sameResult, SOFT } from './entry.mjs';

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
    // A successful change by another tool since the failure last counted: the run after it is a verification.
    let changed = false;
    for (let i = 1; i < n; i += 1) {
      const e = at(i);
      const change = (e.flags & MUTATION) !== 0;
      // A refused edit of a file after a change that went through, by any tool, is a new attempt on changed files.
      if (change && last.effect === E.WRITE && (last.flags & PATHLESS) === 0) break;
      if (e.tool !== last.tool) {
        changed ||= change;
        continue;
      }
      if (!(failing(e) && (e.sig === last.sig || (e.bare !== '' && e.bare === last.bare)))) {
        if (!failing(e)) succeeded.add(e.call);
        skipped = true;
        continue;
      }
      if (succeeded.has(e.call) || (skipped && i >= RECENT)) break;
      // The same call failing otherwise since (the values in the line moved): that is progress.
      if (chain.some((r) => r.call === e.call && !sameResult(r, e))) break;
      // Changes made between the failures: not "in a row" — the runs after them verify the changes.
      scattered ||= skipped || changed;
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
