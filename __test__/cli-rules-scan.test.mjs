// End-to-end tests of `toolguard rules` and `toolguard scan`: the CLI runs as
// a child process, on corpus outputs, stdin, a config that adds and replaces
// rules, and bad input (exit 2 with a message naming what was wrong).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const builtin = JSON.parse(readFileSync(join(root, 'rules/builtin.json'), 'utf8'));
const tmp = mkdtempSync(join(tmpdir(), 'toolguard-cli-'));

function cli(args, input) {
  const run = spawnSync(process.execPath, [join(root, 'bin/toolguard.mjs'), ...args], {
    cwd: root,
    encoding: 'utf8',
    input,
    env: { ...process.env, NO_COLOR: '1' },
  });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

function file(name, text) {
  const path = join(tmp, name);
  writeFileSync(path, text);
  return path;
}

const config = file(
  'guard.json',
  JSON.stringify({
    loudFailure: {
      rules: [
        { id: 'deploy-refused', pattern: '^deploy: refused', flags: 'm', action: 'context', message: 'The deploy was refused.' },
        { id: 'make-error', pattern: '^make: \\*\\*\\* ', flags: 'm', action: 'context', when: 'always', message: 'make stopped.' },
      ],
    },
  }),
);

test('rules lists the built-in table in order', () => {
  const run = cli(['rules', '--json']);
  assert.equal(run.code, 0, run.stderr);
  const table = JSON.parse(run.stdout);
  assert.deepEqual(
    table.map((r) => r.id),
    builtin.map((r) => r.id),
  );
  assert.ok(table.every((r) => r.source === 'builtin'));
  const human = cli(['rules']);
  assert.equal(human.code, 0);
  for (const r of builtin) assert.match(human.stdout, new RegExp(`^${r.id} +${r.action} +${r.when} +built-in `, 'm'));
  assert.match(human.stdout, new RegExp(`^${builtin.length} rules \\(${builtin.length} built-in, 0 from the config`, 'm'));
});

test('rules merges a config: a same-id rule replaces the built-in in place, new ids are appended', () => {
  const run = cli(['rules', '--config', config, '--json']);
  assert.equal(run.code, 0, run.stderr);
  const table = JSON.parse(run.stdout);
  assert.equal(table.length, builtin.length + 1);
  const at = builtin.findIndex((r) => r.id === 'make-error');
  assert.deepEqual(
    [table[at].id, table[at].action, table[at].when, table[at].source],
    ['make-error', 'context', 'always', 'config (replaces built-in)'],
  );
  assert.deepEqual([table.at(-1).id, table.at(-1).source], ['deploy-refused', 'config']);
});

test('scan shows which rule matched which line (file and stdin), exit 1', () => {
  const out = "building site\n[stderr]\ncp: cannot stat 'dist/app.js': No such file or directory";
  for (const args of [['scan', file('cp.txt', out)], ['scan'], ['scan', '-']]) {
    const run = cli(args, out);
    assert.equal(run.code, 1, run.stderr);
    assert.match(
      run.stdout,
      /2 rules fired\n {2}line +3 {2}c-library-error +error +cp: cannot stat 'dist\/app\.js': No such file or directory\n {2}line +3 {2}program-error +error +cp: cannot stat/,
    );
  }
  const json = JSON.parse(cli(['scan', '--json'], out).stdout);
  assert.deepEqual(
    json.hits.map((h) => [h.id, h.line, h.silenced]),
    [
      ['c-library-error', 3, false],
      ['program-error', 3, false],
    ],
  );
});

test('scan reads coloured output as a terminal shows it', () => {
  const plain = 'Traceback (most recent call last):\n  File "x.py", line 1, in <module>\nValueError: bad\n';
  const coloured =
    '\x1b[31mTraceback (most recent call last):\x1b[0m\n  File "x.py", line 1, in <module>\n\x1b[1;31mValueError\x1b[0m: bad\n';
  const hits = (text) => JSON.parse(cli(['scan', '--json'], text).stdout).hits.map((h) => [h.id, h.line, h.excerpt]);
  assert.deepEqual(hits(coloured), hits(plain));
  assert.deepEqual(hits(coloured)[0], ['python-traceback', 1, 'Traceback (most recent call last):']);
});

test('scan reads a status header as the Codex reader does: a non-zero code silences when: success rules', () => {
  const body = 'make: *** [all] Error 1\n';
  for (const header of ['Exit code: 1\nWall time: 0.2 seconds\nOutput:\n', 'Chunk ID: 7\nProcess exited with code 1\nOutput:\n']) {
    const run = cli(['scan', '--json', file('codex.txt', header + body)]);
    assert.equal(run.code, 0, run.stderr);
    // The hit names the input's own line (below the header).
    const line = header.split('\n').length;
    assert.deepEqual(
      JSON.parse(run.stdout).hits.map((h) => [h.id, h.line, h.silenced]),
      [['make-error', line, true]],
    );
  }
  // Exit code 0: the rule fires.
  const zero = cli(['scan', '--json', file('codex0.txt', `Exit code: 0\nOutput:\n${body}`)]);
  assert.equal(zero.code, 1, zero.stderr);
  assert.deepEqual(
    JSON.parse(zero.stdout).hits.map((h) => [h.id, h.line, h.silenced]),
    [['make-error', 3, false]],
  );
});

test('scan --command scans as the engine does with the call command, and a missing command is named once', async () => {
  const { GuardEngine } = await import('toolguard');
  const command = 'ls; frobnicate --all';
  const out = 'README.md\nsrc\n[stderr]\nbash: line 1: frobnicate: command not found\n';
  const engine = new GuardEngine({});
  const verdict = engine.observe({ name: 'bash', argumentsJson: JSON.stringify({ command }) }, { content: [{ type: 'text', text: out }] });
  const engineIds = verdict.failure.rules.map((r) => r.id);
  // The shell's `command not found` line is command-not-found's alone: program-message's text would misdescribe it.
  assert.deepEqual(engineIds, ['command-not-found']);
  for (const args of [
    ['scan', '--json', '--command', command],
    ['scan', '--json', `--command=${command}`],
  ]) {
    const run = cli(args, out);
    assert.equal(run.code, 1, run.stderr);
    assert.deepEqual(
      JSON.parse(run.stdout).hits.map((h) => h.id),
      engineIds,
    );
  }
  // With the command, a program that ran names its own failure: scan and the engine agree on it too.
  const cat = 'cat: missing.txt: No such file or directory\n';
  const withCommand = JSON.parse(cli(['scan', '--json', '--command', 'cat missing.txt'], cat).stdout).hits.map((h) => h.id);
  const catVerdict = engine.observe(
    { name: 'bash', argumentsJson: JSON.stringify({ command: 'cat missing.txt' }) },
    { content: [{ type: 'text', text: cat }] },
  );
  assert.deepEqual(
    withCommand,
    catVerdict.failure.rules.map((r) => r.id),
  );
  assert.ok(withCommand.includes('program-message'), withCommand.join());
  const missing = cli(['scan', '--command'], out);
  assert.equal(missing.code, 2);
  assert.match(missing.stderr, /--command needs the shell command/);
});

test('scan: nothing matched is exit 0', () => {
  const run = cli(['scan', file('ok.txt', 'compiled 3 files\n0 errors, 2 warnings\n')]);
  assert.deepEqual([run.code, run.stdout], [0, `${join(tmp, 'ok.txt')}: no rule matched\n`]);
});

test('scan lists rules silenced by a failure marker, and config rules', () => {
  const shown = file('shown.txt', 'deploy: refused by policy\nmake: *** [all] Error 1\n[exit code: 2]');
  const plain = cli(['scan', shown]);
  assert.equal(plain.code, 0, plain.stderr);
  assert.match(
    plain.stdout,
    /0 rules fired, 1 silenced \(the output already shows its failure\)\n {2}line +2 {2}make-error +silenced +make: \*\*\*/,
  );
  // With the config, make-error is `when: always` (fires) and deploy-refused is silenced.
  const run = cli(['scan', shown, '--config', config, '--json']);
  assert.equal(run.code, 1, run.stderr);
  assert.deepEqual(
    JSON.parse(run.stdout).hits.map((h) => [h.id, h.action, h.line, h.silenced]),
    [
      ['make-error', 'context', 2, false],
      ['deploy-refused', 'context', 1, true],
    ],
  );
});

test('bad input: exit 2 with a message naming it', () => {
  const missing = cli(['scan', join(tmp, 'nope.txt')]);
  assert.equal(missing.code, 2);
  assert.match(missing.stderr, /^toolguard scan: cannot read .*nope\.txt/);
  const badRule = file(
    'bad.json',
    JSON.stringify({ loudFailure: { rules: [{ id: 'x1', pattern: '(?=a)', action: 'error', message: 'm' }] } }),
  );
  for (const cmd of ['rules', 'scan']) {
    const run = cli([cmd, '--config', badRule], 'text');
    assert.equal(run.code, 2, cmd);
    assert.match(run.stderr, /rule x1: lookahead/, cmd);
  }
  const unknown = cli(['rules', '--verbose']);
  assert.deepEqual([unknown.code, unknown.stderr.split('\n')[0]], [2, 'toolguard rules: unknown option --verbose']);
  const two = cli(['scan', 'a.txt', 'b.txt']);
  assert.equal(two.code, 2);
  assert.match(two.stderr, /give one FILE/);
});
