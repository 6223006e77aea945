// Unknown config keys in the DSH plugins, inside the real
// harness: the drop-ins keep loading a cordis.yml row the official plugin
// loads (it ignores unknown keys) but warn once naming the key; the combined
// plugin (no original to match) refuses one, naming it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { boot } from './kit.mjs';

const warningsOf = (h) => h.warnings.map((w) => w.args.join(' '));

test('official repeat-tool-reminder ignores an unknown key (the behaviour the drop-in keeps)', async (t) => {
  const h = await boot();
  t.after(() => h.dispose());
  await h.plugin(await import('@deepseek-ai/dsh-repeat-tool-reminder'), { thresholds: [3], treshold: 4 });
});

/** @type {Array<[string, string, object, string, string]>} label, module specifier, config, the unknown key, the keys listed */
const unknownKeyCases = [
  [
    'toolguard/dsh/repeat-tool-reminder',
    'toolguard/dsh/repeat-tool-reminder',
    { thresholds: [3], treshold: 4 },
    'treshold',
    'thresholds, include, exclude, argumentsPreviewChars',
  ],
  ['toolguard/dsh/loud-failure', 'toolguard/dsh/loud-failure', { shellTool: ['bash'] }, 'shellTool', 'rules, shellTools, scanValue'],
];
for (const [label, specifier, config, key, expected] of unknownKeyCases) {
  test(`${label}: an unknown top-level key loads with one warning naming it`, async (t) => {
    const h = await boot();
    t.after(() => h.dispose());
    await h.plugin(await import(specifier), config);
    assert.deepEqual(warningsOf(h), [`${label.split('/').pop()}: ignoring unknown config key "${key}" (expected one of: ${expected})`]);
  });
}

test('toolguard/dsh (combined) refuses an unknown top-level key, naming it', async (t) => {
  const h = await boot();
  t.after(() => h.dispose());
  await assert.rejects(
    h.plugin(await import('toolguard/dsh'), { repeats: { thresholds: [3] } }),
    /^Error: toolguard: unknown key config\.repeats \(expected one of: repeat, loudFailure, loops, otel\)$/,
  );
  const ok = await boot();
  t.after(() => ok.dispose());
  await ok.plugin(await import('toolguard/dsh'), { repeat: { thresholds: [3] } });
  assert.deepEqual(warningsOf(ok), []);
});
