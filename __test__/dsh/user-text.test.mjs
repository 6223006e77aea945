// What the user reported, inside the real DSH harness:
// the combined `toolguard/dsh` plugin notes the user's message, so a
// reproduction printing the error the user quoted is a `context` notice, not
// an `error` block. The standalone `loud-failure` drop-in keeps the official
// plugin's keyless calls (no agent, no session state), so it cannot.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { boot, textTool } from './kit.mjs';

const tb = 'Traceback (most recent call last):\n  File "/w/repro.py", line 2, in <module>\n';
const reproduced = `${tb}RuntimeError: Dropped elements in sequence 9 at /w/a.py\n`;
const issue = 'Combining fails with\nRuntimeError: Dropped elements in sequence 3 at /tmp/x.py\nplease fix';

async function reproduce(t, prompt) {
  const h = await boot();
  t.after(() => h.dispose());
  h.tool(textTool('bash', () => reproduced));
  await h.plugin(await import('toolguard/dsh'), {});
  const a = h.agent('s1');
  await h.turn(a, [[{ name: 'bash', args: { command: 'cd /w && python repro.py' } }]], prompt);
  const [result] = h.timeline(a).filter((e) => e.kind === 'result');
  return { result, contexts: h.contexts(a) };
}

test('combined plugin: a reproduction of the error the user quoted is context; without the quote, an error', async (t) => {
  const plain = await reproduce(t, 'please look at the combiner');
  assert.equal(plain.result.isError, true);
  assert.match(plain.result.text, /^\[loud-failure\] bash reported no error but its output shows it failed/);
  const told = await reproduce(t, issue);
  assert.equal(told.result.isError, false, told.result.text);
  assert.equal(told.result.text, reproduced);
  assert.deepEqual(
    told.contexts.map((c) => c.plugin),
    ['loud-failure'],
  );
});
