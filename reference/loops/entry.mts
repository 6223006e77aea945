/**
 * A call as an agent's window keeps it (crates/toolguard-core/src/loops/entry.rs):
 * digests and flags, never a text; how a call's result becomes one
 * ({@link entryOf}); the effect codes; and the loop episode an agent is in.
 */
import type { Effect } from '../shell.mjs';
import { digest, failureDigest, resultDigest } from '../normalize.mjs';
import { showsFailure } from '../markers.mjs';
import { trimLikeRust } from '../whitespace.mjs';
import type { About, Found } from './detect.mjs';
import {
  codexExitFailed,
  errorLine,
  httpError,
  isFrame,
  isWrapper,
  namesError,
  showsError,
  rustLines,
  signature,
  stopped,
  transient,
} from './errors.mjs';
import type { LoopKind, LoopOutcome } from './index.mjs';
import { foundNothing, isRejection, jobDone, notRun, rejectionLine } from './texts.mjs';

/** Entry flags. */
export const FAILED = 1;
export const SOFT = 2;
export const TRANSIENT = 4;
export const MUTATION = 8;
/** `result` is the normalised digest (else it is the raw one). */
export const NORMALIZED = 16;
/** A poll whose result says the job it watches has ended. */
export const DONE = 32;
/** A state change that names no file (a click, an install): what it changed shows only through other looks. */
export const PATHLESS = 64;
/** A run or test that came back and whose output names an error though nothing said it failed: for `re-read` it fails the same way. */
export const TROUBLED = 0x80;
// The effect cache's bits below share values with the entry flags above
// (NO_PATH = TROUBLED, HIDDEN = PATHLESS, WRITES = DONE): safe, because they
// live in another number (a cached effect code, never saved) and `observe`
// unpacks them into booleans before an entry is made; the effect codes stay
// below WRITES. __test__/loop-flag-bits.test.mjs checks it through the saved state.
/** In the effect cache, beside the effect code: the call writes no path. */
export const NO_PATH = 0x80;
/** In the effect cache: the command hid its real exit status and is no probe. */
export const HIDDEN = 0x40;
/** In the effect cache: the call writes a path (any effect). */
export const WRITES = 0x20;

/** What a call does, by the shell model, as an entry keeps it (loops.rs `effect`). */
export const EFFECT_CODES: Record<Effect, number> = {
  read: 1,
  write: 2,
  run: 3,
  test: 4,
  wait: 5,
  search: 6,
  network: 7,
  navigate: 8,
  other: 9,
};
export const E = { UNKNOWN: 0, READ: 1, WRITE: 2, RUN: 3, TEST: 4, WAIT: 5, SEARCH: 6, NETWORK: 7, NAVIGATE: 8, OTHER: 9 } as const;

/** One call as the window keeps it. `sig` is `''` when the call has no error signature. */
export interface Entry {
  call: string;
  result: string;
  raw: string;
  sig: string;
  /** The failure's line as it reads (digits as `#`, nothing taken out for the arguments); `''` when none. */
  bare: string;
  tool: string;
  ordinal: number;
  /** When the call was made (ms since the epoch); 0: unknown (always, through this API). */
  time: number;
  flags: number;
  effect: number;
  /** The call tries to change something: a state change, or a run that writes a file. */
  attempt: boolean;
}

export const failing = (e: Entry) => (e.flags & (FAILED | SOFT)) !== 0;
/** Failing, or a re-run whose output names an error. */
export const troubled = (e: Entry) => failing(e) || (e.flags & TROUBLED) !== 0;
/** Polls a job that has not said it ended: waiting, judged by the poll rule. */
export const polling = (e: Entry) => e.effect === E.WAIT && (e.flags & DONE) === 0;
export const sameResult = (a: Entry, b: Entry) => ((a.flags & b.flags & NORMALIZED) !== 0 ? a.result === b.result : a.raw === b.raw);
export const sameAs = (a: Entry, b: Entry) => a.call === b.call && sameResult(a, b);
/** Same call, same outcome: the same result, or, for failures, the same error signature (calls in a row only). */
export const sameOutcomeInARow = (a: Entry, b: Entry) =>
  a.call === b.call && (sameResult(a, b) || (failing(a) && failing(b) && a.sig !== '' && a.sig === b.sig));

/** The loop episode the agent is in: one per loop however long it runs. */
export interface Active {
  kind: LoopKind;
  /** The count the alarm reports (a cycle: rounds begun). */
  count: number;
  /** Calls in the episode so far. */
  calls: number;
  period: number;
  reminders: number;
  /** The call that would continue the loop. */
  nextCall: string;
  firstOrdinal: number;
  lastOrdinal: number;
  /** The loop's results are failures: a successful edit does not end it. */
  failing: boolean;
  about: About;
}

/** Whether `found`, raised at the newest call, goes on with this episode (loops.rs `Active::continued_by`). */
export const continuedBy = (a: Active, found: Found) =>
  a.kind === found.kind &&
  a.period === found.period &&
  found.calls[0]! <= a.lastOrdinal &&
  (found.kind === 'repeat' || found.kind === 're-read' || found.kind === 'redo' ? a.nextCall === found.nextCall : true);

export interface AgentLoops {
  entries: Entry[];
  ordinal: number;
  active: Active | undefined;
  /** A call refused by `check`: observed anyway, it is passed over so the deny resets nothing. */
  denied: string | undefined;
}

/** One tool name against the config's patterns. */
export interface ToolInfo {
  tracked: boolean;
  mutating: boolean;
  ignored: string[] | undefined;
  multiplier: number;
  /** A shell tool: its output is its program's. */
  shell: boolean;
}

/** The most calls the effect cache keeps before it starts over (loops.rs `EFFECT_CACHE`). */
export const EFFECT_CACHE = 4096;

/** One call as the window keeps it (`ordinal` still 0; loops.rs `entry`). */
export function entryOf(
  name: string,
  tool: ToolInfo,
  call: string,
  effect: number,
  pathless: boolean,
  hidden: boolean,
  argumentsJson: string,
  outcome: LoopOutcome,
  recurs: boolean,
  memo: Map<string, string>,
): Entry {
  const text = outcome.text;
  let flags = 0;
  const hard =
    outcome.isError ||
    showsFailure(text) ||
    codexExitFailed(text) ||
    // A tool that refused the call in words (an edit rejected).
    isRejection(text, tool.shell);
  // A call the harness never ran (cancelled with a failing sibling) did not fail, whatever flag it carries.
  const ran = !notRun(text);
  // A failure seen only by a silent-failure rule in an output that shows an
  // HTTP error status is that status: a soft failure.
  let failed = (hard && ran) || (outcome.flagged && httpError(text) === undefined);
  // A run or test whose real status the command hid: its output showing an error (an error line as
  // programs print it, not just the word) is the failure.
  if (!failed && hidden && (effect === E.RUN || effect === E.TEST) && showsError(text)) failed = true;
  // A search that found nothing answered the question: not a failure.
  if (failed && !outcome.flagged && effect === E.SEARCH && foundNothing(text, isWrapper)) failed = false;
  if (failed) flags |= FAILED;
  else if (httpError(text) !== undefined) flags |= SOFT;
  let sig = '';
  let bare = '';
  if (flags !== 0) {
    // A refusal's own line is its error: the detail after it varies from one rejected attempt to the next.
    // A failure with nothing but its exit status (`[exit code: 7]`) is that status, unless it says the command was stopped.
    const frame = rustLines(text).map(trimLikeRust).find(isFrame);
    const error = rejectionLine(text) ?? errorLine(text) ?? (frame !== undefined && !stopped(frame) ? frame : undefined);
    // A bare exit-status line (`Exit code 7`) is all the failure says: its number is the error.
    if (error !== undefined) {
      const frame = isFrame(trimLikeRust(error));
      sig = frame ? digest(`F${trimLikeRust(error)}`) : signature(error, argumentsJson);
      bare = frame ? sig : signature(error, '');
    }
    if (transient(text)) flags |= TRANSIENT;
  } else if (tool.mutating || effect === E.WRITE) {
    flags |= MUTATION;
  }
  if (effect === E.WAIT && jobDone(text)) flags |= DONE;
  if (pathless) flags |= PATHLESS;
  // A run or test that comes back and shows an error in its output, though nothing said it failed; an
  // output that only mentions errors is a passing run (checking it again after an edit is verification).
  if (recurs && (flags & FAILED) === 0 && (effect === E.RUN || effect === E.TEST) && showsError(text)) flags |= TROUBLED;
  const raw = digest(`${outcome.isError ? 'E' : 'S'}${text}`);
  let result = raw;
  // A failure (or a run whose output names an error) is the same failure when it differs only in where it
  // happened: positions masked too, normalised even at its first occurrence (loops.rs `entry`).
  const failure = (flags & (FAILED | SOFT)) !== 0 || ((effect === E.RUN || effect === E.TEST) && namesError(text));
  if (failure) {
    flags |= NORMALIZED;
    result = failureDigest(text, outcome.isError, memo);
  } else if (recurs) {
    flags |= NORMALIZED;
    result = resultDigest(text, outcome.isError, memo);
  }
  return { call, result, raw, sig, bare, tool: digest(name), ordinal: 0, time: 0, flags, effect, attempt: false };
}
