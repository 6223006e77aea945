#!/usr/bin/env node
// npm's `prepare` (after `npm install`/`npm ci` in a checkout, after an install
// from git). A git checkout has no dist/ and maybe no native addon: build what
// is missing — the TypeScript layer when dist/ is absent, the native addon and
// hook only where no prebuilt binary loads (one beside index.js, or an
// installed platform package) — or say clearly why it cannot be built,
// instead of leaving a package that fails later with "Cannot find module
// './dist/reference/index.mjs'". Packed tarballs carry no `prepare` (they are
// built): scripts/release/pack-local.mjs and the release workflow drop it.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '../..');
const built = existsSync(join(root, 'dist/ts/cli/main.mjs')) && existsSync(join(root, 'dist/reference/index.mjs'));

/** Whether the generated loader finds a native binary for this machine. */
function prebuiltLoads() {
  try {
    createRequire(import.meta.url)(join(root, 'index.js'));
    return true;
  } catch {
    return false;
  }
}

const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
function run(script) {
  const build = spawnSync(npm, ['run', script], { cwd: root, stdio: 'inherit', shell: process.platform === 'win32' });
  if (build.status !== 0) {
    console.error(`toolguard: building from source failed (npm run ${script}): see the output above`);
    process.exit(build.status ?? 1);
  }
}

const loads = prebuiltLoads();
if (built && loads) process.exit(0);
if (loads) {
  run('build:ts'); // the binary is there: only the TypeScript layer is missing
  process.exit(0);
}

const cargo = spawnSync('cargo', ['--version'], { encoding: 'utf8' });
if (cargo.status !== 0) {
  console.error(
    'toolguard: this is a source checkout (from git): its native addon is built from source and needs a Rust toolchain (cargo),\n' +
      'which was not found. Install Rust (rustup), then install again; or install the published package instead.',
  );
  process.exit(1);
}
// Said before the build starts, so a quiet `npm ci` is not mistaken for a hang;
// the README's quick start counts on this build (no second `npm run build`).
console.error(
  'toolguard: building from source once (the native addon, the hook executable, dist/): several minutes on 2 cores (README "Quick start")',
);
run('build');
