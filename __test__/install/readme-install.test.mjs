// The README's install section, followed literally: the commands between its
// `install` markers run in order — `npm run pack:local` in this (built)
// checkout, `npm install <that tarball>` in an empty project on a machine
// with no Rust on PATH — and then every entry point a new user tries
// there: the main job, the hook (Node, and the native executable that
// `--native-path` names), `mcp` (first without its optional peer, then with
// it), `scan`, `rules | head`, `check-config`. Exit codes and what they print.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { env, npm, npmInstall, root, tracebackEvent } from '../support/install.mjs';

const readme = readFileSync(join(root, 'README.md'), 'utf8');
const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));

/** The commands of the README's install block, comments dropped. */
function installCommands() {
  const block = readme.slice(readme.indexOf('<!-- install:begin -->'), readme.indexOf('<!-- install:end -->'));
  const sh = /```sh\n([\s\S]*?)```/.exec(block)?.[1] ?? '';
  return sh
    .split('\n')
    .map((line) => line.replace(/#.*$/, '').trim())
    .filter(Boolean);
}

// A plain MCP stdio server (no SDK): one `bash` tool that prints its `out` argument.
const SERVER = `
import { createInterface } from 'node:readline';
const send = (message) => process.stdout.write(JSON.stringify({ jsonrpc: '2.0', ...message }) + '\\n');
for await (const line of createInterface({ input: process.stdin })) {
  const m = JSON.parse(line);
  if (m.method === 'initialize') send({ id: m.id, result: { protocolVersion: m.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'plain', version: '1' } } });
  else if (m.method === 'tools/call') send({ id: m.id, result: { content: [{ type: 'text', text: m.params.arguments.out }] } });
}
`;
const rpc = (id, method, params) => JSON.stringify({ jsonrpc: '2.0', ...(id === undefined ? {} : { id }), method, params });

test("the README's install section, followed literally, gives a working engine, hook and CLI with no Rust on PATH", {
  skip: process.platform === 'win32' ? 'the shell pipelines below are POSIX' : false,
  timeout: 600_000,
}, async (t) => {
  const commands = installCommands();
  const tarballName = `toolguard-${version}.tgz`;
  assert.deepEqual(
    commands,
    [
      'npm run pack:local',
      `npm install /path/to/toolguard/${tarballName}`,
      'npx toolguard audit',
      'npx toolguard hook --native-path',
      'npm install @modelcontextprotocol/sdk@^1.32.2',
    ],
    'the README install block is what this test runs',
  );
  for (const tool of ['cargo', 'rustc'])
    assert.equal(
      /** @type {NodeJS.ErrnoException | undefined} */ (spawnSync(tool, ['--version'], { env }).error)?.code,
      'ENOENT',
      `${tool} must not be on the test PATH`,
    );

  const dir = mkdtempSync(join(tmpdir(), 'toolguard-readme-install-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));

  // 1. `npm run pack:local` in the checkout (into a scratch folder it makes, not the checkout).
  const tarballs = join(dir, 'new', 'tarballs');
  const pack = spawnSync('npm', ['run', '-s', 'pack:local', '--', '--pack-destination', tarballs], { cwd: root, env, encoding: 'utf8' });
  assert.equal(pack.status, 0, `${pack.stderr}\nbuild first: npm run build`);
  const tarball = pack.stdout.trim();
  assert.equal(tarball, join(tarballs, tarballName));
  const files = execFileSync('tar', ['-tzf', tarball], { encoding: 'utf8' }).split('\n');
  for (const file of ['package/toolguard-hook', 'package/bin/toolguard.mjs', 'package/dist/ts/cli/main.mjs'])
    assert.ok(files.includes(file), file);
  assert.equal(files.filter((f) => /^package\/toolguard\..+\.node$/.test(f)).length, 1, "this machine's addon is in the tarball");

  // 2. `npm install <tarball>` in an empty project: no warning about a script that is not there.
  const project = join(dir, 'project');
  mkdirSync(project);
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'user-project', private: true, type: 'module' }));
  const warnings = npmInstall([tarball], project);
  assert.doesNotMatch(warnings, /install-scripts|prepare/, warnings);
  // A GuardEngine user's production tree: toolguard and at most two others (no MCP SDK).
  const tree = npm(['ls', '--omit=dev', '--all', '--parseable'], project).trim().split('\n').slice(1);
  const names = tree.map((path) => path.split('node_modules/').at(-1));
  assert.ok(names.includes('toolguard') && names.length <= 3, `npm ls --omit=dev: ${names.join(', ')}`);

  /**
   * @param {string} command
   * @param {string[]} args
   * @param {{ input?: string, extra?: NodeJS.ProcessEnv }} [options] `extra`: environment over the test's
   */
  const run = (command, args, { input, extra = {} } = {}) => {
    const r = spawnSync(command, args, { cwd: project, env: { ...env, ...extra }, input, encoding: 'utf8' });
    return { code: r.status, stdout: r.stdout, stderr: r.stderr };
  };
  const home = join(dir, 'home');
  mkdirSync(home);

  // 3. `npx toolguard audit`: the bundled sample, natively, exit 1.
  const audit = run('npx', ['toolguard', 'audit'], { extra: { HOME: home, CLAUDE_CONFIG_DIR: '', CODEX_HOME: '', FORCE_COLOR: '0' } });
  assert.equal(audit.code, 1, audit.stderr);
  assert.match(audit.stderr, /auditing the sample sessions bundled with the package/);
  assert.doesNotMatch(audit.stderr, /TOOLGUARD_FALLBACK|needs the native binary/);
  assert.match(audit.stdout, /^Summary: 2 sessions in 2 logs · 14 tool calls · /m);

  // The hook: the Node hook, and the native executable `--native-path` names (inside the installed package).
  const bin = join(project, 'node_modules/.bin/toolguard');
  const where = run('npx', ['toolguard', 'hook', '--native-path']);
  assert.equal(where.code, 0, where.stderr);
  const native = where.stdout.trim();
  assert.equal(native, join(project, 'node_modules/toolguard/toolguard-hook'));
  const event = JSON.stringify(tracebackEvent(project));
  const answers = [
    run(bin, ['hook'], { input: event, extra: { TOOLGUARD_NATIVE_HOOK: '0', TOOLGUARD_STATE_DIR: join(dir, 'state-node') } }),
    run(native, [], { input: event, extra: { TOOLGUARD_STATE_DIR: join(dir, 'state-native') } }),
  ];
  for (const answer of answers) {
    assert.equal(answer.code, 0, answer.stderr);
    assert.equal(answer.stderr, '');
    assert.equal(JSON.parse(answer.stdout).decision, 'block');
  }
  assert.equal(answers[0].stdout, answers[1].stdout, 'the Node and the native hook answer alike');

  // `scan`, `rules | head`, `check-config`.
  const scan = run(bin, ['scan', '-'], {
    input: 'Traceback (most recent call last):\n  File "x.py", line 1, in <module>\nValueError: boom\n',
  });
  assert.equal(scan.code, 1, scan.stderr);
  assert.match(scan.stdout, /^stdin: 1 rule fired\n {2}line +1 {2}python-traceback +error /);
  const head = spawnSync('bash', ['-c', 'set -o pipefail; npx toolguard rules | head -1'], { cwd: project, env, encoding: 'utf8' });
  assert.equal(head.status, 0, head.stderr);
  assert.equal(head.stderr, '');
  assert.match(head.stdout, /^\S.*\n$/);
  writeFileSync(join(project, 'guard.yaml'), 'loops: { deny: 2 }\nloudFailure: { shellTools: [bash, run_command] }\n');
  writeFileSync(join(project, 'typo.yaml'), 'loops: { deny: 2 }\nrepeat: { treshold: 3 }\n');
  const good = run('npx', ['toolguard', 'check-config', 'guard.yaml']);
  assert.equal(good.code, 0, good.stderr);
  assert.match(good.stdout, /^guard\.yaml: ok \(.*loop detectors on, deny after 2 loop alarms/);
  const bad = run('npx', ['toolguard', 'check-config', 'typo.yaml']);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /typo\.yaml:2: toolguard: unknown key config\.repeat\.treshold/);

  // `mcp`: without its optional peer, a message naming it; with it (the README's last line), a guarded server.
  writeFileSync(join(project, 'server.mjs'), SERVER);
  const missing = run(bin, ['mcp', '--', process.execPath, 'server.mjs'], { input: '' });
  assert.equal(missing.code, 2);
  assert.match(missing.stderr, /needs the package @modelcontextprotocol\/sdk.*\n.*npm install @modelcontextprotocol\/sdk@\^1\.32\.2/);
  npmInstall(['@modelcontextprotocol/sdk@^1.32.2'], project);
  const call = (id, out) => rpc(id, 'tools/call', { name: 'bash', arguments: { out } });
  const messages = [
    rpc(1, 'initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'test', version: '1' } }),
    rpc(undefined, 'notifications/initialized', {}),
    call(2, 'Traceback (most recent call last):\n  File "x.py", line 1\nValueError: boom'),
    ...[3, 4, 5].map((id) => call(id, 'all good')),
  ];
  // One request at a time, as an agent calls tools: a call sent before the
  // previous one's answer is a parallel call, on which no loop alarm is raised.
  const mcp = await new Promise((resolve) => {
    const child = spawn(bin, ['mcp', '--', process.execPath, 'server.mjs'], { cwd: project, env });
    const timer = setTimeout(() => child.kill(), 60_000);
    let stdout = '';
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    const next = () => {
      for (;;) {
        const m = messages.shift();
        if (m === undefined) return child.stdin.end();
        child.stdin.write(m + '\n');
        if (JSON.parse(m).id !== undefined) return; // wait for its answer
      }
    };
    createInterface({ input: child.stdout }).on('line', (line) => {
      stdout += line + '\n';
      next();
    });
    child.on('close', (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    });
    next();
  });
  assert.equal(mcp.status, 0, mcp.stderr);
  const responses = new Map(
    mcp.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line))
      .map((m) => [m.id, m]),
  );
  assert.equal(responses.get(2).result.isError, true, 'the traceback in a bash result is an error');
  assert.equal(responses.get(2).result._meta['toolguard/verdict'].failure.rules[0].id, 'python-traceback');
  assert.equal(responses.get(5).result._meta['toolguard/verdict'].loop.kind, 'repeat', 'the loop detectors run by default');
  assert.ok(existsSync(join(project, 'node_modules/@modelcontextprotocol/sdk')));
});
