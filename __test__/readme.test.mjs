// The README's generated parts stay in step with their sources.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { readmeWithTable } from '../scripts/rules-table.mjs';

const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');

test('the built-in rule table in the README matches rules/builtin.json', () => {
  assert.equal(readme, readmeWithTable(readme), 'run: node scripts/rules-table.mjs --write');
});

test('the README names the two commands and .ci/run calls the test command', () => {
  assert.match(readme, /npm ci && npm run build && npx toolguard audit/);
  assert.match(readme, /npm ci && npm test/);
  assert.match(readFileSync(new URL('../.ci/run', import.meta.url), 'utf8'), /^npm test$/m);
});
