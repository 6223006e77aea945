// What a new user meets on a first run: each command says
// what it did, does not report an all-clear it did not check, and piping
// into `head` or asking for --help stays quiet. Child processes on real files.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { root, scratchCli } from '../support/cli.mjs';

const { scratch, cli, file, bin } = scratchCli('toolguard-first-use-');
const TRACEBACK = 'Traceback (most recent call last):\n  File "x.py", line 1, in <module>\nValueError: boom\n';

test('scan checks its input whatever the config names as shell tools (no false all-clear)', () => {
  const config = file('mcp-tools.json', JSON.stringify({ loudFailure: { shellTools: ['run_command'] } }));
  const run = cli(['scan', '--config', config, '-'], { input: TRACEBACK });
  assert.equal(run.code, 1, run.stdout + run.stderr);
  assert.match(run.stdout, /python-traceback/);
});

test('check-config shows the loop detectors and exits 2 on a bad config, as audit, scan and mcp do', () => {
  const off = cli(['check-config', file('off.yaml', 'loops: false\n')]);
  const deny = cli(['check-config', file('deny.yaml', 'loops: { deny: 2 }\n')]);
  const none = cli(['check-config', file('none.yaml', 'repeat: { thresholds: [3] }\n')]);
  for (const run of [off, deny, none]) assert.equal(run.code, 0, run.stderr);
  assert.match(off.stdout, /loop detectors off/);
  assert.match(deny.stdout, /loop detectors on, deny after 2 loop alarms/);
  assert.match(none.stdout, /loop detectors on \(defaults\)/);
  assert.notEqual(off.stdout.replace(/^\S+/, ''), deny.stdout.replace(/^\S+/, ''));
  const bad = file('bad.yaml', 'repeat:\n  treshold: 5\n');
  const checked = cli(['check-config', bad]);
  assert.equal(checked.code, 2, checked.stderr);
  for (const command of [
    ['audit', '--config', bad, join(root, 'samples')],
    ['scan', '--config', bad, '-'],
    ['mcp', '--config', bad, '--', 'true'],
  ]) {
    assert.equal(cli(command, { input: '' }).code, checked.code, command.join(' '));
  }
});

test('a command piped into head ends quietly (no EPIPE stack trace)', {
  skip: spawnSync('bash', ['--version']).status !== 0 && 'no bash',
}, () => {
  for (const command of ['rules --json', 'rules', 'completion bash']) {
    const run = spawnSync('bash', ['-c', `set -o pipefail; "${process.execPath}" "${bin}" ${command} | head -1`], { encoding: 'utf8' });
    assert.equal(run.stderr, '', command);
    assert.equal(run.stdout.split('\n').length, 2, command);
    assert.equal(run.status, 0, command);
  }
});

test('--help and --version do not print the TOOLGUARD_FALLBACK warning; a command that uses the engine does', () => {
  const noBinary = file('no-binary.cjs', "process.dlopen = () => { throw new Error('no binary for this platform'); };\n");
  const node = ['-r', noBinary];
  for (const args of [['--help'], ['--version'], ['audit', '--help'], ['help', 'scan'], []]) {
    const run = cli(args, { node });
    assert.doesNotMatch(run.stderr, /TOOLGUARD_FALLBACK/, args.join(' '));
  }
  assert.match(cli(['scan', '-'], { node, input: TRACEBACK }).stderr, /TOOLGUARD_FALLBACK/);
});

test('audit --html FILE says where it wrote the report', () => {
  const out = join(scratch, 'report.html');
  const run = cli(['audit', '--html', out, join(root, 'samples')]);
  assert.equal(run.code, 1, run.stderr);
  assert.ok(existsSync(out));
  assert.match(run.stderr, new RegExp(`wrote the HTML report to ${out.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
});

test('toolguard --help and audit --help say the same about a bare `audit`', () => {
  const summary = cli(['--help'])
    .stdout.split('\n')
    .find((l) => l.trimStart().startsWith('audit '));
  const own = cli(['audit', '--help']).stdout;
  assert.match(own, /Claude Code and Codex histories/);
  assert.match(summary, /Claude Code\/Codex histories/, summary);
  assert.match(summary, /else the bundled sample/, summary);
});

test("docs/trace-format.md's example is audited as the page says: its `command not found` is flagged", () => {
  const page = readFileSync(join(root, 'docs/trace-format.md'), 'utf8');
  const example = /```jsonl?\n([\s\S]*?)```/.exec(page)[1];
  const run = cli(['audit', '--json', '-'], { input: example });
  const doc = JSON.parse(run.stdout);
  assert.ok(
    doc.sessions[0].failures.some((f) => f.ruleId === 'command-not-found'),
    JSON.stringify(doc.sessions[0].failures),
  );
});

test('a plain text log is one clear error, not one parser error per line', () => {
  const log = file('build.log', Array.from({ length: 5000 }, (_, i) => `[${i}] compiling module ${i}`).join('\n') + '\n');
  const run = cli(['audit', '--json', log]);
  assert.equal(run.code, 2, run.stderr);
  const [session] = JSON.parse(run.stdout).sessions;
  assert.equal(session.errorCount ?? session.errors.length, 1, JSON.stringify(session.errors.slice(0, 3)));
  assert.match(session.errors[0].message, /^not a JSON-lines session log \(line 1 is not JSON\)/);
  assert.doesNotMatch(session.errors[0].message, /expected|column/);
});

test('one word for one count: the summary, the table and the HTML report count loops as "loops" and their alarms as "loop alarms"', () => {
  const samples = join(root, 'samples');
  const doc = JSON.parse(cli(['audit', '--json', samples]).stdout);
  const loops = doc.summary.loops;
  const perSession = doc.sessions.map((s) => s.loops.length);
  const longest = Math.max(...doc.sessions.flatMap((s) => s.loops.map((l) => l.reminders)));
  assert.ok(loops > 0 && longest > 1, 'the sample has a loop alarmed more than once');
  const text = cli(['audit', samples]).stdout;
  assert.match(text, new RegExp(`· ${loops} loops? ·`));
  // A loop alarmed N times says "N loop alarms" in its row, never "reminders" (DSH's result-blind repeat reminders).
  assert.match(text, new RegExp(`${longest} loop alarms · `));
  assert.doesNotMatch(text.replace(/repeat reminders?/g, ''), /reminders?\b/);
  const html = cli(['audit', '--html', '-', samples]).stdout;
  assert.match(html, new RegExp(`<dt>loops</dt><dd id="stat-loops">${loops}</dd>`));
  for (const n of perSession.filter((n) => n > 0)) assert.match(html, new RegExp(`>${n} loops?<`));
  assert.doesNotMatch(html, /loop findings?/);
});

test("docs/adapters.md: the Agent SDK adapter's events are the ones it registers, and the options include loops", async () => {
  const page = readFileSync(join(root, 'docs/adapters.md'), 'utf8');
  const start = page.indexOf('## Claude Agent SDK');
  const section = page.slice(start, page.indexOf('\n## ', start + 1));
  const { toolguardHooks } = await import('../../dist/ts/adapters/claude-agent-sdk.mjs');
  const events = Object.keys(toolguardHooks());
  for (const event of events) assert.match(section, new RegExp(`\`${event}\``), event);
  assert.doesNotMatch(section, /arrives\s+with the loop detectors/);
  assert.ok(events.includes('PreToolUse'), 'loops.deny refuses calls here as in the hook command');
  assert.match(page, /engine configuration \(`\{ repeat, loudFailure, loops \}`/);
});
