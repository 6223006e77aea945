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

test("the README's audit sample is what `toolguard audit` prints", async () => {
  const { spawnSync } = await import('node:child_process');
  const { fileURLToPath } = await import('node:url');
  const root = fileURLToPath(new URL('..', import.meta.url));
  // A home with no Claude Code or Codex history: the main job audits the sample.
  const { mkdtempSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  const env = { ...process.env, NO_COLOR: '1', HOME: mkdtempSync(join(tmpdir(), 'toolguard-home-')) };
  delete env.FORCE_COLOR;
  delete env.CLAUDE_CONFIG_DIR;
  delete env.CODEX_HOME;
  const run = spawnSync(process.execPath, ['bin/toolguard.mjs', 'audit'], { cwd: root, encoding: 'utf8', env });
  const block = readme.slice(readme.indexOf('<!-- audit-sample:begin -->'), readme.indexOf('<!-- audit-sample:end -->'));
  const shown = /```\n([\s\S]*?)```/.exec(block)[1];
  assert.equal(shown, run.stdout.replace(/\\/g, '/'));
});
