#!/usr/bin/env node
// Put the native hook executable (toolguard-hook, toolguard-hook.exe on
// Windows) into the platform packages, beside the .node: `napi
// create-npm-dirs` lists only the .node in each npm/<target>/package.json
// `files`, and `napi artifacts` moves only .node files. Run after both:
//
//   node scripts/release/platform-hook.mjs [--npm-dir npm] [--artifacts DIR]
//
// --artifacts: the release workflow's downloaded artifacts, one folder per
// target named `bindings-<triple>` holding that target's hook; each is
// copied into npm/<target>/. Then every npm/<target>/ that holds the hook
// gets it in its `files` and mode 0755 (artifact uploads drop the executable
// bit). A target whose hook is missing is an error when --artifacts is given.
import { chmodSync, copyFileSync, existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseTriple } from '@napi-rs/cli';

export const HOOK = 'toolguard-hook';

/** The hook's file name for a target triple. */
export function hookFile(triple) {
  return parseTriple(triple).platform === 'win32' ? `${HOOK}.exe` : HOOK;
}

/** List the hook in npm/<platform>/package.json `files` and make it executable; false when the folder has none. */
export function listHook(platformDir) {
  const file = [HOOK, `${HOOK}.exe`].find((f) => existsSync(join(platformDir, f)));
  if (!file) return false;
  chmodSync(join(platformDir, file), 0o755);
  const manifestPath = join(platformDir, 'package.json');
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8'));
  manifest.files ??= [];
  if (!manifest.files.includes(file)) manifest.files.push(file);
  writeFileSync(manifestPath, `${JSON.stringify(manifest, null, 2)}\n`);
  return true;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  let npmDir = resolve('npm');
  let artifacts;
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--npm-dir' && args[i + 1]) npmDir = resolve(args[++i]);
    else if (args[i] === '--artifacts' && args[i + 1]) artifacts = resolve(args[++i]);
    else {
      console.error(
        `platform-hook: unknown argument ${args[i]}\nusage: node scripts/release/platform-hook.mjs [--npm-dir npm] [--artifacts DIR]`,
      );
      process.exit(2);
    }
  }
  for (const [what, dir] of [
    ['--npm-dir', npmDir],
    ['--artifacts', artifacts],
  ]) {
    if (dir !== undefined && !existsSync(dir)) {
      console.error(`platform-hook: ${what} ${dir} does not exist`);
      process.exit(2);
    }
  }
  let missing = 0;
  if (artifacts) {
    for (const folder of readdirSync(artifacts).filter((f) => f.startsWith('bindings-'))) {
      const triple = folder.slice('bindings-'.length);
      const file = hookFile(triple);
      const from = join(artifacts, folder, file);
      const to = join(npmDir, parseTriple(triple).platformArchABI);
      if (!existsSync(from) || !existsSync(to)) {
        console.error(`platform-hook: ${existsSync(from) ? `no package folder ${to}` : `no ${file} in ${join(artifacts, folder)}`}`);
        missing += 1;
        continue;
      }
      copyFileSync(from, join(to, file));
    }
  }
  for (const platform of readdirSync(npmDir).sort()) {
    const listed = listHook(join(npmDir, platform));
    console.error(`platform-hook: npm/${platform}: ${listed ? 'toolguard-hook listed' : 'no hook executable'}`);
  }
  process.exit(missing ? 1 : 0);
}
