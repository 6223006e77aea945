#!/usr/bin/env node
// `npm run build:hook`: builds the native hook executable (crates/toolguard-hook)
// and copies it beside the .node addon, where `toolguard hook` looks first.
// The release workflow builds it per target with --target and --output-dir
// (Linux targets: scripts/release/build-portable.mjs builds it with zig instead).
//
//   node scripts/release/build-hook.mjs [--target TRIPLE] [--output-dir DIR]
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { targetArgs } from './target-args.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '../..');
const options = targetArgs('build-hook');
const target = options.target;
const outputDir = options.outputDir ?? root;
const windows = target ? target.includes('-windows-') : process.platform === 'win32';
const exe = windows ? 'toolguard-hook.exe' : 'toolguard-hook';
const build = spawnSync('cargo', ['build', '--release', '-p', 'toolguard-hook', ...(target ? ['--target', target] : [])], {
  cwd: root,
  stdio: 'inherit',
});
if (build.status !== 0) process.exit(build.status ?? 1);
mkdirSync(outputDir, { recursive: true });
copyFileSync(join(root, 'target', ...(target ? [target] : []), 'release', exe), join(outputDir, exe));
console.log(`build:hook: ${exe} copied to ${outputDir}`);
