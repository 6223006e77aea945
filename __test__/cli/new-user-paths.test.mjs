// What a new user meets on a second pass: a config on stdin
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

test('check-config - reads the config from stdin (YAML or JSON), named (stdin)', () => {
  const yaml = cli(['check-config', '-'], { input: 'loops:\n  deny: 3\n' });
  assert.equal(yaml.code, 0, yaml.stderr);
  assert.match(yaml.stdout, /^\(stdin\): ok \(.*deny after 3 loop alarms/);
  const json = cli(['check-config', '-'], { input: '{"repeat": {"thresholds": [4, 6]}}' });
  assert.equal(json.code, 0, json.stderr);
  assert.match(json.stdout, /repeat thresholds \[4, 6\]/);
  const bad = cli(['check-config', '-'], { input: 'repeat:\n  treshold: 3\n' });
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /^toolguard check-config: \(stdin\):2: .*treshold/);
});

test('a config on stdin is bounded like a config file (rules/limits.json configFileBytes)', () => {
  const big = cli(['check-config', '-'], { input: '#'.repeat(limits.configFileBytes + 1) });
  assert.equal(big.code, 2);
  assert.match(big.stderr, new RegExp(`config \\(stdin\\) is larger than ${limits.configFileBytes} bytes`));
  assert.equal(cli(['check-config', '-'], { input: '#'.repeat(limits.configFileBytes) }).code, 0);
});

test('rules --config - lists the rules of a config read from stdin', () => {
  const rule = 'loudFailure:\n  rules:\n    - {id: my-rule, pattern: boom, action: error, message: it went boom}\n';
  const run = cli(['rules', '--config', '-'], { input: rule });
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stdout, /^my-rule\s+error\s+success\s+config\s+it went boom$/m);
});

test('stdin given twice, or a config on stdin where stdin holds something else, is a usage error', () => {
  const twice = cli(['check-config', '-', '-'], { input: '{}' });
  assert.equal(twice.code, 2);
  assert.match(twice.stderr, /give - \(standard input\) once/);
  const scan = cli(['scan', '--config', '-'], { input: '{}' });
  assert.equal(scan.code, 2);
  assert.match(scan.stderr, /--config - and the tool output cannot both come from standard input/);
  const audit = cli(['audit', '--config', '-', '-'], { input: '{}' });
  assert.equal(audit.code, 2);
  assert.match(audit.stderr, /--config - and a log \(-\) cannot both come from standard input/);
  const mcp = cli(['mcp', '--config', '-', '--', 'true']);
  assert.equal(mcp.code, 2);
  assert.match(mcp.stderr, /standard input carries the MCP protocol/);
});

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

/** `n` small trace logs in a folder of their own. */
function logs(name, n) {
  const dir = join(scratch, name);
  mkdirSync(dir, { recursive: true });
  for (let i = 0; i < n; i++) {
    const call = JSON.stringify({ tool: 'bash', arguments: { command: `echo ${i}` }, output: String(i), exitCode: 0 });
    writeFileSync(join(dir, `run-${i}.jsonl`), `${call}\n`);
  }
  return dir;
}

test('--html DIR/ refuses a non-empty folder that is not a toolguard report, naming it (exit 2), and writes nothing', () => {
  const dir = join(scratch, 'project');
  mkdirSync(dir);
  writeFileSync(join(dir, 'notes.txt'), 'mine\n');
  const run = cli(['audit', '--html', `${dir}/`, logs('one', 1)]);
  assert.equal(run.code, 2, run.stderr);
  assert.match(run.stderr, /cannot write the HTML report to .*project\/: .*project\/ is not empty and holds no toolguard report/);
  assert.deepEqual(readdirSync(dir), ['notes.txt']);
});

test('--html DIR/ over an earlier, larger report removes the run pages the new index does not link (its own only)', () => {
  const site = join(scratch, 'site');
  assert.equal(cli(['audit', '--html', `${site}/`, logs('three', 3)]).code, 0);
  assert.deepEqual(readdirSync(join(site, 'runs')).sort(), ['000000.html', '000001.html', '000002.html']);
  writeFileSync(join(site, 'runs', 'notes.txt'), 'mine\n');
  const again = cli(['audit', '--html', `${site}/`, logs('one-more', 1)]);
  assert.equal(again.code, 0, again.stderr);
  assert.deepEqual(readdirSync(join(site, 'runs')).sort(), ['000000.html', 'notes.txt']);
  // An empty folder is fine too.
  const empty = join(scratch, 'empty');
  mkdirSync(empty);
  assert.equal(cli(['audit', '--html', empty, logs('two', 2)]).code, 0);
  assert.ok(readFileSync(join(empty, 'index.html'), 'utf8').includes('toolguard audit — 2 runs'));
});

test('one name per count: "N sessions in M logs" in the table, --json and the HTML; waste and stuck explained where shown', () => {
  const sample = join(root, 'samples');
  const table = cli(['audit', sample]);
  assert.match(table.stdout, /^Summary: 2 sessions in 2 logs · /m);
  const doc = JSON.parse(cli(['audit', '--json', sample]).stdout);
  assert.deepEqual([doc.summary.sessions, doc.summary.files], [doc.sessions.length, 2]);
  const page = join(scratch, 'sample.html');
  assert.equal(cli(['audit', '--html', page, sample]).code, 1);
  const html = readFileSync(page, 'utf8');
  assert.match(html, /class="meta">2 sessions in 2 logs · /);
  assert.doesNotMatch(html, /session logs|wasted/);
  assert.match(html, /<div title="waste in loops: [^"]*stuck episode[^"]*"><dt>waste in loops<\/dt>/);
  assert.match(html, /<div title="waste in silent failures: [^"]*failing call[^"]*"><dt>waste in silent failures<\/dt>/);
  const site = join(scratch, 'sample-site');
  assert.equal(cli(['audit', '--html', `${site}/`, sample]).code, 1);
  const index = readFileSync(join(site, 'index.html'), 'utf8');
  assert.match(index, /<th class="n" title="stuck: [^"]*stuck episodes only[^"]*">stuck tokens<\/th>/);
  assert.match(index, /<th class="n" title="waste: [^"]*">waste tokens<\/th>/);
});
