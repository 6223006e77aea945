// toolguard/ai-sdk with the real Vercel AI SDK (`ai`): generateText drives a
// scripted MockLanguageModelV4 (from `ai/test`) through real tool calls, and
// the test reads the prompt the SDK sends the model on the next step — what
// the model actually sees of each tool result.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';

const major = Number(process.versions.node.split('.')[0]);
// `ai@7` declares engines.node >=22; the suite runs on Node 22 (scripts/test/test.mjs runs both).
const skip = major < 22 ? `the AI SDK (ai@7) requires Node >= 22; this is Node ${process.versions.node} — runs under Node 22` : false;
if (skip) console.log(`# SKIP ai-sdk adapter tests: ${skip}`);

const { generateText, stepCountIs, tool } = skip ? {} : await import('ai');
const { MockLanguageModelV4 } = skip ? {} : await import('ai/test');
const { z } = skip ? {} : await import('zod');
const { GuardEngine } = await import('toolguard');
const { guardTools, toolguardStopWhen, ToolguardError } = skip ? {} : await import('toolguard/ai-sdk');

const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } };
let ids = 0;
const call = (toolName, input) => ({
  content: [{ type: 'tool-call', toolCallId: `call-${++ids}`, toolName, input: JSON.stringify(input) }],
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

/** The tool-result outputs of the last tool message of a prompt, as the model receives them. */
const lastToolOutputs = (prompt) =>
  prompt
    .filter((m) => m.role === 'tool')
    .at(-1)
    .content.map((p) => p.output);

const shellTool = (run) =>
  tool({
    description: 'run a shell command',
    inputSchema: z.object({ command: z.string() }),
    execute: async ({ command }) => run(command),
  });

describe('toolguard/ai-sdk with the real AI SDK', { skip }, () => {
  it('appends the loop alarm to what the model reads of the third identical call with the same output; the app sees the raw output', async () => {
    const tools = guardTools({ bash: shellTool(() => 'hi\n') });
    const { model, prompts } = scripted([
      call('bash', { command: 'echo hi' }),
      call('bash', { command: 'echo hi' }),
      call('bash', { command: 'echo hi' }),
    ]);
    const result = await generateText({ model, tools, prompt: 'go', stopWhen: stepCountIs(5) });
    const engine = new GuardEngine({ loops: {} });
    const texts = [1, 2, 3].map(
      () => engine.observe({ agentId: 'a', name: 'bash', arguments: { command: 'echo hi' } }, { text: 'hi\n' })?.loop?.text,
    );
    assert.match(texts[2], /^\[toolguard\] Loop detected: bash was called 3 times in a row/);
    assert.deepEqual(lastToolOutputs(prompts[1]), [{ type: 'text', value: 'hi\n' }]);
    assert.deepEqual(lastToolOutputs(prompts[2]), [{ type: 'text', value: 'hi\n' }]);
    assert.deepEqual(lastToolOutputs(prompts[3]), [{ type: 'text', value: `hi\n\n${texts[2]}` }]);
    assert.deepEqual(
      result.steps.flatMap((s) => s.toolResults.map((r) => r.output)),
      ['hi\n', 'hi\n', 'hi\n'],
    );
  });

  it('an error rule makes the call a tool error carrying the failure header and the original output', async () => {
    const out = 'collecting\nTraceback (most recent call last):\n  File "t.py", line 1, in <module>\nImportError: bad\n';
    const tools = guardTools({ bash: shellTool(() => out) });
    const { model, prompts } = scripted([call('bash', { command: 'pytest | tail' })]);
    const result = await generateText({ model, tools, prompt: 'go', stopWhen: stepCountIs(3) });
    const expected = new GuardEngine().observe({ name: 'bash', argumentsJson: '{}' }, { text: out }).failure.text;
    assert.deepEqual(lastToolOutputs(prompts[1]), [{ type: 'error-text', value: expected }]);
    const error = result.steps[0].content.find((p) => p.type === 'tool-error').error;
    assert.ok(error instanceof ToolguardError);
    assert.equal(error.verdict.failure.rules[0].id, 'python-traceback');
  });

  it('structured shell output ({stdout, stderr, exitCode}) is scanned; a context notice joins the JSON as text', async () => {
    const panic = { stdout: "thread 'main' panicked at src/main.rs:1:1:\nboom\n", stderr: '', exitCode: 0 };
    const tools = guardTools({ sh: shellTool(() => panic) }, { engine: { loudFailure: { shellTools: ['sh'] } } });
    // `cargo run` alone: its exit status is the one reported (behind `| cat` the
    // hidden status would make the context rule an error).
    const { model, prompts } = scripted([call('sh', { command: 'cargo run' })]);
    await generateText({ model, tools, prompt: 'go', stopWhen: stepCountIs(3) });
    const [output] = lastToolOutputs(prompts[1]);
    assert.equal(output.type, 'content');
    assert.deepEqual(output.value[0], { type: 'text', text: JSON.stringify(panic) });
    assert.match(output.value[1].text, /^\[loud-failure\] sh output may show a silent failure:\n- rust-panic \(line 1\)/);
    // A non-zero exit code is shown to the model already: success-only rules stay silent.
    const failed = guardTools({ sh: shellTool(() => ({ ...panic, exitCode: 101 })) }, { engine: { loudFailure: { shellTools: ['sh'] } } });
    const second = scripted([call('sh', { command: 'cargo run' })]);
    await generateText({ model: second.model, tools: failed, prompt: 'go', stopWhen: stepCountIs(3) });
    assert.equal(lastToolOutputs(second.prompts[1])[0].type, 'json');
  });

  it("exact mode with a real shell tool: a stage that failed behind | tail is an error with its status; the command's output and exit status are unchanged", async () => {
    const { spawnSync } = await import('node:child_process');
    const { readdirSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const failing = `python3 -c 'import sys; print("boom"); sys.exit(3)' | tail -1`;
    // A real shell tool: bash runs the command it is given.
    const ran = [];
    const bash = () =>
      shellTool((command) => {
        const r = spawnSync('bash', ['-c', command], { encoding: 'utf8' });
        const result = { stdout: r.stdout, stderr: r.stderr, exitCode: r.status };
        ran.push({ command, result });
        return result;
      });
    const session = async (engine) => {
      ran.length = 0;
      const { model, prompts } = scripted([call('bash', { command: failing }), call('bash', { command: 'echo ok | cat' })]);
      await generateText({ model, tools: guardTools({ bash: bash() }, { engine }), prompt: 'go', stopWhen: stepCountIs(4) });
      return { ran: [...ran], seen: [lastToolOutputs(prompts[1])[0], lastToolOutputs(prompts[2])[0]] };
    };
    const on = await session({ exactMode: true });
    const off = await session({});
    assert.ok(on.ran[0].command.startsWith(`${failing}\n__tg_rc=`), 'the tool ran the rewritten command');
    assert.equal(off.ran[0].command, failing, 'without exact mode the command is not rewritten');
    // The command's own output and exit status are unchanged.
    assert.deepEqual(
      on.ran.map((r) => r.result),
      off.ran.map((r) => r.result),
    );
    assert.deepEqual(on.ran[0].result, { stdout: 'boom\n', stderr: '', exitCode: 0 });
    // The model: the failed stage with its real status (exact), the plain output (without).
    assert.equal(on.seen[0].type, 'error-text');
    assert.match(on.seen[0].value, /stage-exit-status \(line 1\): python3 \(stage 1 of 2\) exited 3/);
    assert.deepEqual(off.seen[0], { type: 'json', value: off.ran[0].result });
    assert.deepEqual(on.seen[1], off.seen[1], 'a passing pipeline reaches the model unchanged');
    // The side files were read and deleted.
    const dirs = readdirSync(tmpdir()).filter((d) => d.startsWith(`toolguard-exact-${process.pid}-`));
    assert.equal(dirs.length, 1, 'one private directory per process');
    assert.deepEqual(readdirSync(`${tmpdir()}/${dirs[0]}`), []);
  });

  it('a new user message resets the chain; steps of one turn do not', async () => {
    const tools = guardTools({ bash: shellTool(() => 'x') }, { engine: { loops: false } });
    const first = scripted([call('bash', { command: 'ls' }), call('bash', { command: 'ls' })]);
    await generateText({ model: first.model, tools, prompt: 'go', stopWhen: stepCountIs(5) });
    const second = scripted([call('bash', { command: 'ls' }), call('bash', { command: 'ls' }), call('bash', { command: 'ls' })]);
    await generateText({ model: second.model, tools, prompt: 'try again', stopWhen: stepCountIs(5) });
    assert.deepEqual(lastToolOutputs(second.prompts[1]), [{ type: 'text', value: 'x' }], 'first call after the new prompt: count 1');
    assert.deepEqual(lastToolOutputs(second.prompts[2]), [{ type: 'text', value: 'x' }]);
    assert.match(lastToolOutputs(second.prompts[3])[0].value, /^x\n\nYou are repeating/);
  });

  it('a throwing tool still advances the chain; the reminder joins its error; other tools pass through', async () => {
    const tools = guardTools({
      flaky: tool({
        inputSchema: z.object({}),
        // Typed, or the SDK infers `never` as the output and refuses the schema.
        execute: /** @returns {Promise<string>} */ async () => {
          throw new Error('ECONNRESET');
        },
      }),
      noExec: tool({ inputSchema: z.object({}) }),
    });
    assert.equal(tools.noExec.execute, undefined);
    const { model, prompts } = scripted([call('flaky', {}), call('flaky', {}), call('flaky', {})]);
    await generateText({ model, tools, prompt: 'go', stopWhen: stepCountIs(5) });
    assert.deepEqual(lastToolOutputs(prompts[2]), [{ type: 'error-text', value: 'Error: ECONNRESET' }]);
    assert.match(
      lastToolOutputs(prompts[3])[0].value,
      /^Error: ECONNRESET\n\n\[toolguard\] Loop detected: flaky was called 3 times in a row/,
    );
  });
});

// What the user reported, and the parallel calls of one model response.
const tb = 'Traceback (most recent call last):\n  File "/w/repro.py", line 2, in <module>\n';
const reproduced = `${tb}RuntimeError: Dropped elements in sequence 9 at /w/a.py\n`;
const issue = 'Combining fails with\nRuntimeError: Dropped elements in sequence 3 at /tmp/x.py\nplease fix';
const calls = (n, toolName, input) => ({
  ...call(toolName, input),
  content: Array.from({ length: n }, () => ({ type: 'tool-call', toolCallId: `call-${++ids}`, toolName, input: JSON.stringify(input) })),
});

describe('toolguard/ai-sdk: the user text and parallel calls', { skip }, () => {
  it('a reproduction of the error the user quoted is context; the same output without the quote is an error', async () => {
    const run = async (prompt) => {
      const tools = guardTools({ bash: shellTool(() => reproduced) });
      const { model, prompts } = scripted([call('bash', { command: 'cd /w && python repro.py' })]);
      await generateText({ model, tools, prompt, stopWhen: stepCountIs(3) });
      return lastToolOutputs(prompts[1])[0];
    };
    const plain = await run('please look at the combiner');
    assert.equal(plain.type, 'error-text');
    assert.match(plain.value, /^\[loud-failure\] bash reported no error but its output shows it failed/);
    const told = await run(issue);
    assert.equal(told.type, 'text');
    assert.ok(told.value.startsWith(`${reproduced.trimEnd()}\n\n[loud-failure] bash output may show`), told.value);
  });

  it('nine identical calls of one model response raise no loop alarm; the same nine one after another do', async () => {
    const alarms = async (steps) => {
      const readFile = tool({ inputSchema: z.object({ path: z.string() }), execute: async () => 'x = 1\n' });
      const tools = guardTools({ read_file: readFile });
      const { model, prompts } = scripted(steps);
      await generateText({ model, tools, prompt: 'go', stopWhen: stepCountIs(12) });
      return prompts
        .slice(1)
        .flatMap(lastToolOutputs)
        .filter((o) => /Loop detected/.test(o.value ?? '')).length;
    };
    assert.equal(await alarms([calls(9, 'read_file', { path: 'a.py' })]), 0);
    assert.ok((await alarms(Array.from({ length: 9 }, () => call('read_file', { path: 'a.py' })))) > 0);
  });
});

describe('toolguardStopWhen: a stop condition for stopWhen', { skip }, () => {
  const echo = () => tool({ inputSchema: z.object({ command: z.string() }), execute: async () => 'hi\n' });
  const same = (n) => Array.from({ length: n }, () => call('bash', { command: 'echo hi' }));

  it('with guardTools: the loop ends after the step that drew its 2nd alarm; the alarms reached the model first', async () => {
    const tools = guardTools({ bash: echo() });
    const stops = [];
    const { model, prompts } = scripted(same(8));
    const result = await generateText({
      model,
      tools,
      prompt: 'go',
      stopWhen: [stepCountIs(20), toolguardStopWhen(tools, { onStop: (alarm) => stops.push(alarm) })],
    });
    assert.equal(result.steps.length, 4, 'calls 1-4; the 4th drew the 2nd alarm');
    assert.equal(prompts.length, 4);
    assert.match(lastToolOutputs(prompts[3])[0].value, /\[toolguard\] Loop detected: bash was called 3 times/);
    assert.equal(stops.length, 1);
    assert.equal(stops[0].count, 2);
    assert.equal(stops[0].verdict.kind, 'repeat');
    assert.equal(stops[0].verdict.count, 4);
  });

  it('without it the same script runs on to its end', async () => {
    const { model } = scripted(same(8));
    const result = await generateText({ model, tools: guardTools({ bash: echo() }), prompt: 'go', stopWhen: stepCountIs(20) });
    assert.equal(result.steps.length, 9);
  });

  it('standalone, over tools that are not wrapped: its own engine reads the steps; after: 1 stops at the first alarm', async () => {
    const { model } = scripted(same(8));
    const result = await generateText({
      model,
      tools: { bash: echo() },
      prompt: 'go',
      stopWhen: [stepCountIs(20), toolguardStopWhen({ after: 1 })],
    });
    assert.equal(result.steps.length, 3);
  });

  it('standalone: identical calls of one step are parallel (no alarm); a new generateText call starts the chain over', async () => {
    const stop = toolguardStopWhen({ after: 1 });
    const parallel = await generateText({
      model: scripted([calls(5, 'bash', { command: 'echo hi' })]).model,
      tools: { bash: echo() },
      prompt: 'go',
      stopWhen: [stepCountIs(20), stop],
    });
    assert.equal(parallel.steps.length, 2, 'the five parallel calls did not stop it');
    const next = await generateText({
      model: scripted(same(2)).model,
      tools: { bash: echo() },
      prompt: 'again',
      stopWhen: [stepCountIs(20), stop],
    });
    assert.equal(next.steps.length, 3, 'two more identical calls in a new turn draw no alarm');
  });

  it('a bad `after` is refused when the condition is made', () => {
    assert.throws(() => toolguardStopWhen({ after: 0 }), /toolguardStopWhen's `after` must be an integer >= 1 \(got 0\)/);
  });
});
