// Headless DSH harness for plugin tests: a real agent loop (dsh-agent-loop)
// driven by a scripted model, following the recipe in guard-semantics.md.
// The loop, the tool pipeline and the session log are the pinned DSH
// packages; only the model and the tools are fakes we control.

// The harness targets Node ^22.19; Node 20 lacks Promise.withResolvers, which
// the agent loop uses. Polyfill before any loop code runs.
// The cast: lib ES2022 (Node 20's) does not declare it.
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

import { Context } from '@deepseek-ai/cordis';
import LlmRuntime, { LlmAdapter, createUserMessage } from '@deepseek-ai/dsh-llm';
import { CallId } from '@deepseek-ai/dsh-llm/brand';
import SessionStore, { SessionId } from '@deepseek-ai/dsh-session';
import SystemPrompt from '@deepseek-ai/dsh-system-prompt';
import ToolRuntime from '@deepseek-ai/dsh-tools';
import AgentRegistry from '@deepseek-ai/dsh-agent';
import AgentLoop from '@deepseek-ai/dsh-agent-loop';

export { createUserMessage, SessionId };

/**
 * Scripted model. Each session has a FIFO of responses; a response is either
 * `{ calls: [{ name, args }] }` (tool calls; `args` an object or a raw JSON
 * string) or `{ text }`. An empty queue answers with text, which ends the turn.
 * An optional global `order` (session ids) forces the interleaving of
 * concurrently running agents: a request waits until the head of `order` is
 * its session.
 */
export class ScriptedModel extends LlmAdapter {
  scripts = new Map();
  order = [];
  waiters = [];
  requests = [];
  /** Session ids in the order their requests were answered. */
  served = [];
  callSeq = 0;

  script(sessionId, responses) {
    const queue = this.scripts.get(sessionId) ?? [];
    queue.push(...responses);
    this.scripts.set(sessionId, queue);
  }

  async #turnstile(sessionId) {
    // Only sessions named in `order` are gated; it is consumed as they pass.
    while (this.order.length > 0 && this.order.includes(sessionId) && this.order[0] !== sessionId) {
      await new Promise((resolve) => this.waiters.push(resolve));
    }
    if (this.order[0] === sessionId) this.order.shift();
    this.served.push(sessionId);
    const waiting = this.waiters.splice(0);
    for (const wake of waiting) wake();
  }

  /**
   * @param {import('@deepseek-ai/dsh-llm/types').GenerateOptions} options
   * @returns {AsyncGenerator<import('@deepseek-ai/dsh-llm/types').StreamChunk>}
   */
  async *stream(options) {
    const sessionId = options.sessionId;
    this.requests.push(options);
    await this.#turnstile(sessionId);
    const queue = this.scripts.get(sessionId) ?? [];
    const response = queue.shift() ?? { text: 'done' };
    if (response.calls) {
      let index = 0;
      for (const call of response.calls) {
        const id = CallId(`call_${++this.callSeq}`);
        const raw = typeof call.args === 'string' ? call.args : JSON.stringify(call.args ?? {});
        yield { type: 'block-start', index, blockType: 'tool-call' };
        yield { type: 'tool-call-delta', index, id, name: call.name, argumentsDelta: raw };
        yield { type: 'block-end', index, block: { type: 'tool-call', id, name: call.name, arguments: raw } };
        index++;
      }
      yield { type: 'usage', usage: { inputTokens: 1, outputTokens: 1 } };
      yield { type: 'finish', reason: { kind: 'tool-calls' } };
      return;
    }
    yield { type: 'block-start', index: 0, blockType: 'text' };
    yield { type: 'text-delta', index: 0, text: response.text };
    yield { type: 'block-end', index: 0, block: { type: 'text', text: response.text } };
    yield { type: 'usage', usage: { inputTokens: 1, outputTokens: 1 } };
    yield { type: 'finish', reason: { kind: 'stop' } };
  }
}

/**
 * A tool whose canonical value is a string rendered as one text block.
 * `run(args, exec)` returns the string (e.g. a fake shell transcript with an
 * `[exit code: N]` marker) or throws to produce an error result.
 */
/**
 * @param {string} name
 * @param {(args: any, exec: unknown) => string | Promise<string>} [run] `args` is the model's JSON
 */
export function textTool(name, run = () => 'ok') {
  return {
    name,
    description: `test tool ${name}`,
    parameters: { type: 'object', properties: {}, additionalProperties: true },
    output: {
      schema: { type: 'string' },
      render: (_args, value) => [{ type: 'text', text: value }],
    },
    execute: async (args, exec) => run(args, exec),
  };
}

/** Boot a headless loop. Returns helpers bound to it; call `dispose()` at the end. */
export async function boot() {
  const ctx = new Context();
  const warnings = [];
  ctx.logger.exporter({
    levels: { default: 3 },
    export: (message) => {
      if (message.type === 'warn' || message.type === 'error') warnings.push(message);
    },
  });
  ctx.plugin(LlmRuntime);
  ctx.plugin(SessionStore);
  ctx.plugin(SystemPrompt, {});
  ctx.plugin(ToolRuntime, {});
  ctx.plugin(AgentRegistry);
  ctx.plugin(AgentLoop, { agents: [] });
  await settle(ctx, ['llm', 'tools', 'agentLoop']);
  const model = new ScriptedModel();
  ctx.llm.registerAdapter(['mock'], model);
  return new Harness(ctx, model, warnings);
}

async function settle(ctx, services) {
  for (let i = 0; i < 200; i++) {
    if (services.every((name) => ctx.get?.(name) ?? safeGet(ctx, name))) return;
    await new Promise((resolve) => setImmediate(resolve));
  }
  throw new Error(`harness services did not start: ${services.filter((n) => !safeGet(ctx, n)).join(', ')}`);
}

function safeGet(ctx, name) {
  try {
    return ctx[name];
  } catch {
    return undefined;
  }
}

export class Harness {
  constructor(ctx, model, warnings) {
    this.ctx = ctx;
    this.model = model;
    this.warnings = warnings;
  }

  /** Mount a plugin module ({name, Config, apply}) the way the Loader does. */
  async plugin(module, config = {}) {
    const fiber = this.ctx.plugin(module, config);
    await fiber; // resolves once apply() ran (or rejects with its error)
    return fiber;
  }

  tool(definition) {
    return this.ctx.tools.register(definition);
  }

  agent(id) {
    return this.ctx.agentLoop.create(SessionId(id), { provider: 'mock', model: 'mock' });
  }

  /** An agent with its own disposer (`handle.dispose()`), for lifetime tests. */
  async ownedAgent(id) {
    return this.ctx.agentLoop.createAgent(this.ctx, {
      sessionId: SessionId(id),
      agentOptions: { provider: 'mock', model: 'mock' },
    });
  }

  /**
   * Run one user turn: script the model's steps (each an array of calls),
   * send a user prompt, wait for the loop to go idle.
   */
  async turn(agent, steps, prompt = 'go') {
    this.model.script(
      agent.id,
      steps.map((calls) => ({ calls })),
    );
    this.model.script(agent.id, [{ text: 'done' }]);
    agent.followup(createUserMessage({ content: [{ type: 'text', text: prompt }], source: { kind: 'user' } }));
    await agent.whenIdle();
  }

  /**
   * Like `turn`, but woken by a plugin-sourced notice instead of a user
   * prompt, so `agent/pre-step` sees no user message and no chain resets.
   */
  async wake(agent, steps) {
    this.model.script(
      agent.id,
      steps.map((calls) => ({ calls })),
    );
    this.model.script(agent.id, [{ text: 'done' }]);
    const notice = createUserMessage({
      content: [{ type: 'text', text: 'continue' }],
      source: { kind: 'plugin', plugin: 'test-kit', form: 'notice', summary: 'wake' },
    });
    agent.send(notice, 'next-turn', true);
    await agent.whenIdle();
  }

  /**
   * What the model saw after the prompt, in order: one entry per tool result
   * (`{kind:'result', name, callId, text, isError, content}`) and one per
   * plugin context (`{kind:'context', plugin, summary, text, source}`).
   * Our own wake notices are left out.
   */
  timeline(agent) {
    const names = new Map();
    const out = [];
    for (const event of agent.session.events) {
      if (event.type === 'tool/call') names.set(event.data.callId, event.data.name);
      if (event.type === 'tool/result') {
        for (const block of event.data.message.content) {
          if (block.type !== 'tool-result') continue;
          out.push({
            kind: 'result',
            name: names.get(block.toolCallId),
            callId: block.toolCallId,
            isError: block.isError,
            content: block.content,
            text: textOf(block.content),
          });
        }
      }
      if (event.type === 'user/message' && event.data.source.kind === 'plugin' && event.data.source.plugin !== 'test-kit') {
        out.push({
          kind: 'context',
          plugin: event.data.source.plugin,
          summary: event.data.source.summary,
          source: event.data.source,
          text: textOf(event.data.content),
        });
      }
    }
    return out;
  }

  /** Plugin contexts only (reminders, notices). */
  contexts(agent) {
    return this.timeline(agent).filter((e) => e.kind === 'context');
  }

  /** The `tool/result` events of an agent's session, in order. */
  toolResults(agent) {
    return agent.session.events.filter((e) => e.type === 'tool/result').map((e) => e.data);
  }

  /** The `user/message` events of an agent's session, in order. */
  userMessages(agent) {
    return agent.session.events.filter((e) => e.type === 'user/message').map((e) => e.data);
  }

  /** Run a tool directly through the registry, without an agent. */
  async execute(name, args, callId = `direct_${++this.model.callSeq}`) {
    return this.ctx.tools.execute({ callId, name, arguments: args, signal: new AbortController().signal });
  }

  async dispose() {
    await this.ctx.fiber.dispose();
  }
}

export function textOf(content) {
  return content
    .filter((b) => b.type === 'text' && typeof b.text === 'string')
    .map((b) => b.text)
    .join('\n');
}
