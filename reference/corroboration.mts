/**
 * Corroboration, as crates/toolguard-core/src/shell/corroboration.rs decides
 * it (docs/shell-model.md, "Corroboration"): a match of a generic failure
 * word (`lexiconRules`) is an `error` only when the command hid the status
 * (any mask), the harness records no exit status, or the output already
 * shows a failure — and no test runner's all-passed summary is in the
 * output (with one, it is dropped: the passing suite logged it). Otherwise
 * it is `context`.
 */
import type { ActedHit } from './intent.mjs';
import { type CallModel, scanTable } from './shell.mjs';

/** What the harness showed of the call's exit status (corroboration.rs `StatusShown`). */
export interface StatusShown {
  /** The output already shows a failure (an exit or signal marker). */
  failed: boolean;
  /** The harness records no exit status for its calls. */
  unrecorded: boolean;
}

/**
 * corroboration.rs `corroborate`: each uncorroborated `error` of `matches`
 * (scanned from `text`) as `context`, or dropped when a test runner's
 * all-passed summary says the run passed.
 */
export function corroborate(model: CallModel | undefined, status: StatusShown, text: string, matches: ActedHit[]): ActedHit[] {
  if (model === undefined || status.failed) return matches;
  const table = scanTable();
  // An OS error's own text (`Error: [Errno 2] …`) is the C library's failure, whatever label it is printed under.
  const generic = (m: ActedHit) => m.action === 'error' && table.lexiconRules.includes(m.hit.id) && !m.hit.excerpt.includes('[Errno ');
  if (!matches.some(generic)) return matches;
  // A test runner's all-passed summary tells the status whatever hid it.
  if (table.passingSummary?.test(text) ?? false) return matches.filter((m) => !generic(m));
  if (status.unrecorded || model.masks.length > 0) return matches;
  return matches.map((m) => (generic(m) ? { ...m, action: 'context' } : m));
}
