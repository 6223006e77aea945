/**
 * `toolguard/reference`: the pure-TypeScript reference engine, no native
 * binary needed; the main entry falls back to it where the binary cannot load.
 *
 * Same API and verdicts as the native `GuardEngine`: for one config and one
 * sequence of calls, `observe`, `observeAsync` and `check` return the same
 * objects (repeat reminders, silent-failure verdicts, loop alarms with
 * `loops` on, `loops.deny` refusals) and config errors carry the same
 * messages. That is what the differential tests check, call by call:
 * __test__/reference.test.mjs (chains, rules, canonical forms) and
 * __test__/reference-loops.test.mjs (every session of corpus/loops under
 * several `loops` configs, the loop tests' sequences, random sequences).
 *
 * Intended differences:
 * - rule patterns run on JavaScript's `RegExp`, so lookaround and
 *   backreferences — rejected at load by the native linear-time engine — are
 *   accepted here;
 * - digests are this engine's own: a state from `chainState` (chain digest,
 *   loop window) goes back into the same kind of engine;
 * - no `Auditor` (session-log auditing is native only).
 * @module toolguard/reference
 */
export { GuardEngine, observeCall, observeCallValue } from './engine.mjs';
export { canonicalize } from './canonical.mjs';
export type * from './types.mjs';
