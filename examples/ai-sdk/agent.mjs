// An AI SDK agent guarded by toolguard, with a scripted model (no API key):
// the model lists the same folder again and again; guardTools
// appends the loop alarm to the 3rd result the model reads, and
// toolguardStopWhen ends the run after the step that drew the 2nd alarm.
//
//   npm install ai zod            # ai@7 wants Node >= 22
//   node node_modules/toolguard/examples/ai-sdk/agent.mjs
import { generateText, stepCountIs, tool } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { guardTools, toolguardStopWhen } from 'toolguard/ai-sdk';
import { z } from 'zod';

const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } };
let ids = 0;
/** The scripted model: every step asks for the same listing. */
const prompts = [];
const model = new MockLanguageModelV4({
  doGenerate: async ({ prompt }) => {
    prompts.push(prompt);
    return {
      content: [{ type: 'tool-call', toolCallId: `call-${++ids}`, toolName: 'bash', input: JSON.stringify({ command: 'ls src' }) }],
      finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
      usage,
      warnings: [],
    };
  },
});

const tools = guardTools({
  bash: tool({
    description: 'run a shell command',
    inputSchema: z.object({ command: z.string() }),
    execute: async () => 'app.js\nutil.js\n',
  }),
});

const result = await generateText({
  model,
  tools,
  prompt: 'make the tests pass',
  stopWhen: [
    stepCountIs(20),
    toolguardStopWhen(tools, {
      // A loop verdict names its detector; DSH's repeat reminder (`loops: false`) is a repeat.
      onStop: (alarm) => {
        const kind = 'kind' in alarm.verdict ? alarm.verdict.kind : 'repeat';
        console.log(`stopped: ${kind} × ${alarm.verdict.count}, alarm ${alarm.count}`);
      },
    }),
  ],
});
// What the model read of each tool result: the tool message of the prompt after it.
prompts.slice(1).forEach((prompt, i) => {
  const output = prompt.filter((m) => m.role === 'tool').at(-1).content[0].output;
  console.log(`--- after call ${i + 1}, the model reads:\n${String(output.value).trimEnd()}\n`);
});
console.log(`${result.steps.length} steps (the script would have run 20)`);
