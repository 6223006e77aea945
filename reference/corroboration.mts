/**
 * Corroboration, as crates/toolguard-core/src/shell/corroboration.rs decides
 * it (docs/shell-model.md, "Corroboration"): a match of a generic failure
 * word (`lexiconRules`), or an exception report followed by more output
 * (`tracebackRules`), is an `error` only when the command hid the status
 * (any mask), the harness records no exit status, or the output already
 * shows a failure — and no test runner's all-passed summary is in the
 * output (with one, it is dropped: the passing suite logged it). Otherwise
 * it is `context`.
 */
import { type ActedHit, isExceptionLine, TRACEBACK_GRAMMAR } from './intent.mjs';
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
  const generic = (m: ActedHit) =>
    m.action === 'error' &&
    ((table.lexiconRules.includes(m.hit.id) && !m.hit.excerpt.includes('[Errno ')) ||
      (table.tracebackRules.includes(m.hit.id) && !endsOutput(text, m.hit.line)));
  if (!matches.some(generic)) return matches;
  // A test runner's all-passed summary tells the status whatever hid it.
  if (table.passingSummary?.test(text) ?? false) return matches.filter((m) => !generic(m));
  if (status.unrecorded || model.masks.length > 0) return matches;
  return matches.map((m) => (generic(m) ? { ...m, action: 'context' } : m));
}

const WS_END = /[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+$/;
const WS_ONLY = /^[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]*$/;

/** corroboration.rs `ends_output`: whether the exception report starting on line `line` (1-based) ends the output. */
export function endsOutput(text: string, line: number): boolean {
  let afterFrames = false;
  for (const l of text.split('\n').slice(line)) {
    const t = l.replace(WS_END, '');
    if (WS_ONLY.test(t)) continue;
    if (t.startsWith(' ') || t.startsWith('\t')) {
      afterFrames = true;
      continue;
    }
    if (TRACEBACK_GRAMMAR.has(t) || (t.startsWith('[') && t.endsWith(']'))) {
      afterFrames = false;
      continue;
    }
    if (afterFrames || isExceptionLine(t)) {
      afterFrames = false;
      continue;
    }
    return false;
  }
  return true;
}
