// toolguard/openai-agents with the real OpenAI Agents SDK: `run()` drives an
// Agent whose Model is a scripted implementation of the SDK's Model
// interface; function tools carry the guardrail in `outputGuardrails`. The
// test reads the input the SDK sends the model on the next turn.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Agent, Usage, run, setTracingDisabled, tool } from '@openai/agents';
import { z } from 'zod';
import { GuardEngine } from 'toolguard';
import { guardTool, noteUserInput, toolguardGuardrail } from 'toolguard/openai-agents';

setTracingDisabled(true);

let ids = 0;
const call = (name, args) => ({
  type: 'function_call',
  callId: `call_${++ids}`,
  name,
  arguments: JSON.stringify(args),
  status: 'completed',
});
const done = { type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'done' }] };

/** A Model that answers each turn from a script and records the input it was sent. */
class ScriptedModel {
  constructor(turns) {
    this.turns = turns;
    this.inputs = [];
  }
  async getResponse(request) {
    this.inputs.push(structuredClone(request.input));
    const output = this.turns.shift() ?? [done];
    return { usage: new Usage(), output, responseId: `r${this.inputs.length}` };
  }
  // biome-ignore lint/correctness/useYield: the Model interface asks for an async generator; this fake is never streamed
  async *getStreamedResponse() {
    throw new Error('not used');
  }
}

/** Outputs of the function results in the input of the model's n-th turn. */
const resultsSeen = (model, n) =>
  typeof model.inputs[n] === 'string' ? [] : model.inputs[n].filter((i) => i.type === 'function_call_result').map((i) => i.output);
const lastResult = (model, n) => {
  const out = resultsSeen(model, n).at(-1);
  return typeof out === 'string' ? out : out.text;
};

const shell = (guard, run) =>
  tool({
    name: 'bash',
    description: 'run a shell command',
    parameters: z.object({ command: z.string() }),
    execute: async ({ command }) => run(command),
    outputGuardrails: [guard],
  });

describe('toolguard/openai-agents with the real Agents SDK', () => {
  it('the third identical call with the same output: the output is replaced by output + loop alarm (the only channel a guardrail has)', async () => {
    const guard = toolguardGuardrail();
    const model = new ScriptedModel([
      [call('bash', { command: 'ls' })],
      [call('bash', { command: 'ls' })],
      [call('bash', { command: 'ls' })],
    ]);
    const agent = new Agent({ name: 'coder', model, tools: [shell(guard, () => 'a.txt')] });
    const result = await run(agent, 'go');
    assert.equal(result.finalOutput, 'done');
    const engine = new GuardEngine({ loops: {} });
    const reminders = [1, 2, 3].map(
      () => engine.observe({ agentId: 'x', name: 'bash', arguments: { command: 'ls' } }, { text: 'a.txt' })?.loop?.text,
    );
    assert.match(reminders[2], /^\[toolguard\] Loop detected/);
    assert.equal(lastResult(model, 1), 'a.txt');
    assert.equal(lastResult(model, 2), 'a.txt');
    assert.equal(lastResult(model, 3), `a.txt\n\n${reminders[2]}`);
    const rejected = result.state._toolOutputGuardrailResults.filter((r) => r.output.behavior.type === 'rejectContent');
    assert.equal(rejected.length, 1);
    assert.equal(rejected[0].output.outputInfo.toolguard.loop.count, 3);
    assert.equal(rejected[0].output.outputInfo.toolguard.loop.kind, 'repeat');
  });

  it('an error rule rejects the output with the failure header and the original output', async () => {
    const guard = toolguardGuardrail();
    const out = "Cloning into repo...\nfatal: could not read Username for 'https://github.com': terminal prompts disabled\n";
    const model = new ScriptedModel([[call('bash', { command: 'git clone x; ls' })]]);
    const agent = new Agent({ name: 'coder', model, tools: [shell(guard, () => out)] });
    await run(agent, 'clone');
    const expected = new GuardEngine().observe({ name: 'bash', argumentsJson: '{}' }, { text: out }).failure.text;
    assert.equal(lastResult(model, 1), expected);
    assert.match(expected, /^\[loud-failure\] bash reported no error but its output shows it failed:\n- git-fatal \(line 2\)/);
  });

  it('notices: "drop" allows the output unchanged and keeps the verdict in outputInfo', async () => {
    const guard = toolguardGuardrail({ notices: 'drop', engine: { repeat: { thresholds: [2] }, loops: false } });
    const model = new ScriptedModel([[call('bash', { command: 'ls' })], [call('bash', { command: 'ls' })]]);
    const agent = new Agent({ name: 'coder', model, tools: [shell(guard, () => 'a.txt')] });
    const result = await run(agent, 'go');
    assert.equal(lastResult(model, 2), 'a.txt');
    const infos = result.state._toolOutputGuardrailResults.map((r) => r.output.outputInfo?.toolguard?.reminder?.count);
    assert.deepEqual(infos, [undefined, 2]);
  });

  it('each run is a new user turn: the chain starts over; agents of one run have their own chains', async () => {
    const guard = toolguardGuardrail();
    const model = new ScriptedModel([[call('bash', { command: 'ls' })], [call('bash', { command: 'ls' })]]);
    const agent = new Agent({ name: 'coder', model, tools: [shell(guard, () => 'x')] });
    await run(agent, 'go');
    model.turns.push([call('bash', { command: 'ls' })], [done]);
    const before = model.inputs.length;
    await run(agent, 'again');
    assert.equal(lastResult(model, before + 1), 'x', 'third ls overall, first of this run: no reminder');

    // A structured output reaches the engine as its shell text ({stdout, stderr}).
    const guard2 = toolguardGuardrail();
    const model2 = new ScriptedModel([[call('bash', { command: 'npm ci' })]]);
    const agent2 = new Agent({ name: 'b', model: model2, tools: [shell(guard2, () => ({ stdout: '', stderr: 'npm error code E404\n' }))] });
    await run(agent2, 'go');
    assert.match(lastResult(model2, 1), /^\[loud-failure\] bash reported no error but its output shows it failed:\n- npm-error/);
  });
});

describe('toolguard/openai-agents exact mode (guardTool)', () => {
  it("a stage that failed behind | tail is rejected with its real status; the command's output and exit status are unchanged", async () => {
    const { spawnSync } = await import('node:child_process');
    const { guardTool } = await import('toolguard/openai-agents');
    const failing = `python3 -c 'import sys; print("boom"); sys.exit(3)' | tail -1`;
    const ran = [];
    const realBash = () =>
      tool({
        name: 'bash',
        description: 'run a shell command',
        parameters: z.object({ command: z.string() }),
        execute: async ({ command }) => {
          const r = spawnSync('bash', ['-c', command], { encoding: 'utf8' });
          ran.push({ command, result: { stdout: r.stdout, stderr: r.stderr, exitCode: r.status } });
          return r.stdout;
        },
      });
    const session = async (engine) => {
      ran.length = 0;
      const model = new ScriptedModel([[call('bash', { command: failing })], [call('bash', { command: 'echo ok | cat' })]]);
      const agent = new Agent({ name: 'coder', model, tools: [guardTool(realBash(), toolguardGuardrail({ engine }))] });
      await run(agent, 'go');
      return { ran: [...ran], seen: [lastResult(model, 1), lastResult(model, 2)] };
    };
    const on = await session({ exactMode: true });
    const off = await session({});
    assert.ok(on.ran[0].command.startsWith(`${failing}\n__tg_rc=`), 'the tool ran the rewritten command');
    assert.equal(off.ran[0].command, failing);
    assert.deepEqual(
      on.ran.map((r) => r.result),
      off.ran.map((r) => r.result),
      "the command's own output and exit status are unchanged",
    );
    assert.deepEqual(on.ran[0].result, { stdout: 'boom\n', stderr: '', exitCode: 0 });
    assert.match(on.seen[0], /stage-exit-status \(line 1\): python3 \(stage 1 of 2\) exited 3/);
    assert.ok(on.seen[0].endsWith('Original output:\nboom\n'), on.seen[0]);
    assert.equal(off.seen[0], 'boom\n');
    assert.equal(on.seen[1], off.seen[1], 'a passing pipeline reaches the model unchanged');
  });

  it('guardTool refuses a guardrail it did not make', async () => {
    const { guardTool } = await import('toolguard/openai-agents');
    const plain = tool({ name: 't', description: 't', parameters: z.object({}), execute: async () => 'x' });
    assert.throws(
      () => guardTool(plain, { type: 'tool_output', name: 'x', run: async () => ({ behavior: { type: 'allow' } }) }),
      /toolguardGuardrail/,
    );
  });
});

// What the user reported, and the function calls of one model response.
describe('toolguard/openai-agents: the user text and parallel calls', () => {
  const tb = 'Traceback (most recent call last):\n  File "/w/repro.py", line 2, in <module>\n';
  const reproduced = `${tb}RuntimeError: Dropped elements in sequence 9 at /w/a.py\n`;
  const issue = 'Combining fails with\nRuntimeError: Dropped elements in sequence 3 at /tmp/x.py\nplease fix';

  it('with noteUserInput, a reproduction of the error the user quoted is context; without the quote, an error', async () => {
    const seen = async (prompt) => {
      const guard = toolguardGuardrail();
      const model = new ScriptedModel([[call('bash', { command: 'cd /w && python repro.py' })]]);
      const agent = new Agent({ name: 'coder', model, tools: [shell(guard, () => reproduced)] });
      noteUserInput(guard, agent);
      await run(agent, prompt);
      return lastResult(model, 1);
    };
    assert.match(await seen('please look at the combiner'), /^\[loud-failure\] bash reported no error but its output shows it failed/);
    const told = await seen(issue);
    assert.ok(told.startsWith(`${reproduced.trimEnd()}\n\n[loud-failure] bash output may show`), told);
  });

  it('with guardTool, nine identical calls of one response raise no loop alarm; the same nine one after another do', async () => {
    const alarms = async (turns) => {
      const guard = toolguardGuardrail();
      const responses = turns.length;
      const model = new ScriptedModel(turns);
      const read = tool({
        name: 'read_file',
        description: 'read a file',
        parameters: z.object({ path: z.string() }),
        execute: async () => 'x = 1\n',
      });
      await run(new Agent({ name: 'coder', model, tools: [guardTool(read, guard)] }), 'go', { maxTurns: 20 });
      // One response of nine calls: their nine results in the next input; nine responses: each one's result in the input after it.
      const outputs =
        responses === 1 ? resultsSeen(model, 1) : Array.from({ length: responses }, (_, i) => resultsSeen(model, i + 1).at(-1));
      assert.equal(outputs.length, 9);
      return outputs.filter((o) => /Loop detected/.test(typeof o === 'string' ? o : o.text)).length;
    };
    assert.equal(await alarms([Array.from({ length: 9 }, () => call('read_file', { path: 'a.py' }))]), 0);
    assert.ok((await alarms(Array.from({ length: 9 }, () => [call('read_file', { path: 'a.py' })]))) > 0);
  });
});
