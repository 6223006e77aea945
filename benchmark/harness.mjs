// Interleaved sampling on top of tinybench.
//
// Why tinybench (v6, already a devDependency) and not mitata: it needs no new
// dependency, it awaits promise-returning tasks (the DSH listeners are async,
// and the harness awaits them the same way), it accepts batch means through
// `overriddenDuration` (a sub-microsecond call is timed as a batch of K calls,
// so the timer's own cost does not flatten the ratio), and it retains raw
// samples, which lets us run many short rounds and pool them. mitata has
// finer sub-microsecond statistics but runs each benchmark to completion
// before the next, so machine drift (other processes, thermal, GC state)
// would land on one subject only; here every round runs every subject,
// alternating which goes first, and the median is taken over the pooled
// samples of all rounds.
import { Bench } from 'tinybench';

/**
 * The clock samples are taken with, in milliseconds. `wall` (default) is
 * what a user waits; `cpu` is this process's CPU time (all threads, µs
 * resolution), far steadier on a machine shared with other work, since time
 * spent runnable-but-descheduled is not counted.
 */
let now = () => performance.now();
export function useClock(kind) {
  if (kind === 'wall') now = () => performance.now();
  else if (kind === 'cpu') {
    now = () => {
      const { user, system } = process.cpuUsage();
      return (user + system) / 1000;
    };
  } else throw new Error(`unknown clock ${kind} (wall or cpu)`);
}

/**
 * Run `op` `n` times. `op(i)` may return a promise (then every call is
 * awaited in turn, as the harness awaits a listener); the loop stays sync for
 * sync ops so no microtask turn is added to their cost.
 */
function makeBatch(op, isAsync) {
  if (isAsync) {
    return async (n, start) => {
      for (let i = 0; i < n; i++) await op(start + i);
    };
  }
  return (n, start) => {
    for (let i = 0; i < n; i++) op(start + i);
  };
}

/** Median of a list of numbers. */
export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/**
 * Measure the subjects of one scenario, interleaved.
 *
 * @param {Array<{subject: string, op: (i: number) => unknown, async?: boolean}>} subjects
 *   `op(i)` performs call number `i` (a sequence index, so subjects can walk
 *   the same call pattern).
 * @param {{rounds?: number, budgetMs?: number, maxRounds?: number, samplesPerRound: number, sampleMs: number, warmupMs: number}} plan
 *   `sampleMs`: target duration of one sample (a batch of calls); `rounds`
 *   fixed, or derived from `budgetMs` (the scenario's measuring time).
 * @returns {Promise<Array<{subject: string, ns_per_op: number, samples: number, batch: number}>>}
 */
export async function compare(subjects, plan) {
  const state = subjects.map((s) => ({
    ...s,
    batch: makeBatch(s.op, s.async === true),
    next: 0,
    /** @type {number[]} */ samples: [],
    k: 1,
    perCall: 0,
  }));

  // Warm up (JIT, lazy regex caches, first-call allocations) and size the
  // batch so one sample takes about `sampleMs`.
  for (const s of state) {
    const until = now() + plan.warmupMs;
    // Double the batch until one batch is long enough to time well, then
    // keep running it until the warm-up budget is spent.
    let k = 1;
    let spent = 0;
    for (;;) {
      const t0 = now();
      await s.batch(k, s.next);
      spent = now() - t0;
      s.next += k;
      if (spent >= plan.sampleMs / 4 || k >= 1 << 20) break;
      if (now() >= until && spent > 0) break;
      k *= 2;
    }
    // A JIT or GC pause can end the doubling early: size from the fastest
    // batch seen while the rest of the warm-up runs, growing k as it goes.
    let perCall = spent / k;
    while (now() < until) {
      k = Math.max(1, Math.min(1 << 22, Math.round(plan.sampleMs / 4 / Math.max(perCall, 1e-6))));
      const t0 = now();
      await s.batch(k, s.next);
      perCall = Math.min(perCall, (now() - t0) / k);
      s.next += k;
    }
    perCall = Math.max(perCall, 1e-6);
    s.perCall = perCall;
    s.k = Math.max(1, Math.min(1 << 22, Math.round(plan.sampleMs / perCall)));
  }

  // Rounds: fixed, or as many as fit the time budget (at least 2, so each
  // subject runs both first and second).
  // Heavy calls (a 10 MB scan) get fewer samples per round before fewer
  // rounds, so every subject still goes first at least once.
  let rounds = plan.rounds;
  let samplesPerRound = plan.samplesPerRound;
  if (rounds === undefined) {
    const sampleSetMs = state.reduce((sum, s) => sum + Math.max(s.k * s.perCall, plan.sampleMs), 0);
    while (samplesPerRound > 1 && 2 * samplesPerRound * sampleSetMs > plan.budgetMs) samplesPerRound--;
    rounds = Math.max(2, Math.min(plan.maxRounds ?? 40, Math.round(plan.budgetMs / (sampleSetMs * samplesPerRound))));
  }

  for (let round = 0; round < rounds; round++) {
    // Alternate the order each round so drift and GC debt fall on every subject alike.
    const order = round % 2 === 0 ? state : [...state].reverse();
    const bench = new Bench({
      iterations: samplesPerRound,
      time: 0,
      warmup: false,
      retainSamples: true,
      throws: true,
    });
    for (const s of order) {
      const isAsync = s.async === true;
      const fn = isAsync
        ? async () => {
            const t0 = now();
            await s.batch(s.k, s.next);
            const spent = now() - t0;
            s.next += s.k;
            return { overriddenDuration: spent / s.k, overriddenIterationCost: spent };
          }
        : () => {
            const t0 = now();
            s.batch(s.k, s.next);
            const spent = now() - t0;
            s.next += s.k;
            return { overriddenDuration: spent / s.k, overriddenIterationCost: spent };
          };
      bench.add(s.subject, fn, { async: isAsync });
    }
    await bench.run();
    for (const task of bench.tasks) {
      const s = state.find((x) => x.subject === task.name);
      const result = task.result;
      if (result.state !== 'completed')
        throw new Error(`benchmark task ${task.name} ${result.state}: ${'error' in result ? result.error : ''}`);
      s.samples.push(...result.latency.samples);
    }
  }

  return state.map((s) => ({
    subject: s.subject,
    ns_per_op: median(s.samples) * 1e6,
    samples: s.samples.length,
    batch: s.k,
    rounds,
  }));
}
