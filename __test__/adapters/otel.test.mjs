// Verdicts as OpenTelemetry spans (toolguard/otel, the `otel` option of every
// host): the spans and their toolguard.* attributes in memory; then end to end
// — a real AI SDK agent (scripted model) repeating a failing call, its spans
// sent over OTLP/HTTP to a real Arize Phoenix started here and read back by
// Phoenix's REST API, and the same spans written as OTLP/JSON and replayed by
// `toolguard audit`, which finds the same loop.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { InMemorySpanExporter, NodeTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-node';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { JsonTraceSerializer } from '@opentelemetry/otlp-transformer';
import { scratchCli } from '../support/cli.mjs';
import { installPhoenix, phoenixSpans, startPhoenix, START_MS } from '../support/phoenix.mjs';

const { GuardEngine } = await import('toolguard');
const { traceEngine, OTEL_NAMES: N } = await import('toolguard/otel');
const { toolguardHooks } = await import('toolguard/claude-agent-sdk');
const { parseMcpArgs } = await import('../../dist/ts/mcp/args.mjs');

const root = join(dirname(fileURLToPath(import.meta.url)), '../..');
const missing = { stdout: '', stderr: 'cat: notes.txt: No such file or directory', exitCode: 1 };

/** `toolguard audit --format otlp --json` of these spans, written as one OTLP/JSON export request. */
function auditSpans(spans) {
  const dir = join(root, '.tmp/otel-test');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `spans-${process.pid}-${Date.now()}.otlp.jsonl`);
  writeFileSync(file, `${Buffer.from(JsonTraceSerializer.serializeRequest(spans)).toString('utf8').replace(/\n/g, '')}\n`);
  const audit = scratchCli('toolguard-otel-').cli(['audit', '--format', 'otlp', '--json', '--fail-on', 'none', file], { timeout: 60_000 });
  assert.equal(audit.code, 0, audit.stderr);
  return JSON.parse(audit.stdout);
}

function memoryTracer() {
  const exporter = new InMemorySpanExporter();
  const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  return { exporter, tracer: provider.getTracer('toolguard-test') };
}

describe('toolguard/otel: verdicts as execute_tool spans', () => {
  it('each observed call is an execute_tool span; the third identical failing call carries the loop, its event and the calls spent', () => {
    const { exporter, tracer } = memoryTracer();
    const engine = traceEngine(new GuardEngine({ loops: {} }), { tracer, captureContent: true });
    for (let i = 0; i < 3; i++) {
      engine.observe({ agentId: 'a1', name: 'bash', arguments: { command: 'cat notes.txt' } }, { isError: true, text: missing.stderr });
    }
    const spans = exporter.getFinishedSpans();
    assert.deepEqual(
      spans.map((s) => s.name),
      ['execute_tool bash', 'execute_tool bash', 'execute_tool bash'],
    );
    const [first, , third] = spans;
    assert.equal(first.attributes[N.operation], 'execute_tool');
    assert.equal(first.attributes[N.toolName], 'bash');
    assert.equal(first.attributes[N.chain], 'a1');
    assert.equal(first.attributes[N.arguments], '{"command":"cat notes.txt"}');
    assert.equal(first.attributes[N.result], missing.stderr);
    assert.equal(first.attributes[N.verdict], undefined);
    assert.equal(first.status.code, 2, 'an error result is an ERROR span');
    assert.deepEqual(third.attributes[N.verdict], ['loop']);
    assert.equal(third.attributes[N.loopKind], 'repeat');
    assert.equal(third.attributes[N.loopCount], 3);
    assert.equal(third.attributes[N.wasteCalls], 1, 'the loop was raised at this call');
    assert.equal(third.events.length, 1);
    assert.equal(third.events[0].name, N.loopEvent);
    assert.match(String(third.events[0].attributes[N.text]), /^\[toolguard\] Loop detected: bash was called 3 times in a row/);
  });

  it('a silent failure is a failure event with its rules; content is left out unless captureContent', () => {
    const { exporter, tracer } = memoryTracer();
    const engine = traceEngine(new GuardEngine(), { tracer });
    const out = 'collecting\nTraceback (most recent call last):\n  File "t.py", line 1, in <module>\nImportError: bad\n';
    const verdict = engine.observe({ name: 'bash', argumentsJson: '{"command":"pytest | tail"}' }, { text: out });
    assert.equal(verdict.failure.rules[0].id, 'python-traceback');
    const [span] = exporter.getFinishedSpans();
    assert.deepEqual(span.attributes[N.verdict], ['failure']);
    assert.deepEqual(span.attributes[N.failureRules], ['python-traceback']);
    assert.equal(span.attributes[N.failureAction], 'error');
    assert.equal(span.attributes[N.wasteCalls], 1);
    assert.equal(span.attributes[N.arguments], undefined);
    assert.equal(span.attributes[N.result], undefined);
    assert.equal(span.events[0].name, N.failureEvent);
  });

  it('an error result is an ERROR span; observeAsync writes its span when the scan is done', async () => {
    const { exporter, tracer } = memoryTracer();
    const engine = traceEngine(new GuardEngine({ loops: {} }), { tracer });
    engine.observe({ agentId: 'a', name: 'read', argumentsJson: '{}' }, { isError: true, text: 'EACCES' });
    const verdict = await engine.observeAsync({ agentId: 'a', name: 'bash', argumentsJson: '{}' }, { text: 'ok\n' });
    assert.equal(verdict, null);
    const [error, later] = exporter.getFinishedSpans();
    assert.equal(error.status.code, 2);
    assert.equal(error.attributes[N.errorType], 'tool_error');
    assert.equal(later.name, 'execute_tool bash');
  });

  it('a host takes the same option: the Claude Agent SDK hooks with otel write the spans', async () => {
    const { exporter, tracer } = memoryTracer();
    const hooks = toolguardHooks({ otel: { tracer } });
    const post = hooks.PostToolUse[0].hooks[0];
    const input = (id) => ({
      hook_event_name: 'PostToolUse',
      session_id: 's',
      transcript_path: '',
      cwd: root,
      tool_name: 'Bash',
      tool_input: { command: 'cat notes.txt' },
      tool_response: missing,
      tool_use_id: id,
    });
    for (const id of ['t1', 't2', 't3']) await post(/** @type {any} */ (input(id)), id, { signal: AbortSignal.timeout(5000) });
    const spans = exporter.getFinishedSpans();
    assert.equal(spans.length, 3);
    assert.deepEqual(spans[2].attributes[N.verdict], ['loop']);
  });

  it('the spans as OTLP/JSON read back by toolguard audit: the same loop, one chain per toolguard.chain though each call is its own trace', () => {
    const { exporter, tracer } = memoryTracer();
    const engine = traceEngine(new GuardEngine({ loops: {} }), { tracer, captureContent: true });
    for (const agentId of ['a', 'b', 'a', 'b', 'a', 'a']) {
      engine.observe({ agentId, name: 'bash', arguments: { command: 'cat notes.txt' } }, { isError: true, text: missing.stderr });
    }
    const spans = exporter.getFinishedSpans();
    assert.equal(new Set(spans.map((s) => s.spanContext().traceId)).size, 6, 'no active span: each call is its own trace');
    assert.deepEqual(
      spans.map((s) => s.attributes[N.wasteCalls]),
      [undefined, undefined, undefined, undefined, 1, 2],
    );
    const report = auditSpans(spans);
    assert.equal(report.sessions.length, 1);
    const [session] = report.sessions;
    assert.equal(session.calls, 6);
    assert.deepEqual(
      session.loops.map((l) => [l.kind, l.tool, l.count]),
      [['repeat', 'bash', 4]],
    );
    // The live waste figure is the audit's.
    assert.equal(session.loops[0].waste.calls, spans[5].attributes[N.wasteCalls]);
  });

  it('toolguard mcp takes --otel', () => {
    assert.equal(/** @type {any} */ (parseMcpArgs(['--otel', '--', 'server'])).otel, true);
    assert.equal(/** @type {any} */ (parseMcpArgs(['--', 'server'])).otel, false);
  });
});

// End to end. The AI SDK (ai@7) needs Node >= 22: this part runs on the Node 22 pass of `npm test`, so Phoenix starts once.
const major = Number(process.versions.node.split('.')[0]);
let skip = major < 22 ? `the AI SDK (ai@7) requires Node >= 22; this is Node ${process.versions.node} — runs under Node 22` : false;
if (!skip && process.env.TOOLGUARD_SKIP_PHOENIX) skip = `TOOLGUARD_SKIP_PHOENIX is set`;
if (!skip && process.platform === 'win32') skip = 'Phoenix is started from a POSIX venv here';
if (!skip) skip = installPhoenix() ?? false;
if (skip) console.log(`# SKIP Phoenix end-to-end test: ${skip}`);

describe('verdicts in a real Phoenix, and back through toolguard audit', { skip, timeout: START_MS + 180_000 }, () => {
  let phoenix;
  before(async () => {
    phoenix = await startPhoenix();
  });
  after(() => phoenix?.stop());

  it('a loop raised on an AI SDK agent shows on its execute_tool span in Phoenix; the exported OTLP/JSON audits to the same loop', async () => {
    const { generateText, stepCountIs, tool } = await import('ai');
    const { MockLanguageModelV4 } = await import('ai/test');
    const { z } = await import('zod');
    const { guardTools } = await import('toolguard/ai-sdk');

    const memory = new InMemorySpanExporter();
    const provider = new NodeTracerProvider({
      spanProcessors: [
        new SimpleSpanProcessor(new OTLPTraceExporter({ url: `${phoenix.url}/v1/traces` })),
        new SimpleSpanProcessor(memory),
      ],
    });
    const tracer = provider.getTracer('toolguard-e2e');
    const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } };
    let ids = 0;
    const call = () => ({
      content: [{ type: 'tool-call', toolCallId: `call-${++ids}`, toolName: 'bash', input: JSON.stringify({ command: 'cat notes.txt' }) }],
      finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
      usage,
      warnings: [],
    });
    const steps = [call(), call(), call(), call()];
    let i = 0;
    const model = new MockLanguageModelV4({
      // Plain objects of the wire shape (the literal types are the SDK's concern).
      doGenerate: /** @type {any} */ (
        async () =>
          steps[i++] ?? { content: [{ type: 'text', text: 'done' }], finishReason: { unified: 'stop', raw: 'stop' }, usage, warnings: [] }
      ),
    });
    const tools = guardTools(
      {
        bash: tool({ description: 'run a shell command', inputSchema: z.object({ command: z.string() }), execute: async () => missing }),
      },
      { otel: { tracer, captureContent: true } },
    );
    await tracer.startActiveSpan('invoke_agent scripted', async (agent) => {
      await generateText({ model, tools, prompt: 'read my notes', stopWhen: stepCountIs(5) });
      agent.end();
    });
    await provider.forceFlush();

    const ours = memory.getFinishedSpans().filter((s) => s.attributes[N.operation] === 'execute_tool');
    assert.equal(ours.length, 4);
    // Phoenix stores what it received; its REST API gives each span's attributes and events.
    const isLoop = (s) => s.name === 'execute_tool bash' && s.attributes?.[N.loopKind] !== undefined;
    const received = await phoenixSpans(phoenix.url, (spans) => spans.filter(isLoop).length === 2);
    assert.ok(Array.isArray(received), `Phoenix's span API answered: ${JSON.stringify(received)}\n${phoenix.log().slice(-2000)}`);
    assert.equal(received.filter((s) => s.name === 'execute_tool bash').length, 4, JSON.stringify(received.map((s) => s.name)));
    const loops = received.filter(isLoop).sort((a, b) => a.attributes[N.wasteCalls] - b.attributes[N.wasteCalls]);
    assert.equal(loops.length, 2, JSON.stringify(received, null, 1));
    const last = loops[1];
    assert.deepEqual(last.attributes[N.verdict], ['loop']);
    assert.equal(last.attributes[N.loopKind], 'repeat');
    assert.equal(last.attributes[N.loopCount], 4);
    assert.equal(last.attributes[N.wasteCalls], 2);
    assert.equal(last.attributes[N.operation], 'execute_tool');
    assert.equal(last.attributes[N.chain] !== undefined, true);
    assert.equal(last.events?.[0]?.name, N.loopEvent);
    assert.match(String(last.events[0].attributes[N.text]), /^\[toolguard\] Loop detected .*: bash was called 4 times in a row/);

    // The same spans as OTLP/JSON, replayed by the audit: the same loop, the same waste.
    const report = auditSpans(memory.getFinishedSpans());
    const [session] = report.sessions;
    assert.equal(session.calls, 4);
    assert.deepEqual(
      session.loops.map((l) => [l.kind, l.tool, l.count, l.waste.calls]),
      [['repeat', 'bash', 4, 2]],
    );
    await provider.shutdown();
  });
});
