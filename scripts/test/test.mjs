#!/usr/bin/env node
// The one test command (`npm test`): builds the addon and the TypeScript
// layer (on Linux x64 also the portable glibc-2.17 binary the install tests
// pack: built once here, not in each suite run), then runs every Rust test
// target (`--tests`: unit tests and tests/*.rs; `--lib` skipped the latter),
// the JavaScript suite on Node 20 and the same suite on Node 22
// (scripts/test/node22.mjs finds or installs it for this platform; where none can
// be had the pass is skipped with a line saying why), and closes with one
// `N passed, N failed` line for CI.
import { spawn, spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { findNode22 } from './node22.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '../..');
const args = new Set(process.argv.slice(2));

/** Run a command, echo its output, and return the captured text and exit code. */
function run(cmd, argv, env = {}) {
  return new Promise((resolve) => {
    console.log(`\n$ ${[cmd, ...argv].join(' ')}`);
    const child = spawn(cmd, argv, { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let text = '';
    child.stdout.on('data', (d) => {
      text += d;
      process.stdout.write(d);
    });
    child.stderr.on('data', (d) => {
      text += d;
      process.stderr.write(d);
    });
    child.on('close', (code) => resolve({ code: code ?? 1, text }));
  });
}

function testFiles(dir) {
  const out = [];
  for (const entry of readdirSync(dir)) {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) out.push(...testFiles(path));
    else if (entry.endsWith('.test.mjs')) out.push(relative(root, path));
  }
  return out.sort();
}

let passed = 0;
let failed = 0;
const problems = [];
const count = (label, { code, text }, parse) => {
  const [p, f] = parse(text);
  passed += p;
  failed += f;
  if (code !== 0 && f === 0) {
    failed += 1;
    problems.push(`${label} exited with ${code}`);
  } else if (f > 0) problems.push(`${label}: ${f} failed`);
};
const cargoCounts = (text) => {
  let p = 0,
    f = 0;
  for (const m of text.matchAll(/test result: \w+\. (\d+) passed; (\d+) failed/g)) {
    p += +m[1];
    f += +m[2];
  }
  return [p, f];
};
const nodeCounts = (text) => {
  const p = [...text.matchAll(/^# pass (\d+)$/gm)].reduce((s, m) => s + +m[1], 0);
  const f = [...text.matchAll(/^# fail (\d+)$/gm)].reduce((s, m) => s + +m[1], 0);
  return [p, f];
};

if (!args.has('--no-build')) {
  const builds = [['npm', ['run', 'build']]];
  if (process.platform === 'linux' && process.arch === 'x64') builds.push([process.execPath, ['scripts/release/build-portable.mjs']]);
  for (const [cmd, argv] of builds) {
    const build = await run(cmd, argv);
    if (build.code !== 0) {
      console.log('\n0 passed, 1 failed');
      process.exit(1);
    }
  }
}

count('cargo test', await run('cargo', ['test', '--workspace', '--tests', '--release', '--', '--test-threads=2']), cargoCounts);

// The first pass runs on the machine's Node: under `npm test` that is the one
// running npm (npm_node_execpath), whatever node_modules/.bin puts on PATH.
const hostNode = process.env.npm_node_execpath || process.execPath;
const versionOf = (bin) => spawnSync(bin, ['--version'], { encoding: 'utf8' }).stdout.trim();
const files = testFiles(join(root, '__test__'));
const runs = [[hostNode, versionOf(hostNode)]];
const skipped = [];
if (/^v22\./.test(runs[0][1])) {
  skipped.push(`the machine's Node is ${runs[0][1]}: one pass, on Node 22 (install Node 20 to also run the suite on it)`);
} else {
  const node22 = findNode22({ log: (line) => console.log(line) });
  if (node22.bin) runs.push([node22.bin, node22.version]);
  else skipped.push(`second pass on Node 22 skipped: ${node22.missing}`);
}
for (const [bin, version] of runs) {
  count(`node ${version}`, await run(bin, ['--test', '--test-reporter=tap', ...files]), nodeCounts);
}

for (const line of skipped) console.log(`\nskipped: ${line}`);
if (problems.length) console.log(`\nproblems:\n- ${problems.join('\n- ')}`);
console.log(`\n${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
