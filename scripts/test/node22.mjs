#!/usr/bin/env node
// Node 22 for the second test pass, on any platform the npm registry has a
// Node 22 binary package for (node-<os>-<arch>: linux x64/arm64, darwin x64,
// win x64). Found, in order: $TOOLGUARD_NODE22 (a path to a node 22 binary);
// the machine's own node when it is 22; a copy installed earlier under
// node_modules/.cache/toolguard-node22; otherwise installed there now with
// npm (not a devDependency: one pinned to linux/x64 fails `npm ci` elsewhere).
// Where none can be had, says why and the caller skips the pass.
//
// As a command, runs node 22 with the given arguments, e.g.
//   node scripts/test/node22.mjs --test __test__/dsh/
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '../..');
const cache = join(root, 'node_modules', '.cache', 'toolguard-node22');

const versionOf = (bin) => {
  const run = spawnSync(bin, ['--version'], { encoding: 'utf8' });
  return run.status === 0 ? run.stdout.trim() : undefined;
};
const is22 = (bin) => /^v22\./.test(versionOf(bin) ?? '');

/** The npm package holding this platform's Node binary, and the binary's path inside it. */
function platformPackage() {
  const os = { linux: 'linux', darwin: 'darwin', win32: 'win' }[process.platform];
  if (!os || !['x64', 'arm64'].includes(process.arch)) return undefined;
  const name = `node-${os}-${process.arch}`;
  return { name, bin: join(cache, 'node_modules', name, 'bin', os === 'win' ? 'node.exe' : 'node') };
}

/** `{ bin, version }` of a Node 22, or `{ missing: why }`. Installs it (npm registry) when needed. */
export function findNode22({ install = true, log = (line) => console.error(line) } = {}) {
  const given = process.env.TOOLGUARD_NODE22;
  if (given)
    return is22(given) ? { bin: given, version: versionOf(given) } : { missing: `TOOLGUARD_NODE22=${given} is not a Node 22 binary` };
  if (is22(process.execPath)) return { bin: process.execPath, version: process.version };
  const pkg = platformPackage();
  if (!pkg)
    return {
      missing: `no Node 22 package on the npm registry for ${process.platform}-${process.arch}; set TOOLGUARD_NODE22 to a node 22 binary`,
    };
  if (existsSync(pkg.bin) && is22(pkg.bin)) return { bin: pkg.bin, version: versionOf(pkg.bin) };
  if (!install) return { missing: `${pkg.name} is not installed under ${cache}` };
  log(`node22: installing ${pkg.name}@22 from the npm registry into ${cache}`);
  mkdirSync(cache, { recursive: true });
  const npm = spawnSync(
    process.platform === 'win32' ? 'npm.cmd' : 'npm',
    ['install', '--no-save', '--no-package-lock', '--no-audit', '--no-fund', '--prefix', cache, `${pkg.name}@22`],
    {
      encoding: 'utf8',
      shell: process.platform === 'win32',
    },
  );
  if (npm.status !== 0 || !existsSync(pkg.bin) || !is22(pkg.bin)) {
    const reason = (npm.stderr || npm.error?.message || '').trim().split('\n').slice(-2).join(' ');
    return {
      missing: `could not install ${pkg.name}@22 (${reason || 'no Node 22 binary in it'}); set TOOLGUARD_NODE22 to a node 22 binary`,
    };
  }
  return { bin: pkg.bin, version: versionOf(pkg.bin) };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const found = findNode22();
  if (!found.bin) {
    console.error(`node22: ${found.missing}`);
    process.exit(2);
  }
  const run = spawnSync(found.bin, process.argv.slice(2), { stdio: 'inherit' });
  if (run.error) {
    console.error(`node22: cannot run ${found.bin}: ${run.error.message}`);
    process.exit(2);
  }
  process.exit(run.status ?? 1);
}
