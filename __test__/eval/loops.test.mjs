// The loop corpus and its evaluation: the corpus is well-formed (every session
// parses with `toolguard audit --json`, every labelled index exists), and each
// baseline re-statement behaves as its source says on small synthetic runs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { CORPUS_DIR, LABELS_FILE, evaluateLoops, goals, loadCorpus, replay, toCall } from '../../scripts/eval/loops.eval.mjs';
import * as dsh from '../../scripts/eval/baselines/dsh-official.mjs';
import * as gemini from '../../scripts/eval/baselines/gemini-cli.mjs';
import * as openhands from '../../scripts/eval/baselines/openhands.mjs';
import * as openhandsV1 from '../../scripts/eval/baselines/openhands-v1.mjs';
import * as roo from '../../scripts/eval/baselines/roo-code.mjs';
import * as cline from '../../scripts/eval/baselines/cline.mjs';
import * as goose from '../../scripts/eval/baselines/goose.mjs';
import * as openclaw from '../../scripts/eval/baselines/openclaw.mjs';
import * as toolguard from '../../scripts/eval/baselines/toolguard.mjs';
import * as toolguardAudit from '../../scripts/eval/baselines/toolguard-audit.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '../..');
const SHAPES = ['repeat', 'poll', 'cycle-2', 'cycle-3', 'cycle-4', 'same-error', 're-read', 'paging'];
const TRAPS = [
  'polling',
  're-test-after-edit',
  're-read-after-edit',
  'debugger-stepping',
  'retry-429',
  'long-refactor',
  'paging',
  'batch',
  'after-user-prompt',
  'fix-errors-one-by-one',
  'expected-errors',
  'restore-and-retry',
];

// ───────────── the corpus ─────────────

test('corpus: at least 40 sessions in three tool styles, every shape and every trap kind', () => {
  const sessions = loadCorpus();
  assert.ok(sessions.length >= 40, `${sessions.length} sessions`);
  assert.deepEqual([...new Set(sessions.map((s) => s.style))].sort(), ['claude', 'codex', 'dsh']);
  const shapes = new Set(sessions.flatMap((s) => s.episodes.map((e) => e.shape)));
  for (const shape of SHAPES) assert.ok(shapes.has(shape), `no ${shape} episode`);
  for (const shape of shapes) assert.ok(SHAPES.includes(shape), `unknown shape ${shape}`);
  const kinds = new Set(sessions.flatMap((s) => s.traps.map((t) => t.kind)));
  for (const kind of TRAPS) assert.ok(kinds.has(kind), `no ${kind} trap`);
  for (const kind of kinds) assert.ok(TRAPS.includes(kind), `unknown trap kind ${kind}`);
  const long = sessions.flatMap((s) => s.episodes).filter((e) => e.to - e.from + 1 >= 100);
  assert.ok(long.length >= 2, 'needs loops of 100 calls');
});

test('corpus: every labelled index exists and stretches do not overlap', () => {
  for (const s of loadCorpus()) {
    const calls = s.events.filter((e) => e.type === 'call').length;
    const spans = [];
    for (const e of s.episodes) {
      assert.ok(Number.isInteger(e.from) && Number.isInteger(e.stuck) && Number.isInteger(e.to), `${s.name}: integer indices`);
      assert.ok(
        e.from >= 0 && e.from <= e.stuck && e.stuck <= e.to && e.to < calls,
        `${s.name}: episode ${e.from}/${e.stuck}/${e.to} outside 0..${calls - 1}`,
      );
      assert.ok(e.note, `${s.name}: episode without a note`);
      spans.push([e.from, e.to]);
    }
    for (const t of s.traps) {
      assert.ok(
        Number.isInteger(t.from) && Number.isInteger(t.to) && t.from >= 0 && t.from <= t.to && t.to < calls,
        `${s.name}: trap ${t.from}..${t.to} outside 0..${calls - 1}`,
      );
      assert.ok(t.note, `${s.name}: trap without a note`);
      spans.push([t.from, t.to]);
    }
    assert.ok(spans.length > 0, `${s.name}: nothing labelled`);
    spans.sort((a, b) => a[0] - b[0]);
    for (let i = 1; i < spans.length; i++) assert.ok(spans[i][0] > spans[i - 1][1], `${s.name}: overlapping stretches`);
  }
});

test('corpus: every session parses with `toolguard audit --json`, with the same call count', () => {
  const files = readdirSync(CORPUS_DIR)
    .filter((f) => f.endsWith('.jsonl'))
    .map((f) => join(CORPUS_DIR, f));
  const out = execFileSync(
    process.execPath,
    [join(root, 'bin/toolguard.mjs'), 'audit', '--json', '--fail-on', 'none', '--format', 'trace', ...files],
    { encoding: 'utf8', maxBuffer: 256 << 20 },
  );
  const report = JSON.parse(out);
  assert.equal(report.sessions.length, files.length);
  const byFile = new Map(loadCorpus().map((s) => [s.file, s]));
  for (const s of report.sessions) {
    assert.equal(s.errorCount, 0, `${s.file}: ${JSON.stringify(s.errors)}`);
    const mine = byFile.get(join(root, s.file)) ?? byFile.get(s.file);
    assert.ok(mine, `unknown file ${s.file}`);
    assert.equal(s.calls, mine.events.filter((e) => e.type === 'call').length, s.file);
  }
});

test("corpus: each session uses only its labelled style's tools", () => {
  const TOOLS = {
    dsh: ['bash', 'read_file', 'edit_file', 'write_file', 'job_output'],
    claude: ['Bash', 'Read', 'Edit', 'Write', 'BashOutput'],
    codex: ['shell', 'exec_command', 'write_stdin', 'apply_patch'],
  };
  for (const s of loadCorpus()) {
    for (const e of s.events)
      if (e.type === 'call') assert.ok(TOOLS[s.style].includes(e.call.tool), `${s.name}: ${e.call.tool} is not a ${s.style} tool`);
  }
});

test('corpus: the corpus README states the current counts', () => {
  const readme = readFileSync(join(CORPUS_DIR, 'README.md'), 'utf8').replace(/\s+/g, ' ');
  const sessions = loadCorpus();
  const calls = sessions.reduce((n, s) => n + s.events.filter((e) => e.type === 'call').length, 0);
  const episodes = sessions.reduce((n, s) => n + s.episodes.length, 0);
  const traps = sessions.reduce((n, s) => n + s.traps.length, 0);
  assert.match(readme, new RegExp(`${sessions.length} sessions, ${calls} tool calls`));
  assert.match(readme, new RegExp(`${episodes} stuck episodes .*and ${traps} legitimate stretches`));
});

test('corpus: labels name exactly the recorded sessions', () => {
  assert.doesNotThrow(() => loadCorpus({ corpusDir: CORPUS_DIR, labelsFile: LABELS_FILE }));
});

// ───────────── baselines on synthetic runs ─────────────

let seq = 0;
const call = (tool, args, output = 'ok', extra = {}) => toCall({ tool, arguments: args, output, ...extra }, seq++);
/** Run a list of calls (or 'user') through a fresh detector; return the 1-based positions that alarmed. */
async function alarmsAt(system, steps, config) {
  const s = { events: steps.map((c) => (c === 'user' ? { type: 'user' } : { type: 'call', call: c })) };
  const alarms = await replay(system, s, { toolguardConfig: config });
  const pos = new Map(steps.map((c, i) => [c === 'user' ? null : c.index, i + 1]));
  return alarms.map((a) => pos.get(a.index));
}
/** @param {number} n @param {string} [tool] @param {object} [args] @param {string} [output] */
const same = (n, tool = 'bash', args = { command: 'make' }, output = 'error: x') =>
  Array.from({ length: n }, () => call(tool, args, output));

test('Gemini CLI: fires at the 5th identical consecutive call (nudge), then halts at the 6th', async () => {
  assert.deepEqual(await alarmsAt(gemini, same(4)), []);
  assert.deepEqual(await alarmsAt(gemini, same(6)), [5, 6]);
  // result-blind: changing outputs do not matter
  const polls = Array.from({ length: 5 }, (_, i) => call('bash', { command: 'kubectl get pods' }, `age ${i}s`));
  assert.deepEqual(await alarmsAt(gemini, polls), [5]);
  // key order matters (JSON.stringify), a different call restarts the count, a user prompt resets
  assert.deepEqual(
    await alarmsAt(gemini, [...same(4, 'f', { a: 1, b: 2 }), call('f', { b: 2, a: 1 }), ...same(3, 'f', { a: 1, b: 2 })]),
    [],
  );
  assert.deepEqual(await alarmsAt(gemini, [...same(4), 'user', ...same(4)]), []);
});

test('Roo Code: blocks the 4th identical consecutive call, then starts over (8th blocked)', async () => {
  assert.deepEqual(await alarmsAt(roo, same(3)), []);
  assert.deepEqual(await alarmsAt(roo, same(8)), [4, 8]);
  assert.deepEqual(await alarmsAt(roo, [...same(3), call('bash', { command: 'ls' }), ...same(3)]), []);
  // top-level key order does not matter
  assert.deepEqual(
    await alarmsAt(roo, [call('f', { a: 1, b: 2 }), call('f', { b: 2, a: 1 }), call('f', { a: 1, b: 2 }), call('f', { b: 2, a: 1 })]),
    [4],
  );
});

test('Cline: warns exactly at 3, escalates exactly at 5, never again; 3 failed tools ask; 3rd unchanged read', async () => {
  assert.deepEqual(await alarmsAt(cline, same(9)), [3, 5]);
  // task_progress is ignored in the signature
  const tp = Array.from({ length: 3 }, (_, i) => call('read_file', { path: 'x', task_progress: `- [x] ${i}` }, 'text'));
  assert.ok((await alarmsAt(cline, tp)).includes(3));
  // the mistake gate: failed tools (not shell exit codes) in a row
  const errs = ['a', 'b', 'c'].map((p) => call('edit_file', { path: p, old_string: 'x', new_string: 'y' }, 'not found', { isError: true }));
  assert.deepEqual(await alarmsAt(cline, errs), [3]);
  const exits = ['a', 'b', 'c'].map((c) => call('bash', { command: c }, 'boom', { exitCode: 1 }));
  assert.deepEqual(await alarmsAt(cline, exits), []);
  // duplicate reads: the 3rd read of an unchanged file, with other calls between; an edit resets
  const read = () => call('read_file', { path: 'a.py' }, 'x = 1');
  assert.deepEqual(await alarmsAt(cline, [read(), call('bash', { command: 'ls' }), read(), call('bash', { command: 'pwd' }), read()]), [5]);
  const edit = call('edit_file', { path: 'a.py', old_string: '1', new_string: '2' }, 'Edited');
  assert.deepEqual(await alarmsAt(cline, [read(), read(), edit, read(), read()]), []);
  // a change made through the shell shows in the content (mtime moves)
  const readAs = (text) => call('read_file', { path: 'b.env' }, text);
  const sed = call('bash', { command: 'sed -i s/1/2/ b.env' }, '');
  assert.deepEqual(await alarmsAt(cline, [readAs('A=1'), sed, readAs('A=2'), sed, readAs('A=3')]), []);
});

test('goose: the same tool failing with the same first 100 characters 3 times denies the next call to it', async () => {
  const fail = (id, text = 'HTTP 404: issue not found') => call('bash', { command: `pup issues get ${id}` }, text, { exitCode: 1 });
  assert.deepEqual(await alarmsAt(goose, [fail(1), fail(2), fail(3), fail(4)]), [4]);
  assert.deepEqual(await alarmsAt(goose, [fail(1), fail(2), fail(3), call('read_file', { path: 'x' }), fail(5)]), []);
  // a difference past the first 100 characters still counts as the same error
  const long = (id) => fail(id, `${'E'.repeat(100)} id=${id}`);
  assert.deepEqual(await alarmsAt(goose, [long(1), long(2), long(3), long(4)]), [4]);
  const short = (id) => fail(id, `error for id=${id}`);
  assert.deepEqual(await alarmsAt(goose, [short(1), short(2), short(3), short(4)]), []);
  // identical calls are never denied by default (max_repetitions unset)
  assert.deepEqual(await alarmsAt(goose, same(10, 'bash', { command: 'ls' }, 'a b')), []);
});

test('OpenHands V1: compares observations in full; 3 identical failing actions; alternation over 6 steps', async () => {
  const poll = (i) => call('bash', { command: 'kubectl get pods' }, `age ${i}s`, { exitCode: 0 });
  assert.deepEqual(await alarmsAt(openhandsV1, [poll(1), poll(2), poll(3), poll(4)]), []);
  const same4 = Array.from({ length: 4 }, () => call('bash', { command: 'make' }, 'boom', { exitCode: 2 }));
  assert.deepEqual(await alarmsAt(openhandsV1, same4), [4]);
  const err = () => call('edit_file', { path: 'a', old_string: 'x', new_string: 'y' }, 'not found', { isError: true });
  assert.deepEqual(await alarmsAt(openhandsV1, [err(), err(), err()]), [3]);
  const a = () => call('read_file', { path: 'a' }, 'A');
  const b = () => call('bash', { command: 'make' }, 'B', { exitCode: 2 });
  assert.deepEqual(await alarmsAt(openhandsV1, [a(), b(), a(), b(), a()]), []);
  assert.deepEqual(await alarmsAt(openhandsV1, [a(), b(), a(), b(), a(), b()]), [6]);
  assert.deepEqual(await alarmsAt(openhandsV1, [a(), a(), a(), 'user', a()]), []);
});

test('OpenHands: 4 identical action+observation pairs, A-B x3, same action with 3 errors', async () => {
  const rd = (out = 'same') => call('read_file', { path: 'a' }, out);
  assert.deepEqual(await alarmsAt(openhands, [rd(), rd(), rd()]), []);
  assert.deepEqual(await alarmsAt(openhands, [rd(), rd(), rd(), rd()]), [4]);
  assert.deepEqual(await alarmsAt(openhands, [rd('1'), rd('2'), rd('3'), rd('4')]), []);
  // a command observation compares command + exit code only, not the output
  const poll = (i) => call('bash', { command: 'kubectl get pods' }, `age ${i}s`, { exitCode: 0 });
  assert.deepEqual(await alarmsAt(openhands, [poll(1), poll(2), poll(3), poll(4)]), [4]);
  const a = () => call('read_file', { path: 'a' }, 'A');
  const b = () => call('bash', { command: 'make' }, 'B', { exitCode: 2 });
  assert.deepEqual(await alarmsAt(openhands, [a(), b(), a(), b(), a(), b()]), [6]);
  const err = () => call('edit_file', { path: 'a', old_string: 'x', new_string: 'y' }, 'not found', { isError: true });
  assert.deepEqual(await alarmsAt(openhands, [call('bash', { command: 'ls' }), err(), err(), err()]), [4]);
  // interactive mode: only the history after the last user message
  assert.deepEqual(await alarmsAt(openhands, [rd(), rd(), rd(), 'user', rd()]), []);
});

test('OpenClaw: warns at 10 prior identical calls in the window, blocks at 20 identical outcomes, ping-pong at 10', async () => {
  const at = await alarmsAt(openclaw, same(21, 'bash', { command: 'curl x' }, '500'));
  assert.equal(at[0], 11);
  const levels = (
    await replay(openclaw, { events: same(21, 'bash', { command: 'curl x' }, '500').map((c) => ({ type: 'call', call: c })) })
  ).map((x) => x.level);
  assert.equal(levels.at(-1), 'critical');
  assert.equal(levels.filter((l) => l === 'critical').length, 1);
  // changing results: warning only (count of identical calls), never critical
  const polls = Array.from({ length: 25 }, (_, i) => call('bash', { command: 'kubectl get pods' }, `age ${i}s`));
  const pl = (await replay(openclaw, { events: polls.map((c) => ({ type: 'call', call: c })) })).map((x) => x.level);
  assert.ok(pl.length > 0 && pl.every((l) => l === 'warning'));
  // A-B alternation: warning when the alternating tail reaches 10
  const ab = Array.from({ length: 10 }, (_, i) => (i % 2 ? call('bash', { command: 'make' }, 'B') : call('read_file', { path: 'a' }, 'A')));
  assert.deepEqual(await alarmsAt(openclaw, ab), [10]);
});

test('DSH plugin (the real package): reminders at 3, 5 and 8 identical calls; a user prompt resets', async () => {
  assert.deepEqual(await alarmsAt(dsh, same(10)), [3, 5, 8]);
  assert.deepEqual(await alarmsAt(dsh, [...same(2), 'user', ...same(2)]), []);
  const polls = Array.from({ length: 3 }, (_, i) => call('bash', { command: 'kubectl get pods' }, `age ${i}s`));
  assert.deepEqual(await alarmsAt(dsh, polls), [3]);
});

test('toolguard row: the real engine; with loop detection off it matches the DSH plugin', async () => {
  /** @type {Array<ReturnType<typeof call> | 'user'>} */
  let steps = same(10);
  assert.deepEqual(await alarmsAt(toolguard, steps, { loops: false }), await alarmsAt(dsh, steps));
  steps = [...same(2), 'user', ...same(2)];
  assert.deepEqual(await alarmsAt(toolguard, steps), []);
});

// ───────────── the evaluation ─────────────

test('evaluateLoops: one row per system, numbers consistent with the labels', async () => {
  const result = await evaluateLoops();
  assert.deepEqual(
    result.results.map((r) => r.name),
    ['DSH plugin', 'Gemini CLI', 'OpenHands V0', 'OpenHands V1', 'Roo Code', 'Cline', 'goose', 'OpenClaw', 'toolguard', 'toolguard audit'],
  );
  const sessions = loadCorpus();
  const episodes = sessions.reduce((n, s) => n + s.episodes.length, 0);
  const traps = sessions.reduce((n, s) => n + s.traps.length, 0);
  for (const r of result.results) {
    assert.equal(r.episodes, episodes);
    assert.equal(r.traps, traps);
    assert.ok(r.caught <= episodes && r.trapsAlarmed <= traps);
    assert.equal(r.delays.length, r.caught);
    assert.equal(r.missed.length, episodes - r.caught);
  }
  // the DSH plugin and today's toolguard engine share the result-blind repeat rule
  // the audit reports the engine row's loops (one engine, one config): one
  // finding per episode, at its first and its last alarm, call for call
  const byName = Object.fromEntries(result.results.map((r) => [r.name, r]));
  assert.ok(toolguardAudit.reportsLoops());
  const ends = (alarms) => {
    const byEpisode = new Map();
    for (const a of alarms) {
      const key = `${a.level}\u0000${a.episode}`;
      byEpisode.set(key, [...(byEpisode.get(key) ?? []), a]);
    }
    return [...byEpisode.values()]
      .flatMap((list) => [...new Set([list[0], list[list.length - 1]])].map((a) => [a.index, a.level]))
      .sort((x, y) => x[0] - y[0]);
  };
  for (const s of sessions) {
    const at = (name) => ends(byName[name].alarms.get(s.name));
    assert.deepEqual(at('toolguard audit'), at('toolguard'), s.name);
  }
});

test('goals: compares one system with every baseline, episode by episode', () => {
  const row = (name, firstAlarm, trapsAlarmed) => {
    const vals = Object.values(firstAlarm);
    return { name, firstAlarm, trapsAlarmed, episodes: vals.length, caught: vals.filter((v) => v !== null).length };
  };
  const baselineRows = ['DSH plugin', 'Gemini CLI', 'OpenHands V0', 'OpenHands V1', 'Roo Code', 'Cline', 'goose'].map((n) =>
    row(n, { 'a#2': null, 'b#4': null }, 3),
  );
  const openclawRow = row('OpenClaw', { 'a#2': 5, 'b#4': null }, 1);
  let g = goals({ results: [...baselineRows, openclawRow, row('toolguard', { 'a#2': 6, 'b#4': 4 }, 0)] });
  assert.deepEqual(g.missedThatBaselinesCatch, []);
  assert.deepEqual(g.laterThanBest, ['a#2 (6 > 5)']);
  assert.equal(g.met, false);
  assert.equal(g.moreCaughtThanEveryBaseline, true);
  g = goals({ results: [...baselineRows, openclawRow, row('toolguard', { 'a#2': 2, 'b#4': 4 }, 0)] });
  assert.equal(g.met, true);
  g = goals({ results: [...baselineRows, openclawRow, row('toolguard', { 'a#2': null, 'b#4': 4 }, 0)] });
  assert.deepEqual(g.missedThatBaselinesCatch, ['a#2']);
  assert.equal(g.met, false);
});
