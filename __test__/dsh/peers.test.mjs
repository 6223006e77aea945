// The DSH plugins' optional peers: a project without one gets an error naming
// it and the install line (not Node's bare ERR_MODULE_NOT_FOUND), and that
// line — shown in docs/dsh.md — pins what package.json's devDependencies pin.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));
const { DSH_INSTALL, DSH_PEERS } = await import('../../dist/ts/dsh/peers.mjs');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));

test('the DSH install line pins the versions package.json tests with, and docs/dsh.md shows it', () => {
  const specs = DSH_INSTALL.replace(/^npm install /, '').split(' ');
  for (const spec of specs) {
    const at = spec.lastIndexOf('@');
    const [name, version] = [spec.slice(0, at), spec.slice(at + 1)];
    assert.equal(version, pkg.devDependencies[name], `${name} is pinned as in devDependencies`);
  }
  for (const peer of DSH_PEERS)
    assert.ok(
      specs.some((s) => s.startsWith(`${peer}@`)),
      `${peer} is in the line`,
    );
  assert.ok(readFileSync(join(root, 'docs/dsh.md'), 'utf8').includes(DSH_INSTALL), 'docs/dsh.md shows the install line');
});

test('importing toolguard/dsh without a DSH peer names the missing package and the install line', (t) => {
  // A project whose node_modules holds toolguard (this checkout's files, linked
  // one by one so its own node_modules stays out of reach) and some of the peers.
  const dir = mkdtempSync(join(tmpdir(), 'toolguard-dsh-peers-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const installed = join(dir, 'node_modules/toolguard');
  mkdirSync(installed, { recursive: true });
  for (const entry of readdirSync(root))
    if (['package.json', 'main.js', 'root-cause.js', 'index.js', 'dist', 'rules'].includes(entry) || entry.endsWith('.node'))
      symlinkSync(join(root, entry), join(installed, entry));
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'user-project', private: true, type: 'module' }));
  mkdirSync(join(dir, 'node_modules/@deepseek-ai'));

  const probe = `
    try { await import('toolguard/dsh'); console.log(JSON.stringify({ loaded: true })); }
    catch (e) { console.log(JSON.stringify({ code: e.code, package: e.package, message: e.message })); }`;
  const load = () => {
    const r = spawnSync(process.execPath, ['--preserve-symlinks', '--input-type=module', '-e', probe], { cwd: dir, encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    return JSON.parse(r.stdout);
  };
  // Each peer in turn is the first one missing.
  for (const peer of DSH_PEERS) {
    const error = load();
    assert.equal(error.code, 'TOOLGUARD_DSH_PEER_MISSING', error.message);
    assert.equal(error.package, peer);
    assert.equal(
      error.message,
      `toolguard/dsh: the DSH plugins need the package ${peer}, an optional peer dependency of toolguard that is not installed.\n` +
        `Install the DSH packages beside toolguard: ${DSH_INSTALL}`,
    );
    symlinkSync(join(root, 'node_modules', peer), join(dir, 'node_modules', peer));
  }
  // With all of this checkout's packages beside it (the peers' own dependencies too), it loads.
  rmSync(join(dir, 'node_modules/@deepseek-ai'), { recursive: true });
  for (const entry of readdirSync(join(root, 'node_modules')))
    if (!entry.startsWith('.')) symlinkSync(join(root, 'node_modules', entry), join(dir, 'node_modules', entry));
  assert.deepEqual(load(), { loaded: true });
});
