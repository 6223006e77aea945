// End-to-end tests of `toolguard audit`: the CLI runs as a child process on
// logs recorded from a real headless DSH loop (scripts/record/record-sample.mjs,
// plain and zstd), on generic traces, on broken logs and on directories.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '../..');
const fixtures = join(root, '__test__/audit/fixtures');
const project = '--home-dev-report-site--';
const mainPlain = join(fixtures, 'dsh-plain', project, 'sample-main/session.jsonl');
const mainZstd = join(fixtures, 'dsh-zstd', project, 'sample-main/session.jsonl.zstd');
const trace = join(fixtures, 'trace/agents.jsonl');
// The DSH-exact repeat reminders: the loop detectors (on by default) replace them.
const DSH_EXACT = ['--config', join(root, '__test__/audit/dsh-exact.json')];

// No Claude Code or Codex history of the machine running the tests may leak in.
const emptyHome = mkdtempSync(join(tmpdir(), 'toolguard-home-'));

/** The environment with no colour settings or agent histories of the caller's, plus `extra`. */
function withoutColorVars(extra = {}) {
  /** @type {NodeJS.ProcessEnv} */
  const env = { ...process.env, HOME: emptyHome };
  delete env.NO_COLOR;
  delete env.FORCE_COLOR;
  delete env.CLAUDE_CONFIG_DIR;
  delete env.CODEX_HOME;
  return { ...env, ...extra };
}

function cli(args, options = {}) {
  const run = spawnSync(process.execPath, [join(root, 'bin/toolguard.mjs'), ...args], {
    cwd: options.cwd ?? root,
    encoding: 'utf8',
    env: withoutColorVars(options.env),
    input: options.input,
  });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

function auditJson(args) {
  const run = cli(['audit', '--json', ...args]);
  assert.equal(run.stderr, '', run.stderr);
  return { code: run.code, doc: JSON.parse(run.stdout) };
}

const reminders = (s) => s.reminders.map((r) => [r.callId, r.tool, r.count]);
const failures = (s) => s.failures.map((f) => [f.callId, f.ruleId, f.action, f.line, f.excerpt]);

// What the recorded session holds (see scripts/record/record-sample.mjs).
const MAIN_REMINDERS = [
  ['call_06', 'bash', 3],
  ['call_08', 'bash', 5],
];
const MAIN_FAILURES = [
  ['call_01', 'missing-glyph', 'error', 1, '[WARNING] Missing character: There is no ≥ (U+2265) (U+2265) in font lmroman10-regular!'],
  ['call_02', 'python-traceback', 'error', 1, 'Traceback (most recent call last):'],
  ['call_02', 'missing-module', 'error', 4, "ModuleNotFoundError: No module named 'yaml'"],
];
const SUB_REMINDERS = [['call_12', 'read_file', 3]];

for (const [label, file] of [
  ['plain', mainPlain],
  ['zstd', mainZstd],
]) {
  test(`DSH log recorded by the real harness (${label}): exact findings, exit 1`, () => {
    const { code, doc } = auditJson([...DSH_EXACT, file]);
    assert.equal(code, 1);
    assert.equal(doc.sessions.length, 1);
    const [s] = doc.sessions;
    assert.equal(s.format, 'dsh');
    assert.equal(s.compressed, label === 'zstd');
    assert.equal(s.sessionId, 'sample-main');
    assert.equal(s.cwd, '/home/dev/report-site');
    assert.equal(s.calls, 9);
    assert.deepEqual(reminders(s), MAIN_REMINDERS);
    assert.deepEqual(failures(s), MAIN_FAILURES);
    assert.deepEqual(s.errors, []);
    // The extra fields: where, which command, which arguments.
    assert.equal(s.reminders[0].command, 'pytest -q tests/test_render.py');
    assert.equal(s.reminders[0].arguments, '{"command":"pytest -q tests/test_render.py"}');
    assert.equal(s.reminders[1].summary, 'bash × 5');
    assert.equal(s.failures[0].command, 'pandoc report.md -o report.pdf');
    assert.equal(s.failures[1].verdict, 'error');
    assert.equal(s.failures[1].summary, 'bash: python-traceback, missing-module');
    assert.deepEqual(doc.summary.rules, { 'missing-glyph': 1, 'python-traceback': 1, 'missing-module': 1 });
    assert.deepEqual([doc.summary.silentFailures, doc.summary.ruleMatches, s.silentFailures], [2, 3, 2]);
  });
}

test('audit reminders equal what the official plugin injected while recording', () => {
  // The official repeat-tool-reminder was mounted during the recording; its
  // notices are plugin-sourced user/message events in the log.
  for (const file of [mainPlain, join(fixtures, 'dsh-plain', project, 'sample-sub/session.jsonl')]) {
    const injected = readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line))
      .filter((e) => e.type === 'user/message' && e.data.source.kind === 'plugin' && e.data.source.plugin === 'repeat-tool-reminder')
      .map((e) => [e.data.source.summary, e.data.content[0].text]);
    const { doc } = auditJson([...DSH_EXACT, file]);
    assert.ok(injected.length > 0);
    assert.deepEqual(
      doc.sessions[0].reminders.map((r) => [r.summary, r.text]),
      injected,
    );
  }
});

test('a directory is searched for session logs; a subagent log has its own chain', () => {
  const { code, doc } = auditJson([...DSH_EXACT, '--format', 'dsh', fixtures]);
  assert.equal(code, 1);
  assert.deepEqual(
    doc.sessions.map((s) => [s.file.replace(/\\/g, '/'), s.sessionId, s.parentSession, s.calls]),
    [
      [`__test__/audit/fixtures/dsh-plain/${project}/sample-main/session.jsonl`, 'sample-main', null, 9],
      [`__test__/audit/fixtures/dsh-plain/${project}/sample-sub/session.jsonl`, 'sample-sub', 'sample-main', 5],
      [`__test__/audit/fixtures/dsh-zstd/${project}/sample-main/session.jsonl.zstd`, 'sample-main', null, 9],
      [`__test__/audit/fixtures/dsh-zstd/${project}/sample-sub/session.jsonl.zstd`, 'sample-sub', 'sample-main', 5],
    ],
  );
  for (const s of doc.sessions) {
    if (s.sessionId === 'sample-sub') {
      assert.deepEqual(reminders(s), SUB_REMINDERS);
      assert.deepEqual(failures(s), []);
    } else {
      assert.deepEqual(reminders(s), MAIN_REMINDERS);
    }
  }
  assert.deepEqual(
    {
      files: doc.summary.files,
      calls: doc.summary.calls,
      reminders: doc.summary.reminders,
      failures: doc.summary.failures,
      errors: doc.summary.errors,
    },
    { files: 4, calls: 28, reminders: 6, failures: 6, errors: 0 },
  );
});

test('no file argument: the bundled sample (a loop and a silent failure), and it says so', () => {
  const run = cli(['audit', '--json', ...DSH_EXACT]);
  assert.match(run.stderr, /no FILES given, auditing the sample sessions bundled with the package \(samples[\\/]dsh\)/);
  const { code, doc } = { code: run.code, doc: JSON.parse(run.stdout) };
  assert.equal(code, 1);
  assert.deepEqual(
    doc.sessions.map((s) => s.sessionId),
    ['sample-main', 'sample-sub'],
  );
  assert.ok(doc.sessions.every((s) => s.compressed && s.file.endsWith('session.jsonl.zstd')));
  assert.deepEqual(reminders(doc.sessions[0]), MAIN_REMINDERS);
  assert.deepEqual(failures(doc.sessions[0]), MAIN_FAILURES);
  // Runs from any directory (the sample is found relative to the package).
  const elsewhere = cli(['audit', '--json', ...DSH_EXACT], { cwd: tmpdir() });
  assert.equal(elsewhere.code, 1);
  assert.equal(JSON.parse(elsewhere.stdout).summary.reminders, 3);
});

test('human output: aligned table, no colour when not a TTY, summary line', () => {
  const { code, stdout } = cli(['audit', ...DSH_EXACT, mainPlain]);
  assert.equal(code, 1);
  // biome-ignore lint/suspicious/noControlCharactersInRegex: ESC (\x1b) is the ANSI escape this test checks for
  assert.doesNotMatch(stdout, /\x1b\[/);
  const lines = stdout.split('\n');
  const header = lines.find((l) => l.includes('FINDING'));
  assert.match(header, /^\s+LINE\s+CALL\s+TOOL\s+FINDING\s+DETAIL$/);
  const column = header.indexOf('FINDING');
  const rows = lines.filter((l) => /^\s+\d+\s+call_/.test(l));
  // The pytest run reached the reminders at 3 and 5: one loop, one row.
  assert.equal(rows.length, 3);
  for (const row of rows) assert.equal(row[column - 1], ' ');
  assert.deepEqual(
    rows.map((r) => r.slice(column).split(/\s{2,}/)[0]),
    ['missing-glyph', 'python-traceback, missing-module', 'loop × 5+'],
  );
  assert.ok(lines.some((l) => l.trim() === '$ make docs 2>&1 | tail -n 5'));
  // Calls and rules are not mixed: 2 calls failed (silent failures), 3 rules matched them.
  assert.equal(
    lines.find((l) => l.startsWith('Summary:')),
    'Summary: 1 session in 1 log · 9 tool calls · 2 repeat reminders · 2 silent failures (3 rule matches: missing-glyph 1, python-traceback 1, missing-module 1) · 0 input errors',
  );
});

test('loop detectors by default: one finding and one table row per loop, raised at its 3rd call, with its real count', () => {
  const { code, doc } = auditJson([mainPlain]);
  assert.equal(code, 1);
  const [s] = doc.sessions;
  assert.deepEqual(s.reminders, [], 'the result-aware repeat replaces the result-blind one');
  // pytest ×5 with the same failing output (call_04..call_08): raised at the
  // 3rd, then alarmed at every later one; one finding with the count it reached.
  assert.deepEqual(
    s.loops.map((l) => [l.callId, l.tool, l.kind, l.count, l.reminders, l.firstCall, l.lastCall]),
    [['call_06', 'bash', 'repeat', 5, 3, 4, 8]],
  );
  assert.deepEqual(Object.keys(s.loops[0]), [
    'ordinal',
    'callId',
    'tool',
    'agentId',
    'logLine',
    'seq',
    'turn',
    'kind',
    'count',
    'period',
    'firstCall',
    'lastCall',
    'lastLogLine',
    'calls',
    'summary',
    'evidence',
    'text',
    'reminders',
    'command',
    'waste',
  ]);
  assert.deepEqual(s.loops[0].calls, [4, 5, 6, 7, 8]);
  assert.equal(s.loops[0].summary, 'bash: repeat × 5');
  assert.match(s.loops[0].text, /^\[toolguard\] Loop detected: bash was called 3 times in a row/);
  // The call numbers are the timeline's.
  assert.deepEqual(
    s.loops[0].calls.map((o) => s.timeline.calls[o - 1].callId),
    ['call_04', 'call_05', 'call_06', 'call_07', 'call_08'],
  );
  assert.deepEqual(failures(s), MAIN_FAILURES, 'silent failures unchanged');
  assert.equal(doc.summary.loops, 1);
  const human = cli(['audit', mainPlain]).stdout;
  assert.equal(human.split('\n').filter((l) => /^\s+\d+\s+call_/.test(l) && l.includes('repeat × 5')).length, 1, human);
  // --fail-on loop counts loop alarms.
  assert.equal(cli(['audit', '--fail-on', 'loop', mainPlain]).code, 1);
});

test('generic trace: agents, user resets, exit codes, isError, unscanned tools', () => {
  const { code, doc } = auditJson([...DSH_EXACT, trace]);
  assert.equal(code, 1);
  const [s] = doc.sessions;
  assert.equal(s.format, 'trace');
  assert.deepEqual(s.agents, ['planner', 'coder']);
  assert.equal(s.calls, 10);
  // planner: t2 then the user spoke, so t6..t8 count 1..3 (t7 without the reset).
  assert.deepEqual(
    s.reminders.map((r) => [r.agentId, r.callId, r.count]),
    [
      ['coder', 't5', 3],
      ['planner', 't8', 3],
    ],
  );
  // t2 exited 1 (already visible), t9 is an error result; t10's tool `shell`
  // (Codex's name) is a shell tool by the one default list.
  assert.deepEqual(failures(s), [
    ['t1', 'tsc-error', 'error', 4, "src/index.ts(3,14): error TS2322: Type 'string' is not assignable to type 'number'."],
    // The shell's `command not found` line is command-not-found's alone (program-message would misdescribe it).
    ['t10', 'command-not-found', 'error', 1, './deploy.sh: line 12: kubectl: command not found'],
  ]);
  assert.deepEqual(s.errors, []);
});

test('--config JSON and YAML: same document, thresholds and rules applied', () => {
  const a = auditJson(['--config', join(fixtures, 'config/guard.json'), trace]);
  const b = auditJson(['--config', join(fixtures, 'config/guard.yaml'), trace]);
  assert.deepEqual(a.doc, b.doc);
  const [s] = a.doc.sessions;
  assert.deepEqual(
    s.reminders.map((r) => [r.callId, r.count]),
    [
      ['t4', 2],
      ['t7', 2],
    ],
  );
  assert.deepEqual(
    s.failures.map((f) => [f.callId, f.ruleId, f.action, f.verdict]),
    [
      ['t1', 'tsc-error', 'error', 'error'],
      ['t10', 'command-not-found', 'error', 'error'],
      ['t10', 'deploy-skipped', 'context', 'error'],
    ],
  );
  assert.equal(s.failures[1].command, './deploy.sh');
});

test('bad config and bad usage exit 2 with a message naming the problem', () => {
  const dir = mkdtempSync(join(tmpdir(), 'toolguard-audit-'));
  const bad = join(dir, 'bad.json');
  writeFileSync(bad, JSON.stringify({ repeat: { thresholds: [1] } }));
  const unknown = join(dir, 'unknown.yaml');
  writeFileSync(unknown, 'repeats:\n  thresholds: [3]\n');
  const tabs = join(dir, 'tabs.yaml');
  writeFileSync(tabs, 'repeat:\n\tthresholds: [3]\n');
  /** @type {Array<[string[], RegExp]>} */
  const cases = [
    [['audit', '--config', bad, trace], /repeat-tool-reminder: invalid threshold 1 — every threshold must be an integer >= 2/],
    [['audit', '--config', unknown, trace], /unknown key config\.repeats/],
    [['audit', '--config', tabs, trace], /tabs\.yaml:2: not valid YAML: tabs disallowed/],
    [['audit', '--config', unknown, trace], /unknown\.yaml:1: toolguard: unknown key config\.repeats/],
    [['audit', '--config', join(dir, 'missing.json'), trace], /cannot read config/],
    [['audit', '--config'], /--config needs a value/],
    [['audit', '--format', 'xml', trace], /--format must be one of auto, dsh, trace/],
    [['audit', '--fail-on', 'sometimes', trace], /--fail-on must be one of loop, failure, any, none/],
    [['audit', '--bogus'], /unknown option --bogus/],
    [['audits'], /unknown command "audits"/],
    [[], /Usage: toolguard <command>/],
  ];
  for (const [args, message] of cases) {
    const run = cli(args);
    assert.equal(run.code, 2, `${args.join(' ')}: ${run.stderr}`);
    assert.match(run.stderr, message);
    assert.equal(run.stdout, '');
  }
  assert.equal(cli(['audit', '--help']).code, 0);
});

test('exit codes follow --fail-on', () => {
  const onlyFailure = join(mkdtempSync(join(tmpdir(), 'toolguard-audit-')), 'failure.jsonl');
  writeFileSync(
    onlyFailure,
    JSON.stringify({
      tool: 'bash',
      arguments: { command: 'curl -sf https://x' },
      output: 'curl: (6) Could not resolve host: x',
      exitCode: 0,
    }) + '\n',
  );
  const clean = join(fixtures, 'trace/clean.jsonl');
  /** @type {Array<[string[], number]>} */
  const expect = [
    [[clean], 0],
    [['--fail-on', 'none', trace], 0],
    [['--fail-on', 'loop', onlyFailure], 0],
    [['--fail-on', 'failure', onlyFailure], 1],
    [['--fail-on=any', onlyFailure], 1],
    [['--fail-on', 'loop', trace], 1],
  ];
  for (const [args, code] of expect) {
    const run = cli(['audit', ...args]);
    assert.equal(run.code, code, `${args.join(' ')}\n${run.stdout}${run.stderr}`);
  }
  assert.equal(auditJson(['--fail-on', 'none', trace]).doc.summary.exitCode, 0);
});

test('malformed DSH log: each bad line reported with its number and skipped, findings kept', () => {
  const lines = readFileSync(mainPlain, 'utf8').trimEnd().split('\n');
  const resultLine = lines.find((l) => l.includes('"toolCallId":"call_03"'));
  const out = [...lines];
  const last = out.pop(); // turn/end: becomes a truncated tail
  // Inserted top down at their final indices (line = index + 1).
  out.splice(10, 0, '["not", "an", "event"]'); // line 11
  out.splice(20, 0, '{"type":"tool/call","seq":'); // line 21
  out.splice(40, 0, resultLine.replaceAll('call_03', 'call_99')); // line 41
  out.splice(99, 0, '{"type":"workspace/snapshot","seq":1000,"time":1,"data":{},"ignorable":true}'); // line 100, silent
  out.splice(100, 0, '{"type":"workspace/snapshot","seq":1000,"time":1,"data":{}}'); // line 101
  out.push(last.slice(0, 20));
  const dir = mkdtempSync(join(tmpdir(), 'toolguard-audit-'));
  const file = join(dir, 'session.jsonl');
  writeFileSync(file, out.join('\n')); // no final newline: the tail is cut
  const { code, doc } = auditJson([...DSH_EXACT, file]);
  assert.equal(code, 1);
  const [s] = doc.sessions;
  assert.deepEqual(
    s.errors.map((e) => [e.line, e.message.split(/[:(]/)[0].trim()]),
    [
      [11, 'not a JSON object'],
      [21, 'malformed JSON'],
      [41, 'tool/result for callId "call_99" without a tool/call before it, skipped'],
      [101, 'unknown event type "workspace/snapshot"'],
      [out.length, 'truncated last line'],
    ],
  );
  assert.deepEqual(reminders(s), MAIN_REMINDERS);
  assert.deepEqual(failures(s), MAIN_FAILURES);
  assert.equal(doc.summary.errors, 5);
  // The human report names file and line too.
  const human = cli(['audit', file]).stdout;
  assert.match(human, /! line 41: tool\/result for callId "call_99"/);
});

test('zstd log cut mid-frame: the decoded part is audited, the cut reported', () => {
  const dir = mkdtempSync(join(tmpdir(), 'toolguard-audit-'));
  const file = join(dir, 'session.jsonl.zstd');
  const bytes = readFileSync(mainZstd);
  writeFileSync(file, bytes.subarray(0, bytes.length - 30));
  const { doc } = auditJson([...DSH_EXACT, file]);
  const [s] = doc.sessions;
  assert.ok(
    s.errors.some((e) => /truncated/.test(e.message)),
    JSON.stringify(s.errors),
  );
  assert.deepEqual(failures(s), MAIN_FAILURES);
  assert.deepEqual(reminders(s), MAIN_REMINDERS);
});

test('only a user-sourced user/message resets the chain (a plugin wake does not)', () => {
  // The recorded log has pytest x5 in turn 1 (call_04..08) and once more
  // (call_14) after the user spoke. With thresholds [3, 6] call_14 is count 1
  // after the reset; relabel that prompt as a plugin notice and it is count 6.
  const dir = mkdtempSync(join(tmpdir(), 'toolguard-audit-'));
  const config = join(dir, 'guard.json');
  writeFileSync(config, JSON.stringify({ repeat: { thresholds: [3, 6] }, loops: false }));
  mkdirSync(join(dir, project, 'sample-main'), { recursive: true });
  const file = join(dir, project, 'sample-main', 'session.jsonl');
  copyFileSync(mainPlain, file);
  assert.deepEqual(reminders(auditJson(['--config', config, dir]).doc.sessions[0]), [['call_06', 'bash', 3]]);
  const lines = readFileSync(mainPlain, 'utf8').trimEnd().split('\n');
  const prompt = lines.findIndex((l) => l.startsWith('{"type":"user/message"') && l.includes('"text":"The toc fixture returns {}'));
  assert.ok(prompt > 0);
  lines[prompt] = lines[prompt].replace(
    '"source":{"kind":"user"}',
    '"source":{"kind":"plugin","plugin":"cron","form":"notice","summary":"wake"}',
  );
  writeFileSync(file, lines.join('\n') + '\n');
  assert.deepEqual(reminders(auditJson(['--config', config, dir]).doc.sessions[0]), [
    ['call_06', 'bash', 3],
    ['call_14', 'bash', 6],
  ]);
});
