#!/usr/bin/env node
// Launcher: the CLI is TypeScript compiled to dist/ts/cli (npm run build:ts).
// `toolguard hook` runs once per agent tool call, so it skips the main CLI's
// imports, and hands the event to the native hook executable when there is
// one (crates/toolguard-hook: same behaviour and state files, no addon load;
// TOOLGUARD_NATIVE_HOOK=0 keeps the Node hook).
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

if (!existsSync(new URL('../dist/ts/cli/main.mjs', import.meta.url))) {
  // A git checkout (or an install from git) before `npm run build`.
  process.stderr.write(
    'toolguard: this copy is not built (dist/ is missing): run `npm run build` in the package folder (it needs a Rust toolchain), or install the package from the npm registry\n',
  );
  process.exit(2);
}

/**
 * The native hook (crates/toolguard-hook: the same answers and state files,
 * no Node start-up), used by default. `$TOOLGUARD_NATIVE_HOOK`: `0` forces
 * the Node hook; a path names another executable; unset, empty or `1`: the
 * one in this install, found as `toolguard-hook` beside the .node addon in
 * this package, else in the platform package
 * (`toolguard-<platform>-<arch>[-<abi>]`). None found: the Node hook.
 */
function nativeHook() {
  const chosen = process.env.TOOLGUARD_NATIVE_HOOK;
  if (chosen === '0') return undefined;
  return !chosen || chosen === '1' ? findNativeHook() : chosen;
}

/** Where the native hook executable is in this install, if anywhere. */
function findNativeHook() {
  const exe = process.platform === 'win32' ? 'toolguard-hook.exe' : 'toolguard-hook';
  const beside = fileURLToPath(new URL(`../${exe}`, import.meta.url));
  if (existsSync(beside)) return beside;
  const abis = process.platform === 'linux' ? ['-gnu', '-musl'] : process.platform === 'win32' ? ['-msvc'] : [''];
  const require = createRequire(import.meta.url);
  for (const abi of abis) {
    try {
      const pkg = require.resolve(`toolguard-${process.platform}-${process.arch}${abi}/package.json`);
      const path = join(dirname(pkg), exe);
      if (existsSync(path)) return path;
    } catch {
      // not installed for this platform
    }
  }
  return undefined;
}

if (process.argv[2] === 'hook' && process.argv[3] === '--native-path') {
  // For settings.json: the path to register instead of `toolguard hook`.
  const native = findNativeHook();
  if (native) process.stdout.write(`${native}\n`);
  else process.stderr.write('toolguard: no native hook executable for this platform; register `toolguard hook`\n');
  process.exitCode = native ? 0 : 1;
} else if (process.argv[2] === 'hook') {
  const native = nativeHook();
  const ran = native && spawnSync(native, process.argv.slice(3), { stdio: 'inherit' });
  if (ran && !ran.error) {
    process.exitCode = ran.status ?? 1;
  } else {
    // No native hook (or it could not start, so stdin is still unread): the Node hook.
    const { runHook } = await import('../dist/ts/adapters/hooks.mjs');
    // exit(), not exitCode: past its deadline the hook must not wait for a stdin that never closes.
    process.exit(await runHook(process.argv.slice(3), 0, 1, 2));
  }
} else {
  // `toolguard rules | head -1`: the reader went away; what is left to print is not wanted.
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (error) => {
      if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
      throw error;
    });
  }
  const argv = process.argv.slice(2);
  if (asksForHelp(argv)) quietFallbackWarning();
  const { main } = await import('../dist/ts/cli/main.mjs');
  process.exitCode = await main(argv);
}

/** Help, usage or the version: the CLI prints text and runs no engine. */
function asksForHelp(argv) {
  return argv.length === 0 || ['-h', '--help', 'help', '-v', '--version'].some((flag) => argv.includes(flag));
}

/**
 * Help needs no engine, so the entry's one TOOLGUARD_FALLBACK warning (no
 * native binary here) would only be noise: every other warning still prints.
 */
function quietFallbackWarning() {
  const printers = process.listeners('warning');
  process.removeAllListeners('warning');
  process.on('warning', (/** @type {Error & { code?: string }} */ warning) => {
    if (warning.code !== 'TOOLGUARD_FALLBACK') for (const print of printers) print(warning);
  });
}
