// docs/trace-format.md's `--json output` example must name every key the
// audit emits, in the default shape (loops on: the `loops` array, `dataset`)
// and with `"loops": false` (the `reminders` entries): a key added to the
// output and not to the page fails here.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '../..');
const page = readFileSync(join(root, 'docs/trace-format.md'), 'utf8');
const example = page.split('## `--json` output')[1]?.match(/```jsonc\n([\s\S]*?)\n```/)?.[1] ?? '';

function audit(args) {
  const run = spawnSync(process.execPath, [join(root, 'bin/toolguard.mjs'), 'audit', '--json', ...args], { cwd: root, encoding: 'utf8' });
  assert.equal(run.status, 1, run.stderr);
  return JSON.parse(run.stdout);
}

/** Every object key in `value`, as `path.key` (array items share their array's path). */
function keys(value, path = '', out = new Map()) {
  if (Array.isArray(value)) for (const item of value) keys(item, path, out);
  else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      // `summary.rules` is keyed by rule id: data, not a key of the format.
      if (!out.has(k)) out.set(k, `${path}.${k}`);
      if (`${path}.${k}` !== '.summary.rules') keys(v, `${path}.${k}`, out);
    }
  }
  return out;
}

/** Keys the example names: a JSON member `"k":` or a bare name in a `{ k, … }` comment list. */
const named = new Set(
  [...example.matchAll(/"(\w+)"\s*:/g)].map((m) => m[1]).concat([...example.matchAll(/[{,]\s*(\w+)(?=[,\s}])/g)].map((m) => m[1])),
);

test('docs/trace-format.md names every key of the default audit --json (loops on)', () => {
  const doc = audit([]);
  assert.ok(
    doc.sessions.some((s) => s.loops.length > 0),
    'the sample has a loop',
  );
  assert.equal(doc.summary.reminders, 0, 'loops on: no result-blind reminders');
  const missing = [...keys(doc)].filter(([k]) => !named.has(k) && !(k in doc.summary.rules)).map(([, p]) => p);
  assert.deepEqual(missing, []);
  // One loop entry per episode, with its alarm count (docs/audit.md says so).
  const loop = doc.sessions.flatMap((s) => s.loops).find((l) => l.kind === 'repeat' && l.count === 5);
  assert.equal(loop.reminders, 3);
});

test('docs/trace-format.md names every key of a reminder (loops off)', () => {
  const config = join(mkdtempSync(join(tmpdir(), 'toolguard-json-doc-')), 'off.json');
  writeFileSync(config, JSON.stringify({ loops: false }));
  const doc = audit(['--config', config, 'samples/dsh']);
  const reminders = doc.sessions.flatMap((s) => s.reminders);
  assert.ok(reminders.length > 0);
  const missing = [...keys(reminders)].filter(([k]) => !named.has(k)).map(([, p]) => `reminders${p}`);
  assert.deepEqual(missing, []);
});
