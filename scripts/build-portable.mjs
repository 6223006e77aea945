#!/usr/bin/env node
// The linux-x64-gnu binary as it ships: linked against glibc 2.17 with zig
// (cargo-zigbuild), so it loads on any glibc Linux from 2.17 on, not only on
// the build machine's glibc. The release workflow builds it the same way.
// zig and cargo-zigbuild come from PyPI (scripts/py-tools.mjs) when missing.
//
//   node scripts/build-portable.mjs    → npm/linux-x64-gnu/toolguard.linux-x64-gnu.node
//
// Cargo keeps this build apart (target/x86_64-unknown-linux-gnu/) from
// `npm run build` (target/release/), so each is incremental on its own.
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { pyTools } from './py-tools.mjs';
import { GLIBC_BASELINE } from './glibc-check.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const TARGET = 'x86_64-unknown-linux-gnu';
const FILE = 'toolguard.linux-x64-gnu.node';
// napi writes its generated loader and typings beside the binary; keep them
// out of the tree (the committed ones come from `npm run build`).
const staging = join(root, '.tmp/portable');
export const PORTABLE_BINARY = join(root, 'npm/linux-x64-gnu', FILE);

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (process.platform !== 'linux' || process.arch !== 'x64') {
    console.error(`build-portable: builds ${TARGET} on a Linux x64 host only (this is ${process.platform}-${process.arch})`);
    process.exit(2);
  }
  const env = pyTools(['zig', 'cargo-zigbuild']);
  mkdirSync(staging, { recursive: true });
  // `-x` runs cargo-zigbuild, which reads the `.2.17` suffix as the glibc to link against.
  const argv = ['build', '--platform', '--release', '--target', `${TARGET}.${GLIBC_BASELINE}`, '-x', '--output-dir', staging];
  console.error(`$ napi ${argv.join(' ')}`);
  const napi = join(root, 'node_modules/@napi-rs/cli/dist/cli.js');
  const run = spawnSync(process.execPath, [napi, ...argv], { cwd: root, env, stdio: 'inherit' });
  if (run.status !== 0) {
    console.error(`build-portable: napi build exited with ${run.status ?? run.signal}`);
    process.exit(1);
  }
  mkdirSync(dirname(PORTABLE_BINARY), { recursive: true });
  copyFileSync(join(staging, FILE), PORTABLE_BINARY);
  console.error(`build-portable: wrote ${PORTABLE_BINARY}`);
}
