// The release machinery stays in step with package.json: the workflows lint
// clean with actionlint (and shellcheck on their `run:` scripts, both pinned
// from PyPI by scripts/test/py-tools.mjs), release.yml builds and tests exactly the
// `napi.targets`, and npm/<target>/ is what `napi create-npm-dirs` makes;
// the native hook goes into each platform package (platform-hook.mjs).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { pyTools } from '../scripts/test/py-tools.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const targets = [...pkg.napi.targets].sort();
const workflows = join(root, '.github/workflows');

// pyflakes off: no Python in the workflows, and its presence varies by machine.
function actionlint(args, input) {
  const env = pyTools(['actionlint', 'shellcheck']);
  return spawnSync('actionlint', ['-no-color', '-oneline', '-pyflakes=', ...args], { cwd: root, env, input, encoding: 'utf8' });
}

test('actionlint: every workflow lints clean', { timeout: 300_000 }, () => {
  const files = readdirSync(workflows)
    .filter((f) => /\.ya?ml$/.test(f))
    .map((f) => join(workflows, f));
  assert.deepEqual(files.map((f) => f.slice(workflows.length + 1)).sort(), ['ci.yml', 'release.yml']);
  const run = actionlint(files);
  assert.equal(run.error, undefined);
  assert.equal(`${run.stdout}${run.stderr}`, '');
  assert.equal(run.status, 0);
});

test('actionlint: a broken workflow fails, shellcheck included', { timeout: 300_000 }, () => {
  const bad = [
    "'on': push",
    'jobs:',
    '  a:',
    '    runs-on: ubuntu-latest',
    '    needs: [missing-job]',
    '    steps:',
    '      - run: rm -rf $DIR/build',
    '',
  ].join('\n');
  const run = actionlint(['-stdin-filename', 'bad.yml', '-'], bad);
  assert.equal(run.status, 1, run.stderr);
  assert.match(run.stdout, /bad\.yml:\d+:\d+: job "a" needs job "missing-job" which does not exist/);
  assert.match(run.stdout, /bad\.yml:7:.*SC2086/);
});

const release = parse(readFileSync(join(workflows, 'release.yml'), 'utf8'));

test('release.yml builds every napi target, and only those', () => {
  const built = release.jobs.build.strategy.matrix.settings.map((s) => s.target).sort();
  assert.deepEqual(built, targets);
  for (const s of release.jobs.build.strategy.matrix.settings) {
    assert.ok(s.build.includes(`--target ${s.target}`), `${s.target}: the build command names its target (${s.build})`);
  }
});

test('release.yml tests every target before publishing with provenance', () => {
  const tested = [
    ...release.jobs['test-macos-windows'].strategy.matrix.settings.map((s) => s.target),
    ...release.jobs['test-linux'].strategy.matrix.target,
  ].sort();
  assert.deepEqual(tested, targets);
  assert.deepEqual(release.jobs.publish.needs.sort(), ['test-linux', 'test-macos-windows']);
  assert.equal(release.jobs.publish.permissions['id-token'], 'write');
  const publish = release.jobs.publish.steps.map((s) => s.run ?? '').join('\n');
  assert.match(publish, /npx napi pre-publish -t npm/);
  assert.match(publish, /npm publish --provenance/);
});

test('npm/<target>/ is exactly what `napi create-npm-dirs` generates from package.json', () => {
  // The CLI writes only inside the project: a scratch folder under .tmp/.
  mkdirSync(join(root, '.tmp'), { recursive: true });
  const dir = mkdtempSync(join(root, '.tmp/npm-dirs-'));
  try {
    execFileSync(process.execPath, [join(root, 'node_modules/@napi-rs/cli/dist/cli.js'), 'create-npm-dirs', '--npm-dir', dir], {
      cwd: root,
      stdio: 'pipe',
    });
    const generated = readdirSync(dir).sort();
    assert.deepEqual(readdirSync(join(root, 'npm')).sort(), generated, 'one folder per napi target');
    for (const platform of generated) {
      for (const file of ['package.json', 'README.md']) {
        assert.equal(
          readFileSync(join(root, 'npm', platform, file), 'utf8'),
          readFileSync(join(dir, platform, file), 'utf8'),
          `npm/${platform}/${file} is stale: run npx napi create-npm-dirs`,
        );
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('release.yml ships the native hook executable in every platform package', () => {
  const steps = release.jobs.build.steps;
  // Linux targets: build-portable.mjs builds the hook beside the .node; the others: build-hook.mjs.
  const hookStep = steps.find((s) =>
    /scripts\/release\/build-hook\.mjs --target \$\{\{ matrix\.settings\.target \}\} --output-dir \./.test(s.run ?? ''),
  );
  assert.ok(hookStep, 'a step builds the hook for the matrix target');
  assert.equal(hookStep.if, "runner.os != 'Linux'");
  for (const s of release.jobs.build.strategy.matrix.settings) {
    if (s.target.includes('-linux-')) assert.match(s.build, /^node scripts\/release\/build-portable\.mjs /, s.target);
  }
  const upload = steps.find((s) => s.uses?.startsWith('actions/upload-artifact'));
  assert.match(upload.with.path, /^toolguard-hook$/m);
  assert.match(upload.with.path, /^toolguard-hook\.exe$/m);
  assert.match(steps.find((s) => s.name === 'Check the glibc baseline').run, /toolguard-hook/);
  const publish = release.jobs.publish.steps.map((s) => s.run ?? '');
  const artifacts = publish.findIndex((r) => r.includes('napi artifacts'));
  const hooks = publish.findIndex((r) => r.includes('scripts/release/platform-hook.mjs --artifacts artifacts'));
  assert.ok(artifacts >= 0 && hooks > artifacts, 'the hooks go into npm/<target> after napi moved the .node files');
  for (const job of ['test-linux', 'test-macos-windows']) {
    assert.ok(
      release.jobs[job].steps.some((s) => (s.run ?? '').includes('node scripts/release/hook-smoke.mjs')),
      `${job} runs the hook`,
    );
  }
});

test("platform-hook.mjs puts each artifact's hook into its npm/<target> and lists it in files; a missing one fails", () => {
  mkdirSync(join(root, '.tmp'), { recursive: true });
  const dir = mkdtempSync(join(root, '.tmp/platform-hook-'));
  try {
    const npm = join(dir, 'npm');
    for (const platform of ['linux-x64-gnu', 'win32-x64-msvc', 'darwin-arm64']) {
      mkdirSync(join(npm, platform), { recursive: true });
      writeFileSync(
        join(npm, platform, 'package.json'),
        JSON.stringify({ name: `toolguard-${platform}`, files: [`toolguard.${platform}.node`] }),
      );
    }
    const artifact = (triple, file) => {
      mkdirSync(join(dir, 'artifacts', `bindings-${triple}`), { recursive: true });
      if (file) writeFileSync(join(dir, 'artifacts', `bindings-${triple}`, file), 'exe', { mode: 0o644 });
    };
    artifact('x86_64-unknown-linux-gnu', 'toolguard-hook');
    artifact('x86_64-pc-windows-msvc', 'toolguard-hook.exe');
    const script = join(root, 'scripts/release/platform-hook.mjs');
    const run = (...args) => spawnSync(process.execPath, [script, '--npm-dir', npm, ...args], { encoding: 'utf8' });
    const ok = run('--artifacts', join(dir, 'artifacts'));
    assert.equal(ok.status, 0, ok.stderr);
    const files = (platform) => JSON.parse(readFileSync(join(npm, platform, 'package.json'), 'utf8')).files;
    assert.deepEqual(files('linux-x64-gnu'), ['toolguard.linux-x64-gnu.node', 'toolguard-hook']);
    assert.deepEqual(files('win32-x64-msvc'), ['toolguard.win32-x64-msvc.node', 'toolguard-hook.exe']);
    assert.deepEqual(files('darwin-arm64'), ['toolguard.darwin-arm64.node']);
    assert.equal(statSync(join(npm, 'linux-x64-gnu/toolguard-hook')).mode & 0o777, 0o755, 'executable again after the artifact round trip');
    assert.equal(run('--artifacts', join(dir, 'artifacts')).status, 0, 'twice: listed once');
    assert.deepEqual(files('linux-x64-gnu'), ['toolguard.linux-x64-gnu.node', 'toolguard-hook']);
    artifact('aarch64-apple-darwin');
    const missing = run('--artifacts', join(dir, 'artifacts'));
    assert.equal(missing.status, 1);
    assert.match(missing.stderr, /no toolguard-hook in .*bindings-aarch64-apple-darwin/);
    assert.equal(run('--artifacts', join(dir, 'nope')).status, 2);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
