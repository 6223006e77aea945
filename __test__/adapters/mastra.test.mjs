// toolguard/mastra with a real Mastra Agent (@mastra/core): agent.generate
// drives a scripted model (MockLanguageModelV4 from `ai/test`, which Mastra
// takes as any AI SDK model) through real tool calls, and the test reads the
// prompt Mastra sends the model on the next step — what the model actually
// sees of each tool result.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';

const major = Number(process.versions.node.split('.')[0]);
// `@mastra/core` declares engines.node >=22.13; the suite runs on Node 22 (scripts/test/test.mjs runs both).
const skip = major < 22 ? `@mastra/core requires Node >= 22; this is Node ${process.versions.node} — runs under Node 22` : false;
if (skip) console.log(`# SKIP mastra adapter tests: ${skip}`);

const { Agent } = skip ? {} : await import('@mastra/core/agent');
const { createTool } = skip ? {} : await import('@mastra/core/tools');
const { MockLanguageModelV4 } = skip ? {} : await import('ai/test');
const { z } = skip ? {} : await import('zod');
const { GuardEngine } = await import('toolguard');
const { toolguardMastra } = skip ? {} : await import('toolguard/mastra');

const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } };
let ids = 0;
/** One model response: these tool calls (`[name, input]`), or the text `done`. */
const step = (...calls) => ({
  content: calls.map(([toolName, input]) => ({ type: 'tool-call', toolCallId: `call-${++ids}`, toolName, input: JSON.stringify(input) })),
  finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
  usage,
  warnings: [],
});
const answer = { content: [{ type: 'text', text: 'done' }], finishReason: { unified: 'stop', raw: 'stop' }, usage, warnings: [] };

/** A scripted model that records every prompt it is sent. */
function scripted(steps) {
  const prompts = [];
  let i = 0;
  const model = new MockLanguageModelV4({
    doGenerate: async (options) => {
      prompts.push(options.prompt);
      return steps[i++] ?? answer;
    },
  });
  return { model, prompts };
}

/** The text the model reads of each tool result, by call, across all prompts (the latest wins). */
function toolOutputs(prompts) {
  const seen = new Map();
  for (const prompt of prompts)
    for (const m of prompt)
      if (m.role === 'tool')
        for (const p of m.content) {
          if (p.type !== 'tool-result') continue;
          const o = p.output;
          seen.set(p.toolCallId, typeof o.value === 'string' ? o.value : JSON.stringify(o.value));
        }
  return [...seen.values()];
}

/** A `bash` tool returning `run(command)` (`tool`), and how many times it ran (`runs`). */
function bash(run) {
  const counted = { runs: 0, tool: undefined };
  counted.tool = createTool({
    id: 'bash',
    description: 'run a shell command',
    inputSchema: z.object({ command: z.string() }),
    execute: async ({ command }) => {
      counted.runs++;
      return run(command);
    },
  });
  return counted;
}

function agentWith(tools, model, options) {
  const guard = toolguardMastra(options);
  return new Agent({
    id: 'coder',
    name: 'coder',
    instructions: 'You run commands.',
    model,
    tools,
    hooks: guard.hooks,
    outputProcessors: [guard.processor],
  });
}

describe('toolguard/mastra with a real Mastra Agent', { skip }, () => {
  it('the third identical call with the same output gets the loop alarm in the result the model reads', async () => {
    const tool = bash(() => 'hi\n');
    const { model, prompts } = scripted([
      step(['bash', { command: 'echo hi' }]),
      step(['bash', { command: 'echo hi' }]),
      step(['bash', { command: 'echo hi' }]),
    ]);
    await agentWith({ bash: tool.tool }, model).generate('go', { maxSteps: 6 });
    const engine = new GuardEngine({ loops: {} });
    const alarm = [1, 2, 3].map(() =>
      engine.observe({ agentId: 'a', name: 'bash', arguments: { command: 'echo hi' } }, { text: 'hi\n' }),
    )[2].loop.text;
    assert.match(alarm, /^\[toolguard\] Loop detected: bash was called 3 times in a row/);
    assert.deepEqual(toolOutputs(prompts), ['hi\n', 'hi\n', `hi\n\n${alarm}`]);
    assert.equal(tool.runs, 3);
  });

  it('identical calls made in parallel by one response raise no alarm', async () => {
    const tool = bash(() => 'hi\n');
    const same = ['bash', { command: 'echo hi' }];
    const { model, prompts } = scripted([step(same, same, same, same)]);
    await agentWith({ bash: tool.tool }, model).generate('go', { maxSteps: 4 });
    assert.equal(tool.runs, 4);
    assert.deepEqual(toolOutputs(prompts), ['hi\n', 'hi\n', 'hi\n', 'hi\n']);
  });

  it('an error rule replaces the shell output the model reads with the failure text', async () => {
    const out = 'Traceback (most recent call last):\n  File "t.py", line 1, in <module>\nImportError: bad\n';
    const tool = bash(() => ({ stdout: out, stderr: '', exitCode: 0 }));
    const { model, prompts } = scripted([step(['bash', { command: 'python t.py' }])]);
    await agentWith({ bash: tool.tool }, model).generate('go', { maxSteps: 3 });
    const failure = new GuardEngine({ loops: {} }).observe({ name: 'bash', argumentsJson: '{}' }, { text: out }).failure;
    assert.equal(failure.action, 'error');
    assert.deepEqual(toolOutputs(prompts), [failure.text]);
  });

  it('loops.deny: the call that would go on with a reminded loop is not run; the model reads the reason', async () => {
    const tool = bash(() => 'hi\n');
    const same = ['bash', { command: 'echo hi' }];
    const { model, prompts } = scripted([step(same), step(same), step(same), step(same)]);
    await agentWith({ bash: tool.tool }, model, { engine: { loops: { deny: 1 } } }).generate('go', { maxSteps: 6 });
    const engine = new GuardEngine({ loops: { deny: 1 } });
    const exec = { agentId: 'a', name: 'bash', argumentsJson: JSON.stringify({ command: 'echo hi' }) };
    for (let i = 0; i < 3; i++) engine.observe(exec, { text: 'hi\n' });
    const refused = engine.check(exec);
    const outputs = toolOutputs(prompts);
    assert.equal(outputs.length, 4);
    assert.match(outputs[2], /\[toolguard\] Loop detected/);
    assert.equal(outputs[3], refused.reason);
    assert.equal(tool.runs, 3, 'the refused call never ran');
  });

  it('a new user message starts the chain over', async () => {
    const tool = bash(() => 'hi\n');
    const same = ['bash', { command: 'echo hi' }];
    const { model, prompts } = scripted([step(same), step(same), answer, step(same), step(same), step(same)]);
    const agent = agentWith({ bash: tool.tool }, model);
    await agent.generate('first', { maxSteps: 6 });
    const first = prompts.length;
    await agent.generate(
      [
        { role: 'user', content: 'first' },
        { role: 'assistant', content: 'done' },
        { role: 'user', content: 'second' },
      ],
      {
        maxSteps: 6,
      },
    );
    const later = toolOutputs(prompts.slice(first));
    // Without the reset the 3rd identical call (the 1st of this turn) would draw the alarm.
    assert.equal(later.length, 3);
    assert.ok(!later[0].includes('[toolguard]') && !later[1].includes('[toolguard]'));
    assert.match(later[2], /\[toolguard\] Loop detected: bash was called 3 times in a row/);
  });
});
