#!/usr/bin/env node
// toolguard benchmarks: `npm run bench [-- --json] [-- --quick]`.
//
//   --json    print exactly one JSON document on stdout (progress goes to stderr)
//   --quick   shorter budgets (a whole run stays under a minute on 2 cores)
//   --smoke   tiny sizes and budgets: checks the pipeline end to end, measures nothing useful
//   --only=dsh,engine,agents,loops,memory,audit,hook,table,html,scale   run only these groups
//   --out=FILE    also write the JSON document to FILE (npm prints its own
//                 "> toolguard@… bench" banner on stdout unless run with -s,
//                 so --out is the banner-proof way to save a run)
//   --save        also write it to benchmark/results/latest.json, the run the
//                 published figures come from (`npm run bench:publish` saves
//                 a full run, then benchmark/publish.mjs writes the docs)
//   --clock=cpu   time samples with process CPU time instead of wall time
//                 (steadier on a shared machine; the README numbers use wall)
//
// Everything runs in this one process, subjects interleaved per round
// (see harness.mjs), except memory per agent, which gets a fresh process per
// subject (memory.mjs). Without --json it prints the README tables.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { scanInstructions } from './scan-instructions.mjs';

const argv = process.argv.slice(2);
const flag = (name) => argv.includes(`--${name}`);
const json = flag('json');
const mode = flag('smoke') ? 'smoke' : flag('quick') ? 'quick' : 'full';
const onlyArg = argv.find((a) => a.startsWith('--only='));
const clockArg = argv.find((a) => a.startsWith('--clock='));
const outArg = argv.find((a) => a.startsWith('--out='));
const clock = clockArg ? clockArg.slice('--clock='.length) : 'wall';
const only = onlyArg ? new Set(onlyArg.slice('--only='.length).split(',')) : undefined;
const save = flag('save');
const unknown = argv.filter(
  (a) =>
    !['--json', '--quick', '--smoke', '--save'].includes(a) &&
    !a.startsWith('--only=') &&
    !a.startsWith('--clock=') &&
    !a.startsWith('--out='),
);
if (unknown.length > 0) {
  process.stderr.write(`bench: unknown option(s) ${unknown.join(' ')}\n`);
  process.exit(2);
}
const runs = (group) => only === undefined || only.has(group);

// With --json, stdout carries the document and nothing else: anything a
// dependency logs goes to stderr.
if (json) {
  console.log = console.error;
  console.info = console.error;
}
const log = (message) => process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${message}\n`);

const here = path.dirname(fileURLToPath(import.meta.url));

// Imported after the console is redirected.
const { dshScenarios, engineScenarios, engineLoopScenarios, agentScenarios, loopScenarios, ENGINE_SIZES } = await import('./scenarios.mjs');
const { markdownReport } = await import('./table.mjs');
const { useClock } = await import('./harness.mjs');
useClock(clock);

/** Budgets per mode. `budgetMs` is the measuring time of one scenario (all its subjects). */
const PLANS = {
  full: { samplesPerRound: 5, sampleMs: 10, warmupMs: 300, budgetMs: 6000, maxRounds: 40 },
  quick: { samplesPerRound: 3, sampleMs: 4, warmupMs: 60, budgetMs: 900, maxRounds: 20 },
  smoke: { rounds: 2, samplesPerRound: 1, sampleMs: 1, warmupMs: 1, budgetMs: 10 },
};
const plan = PLANS[mode];
const SIZES = { full: ENGINE_SIZES, quick: ENGINE_SIZES, smoke: [200, 10 << 10] }[mode];
const AGENTS = { full: 100_000, quick: 100_000, smoke: 2_000 }[mode];
/** Agents per memory run: small arguments, then 64 KB arguments (the baselines keep 64 KB per agent). */
const MEMORY_AGENTS = { full: [100_000, 10_000], quick: [100_000, 2_000], smoke: [500, 50] }[mode];

/** `lscpu`'s "Model name", or undefined where lscpu is missing (macOS, Windows). */
function lscpuModel() {
  const r = spawnSync('lscpu', [], { encoding: 'utf8', env: { ...process.env, LC_ALL: 'C' } });
  if (r.error || r.status !== 0) return undefined;
  return /^Model name:\s*(.+)$/m.exec(r.stdout)?.[1].trim();
}

const started = performance.now();
const doc = {
  node: process.version,
  toolguard: (await import('toolguard/package.json', { with: { type: 'json' } }).catch(() => ({ default: { version: undefined } }))).default
    .version,
  platform: `${process.platform}-${process.arch}`,
  cpu: os.cpus()[0]?.model ?? 'unknown',
  // The machine as `lscpu` names it (the published table names it).
  machine: lscpuModel() ?? os.cpus()[0]?.model ?? 'unknown',
  cpus: os.cpus().length,
  // 1/5/15-minute load averages at the start: a busy machine's wall times are inflated.
  loadavg: os.loadavg(),
  mode,
  command: `npm run bench --${json ? ' --json' : ''}${mode === 'full' ? '' : ` --${mode}`}${onlyArg ? ` ${onlyArg}` : ''}${clockArg ? ` ${clockArg}` : ''}${save ? ' --save' : ''}`,
  clock,
  date: new Date().toISOString(),
  units: { ns_per_op: 'median nanoseconds per call', throughput_mb_s: '10^6 bytes of UTF-8 text per second', memory: 'bytes per agent' },
  scenarios: [],
  ratios: [],
  memory: [],
  throughput_mb_s: null,
  throughput: [],
  audit: null,
  hook: null,
  tableLoad: null,
  html: null,
};

if (runs('dsh')) doc.scenarios.push(...(await dshScenarios(plan, log)));
if (runs('engine')) {
  const { scenarios, throughput } = await engineScenarios(plan, log, SIZES);
  doc.scenarios.push(...scenarios);
  doc.throughput.push(...throughput);
  doc.throughput_mb_s = throughput.find((t) => t.subject === 'toolguard')?.mb_s ?? null;
  // Instructions per MiB beside MB/s (callgrind, when valgrind is installed;
  // full runs only: four processes under valgrind take a few minutes).
  if (mode === 'full') {
    log('engine: instructions per MiB (callgrind)');
    for (const { table, instructions_per_mib } of scanInstructions()) {
      const row = throughput.find(
        (t) => t.subject === 'toolguard' && t.name.startsWith(table === 'builtin' ? 'built-in' : 'table doubled'),
      );
      if (row) row.instructions_per_mib = instructions_per_mib;
    }
  }
}
if (runs('agents')) doc.scenarios.push(...(await agentScenarios(plan, log, AGENTS)));
if (runs('loops')) {
  doc.scenarios.push(...(await loopScenarios(plan, log)));
  // Native vs the reference engine with the loop detectors on (rows of the engine table).
  doc.scenarios.push(...(await engineLoopScenarios(plan, log)));
}

if (runs('memory')) {
  const jobs = [];
  /** @type {Array<[string, number]>} the arguments' size, agents */
  const sizes = [
    ['small', MEMORY_AGENTS[0]],
    ['64k', MEMORY_AGENTS[1]],
  ];
  for (const [args, agents] of sizes) {
    for (const subject of ['engine-toolguard', 'engine-reference', 'dsh-toolguard', 'dsh-official']) jobs.push({ subject, args, agents });
  }
  for (const job of jobs) {
    log(`memory: ${job.subject}, ${job.args} arguments, ${job.agents} agents`);
    const child = spawnSync(process.execPath, ['--expose-gc', path.join(here, 'memory.mjs'), job.subject, job.args, String(job.agents)], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
      maxBuffer: 1 << 20,
    });
    if (child.status !== 0) throw new Error(`memory run ${job.subject} ${job.args} failed (exit ${child.status})`);
    const r = JSON.parse(child.stdout.trim().split('\n').pop());
    const [group, subject] = [r.subject.startsWith('engine-') ? 'engine' : 'dsh-listener', r.subject.replace(/^(engine|dsh)-/, '')];
    doc.memory.push({
      group,
      name: `${r.args === '64k' ? '64 KB' : '~100 B'} arguments`,
      subject,
      agents: r.agents,
      args_bytes: r.args_bytes,
      heap_bytes_per_agent: r.heap_bytes_per_agent,
      rss_bytes_per_agent: r.rss_bytes_per_agent,
    });
  }
}

// Hook for the audit reader's benchmark (written separately): if
// benchmark/audit.mjs exists it is run as `node benchmark/audit.mjs --json
// [--quick|--smoke]` and must print one JSON object; its
// `throughput_mb_s` (if any) is reported as the audit throughput.
const auditScript = path.join(here, 'audit.mjs');
if (runs('audit') && existsSync(auditScript)) {
  log('audit: benchmark/audit.mjs');
  const child = spawnSync(process.execPath, [auditScript, '--json', ...(mode === 'full' ? [] : [`--${mode}`])], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
    maxBuffer: 16 << 20,
  });
  if (child.status === 0) {
    try {
      doc.audit = JSON.parse(child.stdout);
    } catch (error) {
      doc.audit = { error: `audit.mjs printed no JSON: ${error.message}` };
    }
  } else {
    doc.audit = { error: `audit.mjs exited ${child.status}` };
  }
}

// `toolguard audit` at dataset scale (benchmark/scale.mjs): 10,000 generated
// runs, 2 threads vs 1, peak RSS of --report jsonl, a Parquet copy. Minutes
// in full mode (2 GB audited three times), so it runs only when asked for
// (`--only=scale`) or in --smoke (tiny; checks the pipeline).
if ((only?.has('scale') ?? false) || (only === undefined && mode === 'smoke')) {
  log('scale: benchmark/scale.mjs');
  const child = spawnSync(process.execPath, [path.join(here, 'scale.mjs'), '--json', ...(mode === 'full' ? [] : [`--${mode}`])], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
    maxBuffer: 16 << 20,
  });
  try {
    doc.scale = child.status === 0 ? JSON.parse(child.stdout) : { error: `scale.mjs exited ${child.status}` };
  } catch (error) {
    doc.scale = { error: `scale.mjs printed no JSON: ${error.message}` };
  }
}

// Cost of one hook call as a fresh process (benchmark/hook.mjs): native
// executable, Node hooks and the /bin/true floor; median and p95 wall time.
if (runs('hook')) {
  log('hook: benchmark/hook.mjs');
  const child = spawnSync(process.execPath, [path.join(here, 'hook.mjs'), '--json', ...(mode === 'full' ? [] : [`--${mode}`])], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
    maxBuffer: 16 << 20,
  });
  try {
    doc.hook = child.status === 0 ? JSON.parse(child.stdout) : { error: `hook.mjs exited ${child.status}` };
  } catch (error) {
    doc.hook = { error: `hook.mjs printed no JSON: ${error.message}` };
  }
}

// The rule table's load in a fresh process (benchmark/table-load.mjs):
// built-ins and the table doubled by user rules, native and reference.
if (runs('table')) {
  log('table: benchmark/table-load.mjs');
  const child = spawnSync(process.execPath, [path.join(here, 'table-load.mjs'), '--json', ...(mode === 'full' ? [] : [`--${mode}`])], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  try {
    doc.tableLoad = child.status === 0 ? JSON.parse(child.stdout) : { error: `table-load.mjs exited ${child.status}` };
  } catch (error) {
    doc.tableLoad = { error: `table-load.mjs printed no JSON: ${error.message}` };
  }
}

// The HTML report's size and render time in headless Chromium
// (benchmark/html.mjs). Not in --smoke: it needs a browser, and the
// browser test (__test__/audit/html.test.mjs) covers the pipeline.
if (runs('html') && mode !== 'smoke') {
  log('html: benchmark/html.mjs');
  const child = spawnSync(process.execPath, [path.join(here, 'html.mjs'), '--json', ...(mode === 'full' ? [] : [`--${mode}`])], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  try {
    doc.html = child.status === 0 ? JSON.parse(child.stdout) : { error: `html.mjs exited ${child.status}` };
  } catch (error) {
    doc.html = { error: `html.mjs printed no JSON: ${error.message}` };
  }
}

// Speedups: baseline ns / toolguard ns for every scenario that has both.
for (const s of doc.scenarios) {
  if (s.subject === 'toolguard') continue;
  const ours = doc.scenarios.find((t) => t.group === s.group && t.name === s.name && t.subject === 'toolguard');
  if (ours) doc.ratios.push({ group: s.group, name: s.name, baseline: s.subject, speedup: s.ns_per_op / ours.ns_per_op });
}
doc.seconds = (performance.now() - started) / 1000;
log(`done in ${doc.seconds.toFixed(1)} s`);

const text = `${JSON.stringify(doc, null, 2)}\n`;
for (const file of [outArg?.slice('--out='.length), save ? path.join(here, 'results', 'latest.json') : undefined]) {
  if (file === undefined) continue;
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, text);
  log(`wrote ${file}`);
}
if (json) process.stdout.write(text);
else process.stdout.write(markdownReport(doc));
