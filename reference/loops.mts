/**
 * The loop detectors of crates/toolguard-core/src/loops.rs, written plainly:
 * per agent a window of the last `window` calls, each reduced to digests
 * (call, result, raw result, error signature, tool) and flags; after every
 * call four detectors read the window, most specific first — repeat, cycle,
 * same-error, re-read. The texts (alarm, evidence, deny reason) and the
 * config decoding and its errors are the native engine's word for word; the
 * differential tests (`__test__/reference-loops.test.mjs`) hold the two
 * together on the loop corpus and on random call sequences.
 *
 * Digests are this engine's own (SHA-1 halves, `normalize.mts` `digest`):
 * only their equality is used, so a saved loop state goes back into the same
 * kind of engine.
 */
import { canonicalizeValue, parseArguments } from './canonical.mjs';
import { configError, kindOf, pathOf, stateError, type ConfigPath } from './errors.mjs';
import { showsFailure } from './markers.mjs';
import { digest, failureDigest, normalizeLine, resultDigest, utf8From, utf8Head } from './normalize.mjs';
import { classifyCall, isShellTool, type Effect } from './shell.mjs';
import { foundNothing, isRejection, jobDone, rejectionLine } from './loop-texts.mjs';
import type { LoopDenyVerdict, LoopVerdict } from './types.mjs';
import { trimLikeRust } from './whitespace.mjs';
import { matchesAny, wildcardToRegExp } from './wildcard.mjs';

export type LoopKind = LoopVerdict['kind'];

/** The `loops` section with every default applied (config.rs `LoopsConfig`). */
export interface ResolvedLoops {
  window: number;
  repeat: number | undefined;
  cycle: number | undefined;
  maxPeriod: number;
  sameError: number | undefined;
  softError: number | undefined;
  reRead: number | undefined;
  transientMultiplier: number;
  poll: number | undefined;
  pollQuietSeconds: number;
  deny: number | undefined;
  resultBlindRepeat: boolean;
  ignoreArguments: Array<[string, string[]]>;
  exempt: string[];
  multipliers: Array<[string, number]>;
  mutatingTools: string[];
}

/** Tools that edit files in the hosts toolguard knows (config.rs `DEFAULT_MUTATING_TOOLS`). */
export const DEFAULT_MUTATING_TOOLS = [
  'edit_file',
  'write_file',
  'create_file',
  'Edit',
  'MultiEdit',
  'Write',
  'NotebookEdit',
  'apply_patch',
  'str_replace_editor',
  'str_replace_based_edit_tool',
  'edit',
  'write',
];

/** Keys of the `loops` section, in documented order (config.rs `LOOPS_KEYS`). */
export const LOOPS_KEYS = [
  'window',
  'repeat',
  'cycle',
  'maxPeriod',
  'sameError',
  'softError',
  'reRead',
  'transientMultiplier',
  'poll',
  'pollQuietSeconds',
  'deny',
  'resultBlindRepeat',
  'ignoreArguments',
  'exempt',
  'multipliers',
  'mutatingTools',
];

/** The most calls a loop window may keep (config.rs `MAX_LOOP_WINDOW`). */
export const MAX_LOOP_WINDOW = 256;

/** At most this many call ordinals are listed as evidence. */
export const EVIDENCE_CALLS = 12;

export function defaultLoops(): ResolvedLoops {
  return {
    window: 30,
    repeat: 3,
    cycle: 3,
    maxPeriod: 4,
    sameError: 3,
    softError: 4,
    reRead: 3,
    transientMultiplier: 2,
    poll: 8,
    pollQuietSeconds: 300,
    deny: undefined,
    resultBlindRepeat: false,
    ignoreArguments: [['Bash', ['description']]],
    exempt: [],
    multipliers: [],
    mutatingTools: [...DEFAULT_MUTATING_TOOLS],
  };
}

/** Enumerable string keys, inherited ones included, as the native config walk lists them. */
function entriesOf(value: Record<string, unknown>): Array<[string, unknown]> {
  const entries: Array<[string, unknown]> = [];
  for (const key in value) entries.push([key, value[key]]);
  return entries;
}

const isObject = (value: unknown): value is Record<string, unknown> => kindOf(value) === 'object';

function wrongType(at: string, expected: string, got: unknown, path: ConfigPath = pathOf(at)): Error {
  return configError(`toolguard: ${at} must be ${expected} (got ${kindOf(got)})`, 'TOOLGUARD_WRONG_TYPE', path);
}

/** config.rs `integer`: an optional integer in `[min, max]`; the message offers `false` where a detector can be off. */
function integer(value: unknown, at: string, min: number, max: number): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max) return value;
  const orFalse =
    at.endsWith('window') || at.endsWith('maxPeriod') || at.endsWith('transientMultiplier') || at.endsWith('pollQuietSeconds')
      ? ''
      : ', or false';
  const got = typeof value === 'number' ? String(value) : kindOf(value);
  throw configError(`toolguard: ${at} must be an integer from ${min} to ${max}${orFalse} (got ${got})`, 'TOOLGUARD_OUT_OF_RANGE', at);
}

function optionalStrings(value: unknown, at: string, path: ConfigPath = pathOf(at)): string[] | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value)) throw wrongType(at, 'an array of strings', value, path);
  value.forEach((item, index) => {
    if (typeof item !== 'string') throw wrongType(`${at}[${index}]`, 'a string', item, [...path, index]);
  });
  return [...(value as string[])];
}

/**
 * config.rs `LoopsConfig::from_value`: `undefined`, `null` and `false` are
 * off; `true` or an object is on; the checks run in the native order, so the
 * first error is the native engine's first error.
 */
export function resolveLoops(value: unknown): ResolvedLoops | undefined {
  if (value === undefined || value === null || value === false) return undefined;
  const config = defaultLoops();
  if (value === true) return config;
  if (!isObject(value)) throw wrongType('config.loops', 'an object', value);
  const unknown = entriesOf(value).find(([key, v]) => !LOOPS_KEYS.includes(key) && v !== undefined);
  if (unknown !== undefined) {
    throw configError(
      `toolguard: unknown key config.loops.${unknown[0]} (expected one of: ${LOOPS_KEYS.join(', ')})`,
      'TOOLGUARD_UNKNOWN_KEY',
      ['loops', unknown[0]],
    );
  }
  const at = (key: string) => `config.loops.${key}`;
  config.window = integer(value.window, at('window'), 2, MAX_LOOP_WINDOW) ?? config.window;
  for (const key of ['repeat', 'cycle', 'sameError', 'softError', 'reRead', 'poll'] as const) {
    const v = value[key];
    if (v === undefined) continue;
    config[key] = v === false ? undefined : integer(v, at(key), 2, 1e9);
  }
  config.maxPeriod = integer(value.maxPeriod, at('maxPeriod'), 2, 8) ?? config.maxPeriod;
  config.transientMultiplier = integer(value.transientMultiplier, at('transientMultiplier'), 1, 100) ?? config.transientMultiplier;
  config.pollQuietSeconds = integer(value.pollQuietSeconds, at('pollQuietSeconds'), 0, 86_400) ?? config.pollQuietSeconds;
  const deny = value.deny;
  if (deny === true) config.deny = 2;
  else if (deny !== undefined && deny !== false) config.deny = integer(deny, at('deny'), 1, 1e9);
  const blind = value.resultBlindRepeat;
  if (blind !== undefined) {
    if (typeof blind !== 'boolean') throw wrongType(at('resultBlindRepeat'), 'a boolean', blind);
    config.resultBlindRepeat = blind;
  }
  const ignore = value.ignoreArguments;
  if (ignore !== undefined) {
    if (!isObject(ignore)) throw wrongType(at('ignoreArguments'), 'an object of tool: [keys]', ignore);
    config.ignoreArguments = entriesOf(ignore)
      .filter(([, keys]) => keys !== undefined)
      .map(([tool, keys]) => [
        tool,
        optionalStrings(keys, `config.loops.ignoreArguments.${tool}`, ['loops', 'ignoreArguments', tool]) ?? [],
      ]);
  }
  config.exempt = optionalStrings(value.exempt, at('exempt')) ?? config.exempt;
  config.mutatingTools = optionalStrings(value.mutatingTools, at('mutatingTools')) ?? config.mutatingTools;
  const multipliers = value.multipliers;
  if (multipliers !== undefined) {
    if (!isObject(multipliers)) throw wrongType(at('multipliers'), 'an object of tool: number', multipliers);
    config.multipliers = entriesOf(multipliers)
      .filter(([, m]) => m !== undefined)
      .map(([tool, m]) => {
        if (typeof m === 'number' && Number.isFinite(m) && m > 0 && m <= 100) return [tool, m];
        throw wrongType(`config.loops.multipliers.${tool}`, 'a number in (0, 100]', m, ['loops', 'multipliers', tool]);
      });
  }
  return config;
}

/** With other calls between them, failures with one error count for `same-error` only among the last this many calls. */
const RECENT = 12;

const FAILED = 1;
const SOFT = 2;
const TRANSIENT = 4;
const MUTATION = 8;
/** `result` is the normalised digest (else it is the raw one). */
const NORMALIZED = 16;
/** A poll whose result says the job it watches has ended. */
const DONE = 32;
/** A state change that names no file (a click, an install): what it changed shows only through other looks. */
const PATHLESS = 64;
/** A run or test that came back and whose output names an error though nothing said it failed: for `re-read` it fails the same way. */
const TROUBLED = 0x80;
// The effect cache's bits below share values with the entry flags above
// (NO_PATH = TROUBLED, HIDDEN = PATHLESS, WRITES = DONE): safe, because they
// live in another number (a cached effect code, never saved) and `observe`
// unpacks them into booleans before an entry is made; the effect codes stay
// below WRITES. __test__/loop-flag-bits.test.mjs checks it through the saved state.
/** In the effect cache, beside the effect code: the call writes no path. */
const NO_PATH = 0x80;
/** In the effect cache: the command hid its real exit status and is no probe. */
const HIDDEN = 0x40;
/** In the effect cache: the call writes a path (any effect). */
const WRITES = 0x20;

/** What a call does, by the shell model, as an entry keeps it (loops.rs `effect`). */
const EFFECT_CODES: Record<Effect, number> = { read: 1, write: 2, run: 3, test: 4, wait: 5, search: 6, network: 7, navigate: 8, other: 9 };
const E = { UNKNOWN: 0, READ: 1, WRITE: 2, RUN: 3, TEST: 4, WAIT: 5, SEARCH: 6, NETWORK: 7, NAVIGATE: 8, OTHER: 9 } as const;

/** One call as the window keeps it. `sig` is `''` when the call has no error signature. */
interface Entry {
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

const failing = (e: Entry) => (e.flags & (FAILED | SOFT)) !== 0;
/** Failing, or a re-run whose output names an error. */
const troubled = (e: Entry) => failing(e) || (e.flags & TROUBLED) !== 0;
/** Polls a job that has not said it ended: waiting, judged by the poll rule. */
const polling = (e: Entry) => e.effect === E.WAIT && (e.flags & DONE) === 0;
const sameResult = (a: Entry, b: Entry) => ((a.flags & b.flags & NORMALIZED) !== 0 ? a.result === b.result : a.raw === b.raw);
const sameAs = (a: Entry, b: Entry) => a.call === b.call && sameResult(a, b);
/** Same call, same outcome: the same result, or, for failures, the same error signature (calls in a row only). */
const sameOutcomeInARow = (a: Entry, b: Entry) =>
  a.call === b.call && (sameResult(a, b) || (failing(a) && failing(b) && a.sig !== '' && a.sig === b.sig));

/** What a loop's calls are, as far as the alarm's text must be true for them. */
type About = 'calls' | 'polls' | 'ended-job' | 'reruns' | 'undo';
const ABOUT_CODES: Record<About, string> = { calls: 'c', polls: 'p', 'ended-job': 'e', reruns: 'r', undo: 'u' };

/** The loop episode the agent is in: one per loop however long it runs. */
interface Active {
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
const continuedBy = (a: Active, found: Found) =>
  a.kind === found.kind &&
  a.period === found.period &&
  found.calls[0]! <= a.lastOrdinal &&
  (found.kind === 'repeat' || found.kind === 're-read' || found.kind === 'redo' ? a.nextCall === found.nextCall : true);

interface AgentLoops {
  entries: Entry[];
  ordinal: number;
  active: Active | undefined;
  /** A call refused by `check`: observed anyway, it is passed over so the deny resets nothing. */
  denied: string | undefined;
}

/** One call's result as the detectors need it. */
export interface LoopOutcome {
  /** The result's text blocks joined with `\n` (empty when none). */
  text: string;
  isError: boolean;
  /** A silent-failure rule matched with action `error`. */
  flagged: boolean;
}

interface ToolInfo {
  tracked: boolean;
  mutating: boolean;
  ignored: string[] | undefined;
  multiplier: number;
  /** A shell tool: its output is its program's. */
  shell: boolean;
}

interface Found {
  kind: LoopKind;
  count: number;
  period: number;
  /** The loop's calls by ordinal, oldest first. */
  calls: number[];
  nextCall: string;
  transient: boolean;
  about: About;
  /** Wall time from the loop's oldest call in the window to its newest (ms), when known. */
  spanMs: number | undefined;
  /** Same error: how many of its calls differ (fewer than `count` when some were retried word for word). */
  distinct?: number;
  /** Same error: other calls of the tool came between its failures. */
  scattered?: boolean;
  /** Undo: a failing run since the previous restore and the same run with the same result before it (ordinals, earlier first). */
  echo?: [number, number];
}

const KIND_CODES: Record<LoopKind, number> = { repeat: 1, cycle: 2, 'same-error': 3, 're-read': 4, redo: 5 };
const LABELS: Record<LoopKind, string> = {
  repeat: 'repeat',
  cycle: 'cycle',
  'same-error': 'same error',
  're-read': 're-read',
  redo: 'redo',
};

/** The version tag that starts a saved loop state (loops.rs `STATE_VERSION`). */
export const STATE_VERSION = 'L3';

/** The most calls the effect cache keeps before it starts over (loops.rs `EFFECT_CACHE`). */
const EFFECT_CACHE = 4096;

/** Milliseconds from `from` to `to`, when both are known. */
const span = (from: number, to: number) => (from !== 0 && to !== 0 ? Math.max(0, to - from) : undefined);

/** The compiled `loops` config plus every agent's window. */
export class Loops {
  readonly #window: number;
  readonly #config: ResolvedLoops;
  readonly #pollQuietMs: number;
  readonly #exempt: RegExp[];
  readonly #mutating: RegExp[];
  readonly #ignore: Array<[RegExp, string[]]>;
  readonly #multipliers: Array<[RegExp, number]>;
  readonly #agents = new Map<string, AgentLoops>();
  readonly #memo = new Map<string, string>();
  /** What each call does, by call digest, as natively cached (a call's ignored keys do not change it). */
  readonly #effects = new Map<string, number>();

  constructor(config: ResolvedLoops) {
    this.#config = {
      ...config,
      maxPeriod: Math.min(Math.max(config.maxPeriod, 2), 8),
      transientMultiplier: Math.max(config.transientMultiplier, 1),
    };
    this.#pollQuietMs = config.pollQuietSeconds * 1000;
    this.#window = Math.min(Math.max(config.window, 2), MAX_LOOP_WINDOW);
    this.#exempt = config.exempt.map(wildcardToRegExp);
    this.#mutating = config.mutatingTools.map(wildcardToRegExp);
    this.#ignore = config.ignoreArguments.map(([pattern, keys]) => [wildcardToRegExp(pattern), keys]);
    this.#multipliers = config.multipliers.map(([pattern, m]) => [wildcardToRegExp(pattern), m]);
  }

  #tool(name: string): ToolInfo {
    const matching = this.#ignore.filter(([pattern]) => pattern.test(name));
    const multiplier = [...this.#multipliers].reverse().find(([pattern]) => pattern.test(name));
    return {
      tracked: !matchesAny(this.#exempt, name),
      mutating: matchesAny(this.#mutating, name),
      ignored: matching.length === 0 ? undefined : matching.flatMap(([, keys]) => keys),
      multiplier: multiplier === undefined ? 1 : multiplier[1],
      shell: isShellTool(name),
    };
  }

  /** The call digest: tool and canonical arguments, ignored keys removed (loops.rs `call_digest`). */
  #callDigest(name: string, argumentsJson: string, ignored: string[] | undefined): string {
    let canonical = canonicalizeValue(parseArguments(argumentsJson));
    if (ignored !== undefined && ignored.length > 0) {
      const value: unknown = JSON.parse(canonical);
      if (isObject(value) && !Array.isArray(value) && ignored.some((key) => Object.hasOwn(value, key))) {
        for (const key of ignored) delete value[key];
        // Canonical again, so a call with the key and one without it digest alike.
        canonical = canonicalizeValue(value);
      }
    }
    return digest(`${name}\0${canonical}`);
  }

  /** What the call does by the shell model, cached by call digest (loops.rs `effect`). */
  #effect(call: string, name: string, argumentsJson: string): number {
    const known = this.#effects.get(call);
    if (known !== undefined) return known;
    const model = classifyCall(name, argumentsJson);
    let code = model.effect === undefined ? E.UNKNOWN : EFFECT_CODES[model.effect];
    if (code === E.WRITE && model.writes.length === 0) code |= NO_PATH;
    if (model.masks.length > 0 && !model.probe) code |= HIDDEN;
    if (model.writes.length > 0) code |= WRITES;
    if (this.#effects.size >= EFFECT_CACHE) this.#effects.clear();
    this.#effects.set(call, code);
    return code;
  }

  /** Would this call continue a loop already reminded `deny` times? (loops.rs `check`) */
  check(agent: string, name: string, argumentsJson: string): LoopDenyVerdict | undefined {
    const after = this.#config.deny;
    if (after === undefined) return undefined;
    const state = this.#agents.get(agent);
    if (state === undefined) return undefined;
    const tool = this.#tool(name);
    if (!tool.tracked) return undefined;
    const call = this.#callDigest(name, argumentsJson, tool.ignored);
    const active = state.active;
    if (active === undefined || active.reminders < after || active.nextCall !== call) return undefined;
    state.denied = call;
    return {
      kind: active.kind,
      count: active.count,
      reminders: active.reminders,
      reason:
        `[toolguard] Call refused: it would continue a ${LABELS[active.kind]} loop (since call #${active.firstOrdinal}) ` +
        `that has already had ${active.reminders} reminder${active.reminders === 1 ? '' : 's'}. ${advice(active.kind, false, active.about)}`,
    };
  }

  /**
   * Record one call and its result; the alarm due at it, if any.
   * `concurrent`: the call was made before the previous call's result came
   * back (parallel calls of one model turn); it enters the window but raises
   * nothing, as natively (`CallMark::concurrent`).
   */
  observe(agent: string, name: string, argumentsJson: string, outcome: LoopOutcome, concurrent = false): LoopVerdict | undefined {
    const tool = this.#tool(name);
    if (!tool.tracked) return undefined;
    const call = this.#callDigest(name, argumentsJson, tool.ignored);
    const cached = this.#effect(call, name, argumentsJson);
    const [effect, pathless, hidden, writes] = [
      cached & ~(NO_PATH | HIDDEN | WRITES),
      (cached & NO_PATH) !== 0,
      (cached & HIDDEN) !== 0,
      (cached & WRITES) !== 0,
    ];
    let state = this.#agents.get(agent);
    if (state === undefined) {
      state = { entries: [], ordinal: 0, active: undefined, denied: undefined };
      this.#agents.set(agent, state);
    }
    const denied = state.denied;
    state.denied = undefined;
    if (denied === call) return undefined;
    const recurs = state.entries.some((e) => e.call === call);
    const entry = this.#entry(name, tool, call, effect, pathless, hidden, argumentsJson, outcome, recurs);
    state.ordinal += 1;
    entry.ordinal = state.ordinal;
    entry.attempt = writes || entry.effect === E.WRITE;
    if (state.entries.length === this.#window) state.entries.shift();
    state.entries.push(entry);
    // A call new to the window can only be in a same-error loop, and only when it failed.
    const found = recurs || failing(entry) ? this.#detect(state.entries, tool.multiplier) : undefined;
    // Not a reaction to what came back: no alarm, the episode left as it was.
    if (concurrent && found !== undefined) return undefined;
    if (found === undefined) {
      // A re-read loop has other calls in between: it stays open until the
      // call comes back without an alarm, or an edit ends it (unless what
      // keeps coming back is a failure, or the loop is one of undoing
      // attempts: they are edits). Every other loop ends here.
      const a = state.active;
      state.active =
        a !== undefined &&
        (a.kind === 're-read' || a.kind === 'redo') &&
        a.nextCall !== entry.call &&
        (a.failing || a.about === 'undo' || (entry.flags & MUTATION) === 0)
          ? a
          : undefined;
      return undefined;
    }
    const a = state.active;
    let active: Active;
    if (a !== undefined && continuedBy(a, found)) {
      const fresh = found.calls.filter((o) => o > a.lastOrdinal).length;
      const calls = a.calls + fresh;
      active = {
        ...a,
        count: found.kind === 'cycle' ? Math.ceil(calls / a.period) : a.count + fresh,
        calls,
        reminders: a.reminders + 1,
        nextCall: found.nextCall,
        lastOrdinal: entry.ordinal,
        failing: failing(entry),
        about: found.about,
      };
    } else {
      active = {
        kind: found.kind,
        count: found.count,
        calls: found.calls.length,
        period: found.period,
        reminders: 1,
        nextCall: found.nextCall,
        firstOrdinal: found.calls[0]!,
        lastOrdinal: entry.ordinal,
        failing: failing(entry),
        about: found.about,
      };
    }
    state.active = active;
    return this.#alarm(name, found, active, outcome.text, argumentsJson);
  }

  #entry(
    name: string,
    tool: ToolInfo,
    call: string,
    effect: number,
    pathless: boolean,
    hidden: boolean,
    argumentsJson: string,
    outcome: LoopOutcome,
    recurs: boolean,
  ): Entry {
    const text = outcome.text;
    let flags = 0;
    const hard =
      outcome.isError ||
      showsFailure(text) ||
      codexExitFailed(text) ||
      // A tool that refused the call in words (an edit rejected).
      isRejection(text, tool.shell);
    // A failure seen only by a silent-failure rule in an output that shows an
    // HTTP error status is that status: a soft failure.
    let failed = hard || (outcome.flagged && httpError(text) === undefined);
    // A run or test whose real status the command hid: its output naming an error is the failure.
    if (!failed && hidden && (effect === E.RUN || effect === E.TEST) && namesError(text)) failed = true;
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
    // A run or test that comes back and names an error in its output, though nothing said it failed.
    if (recurs && (flags & FAILED) === 0 && (effect === E.RUN || effect === E.TEST) && namesError(text)) flags |= TROUBLED;
    const raw = digest(`${outcome.isError ? 'E' : 'S'}${text}`);
    let result = raw;
    // A failure (or a run whose output names an error) is the same failure when it differs only in where it
    // happened: positions masked too, normalised even at its first occurrence (loops.rs `entry`).
    const failure = (flags & (FAILED | SOFT)) !== 0 || ((effect === E.RUN || effect === E.TEST) && namesError(text));
    if (failure) {
      flags |= NORMALIZED;
      result = failureDigest(text, outcome.isError, this.#memo);
    } else if (recurs) {
      flags |= NORMALIZED;
      result = resultDigest(text, outcome.isError, this.#memo);
    }
    return { call, result, raw, sig, bare, tool: digest(name), ordinal: 0, time: 0, flags, effect, attempt: false };
  }

  #threshold(base: number | undefined, multiplier: number, transient: boolean): number | undefined {
    if (base === undefined) return undefined;
    let t = Math.max(Math.ceil(base * multiplier), 2);
    if (transient) t *= this.#config.transientMultiplier;
    return t;
  }

  /** Whether polls that showed nothing new over `spanMs` waited long enough (unknown times: the count alone). */
  #quietLong(spanMs: number | undefined): boolean {
    return spanMs === undefined || spanMs >= this.#pollQuietMs;
  }

  /** The loop the window's newest call is in, if any (loops.rs `Limits::detect`). */
  #detect(entries: Entry[], multiplier: number): Found | undefined {
    const n = entries.length;
    const at = (i: number) => entries[n - 1 - i]!; // 0 = newest
    const last = at(0);
    const transient = (last.flags & TRANSIENT) !== 0;
    const config = this.#config;
    const ordinals = (len: number) => {
      const calls = [];
      for (let i = len - 1; i >= 0; i -= 1) calls.push(at(i).ordinal);
      return calls;
    };

    // Repeat: the trailing run of the same call with the same outcome, link by link.
    let run = 1;
    while (run < n && sameOutcomeInARow(at(run), at(run - 1))) run += 1;
    // A running job's polls that show nothing new are waiting: only long is a loop.
    const isPolling = polling(last);
    // Going back in a browser says the same while it goes further back each time.
    const t = this.#threshold(isPolling ? config.poll : last.effect === E.NAVIGATE ? undefined : config.repeat, multiplier, transient);
    if (t !== undefined) {
      const spanMs = span(at(run - 1).time, last.time);
      if (run >= t && (!isPolling || this.#quietLong(spanMs))) {
        const about: About = isPolling ? 'polls' : last.effect === E.WAIT ? 'ended-job' : 'calls';
        return { kind: 'repeat', count: run, period: 1, calls: ordinals(run), nextCall: last.call, transient, about, spanMs };
      }
    }

    // Cycle: the shortest period whose trailing periodic stretch has begun the `cycle`-th round.
    const rounds = this.#threshold(config.cycle, multiplier, transient);
    if (rounds !== undefined) {
      for (let p = 2; p <= Math.min(config.maxPeriod, Math.floor(n / 2)); p += 1) {
        let shorter = false;
        for (let d = 1; d < p && !shorter; d += 1) {
          if (p % d !== 0) continue;
          let all = true;
          for (let i = d; i < p; i += 1) if (!sameAs(at(i), at(i - d))) all = false;
          shorter = all;
        }
        if (shorter) continue;
        let len = p;
        while (len < n && sameAs(at(len), at(len - p))) len += 1;
        const begun = Math.ceil(len / p);
        const block = Array.from({ length: p }, (_, i) => at(i));
        // Going back in a browser returns to a page; it does not loop.
        if (block.some((e) => e.effect === E.NAVIGATE)) continue;
        // A block that polls and otherwise only looks is waiting, as above.
        const blockPolls =
          block.some(polling) &&
          block.every((e) => e.effect === E.WAIT || e.effect === E.READ || e.effect === E.SEARCH || e.effect === E.OTHER);
        const spanMs = span(at(len - 1).time, last.time);
        const pollT = this.#threshold(config.poll, multiplier, transient);
        const longEnough = !blockPolls || (pollT !== undefined && len >= pollT && this.#quietLong(spanMs));
        if (len > p && begun >= rounds && longEnough) {
          return {
            kind: 'cycle',
            count: begun,
            period: p,
            calls: ordinals(len),
            nextCall: at(p - 1).call,
            transient,
            about: blockPolls ? 'polls' : 'calls',
            spanMs,
          };
        }
      }
    }

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
      const limit = this.#threshold(soft ? config.softError : config.sameError, multiplier, transient);
      if (limit !== undefined && count >= limit) {
        const calls = chain.map((e) => e.ordinal).reverse();
        return {
          kind: 'same-error',
          count,
          period: 1,
          calls,
          nextCall: last.call,
          transient,
          about: 'calls',
          spanMs: undefined,
          distinct,
          scattered,
        };
      }
    }

    // Re-read: only for what reads; a run or test counts only while it fails the same way.
    const reads =
      last.effect === E.WRITE || last.effect === E.WAIT || last.effect === E.NAVIGATE
        ? false
        : last.effect === E.RUN || last.effect === E.TEST
          ? troubled(last)
          : true;
    const reRead = reads ? this.#threshold(config.reRead, multiplier, transient) : undefined;
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
        return { kind: 're-read', count: calls.length, period: 1, calls, nextCall: last.call, transient, about, spanMs: undefined };
      }
    }

    // Attempt again: a failing run or test whose last run failed the same way, with a run between them
    // that had already run, with the same result, before that last one.
    const againT =
      (last.effect === E.RUN || last.effect === E.TEST) && troubled(last) && config.reRead !== undefined
        ? this.#threshold(2, multiplier, transient)
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
          return {
            kind: 're-read',
            count: 2,
            period: 1,
            calls: [prev.ordinal, last.ordinal],
            nextCall: last.call,
            transient,
            about: 'reruns',
            spanMs: undefined,
            scattered: true,
          };
        }
      }
    }

    // Redo: the same state change that names no file (a click, an install)
    // with the same result, nothing but looks in between.
    const redo =
      last.effect === E.WRITE && (last.flags & PATHLESS) !== 0 ? this.#threshold(config.reRead, multiplier, transient) : undefined;
    if (redo !== undefined) {
      const calls = [last.ordinal];
      let newer = last;
      for (let i = 1; i < n; i += 1) {
        const e = at(i);
        if (e.call === last.call) {
          if (!sameResult(e, newer)) break;
          calls.push(e.ordinal);
          newer = e;
        } else if (
          e.effect === E.WRITE ||
          e.effect === E.RUN ||
          e.effect === E.TEST ||
          e.effect === E.NAVIGATE ||
          (e.flags & MUTATION) !== 0
        ) {
          break;
        }
      }
      if (calls.length >= redo) {
        calls.reverse();
        return { kind: 'redo', count: calls.length, period: 1, calls, nextCall: last.call, transient, about: 'calls', spanMs: undefined };
      }
    }

    // Undo: the same restore again (a state change that names a file, word
    // for word, the same result, the `reRead`-th time, each time after other
    // state changes), and an attempt since the previous restore ended exactly
    // as one before it had (the same failing run, the same output).
    const undo =
      last.effect === E.WRITE && (last.flags & (PATHLESS | FAILED | SOFT)) === 0
        ? this.#threshold(config.reRead, multiplier, transient)
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
        return {
          kind: 'redo',
          count: calls.length,
          period: 1,
          calls,
          nextCall: last.call,
          transient,
          about: 'undo',
          spanMs: undefined,
          echo,
        };
      }
    }
    return undefined;
  }

  #alarm(tool: string, found: Found, episode: Active, text: string, argumentsJson: string): LoopVerdict {
    const calls = listCalls(episode.firstOrdinal, found.calls, episode.calls);
    const count = episode.count;
    const first = episode.firstOrdinal;
    const over = found.spanMs !== undefined && found.spanMs >= 60_000 ? ` over ${minutes(found.spanMs)}` : '';
    let evidence: string;
    let head: string;
    if (found.kind === 'repeat' && found.about === 'polls') {
      evidence = `calls ${calls}: the same ${tool} poll, nothing new each time${over}`;
      head = `${tool} polled the same job ${count} times in a row and showed nothing new each time${over} (calls ${calls}).`;
    } else if (found.kind === 'repeat' && found.about === 'ended-job') {
      evidence = `calls ${calls}: the same ${tool} poll of a job that has ended, the same result each time`;
      head = `${tool} polled a job that has already ended ${count} times in a row and got the same result each time (calls ${calls}).`;
    } else if (found.kind === 'repeat') {
      evidence = `calls ${calls}: the same ${tool} call, the same result each time`;
      head = `${tool} was called ${count} times in a row with the same arguments and returned the same result each time (calls ${calls}).`;
    } else if (found.kind === 'cycle' && found.about === 'polls') {
      evidence = `calls ${calls}: a block of ${found.period} polls repeated with nothing new, ${count} rounds${over}`;
      head = `the last ${episode.calls} calls (calls ${calls}) poll the same job in the same block of ${found.period} calls and show nothing new each round${over}; this is round ${count}.`;
    } else if (found.kind === 'cycle') {
      evidence = `calls ${calls}: a block of ${found.period} calls repeated with the same results, ${count} rounds`;
      head = `the last ${episode.calls} calls (calls ${calls}) repeat the same block of ${found.period} calls with the same results every round; this is round ${count}.`;
    } else if (found.kind === 'same-error') {
      const error = errorLine(text);
      const line = error === undefined ? '' : excerpt(error);
      evidence = `calls ${calls}: ${tool} failed with the same error each time: ${line}`;
      const how =
        found.distinct === 1
          ? 'the same call each time'
          : found.distinct !== undefined && found.distinct < found.count
            ? `with ${found.distinct} different sets of arguments`
            : 'each time with other arguments';
      const row = found.scattered === true ? ', whatever was tried in between,' : ' in a row';
      head = `${tool} failed ${count} times${row} with the same error, ${how} (calls ${calls}): ${line}`;
    } else if (found.kind === 'redo' && found.about === 'undo') {
      const what = restored(tool, argumentsJson);
      const [before, failed] = found.echo ?? [0, 0];
      evidence = `calls ${calls}: the same ${tool} restore of ${what}, attempts in between; call #${failed} failed as call #${before} had`;
      head = `${tool} restored ${what} the same way ${count} times since call #${first} (calls ${calls}), each time undoing the changes made since, and the attempts in between end as before: call #${failed} failed exactly as call #${before} had.`;
    } else if (found.kind === 'redo') {
      evidence = `calls ${calls}: the same ${tool} change made again with the same result, only looks in between`;
      head = `${tool} made the same change ${count} times since call #${first} with the same result each time, with nothing but looking in between (calls ${calls}).`;
    } else if (found.about === 'reruns' && found.scattered === true) {
      evidence = `calls ${calls}: the same ${tool} run failed the same way after the same steps as before`;
      head = `${tool} ran the same command ${count} times since call #${first} and it failed the same way each time, after the same steps as the time before (calls ${calls}).`;
    } else if (found.about === 'reruns') {
      evidence = `calls ${calls}: the same ${tool} run failed the same way each time, other calls in between`;
      head = `${tool} ran the same command ${count} times since call #${first} and it failed the same way each time, whatever was done in between (calls ${calls}).`;
    } else {
      evidence = `calls ${calls}: the same ${tool} call returned the same result, other calls in between`;
      head = `${tool} was called with the same arguments ${count} times since call #${first} and returned the same result each time (calls ${calls}).`;
    }
    const reminders = episode.reminders;
    // A loop that goes on after its first reminder hears it again, and louder.
    const lead =
      reminders > 1
        ? `[toolguard] Loop detected (reminder ${reminders} for this loop, which began at call #${first}):`
        : '[toolguard] Loop detected:';
    return {
      kind: found.kind,
      tool,
      count,
      period: found.period,
      calls: found.calls.slice(-EVIDENCE_CALLS),
      first,
      last: episode.lastOrdinal,
      evidence,
      text: `${lead} ${head} ${advice(found.kind, found.transient, found.about)}`,
      summary: `${tool}: ${LABELS[found.kind]} × ${count}`,
      reminders,
    };
  }

  /** The user spoke (or the agent is gone): the agent's window starts over. */
  remove(agent: string): void {
    this.#agents.delete(agent);
  }

  agentIds(): IterableIterator<string> {
    return this.#agents.keys();
  }

  /**
   * The agent's window as a string, in the native layout (version, ordinal,
   * active episode, denied call, then one group a call) with this engine's
   * digests; `undefined` when it has none.
   */
  state(agent: string): string | undefined {
    const s = this.#agents.get(agent);
    if (s === undefined) return undefined;
    const hex = (n: number) => n.toString(16);
    const a = s.active;
    let out = `${STATE_VERSION}.${hex(s.ordinal)}.`;
    out +=
      a === undefined
        ? '-'
        : [
            KIND_CODES[a.kind],
            hex(a.count),
            hex(a.calls),
            hex(a.period),
            hex(a.reminders),
            a.nextCall,
            hex(a.firstOrdinal),
            hex(a.lastOrdinal),
            a.failing ? '1' : '0',
            ABOUT_CODES[a.about],
          ].join(':');
    out += `.${s.denied ?? '-'}`;
    for (const e of s.entries) {
      out += `.${e.call}${e.result}${e.raw}${e.sig === '' ? '0'.repeat(16) : e.sig}${e.bare === '' ? '0'.repeat(16) : e.bare}${e.tool}${hex(e.flags)}:${hex(e.ordinal)}:${hex(e.time)}:${hex(e.effect)}:${e.attempt ? 1 : 0}`;
    }
    return out;
  }

  /**
   * Put back a window saved with {@link state} (its newest `window` calls).
   * A state of another version starts the agent afresh, as natively; only a
   * damaged state of this version is an error.
   */
  restore(agent: string, state: string): void {
    if (state.split('.')[0] !== STATE_VERSION) {
      this.#agents.delete(agent);
      return;
    }
    const restored = parseState(state, this.#window);
    if (restored === undefined) throw stateError('toolguard: state.loops is not a saved loop state', 'loops');
    this.#agents.set(agent, restored);
  }

  get size(): number {
    return this.#agents.size;
  }
}

/** Rust `u64::from_str_radix(s, 16)`: an optional `+`, then hex digits, at most 64 bits. */
function hexOf(s: string | undefined): number | undefined {
  if (s === undefined || !/^\+?[0-9a-fA-F]+$/.test(s)) return undefined;
  const digits = s.replace(/^\+/, '').replace(/^0+(?=.)/, '');
  return digits.length > 16 ? undefined : Number.parseInt(digits, 16);
}

function digestOf(s: string | undefined): string | undefined {
  const n = s === undefined ? undefined : hexOf(s);
  return n === undefined
    ? undefined
    : s!
        .replace(/^\+/, '')
        .toLowerCase()
        .replace(/^0+(?=.)/, '')
        .padStart(16, '0')
        .slice(-16);
}

/** A state of this version back into an agent's window (`undefined`: damaged). */
function parseState(state: string, window: number): AgentLoops | undefined {
  const parts = state.split('.');
  if (parts.length < 4) return undefined;
  const ordinal = hexOf(parts[1]);
  if (ordinal === undefined) return undefined;
  let active: Active | undefined;
  if (parts[2] !== '-') {
    const f = parts[2]!.split(':');
    if (f.length !== 10 || !/^\+?[0-9]+$/.test(f[0]!)) return undefined;
    const kind = (Object.keys(KIND_CODES) as LoopKind[]).find((k) => KIND_CODES[k] === Number(f[0]));
    const about = (Object.keys(ABOUT_CODES) as About[]).find((k) => ABOUT_CODES[k] === f[9]);
    const [count, calls, period, reminders, first, lastOrdinal] = [f[1], f[2], f[3], f[4], f[6], f[7]].map(hexOf);
    const nextCall = digestOf(f[5]);
    if (kind === undefined || about === undefined || (f[8] !== '0' && f[8] !== '1')) return undefined;
    if ([count, calls, period, reminders, first, lastOrdinal, nextCall].includes(undefined)) return undefined;
    active = {
      kind,
      count: count!,
      calls: calls!,
      period: Math.max(period!, 1),
      reminders: reminders!,
      nextCall: nextCall!,
      firstOrdinal: first!,
      lastOrdinal: lastOrdinal!,
      failing: f[8] === '1',
      about,
    };
  }
  const denied = parts[3] === '-' ? undefined : digestOf(parts[3]);
  if (parts[3] !== '-' && denied === undefined) return undefined;
  const entries: Entry[] = [];
  for (const e of parts.slice(4)) {
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the range is "ASCII only", control characters included on purpose
    if (e.length < 103 || !/^[\x00-\x7f]*$/.test(e)) return undefined;
    const tail = e.slice(96).split(':');
    if (tail.length !== 5 || (tail[4] !== '0' && tail[4] !== '1')) return undefined;
    const [call, result, raw, sig, bare, tool] = [0, 16, 32, 48, 64, 80].map((k) => digestOf(e.slice(k, k + 16)));
    const [ordinal, time] = [hexOf(tail[1]), hexOf(tail[2])];
    const flags = /^\+?[0-9a-fA-F]{1,2}$/.test(tail[0]!) ? Number.parseInt(tail[0]!.replace('+', ''), 16) : undefined;
    const effect = /^\+?[0-9a-fA-F]{1,2}$/.test(tail[3]!) ? Number.parseInt(tail[3]!.replace('+', ''), 16) : undefined;
    if ([call, result, raw, sig, bare, tool, ordinal, time, flags, effect].includes(undefined)) return undefined;
    entries.push({
      call: call!,
      result: result!,
      raw: raw!,
      sig: sig === '0'.repeat(16) ? '' : sig!,
      bare: bare === '0'.repeat(16) ? '' : bare!,
      tool: tool!,
      ordinal: ordinal!,
      time: time!,
      flags: flags!,
      effect: effect!,
      attempt: tail[4] === '1',
    });
    if (entries.length > window) entries.shift();
  }
  return { entries, ordinal, active, denied };
}

function advice(kind: LoopKind, transient: boolean, about: About): string {
  if (transient) {
    return 'The service is rate-limiting or temporarily unavailable: wait before the next attempt (back off, and longer each time) or check its status instead of retrying at once.';
  }
  switch (about) {
    case 'polls':
      return 'The job may still be running and simply quiet: wait longer before the next check (back off, and longer each time), or look at it another way (its log file, its process, what it writes); if it has hung, stop it and say so.';
    case 'ended-job':
      return 'The job has ended, so polling it again will return the same thing: read its final output and exit status and act on them.';
    case 'reruns':
      return 'What changed in between has not changed the failure: find out why it fails (read the error, check your assumption) before running it again.';
    case 'undo':
      return 'Undoing the change and trying again has not got you further: find out why the attempts fail (read the error, check your assumption) before the next one, or try another approach.';
    case 'calls':
      break;
  }
  switch (kind) {
    case 'repeat':
      return 'Calling it again will return the same thing. Read the result you already have, then change something (the arguments, the approach), or stop and report what blocks you.';
    case 'cycle':
      return 'Nothing changes between rounds. Stop the cycle: find out why the failing step keeps failing (read the error, check your assumption) and do something different.';
    case 'same-error':
      return 'Changing the arguments does not reach the cause. Diagnose the error itself (read it, check what it names) before trying again.';
    case 're-read':
      return 'The content has not changed since you last read it. Use what you already have instead of fetching it again.';
    case 'redo':
      return 'Doing it again has not changed anything: check whether it took effect, and why not, before doing it again; try another way.';
  }
}

/** What a restore writes, for an undo alarm: the first two paths the call writes (by the shell model), or "the same files". */
function restored(tool: string, argumentsJson: string): string {
  const paths = classifyCall(tool, argumentsJson).writes.slice(0, 2).map(excerpt);
  return paths.length === 0 ? 'the same files' : paths.join(' and ');
}

/** `12 min`, `2 h 5 min`. */
function minutes(ms: number): string {
  const m = Math.floor(ms / 60_000);
  if (m < 60) return `${m} min`;
  return m % 60 === 0 ? `${m / 60} h` : `${Math.floor(m / 60)} h ${m % 60} min`;
}

/** `#3, #4, #5`: the episode's latest calls, after its first call and `…` when the episode holds more than they show. */
function listCalls(first: number, calls: number[], total: number): string {
  const shown = calls.slice(Math.max(0, calls.length - EVIDENCE_CALLS));
  const out = shown.map((c) => `#${c}`);
  if (total > shown.length && shown[0] !== first) out.unshift(`#${first}`, '…');
  return out.join(', ');
}

/** The line trimmed, cut after 160 characters (Unicode scalar values) with `…`. */
function excerpt(line: string): string {
  const trimmed = trimLikeRust(line);
  const chars = Array.from(trimmed);
  return chars.length > 160 ? `${chars.slice(0, 160).join('')}…` : trimmed;
}

/** Codex's shell output starts `Exit code: N`. */
function codexExitFailed(text: string): boolean {
  if (!text.startsWith('Exit code: ')) return false;
  const code = trimLikeRust(text.slice('Exit code: '.length).split(/[\n\r]/)[0]!);
  return code !== '' && /^[0-9]+$/.test(code) && /[1-9]/.test(code);
}

/** Rust `str::lines`: split on `\n`, a trailing `\r` dropped, no last empty line. */
function rustLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines.map((line) => (line.endsWith('\r') ? line.slice(0, -1) : line));
}

/** The lines looked at for an HTTP status: the first 20, and the whole lines of the last 400 bytes. */
function edgeLines(text: string): string[] {
  const head = rustLines(edgeSpans(text)[0]).slice(0, 20);
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes <= 400) return head;
  const tail = utf8From(text, bytes - 400);
  if (tail === text) return head;
  return [...head, ...rustLines(tail).slice(1)];
}

/** An HTTP 4xx/5xx status line (`HTTP/1.1 404 Not Found`, `HTTP 404`) near the edges of the output. */
function httpError(text: string): number | undefined {
  const bytes = Buffer.byteLength(text, 'utf8');
  const found =
    bytes <= 4096 ? text.includes('HTTP') : utf8Head(text, 4096).includes('HTTP') || utf8From(text, bytes - 512, true).includes('HTTP');
  if (!found) return undefined;
  for (const raw of edgeLines(text)) {
    const code = statusOf(trimLikeRust(raw));
    if (code !== undefined) return code;
  }
  return undefined;
}

function statusOf(line: string): number | undefined {
  let rest: string;
  if (line.startsWith('HTTP/')) {
    const space = line.indexOf(' ', 5);
    if (space === -1) return undefined;
    rest = line.slice(space + 1);
  } else if (line.startsWith('HTTP ')) rest = line.slice(5);
  else return undefined;
  // Rust `rest.get(..3)?.parse::<u16>()`: three bytes that are a number (a `+` sign allowed).
  const head = rest.slice(0, 3);
  if (Buffer.byteLength(head, 'utf8') !== 3 || !/^\+?[0-9]+$/.test(head)) return undefined;
  const code = Number(head);
  const whole = rest.length === 3 || rest.charCodeAt(3) === 0x20;
  return whole && code >= 400 && code < 600 ? code : undefined;
}

/** Rate limits and temporary unavailability: back-off territory. */
function transient(text: string): boolean {
  const code = httpError(text);
  if (code === 429 || code === 503) return true;
  const [head, tail] = edgeSpans(text);
  return [head, tail].some((span) => /too many requests|rate limit|rate_limit|retry-after/i.test(span));
}

/** The first 20 lines, and the whole lines of the last 400 bytes (loops.rs `edge_spans`). */
function edgeSpans(text: string): [string, string] {
  let headEnd = -1;
  for (let k = 0; k < 20; k += 1) {
    headEnd = text.indexOf('\n', headEnd + 1);
    if (headEnd === -1) break;
  }
  const head = headEnd === -1 ? text : text.slice(0, headEnd);
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes <= 400) return [head, ''];
  const from = utf8From(text, bytes - 400);
  const newline = from.indexOf('\n');
  return [head, newline === -1 ? '' : from.slice(newline + 1)];
}

/** Words that name a failure, ASCII case-insensitive (a regex without `u` folds no non-ASCII letter onto these). */
const ERROR_WORDS =
  /error|exception|fail|fatal|panic|not found|no such|denied|cannot|can't|could not|unable|refused|does not exist|invalid/i;

const TRACEBACK = 'Traceback (most recent call last):';

/** Rust `char::is_whitespace` for a line's first character. */
const STARTS_WITH_SPACE = /^[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]/;

/**
 * The line that names a failure: a Python traceback's exception line, else
 * the first line holding an error word or an HTTP error status (banners and
 * harness headers skipped), else the first non-empty line.
 */
export function errorLine(text: string): string | undefined {
  const at = text.lastIndexOf(TRACEBACK);
  if (at !== -1) {
    const exception = rustLines(text.slice(at))
      .slice(1)
      .find((l) => l !== '' && !STARTS_WITH_SPACE.test(l) && !l.startsWith('^') && !l.startsWith('~'));
    if (exception !== undefined) return exception;
  }
  let first: string | undefined;
  for (const line of text.split(/(?<=\n)/)) {
    const t = trimLikeRust(line);
    if (t === '' || isBanner(t) || isHarnessHeader(t)) continue;
    first ??= t;
    if (ERROR_WORDS.test(line) || httpError(t) !== undefined) return t;
  }
  return first;
}

/** Whether `text` names an error: a Python traceback, or a line with an error word that is not a passing test's line (loops.rs `names_error`). */
function namesError(text: string): boolean {
  if (text.includes(TRACEBACK)) return true;
  for (const line of text.split('\n')) {
    if (ERROR_WORDS.test(line) && !(line.includes('PASS') || line.includes('passed') || line.includes(' ok'))) return true;
  }
  return false;
}

function isBanner(t: string): boolean {
  return t.length >= 3 && /^[=_\-*]{3}/.test(t);
}

/** A line a harness wraps a result in (a header, an exit-status line), not the command's own output. */
function isFrame(t: string): boolean {
  return (
    isHarnessHeader(t) ||
    (t.startsWith('Exit code ') && /^[0-9-]*$/.test(t.slice('Exit code '.length))) ||
    (t.startsWith('[Command finished with exit code ') && t.endsWith(']')) ||
    (t.startsWith('<returncode>') && t.endsWith('</returncode>')) ||
    (t.startsWith('[status: ') && t.endsWith(']'))
  );
}

/** A status line, or an empty output's `<output>` tags of mini-swe-agent's template for the model (loops.rs `is_wrapper`). */
function isWrapper(t: string): boolean {
  return isFrame(t) || t === '<output>' || t === '</output>';
}

/** A status line whose number says the command was stopped, not that it failed: 124, 137, 143, -9, -15 (loops.rs `stopped`). */
function stopped(frame: string): boolean {
  const m = /(-?)([0-9]+)[^0-9]*$/.exec(frame);
  if (m === null) return false;
  return m[1] === '-' ? m[2] === '9' || m[2] === '15' : m[2] === '124' || m[2] === '137' || m[2] === '143';
}

function isHarnessHeader(t: string): boolean {
  return (
    t.startsWith('Exit code: ') ||
    t.startsWith('Wall time: ') ||
    t === 'Output:' ||
    t.startsWith('Process running with session ID') ||
    (t.startsWith('[exit code: ') && t.endsWith(']'))
  );
}

/** Rust `char::is_whitespace` plus the quote and bracket characters a signature splits on. */
const SIGNATURE_SPLIT = /[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000"'`()[\]{},]/;

/**
 * The error signature of `line`: normalised, digit runs as `#`, and every
 * token that also occurs in the call's arguments as `<arg>`.
 */
export function signature(line: string, argumentsJson: string): string {
  const normal = normalizeLine(line);
  const out: string[] = [];
  // A run of argument tokens is one `<arg>`.
  let afterArg = false;
  for (const token of normal.split(SIGNATURE_SPLIT)) {
    const numeric = /^[0-9]*$/.test(token);
    const arg = !numeric && Buffer.byteLength(token, 'utf8') >= 3 && argumentsJson.includes(token);
    // Inside a run, a short token of the arguments (`-q`, `&&`) goes on with it.
    if (afterArg && (arg || token === '' || argumentsJson.includes(token))) continue;
    if (arg) {
      out.push('<arg>');
      afterArg = true;
      continue;
    }
    afterArg &&= token === '';
    out.push(token.replace(/[0-9]+/g, '#'));
  }
  return digest(out.join(' '));
}
