#!/usr/bin/env node
// Cost of one `toolguard hook` call as a host pays it: a fresh process per
// PostToolUse event, JSON on stdin, wall time from spawn to exit (not a test:
// timings are noisy on shared machines). Subjects run interleaved, one call
// each per round, so drift in machine load hits them alike.
//
//   floor            /bin/true with the same stdin: starting any process at all
//   native           the toolguard-hook executable (npm run build:hook), on a
//                    Bash call and on a Read call (a tool whose output is not scanned)
//   launcher→native  `node bin/toolguard.mjs hook` (the default: it hands over to the native hook)
//   node20 / node22  the Node hook (`TOOLGUARD_NATIVE_HOOK=0`) on each Node
//
// usage: node benchmark/hook.mjs [--runs=100] [--json] [--quick|--smoke] [--phases]
// `--phases`: the native rows also say where their time goes (median µs per
// phase, from TOOLGUARD_HOOK_PHASES=1; "outside" is exec, start-up and exit:
// the wall time no phase covers).
// (`npm run bench` runs it as its `hook` group.)
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { findNode22 } from '../scripts/test/node22.mjs';
import { DOUBLED_CONFIG } from './fixtures.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const argv = process.argv.slice(2);
const runsArg = argv.find((a) => a.startsWith('--runs='));
const runs = runsArg ? Number(runsArg.slice(7)) : argv.includes('--smoke') ? 3 : argv.includes('--quick') ? 30 : 100;
const json = argv.includes('--json');
const withPhases = argv.includes('--phases');
const log = (line) => process.stderr.write(`${line}\n`);

const bin = join(root, 'bin/toolguard.mjs');
const native = join(root, process.platform === 'win32' ? 'toolguard-hook.exe' : 'toolguard-hook');
// The Node 22 the test runner uses (scripts/test/node22.mjs: $TOOLGUARD_NODE22, this node, or the cached npm package).
const node22 = findNode22({ log }).bin;
const version = (node) => spawnSync(node, ['--version'], { encoding: 'utf8' }).stdout.trim();
/** The machine's Node (the one running npm), whatever node_modules/.bin put first on PATH. */
const hostNode = process.env.npm_node_execpath || process.execPath;

const dir = mkdtempSync(join(tmpdir(), 'toolguard-hook-bench-'));
// The built-in table doubled by user rules (they compile at every hook start).
const doubledConfig = join(dir, 'doubled.json');
writeFileSync(doubledConfig, JSON.stringify(DOUBLED_CONFIG));

const subjects = [];
if (existsSync('/bin/true')) subjects.push({ name: 'floor (/bin/true)', cmd: '/bin/true', args: [] });
if (existsSync(native)) {
  subjects.push({ name: 'native hook', cmd: native, args: [] });
  subjects.push({ name: 'native hook, a Read call (not scanned)', cmd: native, args: [], read: true });
  subjects.push({ name: 'native hook, table doubled by user rules', cmd: native, args: ['--config', doubledConfig] });
  subjects.push({
    name: `launcher → native (node ${version(hostNode)})`,
    cmd: hostNode,
    args: [bin, 'hook'],
    env: { TOOLGUARD_NATIVE_HOOK: '' },
  });
} else log(`hook bench: ${native} is missing (npm run build:hook); native rows skipped`);
if (!node22) log('hook bench: no Node 22 (scripts/test/node22.mjs); its row is skipped');
for (const node of [...new Set([hostNode, ...(node22 ? [node22] : [])])]) {
  subjects.push({ name: `Node hook (node ${version(node)})`, cmd: node, args: [bin, 'hook'], env: { TOOLGUARD_NATIVE_HOOK: '0' } });
}

// A realistic call: a Bash tool with a few lines of output, a different
// command every third call, so chains grow, reset and remind like a session.
const event = (i) =>
  JSON.stringify({
    session_id: 'bench',
    transcript_path: '/home/u/.claude/projects/p/s.jsonl',
    cwd: '/work',
    hook_event_name: 'PostToolUse',
    tool_name: 'Bash',
    tool_input: { command: `make -j${Math.floor(i / 3) % 4}`, description: 'build' },
    tool_response: { stdout: 'gcc -c a.c\ngcc -c b.c\ngcc -o app a.o b.o\n', stderr: '', interrupted: false, isImage: false },
    tool_use_id: `toolu_${i}`,
  });

/**
 * CPU time (user + system, ms) of this process's reaped children, from
 * /proc/self/stat (Linux; clock ticks, so only the sum over many runs means
 * anything). Wall time on a loaded machine is mostly waiting for a core;
 * CPU time says what the hook itself costs.
 */
function childrenCpuMs() {
  try {
    const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' ');
    return ((Number(fields[13]) + Number(fields[14])) * 1000) / 100; // cutime + cstime, USER_HZ = 100
  } catch {
    return NaN;
  }
}

// Most calls of a session are not shell calls: their output is never scanned.
const readEvent = (i) =>
  JSON.stringify({
    session_id: 'bench-read',
    transcript_path: '/home/u/.claude/projects/p/s.jsonl',
    cwd: '/work',
    hook_event_name: 'PostToolUse',
    tool_name: 'Read',
    tool_input: { file_path: `/work/src/file${Math.floor(i / 3) % 4}.ts` },
    tool_response: { type: 'text', file: { filePath: '/work/src/a.ts', content: 'export const a = 1;\n', numLines: 1 } },
    tool_use_id: `toolu_${i}`,
  });

const times = subjects.map(() => []);
/** Per subject: phase name → µs per run (native rows with --phases). */
const phases = subjects.map(() => new Map());
const timesPhases = (subject) => withPhases && subject.cmd === native;
const cpu = subjects.map(() => 0);
for (let i = 0; i < runs; i++) {
  for (const [s, subject] of subjects.entries()) {
    const cpuBefore = childrenCpuMs();
    const start = process.hrtime.bigint();
    const r = spawnSync(subject.cmd, subject.args, {
      input: subject.read ? readEvent(i) : event(i),
      env: { ...process.env, TOOLGUARD_STATE_DIR: dir, ...subject.env, ...(timesPhases(subject) ? { TOOLGUARD_HOOK_PHASES: '1' } : {}) },
    });
    const wallMs = Number(process.hrtime.bigint() - start) / 1e6;
    times[s].push(wallMs);
    if (timesPhases(subject)) {
      const line = /toolguard hook phases \(µs\):(.*)/.exec(r.stderr.toString())?.[1] ?? '';
      const add = (name, us) => phases[s].set(name, [...(phases[s].get(name) ?? []), us]);
      for (const [, name, us] of line.matchAll(/ ([\w-]+)=(\d+)/g)) add(name, Number(us));
      const total = Number(/ total=(\d+)/.exec(line)?.[1] ?? Number.NaN);
      add('outside', wallMs * 1000 - total);
    }
    cpu[s] += childrenCpuMs() - cpuBefore;
    if (r.status !== 0) throw new Error(`${subject.name} exited ${r.status}: ${r.stderr}`);
  }
}
rmSync(dir, { recursive: true, force: true });

const quantile = (xs, q) => {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];
};
const rows = subjects.map((s, i) => ({
  subject: s.name,
  runs,
  median_ms: quantile(times[i], 0.5),
  p95_ms: quantile(times[i], 0.95),
  cpu_ms_mean: Number.isNaN(cpu[i]) ? null : cpu[i] / runs,
  /** @type {number | null} the median minus the /bin/true floor's */
  over_floor_ms: null,
  /** With --phases: the median µs of each phase of the hook process. */
  ...(phases[i].size > 0 ? { phases_us: Object.fromEntries([...phases[i]].map(([name, us]) => [name, quantile(us, 0.5)])) } : {}),
}));
const floor = rows.find((r) => r.subject.startsWith('floor'));
for (const r of rows) r.over_floor_ms = floor ? r.median_ms - floor.median_ms : null;

if (json) process.stdout.write(`${JSON.stringify({ runs, rows }, null, 2)}\n`);
else {
  console.log(`toolguard hook: ${runs} full PostToolUse runs per subject, wall time per process (ms)\n`);
  console.log('| subject | median | p95 | median over floor | CPU per call (mean) |');
  console.log('| --- | ---: | ---: | ---: | ---: |');
  for (const r of rows) {
    const over = r.over_floor_ms === null ? '' : `+${r.over_floor_ms.toFixed(1)}`;
    console.log(
      `| ${r.subject} | ${r.median_ms.toFixed(1)} | ${r.p95_ms.toFixed(1)} | ${over} | ${r.cpu_ms_mean === null ? '' : r.cpu_ms_mean.toFixed(1)} |`,
    );
  }
  for (const r of rows.filter((r) => r.phases_us)) {
    const parts = Object.entries(r.phases_us).map(([name, us]) => `${name} ${Math.round(us)}`);
    console.log(`\n${r.subject}, median µs per phase: ${parts.join(', ')}`);
  }
  let load = '?';
  try {
    load = readFileSync('/proc/loadavg', 'utf8').split(' ')[0];
  } catch {
    // not Linux
  }
  console.log(`\n(load average ${load} on ${(await import('node:os')).availableParallelism()} cores while measuring)`);
}
