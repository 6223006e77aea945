// scripts/test/node22.mjs, which gives the test runner its Node 22 pass on any
// platform: a given binary is checked, and where no Node 22 can be had the
// caller is told why (the runner then skips the pass with that line).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const script = fileURLToPath(new URL('../scripts/test/node22.mjs', import.meta.url));

test('runs its arguments on Node 22, and TOOLGUARD_NODE22 names the binary', () => {
  const found = spawnSync(process.execPath, [script, '-p', 'process.version'], { encoding: 'utf8' });
  assert.equal(found.status, 0, found.stderr);
  assert.match(found.stdout, /^v22\./);
  const missing = spawnSync(process.execPath, [script, '-p', '1'], {
    encoding: 'utf8',
    env: { ...process.env, TOOLGUARD_NODE22: join('/nonexistent', 'node') },
  });
  assert.equal(missing.status, 2);
  assert.match(missing.stderr, /^node22: TOOLGUARD_NODE22=.*nonexistent.* is not a Node 22 binary/);
});

test('findNode22 without installing reports what is missing instead of failing', async () => {
  const { findNode22 } = await import('../scripts/test/node22.mjs');
  const saved = process.env.TOOLGUARD_NODE22;
  process.env.TOOLGUARD_NODE22 = process.execPath;
  try {
    const result = findNode22({ install: false });
    if (process.version.startsWith('v22.')) assert.deepEqual(result, { bin: process.execPath, version: process.version });
    else assert.match(result.missing, /is not a Node 22 binary/);
  } finally {
    if (saved === undefined) delete process.env.TOOLGUARD_NODE22;
    else process.env.TOOLGUARD_NODE22 = saved;
  }
});
