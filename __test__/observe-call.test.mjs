// observeCall (the positional repeat path the DSH plugin uses) against
// engine.observe: the same chains, the same reminders, shared state, and the
// same exactness for raw lone surrogates — natively and in the reference engine.
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { describe, it } from 'node:test';

const require = createRequire(import.meta.url);
const native = require('../index.js');
const reference = await import('../dist/reference/index.mjs');

// Calls of two agents, with repeats, a malformed text, an empty text, raw and
// escaped lone surrogates (which must stay distinct) and a long string value.
const long = JSON.stringify({ content: 'x"\\\n'.repeat(2000), file_path: 'a.txt' });
const texts = [
  '{"command":"ls","timeout":120000}', '{"timeout":120000,"command":"ls"}', '{"command":"ls","timeout":120000}',
  '["\ud800"]', '["\udc00"]', '["\udc00"]', '["\\udc00"]', '{"a":1', '{"a":1', '', '{}', '{}',
  long, long, long, long, '{"a":"\u{1F600}\ud83d"}', '{"a":"\u{1F600}\ud83d"}', '{"a":"\u{1F600}\ud83d"}',
];

for (const [label, mod] of [['native', native], ['reference', reference]]) {
  describe(`observeCall (${label})`, () => {
    it('gives exactly the reminders observe gives, call for call', () => {
      const viaObserve = new mod.GuardEngine({ repeat: { thresholds: [2, 3, 4] } });
      const viaCall = new mod.GuardEngine({ repeat: { thresholds: [2, 3, 4] } });
      let reminders = 0;
      for (let i = 0; i < texts.length * 2; i += 1) {
        const agentId = `agent-${i % 2}`;
        const argumentsJson = texts[Math.floor(i / 2)];
        const expected = viaObserve.observe({ agentId, name: 'bash', argumentsJson })?.reminder ?? null;
        const actual = mod.observeCall(viaCall.callHandle, agentId, 'bash', argumentsJson);
        assert.deepEqual(actual === null ? null : { ...actual }, expected === null ? null : { ...expected }, `call ${i}`);
        if (actual !== null) reminders += 1;
      }
      assert.ok(reminders >= 10, `only ${reminders} reminders: the sequence exercises too little`);
    });

    it('shares chains with the engine object (reset, forget, agentCount)', () => {
      const engine = new mod.GuardEngine({ repeat: { thresholds: [2] } });
      assert.equal(mod.observeCall(engine.callHandle, 'a', 'bash', '{"x":1}'), null);
      assert.equal(engine.agentCount, 1);
      engine.reset('a');
      assert.equal(mod.observeCall(engine.callHandle, 'a', 'bash', '{"x":1}'), null);
      assert.equal(engine.observe({ agentId: 'a', name: 'bash', argumentsJson: '{"x":1}' })?.reminder?.count, 2);
      engine.forget('a');
      assert.equal(engine.agentCount, 0);
    });

    it('each engine has its own handle; a handle no engine has throws', () => {
      const one = new mod.GuardEngine({ repeat: { thresholds: [2] } });
      const two = new mod.GuardEngine({ repeat: { thresholds: [2] } });
      assert.notEqual(one.callHandle, two.callHandle);
      mod.observeCall(one.callHandle, 'a', 'bash', '{}');
      assert.equal(mod.observeCall(two.callHandle, 'a', 'bash', '{}'), null);
      assert.equal(mod.observeCall(one.callHandle, 'a', 'bash', '{}')?.count, 2);
      assert.throws(() => mod.observeCall(2 ** 31, 'a', 'bash', '{}'), /no live engine has handle/);
      // Raw lone surrogates stay distinct (a UTF-8 crossing alone would make both U+FFFD).
      assert.equal(mod.observeCall(one.callHandle, 'b', 'bash', '["\ud800"]'), null);
      assert.equal(mod.observeCall(one.callHandle, 'b', 'bash', '["\udc00"]'), null);
      assert.equal(mod.observeCall(one.callHandle, 'b', 'bash', '["\\udc00"]')?.count, 2);
      assert.throws(() => mod.observeCall(one.callHandle, 'a', 'bash', 5), /argumentsJson must be a string \(got number\)/);
    });
  });
}
