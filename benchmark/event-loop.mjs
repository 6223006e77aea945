#!/usr/bin/env node
// Event-loop delay while the guard scans large tool outputs: `observe` (scan
// on the JavaScript thread) against `observeAsync` (scan on a libuv pool
// thread), measured with perf_hooks.monitorEventLoopDelay while a 1 ms
// interval keeps the loop busy, as a harness serving other agents would.
// A second table times one call per output size on each path, which is
// what the size threshold of the DSH plugin and the MCP proxy (ASYNC_SCAN_THRESHOLD in
// ts/adapters/common.mts) is chosen from.
//
//   node benchmark/event-loop.mjs [--mb 10] [--rounds 10] [--json]
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { createRequire } from 'node:module';
import { setTimeout as sleep } from 'node:timers/promises';

const require = createRequire(import.meta.url);
const { GuardEngine } = require('../index.js');

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const i = args.indexOf(`--${name}`);
  return i === -1 ? fallback : Number(args[i + 1]);
};
const MB = option('mb', 10);
const ROUNDS = option('rounds', 10);
const JSON_OUT = args.includes('--json');

/** A realistic build log of about `bytes` bytes that ends in a Python traceback. */
function output(bytes) {
  const lines = [
    '   Compiling crate42 v1.2.3',
    'gcc -Wall -O2 -c src/file17.c -o build/file17.o',
    'src/file17.c:120:5: warning: unused variable ‘x17’ [-Wunused-variable]',
    '[2025-03-03T10:04:05Z] INFO  request id=0000a1b2 path=/api/v1/items/17 status=200 took=12ms',
    'test tests::test_error_17 ... ok',
  ];
  // Joined, not concatenated: a flat string, as a tool's decoded output is.
  const out = [];
  for (let size = 0, i = 0; size < bytes; i++) {
    out.push(lines[i % lines.length]);
    size += lines[i % lines.length].length + 1;
  }
  const text = `${out.join('\n')}\n`;
  return `${text}Traceback (most recent call last):\n  File "job.py", line 3\nKeyError: 1\n`;
}

const ms = (ns) => Number((ns / 1e6).toFixed(2));

/** Event-loop delay while `rounds` outputs are observed one after another. */
async function delayDuring(engine, text, mode) {
  const histogram = monitorEventLoopDelay({ resolution: 1 });
  const ticker = setInterval(() => {}, 1);
  await sleep(50);
  histogram.enable();
  const start = performance.now();
  for (let i = 0; i < ROUNDS; i++) {
    const exec = { agentId: 'a', name: 'bash', argumentsJson: `{"n":${i}}` };
    const result = { content: [{ type: 'text', text }] };
    const verdict = mode === 'async' ? await engine.observeAsync(exec, result) : engine.observe(exec, result);
    if (verdict?.failure?.rules[0]?.id !== 'python-traceback') throw new Error('benchmark output not flagged');
    // Let the ticker run between calls, as a loop serving other work would.
    await sleep(0);
  }
  const wall = performance.now() - start;
  histogram.disable();
  clearInterval(ticker);
  return {
    path: mode === 'async' ? 'observeAsync' : 'observe',
    'output MB': Number((text.length / 1e6).toFixed(1)),
    calls: ROUNDS,
    'wall ms': Number(wall.toFixed(0)),
    'delay p50 ms': ms(histogram.percentile(50)),
    'delay p99 ms': ms(histogram.percentile(99)),
    'delay max ms': ms(histogram.max),
  };
}

/** Median time of one call (`observe` returns; `observeAsync` resolves) and its blocking part. */
async function perCall(engine, text) {
  const result = { content: [{ type: 'text', text }] };
  const exec = { name: 'bash', argumentsJson: '{}' };
  const reps = text.length > 1e6 ? 5 : 31;
  const median = (xs) => xs.sort((a, b) => a - b)[xs.length >> 1];
  const sync = [];
  const asyncBlock = [];
  const asyncTotal = [];
  for (let i = 0; i < reps; i++) {
    let t = performance.now();
    engine.observe(exec, result);
    sync.push(performance.now() - t);
    t = performance.now();
    const pending = engine.observeAsync(exec, result);
    asyncBlock.push(performance.now() - t);
    await pending;
    asyncTotal.push(performance.now() - t);
  }
  return {
    'output KB': Math.round(text.length / 1024),
    'observe ms (blocks the loop)': Number(median(sync).toFixed(3)),
    'observeAsync blocking ms': Number(median(asyncBlock).toFixed(3)),
    'observeAsync resolve ms': Number(median(asyncTotal).toFixed(3)),
  };
}

const engine = new GuardEngine();
const big = output(MB * 1e6);
const delay = [await delayDuring(engine, big, 'sync'), await delayDuring(engine, big, 'async')];
const sizes = [4, 16, 32, 64, 128, 256, 1024, 4096].map((kb) => output(kb * 1024));
const calls = [];
for (const text of sizes) calls.push(await perCall(engine, text));

if (JSON_OUT) {
  console.log(JSON.stringify({ node: process.version, delay, calls }, null, 2));
} else {
  console.log(`Node ${process.version}; ${MB} MB output, ${ROUNDS} calls each; event-loop delay with a 1 ms ticker:`);
  console.table(delay);
  console.log('One call per output size (median):');
  console.table(calls);
}
