// examples/opencode/plugin-check.mjs, the user-runnable check docs/adapters.md
// names for OpenCode: it prints the loop alarm after the third identical call
// and the loud-failure text for the traceback behind `| tail`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '../..');

test('the OpenCode example shows the loop alarm and the failure text, as docs/adapters.md says', () => {
  const docs = readFileSync(join(root, 'docs/adapters.md'), 'utf8');
  assert.ok(docs.includes('node node_modules/toolguard/examples/opencode/plugin-check.mjs'));
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  assert.ok(pkg.files.includes('examples/opencode/'), 'the example ships in the tarball');
  const run = spawnSync(process.execPath, [join(root, 'examples/opencode/plugin-check.mjs')], { cwd: root, encoding: 'utf8' });
  assert.equal(run.status, 0, run.stderr);
  const calls = run.stdout.split(/^--- call \d+: /m).slice(1);
  assert.equal(calls.length, 4);
  assert.ok(!calls[1].includes('[toolguard]'));
  assert.match(calls[2], /\n\n\[toolguard\] Loop detected: bash was called 3 times in a row/);
  assert.match(calls[3], /\[loud-failure\] bash exited 0 but its output shows it failed:\n- exception-tail/);
  assert.ok(!calls[3].includes('[exit code: 0]'), 'the marker is for the engine only');
});
