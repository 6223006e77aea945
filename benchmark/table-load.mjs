#!/usr/bin/env node
// What loading the rule table costs a fresh process (the native hook and
// every new Node process pay it once): the first `new GuardEngine(config)`
// after the addon is loaded, wall time, in a new process per sample, for the
// built-in table and for the table doubled by user rules (which compile at
// load); the reference engine alongside. Median of --runs processes.
//
//   node benchmark/table-load.mjs [--runs=30] [--json] [--quick|--smoke]
//   node benchmark/table-load.mjs --child native|reference builtin|doubled   (one sample)
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const argv = process.argv.slice(2);
if (argv[0] === '--child') {
  const [, subject, table] = argv;
  const { DOUBLED_CONFIG } = await import('./fixtures.mjs');
  const config = table === 'doubled' ? DOUBLED_CONFIG : undefined;
  const require = createRequire(import.meta.url);
  const { GuardEngine } = subject === 'native' ? require('toolguard') : await import('toolguard/reference');
  const start = process.hrtime.bigint();
  const engine = new GuardEngine(config);
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  if (typeof engine.observe !== 'function') process.exit(1);
  process.stdout.write(`${ms}\n`);
  process.exit(0);
}

const runsArg = argv.find((a) => a.startsWith('--runs='));
const runs = runsArg ? Number(runsArg.slice(7)) : argv.includes('--smoke') ? 2 : argv.includes('--quick') ? 10 : 30;
const json = argv.includes('--json');
const self = fileURLToPath(import.meta.url);
const subjects = [];
for (const table of ['builtin', 'doubled']) for (const subject of ['native', 'reference']) subjects.push({ subject, table });
const times = subjects.map(() => []);
// Interleaved: machine drift hits every subject alike.
for (let i = 0; i < runs; i++) {
  for (const [k, s] of subjects.entries()) {
    const r = spawnSync(process.execPath, [self, '--child', s.subject, s.table], { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`table-load child ${s.subject} ${s.table} exited ${r.status}: ${r.stderr}`);
    times[k].push(Number(r.stdout.trim()));
  }
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const rows = subjects.map((s, k) => ({
  subject: s.subject === 'native' ? 'toolguard' : 'reference',
  table: s.table === 'builtin' ? 'built-in rules' : 'table doubled by user rules',
  runs,
  median_ms: median(times[k]),
}));
if (json) process.stdout.write(`${JSON.stringify({ runs, rows }, null, 2)}\n`);
else {
  console.log('| table | subject | first `new GuardEngine()` in a process (median ms) |\n| --- | --- | ---: |');
  for (const r of rows) console.log(`| ${r.table} | ${r.subject} | ${r.median_ms.toFixed(2)} |`);
}
