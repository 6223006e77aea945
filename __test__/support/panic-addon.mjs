// The addon built with the `test-panic` cargo feature: it has the
// TOOLGUARD_TEST_PANIC hook (a panic forced at a named tool, see
// docs/security.md) that the shipped build does not. Built once (a debug
// build, incremental after the first run) into target/test-panic; load it in
// a child process with NAPI_RS_NATIVE_LIBRARY_PATH=panicAddon, or in-process
// by importing ./use-panic-addon.mjs first.
import { spawnSync } from 'node:child_process';
import { copyFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));
const targetDir = `${root}target/test-panic`;

const build = spawnSync('cargo', ['build', '--lib', '--features', 'test-panic', '--target-dir', targetDir], {
  cwd: root,
  encoding: 'utf8',
});
if (build.status !== 0) throw new Error(`cargo build --features test-panic failed:\n${build.stderr}`);

/** Path of the test-panic addon. */
export const panicAddon = `${targetDir}/toolguard.node`;
copyFileSync(`${targetDir}/debug/libtoolguard.so`, panicAddon);

/** The shipped build `npm run build` put beside index.js (its name names the platform). */
export const shippedAddon = `${root}${readdirSync(root).find((f) => f.endsWith('.node'))}`;
