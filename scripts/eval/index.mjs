#!/usr/bin/env node
// `npm run eval`: runs every scripts/eval/*.eval.mjs (detector-quality
// measurements on the repo's corpora), one child process each, in name order,
// passing the arguments through. Exits non-zero if any of them failed.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const dir = fileURLToPath(new URL('.', import.meta.url));
const evals = readdirSync(dir)
  .filter((f) => f.endsWith('.eval.mjs'))
  .sort();
let failed = 0;
for (const file of evals) {
  const r = spawnSync(process.execPath, [join(dir, file), ...process.argv.slice(2)], { stdio: 'inherit' });
  if (r.status !== 0) {
    failed++;
    console.error(`eval: ${file} exited with ${r.status ?? r.signal}`);
  }
  console.log();
}
console.log(`${evals.length} evals run, ${failed} failed`);
process.exit(failed ? 1 : 0);
