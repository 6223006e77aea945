// The docs' commands and client configs work for the install route the
// README gives (the packed tarball in a project): none asks the npm registry
// for toolguard, which is not published (E404), outside the paragraphs that
// say what changes once it is.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '../..');
// The registry routes: `npx -y -p toolguard`, `npx -y toolguard`, `npm install -g toolguard`.
const REGISTRY = /npx -y (?:-p )?toolguard\b|"-y", "-p", "toolguard"|npm (?:install|i) -g toolguard\b/;
// A paragraph about the published package may name them.
const ONCE_PUBLISHED = /once (?:it is|toolguard is) published|not published/i;

test('docs/adapters.md and docs/audit-at-scale.md name toolguard from the registry only where they say it is not published yet', () => {
  const bad = [];
  for (const page of ['docs/adapters.md', 'docs/audit-at-scale.md', 'README.md']) {
    const paragraphs = readFileSync(join(root, page), 'utf8').split(/\n\s*\n/);
    for (const p of paragraphs) if (REGISTRY.test(p) && !ONCE_PUBLISHED.test(p)) bad.push(`${page}: ${p.slice(0, 120)}`);
  }
  assert.deepEqual(bad, []);
});

test('the MCP client config runs the project-local install by its absolute path', () => {
  const text = readFileSync(join(root, 'docs/adapters.md'), 'utf8');
  const config = JSON.parse(/```json\n(\{\n {2}"mcpServers"[\s\S]*?)```/.exec(text)[1]);
  const shell = config.mcpServers.shell;
  assert.match(shell.command, /\/node_modules\/\.bin\/toolguard$/);
  assert.equal(shell.args[0], 'mcp');
});
