#!/usr/bin/env node
// Write the OTLP/JSON audit fixtures with the real OpenTelemetry JS SDK: an
// agent's tool calls as spans (BasicTracerProvider + InMemorySpanExporter),
// serialized by @opentelemetry/otlp-transformer's JsonTraceSerializer (the
// serializer of the OTLP/HTTP JSON exporter), one export request a line, as
// the OpenTelemetry Collector's file exporter writes them. The SDK is not a
// devDependency (the audit never needs it at run time):
//
//   npm install --prefix /tmp/rd-otel @opentelemetry/sdk-trace-base@2 @opentelemetry/api @opentelemetry/otlp-transformer @opentelemetry/resources@2
//   node scripts/record/record-otlp-fixture.mjs /tmp/rd-otel/node_modules
//
// Writes __test__/audit/fixtures/otlp/:
//   genai.jsonl          GenAI conventions (execute_tool spans) and OpenInference
//                        TOOL spans, two traces, exported in two batches, the
//                        later batch first (as concurrent batch exports can land)
//   genai-base64.jsonl   the same requests with ids in base64, as the plain
//                        protobuf JSON mapping (e.g. protojson) writes them
//   RECORDED-WITH.txt    the package versions
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const modules = process.argv[2];
if (!modules) {
  console.error('usage: node scripts/record/record-otlp-fixture.mjs <node_modules with the OpenTelemetry SDK>');
  process.exit(2);
}
// Loosely typed on purpose: the SDK comes from the directory given above, not
// from the repository's node_modules, so the type check has no declarations
// for it (a plain `require` would make tsc look them up and fail).
/** @type {(name: string) => any} */
const load = createRequire(join(modules, 'x.js'));
const { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } = load('@opentelemetry/sdk-trace-base');
const { JsonTraceSerializer } = load('@opentelemetry/otlp-transformer');
const { resourceFromAttributes } = load('@opentelemetry/resources');
const api = load('@opentelemetry/api');

const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({
  resource: resourceFromAttributes({ 'service.name': 'toolguard-fixture-agent' }),
  spanProcessors: [new SimpleSpanProcessor(exporter)],
});
const tracer = provider.getTracer('toolguard-fixture', '1.0.0');

const traceback = 'Traceback (most recent call last):\n  File "x.py", line 1\nValueError: bad\n';
let clock = Date.UTC(2025, 9, 1, 12, 0, 0);
const tick = () => (clock += 1000);

/** A GenAI `execute_tool` span under `parent`. */
function genaiTool(parent, id, name, args, result, error) {
  const ctx = api.trace.setSpan(api.context.active(), parent);
  const span = tracer.startSpan(
    `execute_tool ${name}`,
    {
      startTime: tick(),
      kind: api.SpanKind.INTERNAL,
      attributes: {
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': name,
        'gen_ai.tool.call.id': id,
        'gen_ai.tool.type': 'function',
        'gen_ai.tool.call.arguments': JSON.stringify(args),
      },
    },
    ctx,
  );
  if (result !== undefined) span.setAttribute('gen_ai.tool.call.result', typeof result === 'string' ? result : JSON.stringify(result));
  if (error) span.setStatus({ code: api.SpanStatusCode.ERROR, message: error });
  span.end(tick());
}

/** An OpenInference TOOL span under `parent`. */
function openinferenceTool(parent, name, args, output) {
  const ctx = api.trace.setSpan(api.context.active(), parent);
  const span = tracer.startSpan(
    name,
    {
      startTime: tick(),
      attributes: {
        'openinference.span.kind': 'TOOL',
        'tool.name': name,
        'input.value': JSON.stringify(args),
        'input.mime_type': 'application/json',
        'output.value': output,
      },
    },
    ctx,
  );
  span.end(tick());
}

// Trace 1: a GenAI agent. `npm test` three times (a loop), a traceback that
// exited 0 (a silent failure), the same with exit 2 (already shown), a tool
// error (never scanned).
const agent = tracer.startSpan('invoke_agent coder', {
  startTime: tick(),
  attributes: { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': 'coder' },
});
for (const id of ['t1', 't2', 't3'])
  genaiTool(agent, id, 'bash', { command: 'npm test' }, { stdout: '12 passing\n', stderr: '', exitCode: 0 });
genaiTool(agent, 't4', 'bash', { command: 'python x.py | tee log' }, { stdout: traceback, stderr: '', exitCode: 0 });
genaiTool(agent, 't5', 'bash', { command: 'python x.py' }, { stdout: traceback, stderr: '', exitCode: 2 });
genaiTool(agent, 't6', 'bash', { command: 'python y.py' }, undefined, 'sandbox refused the command');
agent.end(tick());

// Trace 2: an OpenInference-instrumented agent: `pytest` three times in a row.
const chain = tracer.startSpan('agent', { startTime: tick(), attributes: { 'openinference.span.kind': 'AGENT' } });
for (let i = 0; i < 3; i++) openinferenceTool(chain, 'shell', { command: 'pytest -q' }, '1 failed, 3 passed in 0.12s\n');
chain.end(tick());

await provider.forceFlush();
const spans = exporter.getFinishedSpans();
const half = Math.floor(spans.length / 2);
const decode = (bytes) => JSON.parse(Buffer.from(bytes).toString('utf8'));
const requests = [
  decode(JsonTraceSerializer.serializeRequest(spans.slice(half))),
  decode(JsonTraceSerializer.serializeRequest(spans.slice(0, half))),
];

const out = join(dirname(fileURLToPath(import.meta.url)), '../../__test__/audit/fixtures/otlp');
mkdirSync(out, { recursive: true });
writeFileSync(join(out, 'genai.jsonl'), requests.map((r) => JSON.stringify(r)).join('\n') + '\n');
const b64 = (hex) => Buffer.from(hex, 'hex').toString('base64');
const rebased = requests.map((r) =>
  JSON.stringify(r, (key, value) =>
    ['traceId', 'spanId', 'parentSpanId'].includes(key) && typeof value === 'string' && value ? b64(value) : value,
  ),
);
writeFileSync(join(out, 'genai-base64.jsonl'), rebased.join('\n') + '\n');
const version = (name) => JSON.parse(readFileSync(join(modules, name, 'package.json'), 'utf8')).version;
writeFileSync(
  join(out, 'RECORDED-WITH.txt'),
  `@opentelemetry/sdk-trace-base ${version('@opentelemetry/sdk-trace-base')}, @opentelemetry/otlp-transformer ${version('@opentelemetry/otlp-transformer')}, @opentelemetry/api ${version('@opentelemetry/api')} (scripts/record/record-otlp-fixture.mjs)\n`,
);
console.log(`wrote ${spans.length} spans in ${requests.length} requests to ${out}`);
