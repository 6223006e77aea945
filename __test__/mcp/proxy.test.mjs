// `toolguard mcp` end to end: the official SDK's `Client` over stdio talks to
// `bin/toolguard.mjs mcp -- node <server>`, where the server is the real
// `@modelcontextprotocol/server-everything` from npm (or, for crash handling,
// a small server on the official SDK in ./fixtures). Expected texts come from
// the engine itself, never copied from its output.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CreateMessageRequestSchema, ElicitRequestSchema, ListRootsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { GuardEngine } from 'toolguard';
import { McpGuard, VERDICT_META_KEY } from '../../dist/ts/mcp/proxy.mjs';
import { panicAddon } from '../support/panic-addon.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '../..');
const BIN = join(root, 'bin/toolguard.mjs');
const EVERYTHING = [join(root, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js')];
const CRASH = [join(here, 'fixtures/crash-server.mjs')];

const scratch = mkdtempSync(join(tmpdir(), 'toolguard-mcp-test-'));
after(() => rmSync(scratch, { recursive: true, force: true }));
let configs = 0;
function configFile(config) {
  const file = join(scratch, `config-${++configs}.json`);
  writeFileSync(file, JSON.stringify(config));
  return file;
}

const clients = [];
after(async () => {
  for (const client of clients) await client.close().catch(() => {});
});

/**
 * An SDK client connected to the server: through the proxy (default) or directly.
 * @param {{
 *   server?: string[],
 *   config?: object, // written to the --config file as JSON
 *   env?: Record<string, string>,
 *   capabilities?: import('@modelcontextprotocol/sdk/types.js').ClientCapabilities,
 *   direct?: boolean,
 *   setup?: (client: Client) => void,
 * }} [options]
 */
async function connect({ server = EVERYTHING, config, env = {}, capabilities = {}, direct = false, setup } = {}) {
  const args = direct ? server : [BIN, 'mcp', ...(config ? ['--config', configFile(config)] : []), '--', process.execPath, ...server];
  const transport = new StdioClientTransport({
    command: process.execPath,
    args,
    env: { ...process.env, ...env },
    stderr: 'pipe',
    cwd: root,
  });
  let stderr = '';
  transport.stderr.on('data', (d) => (stderr += d));
  const client = new Client({ name: 'toolguard-test', version: '1.0.0' }, { capabilities });
  setup?.(client);
  await client.connect(transport);
  clients.push(client);
  return { client, transport, stderr: () => stderr };
}

/** The verdicts the engine gives for the same calls and outputs, as the proxy should see them. */
function engineVerdicts(config, calls) {
  const engine = new GuardEngine(config);
  return calls.map(([name, args, text]) =>
    engine.observe({ agentId: 'a', name, arguments: args }, text === undefined ? undefined : { content: [{ type: 'text', text }] }),
  );
}

/**
 * The proxy's verdict in a tool result's `_meta`. Cast at the SDK boundary: the
 * SDK types `_meta` values as unknown, and a callTool answer as a union with
 * the legacy `{ toolResult }` shape.
 * @param {any} result
 * @returns {import('../../dist/ts/mcp/proxy.mjs').VerdictMeta}
 */
const verdictIn = (result) => result._meta[VERDICT_META_KEY];

const traceback = '\nTraceback (most recent call last):\n  File "app.py", line 3, in <module>\nValueError: bad input';

describe('toolguard mcp: relaying', () => {
  it('shows the client what the server declares: capabilities, server info, tools, resources, prompts', async () => {
    const direct = await connect({ direct: true });
    const proxied = await connect();
    assert.deepEqual(proxied.client.getServerCapabilities(), direct.client.getServerCapabilities());
    assert.deepEqual(proxied.client.getServerVersion(), direct.client.getServerVersion());
    assert.equal(proxied.client.getInstructions(), direct.client.getInstructions());
    assert.deepEqual(await proxied.client.listTools(), await direct.client.listTools());
    const resources = await proxied.client.listResources();
    assert.ok(resources.resources.length > 0);
    assert.deepEqual(resources, await direct.client.listResources());
    assert.deepEqual(await proxied.client.listResourceTemplates(), await direct.client.listResourceTemplates());
    const uri = resources.resources[0].uri;
    assert.deepEqual(await proxied.client.readResource({ uri }), await direct.client.readResource({ uri }));
    const prompts = await proxied.client.listPrompts();
    assert.deepEqual(prompts, await direct.client.listPrompts());
    const simple = prompts.prompts.find((p) => !(p.arguments ?? []).some((a) => a.required));
    assert.ok(simple, 'a prompt without required arguments');
    assert.deepEqual(await proxied.client.getPrompt({ name: simple.name }), await direct.client.getPrompt({ name: simple.name }));
    // Non-text blocks pass through too.
    assert.deepEqual(
      await proxied.client.callTool({ name: 'get-tiny-image', arguments: {} }),
      await direct.client.callTool({ name: 'get-tiny-image', arguments: {} }),
    );
  });

  it("relays progress notifications and the server's own requests to the client (sampling, elicitation, roots)", async () => {
    const sampled = [];
    const elicited = [];
    const { client } = await connect({
      capabilities: { sampling: {}, elicitation: {}, roots: {} },
      setup: (c) => {
        c.setRequestHandler(CreateMessageRequestSchema, async (request) => {
          // Cast: the content is a union of block types; the server sends text.
          sampled.push(/** @type {{ text: string }} */ (request.params.messages[0].content).text);
          return { model: 'scripted', role: 'assistant', content: { type: 'text', text: 'sampled answer' } };
        });
        c.setRequestHandler(ElicitRequestSchema, async (request) => {
          elicited.push(request.params.message);
          return { action: 'decline' };
        });
        c.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: [{ uri: 'file:///srv/scripted-root', name: 'scripted' }] }));
      },
    });
    // Read at the transport: the SDK client itself may not report a progress
    // notification that arrives in the same chunk as the result (its
    // notification handlers run a microtask later, after the result's).
    const transport = client.transport;
    const progress = [];
    const onmessage = transport.onmessage;
    transport.onmessage = (message, extra) => {
      if ('method' in message && message.method === 'notifications/progress') progress.push(message.params.progress);
      onmessage(message, extra);
    };
    const long = await client.callTool(
      { name: 'trigger-long-running-operation', arguments: { duration: 0.3, steps: 3 } },
      undefined,
      { onprogress: () => {} }, // asks the server for progress (a progressToken)
    );
    assert.deepEqual(progress, [1, 2, 3]);
    assert.match(long.content[0].text, /Long running operation completed/);
    // The server registers its sampling tool once the session is initialized.
    let tools = [];
    for (let i = 0; i < 50 && !tools.includes('trigger-sampling-request'); i++) {
      tools = (await client.listTools()).tools.map((t) => t.name);
      if (!tools.includes('trigger-sampling-request')) await new Promise((r) => setTimeout(r, 20));
    }
    const result = await client.callTool({ name: 'trigger-sampling-request', arguments: { prompt: 'hello there', maxTokens: 5 } });
    assert.equal(sampled.length, 1);
    assert.match(sampled[0], /hello there/);
    assert.match(JSON.stringify(result.content), /sampled answer/);
    await client.callTool({ name: 'trigger-elicitation-request', arguments: {} });
    assert.equal(elicited.length, 1);
    const roots = await client.callTool({ name: 'get-roots-list', arguments: {} });
    assert.match(roots.content[0].text, /file:\/\/\/srv\/scripted-root/);
  });

  it("hands on the server's stderr", async () => {
    const { client, stderr } = await connect();
    await client.listTools();
    assert.match(stderr(), /Starting default \(STDIO\) server/);
  });
});

describe('toolguard mcp: guarding tools/call', () => {
  it('runs the loop detectors by default: an alarm at every call the loop goes on, with the verdict in _meta', async () => {
    const { client } = await connect();
    const call = { name: 'echo', arguments: { message: 'hi' } };
    const expected = engineVerdicts(
      { loops: {} },
      Array.from({ length: 5 }, () => ['echo', call.arguments, 'Echo: hi']),
    );
    const results = [];
    for (let i = 0; i < 5; i++) results.push(await client.callTool(call));
    for (const i of [0, 1]) assert.deepEqual(results[i], { content: [{ type: 'text', text: 'Echo: hi' }] }, `call ${i + 1} unchanged`);
    for (const i of [2, 3, 4]) {
      const loop = expected[i].loop;
      assert.equal(expected[i].reminder, undefined, "no result-blind reminder: the detectors take DSH's place");
      assert.equal(loop.kind, 'repeat');
      assert.deepEqual(results[i].content, [
        { type: 'text', text: 'Echo: hi' },
        { type: 'text', text: loop.text },
      ]);
      const { kind, tool, count, period, calls, summary, reminders } = loop;
      assert.deepEqual(results[i]._meta[VERDICT_META_KEY], { loop: { kind, tool, count, period, calls, summary, reminders } });
    }
  });

  it('with loops.deny the call that would go on is refused before it reaches the server, and _meta says so', async () => {
    const { client } = await connect({ config: { loops: { deny: 1 } } });
    const call = { name: 'echo', arguments: { message: 'hi' } };
    const engine = new GuardEngine({ loops: { deny: 1 } });
    const exec = { agentId: 'a', name: 'echo', arguments: call.arguments };
    const results = [];
    let refusal = null;
    for (let i = 0; i < 4 && !refusal; i++) {
      refusal = engine.check(exec);
      if (!refusal) engine.observe(exec, { content: [{ type: 'text', text: 'Echo: hi' }] });
      results.push(await client.callTool(call));
    }
    assert.ok(refusal, 'the engine refuses the 4th call at the latest');
    const denied = results.at(-1);
    assert.deepEqual(denied, {
      content: [{ type: 'text', text: refusal.reason }],
      isError: true,
      _meta: {
        [VERDICT_META_KEY]: { denied: { kind: refusal.kind, count: refusal.count, reminders: refusal.reminders, reason: refusal.reason } },
      },
    });
    assert.ok(verdictIn(results.at(-2)).loop, 'the call before carried the alarm');
  });

  it("with loops: false, DSH's result-blind reminder at the thresholds, with the verdict in _meta", async () => {
    const { client } = await connect({ config: { loops: false } });
    const call = { name: 'echo', arguments: { message: 'hi' } };
    const expected = engineVerdicts(
      undefined,
      Array.from({ length: 5 }, () => ['echo', call.arguments]),
    );
    const results = [];
    for (let i = 0; i < 5; i++) results.push(await client.callTool(call));
    for (const i of [0, 1, 3]) {
      assert.deepEqual(results[i], { content: [{ type: 'text', text: 'Echo: hi' }] }, `call ${i + 1} unchanged`);
    }
    for (const i of [2, 4]) {
      const reminder = expected[i].reminder;
      assert.equal(reminder.count, i + 1);
      assert.deepEqual(results[i].content, [
        { type: 'text', text: 'Echo: hi' },
        { type: 'text', text: reminder.text },
      ]);
      assert.deepEqual(results[i]._meta[VERDICT_META_KEY], { reminder: { tool: 'echo', count: i + 1, summary: reminder.summary } });
      assert.equal(results[i].isError, undefined);
    }
    assert.notEqual(expected[2].reminder.text, expected[4].reminder.text, 'gentle, then detailed');
    // Another tool breaks the run.
    await client.callTool({ name: 'get-sum', arguments: { a: 1, b: 2 } });
    assert.deepEqual(await client.callTool(call), { content: [{ type: 'text', text: 'Echo: hi' }] });
  });

  it("turns a scanned tool's silent failure into isError with the failure header; unscanned tools are left alone", async () => {
    const config = { loudFailure: { shellTools: ['echo'] } };
    const call = { name: 'echo', arguments: { message: traceback } };
    const [verdict] = engineVerdicts(config, [['echo', call.arguments, `Echo: ${traceback}`]]);
    assert.equal(verdict.failure.action, 'error');

    const { client } = await connect({ config });
    const result = await client.callTool(call);
    assert.equal(result.isError, true);
    assert.deepEqual(result.content, [{ type: 'text', text: verdict.failure.text }]);
    assert.match(
      result.content[0].text,
      /^\[loud-failure\] echo reported no error but its output shows it failed:\n- python-traceback \(line 2\)/,
    );
    assert.ok(result.content[0].text.endsWith(`Echo: ${traceback}`), 'the original output follows the header');
    const meta = verdictIn(result);
    assert.equal(meta.failure.action, 'error');
    assert.deepEqual(
      meta.failure.rules.map((r) => r.id),
      verdict.failure.rules.map((r) => r.id),
    );
    assert.equal(meta.failure.rules[0].line, 2);

    // Without the config, echo is not a shell tool: its output is not scanned.
    const plain = await connect();
    assert.deepEqual(await plain.client.callTool(call), { content: [{ type: 'text', text: `Echo: ${traceback}` }] });
  });

  it('scans outputs of 64 KB and more off the event loop, with the same result', async () => {
    const config = { loudFailure: { shellTools: ['echo'] } };
    const message = `${'x'.repeat(100_000)}${traceback}`;
    const [verdict] = engineVerdicts(config, [['echo', { message }, `Echo: ${message}`]]);
    const { client } = await connect({ config });
    const result = await client.callTool({ name: 'echo', arguments: { message } });
    assert.equal(result.isError, true);
    assert.deepEqual(result.content, [{ type: 'text', text: verdict.failure.text }]);
  });

  it('keeps structuredContent, with a reminder and with an error verdict (the SDK client validates it)', async () => {
    const direct = await connect({ direct: true });
    await direct.client.listTools(); // the client validates structuredContent against the tools' outputSchema
    const call = { name: 'get-structured-content', arguments: { location: 'Chicago' } };
    const plain = await direct.client.callTool(call);
    assert.ok(plain.structuredContent);

    // DSH's result-blind reminder: the weather it returns may change from call to call.
    const { client } = await connect({ config: { loops: false } });
    await client.listTools();
    // Cast: callTool's answer is typed as a union with the legacy `{ toolResult }` shape.
    /** @type {any[]} */
    const results = [];
    for (let i = 0; i < 3; i++) results.push(await client.callTool(call));
    assert.deepEqual(results[0], plain);
    assert.deepEqual(results[2].structuredContent, plain.structuredContent);
    assert.equal(results[2].content.length, 2, 'the output, then the reminder');
    assert.equal(verdictIn(results[2]).reminder.count, 3);

    const rule = { id: 'drizzle', pattern: 'drizzle', action: 'error', message: 'Drizzle is a failure here.' };
    const strict = await connect({ config: { loudFailure: { shellTools: ['get-structured-content'], rules: [rule] } } });
    await strict.client.listTools();
    const failed = await strict.client.callTool(call);
    assert.equal(failed.isError, true);
    assert.match(failed.content[0].text, /drizzle \(line 1\): Drizzle is a failure here\./);
    assert.deepEqual(failed.structuredContent, plain.structuredContent);
  });

  it('guards task-augmented calls when their result is fetched (tasks/result)', async () => {
    const rule = { id: 'report', pattern: '^# Research Report', flags: 'm', action: 'context', message: 'A report, not data.' };
    const { client } = await connect({ config: { loops: false, loudFailure: { shellTools: ['simulate-research-query'], rules: [rule] } } });
    let tools = [];
    for (let i = 0; i < 50 && !tools.includes('simulate-research-query'); i++) {
      tools = (await client.listTools()).tools.map((t) => t.name);
      if (!tools.includes('simulate-research-query')) await new Promise((r) => setTimeout(r, 20));
    }
    // Three identical calls as tasks, in parallel: each result is scanned, and the last one to arrive is the 3rd of the run.
    const run = async () => {
      const seen = [];
      for await (const m of client.experimental.tasks.callToolStream({ name: 'simulate-research-query', arguments: { topic: 'tides' } }))
        seen.push(m);
      assert.ok(
        seen.some((m) => m.type === 'taskCreated'),
        'ran as a task',
      );
      const last = seen.at(-1);
      assert.equal(last.type, 'result', JSON.stringify(last));
      // Cast: the stream's result is typed as a union with the legacy `{ toolResult }` shape.
      return /** @type {any} */ (last.result);
    };
    const results = await Promise.all([run(), run(), run()]);
    for (const result of results) {
      assert.equal(verdictIn(result).failure.rules[0].id, 'report');
      assert.match(result.content.at(-1).text, /A report, not data\./);
    }
    assert.deepEqual(results.map((r) => verdictIn(r).reminder?.count).sort(), [3, undefined, undefined]);
  });

  it('fails open: a panicking engine passes every result through unchanged, with a warning', async () => {
    const config = { loudFailure: { shellTools: ['echo'] } };
    // The test-only panic hook (docs/security.md) fires inside Rust for the named tool.
    for (const [panic, message] of [
      ['observe:echo', 'hi'],
      ['scan:echo', traceback],
      ['scan:echo', `${'x'.repeat(100_000)}${traceback}`], // off-thread scan: a rejected promise
    ]) {
      const { client, stderr } = await connect({ config, env: { TOOLGUARD_TEST_PANIC: panic, NAPI_RS_NATIVE_LIBRARY_PATH: panicAddon } });
      for (let i = 0; i < 3; i++) {
        assert.deepEqual(
          await client.callTool({ name: 'echo', arguments: { message } }),
          { content: [{ type: 'text', text: `Echo: ${message}` }] },
          panic,
        );
      }
      // Other tools are still guarded by the same engine.
      for (let i = 0; i < 3; i++)
        await client
          .callTool({ name: 'get-sum', arguments: { a: 1, b: 2 } })
          .then((r) => (i === 2 ? assert.ok(verdictIn(r).loop) : undefined));
      await client.close();
      assert.match(stderr(), /toolguard mcp: guard engine failed, passing the tool result through unchanged: .*TOOLGUARD_TEST_PANIC/);
    }
  });
});

/** Run the CLI as a plain process: exit code and stderr. */
function runCli(args, { hangUp = true } = {}) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd: root, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    if (hangUp) child.stdin.end();
    child.on('close', (code) => {
      child.stdin.destroy();
      resolve({ code, stdout, stderr });
    });
  });
}

describe('toolguard mcp: the server process and the command line', () => {
  it("exits with the server's exit code and hands on its stderr", async () => {
    // The client stays connected: the proxy ends because the server did.
    const r = await runCli(['mcp', '--', process.execPath, '-e', "process.stderr.write('boom\\n'); process.exit(3)"], { hangUp: false });
    assert.equal(r.code, 3);
    assert.match(r.stderr, /^boom$/m);
    assert.match(r.stderr, /toolguard mcp: the server exited with code 3/);
    assert.equal(r.stdout, '');
  });

  it('a server dying mid-call: the client sees the connection close, the server stderr and exit are reported', async () => {
    const { client, transport, stderr } = await connect({ server: CRASH });
    const clientOnClose = transport.onclose; // the Client's own handler rejects its pending requests
    const closed = new Promise((resolve) => {
      transport.onclose = () => {
        clientOnClose();
        resolve();
      };
    });
    await assert.rejects(client.callTool({ name: 'crash', arguments: { code: 5 } }));
    await closed;
    assert.match(stderr(), /crash-server: exiting with 5/);
    assert.match(stderr(), /toolguard mcp: the server exited with code 5/);
  });

  it('stops the server when the client hangs up', async () => {
    const { client, transport } = await connect();
    await client.listTools();
    const proxyPid = transport.pid;
    const children = readFileSync(`/proc/${proxyPid}/task/${proxyPid}/children`, 'utf8').trim().split(/\s+/).map(Number);
    assert.equal(children.length, 1, 'the proxy runs one server');
    await client.close();
    const alive = (pid) => {
      try {
        process.kill(pid, 0);
        return true;
      } catch {
        return false;
      }
    };
    for (let i = 0; i < 100 && (alive(proxyPid) || alive(children[0])); i++) await new Promise((r) => setTimeout(r, 50));
    assert.equal(alive(children[0]), false, 'server gone');
    assert.equal(alive(proxyPid), false, 'proxy gone');
  });

  it('reports a server that cannot be started, a missing command and a bad config (naming the key)', async () => {
    const missing = await runCli(['mcp', '--', '/nonexistent/mcp-server']);
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /toolguard mcp: cannot start "\/nonexistent\/mcp-server": .*ENOENT/);

    const none = await runCli(['mcp']);
    assert.equal(none.code, 2);
    assert.match(none.stderr, /no server command given/);

    const bad = await runCli(['mcp', '--config', configFile({ repeat: { treshold: [3] } }), '--', process.execPath, ...EVERYTHING]);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /config\.repeat\.treshold/);

    const help = await runCli(['mcp', '--help']);
    assert.equal(help.code, 0);
    assert.match(help.stdout, /usage: toolguard mcp/);
  });
});

describe('McpGuard on plain messages', () => {
  /** @typedef {import('@modelcontextprotocol/sdk/types.js').JSONRPCMessage} JSONRPCMessage */
  /** @returns {JSONRPCMessage} */
  const request = (id, message) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'echo', arguments: { message } } });
  /** @returns {JSONRPCMessage} */
  const response = (id, text) => ({ jsonrpc: '2.0', id, result: { content: [{ type: 'text', text }] } });
  /**
   * A guard's answer, read as a plain object. Cast: the SDK's JSONRPCMessage
   * union has no common `result`/`error`; fromServer answers a promise only
   * for an output long enough to scan off-thread, never in these tests.
   * @param {JSONRPCMessage | Promise<JSONRPCMessage> | undefined} message
   * @returns {any}
   */
  const sync = (message) => {
    assert.ok(!(message instanceof Promise), 'answered synchronously');
    return message;
  };
  const reminded = (out) => sync(out).result._meta?.[VERDICT_META_KEY]?.reminder?.count;

  it("keeps the server's own _meta keys and every other result field", () => {
    const guard = new McpGuard(new GuardEngine({ loudFailure: { shellTools: ['echo'] } }));
    guard.fromClient(request(1, 'a'));
    const result = {
      content: [
        { type: 'text', text: `x${traceback}` },
        { type: 'image', data: 'AAAA', mimeType: 'image/png' },
      ],
      structuredContent: { a: 1 },
      _meta: { 'example.com/trace': 'abc' },
      extra: true,
    };
    const out = sync(guard.fromServer({ jsonrpc: '2.0', id: 1, result })).result;
    assert.equal(out.isError, true);
    assert.deepEqual(out.content[1], result.content[1], 'the image block is kept');
    assert.equal(out._meta['example.com/trace'], 'abc');
    assert.equal(out._meta[VERDICT_META_KEY].failure.action, 'error');
    assert.deepEqual(out.structuredContent, { a: 1 });
    assert.equal(out.extra, true);
  });

  it('remembers at most 1,024 unanswered calls: past it the oldest passes unguarded', () => {
    const guard = new McpGuard(new GuardEngine());
    for (let id = 0; id <= 1024; id++) guard.fromClient(request(id, 'a'));
    const oldest = response(0, 'a');
    assert.equal(guard.fromServer(oldest), oldest, 'forgotten: relayed as it came, not counted');
    assert.equal(reminded(guard.fromServer(response(1, 'a'))), undefined);
    assert.equal(reminded(guard.fromServer(response(2, 'a'))), undefined);
    assert.equal(reminded(guard.fromServer(response(3, 'a'))), 3);
  });

  it('answers a call the engine refuses (loops.deny) itself: the server never sees it', () => {
    const guard = new McpGuard(new GuardEngine({ loops: { deny: 1 } }));
    let answer;
    let id = 0;
    while (!answer && id < 10) {
      answer = sync(guard.fromClient(request(++id, 'a')));
      if (!answer) guard.fromServer(response(id, 'a'));
    }
    assert.equal(answer.id, id);
    assert.equal(answer.result.isError, true);
    const { denied } = answer.result._meta[VERDICT_META_KEY];
    assert.equal(denied.kind, 'repeat');
    assert.equal(answer.result.content[0].text, denied.reason);
    const late = response(id, 'a');
    assert.equal(guard.fromServer(late), late, 'a refused call is not pending');
  });

  it('calls sent while the previous awaits its result raise no loop alarm; a call never answered joins only the next one to its batch', () => {
    const guard = new McpGuard(new GuardEngine({ loops: {} }));
    const alarmed = (out) => sync(out).result._meta?.[VERDICT_META_KEY]?.loop !== undefined;
    for (let id = 1; id <= 5; id++) guard.fromClient(request(id, 'a'));
    // Answered in reverse: whichever comes back first is the batch's unmarked one.
    for (let id = 5; id >= 1; id--) assert.equal(alarmed(guard.fromServer(response(id, 'a'))), false, `parallel call ${id}`);
    guard.fromClient(request(99, 'b')); // never answered
    const seen = [];
    for (let id = 100; id < 105; id++) {
      guard.fromClient(request(id, 'b'));
      seen.push(alarmed(guard.fromServer(response(id, 'b'))));
    }
    // 100 joined 99's batch; 101.. are sent after the previous result came back: the loop is alarmed.
    assert.deepEqual(seen, [false, false, true, true, true]);
  });

  it('a new initialize starts the chain over', () => {
    const guard = new McpGuard(new GuardEngine());
    for (const id of [1, 2]) {
      guard.fromClient(request(id, 'a'));
      guard.fromServer(response(id, 'a'));
    }
    guard.fromClient({
      jsonrpc: '2.0',
      id: 3,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'c', version: '1' } },
    });
    guard.fromClient(request(4, 'a'));
    assert.equal(reminded(guard.fromServer(response(4, 'a'))), undefined);
  });

  it('identical calls that fail with an error response draw a loop alarm in the error message', () => {
    const guard = new McpGuard(new GuardEngine({ loops: {} }));
    const said = [1, 2, 3].map((id) => {
      guard.fromClient(request(id, 'a'));
      return sync(guard.fromServer({ jsonrpc: '2.0', id, error: { code: -32603, message: 'failed', data: { x: 1 } } })).error;
    });
    assert.deepEqual(said.slice(0, 2), [
      { code: -32603, message: 'failed', data: { x: 1 } },
      { code: -32603, message: 'failed', data: { x: 1 } },
    ]);
    assert.match(said[2].message, /^failed\n\n\[toolguard\] Loop detected: echo was called 3 times in a row/);
    assert.deepEqual([said[2].code, said[2].data], [-32603, { x: 1 }]);
  });

  it('an error response still counts; a cancelled call does not; server requests with a reused id are not guarded', () => {
    const guard = new McpGuard(new GuardEngine());
    guard.fromClient(request(1, 'a'));
    guard.fromServer({ jsonrpc: '2.0', id: 1, error: { code: -32603, message: 'failed' } });
    guard.fromClient(request(2, 'a'));
    guard.fromClient({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 2 } });
    const late = response(2, 'a');
    assert.equal(guard.fromServer(late), late, 'relayed as it came');
    guard.fromClient(request(3, 'a'));
    /** @type {JSONRPCMessage} */
    const server = { jsonrpc: '2.0', id: 3, method: 'sampling/createMessage', params: {} };
    assert.equal(guard.fromServer(server), server);
    assert.equal(reminded(guard.fromServer(response(3, 'a'))), undefined, 'two counted calls so far');
    guard.fromClient(request(4, 'a'));
    assert.equal(reminded(guard.fromServer(response(4, 'a'))), 3);
  });
});

// Calls a client sends while others await their result
// (parallel calls of one model turn) raise no loop alarm; MCP carries no user
// message, so the proxy has no user text to note (docs/adapters.md).
describe('toolguard mcp: parallel calls', () => {
  it('nine identical calls sent at once raise no loop alarm; the same nine one after another do', async () => {
    const call = { name: 'echo', arguments: { message: 'hi' } };
    const alarms = (results) => results.filter((r) => r.content.length > 1).length;
    const parallel = await connect();
    assert.equal(alarms(await Promise.all(Array.from({ length: 9 }, () => parallel.client.callTool(call)))), 0);
    const serial = await connect();
    const results = [];
    for (let i = 0; i < 9; i++) results.push(await serial.client.callTool(call));
    assert.equal(alarms(results), 7);
  });
});
