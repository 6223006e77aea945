// `toolguard audit` on trajectories and terminal captures: the fixtures in
// crates/toolguard-audit/tests/fixtures (mini-swe-agent and the OpenHands SDK
// recorded with the real packages, scripts/record/record-trajectory-fixtures.mjs;
// the rest written from the documented shapes), and every real session in
// ../shared/wild/ (read from there, never copied; skipped, saying so, when absent).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

import { killedAtTimeout } from '../../scripts/eval/wild/calls.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '../..');
const fixtures = join(root, 'crates/toolguard-audit/tests/fixtures');
const wild = process.env.TOOLGUARD_WILD ?? join(root, '../shared/wild');

function auditJson(args, status = 0) {
  const run = spawnSync(process.execPath, [join(root, 'bin/toolguard.mjs'), 'audit', '--json', '--fail-on', 'none', ...args], {
    // The CLI names files relative to its cwd when they lie below it (a
    // checkout under the temp folder): tests resolve them against it.
    cwd: tmpdir(),
    encoding: 'utf8',
    maxBuffer: 1 << 30,
  });
  assert.equal(run.status, status, run.stderr);
  return JSON.parse(run.stdout);
}

test('a directory of trajectories: every format found by content, one report per session', () => {
  const doc = auditJson([fixtures]);
  const seen = doc.sessions.map((s) => [relative(fixtures, resolve(tmpdir(), s.file)), s.session, s.format, s.calls, s.errorCount]);
  assert.deepEqual(seen, [
    ['claude-code-md/session-full.md', 0, 'claude-code-md', 4, 0],
    ['codex-exec-log/agent.log', 0, 'codex-exec-log', 4, 0],
    ['gemini-cli/normal.jsonl', 0, 'gemini-cli', 3, 0],
    ['gemini-cli/silent.jsonl', 0, 'gemini-cli', 1, 0],
    ['gemini-cli/stuck.jsonl', 0, 'gemini-cli', 4, 0],
    ['gemini-cli/toolerror.jsonl', 0, 'gemini-cli', 3, 0],
    ['mini-swe-agent/scripted-textbased.traj.json', 0, 'mini-swe-agent', 5, 0],
    ['mini-swe-agent/scripted.traj.json', 0, 'mini-swe-agent', 5, 0],
    ['mini-swe-agent-log/agent.log', 0, 'mini-swe-agent-log', 3, 0],
    ['opencode/normal.json', 0, 'opencode', 3, 0],
    ['opencode/silent.json', 0, 'opencode', 1, 0],
    ['opencode/stuck.json', 0, 'opencode', 4, 0],
    ['opencode/toolerror.json', 0, 'opencode', 4, 0],
    ['openhands-sdk/followup/base_state.json', 0, 'openhands-v1', 4, 0],
    ['openhands-sdk/normal/base_state.json', 0, 'openhands-v1', 3, 0],
    ['openhands-sdk/silent/base_state.json', 0, 'openhands-v1', 2, 0],
    ['openhands-sdk/stuck/base_state.json', 0, 'openhands-v1', 6, 0],
    ['openhands-sdk/toolerror/base_state.json', 0, 'openhands-v1', 4, 0],
    ['openhands-v0/event-stream.json', 0, 'openhands-v0', 2, 0],
    ['openhands-v0/resolver-output.jsonl', 0, 'openhands-v0', 2, 0],
    ['openhands-v1/output.jsonl', 0, 'openhands-v1', 6, 0],
    ['openhands-v1/output.jsonl', 1, 'openhands-v1', 1, 0],
    ['swe-agent/run.traj', 0, 'swe-agent', 4, 0],
  ]);
  // The README beside them is no log, nor is one OpenHands event file; a
  // file of two sessions counts once.
  assert.equal(doc.summary.files, 22);
  // Calls are named by ordinal; callId is the format's own or null.
  const mini = doc.sessions.find((s) => s.file.endsWith('scripted.traj.json'));
  assert.deepEqual(
    mini.failures.map((f) => [f.ordinal, f.callId, f.ruleId]),
    [[4, 'call_3', 'python-traceback']],
  );
  const text = doc.sessions.find((s) => s.file.endsWith('scripted-textbased.traj.json'));
  assert.deepEqual(
    text.failures.map((f) => [f.ordinal, f.callId]),
    [[4, null]],
  );
  assert.deepEqual(mini.notes, [{ line: 1, ordinal: 5, message: 'call 5 (bash, call_4) has no result in the log' }]);
  // A waste episode points at its calls by ordinal too.
  assert.equal(text.loops[0].waste.fromOrdinal, 3);
});

// The OpenHands SDK's persisted conversations, recorded with openhands-sdk
// against a scripted model: each folder is base_state.json + events/, one
// event a file, exactly as the SDK wrote them.
test('OpenHands SDK conversation folders recorded by the real SDK: calls, exit codes, the stuck run, the silent failure', () => {
  const sdk = join(fixtures, 'openhands-sdk');
  const logged = (name) =>
    readdirSync(join(sdk, name, 'events'))
      .filter((f) => f.startsWith('event-'))
      .sort()
      .map((f) => JSON.parse(readFileSync(join(sdk, name, 'events', f), 'utf8')));
  const doc = auditJson(['--format', 'auto', sdk]);
  const byRun = new Map(doc.sessions.map((s) => [relative(sdk, resolve(tmpdir(), s.file)).split('/')[0], s]));
  assert.deepEqual([...byRun.keys()], ['followup', 'normal', 'silent', 'stuck', 'toolerror']);
  for (const [name, session] of byRun) {
    const events = logged(name);
    const actions = events.filter((e) => e.kind === 'ActionEvent');
    // As many calls as the SDK logged actions, named by its tool call ids, all answered.
    assert.equal(session.format, 'openhands-v1', name);
    assert.deepEqual(session.errors, [], name);
    assert.equal(session.calls, actions.length, name);
    assert.equal(session.unanswered, 0, name);
    assert.deepEqual(
      session.timeline.calls.map((c) => [c.callId, c.tool]),
      actions.map((a) => [a.tool_call_id, a.tool_name]),
      name,
    );
    assert.equal(session.model, 'openai/mock');
    // The last action is the SDK's own finish tool.
    assert.equal(actions.at(-1).tool_name, 'finish');
  }
  // Exit codes are the observations' metadata.exit_code, which the SDK wrote.
  const exitCodes = (name) =>
    logged(name)
      .filter((e) => e.kind === 'ObservationEvent' && e.tool_name === 'terminal')
      .map((e) => e.observation.metadata.exit_code);
  assert.deepEqual(exitCodes('normal'), [0, 0]);
  assert.deepEqual(exitCodes('stuck'), [1, 1, 1, 1, 1]);
  assert.deepEqual(exitCodes('silent'), [0]);
  assert.deepEqual(exitCodes('followup'), [0, 0]);
  // An unknown tool and rejected arguments get AgentErrorEvents, not observations.
  assert.deepEqual(exitCodes('toolerror'), [0]);
  assert.deepEqual(
    logged('toolerror')
      .filter((e) => e.kind === 'AgentErrorEvent')
      .map((e) => e.tool_call_id),
    ['call_0', 'call_1'],
  );

  for (const name of ['normal', 'followup', 'toolerror']) assert.deepEqual([byRun.get(name).loops, byRun.get(name).failures], [[], []]);

  // The same failing command five times: one loop, alarmed at the third
  // call; the failures are loud (exit 1), so none is silent.
  const stuck = byRun.get('stuck');
  assert.deepEqual(
    stuck.loops.map((l) => [l.kind, l.ordinal, l.command, l.calls]),
    [['repeat', 3, "python3 -c 'import nosuchmodule'", [1, 2, 3, 4, 5]]],
  );
  assert.deepEqual(stuck.failures, []);
  // Its tokens come from base_state.json's per-response stats: calls 3-5.
  assert.equal(stuck.loops[0].waste.tokens, 102 + 103 + 104 + 3 * 10);

  // `python3 -c 'import nope' 2>&1 | tail -1` exits 0 with the ImportError shown.
  const silent = byRun.get('silent');
  assert.deepEqual(silent.loops, []);
  assert.ok(silent.failures.length > 0);
  assert.deepEqual([...new Set(silent.failures.map((f) => [f.ordinal, f.callId, f.tool].join(' ')))], ['1 call_0 terminal']);
  assert.equal(doc.summary.silentFailures, 1);
});

test('--format forces a reader by name', () => {
  const doc = auditJson(['--format', 'swe-agent', join(fixtures, 'swe-agent/run.traj')]);
  assert.equal(doc.sessions[0].format, 'swe-agent');
  // Nothing read: exit 2, and the report says what was missing.
  const wrong = auditJson(['--format', 'openhands-v1', join(fixtures, 'mini-swe-agent/scripted.traj.json')], 2);
  assert.deepEqual(wrong.sessions[0].errors, [{ line: null, message: 'OpenHands V1 conversation without a "history" list' }]);
});

test('every session in ../shared/wild reads with no input errors and the manifest call counts', (t) => {
  if (!existsSync(join(wild, 'manifest.json'))) {
    t.skip(`${wild} is absent (the real sessions live beside the repository; TOOLGUARD_WILD names another place)`);
    return;
  }
  const manifest = JSON.parse(readFileSync(join(wild, 'manifest.json'), 'utf8'));
  const doc = auditJson([wild]);
  assert.equal(doc.sessions.length, 154);
  assert.deepEqual(
    doc.sessions.filter((s) => s.errorCount > 0).map((s) => [s.file, s.errors[0]]),
    [],
  );
  const calls = new Map();
  for (const s of doc.sessions) {
    const file = relative(wild, resolve(tmpdir(), s.file));
    calls.set(file, [...(calls.get(file) ?? []), s.calls]);
  }
  for (const entry of manifest) {
    const got = calls.get(entry.file) ?? [];
    // (A command a terminal log shows killed at its timeout is a call the
    // manifest does not count: scripts/eval/wild/calls.mjs.)
    const killed = entry.format?.startsWith('mini-swe-agent terminal log')
      ? killedAtTimeout(readFileSync(join(wild, entry.file), 'utf8'))
      : 0;
    assert.equal(
      got.reduce((a, b) => a + b, 0),
      entry.calls + killed,
      entry.file,
    );
    if (entry.per_session)
      assert.deepEqual(
        got,
        entry.per_session.map((p) => p[1]),
        entry.file,
      );
  }
  assert.equal(calls.size, manifest.length);
});

test('the table for a trajectory: call numbers (a log line says nothing there), rows in call order, DETAIL whole when piped', () => {
  const run = spawnSync(
    process.execPath,
    [join(root, 'bin/toolguard.mjs'), 'audit', '--fail-on', 'none', join(fixtures, 'mini-swe-agent/scripted-textbased.traj.json')],
    {
      cwd: tmpdir(),
      encoding: 'utf8',
    },
  );
  assert.equal(run.status, 0, run.stderr);
  const lines = run.stdout.split('\n');
  assert.match(
    lines.find((l) => l.includes('FINDING')),
    /^\s+CALL\s+ID\s+TOOL\s+FINDING\s+DETAIL$/,
  );
  const rows = lines.filter((l) => /^\s+#\d+\s/.test(l));
  // The loop raised at call 3 comes before the failure of call 4 (not every loop, then every failure).
  assert.deepEqual(
    rows.map((r) => r.trim().split(/\s+/)[0]),
    rows.map((r) => r.trim().split(/\s+/)[0]).sort((a, b) => Number(a.slice(1)) - Number(b.slice(1))),
  );
  assert.ok(rows.length >= 2, run.stdout);
  // Piped: the loop's evidence is not cut to what is left of a guessed 120 columns.
  assert.ok(
    rows.some((r) => r.includes('the same bash call, the same result each time')),
    run.stdout,
  );
});
