// ARCHITECTURE.md's layering invariant that no other suite checks: the engine
// crate knows nothing of Node, so `cargo tree -p toolguard-core` (normal,
// build and dev dependencies) holds no napi crate.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

test('toolguard-core depends on no napi crate', () => {
  // --offline: the lock file and the crates the build already fetched say it all.
  const tree = spawnSync('cargo', ['tree', '-p', 'toolguard-core', '--prefix', 'none', '--offline'], { cwd: root, encoding: 'utf8' });
  assert.equal(tree.status, 0, tree.stderr);
  const crates = new Set(tree.stdout.split('\n').map((line) => line.split(' ')[0]));
  assert.ok(crates.has('toolguard-core') && crates.has('serde_json'), `cargo tree listed the crate and its dependencies: ${[...crates]}`);
  assert.deepEqual(
    [...crates].filter((name) => name.startsWith('napi')),
    [],
  );
});
