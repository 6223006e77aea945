// Why a module did not load, as main.js's fallback warning and the native
// readers (dist/ts/native.mjs) both say it: one function, on the inputs where
// their copies once differed (an Error with an empty message, a thrown
// non-Error object with a message, a cause chain).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';

const { rootCause } = createRequire(import.meta.url)('../root-cause.js');

test('rootCause: the first line of the innermost cause', () => {
  assert.equal(rootCause(new Error('outer', { cause: new Error('dlopen failed\nat line 2') })), 'dlopen failed');
  assert.equal(rootCause(new Error('')), 'Error');
  assert.equal(rootCause({ message: 'thrown object' }), 'thrown object');
  assert.equal(rootCause('a string\nsecond'), 'a string');
  assert.equal(rootCause(undefined), 'undefined');
  assert.equal(rootCause(null), 'null');
});
