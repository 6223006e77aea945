// A loop is one episode however long it runs: through the addon,
// a 300-call loop keeps its real count, its first call, escalating reminders
// and `loops.deny` to the end; a saved state of another version starts afresh.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const { GuardEngine } = require('../index.js');

const exec = { agentId: 'a', name: 'bash', argumentsJson: '{"command":"pytest -q"}' };
const result = { content: [{ type: 'text', text: '1 failed, 2 passed\n[exit code: 1]' }], isError: false };

test('a 300-call loop: one episode, its real count, reminders climbing to the end', () => {
  const engine = new GuardEngine({ loops: {} });
  const alarms = [];
  for (let i = 0; i < 300; i++) {
    const v = engine.observe(exec, result);
    if (v?.loop) alarms.push(v.loop);
  }
  assert.equal(alarms.length, 298);
  assert.ok(
    alarms.every((a) => a.first === 1),
    'one episode, begun at call 1',
  );
  const last = alarms.at(-1);
  assert.deepEqual([last.count, last.first, last.last, last.reminders], [300, 1, 300, 298]);
  assert.equal(last.summary, 'bash: repeat × 300');
  assert.match(last.text, /reminder 298 for this loop/);
  assert.match(last.text, /called 300 times in a row/);
});

test('loops.deny refuses the call however long the loop has run', () => {
  const engine = new GuardEngine({ loops: { deny: 290 } });
  let refusedAt = null;
  for (let i = 1; i <= 300; i++) {
    const refusal = engine.check(exec);
    if (refusal) {
      refusedAt = i;
      assert.equal(refusal.reminders, 290);
      assert.match(refusal.reason, /since call #1\)/);
      break;
    }
    engine.observe(exec, result);
  }
  // Reminders at calls 3..292: the 293rd call would be the 291st.
  assert.equal(refusedAt, 293);
});

test('a saved loop state of another version starts the agent afresh', () => {
  const engine = new GuardEngine({ loops: {} });
  for (let i = 0; i < 2; i++) engine.observe(exec, result);
  const saved = engine.chainState('a');
  assert.match(saved.loops, /^L3\./);
  const fresh = new GuardEngine({ loops: {} });
  // An older toolguard's state (`L1.`, `L2.`) and a foreign one: no throw, no window.
  for (const loops of ['L1.2.-.-', 'L2.2.-.-', 'something else']) {
    fresh.restoreChain('a', { loops });
    assert.equal(fresh.chainState('a'), null, loops);
  }
  fresh.restoreChain('a', saved);
  assert.equal(fresh.observe(exec, result)?.loop?.count, 3, 'the saved window is back');
  assert.throws(() => fresh.restoreChain('a', { loops: 'L3.zz' }), /state\.loops/);
});

test('toolguard audit: a 300-call loop is one finding and one table row, numbered as the timeline', async () => {
  const { spawnSync } = await import('node:child_process');
  const { mkdtempSync, writeFileSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const { join, dirname } = await import('node:path');
  const { fileURLToPath } = await import('node:url');
  const root = join(dirname(fileURLToPath(import.meta.url)), '..');
  const dir = mkdtempSync(join(tmpdir(), 'toolguard-loop300-'));
  const file = join(dir, 'long.jsonl');
  const lines = [JSON.stringify({ tool: 'bash', arguments: { command: 'ls' }, output: 'a' })];
  for (let i = 0; i < 300; i++)
    lines.push(JSON.stringify({ tool: 'bash', arguments: { command: 'pytest -q' }, output: '1 failed, 2 passed', exitCode: 1 }));
  writeFileSync(file, lines.join('\n') + '\n');
  const run = (args) =>
    spawnSync(process.execPath, [join(root, 'bin/toolguard.mjs'), 'audit', '--fail-on', 'none', '--no-color', ...args, file], {
      encoding: 'utf8',
    });
  const doc = JSON.parse(run(['--json']).stdout);
  const [s] = doc.sessions;
  assert.equal(s.loops.length, 1);
  const [l] = s.loops;
  assert.deepEqual([l.kind, l.count, l.firstCall, l.lastCall, l.reminders, l.logLine, l.lastLogLine], ['repeat', 300, 2, 301, 298, 4, 301]);
  assert.equal(s.timeline.calls[l.firstCall - 1].logLine, 2, 'call numbers are the timeline ordinals');
  assert.equal(doc.summary.loops, 1);
  const table = run([])
    .stdout.split('\n')
    .filter((line) => /repeat × \d+/.test(line));
  assert.equal(table.length, 1, table.join('\n'));
  assert.match(table[0], /repeat × 300 +calls #2–#301 · 298 loop alarms/);
});
