/**
 * The loop detectors of crates/toolguard-core/src/loops/, written plainly
 * and split the same way (one concern a file; the detectors one to a file:
 * repeat, cycle, same-error, re-read, rerun, redo, undo — see detect.mts):
 * per agent a window of the last `window` calls, each reduced to digests
 * (call, result, raw result, error signature, tool) and flags; after every
 * call the detectors read the window, most specific first. The texts (alarm,
 * evidence, deny reason) and the config decoding and its errors are the
 * native engine's word for word; the differential tests
 * (`__test__/reference-loops.test.mjs`) and the behaviour cases
 * (`__test__/cases/loops/`) hold the two together.
 *
 * Digests are this engine's own (SHA-1 halves, `normalize.mts` `digest`):
 * only their equality is used, so a saved loop state goes back into the same
 * kind of engine.
 */
import { canonicalizeValue, parseArguments } from '../canonical.mjs';
import { kindOf, stateError } from '../errors.mjs';
import { digest } from '../normalize.mjs';
import { classifyCall, isShellTool } from '../shell.mjs';
import type { LoopDenyVerdict, LoopVerdict } from '../types.mjs';
import { matchesAny, wildcardToRegExp } from '../wildcard.mjs';
import { MAX_LOOP_WINDOW, type ResolvedLoops } from './config.mjs';
import { Limits } from './detect.mjs';
import {
  type Active,
  type AgentLoops,
  continuedBy,
  E,
  EFFECT_CACHE,
  EFFECT_CODES,
  entryOf,
  failing,
  HIDDEN,
  MUTATION,
  NO_PATH,
  type ToolInfo,
  WRITES,
} from './entry.mjs';
import { parseState, STATE_VERSION, writeState } from './state.mjs';
import { advice, alarm, LABELS } from './texts.mjs';

export {
  DEFAULT_MUTATING_TOOLS,
  defaultLoops,
  EVIDENCE_CALLS,
  LOOPS_KEYS,
  MAX_LOOP_WINDOW,
  type ResolvedLoops,
  resolveLoops,
} from './config.mjs';
export { errorLine, signature } from './errors.mjs';
export { STATE_VERSION } from './state.mjs';

export type LoopKind = LoopVerdict['kind'];

const isObject = (value: unknown): value is Record<string, unknown> => kindOf(value) === 'object';

/** One call's result as the detectors need it. */
export interface LoopOutcome {
  /** The result's text blocks joined with `\n` (empty when none). */
  text: string;
  isError: boolean;
  /** A silent-failure rule matched with action `error`. */
  flagged: boolean;
}

/** The compiled `loops` config plus every agent's window. */
export class Loops {
  readonly #window: number;
  readonly #config: ResolvedLoops;
  readonly #limits: Limits;
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
    this.#limits = new Limits(this.#config);
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

  /** Whether `check` may refuse a call (loops.rs `denies`). */
  get denies(): boolean {
    return this.#config.deny !== undefined;
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
    const entry = entryOf(name, tool, call, effect, pathless, hidden, argumentsJson, outcome, recurs, this.#memo);
    state.ordinal += 1;
    entry.ordinal = state.ordinal;
    entry.attempt = writes || entry.effect === E.WRITE;
    if (state.entries.length === this.#window) state.entries.shift();
    state.entries.push(entry);
    // A call new to the window can only be in a same-error loop, and only when it failed.
    const found = recurs || failing(entry) ? this.#limits.detect(state.entries, tool.multiplier) : undefined;
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
    return alarm(name, found, active, outcome.text, argumentsJson);
  }

  /** The user spoke (or the agent is gone): the agent's window starts over. */
  remove(agent: string): void {
    this.#agents.delete(agent);
  }

  agentIds(): IterableIterator<string> {
    return this.#agents.keys();
  }

  /**
   * The agent's window as a string (state.mts), in the native layout with
   * this engine's digests; `undefined` when it has none.
   */
  state(agent: string): string | undefined {
    const s = this.#agents.get(agent);
    return s === undefined ? undefined : writeState(s);
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
