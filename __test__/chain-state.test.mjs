// chainState / restoreChain, the same contract on the native and the
// reference engine (digests are engine-specific: a chain goes back into the
// same kind of engine).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import * as reference from '../dist/reference/index.mjs';

const native = createRequire(import.meta.url)('../index.js');

for (const [kind, { GuardEngine }] of [
  ['native', native],
  ['reference', reference],
]) {
  test(`${kind}: chainState / restoreChain carry a chain into a fresh engine`, () => {
    const config = { repeat: { thresholds: [3] } };
    const exec = { agentId: 'a', name: 'grep', argumentsJson: '{"q":1}' };
    const first = new GuardEngine(config);
    assert.equal(first.chainState('a'), null);
    first.observe(exec);
    first.observe(exec);
    const state = first.chainState('a');
    assert.match(state.digest, /^[0-9a-f]{32}$/);
    assert.equal(state.count, 2);
    const second = new GuardEngine(config);
    second.restoreChain('a', state);
    assert.equal(second.observe(exec).reminder.count, 3);
    assert.deepEqual(second.chainState('a'), { digest: state.digest, count: 3 });
    const other = new GuardEngine(config);
    other.restoreChain('a', state);
    assert.equal(other.observe({ ...exec, argumentsJson: '{"q":2}' }), null, 'a different call starts over');
    assert.throws(() => other.restoreChain('a', { digest: 'xyz', count: 1 }), {
      message: 'toolguard: state.digest must be 32 hexadecimal digits',
    });
    assert.throws(() => other.restoreChain('a', { digest: state.digest, count: 0 }), {
      message: 'toolguard: state.count must be an integer >= 1',
    });
  });
}
