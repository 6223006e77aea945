// The loop detectors inside the real DSH harness, through the combined
// `toolguard/dsh` plugin (on by default there): reminders that recur at every
// further step, polling that draws none, a reset by a user prompt but not by
// our own notices, and the opt-in `tools/pre-execute` deny.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { GuardEngine } from 'toolguard';
import { GuardEngine as ReferenceEngine } from '../../dist/reference/index.mjs';
import { boot, textTool } from './kit.mjs';

const call = (name, args) => [{ name, args }];
const combined = () => import('toolguard/dsh');

test('combined plugin: a repeat with the same result is reminded at every further call', async (t) => {
  const h = await boot();
  t.after(() => h.dispose());
  h.tool(textTool('bash', () => 'FAILED tests/test_x.py::test_a\n1 failed in 0.12s\n[exit code: 1]'));
  await h.plugin(await combined(), {});
  const a = h.agent('s1');
  await h.turn(
    a,
    Array.from({ length: 5 }, () => call('bash', { command: 'pytest -q' })),
  );
  const contexts = h.contexts(a);
  assert.deepEqual(
    contexts.map((c) => [c.plugin, c.summary]),
    [
      ['toolguard-loops', 'bash: repeat × 3'],
      ['toolguard-loops', 'bash: repeat × 4'],
      ['toolguard-loops', 'bash: repeat × 5'],
    ],
  );
  assert.equal(contexts[0].source.kind, 'plugin');
  assert.match(contexts[0].text, /^\[toolguard\] Loop detected: bash was called 3 times in a row .*\(calls #1, #2, #3\)/);
});

test('combined plugin: polling with a changing result draws no reminder (the DSH repeat would)', async (t) => {
  const h = await boot();
  t.after(() => h.dispose());
  let epoch = 0;
  h.tool(textTool('job_output', () => `epoch ${++epoch}/20 loss 0.${90 - epoch}\n[status: running]`));
  await h.plugin(await combined(), {});
  const a = h.agent('s1');
  await h.turn(
    a,
    Array.from({ length: 9 }, () => call('job_output', { job_id: 'train' })),
  );
  assert.deepEqual(h.contexts(a), []);
  // The same session with loops: false gets DSH's result-blind reminders.
  const h2 = await boot();
  t.after(() => h2.dispose());
  h2.tool(textTool('job_output', () => `epoch ${++epoch}/20`));
  await h2.plugin(await combined(), { loops: false });
  const b = h2.agent('s2');
  await h2.turn(
    b,
    Array.from({ length: 5 }, () => call('job_output', { job_id: 'train' })),
  );
  assert.deepEqual(
    h2.contexts(b).map((c) => c.summary),
    ['job_output × 3', 'job_output × 5'],
  );
});

test('combined plugin: a cycle of edit → test, and a user prompt resets while our own notices do not', async (t) => {
  const h = await boot();
  t.after(() => h.dispose());
  h.tool(
    textTool('edit_file', () => {
      throw new Error('old_string not found in core.py');
    }),
  );
  h.tool(textTool('bash', () => '1 failed in 0.2s\n[exit code: 1]'));
  await h.plugin(await combined(), {});
  const a = h.agent('s1');
  const round = [call('edit_file', { path: 'core.py', old_string: 'a', new_string: 'b' }), call('bash', { command: 'pytest' })];
  await h.turn(a, [...round, ...round, call('edit_file', { path: 'core.py', old_string: 'a', new_string: 'b' })]);
  assert.deepEqual(
    h.contexts(a).map((c) => c.summary),
    ['edit_file: cycle × 3'],
  );
  // A plugin-sourced wake keeps the window: the cycle goes on.
  await h.wake(a, [call('bash', { command: 'pytest' })]);
  assert.deepEqual(
    h.contexts(a).map((c) => c.summary),
    ['edit_file: cycle × 3', 'bash: cycle × 3'],
  );
  // A real user prompt resets it: two more rounds are not yet a loop.
  await h.turn(a, [...round, ...round], 'try again');
  assert.deepEqual(
    h.contexts(a).map((c) => c.summary),
    ['edit_file: cycle × 3', 'bash: cycle × 3'],
  );
});

test('combined plugin with loops.deny: pre-execute refuses a call that continues a reminded loop; the deny resets nothing', async (t) => {
  const h = await boot();
  t.after(() => h.dispose());
  let runs = 0;
  h.tool(
    textTool('grep', () => {
      runs++;
      return 'no match';
    }),
  );
  h.tool(textTool('ls', () => 'a.py b.py'));
  await h.plugin(await combined(), { loops: { deny: 2 } });
  const a = h.agent('s1');
  const grep = call('grep', { pattern: 'legacy_mean' });
  await h.turn(a, [grep, grep, grep, grep, grep, call('ls', {}), grep]);
  const tl = h.timeline(a);
  // Calls 1–4 run (reminders at 3 and 4); the 5th is refused before it runs.
  const results = tl.filter((e) => e.kind === 'result');
  assert.equal(results[4].isError, true);
  assert.match(
    results[4].text,
    /\[toolguard\] Call refused: it would continue a repeat loop \(since call #1\) that has already had 2 reminders/,
  );
  assert.deepEqual(
    h
      .contexts(a)
      .map((c) => c.summary)
      .slice(0, 2),
    ['grep: repeat × 3', 'grep: repeat × 4'],
  );
  // Another call may run, and breaks the run: the next grep runs again.
  assert.equal(results[5].text, 'a.py b.py');
  assert.equal(results[6].isError, false);
  assert.equal(runs, 5);
});

// DSH runs the calls of tools that say `isConcurrencySafe`
// in parallel (every tools/pre-execute of the group before the first result);
// after the first result of such a group, the others are concurrent: no alarm.
test('combined plugin: nine identical parallel calls of one step raise no loop alarm; the same nine one step each do', async (t) => {
  const alarms = async (steps) => {
    const h = await boot();
    t.after(() => h.dispose());
    h.tool({ ...textTool('read_file', () => 'x = 1\n'), isConcurrencySafe: () => true });
    await h.plugin(await combined(), {});
    const a = h.agent('s1');
    await h.turn(a, steps);
    assert.equal(h.timeline(a).filter((e) => e.kind === 'result').length, 9);
    return h.contexts(a).filter((c) => c.plugin === 'toolguard-loops').length;
  };
  const read = { name: 'read_file', args: { path: 'a.py' } };
  assert.equal(await alarms([Array.from({ length: 9 }, () => read)]), 0);
  assert.ok((await alarms(Array.from({ length: 9 }, () => [read]))) > 0);
});

test("combined plugin: loops on when absent, {} or true; off with false (the one decision, the engine's)", async (t) => {
  for (const [loops, on] of [
    [undefined, true],
    [{}, true],
    [true, true],
    [false, false],
  ]) {
    const h = await boot();
    t.after(() => h.dispose());
    h.tool(textTool('bash', () => 'FAILED tests/test_x.py::test_a\n1 failed in 0.12s\n[exit code: 1]'));
    await h.plugin(await combined(), loops === undefined ? {} : { loops });
    const a = h.agent('s1');
    await h.turn(
      a,
      Array.from({ length: 3 }, () => call('bash', { command: 'pytest -q' })),
    );
    const plugins = h.contexts(a).map((c) => c.plugin);
    assert.equal(plugins.includes('toolguard-loops'), on, JSON.stringify(loops));
    // The adapters' engine says the same, native and reference.
    for (const Engine of [GuardEngine, ReferenceEngine]) {
      const engine = Engine.withLoopsByDefault(loops === undefined ? {} : { loops });
      assert.equal(engine.loopsOn, on, JSON.stringify(loops));
    }
  }
});
