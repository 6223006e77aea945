// The loop detectors keep two bit sets that share values (loops/entry.rs and
// its twin reference/loops/entry.mts): an entry's `flags` (TROUBLED = 0x80, PATHLESS =
// 0x40, DONE = 0x20 …), saved in the loop state, and the effect cache's
// bits beside the effect code (NO_PATH = 0x80, HIDDEN = 0x40, WRITES = 0x20),
// which `observe` unpacks into booleans and never stores. Sharing values is
// safe only while the cache bits stay out of the entry: this checks, through
// the saved state of both engines, that a pathless write is PATHLESS (not
// TROUBLED), a re-run showing an error is TROUBLED, and no entry's effect
// carries a cache bit.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';

import { GuardEngine as Reference } from '../dist/reference/index.mjs';

const require = createRequire(import.meta.url);
let native;
/** @type {string | false} */
let skip = false;
try {
  native = require('../index.js');
} catch (error) {
  skip = `native addon not loadable: ${error.message.split('\n')[0]}`;
}

const [PATHLESS, TROUBLED] = [0x40, 0x80];
const [WRITE, RUN] = [2, 3];

/** Each call's saved entry of agent `a` after `calls`: its flags, effect and whether it is an attempt. */
function entries(Engine, calls) {
  const engine = new Engine({ loops: {} });
  for (const [command, text] of calls) engine.observe({ agentId: 'a', name: 'bash', arguments: { command } }, { text });
  // An entry: six 16-hex digests, then `flags:ordinal:time:effect:attempt`.
  return engine
    .chainState('a')
    .loops.split('.')
    .slice(4)
    .map((entry) => {
      const [flags, , , effect, attempt] = entry.slice(96).split(':');
      return { flags: Number.parseInt(flags, 16), effect: Number.parseInt(effect, 16), attempt: attempt === '1' };
    });
}

const calls = [
  ['pip install requests', 'Successfully installed requests-2.32.3'], // a write that names no file: NO_PATH in the cache
  ['echo done > out.txt', ''], // a write of a path: WRITES in the cache
  ['python run.py | tail -3', 'Error: the run failed'], // a run that hides its status: HIDDEN in the cache
  ['python run.py', 'Error: the run failed'],
  ['python run.py', 'Error: the run failed'], // again, naming an error with no failure said: TROUBLED
];

function check(Engine) {
  const [install, echo, hidden, , again] = entries(Engine, calls);
  assert.deepEqual(
    [install.effect, (install.flags & PATHLESS) !== 0, (install.flags & TROUBLED) !== 0],
    [WRITE, true, false],
    'a pathless write is PATHLESS, never TROUBLED',
  );
  assert.deepEqual([echo.effect, echo.flags & PATHLESS, echo.attempt], [WRITE, 0, true]);
  assert.equal(hidden.effect, RUN);
  assert.deepEqual([again.effect, (again.flags & TROUBLED) !== 0], [RUN, true], 'a re-run naming an error is TROUBLED');
  for (const entry of entries(Engine, calls)) assert.ok(entry.effect < 0x20, `effect ${entry.effect} carries a cache bit`);
}

describe('loop entry flags and effect-cache bits share values but never meet', () => {
  it('the reference engine', () => check(Reference));
  it('the native engine, with the same flags and effects', { skip }, () => {
    check(native.GuardEngine);
    assert.deepEqual(entries(native.GuardEngine, calls), entries(Reference, calls));
  });
});
