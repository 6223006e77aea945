// What the user reported (docs/shell-model.md): the addon's noteUserText, its
// reference twin, and the Claude Agent SDK adapter's UserPromptSubmit noting
// the prompt. The Rust tests cover the rule itself (shell/intent.rs).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { GuardEngine } from 'toolguard';
import { toolguardHooks } from 'toolguard/claude-agent-sdk';
import { GuardEngine as ReferenceEngine } from '../dist/reference/index.mjs';

const issue = 'Combining fails with\nRuntimeError: Dropped elements in sequence 3 at /tmp/x.py\nplease fix';
const tb = 'Traceback (most recent call last):\n  File "/w/repro.py", line 2, in <module>\n';
const reproduced = `${tb}RuntimeError: Dropped elements in sequence 9 at /w/a.py\n`;
const ownFailure = `${tb}AttributeError: 'Q' object has no attribute 'as_sql'\nError: 'Q' object has no attribute 'as_sql'\n`;
const write = { agentId: 'a', name: 'bash', arguments: { command: "cat > /w/repro.py << 'EOF'\nf()\nEOF" } };
const run = { agentId: 'a', name: 'bash', arguments: { command: 'cd /w && python repro.py' } };
const text = (t) => ({ content: [{ type: 'text', text: t }] });

/** @type {Array<[string, new () => import('toolguard').GuardEngine]>} */
const engines = [
  ['native', GuardEngine],
  ['reference', ReferenceEngine],
];
for (const [label, Engine] of engines) {
  describe(`noteUserText (${label})`, () => {
    it('a reproduction of the reported error is context; an unreported caught error of an own script is an error', () => {
      const engine = new Engine();
      engine.noteUserText('a', issue);
      assert.equal(engine.observe(run, text(reproduced))?.failure?.action, 'context');
      engine.observe(write, text(''));
      assert.equal(engine.observe(run, text(ownFailure))?.failure?.action, 'error');
      // Without a noted user message the own script's run is excused, as before.
      const before = new Engine();
      before.observe(write, text(''));
      assert.equal(before.observe(run, text(ownFailure))?.failure?.action, 'context');
      assert.equal(before.observe(run, text(reproduced))?.failure?.action, 'context');
      // @ts-expect-error: a wrong type on purpose
      assert.throws(() => engine.noteUserText(1, 'x'), /agentId/);
    });
  });
}

describe('toolguard/claude-agent-sdk UserPromptSubmit', () => {
  it('notes the prompt: its error reproduced is context, whoever wrote the script', async () => {
    const hooks = toolguardHooks();
    const [prompt] = hooks.UserPromptSubmit[0].hooks;
    const [post] = hooks.PostToolUse[0].hooks;
    const base = { session_id: 's', transcript_path: '', cwd: '/w' };
    const call = (id) => ({
      ...base,
      hook_event_name: /** @type {const} */ ('PostToolUse'),
      tool_name: 'Bash',
      tool_use_id: id,
      tool_input: { command: 'cd /w && python repro.py' },
      tool_response: { stdout: reproduced, stderr: '', interrupted: false, isImage: false },
    });
    // The SDK types a hook's answer as a union of sync and async outputs; this adapter answers synchronously.
    const blocked = /** @type {{ decision?: string }} */ (await post(call('t1'), 't1', { signal: new AbortController().signal }));
    assert.equal(blocked.decision, 'block', JSON.stringify(blocked));
    await prompt({ ...base, hook_event_name: 'UserPromptSubmit', prompt: issue }, undefined, { signal: new AbortController().signal });
    const told = /** @type {{ decision?: string }} */ (await post(call('t2'), 't2', { signal: new AbortController().signal }));
    assert.notEqual(told.decision, 'block', JSON.stringify(told));
  });
});
