// `toolguard audit` on Claude Code transcripts and Codex rollouts recorded
// with the real CLIs (scripts/record/record-audit-fixtures.mjs), on OTLP/JSON
// written by the OpenTelemetry SDK (scripts/record/record-otlp-fixture.mjs), the
// default history locations, --since, --max-line-bytes, and input that is no
// log at all. The CLI runs as a child process on a real file system.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '../..');
const fixtures = join(root, '__test__/audit/fixtures');
const claudeDir = join(fixtures, 'claude-code');
const codexDir = join(fixtures, 'codex');
const slug = readdirSync(claudeDir).find((n) => n.startsWith('-'));
const session = readdirSync(join(claudeDir, slug))
  .find((n) => n.endsWith('.jsonl'))
  .slice(0, -'.jsonl'.length);
const mainTranscript = join(claudeDir, slug, `${session}.jsonl`);
const subagents = join(claudeDir, slug, session, 'subagents');
const subTranscript = join(
  subagents,
  readdirSync(subagents).find((n) => n.endsWith('.jsonl')),
);

function cli(args, env = {}) {
  const home = env.HOME ?? mkdtempSync(join(tmpdir(), 'toolguard-home-'));
  const run = spawnSync(process.execPath, [join(root, 'bin/toolguard.mjs'), 'audit', ...args], {
    cwd: root,
    encoding: 'utf8',
    // Colour variables deleted, not emptied: Node 22 warns on stderr when both are set.
    env: { ...withoutColor(process.env), CLAUDE_CONFIG_DIR: '', CODEX_HOME: '', ...env, HOME: home },
  });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

// These tests pin each reader's calls and DSH's result-blind reminders; the
// loop detectors (on by default) are tested in cli.test.mjs and the eval.
const DSH_EXACT = ['--config', join(root, '__test__/audit/dsh-exact.json')];

function withoutColor(env) {
  const out = { ...env };
  delete out.NO_COLOR;
  delete out.FORCE_COLOR;
  return out;
}

function json(args, env, codes = [0, 1]) {
  const run = cli(['--json', ...(args.some((a) => a.startsWith('--config')) ? [] : DSH_EXACT), ...args], env);
  assert.ok(codes.includes(run.code), run.stderr);
  return { ...run, doc: JSON.parse(run.stdout) };
}

const reminders = (s) => s.reminders.map((r) => [r.callId, r.tool, r.count]);
const failures = (s) => s.failures.map((f) => [f.callId, f.ruleId]);

test('Claude Code: a project folder with a transcript and its subagent, exact findings', () => {
  const { code, doc, stderr } = json([claudeDir]);
  assert.equal(stderr, '');
  assert.equal(code, 1);
  // Sorted by name: the session's folder (its subagents) before its transcript.
  assert.deepEqual(
    doc.sessions.map((s) => [s.format, s.calls, s.errors.length]),
    [
      ['claude-code', 3, 0],
      ['claude-code', 10, 0],
    ],
  );
  const [sub, main] = doc.sessions;
  assert.equal(main.sessionId, session);
  assert.deepEqual(reminders(main), [['toolu_a2_0', 'Bash', 3]]);
  assert.deepEqual(failures(main), [['toolu_a3_0', 'python-traceback']]);
  assert.equal(main.failures[0].command.split('\n')[0].slice(0, 6), 'printf');
  assert.deepEqual(reminders(sub), [['toolu_sub2', 'Bash', 3]]);
  assert.deepEqual(sub.agents, [sub.file.match(/agent-(\w+)\.jsonl$/)[1]]);
});

test('Claude Code: the older layout (<slug>/agent-*.jsonl beside the session) is found too', () => {
  const dir = mkdtempSync(join(tmpdir(), 'toolguard-cc-'));
  mkdirSync(join(dir, 'proj'));
  cpSync(mainTranscript, join(dir, 'proj', `${session}.jsonl`));
  cpSync(subTranscript, join(dir, 'proj', 'agent-a84ba710d36bfa1db.jsonl'));
  const { doc } = json([dir]);
  assert.deepEqual(
    doc.sessions.map((s) => reminders(s)),
    [[['toolu_a2_0', 'Bash', 3]], [['toolu_sub2', 'Bash', 3]]],
  );
});

test('Codex: a sessions folder, exact findings, exit code read from the output header', () => {
  const { code, doc } = json([codexDir, '--config', writeRule()]);
  assert.equal(code, 1);
  assert.equal(doc.sessions.length, 1);
  const [s] = doc.sessions;
  assert.equal(s.format, 'codex');
  assert.equal(s.calls, 9);
  assert.deepEqual(reminders(s), [['call_a2_0', 'exec_command', 3]]);
  // python-traceback (when: success) only on the exit-0 call; the always rule on both,
  // and only the exit-0 one is said to have exited 0.
  assert.deepEqual(failures(s), [
    ['call_a3_0', 'python-traceback'],
    ['call_a3_0', 'value-error'],
    ['call_a4_0', 'value-error'],
  ]);
});

function writeRule() {
  const file = join(mkdtempSync(join(tmpdir(), 'toolguard-rule-')), 'rules.json');
  writeFileSync(
    file,
    JSON.stringify({
      loops: false,
      loudFailure: { rules: [{ id: 'value-error', pattern: 'ValueError: bad', when: 'always', action: 'error', message: 'a ValueError' }] },
    }),
  );
  return file;
}

test('OTLP/JSON: GenAI and OpenInference tool spans, ids hex or base64, same findings', () => {
  const { doc } = json(['--format', 'otlp', join(fixtures, 'otlp/genai.jsonl'), join(fixtures, 'otlp/genai-base64.jsonl')]);
  const [hex, b64] = doc.sessions;
  for (const s of [hex, b64]) {
    assert.equal(s.format, 'otlp');
    assert.equal(s.calls, 9);
    assert.deepEqual(s.errors, []);
  }
  assert.deepEqual(reminders(hex), reminders(b64));
  assert.deepEqual(reminders(hex)[0], ['t3', 'bash', 3]);
  assert.deepEqual(
    failures(hex).map((f) => f[1]),
    ['python-traceback', 'pytest-failed', 'pytest-failed', 'pytest-failed'],
  );
});

test('no path: the Claude Code and Codex histories of the user, said on stderr', () => {
  const home = mkdtempSync(join(tmpdir(), 'toolguard-home-'));
  cpSync(claudeDir, join(home, '.claude/projects'), { recursive: true });
  cpSync(join(codexDir, 'sessions'), join(home, '.codex/sessions'), { recursive: true });
  const run = json([], { HOME: home });
  assert.match(run.stderr, /^toolguard audit: no FILES given, auditing .*\.claude\/projects and .*\.codex\/sessions\.\n$/);
  assert.deepEqual(
    run.doc.sessions.map((s) => s.format),
    ['claude-code', 'claude-code', 'codex'],
  );
  // $CLAUDE_CONFIG_DIR and $CODEX_HOME move them.
  const elsewhere = mkdtempSync(join(tmpdir(), 'toolguard-cfg-'));
  cpSync(claudeDir, join(elsewhere, 'projects'), { recursive: true });
  const moved = json([], { CLAUDE_CONFIG_DIR: elsewhere, CODEX_HOME: join(elsewhere, 'none') });
  assert.match(moved.stderr, /auditing .*toolguard-cfg-\w+\/projects\.\n$/);
  assert.equal(moved.doc.sessions.length, 2);
});

test('--since: older files are skipped, and older lines inside newer files', () => {
  const dir = mkdtempSync(join(tmpdir(), 'toolguard-since-'));
  cpSync(claudeDir, dir, { recursive: true });
  const main = join(dir, slug, `${session}.jsonl`);
  // The second prompt's time: only its two calls are newer.
  const again = readFileSync(main, 'utf8')
    .split('\n')
    .find((l) => l.includes('"content":"again"'));
  const since = JSON.parse(again).timestamp;
  const { doc } = json(['--since', since, main]);
  assert.deepEqual(
    doc.sessions.map((s) => [s.calls, s.reminders.length, s.errors.length]),
    [[2, 0, 0]],
  );
  // A file last written before --since is not read at all.
  const old = new Date('2020-01-01T00:00:00Z');
  utimesSync(main, old, old);
  // --since leaving nothing is exit 2 (a CI gate must not pass on nothing), unless --allow-empty.
  const none = cli(['--since', '2021-01-01', main]);
  assert.equal(none.code, 2, none.stderr);
  assert.match(none.stderr, /nothing to audit: --since left none of the 1 logs found.*--allow-empty/);
  assert.equal(none.stdout, '');
  assert.equal(json(['--since', '2021-01-01', '--allow-empty', main]).doc.sessions.length, 0);
  assert.equal(json(['--since', '7d', join(dir, slug)]).doc.sessions.length, 1);
  for (const bad of [
    ['--since', 'yesterday'],
    ['--max-line-bytes', '0'],
    ['--max-line-bytes', 'lots'],
  ]) {
    const run = cli([...bad, main]);
    assert.equal(run.code, 2, run.stderr);
    assert.match(run.stderr, new RegExp(bad[0]));
  }
});

test('--max-line-bytes: a longer line is reported with file and line, the rest is audited', () => {
  const dir = mkdtempSync(join(tmpdir(), 'toolguard-long-'));
  const file = join(dir, 'hostile.jsonl');
  const call = JSON.stringify({ tool: 'bash', arguments: { command: 'ls' }, output: 'x' });
  const long = `{"tool":"bash","output":"${'a'.repeat(3 << 20)}"}\n`;
  writeFileSync(file, `${call}\n${long}${call}\n${call}\n`);
  const { doc } = json(['--max-line-bytes', '1M', file]);
  const [s] = doc.sessions;
  assert.deepEqual(s.errors, [
    { line: 2, message: `line of ${long.length} bytes is longer than the limit of 1048576 bytes (--max-line-bytes), skipped` },
  ]);
  assert.equal(s.calls, 3);
  assert.deepEqual(reminders(s), [['line 4', 'bash', 3]]);
  // The default limit (256 MiB) reads it.
  assert.deepEqual(json([file]).doc.sessions[0].errors, []);
});

test('input that is no log: a binary file is one error, an unknown JSON shape one error', () => {
  const dir = mkdtempSync(join(tmpdir(), 'toolguard-bin-'));
  const bin = join(dir, 'blob.jsonl');
  const bytes = Buffer.alloc(3 << 20);
  for (let i = 0, x = 7; i < bytes.length; i++) {
    x = (x * 1103515245 + 12345) >>> 0;
    bytes[i] = x >>> 16;
  }
  writeFileSync(bin, bytes);
  const other = join(dir, 'other.jsonl');
  writeFileSync(other, '{"a":1}\n{"b":2}\n');
  // Nothing could be read from either: exit 2, the report still printed.
  const { doc } = json([bin, other], undefined, [2]);
  assert.deepEqual(
    doc.sessions.map((s) => [s.errorCount, s.errors[0].message.split(' (')[0]]),
    [
      [1, 'not a text log'],
      [1, 'not a line of any known log format'],
    ],
  );
});

test('a trace that starts with the documented user line is read as a trace', () => {
  const dir = mkdtempSync(join(tmpdir(), 'toolguard-trace-'));
  const file = join(dir, 't.jsonl');
  const call = JSON.stringify({ agentId: 'main', tool: 'bash', arguments: { command: 'ls' }, output: 'x' });
  writeFileSync(file, `{"type":"user","agentId":"main"}\n${call}\n${call}\n${call}\n`);
  const [s] = json([file]).doc.sessions;
  assert.equal(s.format, 'trace');
  assert.deepEqual(s.errors, []);
  assert.equal(s.reminders.length, 1);
});

test('no path and an empty ~/.claude/projects (Claude Code installed, never run): the bundled sample, not an error', () => {
  const home = mkdtempSync(join(tmpdir(), 'toolguard-home-'));
  mkdirSync(join(home, '.claude/projects'), { recursive: true });
  const run = cli([], { HOME: home });
  assert.equal(run.code, 1, run.stderr);
  assert.match(run.stderr, /auditing the sample sessions bundled with the package/);
  assert.match(run.stdout, /sample-main/);
});
