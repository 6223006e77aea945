/**
 * Repeat-call chains, the official `dsh-repeat-tool-reminder` algorithm:
 * per agent, the key of the previous tracked call and the run length.
 * Unlike the native engine, which keeps a fixed-size digest, this keeps the
 * key string itself, as the official plugin does.
 */
import { canonicalizeValue } from './canonical.mjs';
import { configError } from './errors.mjs';
import type { ReminderVerdict } from './types.mjs';
import { matchesAny, wildcardToRegExp } from './wildcard.mjs';

/** The gentle first-threshold reminder (keyed to `thresholds[0]`, not a literal count). */
export const GENTLE_REMINDER =
  'You are repeating the exact same tool call with identical arguments. Carefully analyze the previous result before calling again: if the task is not complete, try a different approach or different arguments instead of repeating the call.';

/** The detailed later-threshold reminder. */
export function detailedReminder(toolName: string, count: number, preview: string): string {
  return `Repeated tool call detected:\n- tool: ${toolName}\n- consecutive_calls: ${count}\n- arguments: ${preview}\nThe repeated calls are not making progress. Do not call this tool with these exact arguments again. Inspect the latest result and choose a different action, different arguments, or finish the task if enough evidence has been gathered.`;
}

/** Head-truncate the canonical arguments (UTF-16 code units), marking how much was omitted. */
export function previewArguments(canonical: string, cap: number): string {
  if (canonical.length <= cap) return canonical;
  return `${canonical.slice(0, cap)}… (+${canonical.length - cap} more chars)`;
}

/** The official validation, texts included; returns the thresholds sorted ascending. */
export function validateThresholds(values: readonly number[]): number[] {
  const bad = (message: string) => configError(message, 'TOOLGUARD_OUT_OF_RANGE', ['repeat', 'thresholds']);
  if (values.length === 0) throw bad('repeat-tool-reminder: `thresholds` must not be empty');
  for (const value of values) {
    if (!Number.isInteger(value) || value < 2) {
      throw bad(`repeat-tool-reminder: invalid threshold ${value} — every threshold must be an integer >= 2`);
    }
  }
  if (new Set(values).size !== values.length) {
    throw bad('repeat-tool-reminder: `thresholds` must not contain duplicates');
  }
  return [...values].sort((a, b) => a - b);
}

/** Resolved repeat settings: defaults applied, validated, thresholds sorted ascending. */
export interface RepeatSettings {
  thresholds: readonly number[];
  include: readonly string[];
  exclude: readonly string[];
  argumentsPreviewChars: number;
}

interface Chain {
  /** The official key; absent for a chain put back from its digest alone. */
  key?: string;
  /** Set only for a restored chain. */
  digest?: string;
  count: number;
}

/**
 * The reference engine's chain digest: 128-bit cyrb128 over the key's UTF-16
 * code units, 32 hex digits. Digests are engine-specific (the native engine
 * uses XXH3-128): a saved chain goes back into the same kind of engine.
 */
export function chainDigest(key: string): string {
  let h1 = 1779033703,
    h2 = 3144134277,
    h3 = 1013904242,
    h4 = 2773480762;
  for (let i = 0; i < key.length; i++) {
    const k = key.charCodeAt(i);
    h1 = h2 ^ Math.imul(h1 ^ k, 597399067);
    h2 = h3 ^ Math.imul(h2 ^ k, 2869860233);
    h3 = h4 ^ Math.imul(h3 ^ k, 951274213);
    h4 = h1 ^ Math.imul(h4 ^ k, 2716044179);
  }
  h1 = Math.imul(h3 ^ (h1 >>> 18), 597399067);
  h2 = Math.imul(h4 ^ (h2 >>> 22), 2869860233);
  h3 = Math.imul(h1 ^ (h3 >>> 17), 951274213);
  h4 = Math.imul(h2 ^ (h4 >>> 19), 2716044179);
  h1 ^= h2 ^ h3 ^ h4;
  h2 ^= h1;
  h3 ^= h1;
  h4 ^= h1;
  return [h1, h2, h3, h4].map((h) => (h >>> 0).toString(16).padStart(8, '0')).join('');
}

/** Per-agent chains for one engine. */
export class RepeatChains {
  readonly #thresholds: readonly number[];
  readonly #thresholdSet: ReadonlySet<number>;
  readonly #include: readonly RegExp[];
  readonly #exclude: readonly RegExp[];
  readonly #previewChars: number;
  readonly #chains = new Map<string, Chain>();

  /** `settings` come from `resolveConfig`, which validated them and sorted the thresholds. */
  constructor(settings: RepeatSettings) {
    this.#thresholds = settings.thresholds;
    this.#thresholdSet = new Set(this.#thresholds);
    this.#include = settings.include.map(wildcardToRegExp);
    this.#exclude = settings.exclude.map(wildcardToRegExp);
    this.#previewChars = settings.argumentsPreviewChars;
  }

  /** Whether a tool takes part (untracked calls are transparent: they neither count nor reset). */
  tracked(toolName: string): boolean {
    if (this.#include.length > 0 && !matchesAny(this.#include, toolName)) return false;
    return !matchesAny(this.#exclude, toolName);
  }

  /**
   * Advance `agentId`'s chain by one call and return the reminder when the run
   * length hits a threshold. `args` are parsed lazily: untracked calls never
   * pay for canonicalisation.
   */
  observe(agentId: string, toolName: string, args: () => unknown): ReminderVerdict | undefined {
    if (!this.tracked(toolName)) return undefined;
    const canonical = canonicalizeValue(args());
    const key = JSON.stringify([toolName, canonical]);
    const chain = this.#chains.get(agentId);
    const same = chain !== undefined && (chain.key === key || (chain.digest !== undefined && chain.digest === chainDigest(key)));
    const count = same ? chain.count + 1 : 1;
    this.#chains.set(agentId, { key, count });
    if (!this.#thresholdSet.has(count)) return undefined;
    const text =
      count === this.#thresholds[0] ? GENTLE_REMINDER : detailedReminder(toolName, count, previewArguments(canonical, this.#previewChars));
    return { tool: toolName, count, text, summary: `${toolName} × ${count}` };
  }

  /** `{digest, count}` of an agent's chain, or null. */
  state(agentId: string): { digest: string; count: number } | null {
    const chain = this.#chains.get(agentId);
    if (chain === undefined) return null;
    return { digest: chain.digest ?? chainDigest(chain.key ?? ''), count: chain.count };
  }

  /** Put back a chain saved with {@link state}. */
  restore(agentId: string, digest: string, count: number): void {
    this.#chains.set(agentId, { digest, count });
  }

  /** Number of agents with a live chain. */
  get size(): number {
    return this.#chains.size;
  }

  /** The user spoke, or the agent is gone: its chain starts over. */
  drop(agentId: string): void {
    this.#chains.delete(agentId);
  }
}
