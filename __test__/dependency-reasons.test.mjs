// House rule: a reason beside every dependency. package.json keeps them in
// "//devDependencies" (JSON has no comments); a Cargo.toml dependency line
// needs a comment above it, or above the run of dependency lines it is part of.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

test('every npm dependency has its reason in package.json', () => {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  const reasons = pkg['//devDependencies'] ?? {};
  const deps = [...Object.keys(pkg.dependencies ?? {}), ...Object.keys(pkg.devDependencies ?? {})];
  assert.deepEqual(
    deps.filter((name) => typeof reasons[name] !== 'string' || !reasons[name].trim()),
    [],
    'add a line to "//devDependencies"',
  );
  assert.deepEqual(
    Object.keys(reasons).filter((name) => name !== '//' && !deps.includes(name)),
    [],
    'a reason for a package that is gone',
  );
});

test('every Cargo.toml dependency has a comment beside it', () => {
  const manifests = ['Cargo.toml', 'fuzz/Cargo.toml', ...readdirSync(join(root, 'crates')).map((c) => `crates/${c}/Cargo.toml`)].filter(
    (f) => existsSync(join(root, f)),
  );
  const bare = [];
  for (const manifest of manifests) {
    let inDeps = false;
    let explained = false;
    readFileSync(join(root, manifest), 'utf8')
      .split('\n')
      .forEach((raw, i, lines) => {
        const line = raw.trim();
        const commented = i > 0 && lines[i - 1].trim().startsWith('#');
        if (line.startsWith('[')) {
          inDeps = /^\[(workspace\.)?(dev-|build-)?dependencies\]$/.test(line);
          // A comment right above the header explains the section's lines.
          explained = commented;
        } else if (line.startsWith('#')) explained = true;
        else if (line === '') explained = false;
        else if (inDeps && !explained) bare.push(`${manifest}:${i + 1}: ${line}`);
      });
  }
  assert.deepEqual(bare, []);
});
