// The linux-x64-gnu binaries that ship (scripts/release/build-portable.mjs: the .node
// and the native hook executable) require no glibc symbol version above the
// 2.17 baseline, so it loads on every glibc
// Linux napi-rs packages support; and the check does catch a binary linked
// against this machine's newer glibc (the plain `npm run build` output).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { GLIBC_BASELINE, compareVersions, glibcVersionsNeeded } from '../../scripts/release/glibc-check.mjs';

const root = fileURLToPath(new URL('../../', import.meta.url));
const portable = join(root, 'npm/linux-x64-gnu/toolguard.linux-x64-gnu.node');
const portableHook = join(root, 'npm/linux-x64-gnu/toolguard-hook');
const hostBuild = join(root, 'toolguard.linux-x64-gnu.node');
const linuxX64 = process.platform === 'linux' && process.arch === 'x64';
// getReport() is typed as a bare object; its header is documented (Node's diagnostic report).
const hostGlibc = /** @type {{ header: { glibcVersionRuntime?: string } }} */ (process.report.getReport()).header.glibcVersionRuntime;

test('versions compare numerically', () => {
  assert.deepEqual(['2.34', '2.3.4', '2.17', '2.2.5', '2.14'].sort(compareVersions), ['2.2.5', '2.3.4', '2.14', '2.17', '2.34']);
  assert.equal(compareVersions('2.17', '2.17.0'), 0);
});

for (const [what, file] of [
  ['binary', portable],
  ['hook executable', portableHook],
]) {
  test(`the portable linux-x64-gnu ${what} needs at most GLIBC_${GLIBC_BASELINE}`, { skip: !linuxX64 && 'built on Linux x64 only' }, () => {
    assert.ok(existsSync(file), `build it first: node scripts/release/build-portable.mjs (missing ${file})`);
    const versions = glibcVersionsNeeded(file);
    assert.ok(versions.length > 0, 'a glibc-linked binary requires some GLIBC_ version');
    const over = versions.filter((v) => compareVersions(v, GLIBC_BASELINE) > 0);
    assert.deepEqual(over, [], `GLIBC_ versions above the baseline: ${over.join(', ')}`);
  });
}

test('the check flags the host-linked build (npm run build) on a glibc >= 2.34 machine', {
  skip: !linuxX64
    ? 'built on Linux x64 only'
    : !hostGlibc || compareVersions(hostGlibc, '2.34') < 0
      ? `host glibc ${hostGlibc ?? 'none'}: a host build may legitimately stay under the baseline`
      : false,
}, () => {
  // glibc 2.34 gave the pthread and dl functions std uses new symbol versions,
  // so a build linked here cannot stay at the baseline.
  assert.ok(existsSync(hostBuild), 'build first: npm run build');
  const versions = glibcVersionsNeeded(hostBuild);
  assert.ok(compareVersions(versions.at(-1), GLIBC_BASELINE) > 0, `host build tops out at GLIBC_${versions.at(-1)}`);
});
