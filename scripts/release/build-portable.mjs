#!/usr/bin/env node
// A Linux binary as it ships, built with zig (cargo-zigbuild, through
// `napi build -x`): glibc targets are linked against glibc 2.17, so they load
// on any glibc Linux from 2.17 on, not only on the build machine's glibc;
// musl targets are linked the way napi-rs links them. The release workflow
// runs this same script for every Linux target. zig and cargo-zigbuild come
// from PyPI (scripts/test/py-tools.mjs) when missing.
//
//   node scripts/release/build-portable.mjs [--target TRIPLE] [--output-dir DIR]
//
// Default: x86_64-unknown-linux-gnu into npm/linux-x64-gnu/ (what the install
// test packs). It builds the native hook executable (toolguard-hook) the same
// way, into the same folder: it ships in the platform package beside the .node
// (scripts/release/platform-hook.mjs lists it in that package's files). It builds in its own target/zig/: `napi build` always passes
// --target, so `npm run build` also builds in target/x86_64-unknown-linux-gnu/,
// and with zig as linker in the same folder the two builds would start over
// each time they alternate.
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseTriple } from '@napi-rs/cli';
import { pyTools } from '../test/py-tools.mjs';
import { GLIBC_BASELINE } from './glibc-check.mjs';
import { targetArgs } from './target-args.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '../..');
const BINARY_NAME = 'toolguard';
const HOOK = 'toolguard-hook';

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const options = targetArgs('build-portable');
  const target = options.target ?? 'x86_64-unknown-linux-gnu';
  let outputDir = options.outputDir;
  const triple = parseTriple(target);
  if (triple.platform !== 'linux' || !/^(gnu|musl)$/.test(triple.abi ?? '')) {
    console.error(`build-portable: ${target} is not a linux gnu or musl target`);
    process.exit(2);
  }
  const file = `${BINARY_NAME}.${triple.platformArchABI}.node`;
  outputDir ??= join(root, 'npm', triple.platformArchABI);

  const env = pyTools(['zig', 'cargo-zigbuild']);
  // napi writes its generated loader and typings beside the binary; keep them
  // out of the tree (the committed ones come from `npm run build`).
  const staging = join(root, '.tmp/portable', triple.platformArchABI);
  mkdirSync(staging, { recursive: true });
  // `-x` runs cargo-zigbuild, which reads a `.2.17` suffix as the glibc to link against.
  const zigTarget = triple.abi === 'gnu' ? `${target}.${GLIBC_BASELINE}` : target;
  const argv = [
    'build',
    '--platform',
    '--release',
    '--target',
    zigTarget,
    '-x',
    '--target-dir',
    join(root, 'target/zig'),
    '--output-dir',
    staging,
  ];
  console.error(`$ napi ${argv.join(' ')}`);
  const napi = join(root, 'node_modules/@napi-rs/cli/dist/cli.js');
  const run = spawnSync(process.execPath, [napi, ...argv], { cwd: root, env, stdio: 'inherit' });
  if (run.status !== 0) {
    console.error(`build-portable: napi build exited with ${run.status ?? run.signal}`);
    process.exit(1);
  }
  mkdirSync(outputDir, { recursive: true });
  copyFileSync(join(staging, file), join(outputDir, file));
  console.error(`build-portable: wrote ${join(outputDir, file)}`);

  // The hook: the same zig target and target folder, so the two share their dependencies' builds.
  const hookArgv = ['zigbuild', '--release', '-p', 'toolguard-hook', '--target', zigTarget, '--target-dir', join(root, 'target/zig')];
  console.error(`$ cargo ${hookArgv.join(' ')}`);
  const hook = spawnSync('cargo', hookArgv, { cwd: root, env, stdio: 'inherit' });
  if (hook.status !== 0) {
    console.error(`build-portable: cargo zigbuild of toolguard-hook exited with ${hook.status ?? hook.signal}`);
    process.exit(1);
  }
  copyFileSync(join(root, 'target/zig', target, 'release', HOOK), join(outputDir, HOOK));
  console.error(`build-portable: wrote ${join(outputDir, HOOK)}`);
}
