// Install the package the way a user on Linux x64 gets it from the registry,
// on a machine without Rust: the root package as `napi pre-publish` leaves it
// (no binary of its own, an optionalDependency on each platform package) and
// the linux-x64-gnu platform package holding the portable binary
// (scripts/release/build-portable.mjs). Both tarballs go into an empty project beside
// the pinned DSH harness with cargo and rustc absent from PATH, and there the
// engine, each DSH plugin, `toolguard audit` and `toolguard hook` run — the
// hook as the native executable from the platform package, found by the
// launcher, and as the Node hook (TOOLGUARD_NATIVE_HOOK=0).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { listHook } from '../../scripts/release/platform-hook.mjs';
import { env, npm, npmInstall, root, tracebackEvent } from '../support/install.mjs';

const binary = join(root, 'npm/linux-x64-gnu/toolguard.linux-x64-gnu.node');
const hookExe = join(root, 'npm/linux-x64-gnu/toolguard-hook');
const napi = join(root, 'node_modules/@napi-rs/cli/dist/cli.js');
const HARNESS = [
  '@deepseek-ai/cordis@4.0.4',
  '@deepseek-ai/schemastery@3.18.4',
  ...['llm', 'session', 'system-prompt', 'tools', 'agent', 'agent-loop'].map((p) => `@deepseek-ai/dsh-${p}@0.1.0-rc.8`),
];

function tarballFiles(tarball) {
  return execFileSync('tar', ['-tzf', tarball], { encoding: 'utf8' })
    .trim()
    .split('\n')
    .map((f) => f.replace(/^package\//, ''));
}

// Runs inside the project: every import resolves from its node_modules.
const ENGINE = `
import { createRequire } from 'node:module';
const require = createRequire(import.meta.url);
const warnings = [];
process.on('warning', (w) => warnings.push(w.code ?? w.name));
const toolguard = require('toolguard');
const engine = new toolguard.GuardEngine({ repeat: { thresholds: [2] } });
engine.observe({ agentId: 'a', name: 'bash', argumentsJson: '{"cmd":"make"}' });
const verdict = engine.observe({ agentId: 'a', name: 'bash', argumentsJson: '{"cmd":"make"}' }, { text: 'Traceback (most recent call last):\\n  File "x.py", line 1\\nValueError: x' });
setImmediate(() => console.log(JSON.stringify({
  native: toolguard.native,
  reminder: verdict.reminder?.count,
  failure: verdict.failure?.rules.map((r) => r.id),
  addons: process.report.getReport().sharedObjects.filter((f) => f.endsWith('.node')),
  warnings,
})));
`;

const PLUGINS = `
import { boot, textTool } from './kit.mjs';
const BOOM = { id: 'test-boom', pattern: 'BOOM', action: 'error', when: 'success', message: 'boom' };
const plugins = [
  ['toolguard/dsh/repeat-tool-reminder', { thresholds: [2] }],
  ['toolguard/dsh/loud-failure', { rules: [BOOM] }],
  ['toolguard/dsh', { loops: false, repeat: { thresholds: [2] }, loudFailure: { rules: [BOOM] } }],
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

test('no Rust on PATH: the root and linux-x64-gnu tarballs install and every entry point runs native', {
  skip: process.platform !== 'linux' || process.arch !== 'x64' ? 'the platform package built here is linux-x64-gnu' : false,
  timeout: 600_000,
}, async (t) => {
  assert.ok(existsSync(join(root, 'dist/ts/dsh/index.mjs')), 'build first: npm run build');
  for (const file of [binary, hookExe])
    assert.ok(existsSync(file), `build the portable binaries first: node scripts/release/build-portable.mjs (missing ${file})`);
  for (const tool of ['cargo', 'rustc']) {
    assert.equal(
      /** @type {NodeJS.ErrnoException | undefined} */ (spawnSync(tool, ['--version'], { env }).error)?.code,
      'ENOENT',
      `${tool} must not be on the test PATH`,
    );
  }
  const dir = mkdtempSync(join(tmpdir(), 'toolguard-install-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));

  // (`--ignore-scripts`: `prepare` builds a git checkout from source; this tree is built.)
  // The root package as published: `npm pack` of the checkout, then the real
  // `napi pre-publish` on that copy. It checks every target's binary is in
  // npm/<target>/, and only linux-x64-gnu is built here, so the copy lists
  // that one target; it writes optionalDependencies and, with
  // --skip-optional-publish, publishes nothing.
  const packed = JSON.parse(npm(['pack', '--json', '--ignore-scripts', '--pack-destination', dir], root))[0];
  const stage = join(dir, 'stage');
  mkdirSync(stage);
  execFileSync('tar', ['-xzf', join(dir, packed.filename), '-C', stage, '--strip-components=1']);
  rmSync(join(dir, packed.filename));
  const manifest = JSON.parse(readFileSync(join(stage, 'package.json'), 'utf8'));
  manifest.napi.targets = ['x86_64-unknown-linux-gnu'];
  writeFileSync(join(stage, 'package.json'), JSON.stringify(manifest, null, 2));
  cpSync(join(root, 'npm/linux-x64-gnu'), join(stage, 'npm/linux-x64-gnu'), { recursive: true });
  // As the release workflow does after `napi artifacts`: the hook goes into the platform package's files.
  assert.ok(listHook(join(stage, 'npm/linux-x64-gnu')));
  // pre-publish reads the release commit (`git log -1`).
  const git = (...args) =>
    execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.invalid', ...args], { cwd: stage, stdio: 'ignore' });
  git('init', '-q');
  git('commit', '-q', '--allow-empty', '-m', manifest.version);
  const prepublishEnv = { ...env };
  delete prepublishEnv.GITHUB_REPOSITORY;
  execFileSync(process.execPath, [napi, 'pre-publish', '-t', 'npm', '--skip-optional-publish'], {
    cwd: stage,
    env: prepublishEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // As release.yml does before publishing: the package is built, no `prepare`.
  npm(['pkg', 'delete', 'scripts.prepare'], stage);
  const published = JSON.parse(readFileSync(join(stage, 'package.json'), 'utf8'));
  assert.equal(published.scripts.prepare, undefined);
  assert.deepEqual(published.optionalDependencies, { 'toolguard-linux-x64-gnu': manifest.version });

  const rootTarball = join(dir, JSON.parse(npm(['pack', '--json', '--ignore-scripts', '--pack-destination', dir], stage))[0].filename);
  const platformTarball = join(
    dir,
    JSON.parse(npm(['pack', '--json', '--ignore-scripts', '--pack-destination', dir], join(stage, 'npm/linux-x64-gnu')))[0].filename,
  );
  const rootFiles = tarballFiles(rootTarball);
  for (const file of [
    'main.js',
    'index.js',
    'index.d.ts',
    'bin/toolguard.mjs',
    'dist/ts/dsh/index.mjs',
    'dist/ts/dsh/index.d.mts',
    'dist/ts/dsh/repeat-tool-reminder.mjs',
    'dist/ts/dsh/loud-failure.mjs',
    'dist/reference/index.mjs',
    'rules/builtin.json',
  ]) {
    assert.ok(rootFiles.includes(file), `root tarball contains ${file}`);
  }
  assert.deepEqual(
    rootFiles.filter((f) => f.endsWith('.node')),
    [],
    'the root package ships no binary: the platform packages do',
  );
  assert.ok(!rootFiles.some((f) => /^(__test__|src|npm|target)\//.test(f)), 'no tests, Rust sources or platform folders shipped');
  assert.deepEqual(tarballFiles(platformTarball).sort(), ['README.md', 'package.json', 'toolguard-hook', 'toolguard.linux-x64-gnu.node']);

  const project = join(dir, 'project');
  mkdirSync(project);
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'user-project', private: true, type: 'module' }));
  const warnings = npmInstall([rootTarball, platformTarball, ...HARNESS], project);
  assert.doesNotMatch(warnings, /install-scripts.*toolguard/, warnings);
  const installed = join(project, 'node_modules');
  assert.deepEqual(
    readdirSync(join(installed, 'toolguard')).filter((f) => f.endsWith('.node')),
    [],
  );

  const node = (args, input) => spawnSync(process.execPath, args, { cwd: project, env, input, encoding: 'utf8' });

  // The engine: the generated loader picked the platform package's binary.
  writeFileSync(join(project, 'engine.mjs'), ENGINE);
  const engineRun = node(['engine.mjs']);
  assert.equal(engineRun.status, 0, engineRun.stderr);
  const engine = JSON.parse(engineRun.stdout);
  assert.equal(engine.native, true);
  assert.deepEqual(engine.warnings, [], 'no TOOLGUARD_FALLBACK warning');
  assert.deepEqual(engine.addons, [join(installed, 'toolguard-linux-x64-gnu/toolguard.linux-x64-gnu.node')]);
  assert.equal(engine.reminder, 2);
  assert.deepEqual(engine.failure, ['python-traceback']);

  // The DSH plugins, by their public import paths, beside the pinned harness.
  copyFileSync(join(root, '__test__/dsh/kit.mjs'), join(project, 'kit.mjs'));
  writeFileSync(join(project, 'plugins.mjs'), PLUGINS);
  const pluginsRun = node(['plugins.mjs']);
  assert.equal(pluginsRun.status, 0, pluginsRun.stderr);
  const report = JSON.parse(pluginsRun.stdout);
  assert.deepEqual(report['toolguard/dsh/repeat-tool-reminder'].timeline, [false, false, 'bash × 2']);
  assert.deepEqual(report['toolguard/dsh/loud-failure'].timeline, [true, true]);
  assert.deepEqual(report['toolguard/dsh'].timeline, [true, true, 'bash × 2']);
  assert.deepEqual(
    Object.values(report).map((r) => r.name),
    ['repeat-tool-reminder', 'loud-failure', 'toolguard'],
  );
  for (const r of Object.values(report))
    assert.ok(r.resolved.startsWith(`file://${join(installed, 'toolguard/')}`), `${r.resolved} is the installed copy`);

  // `toolguard audit` on the bundled samples (zstd, decoded natively).
  const bin = join(installed, '.bin/toolguard');
  // A home without Claude Code or Codex history: no path means the bundled sample.
  const audit = spawnSync(bin, ['audit', '--json'], {
    cwd: project,
    env: { ...env, HOME: join(dir, 'home'), CLAUDE_CONFIG_DIR: '', CODEX_HOME: '' },
    encoding: 'utf8',
  });
  assert.match(audit.stderr, /^toolguard audit: no FILES given, auditing the sample sessions bundled with the package/);
  assert.equal(audit.status, 1, 'exit 1: findings');
  const { summary, sessions } = JSON.parse(audit.stdout);
  assert.deepEqual(
    sessions.map((s) => [s.sessionId, s.compressed]),
    [
      ['sample-main', true],
      ['sample-sub', true],
    ],
  );
  // The loop detectors are on by default: one finding per loop in `loops` (two), no result-blind reminders.
  assert.deepEqual([summary.files, summary.calls, summary.reminders, summary.loops, summary.failures], [2, 14, 0, 2, 3]);

  // `toolguard hook` as Claude Code runs it: a traceback behind exit 0 is blocked.
  const event = tracebackEvent(project);
  // By default the launcher hands the event to the platform package's executable.
  const installedHook = join(installed, 'toolguard-linux-x64-gnu/toolguard-hook');
  const where = spawnSync(bin, ['hook', '--native-path'], { cwd: project, env, encoding: 'utf8' });
  assert.equal(where.stdout.trim(), installedHook, where.stderr);
  const answers = [];
  /** @type {Array<[string, string, NodeJS.ProcessEnv]>} what runs the hook, the command, its environment */
  const hookRuns = [
    ['toolguard hook (native)', bin, { TOOLGUARD_NATIVE_HOOK: '' }],
    ['the executable itself', installedHook, {}],
    ['toolguard hook (Node)', bin, { TOOLGUARD_NATIVE_HOOK: '0' }],
  ];
  for (const [how, cmd, hookEnv] of hookRuns) {
    const args = cmd === bin ? ['hook'] : [];
    const hook = spawnSync(cmd, args, {
      cwd: project,
      env: { ...env, ...hookEnv, TOOLGUARD_STATE_DIR: join(dir, `hook-state-${answers.length}`) },
      input: JSON.stringify(event),
      encoding: 'utf8',
    });
    assert.equal(hook.status, 0, `${how}: ${hook.stderr}`);
    assert.equal(hook.stderr, '', `${how}: no fallback warning, no error`);
    const out = JSON.parse(hook.stdout);
    assert.equal(out.decision, 'block', how);
    assert.match(out.reason, /python-traceback \(line 1\)/, how);
    answers.push(hook.stdout);
  }
  assert.equal(new Set(answers).size, 1, 'the native and Node hooks answer alike');
  const help = spawnSync(bin, ['hook', '--help'], { cwd: project, env: { ...env, TOOLGUARD_NATIVE_HOOK: '' }, encoding: 'utf8' });
  assert.match(help.stdout, /native executable toolguard-hook/, 'the default hook is the native one');
});
