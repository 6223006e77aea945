// Install the package the way a user would: `npm pack` it, install the
// tarball into a fresh project beside the pinned DSH harness, and load each
// plugin from there by its public import path.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));
const HARNESS = [
  '@deepseek-ai/cordis@4.0.4',
  '@deepseek-ai/schemastery@3.18.4',
  ...['llm', 'session', 'system-prompt', 'tools', 'agent', 'agent-loop'].map((p) => `@deepseek-ai/dsh-${p}@0.1.0-rc.8`),
];

function npm(args, cwd) {
  return execFileSync('npm', [...args, '--no-audit', '--no-fund', '--loglevel=error'], { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

// Runs inside the temporary project: every import resolves from its node_modules.
const CHECK = `
import { boot, textTool } from './kit.mjs';
const BOOM = { id: 'test-boom', pattern: 'BOOM', action: 'error', when: 'success', message: 'boom' };
const plugins = [
  ['toolguard/dsh/repeat-tool-reminder', { thresholds: [2] }],
  ['toolguard/dsh/loud-failure', { rules: [BOOM] }],
  ['toolguard/dsh', { repeat: { thresholds: [2] }, loudFailure: { rules: [BOOM] }, loops: false }],
];
const report = {};
for (const [specifier, config] of plugins) {
  const module = await import(specifier);
  const h = await boot();
  h.tool(textTool('bash', (args) => args.out));
  await h.plugin(module, config);
  const a = h.agent('s1');
  await h.turn(a, [[{ name: 'bash', args: { out: 'BOOM' } }], [{ name: 'bash', args: { out: 'BOOM' } }]]);
  report[specifier] = {
    name: module.name,
    resolved: import.meta.resolve(specifier),
    timeline: h.timeline(a).map((e) => (e.kind === 'result' ? e.isError : e.summary)),
  };
  await h.dispose();
}
console.log(JSON.stringify(report));
`;

test('npm pack → install beside the pinned harness → each plugin loads and works', { timeout: 600_000 }, async (t) => {
  assert.ok(existsSync(join(root, 'index.js')) && existsSync(join(root, 'dist/ts/dsh/index.mjs')), 'build first: npm run build');
  const dir = mkdtempSync(join(tmpdir(), 'toolguard-pack-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));

  const packed = JSON.parse(npm(['pack', '--json', '--pack-destination', dir], root));
  const tarball = join(dir, packed[0].filename);
  const files = packed[0].files.map((f) => f.path);
  for (const file of ['index.js', 'index.d.ts', 'dist/ts/dsh/index.mjs', 'dist/ts/dsh/index.d.mts',
    'dist/ts/dsh/repeat-tool-reminder.mjs', 'dist/ts/dsh/loud-failure.mjs', 'rules/builtin.json']) {
    assert.ok(files.includes(file), `tarball contains ${file}`);
  }
  assert.ok(files.some((f) => f.endsWith('.node')), 'tarball contains the native addon');
  assert.ok(!files.some((f) => f.startsWith('__test__/') || f.startsWith('src/')), 'no tests or Rust sources shipped');

  const project = join(dir, 'project');
  execFileSync('mkdir', [project]);
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'user-project', private: true, type: 'module' }));
  // Offline first (the npm cache already holds the pinned harness after
  // `npm ci`); a machine without it falls back to the registry.
  const install = ['install', tarball, ...HARNESS];
  try {
    npm([...install, '--offline'], project);
  } catch {
    npm([...install, '--prefer-offline'], project);
  }
  assert.ok(readdirSync(join(project, 'node_modules/toolguard')).some((f) => f.endsWith('.node')));

  copyFileSync(fileURLToPath(new URL('./kit.mjs', import.meta.url)), join(project, 'kit.mjs'));
  writeFileSync(join(project, 'check.mjs'), CHECK);
  const report = JSON.parse(execFileSync(process.execPath, ['check.mjs'], { cwd: project, encoding: 'utf8' }));

  const installed = `file://${join(project, 'node_modules/toolguard/')}`;
  assert.deepEqual(report['toolguard/dsh/repeat-tool-reminder'].timeline, [false, false, 'bash × 2']);
  assert.deepEqual(report['toolguard/dsh/loud-failure'].timeline, [true, true]);
  assert.deepEqual(report['toolguard/dsh'].timeline, [true, true, 'bash × 2']);
  assert.deepEqual(Object.values(report).map((r) => r.name), ['repeat-tool-reminder', 'loud-failure', 'toolguard']);
  for (const r of Object.values(report)) assert.ok(r.resolved.startsWith(installed), `${r.resolved} is the installed copy`);
});
