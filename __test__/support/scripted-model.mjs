// A scripted Anthropic Messages API server and a driver for the Claude Agent
// SDK (@anthropic-ai/claude-agent-sdk, which runs the Claude Code binary of its
// platform package) against it. Claude Code runs the scripted tool calls for
// real; the requests it sends next show what the model was given.
import { mkdirSync, mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { query } from '@anthropic-ai/claude-agent-sdk';
import { messagesServer } from './mock-wire.mjs';

/**
 * The scripted model. A script step is a Bash command, or `{name, input}` for
 * any other tool. Each user turn (a new text prompt, `turn N`) starts the next
 * script; the main loop is the request that offers the Bash tool, and it
 * gets the script's next Bash call until the script is done. Side requests
 * (titles, summaries) get a short text.
 */
export async function scriptedModel(turns) {
  return messagesServer(
    (b) => {
      // Where the conversation is: which user turn, and how many tool results since it began.
      let turn = -1;
      let done = 0;
      for (const m of b.messages) {
        if (m.role !== 'user') continue;
        const blocks = typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : m.content;
        if (blocks.some((c) => c.type === 'tool_result')) done += blocks.filter((c) => c.type === 'tool_result').length;
        else if (blocks.some((c) => c.type === 'text' && /^turn \d+$/.test(c.text.trim()))) {
          turn = Number(
            blocks
              .find((c) => c.type === 'text' && /^turn \d+$/.test(c.text.trim()))
              .text.trim()
              .slice(5),
          );
          done = 0;
        }
      }
      const script = turns[turn] ?? [];
      if (done >= script.length) return undefined;
      const step = script[done];
      const call = typeof step === 'string' ? { name: 'Bash', input: { command: step, description: 'step' } } : step;
      return { id: `toolu_${turn}_${done + 1}`, ...call };
    },
    { model: 'claude-sonnet-4-5', stream: true },
  );
}

/** The text of each tool result the model was sent, in order (string or block content). */
export function toolResults(requests) {
  const seen = new Map();
  for (const b of requests) {
    for (const m of b.messages) {
      if (m.role !== 'user' || typeof m.content === 'string') continue;
      m.content.forEach((c, i) => {
        if (c.type !== 'tool_result') return;
        // Claude Code sends hook context as text blocks right after the tool result.
        const after = [];
        for (const next of m.content.slice(i + 1)) {
          if (next.type === 'tool_result') break;
          if (next.type === 'text') after.push(next.text);
        }
        const own = typeof c.content === 'string' ? c.content : (c.content ?? []).map((x) => x.text ?? '').join('\n');
        seen.set(c.tool_use_id, { id: c.tool_use_id, isError: c.is_error === true, text: [own, ...after].join('\n') });
      });
    }
  }
  return [...seen.values()];
}

/**
 * Run a session in a fresh HOME: one user message per script (streamed in
 * after the previous turn's result). `options` go to `query()` (hooks, mcpServers, allowedTools…).
 */
export async function runSession(turns, scratch, options = {}) {
  const { server, requests } = await scriptedModel(turns);
  const home = mkdtempSync(join(scratch, 'home-'));
  const cwd = join(home, 'project');
  mkdirSync(cwd);
  // The next prompt goes in once the previous turn has its result.
  const ended = turns.map(() => {
    let resolve;
    const promise = new Promise((r) => (resolve = r));
    return { promise, resolve };
  });
  async function* prompts() {
    for (let i = 0; i < turns.length; i++) {
      if (i > 0) await ended[i - 1].promise;
      yield { type: 'user', message: { role: 'user', content: `turn ${i}` }, parent_tool_use_id: null };
    }
  }
  const messages = [];
  let stderr = '';
  try {
    for await (const message of query({
      // the SDK's SDKUserMessage type asks for fields this script leaves to the SDK
      prompt: /** @type {any} */ (prompts()),
      options: {
        cwd,
        model: 'claude-sonnet-4-5',
        allowedTools: ['Bash'],
        // Bash is pre-approved (bypassPermissions is refused under root, as CI runs).
        permissionMode: 'default',
        settingSources: [],
        stderr: (d) => (stderr += d),
        ...options,
        env: {
          ...process.env,
          HOME: home,
          CLAUDE_CONFIG_DIR: join(home, '.claude'),
          ANTHROPIC_BASE_URL: `http://127.0.0.1:${server.address().port}`,
          ANTHROPIC_API_KEY: 'sk-test',
          CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
          DISABLE_AUTOUPDATER: '1',
        },
      },
    })) {
      messages.push(message);
      if (message.type === 'result') {
        const count = messages.filter((m) => m.type === 'result').length;
        ended[count - 1]?.resolve();
        if (count === turns.length) break;
      }
    }
  } finally {
    server.close();
  }
  return { requests, messages, results: toolResults(requests), stderr };
}
