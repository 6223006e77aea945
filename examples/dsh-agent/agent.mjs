// A DSH agent with toolguard's DSH plugin, run against a scripted model (no
// network, no API key): the real DSH agent loop and tool runtime on a cordis
// app, a `bash` tool that answers with canned shell transcripts, and
// `toolguard/dsh` mounted as a cordis.yml row `name: toolguard/dsh` would
// mount it. The model runs the same failing test command three times, then a
// script whose `| tail` hides a traceback behind exit 0; each time the model
// is asked for its next step, this prints what it receives.
//
// Needs the DSH packages (docs/dsh.md, "Try it"):
//   npm install @deepseek-ai/cordis@4.0.4 @deepseek-ai/schemastery@3.18.4 @deepseek-ai/dsh-llm@0.1.0-rc.8 …
// Run: node node_modules/toolguard/examples/dsh-agent/agent.mjs

// The DSH agent loop uses Promise.withResolvers, which Node 20 lacks (the cast: Node 20's lib does not declare it).
const PromiseCtor = /** @type {PromiseConstructor & { withResolvers?: Function }} */ (Promise);
if (typeof PromiseCtor.withResolvers !== 'function') {
  PromiseCtor.withResolvers = function withResolvers() {
    let resolve, reject;
    const promise = new this((res, rej) => {
      resolve = res;
      reject = rej;
    });
    return { promise, resolve, reject };
  };
}

const toolguard = await import('toolguard/dsh'); // names any missing DSH package before the imports below fail
const { Context } = await import('@deepseek-ai/cordis');
const { default: LlmRuntime, LlmAdapter, createUserMessage } = await import('@deepseek-ai/dsh-llm');
const { CallId } = await import('@deepseek-ai/dsh-llm/brand');
const { default: SessionStore, SessionId } = await import('@deepseek-ai/dsh-session');
const { default: SystemPrompt } = await import('@deepseek-ai/dsh-system-prompt');
const { default: ToolRuntime } = await import('@deepseek-ai/dsh-tools');
const { default: AgentRegistry } = await import('@deepseek-ai/dsh-agent');
const { default: AgentLoop } = await import('@deepseek-ai/dsh-agent-loop');

// What the model asks for, step by step; an empty script ends the turn with text.
const TESTS = { command: 'npm test' };
const MIGRATE = { command: 'python3 scripts/migrate.py 2>&1 | tail -n 3' };
const steps = [TESTS, TESTS, TESTS, MIGRATE];

// What the `bash` tool answers (a DSH shell transcript: a non-zero exit ends in `[exit code: N]`).
const transcripts = new Map([
  [TESTS.command, 'FAIL test/config.test.js\n  ✕ parses the port (4 ms)\n\nTests: 1 failed, 11 passed, 12 total\n[exit code: 1]'],
  [MIGRATE.command, 'Traceback (most recent call last):\n  File "scripts/migrate.py", line 12, in <module>\nKeyError: \'DATABASE_URL\''],
]);

/** The model: answers each request with the next scripted call and prints what the request brought. */
class ScriptedModel extends LlmAdapter {
  seen = 0;
  calls = 0;

  /**
   * @param {import('@deepseek-ai/dsh-llm/types').GenerateOptions} options
   * @returns {AsyncGenerator<import('@deepseek-ai/dsh-llm/types').StreamChunk>}
   */
  async *stream(options) {
    this.report(options.messages);
    const args = steps.shift();
    if (args) {
      const id = CallId(`call_${++this.calls}`);
      const raw = JSON.stringify(args);
      console.log(`\n> the model calls bash ${raw}`);
      yield { type: 'block-start', index: 0, blockType: 'tool-call' };
      yield { type: 'tool-call-delta', index: 0, id, name: 'bash', argumentsDelta: raw };
      yield { type: 'block-end', index: 0, block: { type: 'tool-call', id, name: 'bash', arguments: raw } };
      yield { type: 'usage', usage: { inputTokens: 1, outputTokens: 1 } };
      yield { type: 'finish', reason: { kind: 'tool-calls' } };
      return;
    }
    const text = 'Stopping here: the test keeps failing the same way and the migration needs DATABASE_URL.';
    console.log(`\n> the model answers: ${text}`);
    yield { type: 'block-start', index: 0, blockType: 'text' };
    yield { type: 'text-delta', index: 0, text };
    yield { type: 'block-end', index: 0, block: { type: 'text', text } };
    yield { type: 'usage', usage: { inputTokens: 1, outputTokens: 1 } };
    yield { type: 'finish', reason: { kind: 'stop' } };
  }

  /** The messages this request adds to the conversation, as the model reads them. */
  report(messages) {
    for (const message of messages.slice(this.seen)) {
      if (message.role === 'assistant') continue; // the model's own calls
      for (const block of message.content) {
        if (block.type === 'tool-result') {
          const label = block.isError ? 'tool result (error)' : 'tool result';
          console.log(`  ${label}:\n${indent(textOf(block.content))}`);
        } else if (block.type === 'text') {
          const { source } = message;
          const from = source.kind === 'plugin' ? `notice from plugin ${source.plugin} (${source.summary})` : source.kind;
          console.log(`  ${from}:\n${indent(block.text)}`);
        }
      }
    }
    this.seen = messages.length;
  }
}

const textOf = (content) =>
  content
    .filter((block) => block.type === 'text')
    .map((block) => block.text)
    .join('\n');
const indent = (text) => text.replace(/^/gm, '    | ');

/** @type {import('@deepseek-ai/dsh-tools').ToolDefinition} */
const bash = {
  name: 'bash',
  description: 'Run a shell command (canned transcripts in this example)',
  parameters: { type: 'object', properties: { command: { type: 'string' } }, required: ['command'] },
  output: { schema: { type: 'string' }, render: (_args, value) => [{ type: 'text', text: String(value) }] },
  execute: async (args) => {
    const { command } = /** @type {{ command: string }} */ (args);
    return transcripts.get(command) ?? `bash: ${command}: command not found\n[exit code: 127]`;
  },
};

// The cordis app: DSH's model runtime, sessions, tools and agent loop, then toolguard (the cordis.yml row).
const app = new Context();
app.plugin(LlmRuntime);
app.plugin(SessionStore);
app.plugin(SystemPrompt, {});
app.plugin(ToolRuntime, {});
app.plugin(AgentRegistry);
app.plugin(AgentLoop, { agents: [] });
// The cast: toolguard's published types leave cordis out (it type-checks without DSH installed).
await app.plugin(/** @type {any} */ (toolguard), {});
app.llm.registerAdapter(['scripted'], new ScriptedModel());
app.tools.register(bash);

const agent = app.agentLoop.create(SessionId('example'), { provider: 'scripted', model: 'scripted' });
console.log('> the user asks: the tests fail, fix them and run the migration');
agent.followup(
  createUserMessage({
    content: [{ type: 'text', text: 'the tests fail, fix them and run the migration' }],
    source: { kind: 'user' },
  }),
);
await agent.whenIdle();
await app.fiber.dispose();
