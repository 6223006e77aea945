// toolguard/claude-agent-sdk inside the real Claude Agent SDK
// (@anthropic-ai/claude-agent-sdk, which runs the Claude Code binary of its
// platform package). A local mock of the Anthropic Messages API scripts the
// model; Claude Code runs the Bash commands for real and calls the in-process
// hooks; the test reads the requests the model received next, so it checks
// what the model sees. Expected texts come from the engine.

// The test-only panic hook (docs/security.md; the test-panic addon, loaded
// by the first import) is read once, at the engine's first call in this
// process: it names a tool no scripted session uses.
import '../support/use-panic-addon.mjs';
process.env.TOOLGUARD_TEST_PANIC = 'observe:PanicTool';

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { GuardEngine } from 'toolguard';
import { chainOf, toolguardHooks } from 'toolguard/claude-agent-sdk';
import { runSession } from '../support/scripted-model.mjs';

const scratch = mkdtempSync(join(tmpdir(), 'toolguard-agent-sdk-test-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

const traceback = `printf 'Traceback (most recent call last):\\n  File "x.py", line 1\\nValueError: bad\\n'`;

describe('toolguard/claude-agent-sdk in a real Agent SDK session', () => {
  let session;
  before(async () => {
    session = await runSession(
      [
        ['echo hi', 'echo hi', 'echo hi', traceback, 'echo no; exit 3', 'echo no; exit 3', 'echo no; exit 3', 'echo again', 'echo again'],
        ['echo again'],
      ],
      scratch,
      // DSH's reminder (loops: false) for exact texts; the detectors' default is tested below.
      { hooks: toolguardHooks({ engine: { loops: false } }) },
    );
  });

  it('ran the whole script', () => {
    const results = session.messages.filter((m) => m.type === 'result');
    assert.equal(results.length, 2, session.stderr);
    assert.equal(session.results.length, 10, `the model saw 10 tool results (got ${session.results.length})\n${session.stderr}`);
  });

  it('the reminder reaches the model with the 3rd identical call', () => {
    const engine = new GuardEngine();
    const reminder = [1, 2, 3].map(
      () => engine.observe({ agentId: 'a', name: 'Bash', arguments: { command: 'echo hi', description: 'step' } })?.reminder,
    )[2];
    const [first, second, third] = session.results;
    assert.ok(!first.text.includes(reminder.text) && !second.text.includes(reminder.text));
    assert.ok(third.text.includes(reminder.text), third.text);
  });

  it('a silent failure reaches the model with the failure header, without a second copy of the output', () => {
    const r = session.results[3];
    assert.match(r.text, /\[loud-failure\] Bash reported no error but its output shows it failed:\n- python-traceback \(line 1\)/);
    assert.ok(!r.text.includes('Original output:'));
  });

  it('failing calls (non-zero exit) still count: the 3rd identical one draws the reminder', () => {
    const engine = new GuardEngine();
    const reminder = [1, 2, 3].map(
      () => engine.observe({ agentId: 'a', name: 'Bash', arguments: { command: 'echo no; exit 3', description: 'step' } })?.reminder,
    )[2];
    const [a, b, c] = session.results.slice(4, 7);
    assert.ok(a.isError && b.isError && c.isError, 'Claude Code reports the non-zero exits as errors');
    assert.ok(!b.text.includes(reminder.text));
    assert.ok(c.text.includes(reminder.text), c.text);
    assert.ok(!c.text.includes('loud-failure'), 'a failed call is not scanned');
  });

  it('a new user prompt starts the chain over', () => {
    // Two `echo again` before the second prompt, one after: without the reset the third would draw the reminder.
    const last = session.results[9];
    assert.match(last.text, /again/);
    assert.ok(!last.text.includes('You are repeating'), last.text);
  });
});

describe('toolguard/claude-agent-sdk exact mode in a real Agent SDK session', () => {
  it("a stage that failed behind | tail reaches the model with its real status; Claude Code's own record of each call is unchanged", async () => {
    const failing = `python3 -c 'import sys; print("boom"); sys.exit(3)' | tail -1`;
    const session = async (engine) => {
      const hooks = toolguardHooks({ engine });
      // Claude Code's record of each call, as a later PostToolUse hook sees it.
      const record = [];
      const spy = async (input) => {
        record.push({ command: input.tool_input.command, response: input.tool_response });
        return {};
      };
      const s = await runSession([[failing, 'echo ok | cat']], scratch, {
        hooks: { ...hooks, PostToolUse: [...hooks.PostToolUse, { hooks: [spy] }] },
      });
      return { ...s, record };
    };
    const on = await session({ exactMode: true });
    const off = await session({});
    assert.equal(on.results.length, 2, on.stderr);
    assert.ok(on.record[0].command.startsWith(`${failing}\n__tg_rc=`), `Claude Code ran the rewritten command: ${on.record[0].command}`);
    assert.equal(off.record[0].command, failing);
    // The command's own output and exit status: Claude Code's tool_response, the
    // same in both runs (`noOutputExpected` is its guess from the command's text).
    const response = ({ noOutputExpected, ...r }) => r;
    assert.deepEqual(
      on.record.map((r) => response(r.response)),
      off.record.map((r) => response(r.response)),
    );
    assert.equal(on.record[0].response.stdout, 'boom');
    // The model: the failed stage with its status (exact), the plain output (without).
    assert.match(on.results[0].text, /stage-exit-status \(line 1\): python3 \(stage 1 of 2\) exited 3/);
    assert.ok(!on.results[0].text.includes('Original output:'), 'Claude Code shows the output above the reason');
    assert.doesNotMatch(off.results[0].text, /loud-failure/);
    assert.equal(on.results[1].text, off.results[1].text, 'a passing pipeline reaches the model unchanged');
    // The model's own call is the agent's command.
    const asked = on.requests
      .at(-1)
      .messages.flatMap((m) => (Array.isArray(m.content) ? m.content : []))
      .filter((c) => c.type === 'tool_use');
    assert.deepEqual(
      asked.map((c) => c.input.command),
      [failing, 'echo ok | cat'],
    );
  });
});

describe('toolguard/claude-agent-sdk callbacks', () => {
  const base = { session_id: 's1', transcript_path: '/dev/null', cwd: '/' };
  const post = (tool_name, tool_response, extra = {}) => ({
    ...base,
    hook_event_name: 'PostToolUse',
    tool_name,
    tool_input: { command: 'x' },
    tool_response,
    tool_use_id: 't',
    ...extra,
  });
  const signal = { signal: new AbortController().signal };

  it('the loop detectors are on by default: the 3rd identical call with the same output draws their alarm', async () => {
    const hooks = toolguardHooks();
    const call = async (input) => hooks.PostToolUse[0].hooks[0](input, 't', signal);
    const outputs = [];
    for (let i = 0; i < 3; i++) outputs.push(await call(post('Bash', { stdout: 'same', stderr: '' }, { session_id: 'loops-default' })));
    const engine = new GuardEngine({ loops: {}, loudFailure: { shellTools: ['Bash'] } });
    const alarms = [1, 2, 3].map(() => engine.observe({ agentId: 'a', name: 'Bash', arguments: { command: 'x' } }, { text: 'same' })?.loop);
    assert.ok(alarms[2], 'the engine raises a loop alarm at the 3rd call');
    assert.deepEqual(outputs.slice(0, 2), [{}, {}]);
    assert.ok(outputs[2].hookSpecificOutput.additionalContext.includes(alarms[2].text), JSON.stringify(outputs[2]));
  });

  it('with loops.deny, PreToolUse refuses the call that would go on with an alarmed loop, as the hook command does', async () => {
    const hooks = toolguardHooks({ engine: { loops: { deny: 1 } } });
    const pre = (input) => hooks.PreToolUse[0].hooks[0]({ ...input, hook_event_name: 'PreToolUse' }, 't', signal);
    const engine = new GuardEngine({ loops: { deny: 1 }, loudFailure: { shellTools: ['Bash'] } });
    const exec = { agentId: 'a', name: 'Bash', arguments: { command: 'x' } };
    const event = post('Bash', { stdout: 'same', stderr: '' }, { session_id: 'deny' });
    let refusal = null;
    let answer = {};
    for (let i = 0; i < 6 && !refusal; i++) {
      refusal = engine.check(exec);
      answer = await pre(event);
      if (refusal) break;
      assert.deepEqual(answer, {}, `call ${i + 1} is allowed`);
      engine.observe(exec, { text: 'same' });
      await hooks.PostToolUse[0].hooks[0](event, 't', signal);
    }
    assert.ok(refusal, 'the engine refuses a call of the loop');
    assert.deepEqual(answer, {
      hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: refusal.reason },
    });
    // Without loops.deny nothing is refused.
    const open = toolguardHooks();
    for (let i = 0; i < 5; i++) {
      assert.deepEqual(await open.PreToolUse[0].hooks[0]({ ...event, hook_event_name: 'PreToolUse', session_id: 'open' }, 't', signal), {});
      await open.PostToolUse[0].hooks[0]({ ...event, session_id: 'open' }, 't', signal);
    }
  });

  it('one chain per session and per subagent; SubagentStop and SessionEnd free them', async () => {
    const hooks = toolguardHooks({ engine: { loops: false } });
    const call = async (input) => hooks.PostToolUse[0].hooks[0](input, 't', signal);
    await call(post('Bash', { stdout: 'ok', stderr: '' }));
    await call(post('Bash', { stdout: 'ok', stderr: '' }, { agent_id: 'sub' }));
    await call(post('Bash', { stdout: 'ok', stderr: '' }, { agent_id: 'sub' }));
    const third = await call(post('Bash', { stdout: 'ok', stderr: '' }, { agent_id: 'sub' }));
    assert.match(third.hookSpecificOutput.additionalContext, /You are repeating/);
    assert.equal(chainOf({ session_id: 's1', agent_id: 'sub' }), 's1\0sub');
    await hooks.SubagentStop[0].hooks[0](
      { ...base, hook_event_name: 'SubagentStop', agent_id: 'sub', agent_type: 'x', agent_transcript_path: '', stop_hook_active: false },
      undefined,
      signal,
    );
    assert.deepEqual(await call(post('Bash', { stdout: 'ok', stderr: '' }, { agent_id: 'sub' })), {}, 'the subagent chain started over');
    assert.deepEqual(await call(post('Bash', { stdout: 'ok', stderr: '' })), {}, 'the session chain is at 2');
  });

  it('reads Bash output as stdout then [stderr], and scans large outputs off the thread with the same verdict', async () => {
    const hooks = toolguardHooks();
    const big = `${'x'.repeat(100_000)}\nTraceback (most recent call last):\n  File "a.py", line 1\nValueError: no\n`;
    const out = await hooks.PostToolUse[0].hooks[0](post('Bash', { stdout: '', stderr: big, interrupted: false }), 't', signal);
    assert.equal(out.decision, 'block');
    assert.match(out.reason, /python-traceback \(line 3\)/, 'line 1 is the [stderr] marker');
  });

  it('fails open: a panicking engine answers nothing, with a warning; other tools are still guarded', async () => {
    const hooks = toolguardHooks({ engine: { loops: false } });
    const warnings = [];
    const onWarning = (w) => warnings.push(w);
    process.on('warning', onWarning);
    try {
      for (let i = 0; i < 3; i++) assert.deepEqual(await hooks.PostToolUse[0].hooks[0](post('PanicTool', 'out'), 't', signal), {});
      await new Promise((r) => setImmediate(r));
    } finally {
      process.off('warning', onWarning);
    }
    assert.ok(
      warnings.some(
        (w) => w.name === 'ToolguardWarning' && /toolguard\/claude-agent-sdk: guard engine failed.*TOOLGUARD_TEST_PANIC/.test(w.message),
      ),
      warnings.map(String).join('\n'),
    );
    for (let i = 0; i < 2; i++) await hooks.PostToolUse[0].hooks[0](post('Bash', 'same'), 't', signal);
    const third = await hooks.PostToolUse[0].hooks[0](post('Bash', 'same'), 't', signal);
    assert.match(third.hookSpecificOutput.additionalContext, /You are repeating/);
  });

  it('a bad config throws when the hooks are created, naming the key', () => {
    assert.throws(() => toolguardHooks({ engine: { repeat: { treshold: [3] } } }), /config\.repeat\.treshold/);
  });
});
