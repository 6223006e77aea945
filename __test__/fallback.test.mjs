// The package entry falls back to the reference engine, with one warning,
// when the native binary cannot be loaded; and it exports every native name.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const require = createRequire(import.meta.url);

test('the entry re-exports every name of the generated native binding', () => {
  const entry = require('../main.js');
  const generated = require('../index.js');
  assert.equal(entry.native, true);
  for (const name of Object.keys(generated).filter((n) => !n.startsWith('__'))) {
    assert.equal(entry[name], generated[name], name);
  }
});

test('without a loadable binary the entry uses the reference engine and warns once', () => {
  // Block every native addon load, as on a platform with no prebuilt binary.
  const script = `
    process.dlopen = () => { throw new Error('no binary for this platform') };
    const warnings = [];
    process.on('warning', (w) => warnings.push(w.code + ': ' + w.message));
    const a = require('./main.js');
    const b = require('./main.js');
    const engine = new a.GuardEngine({ repeat: { thresholds: [2] } });
    engine.observe({ agentId: 'x', name: 't', argumentsJson: '{}' });
    const verdict = engine.observe({ agentId: 'x', name: 't', argumentsJson: '{}' });
    setImmediate(() => console.log(JSON.stringify({ native: a.native, same: a === b, count: verdict.reminder.count, warnings })));
  `;
  const run = spawnSync(process.execPath, ['-e', script], { cwd: root, encoding: 'utf8' });
  assert.equal(run.status, 0, run.stderr);
  const out = JSON.parse(run.stdout);
  assert.equal(out.native, false);
  assert.equal(out.count, 2);
  assert.equal(out.warnings.length, 1);
  assert.match(
    out.warnings[0],
    /^TOOLGUARD_FALLBACK: toolguard: no native binary for \S+ could be loaded \(.*\); using the pure-TypeScript reference engine: same API and verdicts, slower; `toolguard audit` needs the native binary$/,
  );
});

test('ESM named imports resolve through the entry', async () => {
  const { GuardEngine, canonicalize, native } = await import('toolguard');
  assert.equal(typeof GuardEngine, 'function');
  assert.equal(canonicalize('{"b":1,"a":0}'), '{"a":0,"b":1}');
  assert.equal(native, true);
});
