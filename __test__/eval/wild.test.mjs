// The real-session evaluation (scripts/eval/wild.eval.mjs): its scorer is
// right on tiny synthetic cases, its readers name calls as docs/evaluation.md says, the
// committed labels are well-formed and carry no session content beyond a short
// command line, and the eval skips cleanly (exit 0, says so) without ../shared.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { loadLabels } from '../../scripts/eval/wild.eval.mjs';
import { readWildFile } from '../../scripts/eval/wild/calls.mjs';
import { callFailed, changesState, falseText, scoreLoops, scoreSilent, sessionKey } from '../../scripts/eval/wild/score.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '../..');

test('scoreLoops: caught, missed, a benign stretch alarmed, other alarms grouped into episodes, uncovered sessions left out', () => {
  const labels = {
    stuck: [
      { file: 'a', session: 0, first: 5, last: 9, kind: 'poll-no-change' },
      { file: 'a', session: 0, first: 30, last: 32, kind: 'edit-rejected' },
      { file: 'b', session: 1, first: 1, last: 4, kind: 'same-call-same-result' },
    ],
    benign: [{ file: 'a', session: 0, first: 12, last: 15, kind: 'restore' }],
  };
  const a = sessionKey('a', 0);
  const alarms = [
    { key: a, ordinal: 7 },
    { key: a, ordinal: 8 }, // inside the first stuck episode
    { key: a, ordinal: 13 }, // inside the benign stretch
    { key: a, ordinal: 40 },
    { key: a, ordinal: 45 }, // one other episode (5 apart)
    { key: a, ordinal: 70 }, // another (25 after)
    { key: sessionKey('b', 1), ordinal: 2 }, // in a session this system does not cover
  ];
  const r = scoreLoops(labels, alarms, new Set([a]));
  assert.equal(r.episodes, 2);
  assert.equal(r.caught, 1);
  assert.deepEqual(
    r.missed.map((e) => e.first),
    [30],
  );
  assert.equal(r.trapsAlarmed.length, 1);
  assert.deepEqual(
    r.otherEpisodes.map((e) => [e.first, e.last, e.alarms.length]),
    [
      [40, 45, 2],
      [70, 70, 1],
    ],
  );
  assert.equal(r.falseEpisodes, 3);
});

test('scoreSilent: recall and precision over the labelled outputs, per class, flags outside the labels apart', () => {
  const labels = {
    labels: [
      { file: 'a', session: 0, ordinal: 1, label: 'failure', class: 'http-error' },
      { file: 'a', session: 0, ordinal: 2, label: 'failure', class: 'hidden-traceback' },
      { file: 'a', session: 0, ordinal: 3, label: 'benign', class: 'repro' },
      { file: 'a', session: 0, ordinal: 4, label: 'benign', class: 'content' },
      { file: 'z', session: 0, ordinal: 1, label: 'failure', class: 'http-error' },
    ],
  };
  const a = sessionKey('a', 0);
  const r = scoreSilent(
    labels,
    [
      { key: a, ordinal: 2 },
      { key: a, ordinal: 3 },
      { key: a, ordinal: 9 },
    ],
    new Set([a]),
  );
  assert.equal(r.failures, 2);
  assert.equal(r.hits, 1);
  assert.equal(r.recall, 0.5);
  assert.equal(r.falseAlarms, 1);
  assert.equal(r.precision, 0.5);
  assert.equal(r.unlabelled, 1);
  assert.deepEqual(r.byClass['failure/http-error'], { label: 'failure', class: 'http-error', n: 1, flagged: 0 });
  assert.deepEqual(r.byClass['benign/repro'], { label: 'benign', class: 'repro', n: 1, flagged: 1 });
  assert.equal(scoreSilent(labels, [], new Set()).recall, null);
});

test('falseText: a re-read text on a write, a same-result text on a changed result, a same-error text without a failure', () => {
  const calls = [
    { ordinal: 1, tool: 'bash', command: 'cat a.py', output: 'x', exitCode: 0 },
    { ordinal: 2, tool: 'bash', command: 'git diff > fix.patch', output: '', exitCode: 0 },
    { ordinal: 3, tool: 'BashOutput', args: { bash_id: '1' }, command: null, output: 'step 1', exitCode: null },
    { ordinal: 4, tool: 'BashOutput', args: { bash_id: '1' }, command: null, output: 'step 1\nstep 2', exitCode: null },
    { ordinal: 5, tool: 'BashOutput', args: { bash_id: '1' }, command: null, output: 'step 1\nstep 2', exitCode: null },
    { ordinal: 6, tool: 'bash', command: 'grep -n foo x.py', output: '', exitCode: 1 },
    { ordinal: 7, tool: 'bash', command: 'pytest', output: 'E   assert 1 == 2', exitCode: 1 },
    { ordinal: 8, tool: 'browser_click', args: { index: 3 }, command: null, output: 'Clicked element 3', exitCode: null },
  ];
  assert.match(falseText({ ordinal: 2, kind: 're-read' }, calls), /changes state/);
  assert.equal(falseText({ ordinal: 1, kind: 're-read' }, calls), null);
  assert.match(falseText({ ordinal: 8, kind: 're-read' }, calls), /changes state/);
  assert.match(falseText({ ordinal: 4, kind: 'repeat' }, calls), /changed/);
  assert.equal(falseText({ ordinal: 5, kind: 'repeat' }, calls), null);
  assert.match(falseText({ ordinal: 6, kind: 'same-error' }, calls), /did not fail/);
  assert.equal(falseText({ ordinal: 7, kind: 'same-error' }, calls), null);
  assert.equal(changesState({ tool: 'bash', command: 'cp f.orig f' }), true);
  assert.equal(changesState({ tool: 'bash', command: 'ls > /dev/null' }), false);
  assert.equal(changesState({ tool: 'str_replace_editor', args: { command: 'view' } }), false);
  assert.equal(
    callFailed({ tool: 'edit', command: 'edit 1:2', output: 'Your proposed edit has introduced new syntax error(s).', exitCode: null }),
    true,
  );
});

test('readers: a Codex text log names a multi-line command and takes its status from the later status line', () => {
  const dir = mkdtempSync(join(tmpdir(), 'wild-reader-'));
  mkdirSync(join(dir, 'c'));
  writeFileSync(
    join(dir, 'c/agent.log'),
    [
      '[2025-08-24T08:02:01] exec bash -lc \'printf "4',
      '0 0',
      '" | python3 solution.py\' in /app',
      '[2025-08-24T08:02:01] bash -lc \'printf "4',
      '0 0',
      '" | python3 solution.py\' succeeded in 785ms:',
      '6',
      '[2025-08-24T08:02:02] tokens used: 10',
      '[2025-08-24T08:02:03] exec update_plan in /app',
      '[2025-08-24T08:02:03] update_plan exited -1 in 0ms:',
      'No such file or directory (os error 2)',
      '',
    ].join('\n'),
  );
  const [calls] = readWildFile({ file: 'c/agent.log', kind: 'codex-exec-text-log' }, dir);
  assert.deepEqual(
    calls.map((c) => [c.ordinal, c.exitCode, c.output]),
    [
      [1, 0, '6'],
      [2, -1, 'No such file or directory (os error 2)'],
    ],
  );
  assert.match(calls[0].command, /^bash -lc 'printf "4\n0 0\n" \| python3 solution.py'$/);
});

test('readers: a mini-swe-agent terminal log reads a command killed at its timeout as a failed call', () => {
  // Synthetic (not session text): the harness's timeout message, its line
  // wrapped by the terminal, between two ordinary observations.
  const dir = mkdtempSync(join(tmpdir(), 'wild-reader-'));
  mkdirSync(join(dir, 'm'));
  writeFileSync(
    join(dir, 'm/agent.log'),
    [
      'mini-swe-agent (step 1, $0.01):',
      '```bash',
      'ls',
      '```',
      '',
      'User:',
      '<returncode>0</returncode>',
      '<output>',
      'a',
      '</output>',
      'mini-swe-agent (step 2, $0.02):',
      '```bash',
      'sleep 999',
      '```',
      '',
      'User:',
      'The last command <command>sleep 999</command> timed out and has been ',
      'killed.',
      'The output of the command was:',
      ' <output>',
      'partial',
      '</output>',
      'Please try another command and make sure to avoid those requiring interactive input.',
      'mini-swe-agent (step 3, $0.03):',
      '```bash',
      'false',
      '```',
      '',
      'User:',
      '<returncode>1</returncode>',
      '<output>',
      '</output>',
      '',
    ].join('\n'),
  );
  const [calls] = readWildFile({ file: 'm/agent.log', kind: 'mini-swe-agent terminal log' }, dir);
  assert.deepEqual(
    calls.map((c) => [c.ordinal, c.command, c.exitCode, c.isError]),
    [
      [1, 'ls', 0, false],
      [2, 'sleep 999', null, true],
      [3, 'false', 1, false],
    ],
  );
  assert.match(
    calls[1].output,
    /^The last command <command>sleep 999<\/command> timed out and has been \nkilled\.[\s\S]*partial\n<\/output>$/,
  );
});

test('readers: a classic SWE-agent step the harness stopped at its timeout is a failed call', () => {
  const dir = mkdtempSync(join(tmpdir(), 'wild-reader-'));
  mkdirSync(join(dir, 's'));
  writeFileSync(
    join(dir, 's/run.traj'),
    JSON.stringify({
      trajectory: [
        { action: 'python slow.py\n', observation: 'partial\nEXECUTION TIMED OUT' },
        { action: 'sleep 999', observation: "The command 'sleep 999' was cancelled because it took more than 30 seconds." },
        { action: 'ls', observation: 'a.py' },
      ],
    }),
  );
  const [calls] = readWildFile({ file: 's/run.traj', kind: 'swe-agent-traj' }, dir);
  assert.deepEqual(
    calls.map((c) => c.isError),
    [true, true, false],
  );
});

test('labels: well-formed, named as docs/evaluation.md says, no session content beyond a one-line command', () => {
  const { loops, silent } = loadLabels();
  assert.ok(loops.stuck.length >= 20 && loops.benign.length >= 20);
  for (const r of [...loops.stuck, ...loops.benign]) {
    assert.equal(typeof r.file, 'string');
    assert.ok(
      Number.isInteger(r.session) && Number.isInteger(r.first) && Number.isInteger(r.last) && r.first >= 1 && r.first <= r.last,
      JSON.stringify(r),
    );
    assert.ok(r.kind && r.note && r.note.length < 400);
  }
  const seen = new Set();
  for (const l of silent.labels) {
    assert.ok(['failure', 'benign'].includes(l.label), l.label);
    assert.ok(Number.isInteger(l.session) && Number.isInteger(l.ordinal) && l.ordinal >= 1);
    assert.ok(l.class && l.note);
    assert.ok(!l.command.includes('\n') && l.command.length <= 120, l.command);
    const id = `${l.file}#${l.session}@${l.ordinal}`;
    assert.ok(!seen.has(id), `labelled twice: ${id}`);
    seen.add(id);
  }
});

test('the eval skips cleanly, exit 0 and a message, when the real sessions are absent', () => {
  const r = spawnSync(process.execPath, [join(root, 'scripts/eval/wild.eval.mjs')], {
    encoding: 'utf8',
    env: { ...process.env, TOOLGUARD_WILD: join(tmpdir(), 'no-such-wild-dir') },
  });
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /absent .*skipped/);
});

test('scoreSilent alarm=error: context verdicts are neither catches nor false alarms, counted apart', () => {
  const labels = {
    labels: [
      { file: 'a', session: 0, ordinal: 1, label: 'failure', class: 'http-error' },
      { file: 'a', session: 0, ordinal: 2, label: 'failure', class: 'or-echo' },
      { file: 'a', session: 0, ordinal: 3, label: 'benign', class: 'repro' },
      { file: 'a', session: 0, ordinal: 4, label: 'benign', class: 'probe' },
    ],
  };
  const a = sessionKey('a', 0);
  const flags = [
    { key: a, ordinal: 1, action: 'error' },
    { key: a, ordinal: 2, action: 'context' },
    { key: a, ordinal: 3, action: 'context' },
    { key: a, ordinal: 4, action: 'error' },
    { key: a, ordinal: 9, action: 'context' },
  ];
  const any = scoreSilent(labels, flags, new Set([a]));
  assert.equal(any.recall, 1);
  assert.equal(any.precision, 0.5);
  assert.equal(any.unlabelled, 1);
  const r = scoreSilent(labels, flags, new Set([a]), { alarm: 'error' });
  assert.equal(r.hits, 1);
  assert.equal(r.recall, 0.5);
  assert.equal(r.falseAlarms, 1);
  assert.equal(r.precision, 0.5);
  assert.equal(r.contextOnFailures, 1);
  assert.equal(r.contextOnBenign, 1);
  assert.equal(r.unlabelled, 0);
  assert.deepEqual(r.byClass['benign/repro'], { label: 'benign', class: 'repro', n: 1, flagged: 0, context: 1 });
  assert.deepEqual(
    r.misses.map((l) => l.ordinal),
    [2],
  );
});

test('held-out loop labels: data only (short notes, no session text), every labelled file has its provenance', () => {
  const labels = JSON.parse(readFileSync(join(root, 'corpus/wild-labels/heldout-loops.json'), 'utf8'));
  const sources = JSON.parse(readFileSync(join(root, 'corpus/wild-labels/heldout-loops-sources.json'), 'utf8'));
  const calls = new Map(sources.sessions.map((s) => [s.file, s.calls]));
  for (const s of sources.sessions) {
    assert.match(s.repo, /^[\w.-]+\/[\w.-]+$/, s.file);
    assert.match(s.commit, /^[0-9a-f]{40}$/, s.file);
    assert.match(s.sha256, /^[0-9a-f]{64}$/, s.file);
    assert.ok(s.path && s.format && Number.isInteger(s.calls), s.file);
  }
  assert.ok(labels.stuck.length > 0 && labels.benign.length > 0);
  for (const r of [...labels.stuck, ...labels.benign]) {
    assert.ok(calls.has(r.file), `no provenance for ${r.file}`);
    assert.ok(r.session === 0 && r.first >= 1 && r.first <= r.last && r.last <= calls.get(r.file), JSON.stringify(r));
    assert.ok(r.kind && r.note && r.note.length < 400 && !r.note.includes('\n'), r.note);
  }
});

test('--wild DIR --labels FILE scores another session folder with the same code; a missing half or folder is an error', () => {
  const eval_ = join(root, 'scripts/eval/wild.eval.mjs');
  const dir = mkdtempSync(join(tmpdir(), 'heldout-loops-'));
  // one Claude Code session: five identical failing test runs, then a fix
  const lines = [];
  for (let i = 1; i <= 6; i++) {
    const ok = i === 6;
    lines.push(
      {
        type: 'assistant',
        sessionId: 's',
        uuid: `a${i}`,
        timestamp: `2026-01-01T00:00:0${i}Z`,
        message: {
          role: 'assistant',
          content: [
            { type: 'tool_use', id: `t${i}`, name: 'Bash', input: { command: ok ? 'sed -i s/a/b/ x.py' : 'pytest -q tests/test_x.py' } },
          ],
        },
      },
      {
        type: 'user',
        sessionId: 's',
        uuid: `u${i}`,
        timestamp: `2026-01-01T00:00:0${i}Z`,
        message: {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: `t${i}`, content: ok ? '' : 'E   AssertionError: 1 != 2\n1 failed in 0.1s', is_error: !ok },
          ],
        },
      },
    );
  }
  writeFileSync(join(dir, 's.jsonl'), `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`);
  writeFileSync(join(dir, 'manifest.json'), JSON.stringify([{ file: 's.jsonl', format: 'claude-code-jsonl' }]));
  const labels = join(dir, 'labels.json');
  writeFileSync(
    labels,
    JSON.stringify({ stuck: [{ file: 's.jsonl', session: 0, first: 1, last: 5, kind: 'same-call-same-error', note: 'n' }], benign: [] }),
  );
  const r = spawnSync(process.execPath, [eval_, '--wild', dir, '--labels', labels, '--json'], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  const doc = JSON.parse(r.stdout);
  assert.equal(doc.sessions, 1);
  assert.deepEqual(doc.silent, []);
  const engine = doc.loops.find((l) => l.name === 'toolguard engine');
  assert.equal(engine.episodes, 1);
  assert.equal(engine.caught, 1);
  assert.equal(doc.loops.find((l) => l.name === 'toolguard audit').caught, 1);
  const half = spawnSync(process.execPath, [eval_, '--wild', dir], { encoding: 'utf8' });
  assert.equal(half.status, 2);
  assert.match(half.stderr, /--wild DIR and --labels FILE go together/);
  const none = spawnSync(process.execPath, [eval_, '--wild', join(dir, 'nope'), '--labels', labels], { encoding: 'utf8' });
  assert.equal(none.status, 2);
  assert.match(none.stderr, /no manifest\.json/);
});

test('readers: a terminal log echoing observations inside a LiteLLM traceback has only its real calls', () => {
  const dir = mkdtempSync(join(tmpdir(), 'wild-reader-'));
  mkdirSync(join(dir, 't'));
  writeFileSync(
    join(dir, 't/agent.log'),
    [
      'mini-swe-agent (step 1, $0.01):',
      'THOUGHT: look around',
      '',
      '```bash',
      'ls -la',
      '```',
      '',
      'User:',
      '<returncode>0</returncode>',
      '<output>',
      'total 8',
      '</output>',
      'LiteLLM:ERROR Traceback (most recent call last):',
      "│ │   │   'text': '<returncode>0</returncode>\\n<output>\\ntotal 8'+107 │ │",
      "│ │   │   'text': '<returncode>1</returncode>\\n<output>\\nboom'+12 │ │",
      '',
    ].join('\n'),
  );
  const [calls] = readWildFile({ file: 't/agent.log', kind: 'mini-swe-agent terminal log' }, dir);
  assert.equal(calls.length, 1);
  assert.equal(calls[0].command, 'ls -la');
  assert.equal(calls[0].exitCode, 0);
});

test('readers give the engine row what a live host gives: the concurrent bit of parallel calls, mini-swe-agent output untemplated', () => {
  // Synthetic (not session text), in each format's shapes.
  const dir = mkdtempSync(join(tmpdir(), 'wild-reader-'));
  mkdirSync(join(dir, 'h'));
  const use = (id, command) => ({ type: 'tool_use', id, name: 'Bash', input: { command } });
  const result = (id) => ({ type: 'tool_result', tool_use_id: id, content: 'mkdir: logs: No such file or directory' });
  const line = (type, content) => JSON.stringify({ type, timestamp: '2025-01-01T00:00:00Z', message: { role: type, content } });
  // Claude Code: three blocks before any result (one model turn), then one after them.
  writeFileSync(
    join(dir, 'h/claude.jsonl'),
    [
      line('assistant', [use('a', 'touch logs/a'), use('b', 'touch logs/b'), use('c', 'touch logs/c')]),
      line('user', [result('a'), result('b'), result('c')]),
      line('assistant', [use('d', 'touch logs/d')]),
      line('user', [result('d')]),
    ].join('\n'),
  );
  const [claude] = readWildFile({ file: 'h/claude.jsonl', kind: 'claude-code-jsonl' }, dir);
  assert.deepEqual(
    claude.map((c) => c.concurrent),
    [false, true, true, false],
  );
  // OpenHands V1: actions of one model response.
  const action = (id, response) => ({
    kind: 'ActionEvent',
    id,
    tool_call_id: `t${id}`,
    tool_name: 'terminal',
    llm_response_id: response,
    action: { kind: 'ExecuteBashAction', command: `ls ${id}` },
  });
  writeFileSync(join(dir, 'h/v1.jsonl'), JSON.stringify({ history: [action('1', 'r1'), action('2', 'r1'), action('3', 'r2')] }));
  const [v1] = readWildFile({ file: 'h/v1.jsonl', kind: 'openhands-v1-sdk-events' }, dir);
  assert.deepEqual(
    v1.map((c) => c.concurrent),
    [false, true, false],
  );
  // mini-swe-agent v2: a grep that found nothing is an empty output with status 1 to a live host.
  writeFileSync(
    join(dir, 'h/mini.traj.json'),
    JSON.stringify({
      messages: [
        { role: 'assistant', tool_calls: [{ id: 'x', function: { name: 'bash', arguments: '{"command":"grep -n foo a.py"}' } }] },
        {
          role: 'tool',
          tool_call_id: 'x',
          content: '<returncode>1</returncode>\n<output>\n</output>',
          extra: { raw_output: '', returncode: 1, exception_info: '' },
        },
      ],
    }),
  );
  const [mini] = readWildFile({ file: 'h/mini.traj.json', kind: 'mini-swe-agent-traj-v2' }, dir);
  assert.deepEqual(
    mini.map((c) => [c.exitCode, c.hostOutput, c.hostExitCode]),
    [[1, '', 1]],
  );
});

test('the engine row: parallel calls of one turn raise no loop alarm, the same batch again does', async () => {
  const { runEngine } = await import('../../scripts/eval/wild/systems.mjs');
  const call = (ordinal, concurrent) => ({
    ordinal,
    tool: 'Bash',
    args: { command: `nohup job ${ordinal % 4} > logs/${ordinal % 4}.log 2>&1 &` },
    output: `(eval):1: no such file or directory: logs/${ordinal % 4}.log`,
    exitCode: null,
    isError: false,
    concurrent,
  });
  const batch = [1, 2, 3, 4].map((i) => call(i, i > 1));
  const once = runEngine([{ file: 'p', session: 0, calls: batch }]);
  assert.deepEqual(once.alarms, []);
  const again = runEngine([{ file: 'p', session: 0, calls: [...batch, ...[5, 6, 7, 8].map((i) => call(i, false))] }]);
  assert.ok(again.alarms.length > 0, 'the batch run again after its results is a loop');
});

test('readers: Codex rollouts, OpenCode exports and Gemini CLI recordings, on the fixtures the real CLIs wrote', () => {
  const read = (file, kind) => readWildFile({ file, kind }, root)[0];
  const codexDir = join(root, '__test__/audit/fixtures/codex/sessions');
  const rollout = readdirSync(codexDir, { recursive: true }).find((f) => String(f).endsWith('.jsonl'));
  const codex = read(join('__test__/audit/fixtures/codex/sessions', String(rollout)), 'codex-rollout-jsonl');
  // The status comes from exec_command_end; the second prompt is a user message before the 8th call.
  assert.deepEqual(
    codex.map((c) => c.exitCode),
    [0, 0, 0, 0, 3, 0, 0, 0, 0],
  );
  assert.equal(codex[4].command.endsWith('exit 3'), true);
  assert.deepEqual(
    codex.map((c, i) => (c.userBefore ? i : -1)).filter((i) => i >= 0),
    [0, 7],
  );
  for (const [dir, kind, ext] of [
    ['opencode', 'opencode-export-json', 'json'],
    ['gemini-cli', 'gemini-cli-session-jsonl', 'jsonl'],
  ]) {
    const at = (name) => read(`crates/toolguard-audit/tests/fixtures/${dir}/${name}.${ext}`, kind);
    const silent = at('silent');
    assert.equal(silent.length, 1, kind);
    assert.deepEqual([silent[0].exitCode, silent[0].output.trim()], [0, "ModuleNotFoundError: No module named 'nope'"], kind);
    assert.deepEqual(
      at('stuck').map((c) => c.exitCode),
      [2, 2, 2, 2],
      kind,
    );
    // A file that is not there is the tool's own error; the last two commands were asked for in one model turn.
    const errors = at('toolerror');
    assert.equal(errors[0].isError, true, kind);
    assert.deepEqual(
      errors.slice(-2).map((c) => [c.command, c.exitCode, c.concurrent]),
      [
        ['cat notes.txt', 0, false],
        ['exit 3', 3, true],
      ],
      kind,
    );
  }
});
