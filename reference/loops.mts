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
import { invalid, kindOf } from './errors.mjs';
import { showsFailure } from './markers.mjs';
import { digest, normalizeLine, resultDigest, utf8From, utf8Head } from './normalize.mjs';
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

function wrongType(at: string, expected: string, got: unknown): Error {
  return invalid(`toolguard: ${at} must be ${expected} (got ${kindOf(got)})`);
}

/** config.rs `integer`: an optional integer in `[min, max]`; the message offers `false` where a detector can be off. */
function integer(value: unknown, at: string, min: number, max: number): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max) return value;
  const orFalse = at.endsWith('window') || at.endsWith('maxPeriod') || at.endsWith('transientMultiplier') ? '' : ', or false';
  const got = typeof value === 'number' ? String(value) : kindOf(value);
  throw invalid(`toolguard: ${at} must be an integer from ${min} to ${max}${orFalse} (got ${got})`);
}

function optionalStrings(value: unknown, at: string): string[] | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value)) throw wrongType(at, 'an array of strings', value);
  value.forEach((item, index) => {
    if (typeof item !== 'string') throw wrongType(`${at}[${index}]`, 'a string', item);
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
    throw invalid(`toolguard: unknown key config.loops.${unknown[0]} (expected one of: ${LOOPS_KEYS.join(', ')})`);
  }
  const at = (key: string) => `config.loops.${key}`;
  config.window = integer(value.window, at('window'), 2, MAX_LOOP_WINDOW) ?? config.window;
  for (const key of ['repeat', 'cycle', 'sameError', 'softError', 'reRead'] as const) {
    const v = value[key];
    if (v === undefined) continue;
    config[key] = v === false ? undefined : integer(v, at(key), 2, 1e9);
  }
  config.maxPeriod = integer(value.maxPeriod, at('maxPeriod'), 2, 8) ?? config.maxPeriod;
  config.transientMultiplier = integer(value.transientMultiplier, at('transientMultiplier'), 1, 100) ?? config.transientMultiplier;
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
      .map(([tool, keys]) => [tool, optionalStrings(keys, `config.loops.ignoreArguments.${tool}`) ?? []]);
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
        throw wrongType(`config.loops.multipliers.${tool}`, 'a number in (0, 100]', m);
      });
  }
  return config;
}

const FAILED = 1;
const SOFT = 2;
const TRANSIENT = 4;
const MUTATION = 8;
/** `result` is the normalised digest (else it is the raw one). */
const NORMALIZED = 16;

/** One call as the window keeps it. `sig` is `''` when the call has no error signature. */
interface Entry {
  call: string;
  result: string;
  raw: string;
  sig: string;
  tool: string;
  ordinal: number;
  flags: number;
}

const failing = (e: Entry) => (e.flags & (FAILED | SOFT)) !== 0;
const sameResult = (a: Entry, b: Entry) => ((a.flags & b.flags & NORMALIZED) !== 0 ? a.result === b.result : a.raw === b.raw);
const sameAs = (a: Entry, b: Entry) => a.call === b.call && sameResult(a, b);
/** Same call, same outcome: the same result, or, for failures, the same error signature (calls in a row only). */
const sameOutcomeInARow = (a: Entry, b: Entry) =>
  a.call === b.call && (sameResult(a, b) || (failing(a) && failing(b) && a.sig !== '' && a.sig === b.sig));

/** The loop the agent is in, as far as escalation needs it. */
interface Active {
  kind: LoopKind;
  count: number;
  reminders: number;
  /** The call that would continue the loop. */
  nextCall: string;
  firstOrdinal: number;
}

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
}

interface Found {
  kind: LoopKind;
  count: number;
  period: number;
  /** The loop's calls by ordinal, oldest first. */
  calls: number[];
  nextCall: string;
  transient: boolean;
}

const KIND_CODES: Record<LoopKind, number> = { repeat: 1, cycle: 2, 'same-error': 3, 're-read': 4 };
const LABELS: Record<LoopKind, string> = { repeat: 'repeat', cycle: 'cycle', 'same-error': 'same error', 're-read': 're-read' };

/** The compiled `loops` config plus every agent's window. */
export class Loops {
  readonly #window: number;
  readonly #config: ResolvedLoops;
  readonly #exempt: RegExp[];
  readonly #mutating: RegExp[];
  readonly #ignore: Array<[RegExp, string[]]>;
  readonly #multipliers: Array<[RegExp, number]>;
  readonly #agents = new Map<string, AgentLoops>();
  readonly #memo = new Map<string, string>();

  constructor(config: ResolvedLoops) {
    this.#config = {
      ...config,
      maxPeriod: Math.min(Math.max(config.maxPeriod, 2), 8),
      transientMultiplier: Math.max(config.transientMultiplier, 1),
    };
    this.#window = Math.min(Math.max(config.window, 2), MAX_LOOP_WINDOW);
    this.#exempt = config.exempt.map(wildcardToRegExp);
    this.#mutating = config.mutatingTools.map(wildcardToRegExp);
    this.#ignore = config.ignoreArguments.map(([pattern, keys]) => [wildcardToRegExp(pattern), keys]);
    this.#multipliers = config.multipliers.map(([pattern, m]) => [wildcardToRegExp(pattern), m]);
  }

  get deny(): number | undefined {
    return this.#config.deny;
  }

  #tool(name: string): ToolInfo {
    const matching = this.#ignore.filter(([pattern]) => pattern.test(name));
    const multiplier = [...this.#multipliers].reverse().find(([pattern]) => pattern.test(name));
    return {
      tracked: !matchesAny(this.#exempt, name),
      mutating: matchesAny(this.#mutating, name),
      ignored: matching.length === 0 ? undefined : matching.flatMap(([, keys]) => keys),
      multiplier: multiplier === undefined ? 1 : multiplier[1],
    };
  }

  /** The call digest: tool and canonical arguments, ignored keys removed (loops.rs `call_digest`). */
  #callDigest(name: string, argumentsJson: string, ignored: string[] | undefined): string {
    let canonical = canonicalizeValue(parseArguments(argumentsJson));
    if (ignored !== undefined && ignored.length > 0) {
      const value: unknown = JSON.parse(canonical);
      if (isObject(value) && !Array.isArray(value) && ignored.some((key) => Object.hasOwn(value, key))) {
        for (const key of ignored) delete value[key];
        canonical = serdeJson(value);
      }
    }
    return digest(`${name}\0${canonical}`);
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
        `that has already had ${active.reminders} reminder${active.reminders === 1 ? '' : 's'}. ${advice(active.kind, false)}`,
    };
  }

  /** Record one call and its result; the alarm due at it, if any. */
  observe(agent: string, name: string, argumentsJson: string, outcome: LoopOutcome): LoopVerdict | undefined {
    const tool = this.#tool(name);
    if (!tool.tracked) return undefined;
    const call = this.#callDigest(name, argumentsJson, tool.ignored);
    let state = this.#agents.get(agent);
    if (state === undefined) {
      state = { entries: [], ordinal: 0, active: undefined, denied: undefined };
      this.#agents.set(agent, state);
    }
    const denied = state.denied;
    state.denied = undefined;
    if (denied === call) return undefined;
    const recurs = state.entries.some((e) => e.call === call);
    const e = this.#entry(name, tool, call, argumentsJson, outcome, recurs);
    state.ordinal += 1;
    e.ordinal = state.ordinal;
    if (state.entries.length === this.#window) state.entries.shift();
    state.entries.push(e);
    // A call new to the window can only be in a same-error loop, and only when it failed.
    const found = recurs || failing(e) ? this.#detect(state.entries, tool.multiplier) : undefined;
    if (found === undefined) {
      state.active = undefined;
      return undefined;
    }
    const first = found.calls[0]!;
    const previous = state.active;
    const reminders = previous !== undefined && previous.kind === found.kind && previous.firstOrdinal === first ? previous.reminders + 1 : 1;
    state.active = { kind: found.kind, count: found.count, reminders, nextCall: found.nextCall, firstOrdinal: first };
    return this.#alarm(name, found, reminders, outcome.text);
  }

  #entry(name: string, tool: ToolInfo, call: string, argumentsJson: string, outcome: LoopOutcome, recurs: boolean): Entry {
    const text = outcome.text;
    let flags = 0;
    if (outcome.isError || outcome.flagged || showsFailure(text) || codexExitFailed(text)) flags |= FAILED;
    else if (httpError(text) !== undefined) flags |= SOFT;
    let sig = '';
    if (flags !== 0) {
      const error = errorLine(text);
      if (error !== undefined) sig = signature(error, argumentsJson);
      if (transient(text)) flags |= TRANSIENT;
    } else if (tool.mutating) {
      flags |= MUTATION;
    }
    const raw = digest(`${outcome.isError ? 'E' : 'S'}${text}`);
    let result = raw;
    if (recurs) {
      flags |= NORMALIZED;
      result = resultDigest(text, outcome.isError, this.#memo);
    }
    return { call, result, raw, sig, tool: digest(name), ordinal: 0, flags };
  }

  #threshold(base: number | undefined, multiplier: number, transient: boolean): number | undefined {
    if (base === undefined) return undefined;
    let t = Math.max(Math.ceil(base * multiplier), 2);
    if (transient) t *= this.#config.transientMultiplier;
    return t;
  }

  /** The loop the window's newest call is in, if any (loops.rs `Limits::detect`). */
  #detect(entries: Entry[], multiplier: number): Found | undefined {
    const n = entries.length;
    const at = (i: number) => entries[n - 1 - i]!; // 0 = newest
    const last = at(0);
    const transient = (last.flags & TRANSIENT) !== 0;
    const config = this.#config;

    // Repeat: the trailing run of the same call with the same outcome, link by link.
    let run = 1;
    while (run < n && sameOutcomeInARow(at(run), at(run - 1))) run += 1;
    const repeat = this.#threshold(config.repeat, multiplier, transient);
    if (repeat !== undefined && run >= repeat) {
      const calls = [];
      for (let i = run - 1; i >= 0; i -= 1) calls.push(at(i).ordinal);
      return { kind: 'repeat', count: run, period: 1, calls, nextCall: last.call, transient };
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
        if (len > p && begun >= rounds) {
          const calls = [];
          for (let i = len - 1; i >= 0; i -= 1) calls.push(at(i).ordinal);
          return { kind: 'cycle', count: begun, period: p, calls, nextCall: at(p - 1).call, transient };
        }
      }
    }

    // Same error: consecutive failures of this tool with one signature, counted by distinct calls.
    if (failing(last) && last.sig !== '') {
      const chain: Entry[] = [last];
      for (let i = 1; i < n; i += 1) {
        const e = at(i);
        if (e.tool !== last.tool) continue;
        if (!(failing(e) && e.sig === last.sig)) break;
        chain.push(e);
      }
      const distinct = new Set(chain.map((e) => e.call)).size;
      const soft = chain.some((e) => (e.flags & SOFT) !== 0);
      const t = this.#threshold(soft ? config.softError : config.sameError, multiplier, transient);
      if (t !== undefined && distinct >= t) {
        const calls = chain.map((e) => e.ordinal).reverse();
        return { kind: 'same-error', count: distinct, period: 1, calls, nextCall: last.call, transient };
      }
    }

    // Re-read: the same call and outcome within the window; stop at the call's
    // last different result, and (for a success) at a successful edit.
    const reRead = this.#threshold(config.reRead, multiplier, transient);
    if (reRead !== undefined) {
      const calls = [last.ordinal];
      let newer = last;
      for (let i = 1; i < n; i += 1) {
        const e = at(i);
        if ((e.flags & MUTATION) !== 0 && !failing(last)) break;
        if (e.call !== last.call) continue;
        if (!sameResult(e, newer)) break;
        calls.push(e.ordinal);
        newer = e;
      }
      if (calls.length >= reRead) {
        calls.reverse();
        return { kind: 're-read', count: calls.length, period: 1, calls, nextCall: last.call, transient };
      }
    }
    return undefined;
  }

  #alarm(tool: string, found: Found, reminders: number, text: string): LoopVerdict {
    const calls = listCalls(found.calls);
    const count = found.count;
    let evidence: string;
    let head: string;
    switch (found.kind) {
      case 'repeat':
        evidence = `calls ${calls}: the same ${tool} call, the same result each time`;
        head = `${tool} was called ${count} times in a row with the same arguments and returned the same result each time (calls ${calls}).`;
        break;
      case 'cycle':
        evidence = `calls ${calls}: a block of ${found.period} calls repeated with the same results, ${count} rounds`;
        head = `the last ${found.calls.length} calls (calls ${calls}) repeat the same block of ${found.period} calls with the same results every round; this is round ${count}.`;
        break;
      case 'same-error': {
        const error = errorLine(text);
        const line = error === undefined ? '' : excerpt(error);
        evidence = `calls ${calls}: ${tool} failed with the same error each time: ${line}`;
        head = `${tool} failed ${count} times in a row with the same error, each time with other arguments (calls ${calls}): ${line}`;
        break;
      }
      case 're-read':
        evidence = `calls ${calls}: the same ${tool} call returned the same result, other calls in between`;
        head = `${tool} was called with the same arguments ${count} times within the last ${this.#window} calls and returned the same result each time (calls ${calls}).`;
        break;
    }
    return {
      kind: found.kind,
      tool,
      count,
      period: found.period,
      calls: found.calls.slice(-EVIDENCE_CALLS),
      evidence,
      text: `[toolguard] Loop detected: ${head} ${advice(found.kind, found.transient)}`,
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
   * The agent's window as a string, in the native layout (`L1.` ordinal,
   * active loop, denied call, then one `call result raw sig tool flags:ordinal`
   * group a call) with this engine's digests; `undefined` when it has none.
   */
  state(agent: string): string | undefined {
    const s = this.#agents.get(agent);
    if (s === undefined) return undefined;
    const hex = (n: number) => n.toString(16);
    const a = s.active;
    let out = `L1.${hex(s.ordinal)}.`;
    out += a === undefined ? '-' : `${KIND_CODES[a.kind]}:${hex(a.count)}:${hex(a.reminders)}:${a.nextCall}:${hex(a.firstOrdinal)}`;
    out += `.${s.denied ?? '-'}`;
    for (const e of s.entries) {
      out += `.${e.call}${e.result}${e.raw}${e.sig === '' ? '0'.repeat(16) : e.sig}${e.tool}${hex(e.flags)}:${hex(e.ordinal)}`;
    }
    return out;
  }

  /**
   * Put back a window saved with {@link state} (the newest `window` calls of
   * it). The tool digest is only compared for equality, so the restored
   * entries keep it as their tool key.
   */
  restore(agent: string, state: string): void {
    const bad = () => invalid('toolguard: state.loops is not a saved loop state');
    const parts = state.split('.');
    if (parts[0] !== 'L1' || parts.length < 4) throw bad();
    const hex = (s: string | undefined): number => {
      if (s === undefined || !/^[0-9a-fA-F]{1,16}$/.test(s)) throw bad();
      return Number.parseInt(s, 16);
    };
    const digest16 = (s: string | undefined): string => {
      if (s === undefined || !/^[0-9a-fA-F]{1,16}$/.test(s)) throw bad();
      return s.toLowerCase().padStart(16, '0');
    };
    const ordinal = hex(parts[1]);
    let active: Active | undefined;
    if (parts[2] !== '-') {
      const f = parts[2]!.split(':');
      if (f.length !== 5) throw bad();
      const kind = (Object.keys(KIND_CODES) as LoopKind[]).find((k) => /^\+?[0-9]+$/.test(f[0]!) && KIND_CODES[k] === Number(f[0]));
      if (kind === undefined) throw bad();
      active = { kind, count: hex(f[1]), reminders: hex(f[2]), nextCall: digest16(f[3]), firstOrdinal: hex(f[4]) };
    }
    const denied = parts[3] === '-' ? undefined : digest16(parts[3]);
    const entries: Entry[] = [];
    for (const e of parts.slice(4)) {
      if (e.length < 83 || !/^[\x00-\x7f]*$/.test(e)) throw bad();
      const rest = e.slice(80);
      const colon = rest.indexOf(':');
      if (colon === -1) throw bad();
      const flags = rest.slice(0, colon);
      if (!/^[0-9a-fA-F]{1,2}$/.test(flags)) throw bad();
      const sig = digest16(e.slice(48, 64));
      entries.push({
        call: digest16(e.slice(0, 16)),
        result: digest16(e.slice(16, 32)),
        raw: digest16(e.slice(32, 48)),
        sig: sig === '0'.repeat(16) ? '' : sig,
        tool: digest16(e.slice(64, 80)),
        flags: Number.parseInt(flags, 16),
        ordinal: hex(rest.slice(colon + 1)),
      });
      if (entries.length > this.#window) entries.shift();
    }
    this.#agents.set(agent, { entries, ordinal, active, denied });
  }

  get size(): number {
    return this.#agents.size;
  }
}

function advice(kind: LoopKind, transient: boolean): string {
  if (transient) {
    return 'The service is rate-limiting or temporarily unavailable: wait before the next attempt (back off, and longer each time) or check its status instead of retrying at once.';
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
  }
}

/** `#3, #4, #5` (at most `EVIDENCE_CALLS`, then `…` first). */
function listCalls(calls: number[]): string {
  const skip = Math.max(0, calls.length - EVIDENCE_CALLS);
  const shown = calls.slice(skip).map((c) => `#${c}`);
  if (skip > 0) shown.unshift('…');
  return shown.join(', ');
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
  const head = rustLines(text).slice(0, 20);
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes <= 400) return head;
  const tail = utf8From(text, bytes - 400);
  if (tail === text) return head;
  return [...head, ...rustLines(tail).slice(1)];
}

/** An HTTP 4xx/5xx status line (`HTTP/1.1 404 Not Found`, `HTTP 404`) near the edges of the output. */
function httpError(text: string): number | undefined {
  const bytes = Buffer.byteLength(text, 'utf8');
  const found = bytes <= 4096 ? text.includes('HTTP') : utf8Head(text, 4096).includes('HTTP') || utf8From(text, bytes - 512, true).includes('HTTP');
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
const ERROR_WORDS = /error|exception|fail|fatal|panic|not found|no such|denied|cannot|can't|could not|unable|refused|does not exist|invalid/i;

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

function isBanner(t: string): boolean {
  return t.length >= 3 && /^[=_\-*]{3}/.test(t);
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
  for (const token of normal.split(SIGNATURE_SPLIT)) {
    const numeric = /^[0-9]*$/.test(token);
    if (!numeric && Buffer.byteLength(token, 'utf8') >= 3 && argumentsJson.includes(token)) {
      out.push('<arg>');
      continue;
    }
    out.push(token.replace(/[0-9]+/g, '#'));
  }
  return digest(out.join(' '));
}

/**
 * serde_json's compact text of a parsed value, which the native engine
 * writes for arguments it removed an ignored key from: object keys in code
 * point order at every level (a `BTreeMap`), integers that fit 64 bits as
 * written, other numbers as Rust's `ryu` prints them.
 */
export function serdeJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(serdeJson).join(',')}]`;
  if (isObject(value)) {
    const keys = Object.keys(value).sort(compareCodePoints);
    return `{${keys.map((k) => `${JSON.stringify(k)}:${serdeJson(value[k])}`).join(',')}}`;
  }
  if (typeof value === 'number') return serdeNumber(value);
  return JSON.stringify(value) ?? 'null';
}

function compareCodePoints(a: string, b: string): number {
  const x = Array.from(a, (c) => c.codePointAt(0)!);
  const y = Array.from(b, (c) => c.codePointAt(0)!);
  for (let i = 0; i < Math.min(x.length, y.length); i += 1) if (x[i] !== y[i]) return x[i]! - y[i]!;
  return x.length - y.length;
}

/** A number as serde_json writes the value it parsed from JavaScript's text of it. */
function serdeNumber(n: number): string {
  const text = String(n);
  // JavaScript writes integers below 1e21 in full: serde reads those that fit u64/i64 as integers.
  if (/^-?[0-9]+$/.test(text)) {
    const big = BigInt(text);
    if (big >= -(2n ** 63n) && big < 2n ** 64n) return text;
  }
  // Otherwise an f64, written by ryu: the shortest digits, in ryu's layout.
  const [mantissa, exp] = Math.abs(n).toExponential().split('e') as [string, string];
  const digits = mantissa.replace('.', '');
  const kk = Number(exp) + 1; // where the decimal point goes
  const sign = n < 0 ? '-' : '';
  const length = digits.length;
  const k = kk - length;
  if (k >= 0 && kk <= 16) return `${sign}${digits}${'0'.repeat(k)}.0`;
  if (kk > 0 && kk <= 16) return `${sign}${digits.slice(0, kk)}.${digits.slice(kk)}`;
  if (kk > -5 && kk <= 0) return `${sign}0.${'0'.repeat(-kk)}${digits}`;
  const e = kk - 1;
  return `${sign}${digits[0]}${length === 1 ? '' : `.${digits.slice(1)}`}e${e}`;
}
