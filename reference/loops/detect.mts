/**
 * The detectors' common ground (crates/toolguard-core/src/loops/detect.rs):
 * their thresholds ({@link Limits}), the window they read ({@link Window}),
 * what they report ({@link Found}), and the dispatcher that asks each in
 * turn, most specific first. Each loop shape is a function of its own file.
 */
import type { ResolvedLoops } from './config.mjs';
import { cycle } from './cycle.mjs';
import { type Entry, TRANSIENT } from './entry.mjs';
import type { LoopKind } from './index.mjs';
import { redo } from './redo.mjs';
import { reRead } from './re-read.mjs';
import { repeat } from './repeat.mjs';
import { rerun } from './rerun.mjs';
import { sameError } from './same-error.mjs';
import { undo } from './undo.mjs';

/** What a loop's calls are, as far as the alarm's text must be true for them. */
export type About = 'calls' | 'polls' | 'ended-job' | 'reruns' | 'undo';

export interface Found {
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

/**
 * A loop of `kind` over `calls` (ordinals, oldest first) at the window's
 * newest call: one call a step, a count of its calls, the newest call the
 * one that would continue it; the rest as most loops have it (loops.rs `Found::new`).
 */
export function found(kind: LoopKind, calls: number[], w: Window): Found {
  return { kind, count: calls.length, period: 1, calls, nextCall: w.last.call, transient: w.transient, about: 'calls', spanMs: undefined };
}

/** Milliseconds from `from` to `to`, when both are known. */
export const span = (from: number, to: number) => (from !== 0 && to !== 0 ? Math.max(0, to - from) : undefined);

/** An agent's window as every detector reads it, newest call first. */
export interface Window {
  /** Calls in the window. */
  n: number;
  /** The call `i` back from the newest (0 = the newest). */
  at: (i: number) => Entry;
  /** The newest call: the one a loop is looked for at. */
  last: Entry;
  /** The newest call failed transiently: thresholds × `transientMultiplier`. */
  transient: boolean;
  /** The newest call's tool's multiplier. */
  multiplier: number;
  /** The ordinals of the newest `len` calls, oldest first. */
  ordinals: (len: number) => number[];
}

/** The detectors' thresholds (loops.rs `Limits`). */
export class Limits {
  readonly config: ResolvedLoops;
  readonly #pollQuietMs: number;

  constructor(config: ResolvedLoops) {
    this.config = config;
    this.#pollQuietMs = config.pollQuietSeconds * 1000;
  }

  threshold(base: number | undefined, multiplier: number, transient: boolean): number | undefined {
    if (base === undefined) return undefined;
    let t = Math.max(Math.ceil(base * multiplier), 2);
    if (transient) t *= this.config.transientMultiplier;
    return t;
  }

  /** Whether polls that showed nothing new over `spanMs` waited long enough (unknown times: the count alone). */
  quietLong(spanMs: number | undefined): boolean {
    return spanMs === undefined || spanMs >= this.#pollQuietMs;
  }

  /** The loop the window's newest call is in, if any: the first detector, in this order, that finds one (loops.rs `Limits::detect`). */
  detect(entries: Entry[], multiplier: number): Found | undefined {
    const n = entries.length;
    const at = (i: number) => entries[n - 1 - i]!; // 0 = newest
    const last = at(0);
    const ordinals = (len: number) => {
      const calls = [];
      for (let i = len - 1; i >= 0; i -= 1) calls.push(at(i).ordinal);
      return calls;
    };
    const w: Window = { n, at, last, transient: (last.flags & TRANSIENT) !== 0, multiplier, ordinals };
    return repeat(this, w) ?? cycle(this, w) ?? sameError(this, w) ?? reRead(this, w) ?? rerun(this, w) ?? redo(this, w) ?? undo(this, w);
  }
}
