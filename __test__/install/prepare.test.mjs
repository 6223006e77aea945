// `prepare` builds only what is missing: nothing when dist/
// is built and a prebuilt binary loads, the TypeScript layer alone when only
// dist/ is missing, the native build only where no binary loads (and then a
// clear error without cargo). Run on a stand-in package whose build scripts
// only record that they ran.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { env, root } from '../support/install.mjs';

function standIn({ dist, loads }) {
  const dir = mkdtempSync(join(tmpdir(), 'toolguard-prepare-'));
  mkdirSync(join(dir, 'scripts/release'), { recursive: true });
  copyFileSync(join(root, 'scripts/release/prepare.mjs'), join(dir, 'scripts/release/prepare.mjs'));
  const record = (what) => `node -e "require('fs').appendFileSync('ran', '${what}\\\\n')"`;
  writeFileSync(
    join(dir, 'package.json'),
    JSON.stringify({ name: 'stand-in', private: true, scripts: { build: record('build'), 'build:ts': record('build:ts') } }),
  );
  writeFileSync(join(dir, 'index.js'), loads ? 'module.exports = {};\n' : "throw new Error('no native binary for this platform');\n");
  if (dist) {
    for (const file of ['dist/ts/cli/main.mjs', 'dist/reference/index.mjs']) {
      mkdirSync(join(dir, file, '..'), { recursive: true });
      writeFileSync(join(dir, file), '');
    }
  }
  return dir;
}

function prepare(dir) {
  const run = spawnSync(process.execPath, [join(dir, 'scripts/release/prepare.mjs')], { cwd: dir, env, encoding: 'utf8' });
  const ran = existsSync(join(dir, 'ran')) ? readFileSync(join(dir, 'ran'), 'utf8').trim().split('\n') : [];
  rmSync(dir, { recursive: true, force: true });
  return { code: run.status, stderr: run.stderr, ran };
}

test('prepare builds only what no prebuilt part provides', () => {
  assert.deepEqual(prepare(standIn({ dist: true, loads: true })), { code: 0, stderr: '', ran: [] });
  const tsOnly = prepare(standIn({ dist: false, loads: true }));
  assert.deepEqual([tsOnly.code, tsOnly.ran], [0, ['build:ts']], tsOnly.stderr);
  // No binary loads and no cargo on PATH (the install tests' environment): a clear error, no build.
  const noRust = prepare(standIn({ dist: true, loads: false }));
  assert.deepEqual([noRust.code, noRust.ran], [1, []]);
  assert.match(noRust.stderr, /needs a Rust toolchain \(cargo\)/);
});
