// toolguard-specific plugin behaviour with no official counterpart to run
// against: config-schema parity, fail-open on reset, scanning without agent.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { boot, textTool } from './kit.mjs';
import { loudFailureVariants, repeatVariants, selected } from './variants.mjs';

const require = createRequire(import.meta.url);
const BOOM = { id: 'test-boom', pattern: 'BOOM', action: 'error', when: 'success', message: 'boom' };

/** A schemastery schema as a plain tree, independent of its registry ids. */
function schemaTree(schema) {
  const { uid, refs } = JSON.parse(JSON.stringify(schema));
  const resolve = (id) => {
    const node = { ...refs[id] };
    if (node.inner !== undefined) node.inner = resolve(node.inner);
    if (node.dict) node.dict = Object.fromEntries(Object.entries(node.dict).map(([k, v]) => [k, resolve(v)]));
    if (node.list) node.list = node.list.map(resolve);
    return node;
  };
  return resolve(uid);
}

describe('config schemas', () => {
  test('the repeat-tool-reminder Config is the official schema', async () => {
    const official = await import('@deepseek-ai/dsh-repeat-tool-reminder');
    for (const variant of selected(repeatVariants).filter((v) => !v.official)) {
      const module = await variant.load();
      const schema = variant.label.includes('combined') ? null : module.Config;
      if (schema) {
        assert.deepEqual(schemaTree(schema), schemaTree(official.Config));
        assert.equal(module.name, 'repeat-tool-reminder');
      }
      for (const input of [{}, { thresholds: [4, 2] }, { include: ['a*'], exclude: ['b'], argumentsPreviewChars: 9 }]) {
        const resolved = schema ? schema(input) : module.Config({ repeat: input }).repeat;
        assert.deepEqual(resolved, official.Config(input));
      }
    }
  });

  test('loud-failure and combined defaults', async () => {
    const loud = await import('toolguard/dsh/loud-failure');
    const combined = await import('toolguard/dsh');
    // The one default shell-tool list (rules/shell-tools.json), compared without case.
    const { shellTools } = JSON.parse(readFileSync(new URL('../../rules/shell-tools.json', import.meta.url), 'utf8'));
    const loudDefaults = { rules: [], shellTools, scanValue: false };
    assert.equal(loud.name, 'loud-failure');
    assert.deepEqual(loud.Config({}), loudDefaults);
    assert.equal(combined.name, 'toolguard');
    assert.deepEqual(combined.Config({}), {
      repeat: { thresholds: [3, 5, 8], include: [], exclude: [], argumentsPreviewChars: 500 },
      loudFailure: loudDefaults,
      otel: false,
    });
  });

  test('the repeat-only plugin validates only the repeat part', async (t) => {
    const module = await import('toolguard/dsh/repeat-tool-reminder');
    const h = await boot();
    t.after(() => h.dispose());
    h.tool(textTool('bash', (args) => args.out));
    await h.plugin(module, {});
    const a = h.agent('s1');
    // Built-in rules would block this output; this plugin does not scan.
    await h.turn(a, [[{ name: 'bash', args: { out: 'Traceback (most recent call last):\n  File "x.py"\nKeyError: 1' } }]]);
    assert.equal(h.timeline(a)[0].isError, false);
  });
});

for (const variant of selected(repeatVariants).filter((v) => !v.official)) {
  test(`fails open when reset throws — ${variant.label}`, async (t) => {
    const { GuardEngine } = require('toolguard');
    const original = GuardEngine.prototype.reset;
    t.after(() => {
      GuardEngine.prototype.reset = original;
    });
    const h = await boot();
    t.after(() => h.dispose());
    h.tool(textTool('probe'));
    await h.plugin(await variant.load(), variant.wrap({}));
    const a = h.agent('s1');
    await h.turn(a, [[{ name: 'probe', args: {} }], [{ name: 'probe', args: {} }]]);
    GuardEngine.prototype.reset = function reset() {
      throw new Error('reset exploded');
    };
    await h.turn(a, [[{ name: 'probe', args: {} }]], 'again');
    GuardEngine.prototype.reset = original;
    // The turn ran; the chain was not reset, so this was the third call.
    assert.deepEqual(
      h.contexts(a).map((c) => c.summary),
      ['probe × 3'],
    );
    const warnings = h.warnings.filter((w) => w.type === 'warn');
    assert.equal(warnings.length, 1);
    assert.match(
      String(warnings[0].args[0]),
      new RegExp(`^${variant.label.includes('combined') ? 'toolguard' : 'repeat-tool-reminder'}: .*reset exploded`),
    );
  });
}

for (const variant of selected(loudFailureVariants)) {
  test(`direct ctx.tools.execute() results are scanned too — ${variant.label}`, async (t) => {
    const h = await boot();
    t.after(() => h.dispose());
    h.tool(textTool('bash', (args) => args.out));
    await h.plugin(await variant.load(), variant.wrap({ rules: [BOOM] }));
    const result = await h.execute('bash', { out: 'BOOM' });
    assert.equal(result.isError, true);
    assert.match(result.content[0].text, /^\[loud-failure\] bash reported no error/);
    const clean = await h.execute('bash', { out: 'fine' });
    assert.deepEqual(clean.content, [{ type: 'text', text: 'fine' }]);
  });
}
