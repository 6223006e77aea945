#!/usr/bin/env node
// `npm run fuzz`: run every cargo-fuzz target of fuzz/ for a fixed time each
// and print what was found.
//
//   node scripts/test/fuzz.mjs                      60 s per target
//   node scripts/test/fuzz.mjs --seconds 600        10 minutes per target
//   node scripts/test/fuzz.mjs --smoke              CI smoke: 20 s per target (6 targets: 2 minutes)
//   node scripts/test/fuzz.mjs scan observe         only these targets
//
// Installs cargo-fuzz when it is missing. libFuzzer needs nightly-only rustc
// flags; RUSTC_BOOTSTRAP=1 lets the stable toolchain accept them. Built with
// optimisations and debug assertions (integer overflow is a finding). The
// `transcode` target runs under AddressSanitizer: it drives the one `unsafe`
// block of crates/toolguard-core (everything else there is safe code, which
// ASan cannot add to and which cost 2-5x in inputs per second under it; the
// binding's `unsafe` is N-API calls, which need Node). New inputs
// go to fuzz/target/corpus/<target> (not committed); the committed seeds in
// fuzz/corpus/<target> are read only. A crash, a panic, a failed invariant or
// an input slower than --timeout seconds (the engine claims linear time) is a
// finding: its reproducer lands in fuzz/artifacts/<target>/ and the exit code
// is 1. Reproduce one with
//   RUSTC_BOOTSTRAP=1 cargo fuzz run --fuzz-dir fuzz -O -a -s none <target> <artifact>
// (`-s address` for transcode).
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '../..');
const fuzzDir = join(root, 'fuzz');

/** Per target: the largest input libFuzzer builds (bigger inputs run slower, so fewer of them). */
const TARGETS = {
  canonical: { maxLen: 4096 },
  rule_compile: { maxLen: 512 },
  scan: { maxLen: 16384 },
  prefilter: { maxLen: 2048 },
  observe: { maxLen: 8192 },
  transcode: { maxLen: 4096, sanitizer: 'address' },
};

const argv = process.argv.slice(2);
let seconds = 60;
let timeout = 10;
const chosen = [];
for (let i = 0; i < argv.length; i++) {
  const arg = argv[i];
  if (arg === '--seconds') seconds = Number(argv[++i]);
  else if (arg === '--timeout') timeout = Number(argv[++i]);
  else if (arg === '--smoke') seconds = 20;
  else if (arg in TARGETS) chosen.push(arg);
  else {
    console.error(`unknown argument ${arg}; targets: ${Object.keys(TARGETS).join(', ')}`);
    process.exit(2);
  }
}
if (!(seconds > 0) || !(timeout > 0)) {
  console.error('--seconds and --timeout take a positive number');
  process.exit(2);
}
const targets = chosen.length ? chosen : Object.keys(TARGETS);
const env = { ...process.env, RUSTC_BOOTSTRAP: '1' };

function ensureCargoFuzz() {
  if (spawnSync('cargo', ['fuzz', '--version'], { stdio: 'ignore' }).status === 0) return;
  console.log('cargo-fuzz is missing: cargo install cargo-fuzz --locked');
  const install = spawnSync('cargo', ['install', 'cargo-fuzz', '--locked'], { stdio: 'inherit' });
  if (install.status !== 0) process.exit(install.status ?? 1);
}

/** Run a command, echo its output, resolve with the captured text and exit code. */
function run(cmd, args) {
  return new Promise((resolve) => {
    console.log(`\n$ ${cmd} ${args.join(' ')}`);
    const child = spawn(cmd, args, { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let text = '';
    const keep = (d) => {
      text += d;
      // libFuzzer reports on stderr; keep the log short, the summary says the rest.
      if (text.length > 4_000_000) text = text.slice(-1_000_000);
      process.stderr.write(d);
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    child.on('close', (code) => resolve({ code: code ?? 1, text }));
  });
}

const artifacts = (target) => {
  const dir = join(fuzzDir, 'artifacts', target);
  return existsSync(dir) ? readdirSync(dir) : [];
};

ensureCargoFuzz();
const flags = (target) => ['--fuzz-dir', fuzzDir, '-O', '--debug-assertions', '--sanitizer', TARGETS[target].sanitizer ?? 'none'];
for (const target of targets) {
  const build = await run('cargo', ['fuzz', 'build', ...flags(target), target]);
  if (build.code !== 0) process.exit(build.code);
}

const rows = [];
for (const target of targets) {
  const work = join(fuzzDir, 'target', 'corpus', target);
  mkdirSync(work, { recursive: true });
  const before = new Set(artifacts(target));
  const started = Date.now();
  const { code, text } = await run('cargo', [
    'fuzz',
    'run',
    ...flags(target),
    target,
    work,
    join(fuzzDir, 'corpus', target),
    '--',
    `-max_total_time=${seconds}`,
    `-timeout=${timeout}`,
    `-max_len=${TARGETS[target].maxLen}`,
    '-rss_limit_mb=2048',
    '-print_final_stats=1',
  ]);
  const runs = text.match(/stat::number_of_executed_units:\s*(\d+)/)?.[1] ?? text.match(/Done (\d+) runs/)?.[1] ?? '?';
  const cov = [...text.matchAll(/cov: (\d+) ft: (\d+)/g)].at(-1);
  const found = artifacts(target).filter((f) => !before.has(f));
  rows.push({
    target,
    seconds: Math.round((Date.now() - started) / 1000),
    runs,
    coverage: cov ? `cov ${cov[1]} ft ${cov[2]}` : '?',
    corpus: readdirSync(work).length,
    result: code === 0 && found.length === 0 ? 'ok' : `FOUND (exit ${code}) ${found.map((f) => `fuzz/artifacts/${target}/${f}`).join(' ')}`,
  });
}

console.log('\nfuzz summary');
console.table(rows);
process.exit(rows.every((r) => r.result === 'ok') ? 0 : 1);
