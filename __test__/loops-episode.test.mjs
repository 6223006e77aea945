// A loop is one episode however long it runs (issue 21): through the addon,
// a 300-call loop keeps its real count, its first call, escalating reminders
// and `loops.deny` to the end; a saved state of another version starts afresh.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const { GuardEngine } = require('../index.js');

const exec = { agentId: 'a', name: 'bash', argumentsJson: '{"command":"pytest -q"}' };
const result = { content: [{ type: 'text', text: '1 failed, 2 passed\n[exit code: 1]' }], isError: false };

test('a 300-call loop: one episode, its real count, reminders climbing to the end', () => {
  const engine = new GuardEngine({ loops: {} });
  const alarms = [];
  for (let i = 0; i < 300; i++) {
    const v = engine.observe(exec, result);
    if (v?.loop) alarms.push(v.loop);
  }
  assert.equal(alarms.length, 298);
  assert.ok(alarms.every((a) => a.first === 1), 'one episode, begun at call 1');
  const last = alarms.at(-1);
  assert.deepEqual([last.count, last.first, last.last, last.reminders], [300, 1, 300, 298]);
  assert.equal(last.summary, 'bash: repeat × 300');
  assert.match(last.text, /reminder 298 for this loop/);
  assert.match(last.text, /called 300 times in a row/);
});

test('loops.deny refuses the call however long the loop has run', () => {
  const engine = new GuardEngine({ loops: { deny: 290 } });
  let refusedAt = null;
  for (let i = 1; i <= 300; i++) {
    const refusal = engine.check(exec);
    if (refusal) {
      refusedAt = i;
      assert.equal(refusal.reminders, 290);
      assert.match(refusal.reason, /since call #1\)/);
      break;
    }
    engine.observe(exec, result);
  }
  // Reminders at calls 3..292: the 293rd call would be the 291st.
  assert.equal(refusedAt, 293);
});

test('a saved loop state of another version starts the agent afresh', () => {
  const engine = new GuardEngine({ loops: {} });
  for (let i = 0; i < 2; i++) engine.observe(exec, result);
  const saved = engine.chainState('a');
  assert.match(saved.loops, /^L2\./);
  const fresh = new GuardEngine({ loops: {} });
  // An older toolguard's state (`L1.`) and a foreign one: no throw, no window.
  for (const loops of ['L1.2.-.-', 'something else']) {
    fresh.restoreChain('a', { loops });
    assert.equal(fresh.chainState('a'), null, loops);
  }
  fresh.restoreChain('a', saved);
  assert.equal(fresh.observe(exec, result)?.loop?.count, 3, 'the saved window is back');
  assert.throws(() => fresh.restoreChain('a', { loops: 'L2.zz' }), /state\.loops/);
});
