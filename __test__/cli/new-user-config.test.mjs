// What a demanding new user met checking configs and auditing odd inputs
// (issues 24/26): check-config shows every key it accepts, the help texts
// list the whole config, an empty log is named as empty, and scan reads a
// bounded input. Child processes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { scratchCli } from '../support/cli.mjs';

const { cli, file } = scratchCli('toolguard-new-user-config-');

test('check-config says when a config turns exact mode on (it rewrites the commands the hook runs)', () => {
  const on = cli(['check-config', file('exact.yaml', 'exactMode: true\n')]);
  const off = cli(['check-config', file('plain.yaml', 'exactMode: false\n')]);
  assert.equal(on.code, 0, on.stderr);
  assert.equal(off.code, 0, off.stderr);
  assert.match(on.stdout, /exact mode on/);
  assert.doesNotMatch(off.stdout, /exact mode/);
});

test('the help of audit and check-config lists every config key; rules --help does not promise a YAML subset', () => {
  for (const command of ['audit', 'check-config']) {
    const help = cli([command, '--help']);
    assert.equal(help.code, 0);
    assert.match(help.stdout.replace(/\s+/g, ' '), /\{repeat\?, loudFailure\?, loops\?, exactMode\?\}/, command);
  }
  assert.doesNotMatch(cli(['rules', '--help']).stdout, /subset/);
});

test('audit of an empty file exits 2 and names the file as empty', () => {
  const empty = file('empty.jsonl', '');
  const run = cli(['audit', empty]);
  assert.equal(run.code, 2);
  assert.match(run.stderr, /no input could be read \(.*empty\.jsonl: empty\)/);
});

test('scan reads a bounded input: an endless one (/dev/zero) is an error naming it, exit 2', {
  skip: !existsSync('/dev/zero') && 'no /dev/zero here',
}, () => {
  const run = cli(['scan', '/dev/zero'], { timeout: 60_000 });
  assert.equal(run.code, 2, run.stderr);
  assert.match(run.stderr, /\/dev\/zero is longer than 64 MiB/);
  const piped = cli(['scan', '-'], { input: 'x'.repeat(64 * 1024 * 1024 + 1) });
  assert.equal(piped.code, 2, piped.stderr);
  assert.match(piped.stderr, /stdin is longer than 64 MiB/);
  const ok = cli(['scan', '-'], { input: 'Traceback (most recent call last):\n  File "x.py", line 1\nValueError: x\n' });
  assert.equal(ok.code, 1, ok.stderr);
});
