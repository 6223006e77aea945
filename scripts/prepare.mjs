#!/usr/bin/env node
// npm's `prepare` (after `npm install`/`npm ci` in a checkout, after an install
// from git, before `npm pack`). A published tarball carries dist/ and the
// native addon; a git checkout has neither, so build what is missing — or say
// clearly why it cannot be built, instead of leaving a package that fails
// later with "Cannot find module './dist/reference/index.mjs'".
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const built = existsSync(join(root, 'dist/ts/cli/main.mjs')) && existsSync(join(root, 'dist/reference/index.mjs'));
const addon = readdirSync(root).some((name) => /^toolguard\..+\.node$/.test(name));
if (built && addon) process.exit(0);

const cargo = spawnSync('cargo', ['--version'], { encoding: 'utf8' });
if (cargo.status !== 0) {
  console.error(
    'toolguard: this is a source checkout (from git): its native addon is built from source and needs a Rust toolchain (cargo),\n' +
      'which was not found. Install Rust (rustup), then install again; or install the published package instead.',
  );
  process.exit(1);
}
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const build = spawnSync(npm, ['run', 'build'], { cwd: root, stdio: 'inherit', shell: process.platform === 'win32' });
if (build.status !== 0) {
  console.error('toolguard: building from source failed (npm run build): see the output above');
  process.exit(build.status ?? 1);
}
