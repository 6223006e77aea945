// docs/dsh.md's "Try it", followed as a new DSH user would: the packed
// tarball installed in an empty project, the shipped example agent run first
// without the DSH packages (an error naming the first missing one and the
// install line), then with them (the docs' line, installed offline from the
// npm cache `npm ci` filled): it prints the loop notice and the loud-failure
// block the model receives.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { env, npmInstall, root } from '../support/install.mjs';

const { DSH_INSTALL } = await import('../../dist/ts/dsh/peers.mjs');
const docs = readFileSync(join(root, 'docs/dsh.md'), 'utf8');

/** The commands of docs/dsh.md's "Try it" block. */
function tryItCommands() {
  const section = docs.slice(docs.indexOf('## Try it'), docs.indexOf('## Configure'));
  return (/```sh\n([\s\S]*?)```/.exec(section)?.[1] ?? '').trim().split('\n');
}

test('docs/dsh.md "Try it": the example DSH agent runs from the tarball and shows the loop notice and the loud-failure block', {
  skip: process.platform === 'win32' ? 'the npm/node commands below are run through POSIX paths' : false,
  timeout: 600_000,
}, (t) => {
  const [install, run] = tryItCommands();
  assert.equal(install, DSH_INSTALL, 'the docs install what the plugins name when a peer is missing');
  assert.equal(run, 'node node_modules/toolguard/examples/dsh-agent/agent.mjs');

  const dir = mkdtempSync(join(tmpdir(), 'toolguard-dsh-example-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const pack = spawnSync('npm', ['run', '-s', 'pack:local', '--', '--pack-destination', join(dir, 'tarballs')], {
    cwd: root,
    env,
    encoding: 'utf8',
  });
  assert.equal(pack.status, 0, `${pack.stderr}\nbuild first: npm run build`);
  const project = join(dir, 'project');
  mkdirSync(project);
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'user-project', private: true, type: 'module' }));
  npmInstall([pack.stdout.trim()], project);

  // Colours left to the defaults: Node warns on stderr when NO_COLOR and FORCE_COLOR are both set.
  const exampleEnv = { ...env };
  delete exampleEnv.NO_COLOR;
  delete exampleEnv.FORCE_COLOR;
  const example = () => {
    const [cmd, ...args] = run.split(' ');
    const r = spawnSync(cmd === 'node' ? process.execPath : cmd, args, {
      cwd: project,
      env: exampleEnv,
      encoding: 'utf8',
      timeout: 120_000,
    });
    return { code: r.status, stdout: r.stdout, stderr: r.stderr };
  };

  // Without the DSH packages: the first missing peer named, with the line to install.
  const bare = example();
  assert.equal(bare.code, 1, bare.stdout);
  assert.match(bare.stderr, /toolguard\/dsh: the DSH plugins need the package @deepseek-ai\/cordis, an optional peer dependency/);
  assert.ok(bare.stderr.includes(`Install the DSH packages beside toolguard: ${DSH_INSTALL}`), bare.stderr);
  assert.doesNotMatch(bare.stderr, /ERR_MODULE_NOT_FOUND/);

  // With them (the docs' line): the agent runs and the model receives toolguard's notices.
  npmInstall(install.replace(/^npm install /, '').split(' '), project);
  const out = example();
  assert.equal(out.code, 0, out.stderr);
  assert.equal(out.stderr, '');
  const received = out.stdout.split('\n> ');
  assert.equal(received.filter((part) => part.startsWith('the model calls bash')).length, 4, out.stdout);
  // The third identical failing `npm test`: its result, then the loop notice.
  const third = received.filter((part) => part.startsWith('the model calls bash {"command":"npm test"}'))[2];
  assert.match(
    third,
    /notice from plugin toolguard-loops \(bash: repeat × 3\):\n {4}\| \[toolguard\] Loop detected: bash was called 3 times in a row with the same arguments and returned the same result each time/,
  );
  assert.equal(out.stdout.match(/notice from plugin toolguard-loops/g)?.length, 1, 'one notice, at the third call');
  // The call that reports no error (a DSH transcript marks only a non-zero exit)
  // whose output shows a traceback: a blocked result from loud-failure.
  const hidden = received.find((part) => part.startsWith('the model calls bash {"command":"python3'));
  assert.match(
    hidden ?? '',
    /tool result \(error\):\n {4}\| \[loud-failure\] bash reported no error but its output shows it failed:\n {4}\| - python-traceback \(line 1\)/,
  );
  assert.match(out.stdout, /\n> the model answers: /);
});
