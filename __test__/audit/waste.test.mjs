// Waste: what each stuck episode and silent failure cost, from the first
// flaggable call until the agent moved on (ts/cli/waste.mts), on the
// recorded sample and on hand-made timelines for the edge cases.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { sessionWaste, wasteLine } from '../../dist/ts/cli/waste.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '../..');
const fixtures = join(root, '__test__/audit/fixtures/dsh-plain/--home-dev-report-site--');

function cli(args) {
  const run = spawnSync(process.execPath, [join(root, 'bin/toolguard.mjs'), 'audit', ...args], {
    cwd: root,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1' },
  });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

/**
 * A session with a hand-made timeline: `calls` as [callId, tool, repeat?, time?, endTime?, tokens?, agentId?].
 * Loosely typed on purpose: only what sessionWaste reads (the timeline, and
 * findings the tests add as partial ReminderJson/FailureJson/LoopJson) is
 * built, not a whole TimedSession.
 * @returns {any}
 */
function session(calls, findings = {}, omitted = 0) {
  return {
    reminders: [],
    failures: [],
    ...findings,
    timeline: {
      calls: calls.map(([callId, tool, repeat, time, endTime, tokens, agentId = 'a'], i) => ({
        ordinal: i + 1,
        callId,
        tool,
        agentId,
        logLine: i + 1,
        ...(time !== undefined ? { time } : {}),
        ...(endTime !== undefined ? { endTime } : {}),
        ...(tokens !== undefined ? { inputTokens: tokens, outputTokens: 0 } : {}),
        ...(repeat !== undefined ? { repeat } : {}),
      })),
      omitted,
    },
  };
}
const at = (s, callId) => {
  const c = s.timeline.calls.find((x) => x.callId === callId);
  return { ordinal: c.ordinal, callId, agentId: c.agentId, logLine: c.logLine };
};

test('recorded sample: the pytest loop from its first reminder until the agent moved on, each failure on its own', () => {
  // DSH's reminders (loops: false): the loop detectors' waste is tested on hand-made timelines below.
  const { doc } = {
    doc: JSON.parse(
      cli(['--json', '--config', join(root, '__test__/audit/dsh-exact.json'), join(fixtures, 'sample-main/session.jsonl')]).stdout,
    ),
  };
  const [s] = doc.sessions;
  // call_06 (3rd identical pytest: the first reminder) .. call_08 (5th), then call_14 is different.
  const loop = s.reminders.map((r) => r.waste);
  assert.deepEqual(loop[0], loop[1], 'both reminders belong to one episode');
  const byId = new Map(s.timeline.calls.map((c) => [c.callId, c]));
  assert.deepEqual(
    { from: loop[0].from, to: loop[0].to, movedOnAt: loop[0].movedOnAt, calls: loop[0].calls },
    { from: 'call_06', to: 'call_08', movedOnAt: 'call_14', calls: 3 },
  );
  assert.equal(loop[0].wallMs, byId.get('call_08').endTime - byId.get('call_06').time);
  const tokens = ['call_06', 'call_07', 'call_08'].reduce((n, id) => n + byId.get(id).inputTokens + byId.get(id).outputTokens, 0);
  assert.equal(loop[0].tokens, tokens);
  // Both rules of call_02 share its episode; a failure the agent did not retry costs its one call.
  const [glyph, traceback, module] = s.failures.map((f) => f.waste);
  assert.deepEqual(traceback, module);
  assert.deepEqual([glyph.calls, glyph.movedOnAt, traceback.calls, traceback.movedOnAt], [1, 'call_02', 1, 'call_03']);
  assert.deepEqual(s.waste.loop.episodes + s.waste.failure.episodes, 3);
  assert.equal(doc.summary.waste.calls, 5);
  assert.equal(doc.summary.waste.tokens, s.waste.tokens);
});

test('the text report ends with one waste line', () => {
  const { stdout } = cli([join(fixtures, 'sample-main/session.jsonl'), join(fixtures, 'sample-sub/session.jsonl')]);
  const lines = stdout.split('\n').filter((l) => l.startsWith('Waste:'));
  assert.equal(lines.length, 1);
  assert.match(lines[0], /^Waste: 6 calls · \d+ ms · 720 tokens in 2 stuck episodes and 2 silent failures$/);
});

test('untracked calls inside a loop count in it; after its last repeat they are where the agent moved on', () => {
  const s = session(
    [
      ['c1', 'ls', 1],
      ['c2', 'ls', 2],
      ['c3', 'ls', 3, 100, 110, 10],
      ['t1', 'todo', undefined, 120, 125, 5],
      ['c4', 'ls', 4, 130, 190, 10],
      ['t2', 'todo', undefined, 200, 201, 5],
      ['d1', 'cat', 1, 210, 220, 10],
    ],
    {},
  );
  s.reminders = [{ ...at(s, 'c3'), count: 3 }];
  sessionWaste(s);
  assert.deepEqual(s.reminders[0].waste, {
    episode: 1,
    kind: 'loop',
    from: 'c3',
    to: 'c4',
    movedOnAt: 't2',
    fromOrdinal: 3,
    toOrdinal: 5,
    movedOnAtOrdinal: 6,
    calls: 3,
    wallMs: 90,
    tokens: 25,
  });
});

test('other agents do not interrupt an episode; n/a without timestamps or usage', () => {
  const s = session([
    ['a1', 'ls', 1],
    ['a2', 'ls', 2],
    ['a3', 'ls', 3],
    ['b1', 'cat', 1, undefined, undefined, undefined, 'b'],
    ['a4', 'ls', 4],
    ['a5', 'cat', 1],
  ]);
  s.reminders = [{ ...at(s, 'a3'), count: 3 }];
  const w = sessionWaste(s);
  assert.deepEqual(s.reminders[0].waste, {
    episode: 1,
    kind: 'loop',
    from: 'a3',
    to: 'a4',
    movedOnAt: 'a5',
    fromOrdinal: 3,
    toOrdinal: 5,
    movedOnAtOrdinal: 6,
    calls: 2,
    wallMs: null,
    tokens: null,
  });
  assert.equal(w.wallMs, null);
  assert.equal(w.episodesWithoutTime, 1);
  assert.match(wasteLine(w), /^Waste: 2 calls · n\/a · n\/a tokens in 1 stuck episode and 0 silent failures$/);
});

test('a failing call retried as is: the retries are part of its episode; overlapping episodes count once in the totals', () => {
  const s = session([
    ['f1', 'bash', 1, 0, 10, 100],
    ['f2', 'bash', 2, 20, 30, 100],
    ['f3', 'bash', 3, 40, 50, 100],
    ['g1', 'bash', 1, 60, 70, 100],
  ]);
  s.failures = [
    { ...at(s, 'f1'), ruleId: 'x' },
    { ...at(s, 'f2'), ruleId: 'x' },
  ];
  s.reminders = [{ ...at(s, 'f3'), count: 3 }];
  const w = sessionWaste(s);
  assert.deepEqual(s.failures[0].waste, s.failures[1].waste);
  assert.deepEqual([s.failures[0].waste.calls, s.failures[0].waste.wallMs, s.failures[0].waste.movedOnAt], [3, 50, 'g1']);
  assert.deepEqual([s.reminders[0].waste.calls, s.reminders[0].waste.wallMs], [1, 10]);
  // Union: three calls, 0..50 ms, 300 tokens; not 4 calls / 60 ms / 400.
  assert.deepEqual([w.episodes, w.calls, w.wallMs, w.tokens], [2, 3, 50, 300]);
});

test('loop-detector findings (`loops`) replace reminders: the run of alarmed calls is the episode', () => {
  const s = session([
    ['a', 'read', 1, 0, 1, 1],
    ['b', 'grep', 1, 2, 3, 1],
    ['a2', 'read', 1, 4, 5, 1],
    ['b2', 'grep', 1, 6, 7, 1],
    ['a3', 'read', 1, 8, 9, 1],
    ['n', 'edit', 1, 10, 11, 1],
  ]);
  s.reminders = [{ ...at(s, 'a3'), count: 3 }];
  s.loops = [
    { ...at(s, 'b2'), kind: 'cycle', count: 2, reminders: 1 },
    { ...at(s, 'a3'), kind: 'cycle', count: 3, reminders: 2 },
  ];
  const w = sessionWaste(s);
  assert.equal(s.loops[0].waste.episode, s.loops[1].waste.episode);
  assert.deepEqual([s.loops[0].waste.from, s.loops[0].waste.to, s.loops[0].waste.movedOnAt, s.loops[0].waste.calls], ['b2', 'a3', 'n', 2]);
  assert.equal(s.reminders[0].waste, undefined, 'reminders are not priced when loops are present');
  assert.equal(w.loop.episodes, 1);
});

test('past the timeline bound: no waste for an unlisted call, partial for an episode that runs off the list', () => {
  const s = session(
    [
      ['c1', 'ls', 1],
      ['c2', 'ls', 2],
      ['c3', 'ls', 3, 0, 5, 1],
    ],
    {},
    10,
  );
  s.reminders = [
    { ...at(s, 'c3'), count: 3 },
    { callId: 'c9', agentId: 'a', logLine: 99, count: 5 },
  ];
  sessionWaste(s);
  assert.equal(s.reminders[0].waste.partial, true);
  assert.equal(s.reminders[1].waste, null);
});
