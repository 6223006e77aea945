// toolguard/claude-agent-sdk inside the real Claude Agent SDK
// (@anthropic-ai/claude-agent-sdk, which runs the Claude Code binary of its
// platform package). A local mock of the Anthropic Messages API scripts the
// model; Claude Code runs the Bash commands for real and calls the in-process
// hooks; the test reads the requests the model received next, so it checks
// what the model sees. Expected texts come from the engine.

// The test-only panic hook (docs/security.md) is read once, at the engine's
// first call in this process: it names a tool no scripted session uses.
process.env.TOOLGUARD_TEST_PANIC = 'observe:PanicTool';

import { createServer } from 'node:http';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { query } from '@anthropic-ai/claude-agent-sdk';
import { GuardEngine } from 'toolguard';
import { chainOf, toolguardHooks } from 'toolguard/claude-agent-sdk';

const scratch = mkdtempSync(join(tmpdir(), 'toolguard-agent-sdk-test-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

/**
 * The scripted model. Each user turn (a new text prompt) starts the next
 * script; the main loop is the request that offers the Bash tool, and it
 * gets the script's next Bash call until the script is done. Side requests
 * (titles, summaries) get a short text.
 */
function scriptedModel(turns) {
  const requests = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      if (!req.url.startsWith('/v1/messages') || req.url.includes('count_tokens')) {
        res.writeHead(200, { 'content-type': 'application/json' });
        return res.end(JSON.stringify({ input_tokens: 10 }));
      }
      const b = JSON.parse(body);
      const main = (b.tools ?? []).some((t) => t.name === 'Bash');
      if (main) requests.push(b);
      // Where the conversation is: which user turn, and how many tool results since it began.
      let turn = -1;
      let done = 0;
      for (const m of b.messages) {
        if (m.role !== 'user') continue;
        const blocks = typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : m.content;
        if (blocks.some((c) => c.type === 'tool_result')) done += blocks.filter((c) => c.type === 'tool_result').length;
        else if (blocks.some((c) => c.type === 'text' && /^turn \d+$/.test(c.text.trim()))) {
          turn = Number(blocks.find((c) => c.type === 'text' && /^turn \d+$/.test(c.text.trim())).text.trim().slice(5));
          done = 0;
        }
      }
      const script = turns[turn] ?? [];
      let content = [{ type: 'text', text: main ? 'done' : 'ok' }];
      let stop = 'end_turn';
      if (main && done < script.length) {
        content = [{ type: 'tool_use', id: `toolu_${turn}_${done + 1}`, name: 'Bash', input: { command: script[done], description: 'step' } }];
        stop = 'tool_use';
      }
      sse(res, content, stop, requests.length);
    });
  });
  return { server, requests };
}

function sse(res, content, stop, n) {
  const events = [
    {
      type: 'message_start',
      message: { id: `msg_${n}`, type: 'message', role: 'assistant', model: 'claude-sonnet-4-5', content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 10, output_tokens: 1 } },
    },
  ];
  content.forEach((block, index) => {
    const start = block.type === 'tool_use' ? { ...block, input: {} } : { type: 'text', text: '' };
    const delta = block.type === 'tool_use' ? { type: 'input_json_delta', partial_json: JSON.stringify(block.input) } : { type: 'text_delta', text: block.text };
    events.push({ type: 'content_block_start', index, content_block: start }, { type: 'content_block_delta', index, delta }, { type: 'content_block_stop', index });
  });
  events.push({ type: 'message_delta', delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: 5 } }, { type: 'message_stop' });
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  for (const e of events) res.write(`event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`);
  res.end();
}

/** The text of each tool result the model was sent, in order (string or block content). */
function toolResults(requests) {
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

/** Run a session: one user message per script (streamed in after the previous turn's result). */
async function runSession(turns, hooks) {
  const { server, requests } = scriptedModel(turns);
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
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
      prompt: prompts(),
      options: {
        cwd,
        model: 'claude-sonnet-4-5',
        hooks,
        allowedTools: ['Bash'],
        // Bash is pre-approved (bypassPermissions is refused under root, as CI runs).
        permissionMode: 'default',
        settingSources: [],
        stderr: (d) => (stderr += d),
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

const traceback = `printf 'Traceback (most recent call last):\\n  File "x.py", line 1\\nValueError: bad\\n'`;

describe('toolguard/claude-agent-sdk in a real Agent SDK session', () => {
  let session;
  before(async () => {
    session = await runSession(
      [
        ['echo hi', 'echo hi', 'echo hi', traceback, 'echo no; exit 3', 'echo no; exit 3', 'echo no; exit 3', 'echo again', 'echo again'],
        ['echo again'],
      ],
      toolguardHooks(),
    );
  });

  it('ran the whole script', () => {
    const results = session.messages.filter((m) => m.type === 'result');
    assert.equal(results.length, 2, session.stderr);
    assert.equal(session.results.length, 10, `the model saw 10 tool results (got ${session.results.length})\n${session.stderr}`);
  });

  it('the reminder reaches the model with the 3rd identical call', () => {
    const engine = new GuardEngine();
    const reminder = [1, 2, 3].map(() => engine.observe({ agentId: 'a', name: 'Bash', arguments: { command: 'echo hi', description: 'step' } })?.reminder)[2];
    const [first, second, third] = session.results;
    assert.ok(!first.text.includes(reminder.text) && !second.text.includes(reminder.text));
    assert.ok(third.text.includes(reminder.text), third.text);
  });

  it('a silent failure reaches the model with the failure header, without a second copy of the output', () => {
    const r = session.results[3];
    assert.match(r.text, /\[loud-failure\] Bash exited 0 but its output shows it failed:\n- python-traceback \(line 1\)/);
    assert.ok(!r.text.includes('Original output:'));
  });

  it('failing calls (non-zero exit) still count: the 3rd identical one draws the reminder', () => {
    const engine = new GuardEngine();
    const reminder = [1, 2, 3].map(() => engine.observe({ agentId: 'a', name: 'Bash', arguments: { command: 'echo no; exit 3', description: 'step' } })?.reminder)[2];
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

describe('toolguard/claude-agent-sdk callbacks', () => {
  const base = { session_id: 's1', transcript_path: '/dev/null', cwd: '/' };
  const post = (tool_name, tool_response, extra = {}) => ({ ...base, hook_event_name: 'PostToolUse', tool_name, tool_input: { command: 'x' }, tool_response, tool_use_id: 't', ...extra });
  const signal = { signal: new AbortController().signal };

  it('one chain per session and per subagent; SubagentStop and SessionEnd free them', async () => {
    const hooks = toolguardHooks();
    const call = async (input) => hooks.PostToolUse[0].hooks[0](input, 't', signal);
    await call(post('Bash', { stdout: 'ok', stderr: '' }));
    await call(post('Bash', { stdout: 'ok', stderr: '' }, { agent_id: 'sub' }));
    await call(post('Bash', { stdout: 'ok', stderr: '' }, { agent_id: 'sub' }));
    const third = await call(post('Bash', { stdout: 'ok', stderr: '' }, { agent_id: 'sub' }));
    assert.match(third.hookSpecificOutput.additionalContext, /You are repeating/);
    assert.equal(chainOf({ session_id: 's1', agent_id: 'sub' }), 's1\0sub');
    await hooks.SubagentStop[0].hooks[0]({ ...base, hook_event_name: 'SubagentStop', agent_id: 'sub', agent_type: 'x', agent_transcript_path: '', stop_hook_active: false }, undefined, signal);
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
    const hooks = toolguardHooks();
    const warnings = [];
    const onWarning = (w) => warnings.push(w);
    process.on('warning', onWarning);
    try {
      for (let i = 0; i < 3; i++) assert.deepEqual(await hooks.PostToolUse[0].hooks[0](post('PanicTool', 'out'), 't', signal), {});
      await new Promise((r) => setImmediate(r));
    } finally {
      process.off('warning', onWarning);
    }
    assert.ok(warnings.some((w) => w.name === 'ToolguardWarning' && /toolguard\/claude-agent-sdk: guard engine failed.*TOOLGUARD_TEST_PANIC/.test(w.message)), warnings.map(String).join('\n'));
    for (let i = 0; i < 2; i++) await hooks.PostToolUse[0].hooks[0](post('Bash', 'same'), 't', signal);
    const third = await hooks.PostToolUse[0].hooks[0](post('Bash', 'same'), 't', signal);
    assert.match(third.hookSpecificOutput.additionalContext, /You are repeating/);
  });

  it('a bad config throws when the hooks are created, naming the key', () => {
    assert.throws(() => toolguardHooks({ engine: { repeat: { treshold: [3] } } }), /config\.repeat\.treshold/);
  });
});
