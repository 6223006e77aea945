// toolguard/langchain in a real LangChain v1 agent: createAgent with
// LangChain's own FakeToolCallingModel scripting the tool calls, real tools,
// and the middleware in `middleware`. The agent state's ToolMessages are the
// messages the model is sent on its next call.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createAgent, FakeToolCallingModel, HumanMessage, ToolMessage, tool } from 'langchain';
import { MemorySaver } from '@langchain/langgraph';
import { z } from 'zod';
import { GuardEngine } from 'toolguard';
import { toolguardMiddleware } from 'toolguard/langchain';

let ids = 0;
const calls = (name, args, n) => Array.from({ length: n }, () => [{ name, args, id: `c${++ids}` }]);
const bashTool = (run) =>
  tool(async ({ command }) => run(command), {
    name: 'bash',
    description: 'run a shell command',
    schema: z.object({ command: z.string() }),
  });

function agentWith(toolCalls, tools, options) {
  return createAgent({
    model: new FakeToolCallingModel({ toolCalls }),
    tools,
    middleware: [toolguardMiddleware(options)],
    checkpointer: new MemorySaver(),
  });
}

const toolMessages = (state) => state.messages.filter((m) => ToolMessage.isInstance(m));

describe('toolguard/langchain in a real createAgent loop', () => {
  it('appends the loop alarm to the third identical ToolMessage with the same result, as the engine words it', async () => {
    const agent = agentWith([...calls('bash', { command: 'ls' }, 3), []], [bashTool(() => 'a.txt')]);
    const state = await agent.invoke({ messages: [new HumanMessage('go')] }, { configurable: { thread_id: 't1' } });
    const engine = new GuardEngine({ loops: {} });
    const reminders = [1, 2, 3].map(
      () => engine.observe({ agentId: 'x', name: 'bash', arguments: { command: 'ls' } }, { text: 'a.txt' })?.loop?.text,
    );
    assert.match(reminders[2], /^\[toolguard\] Loop detected: bash was called 3 times in a row/);
    assert.deepEqual(
      toolMessages(state).map((m) => [m.content, m.status]),
      [
        ['a.txt', 'success'],
        ['a.txt', 'success'],
        [`a.txt\n\n${reminders[2]}`, 'success'],
      ],
    );
  });

  it('an error rule returns a ToolMessage with status "error" and the failure header', async () => {
    const out = 'make: Entering directory\nmake[1]: *** [Makefile:12: all] Error 2\n';
    const agent = agentWith([...calls('bash', { command: 'make 2>&1 | tee log' }, 1), []], [bashTool(() => out)]);
    const state = await agent.invoke({ messages: [new HumanMessage('build')] }, { configurable: { thread_id: 't2' } });
    const [message] = toolMessages(state);
    assert.equal(message.status, 'error');
    const expected = new GuardEngine().observe({ name: 'bash', argumentsJson: '{}' }, { text: out }).failure.text;
    assert.equal(message.content, expected);
    assert.match(message.content, /^\[loud-failure\] bash reported no error but its output shows it failed:\n- make-error \(line 2\)/);
    assert.equal(message.name, 'bash');
  });

  it('a new human message on the thread resets the chain; threads keep separate chains', async () => {
    const agent = agentWith(
      [...calls('bash', { command: 'ls' }, 2), [], ...calls('bash', { command: 'ls' }, 1), []],
      [bashTool(() => 'x')],
      { engine: { loops: false } },
    );
    const config = { configurable: { thread_id: 't3' } };
    await agent.invoke({ messages: [new HumanMessage('go')] }, config);
    const state = await agent.invoke({ messages: [new HumanMessage('again')] }, config);
    const all = toolMessages(state);
    assert.equal(all.length, 3);
    assert.equal(all[2].content, 'x', 'third ls, first after the new prompt: no reminder');

    // Without the reset the same script reaches a reminder: prove the check can fail.
    const noReset = agentWith([...calls('bash', { command: 'ls' }, 3), []], [bashTool(() => 'x')], { engine: { loops: false } });
    const other = await noReset.invoke({ messages: [new HumanMessage('go')] }, { configurable: { thread_id: 't4' } });
    assert.match(toolMessages(other)[2].content, /^x\n\nYou are repeating/);
  });

  it('content blocks get the notice as one more text block; a custom agentId and shell tools apply', async () => {
    const panic = "thread 'main' panicked at src/lib.rs:9:5:\nindex out of bounds\n";
    const blocks = tool(async () => [{ type: 'text', text: panic }], {
      name: 'run',
      description: 'run',
      schema: z.object({ cmd: z.string() }),
    });
    // Unpiped: behind `| cat` the hidden status would make the panic an error.
    const agent = agentWith([...calls('run', { cmd: 'cargo test' }, 1), []], [blocks], {
      engine: { loudFailure: { shellTools: ['run'] } },
      agentId: () => 'fixed',
    });
    const state = await agent.invoke({ messages: [new HumanMessage('go')] }, { configurable: { thread_id: 't5' } });
    const [message] = toolMessages(state);
    assert.equal(message.status, 'success');
    assert.ok(Array.isArray(message.content), JSON.stringify(message.content));
    assert.equal(message.content[0].text, panic);
    assert.match(message.content.at(-1).text, /^\[loud-failure\] run output may show a silent failure:\n- rust-panic \(line 1\)/);
  });

  it('a tool that throws: the call still advances the detectors and a due loop alarm joins the rethrown error', async () => {
    const { wrapToolCall } = toolguardMiddleware();
    const request = {
      toolCall: { name: 'bash', args: { command: 'pytest' }, id: 'c' },
      runtime: { configurable: { thread_id: 't-throw' } },
      state: { messages: [] },
    };
    const failing = async () => {
      throw new TypeError('pytest: 1 failed');
    };
    const thrown = [];
    for (let i = 0; i < 3; i++) thrown.push(await wrapToolCall(request, failing).catch((e) => e));
    assert.deepEqual(
      thrown.slice(0, 2).map((e) => e.message),
      ['pytest: 1 failed', 'pytest: 1 failed'],
    );
    assert.equal(thrown[2].name, 'TypeError');
    assert.match(thrown[2].message, /^pytest: 1 failed\n\n\[toolguard\] Loop detected: bash was called 3 times in a row/);
    assert.equal(thrown[2].cause.message, 'pytest: 1 failed');
  });
});

describe('toolguard/langchain exact mode', () => {
  it("a stage that failed behind | tail is an error with its real status; the command's output and exit status are unchanged", async () => {
    const { spawnSync } = await import('node:child_process');
    const failing = `python3 -c 'import sys; print("boom"); sys.exit(3)' | tail -1`;
    // A real shell tool: bash runs the command it is given.
    const ran = [];
    const realBash = bashTool((command) => {
      const r = spawnSync('bash', ['-c', command], { encoding: 'utf8' });
      ran.push({ command, result: { stdout: r.stdout, stderr: r.stderr, status: r.status } });
      return r.stdout;
    });
    const session = async (engine, thread) => {
      ran.length = 0;
      const agent = agentWith(
        [...calls('bash', { command: failing }, 1), ...calls('bash', { command: 'echo ok | cat' }, 1), []],
        [realBash],
        {
          engine,
        },
      );
      const state = await agent.invoke({ messages: [new HumanMessage('go')] }, { configurable: { thread_id: thread } });
      return { ran: [...ran], seen: toolMessages(state).map((m) => [m.content, m.status]), state };
    };
    const on = await session({ exactMode: true }, 'exact-on');
    const off = await session({}, 'exact-off');
    assert.ok(on.ran[0].command.startsWith(`${failing}\n__tg_rc=`), 'the tool ran the rewritten command');
    assert.equal(off.ran[0].command, failing, 'without exact mode the command is not rewritten');
    assert.deepEqual(
      on.ran.map((r) => r.result),
      off.ran.map((r) => r.result),
      "the command's own output and exit status are unchanged",
    );
    assert.deepEqual(on.ran[0].result, { stdout: 'boom\n', stderr: '', status: 0 });
    // What the model reads: the failed stage with its real status (exact), the plain output (without).
    assert.equal(on.seen[0][1], 'error');
    assert.match(on.seen[0][0], /stage-exit-status \(line 1\): python3 \(stage 1 of 2\) exited 3/);
    assert.ok(on.seen[0][0].endsWith('Original output:\nboom\n'), on.seen[0][0]);
    assert.deepEqual(off.seen[0], ['boom\n', 'success']);
    assert.deepEqual(on.seen[1], off.seen[1], 'a passing pipeline reaches the model unchanged');
    // The conversation keeps the agent's own command.
    const asked = on.state.messages.flatMap((m) => m.tool_calls ?? []).map((c) => c.args.command);
    assert.deepEqual(asked, [failing, 'echo ok | cat']);
  });
});

// What the user reported, and the parallel tool calls of one AI message.
describe('toolguard/langchain: the user text and parallel calls', () => {
  const tb = 'Traceback (most recent call last):\n  File "/w/repro.py", line 2, in <module>\n';
  const reproduced = `${tb}RuntimeError: Dropped elements in sequence 9 at /w/a.py\n`;
  const issue = 'Combining fails with\nRuntimeError: Dropped elements in sequence 3 at /tmp/x.py\nplease fix';

  it('a reproduction of the error the user quoted is context; the same output without the quote is an error', async () => {
    const run = async (prompt) => {
      const agent = agentWith([...calls('bash', { command: 'cd /w && python repro.py' }, 1), []], [bashTool(() => reproduced)]);
      const state = await agent.invoke({ messages: [new HumanMessage(prompt)] }, { configurable: { thread_id: 'u' } });
      return toolMessages(state)[0];
    };
    const plain = await run('please look at the combiner');
    assert.equal(plain.status, 'error');
    assert.match(plain.content, /^\[loud-failure\] bash reported no error but its output shows it failed/);
    const told = await run(issue);
    assert.equal(told.status, 'success');
    assert.ok(told.content.startsWith(`${reproduced.trimEnd()}\n\n[loud-failure] bash output may show`), told.content);
  });

  it('nine identical tool calls of one AI message raise no loop alarm; the same nine one after another do', async () => {
    const readTool = tool(async () => 'x = 1\n', { name: 'read_file', description: 'read a file', schema: z.object({ path: z.string() }) });
    const alarms = async (toolCalls) => {
      const agent = agentWith([...toolCalls, []], [readTool]);
      const state = await agent.invoke({ messages: [new HumanMessage('go')] }, { configurable: { thread_id: 'p' } });
      assert.equal(toolMessages(state).length, 9);
      return toolMessages(state).filter((m) => /Loop detected/.test(String(m.content))).length;
    };
    const parallel = [Array.from({ length: 9 }, () => ({ name: 'read_file', args: { path: 'a.py' }, id: `c${++ids}` }))];
    assert.equal(await alarms(parallel), 0);
    assert.ok((await alarms(calls('read_file', { path: 'a.py' }, 9))) > 0);
  });
});
