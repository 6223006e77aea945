#!/usr/bin/env node
// `npm run build:hook`: builds the native hook executable (crates/toolguard-hook)
// and copies it beside the .node addon, where `toolguard hook` looks first.
import { spawnSync } from 'node:child_process';
import { copyFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const exe = process.platform === 'win32' ? 'toolguard-hook.exe' : 'toolguard-hook';
const build = spawnSync('cargo', ['build', '--release', '-p', 'toolguard-hook'], { cwd: root, stdio: 'inherit' });
if (build.status !== 0) process.exit(build.status ?? 1);
copyFileSync(join(root, 'target/release', exe), join(root, exe));
console.log(`build:hook: ${exe} copied to the package root`);
