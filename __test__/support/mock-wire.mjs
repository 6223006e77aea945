// The wire pieces shared by the scripted model servers (the Agent SDK and MCP
// tests, the e2e checks of the real CLIs, the audit fixture recorder): a local
// HTTP server, a child process with its output, and an Anthropic Messages
// reply, streamed (server-sent events) or whole.
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';

/** A server on a free local port; `handler(req, res, body)` gets each request's whole body. */
export function listen(handler) {
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => handler(req, res, body));
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

/** Run a child, optionally feeding stdin (closed 3 s later); resolves to {code, out} (stdout and stderr). */
export function runChild(cmd, args, options, input) {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { ...options, stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    child.on('close', (code) => resolve({ code, out }));
    if (input) {
      child.stdin.write(input);
      setTimeout(() => child.stdin.end(), 3000);
    } else child.stdin.end();
  });
}

/**
 * A local Anthropic Messages API in front of Claude Code. Token counts get a
 * fixed answer. The main loop is the request that offers the Bash tool: it
 * gets `next(body)`'s tool call (`{id, name, input}`), or the text `done` when
 * that returns nothing; side requests (titles, summaries) get `ok`. Replies
 * echo the request's `model` and `stream` unless `answer` fixes them.
 * `requests`: the main loop's request bodies, in order.
 * @param {(body: any) => { id: string, name: string, input: object } | { id: string, name: string, input: object }[] | undefined} next `body`: the request's JSON
 * @param {{ model?: string, stream?: boolean }} [answer]
 */
export async function messagesServer(next, answer = {}) {
  const requests = [];
  const server = await listen((req, res, body) => {
    if (!req.url.startsWith('/v1/messages') || req.url.includes('count_tokens')) {
      res.writeHead(200, { 'content-type': 'application/json' });
      return res.end(JSON.stringify({ input_tokens: 10 }));
    }
    const b = JSON.parse(body);
    const main = (b.tools ?? []).some((t) => t.name === 'Bash');
    if (main) requests.push(b);
    const call = main ? next(b) : undefined;
    writeMessage(res, {
      id: `msg_${requests.length}`,
      model: answer.model ?? b.model,
      // An array of calls: one response with several tool_use blocks (parallel calls).
      content: call
        ? (Array.isArray(call) ? call : [call]).map((c) => ({ type: 'tool_use', ...c }))
        : [{ type: 'text', text: main ? 'done' : 'ok' }],
      stop: call ? 'tool_use' : 'end_turn',
      stream: answer.stream ?? b.stream,
    });
  });
  return { server, requests };
}

/** `next` for {@link messagesServer}: one Bash call per command of `script`, in order, in one user turn. */
export function bashScript(script) {
  return (body) => {
    const done = body.messages.flatMap((m) => (Array.isArray(m.content) ? m.content : [])).filter((c) => c.type === 'tool_result').length;
    return done < script.length
      ? { id: `toolu_${done + 1}`, name: 'Bash', input: { command: script[done], description: 'step' } }
      : undefined;
  };
}

/** The content of each main-loop request that answers tool calls (its last message's blocks), in order. */
export function toolResultTurns(requests) {
  return requests.map((b) => b.messages.at(-1).content).filter((c) => Array.isArray(c) && c[0]?.type === 'tool_result');
}

/** An assistant message of `content` blocks (text or tool_use) as the Messages API sends it. */
export function writeMessage(res, { id, model, content, stop, stream }) {
  if (!stream) {
    res.writeHead(200, { 'content-type': 'application/json' });
    return res.end(
      JSON.stringify({
        id,
        type: 'message',
        role: 'assistant',
        model,
        content,
        stop_reason: stop,
        stop_sequence: null,
        usage: { input_tokens: 10, output_tokens: 5 },
      }),
    );
  }
  /** @type {Array<{ type: string } & Record<string, unknown>>} */
  const events = [
    {
      type: 'message_start',
      message: {
        id,
        type: 'message',
        role: 'assistant',
        model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: 10, output_tokens: 1 },
      },
    },
  ];
  content.forEach((block, index) => {
    const start = block.type === 'tool_use' ? { ...block, input: {} } : { type: 'text', text: '' };
    const delta =
      block.type === 'tool_use'
        ? { type: 'input_json_delta', partial_json: JSON.stringify(block.input) }
        : { type: 'text_delta', text: block.text };
    events.push(
      { type: 'content_block_start', index, content_block: start },
      { type: 'content_block_delta', index, delta },
      { type: 'content_block_stop', index },
    );
  });
  events.push(
    { type: 'message_delta', delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: 5 } },
    { type: 'message_stop' },
  );
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  for (const e of events) res.write(`event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`);
  res.end();
}

/** A Responses API reply (OpenAI, as Codex reads it) of output `items`, streamed. */
export function writeResponse(res, { id, items }) {
  const usage = {
    input_tokens: 10,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: 5,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: 15,
  };
  /** @type {Array<{ type: string } & Record<string, unknown>>} */
  const events = [{ type: 'response.created', response: { id, status: 'in_progress', output: [] } }];
  for (const [output_index, item] of items.entries()) {
    events.push({ type: 'response.output_item.added', output_index, item }, { type: 'response.output_item.done', output_index, item });
  }
  events.push({ type: 'response.completed', response: { id, status: 'completed', output: items, usage } });
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  for (const e of events) res.write(`event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`);
  res.end();
}

/**
 * A Chat Completions reply (OpenAI-compatible, as OpenCode's
 * `@ai-sdk/openai-compatible` provider reads it), streamed: one tool call
 * per entry of `calls` (`{id, name, input}`), else the assistant `text`.
 * @param {import('node:http').ServerResponse} res
 * @param {{ id: string, model: string, calls?: Array<{ id: string, name: string, input: unknown }>, text?: string }} reply
 */
export function writeChatCompletion(res, { id, model, calls, text }) {
  const chunk = (choices, extra = {}) =>
    `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created: 1, model, choices, ...extra })}\n\n`;
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  if (calls?.length) {
    const tool_calls = calls.map((c, index) => ({
      index,
      id: c.id,
      type: 'function',
      function: { name: c.name, arguments: JSON.stringify(c.input) },
    }));
    res.write(chunk([{ index: 0, delta: { role: 'assistant', tool_calls }, finish_reason: null }]));
    res.write(chunk([{ index: 0, delta: {}, finish_reason: 'tool_calls' }]));
  } else {
    res.write(chunk([{ index: 0, delta: { role: 'assistant', content: text ?? '' }, finish_reason: null }]));
    res.write(chunk([{ index: 0, delta: {}, finish_reason: 'stop' }]));
  }
  res.write(chunk([], { usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 } }));
  res.write('data: [DONE]\n\n');
  res.end();
}
