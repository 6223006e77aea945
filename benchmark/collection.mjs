// A generated collection of agent runs, for the dataset-scale benchmark
// (benchmark/scale.mjs) and the tests of `toolguard audit` over many files
// (__test__/audit/scale.test.mjs). Each run is a generic-trace JSONL file
// (docs/trace-format.md) with timestamps and token usage: shell calls with
// varied output, and in some runs a stuck episode (the same failing test
// run again and again) or a silent failure (a build error behind `| tee`).
// Deterministic: the same arguments give the same bytes.
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';

const MODELS = ['model-a', 'model-b', 'model-c'];

/** A small deterministic generator (LCG), so the collection is the same everywhere. */
function random(seed) {
  let state = seed >>> 0 || 1;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

const OUTPUTS = [
  (i) => `src/file${i}.ts\nsrc/index.ts\nsrc/util/${i % 17}.ts\n`.repeat(6),
  (i) => `> build\n> tsc -p .\n\n` + `  compiled module ${i}\n`.repeat(60),
  (i) =>
    `============ test session starts ============\ncollected ${i % 90} items\n\n` +
    'tests/test_mod.py ....................      [100%]\n'.repeat(16) +
    `\n===== ${i % 90} passed in 1.${i % 10}s =====`,
  (i) => `def handler_${i}(event):\n    return process(event)\n`.repeat(30),
  (i) => `${'x'.repeat(70)}\n`.repeat(20) + `line ${i}\n`,
];
const FAILING_TESTS = '> site@1.0.0 test\n> node --test\n\n# tests 12\n# pass 11\n# fail 1\n[exit code: 1]';
const HIDDEN_BUILD_ERROR =
  "> tsc -p .\n\nsrc/index.ts(3,14): error TS2322: Type 'string' is not assignable to type 'number'.\n\nFound 1 error in src/index.ts:3";

/**
 * The text of run `index`: about `bytes` bytes of trace lines. One run in
 * three gets stuck (the same failing test five times, then the user speaks),
 * one in four hides a build failure. The trace format has no model field:
 * the Parquet copy names one per run with {@link modelOf}.
 */
export function runText(index, bytes) {
  const next = random(index * 7919 + 17);
  const lines = [];
  let size = 0;
  let t = 1_796_000_000_000 + index * 1_000_000;
  let call = 0;
  const push = (tool, args, output, extra = {}) => {
    const line = JSON.stringify({
      callId: `c${call++}`,
      tool,
      arguments: args,
      output,
      time: t,
      endTime: t + 400,
      usage: { inputTokens: 1200 + (call % 50) * 10, outputTokens: 80 },
      ...extra,
    });
    t += 1000;
    lines.push(line);
    size += line.length + 1;
  };
  let stuckAt = index % 3 === 0 ? Math.floor(bytes * 0.4) : Infinity;
  let failAt = index % 4 === 1 ? Math.floor(bytes * 0.6) : Infinity;
  while (size < bytes) {
    if (size >= stuckAt) {
      for (let k = 0; k < 5; k++) push('bash', { command: 'npm test' }, FAILING_TESTS);
      lines.push(JSON.stringify({ type: 'user' }));
      size += 16;
      stuckAt = Infinity;
      continue;
    }
    if (size >= failAt) {
      push('bash', { command: 'npm run build 2>&1 | tee build.log' }, HIDDEN_BUILD_ERROR, { exitCode: 0 });
      failAt = Infinity;
      continue;
    }
    const pick = Math.floor(next() * OUTPUTS.length);
    const n = Math.floor(next() * 1e6);
    if (pick === 3) push('read_file', { path: `src/h${n % 400}.py` }, OUTPUTS[pick](n));
    else push('bash', { command: `ls -la src/dir${n % 97} && echo ${n}` }, OUTPUTS[pick](n));
  }
  return lines.join('\n') + '\n';
}

/** The model a run is said to have used (for the Parquet copy's model column). */
export const modelOf = (index) => MODELS[index % MODELS.length];

/** Where run `index` goes inside a collection: 100 runs a folder. */
export const runPath = (index) =>
  join(`part-${String(Math.floor(index / 100)).padStart(4, '0')}`, `run-${String(index).padStart(6, '0')}.jsonl`);

/**
 * Write `runs` runs of about `bytesPerRun` bytes each under `dir`; returns
 * the total bytes. With `cache`, a folder already complete (its `.complete`
 * marker names the same shape) is kept as it is.
 */
export function writeCollection(dir, { runs, bytesPerRun, cache = false }) {
  const marker = join(dir, '.complete');
  const shape = JSON.stringify({ version: 1, runs, bytesPerRun });
  if (cache && existsSync(marker)) {
    try {
      const saved = JSON.parse(readFileSync(marker, 'utf8'));
      if (saved.shape === shape) return saved.bytes;
    } catch {
      // rewrite below
    }
  }
  let total = 0;
  for (let i = 0; i < runs; i++) {
    const path = join(dir, runPath(i));
    if (i % 100 === 0) mkdirSync(join(path, '..'), { recursive: true });
    const text = runText(i, bytesPerRun);
    const fd = openSync(path, 'w');
    try {
      writeSync(fd, text);
    } finally {
      closeSync(fd);
    }
    total += Buffer.byteLength(text);
  }
  writeFileSync(marker, JSON.stringify({ shape, bytes: total }));
  return total;
}
