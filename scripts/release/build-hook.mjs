#!/usr/bin/env node
// `npm run build:hook`: builds the native hook executable (crates/toolguard-hook)
// and copies it beside the .node addon, where `toolguard hook` looks first.
// The release workflow builds it per target with --target and --output-dir
// (Linux targets: scripts/release/build-portable.mjs builds it with zig instead).
//
//   node scripts/release/build-hook.mjs [--target TRIPLE] [--output-dir DIR]
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '../..');
const args = process.argv.slice(2);
let target;
let outputDir = root;
for (let i = 0; i < args.length; i++) {
  if (args[i] === '--target' && args[i + 1]) target = args[++i];
  else if (args[i] === '--output-dir' && args[i + 1]) outputDir = resolve(args[++i]);
  else {
    console.error(
      `build-hook: unknown argument ${args[i]}\nusage: node scripts/release/build-hook.mjs [--target TRIPLE] [--output-dir DIR]`,
    );
    process.exit(2);
  }
}
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
