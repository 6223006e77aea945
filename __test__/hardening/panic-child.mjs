// Child process of panic.test.mjs: runs with TOOLGUARD_TEST_PANIC armed
// (`observe:<tool>` or `scan:<tool>`, read once by the addon at the first
// call), so the addon panics on purpose for that tool. Each scenario asserts
// and prints `ok <name>`; any failure exits non-zero with the reason.
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { boot, textTool } from '../dsh/kit.mjs';

const require = createRequire(import.meta.url);
const { GuardEngine } = require('../../index.js');

const [point, tool] = process.env.TOOLGUARD_TEST_PANIC.split(':');
const PANIC = new RegExp(`^toolguard: internal error \\(panic\\): TOOLGUARD_TEST_PANIC forced a panic for tool ${tool}$`);
const TRACEBACK = 'Traceback (most recent call last):\n  File "job.py", line 3\nKeyError: 1';
const isPanicError = (error) => error instanceof Error && PANIC.test(error.message);
const ok = (name) => console.log(`ok ${name}`);

const engine = new GuardEngine({ repeat: { thresholds: [2, 3] } });
const exec = (name) => ({ agentId: 'a', name, argumentsJson: '{"command":"make"}' });
const failing = { content: [{ type: 'text', text: TRACEBACK }] };

assert.throws(() => engine.observe(exec(tool), failing), isPanicError);
ok('observe: the panic is a JavaScript Error');

if (point === 'observe') {
  // The panic comes before anything is handed to the pool: a synchronous throw.
  assert.throws(() => engine.observeAsync(exec(tool), failing), isPanicError);
  ok('observeAsync: the panic on the JS thread is a synchronous Error');
} else {
  // The panic comes on a libuv pool thread: a rejection, not an abort.
  await assert.rejects(engine.observeAsync(exec(tool), failing), isPanicError);
  ok('observeAsync: the panic on the pool thread is a rejected promise');
  // The chain advanced before the scan panicked: the calls above counted.
  assert.equal(engine.observe(exec(tool), undefined)?.reminder?.count, 3);
  ok('the chain advanced in call order despite the panics');
}

// The engine is still whole: other tools scan and chain as usual.
assert.equal(engine.observe(exec('pwsh'), failing).failure.summary, 'pwsh: python-traceback');
assert.equal((await engine.observeAsync(exec('pwsh'), failing)).reminder.count, 2);
ok('the engine keeps working after a panic');

// The DSH plugin fails open: the tool result passes through unchanged and
// the failure is logged. Small output takes observe, large observeAsync.
const h = await boot();
try {
  const outputs = { small: TRACEBACK, large: `${'x'.repeat(300 * 1024)}\n${TRACEBACK}` };
  h.tool(textTool(tool, (args) => outputs[args.size]));
  await h.plugin(await import('toolguard/dsh'), {});
  const agent = h.agent('s1');
  await h.turn(agent, [[{ name: tool, args: { size: 'small' } }], [{ name: tool, args: { size: 'large' } }]]);
  const results = h.timeline(agent).filter((e) => e.kind === 'result');
  assert.deepEqual(
    results.map((r) => [r.isError, r.text]),
    [
      [false, outputs.small],
      [false, outputs.large],
    ],
  );
  assert.deepEqual(h.contexts(agent), []);
  const warnings = h.warnings.map((w) => String(w.args?.[0] ?? w.content ?? w));
  assert.equal(warnings.length, 2, warnings.join('\n'));
  for (const w of warnings)
    assert.match(w, /toolguard: guard engine failed, passing the tool result through unchanged: toolguard: internal error \(panic\)/);
  ok('the DSH plugin fails open on the panic (sync and async paths)');
} finally {
  await h.dispose();
}
