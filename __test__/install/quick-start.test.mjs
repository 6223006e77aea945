// The README's quick start on a fresh clone: `npm ci` builds through
// `prepare` (scripts/release/prepare.mjs), so no command may build again
// after it; each command says how long it takes; the EBADENGINE warnings
// `npm ci` prints on the minimum Node are explained. docs/contributing.md
// repeats the two commands and is held to the same rule.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { root } from '../support/install.mjs';

const readme = readFileSync(join(root, 'README.md'), 'utf8');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));

/** The first ```sh block after `heading` in `text`: its lines. */
function block(text, heading) {
  const at = text.indexOf(heading);
  assert.ok(at >= 0, `no ${heading}`);
  const m = text.slice(at).match(/```sh\n([\s\S]*?)```/);
  assert.ok(m, `no sh block under ${heading}`);
  return m[1].split('\n').filter((l) => l.trim() !== '');
}

/** The steps of one command line (`a && b && c`), its trailing comment dropped. */
const steps = (line) =>
  line
    .replace(/\s+#.*$/, '')
    .split('&&')
    .map((s) => s.trim());

// What `npm ci` runs after installing: `prepare`, which builds a checkout that has no build.
const prepareBuilds = () => {
  assert.equal(pkg.scripts.prepare, 'node scripts/release/prepare.mjs');
  const script = readFileSync(join(root, 'scripts/release/prepare.mjs'), 'utf8');
  assert.match(script, /run\('build'\)/);
  return true;
};

/** Steps that build again after an `npm ci` that built (names of package.json scripts that build). */
function rebuilds(commands) {
  const building = new Set(Object.keys(pkg.scripts).filter((name) => /^build(:|$)/.test(name)));
  const found = [];
  for (const line of commands) {
    let built = false;
    for (const step of steps(line)) {
      if (/^npm ci\b/.test(step) && !/--ignore-scripts/.test(step) && prepareBuilds()) built = true;
      const script = step.match(/^npm run ([\w:-]+)/)?.[1];
      if (built && script !== undefined && building.has(script)) found.push(`${line.trim()}: ${step}`);
    }
  }
  return found;
}

test("the README's quick start builds once: no build script after `npm ci`, whose prepare builds", () => {
  const lines = block(readme, '## Quick start');
  const commands = lines.filter((l) => !l.trim().startsWith('#'));
  assert.ok(commands.length >= 2, lines.join('\n'));
  assert.deepEqual(rebuilds(commands), []);
  const contributing = block(readFileSync(join(root, 'docs/contributing.md'), 'utf8'), '## The two commands');
  assert.deepEqual(rebuilds(contributing), []);
});

test('the quick start says how long its main job takes on 2 cores, and what the tests add', () => {
  const lines = block(readme, '## Quick start');
  const said = (command) => {
    const at = lines.findIndex((l) => l.startsWith(command));
    assert.ok(at > 0, `no ${command}`);
    let from = at;
    while (from > 0 && lines[from - 1].trim().startsWith('#')) from--;
    return lines.slice(from, at).join(' ');
  };
  assert.match(said('npm ci && npx toolguard audit'), /about \d+(?:[.–-]\d+)? min\w* on 2 cores/);
  assert.match(said('npm ci && npm test'), /build's time/);
});

test('the EBADENGINE warnings of `npm ci` on the minimum Node are explained', () => {
  assert.match(pkg.engines.node, /^>=20\./);
  assert.match(readme, /EBADENGINE/);
  assert.match(readme, /development dependencies only/);
  const contributing = readFileSync(join(root, 'docs/contributing.md'), 'utf8');
  assert.match(contributing, /EBADENGINE[\s\S]*declare Node ≥ 22[\s\S]*harmless/);
});
