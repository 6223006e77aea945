// The README and docs/ stay true: generated blocks match their sources (never
// prose), the README stays short, its engine example is the result-aware one,
// and every local link (file and #anchor) resolves.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { GuardEngine } from 'toolguard';
import { RULES_PAGE, readmeWithTable } from '../scripts/docs/rules-table.mjs';
import { SAMPLE_PAGE, auditSample, sampleIn } from '../scripts/docs/audit-sample.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const readme = readFileSync(join(root, 'README.md'), 'utf8');

test('the built-in rule table in docs/rules.md matches rules/builtin.json', () => {
  const page = readFileSync(join(root, RULES_PAGE), 'utf8');
  assert.equal(page, readmeWithTable(page), 'run: node scripts/docs/rules-table.mjs --write');
});

test('the README names the two commands and .ci/run calls the test command', () => {
  assert.match(readme, /npm ci && npx toolguard audit/);
  assert.match(readme, /npm ci && npm test/);
  assert.match(readFileSync(join(root, '.ci/run'), 'utf8'), /^npm test$/m);
});

test("docs/audit.md's sample is what `toolguard audit` prints (refresh: node scripts/docs/audit-sample.mjs --write)", () => {
  assert.equal(sampleIn(readFileSync(join(root, SAMPLE_PAGE), 'utf8')), auditSample());
});

test('the README is at most 90 lines and keeps no map of the tree (ARCHITECTURE.md has it)', () => {
  // Details go to docs/; the README is what a newcomer reads first.
  assert.ok(readme.split('\n').length <= 90, `${readme.split('\n').length} lines`);
  assert.doesNotMatch(readme, /^## Map of the tree/m);
});

test("the README's engine example is result-aware: a changing poll is no loop, the same result is, a call without agentId is in none", () => {
  const section = readme.slice(readme.indexOf('### The engine'));
  const example = /```ts\n([\s\S]*?)```/.exec(section)[1];
  const configText = /new GuardEngine\((\{[^\n]*\})\)/.exec(example)?.[1];
  assert.ok(configText, 'the example constructs an engine with a config on one line');
  const config = Function(`return (${configText});`)();
  const poll = (engine, agentId, texts) =>
    texts.map((text) =>
      engine.observe(
        { ...(agentId ? { agentId } : {}), name: 'bash', argumentsJson: '{"command":"make status"}' },
        { content: [{ type: 'text', text }] },
      ),
    );
  const changing = poll(new GuardEngine(config), 'a', ['Running 1/10', 'Running 2/10', 'Running 3/10', 'Running 4/10', 'Running 5/10']);
  assert.deepEqual(changing, [null, null, null, null, null], 'a poll whose output changes is not told to stop');
  const same = poll(new GuardEngine(config), 'a', ['Running 1/10', 'Running 1/10', 'Running 1/10', 'Running 1/10']);
  assert.ok(
    same.some((v) => v?.loop),
    'the same call with the same result is a loop',
  );
  const anonymous = poll(new GuardEngine(config), undefined, ['Running 1/10', 'Running 1/10', 'Running 1/10', 'Running 1/10']);
  assert.deepEqual(anonymous, [null, null, null, null], 'no agentId: no loop detection');
  assert.match(example, /without `agentId` takes part in no loop detection/);
});

/** GitHub's anchor of a heading. */
function slug(heading) {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

function anchorsOf(text) {
  const anchors = new Set();
  const seen = new Map();
  for (const [, heading] of text.replace(/```[\s\S]*?```/g, '').matchAll(/^#{1,6} (.+)$/gm)) {
    const base = slug(heading);
    const n = seen.get(base) ?? 0;
    anchors.add(n ? `${base}-${n}` : base);
    seen.set(base, n + 1);
  }
  return anchors;
}

test('every local link in the README and docs/ resolves, anchors included', () => {
  const pages = [
    'README.md',
    ...readdirSync(join(root, 'docs'))
      .filter((f) => f.endsWith('.md'))
      .map((f) => `docs/${f}`),
  ];
  const broken = [];
  for (const page of pages) {
    const text = readFileSync(join(root, page), 'utf8').replace(/```[\s\S]*?```/g, '');
    for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^[a-z]+:/.test(target)) continue; // http(s), mailto
      const [file, anchor] = target.split('#');
      const path = file ? join(dirname(join(root, page)), file) : join(root, page);
      if (!existsSync(path)) {
        broken.push(`${page}: ${target} (no file ${relative(root, path)})`);
        continue;
      }
      if (anchor && path.endsWith('.md') && !anchorsOf(readFileSync(path, 'utf8')).has(anchor))
        broken.push(`${page}: ${target} (no heading #${anchor})`);
    }
  }
  assert.deepEqual(broken, []);
});

test('every invariant in ARCHITECTURE.md names a test that exists', () => {
  const text = readFileSync(join(root, 'ARCHITECTURE.md'), 'utf8');
  const section = text.slice(text.indexOf('## Invariants kept by tests'));
  const invariants = section.split('\n- ').slice(1);
  assert.ok(invariants.length >= 5, `${invariants.length} invariants found`);
  for (const invariant of invariants) {
    const named = [...invariant.matchAll(/`(__test__\/[^`\s]+)`/g)].map((m) => m[1]);
    assert.ok(named.length > 0, `names no test: ${invariant.slice(0, 80)}`);
    for (const test of named) assert.ok(existsSync(join(root, test)), `${test} (named by: ${invariant.slice(0, 60)}…)`);
  }
});

test('every docs/*.md page is linked from the README, ARCHITECTURE.md or another page', () => {
  const pages = readdirSync(join(root, 'docs')).filter((f) => f.endsWith('.md'));
  const texts = ['README.md', 'ARCHITECTURE.md', ...pages.map((f) => `docs/${f}`)].map((f) => [f, readFileSync(join(root, f), 'utf8')]);
  const orphans = pages.filter((page) => !texts.some(([f, text]) => f !== `docs/${page}` && text.includes(page)));
  assert.deepEqual(orphans, []);
});
