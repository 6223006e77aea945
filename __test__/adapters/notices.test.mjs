// The notices an adapter appends to a tool output follow it after exactly one
// blank line, whatever line breaks the output ends with (most shell output
// ends in one: it used to give two blank lines in the AI SDK, Mastra and
// OpenCode adapters).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appendNotices } from '../../dist/ts/adapters/common.mjs';

test('appendNotices: one blank line between the output and each notice', () => {
  assert.equal(appendNotices('util.js\n', ['[toolguard] a']), 'util.js\n\n[toolguard] a');
  assert.equal(appendNotices('util.js\n\n\n', ['[toolguard] a', '[toolguard] b']), 'util.js\n\n[toolguard] a\n\n[toolguard] b');
  assert.equal(appendNotices('util.js', ['[toolguard] a']), 'util.js\n\n[toolguard] a');
  assert.equal(appendNotices('', ['[toolguard] a']), '\n\n[toolguard] a');
});

test('appendNotices: the output is returned untouched when there is no notice', () => {
  assert.equal(appendNotices('util.js\n', []), 'util.js\n');
});

test('appendNotices: a long run of line breaks is dropped in one pass', () => {
  const text = `${'\n'.repeat(1_000_000)}x${'\n'.repeat(1_000_000)}`;
  assert.equal(appendNotices(text, ['n']), `${'\n'.repeat(1_000_000)}x\n\nn`);
});
