/**
 * `toolguard/reference`: the pure-TypeScript reference engine. Same API and
 * verdicts as the native `GuardEngine`, no native binary needed; the main
 * entry falls back to it where the binary cannot load.
 *
 * One intended difference: rule patterns run on JavaScript's `RegExp`, so
 * lookaround and backreferences — rejected at load by the native
 * linear-time engine — are accepted here.
 * @module toolguard/reference
 */
export { GuardEngine, observeCall, observeCallValue } from './engine.mjs';
export { canonicalize } from './canonical.mjs';
export type * from './types.mjs';
