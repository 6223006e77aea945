// What a new user met on a second pass (task newuser4): a config on stdin
// (`check-config -`, `rules --config -`), help lines within 80 columns, the
// missing native binary said without a useless "Try --help", and `--html
// DIR/` that neither writes into a stranger's folder nor leaves stale run
// pages. Child processes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { root, scratchCli } from '../support/cli.mjs';

const { cli, file, scratch } = scratchCli('toolguard-new-user-paths-');
const limits = JSON.parse(readFileSync(join(root, 'rules/limits.json'), 'utf8'));

test('toolguard hook --help fits 80 columns', () => {
  const help = cli(['hook', '--help']);
  assert.equal(help.code, 0, help.stderr);
  for (const line of help.stdout.split('\n')) assert.ok(line.length <= 80, `${line.length} columns: ${line}`);
});

test('without the native binary, audit exits 2 without "Try --help" (no usage error: help would not help)', () => {
  const preload = file('no-native.cjs', "process.dlopen = () => { throw new Error('no binary for this platform') };\n");
  const log = file('one.jsonl', `${JSON.stringify({ tool: 'bash', arguments: { command: 'ls' }, output: 'a', exitCode: 0 })}\n`);
  const run = cli(['audit', log], { env: { ...process.env, NODE_OPTIONS: `--require ${preload}` } });
  assert.equal(run.code, 2, run.stderr);
  assert.match(run.stderr, /auditing needs the native binary/);
  assert.doesNotMatch(run.stderr, /--help/);
});
