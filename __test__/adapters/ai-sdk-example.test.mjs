// examples/ai-sdk/agent.mjs, the runnable AI SDK example docs/adapters.md
// names: the loop alarm reaches the model after the 3rd call and
// toolguardStopWhen stops the run after the 4th step.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '../..');
const major = Number(process.versions.node.split('.')[0]);
// `ai@7` declares engines.node >=22; the suite runs on Node 22 too (scripts/test/test.mjs).
const skip = major < 22 ? `the AI SDK (ai@7) requires Node >= 22; this is Node ${process.versions.node}` : false;

test('the AI SDK example agent: the alarm after call 3, stopped after step 4', { skip }, () => {
  const docs = readFileSync(join(root, 'docs/adapters.md'), 'utf8');
  assert.ok(docs.includes('node node_modules/toolguard/examples/ai-sdk/agent.mjs'));
  assert.ok(JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).files.includes('examples/ai-sdk/'));
  const run = spawnSync(process.execPath, [join(root, 'examples/ai-sdk/agent.mjs')], { cwd: root, encoding: 'utf8' });
  assert.equal(run.status, 0, run.stderr);
  assert.match(run.stdout, /^stopped: repeat × 4, alarm 2$/m);
  const after = run.stdout.split(/^--- after call \d+, the model reads:\n/m).slice(1);
  assert.equal(after.length, 3);
  assert.ok(!after[1].includes('[toolguard]'));
  assert.match(after[2], /\[toolguard\] Loop detected: bash was called 3 times in a row/);
  assert.match(run.stdout, /^4 steps/m);
});
