/**
 * Verdicts as OpenTelemetry: every guarded call becomes an `execute_tool`
 * span (the GenAI semantic conventions' tool span) carrying the guard's
 * verdict as `toolguard.*` attributes and span events, so loops and silent
 * failures show up where teams already watch their agents (Phoenix,
 * Langfuse, Grafana Tempo; docs/adapters.md "Verdicts in your observability
 * stack"). Every host turns it on through one option, `otel`
 * ({@link traceEngine} via `createEngine` in adapters/common); the verdicts
 * are the engine's, this only writes them down.
 *
 * `@opentelemetry/api` is an optional peer, loaded when `otel` is on. With
 * no SDK registered in the process the API is a no-op: nothing is exported.
 * @module toolguard/adapters/otel
 */
import { createRequire } from 'node:module';
import type { GuardEngine, GuardVerdict, LoopDenyVerdict } from 'toolguard';
import type * as OtelApi from '@opentelemetry/api';

/**
 * Every attribute and event name toolguard writes: the GenAI conventions'
 * own where they define one, `toolguard.*` for the verdict (they define none).
 */
export const OTEL_NAMES = {
  /** GenAI semantic conventions (`execute_tool` span). */
  operation: 'gen_ai.operation.name',
  toolName: 'gen_ai.tool.name',
  toolType: 'gen_ai.tool.type',
  /** Opt-in (`captureContent`): the conventions mark them sensitive. */
  arguments: 'gen_ai.tool.call.arguments',
  result: 'gen_ai.tool.call.result',
  errorType: 'error.type',
  /** The guard's chain (the host's agent id): what the audit replays as one agent. */
  chain: 'toolguard.chain',
  /** What the guard said about this call: any of `loop`, `reminder`, `failure`, `deny`. */
  verdict: 'toolguard.verdict',
  loopKind: 'toolguard.loop.kind',
  loopCount: 'toolguard.loop.count',
  loopPeriod: 'toolguard.loop.period',
  loopFirst: 'toolguard.loop.first',
  loopLast: 'toolguard.loop.last',
  loopReminders: 'toolguard.loop.reminders',
  loopEvidence: 'toolguard.loop.evidence',
  failureAction: 'toolguard.failure.action',
  failureRules: 'toolguard.failure.rules',
  failureLine: 'toolguard.failure.line',
  /** A verdict's one-line summary (`bash: same error × 3`), on its event. */
  summary: 'toolguard.summary',
  /** The text shown to the model, on its event. */
  text: 'toolguard.text',
  /**
   * Calls the flagged episode has cost so far, as `toolguard audit` prices
   * it (docs/audit.md "Waste"): a loop's calls from the one it was first raised at
   * to this one (the verdict's `reminders`: it is raised at each), 1 for a
   * silent failure. Wall time and tokens are the audit's, over the exported
   * spans: it sees the whole timeline.
   */
  wasteCalls: 'toolguard.waste.calls',
  /** Span events, one per part of the verdict. */
  loopEvent: 'toolguard.loop',
  reminderEvent: 'toolguard.reminder',
  failureEvent: 'toolguard.failure',
  denyEvent: 'toolguard.deny',
} as const;

/** OpenTelemetry's `Attributes`, as its API declares them. */
export type OtelAttributeValue =
  | string
  | number
  | boolean
  | Array<null | undefined | string>
  | Array<null | undefined | number>
  | Array<null | undefined | boolean>;
export interface OtelAttributes {
  [key: string]: OtelAttributeValue | undefined;
}

/**
 * The part of an OpenTelemetry `Tracer` (and its spans) toolguard uses:
 * declared here so the package's types need no `@opentelemetry/api`.
 */
export interface OtelTracer {
  startSpan(name: string, options?: { kind?: number; attributes?: OtelAttributes }): OtelSpan;
}
export interface OtelSpan {
  addEvent(name: string, attributes?: OtelAttributes): unknown;
  setStatus(status: { code: number }): unknown;
  end(): void;
}

/** The `otel` option: `true` for the global tracer provider, or these. */
export interface OtelOptions {
  /** The tracer to write with (default: `trace.getTracer('toolguard')` of the global provider). */
  tracer?: OtelTracer;
  /**
   * Record the call's arguments and result text on the span
   * (`gen_ai.tool.call.arguments` / `.result`; default false: they may hold
   * secrets). `toolguard audit` of the exported spans needs them to replay the calls.
   */
  captureContent?: boolean;
}

export type OtelOption = boolean | OtelOptions;

type Api = typeof OtelApi;
let api: Api | undefined;

/** `@opentelemetry/api`, loaded once; a clear error when it is not installed. */
function loadApi(): Api {
  if (api) return api;
  try {
    api = createRequire(import.meta.url)('@opentelemetry/api') as Api;
  } catch (cause) {
    throw Object.assign(
      new Error('toolguard: the otel option needs the optional peer @opentelemetry/api (npm install @opentelemetry/api)', { cause }),
      { code: 'OTEL_API_MISSING', path: 'otel' },
    );
  }
  return api;
}

type Exec = Parameters<GuardEngine['observe']>[0];
type Result = Parameters<GuardEngine['observe']>[1];

function resultText(result: Result): string | undefined {
  if (typeof result === 'string') return result;
  if (!result) return undefined;
  if (result.text !== undefined) return result.text;
  const texts = (result.content ?? []).filter((b) => b.type === 'text' && typeof b.text === 'string').map((b) => b.text as string);
  if (texts.length) return texts.join('\n');
  return result.value === undefined ? undefined : (JSON.stringify(result.value) ?? undefined);
}

function argumentsText(exec: Exec): string {
  return exec.argumentsJson ?? JSON.stringify(exec.arguments) ?? '';
}

/** The verdict as span attributes plus one event per part. */
function verdictParts(verdict: GuardVerdict | null): { attributes: OtelApi.Attributes; events: [string, OtelApi.Attributes][] } {
  const n = OTEL_NAMES;
  const attributes: OtelApi.Attributes = {};
  const events: [string, OtelApi.Attributes][] = [];
  const kinds: string[] = [];
  if (verdict?.loop) {
    const loop = verdict.loop;
    kinds.push('loop');
    Object.assign(attributes, {
      [n.loopKind]: loop.kind,
      [n.loopCount]: loop.count,
      [n.loopPeriod]: loop.period,
      [n.loopFirst]: loop.first,
      [n.loopLast]: loop.last,
      [n.loopReminders]: loop.reminders,
      [n.loopEvidence]: loop.evidence,
      [n.wasteCalls]: loop.reminders,
    });
    events.push([n.loopEvent, { [n.loopKind]: loop.kind, [n.loopCount]: loop.count, [n.summary]: loop.summary, [n.text]: loop.text }]);
  }
  if (verdict?.reminder) {
    const reminder = verdict.reminder;
    kinds.push('reminder');
    events.push([n.reminderEvent, { [n.loopCount]: reminder.count, [n.summary]: reminder.summary, [n.text]: reminder.text }]);
  }
  if (verdict?.failure) {
    const failure = verdict.failure;
    kinds.push('failure');
    const rules = failure.rules.map((r) => r.id);
    Object.assign(attributes, { [n.failureAction]: failure.action, [n.failureRules]: rules, [n.failureLine]: failure.rules[0]?.line ?? 0 });
    if (attributes[n.wasteCalls] === undefined) attributes[n.wasteCalls] = 1;
    events.push([
      n.failureEvent,
      { [n.failureAction]: failure.action, [n.failureRules]: rules, [n.summary]: failure.summary, [n.text]: failure.text },
    ]);
  }
  if (kinds.length) attributes[n.verdict] = kinds;
  return { attributes, events };
}

/**
 * Write one guarded call as an `execute_tool` span, child of the active
 * span (the framework's agent or tool span, when there is one). The span
 * marks when the guard saw the result: it starts and ends then.
 */
function writeSpan(
  otel: Api,
  tracer: OtelTracer,
  capture: boolean,
  exec: Exec,
  result: Result,
  verdict: GuardVerdict | null,
  deny?: LoopDenyVerdict,
): void {
  const n = OTEL_NAMES;
  const attributes: OtelApi.Attributes = { [n.operation]: 'execute_tool', [n.toolName]: exec.name, [n.toolType]: 'function' };
  if (exec.agentId !== undefined) attributes[n.chain] = exec.agentId;
  // A refused call never ran: an error result of the guard's making.
  const isError = deny !== undefined || (typeof result === 'object' && result?.isError === true);
  if (isError) attributes[n.errorType] = deny ? 'toolguard.deny' : 'tool_error';
  if (capture) {
    attributes[n.arguments] = argumentsText(exec);
    const text = resultText(result);
    if (text !== undefined) attributes[n.result] = text;
  }
  const parts = verdictParts(verdict);
  Object.assign(attributes, parts.attributes);
  if (deny) {
    attributes[n.verdict] = ['deny'];
    Object.assign(attributes, { [n.loopKind]: deny.kind, [n.loopCount]: deny.count, [n.loopReminders]: deny.reminders });
    parts.events.push([n.denyEvent, { [n.loopKind]: deny.kind, [n.loopCount]: deny.count, [n.text]: deny.reason }]);
  }
  const span = tracer.startSpan(`execute_tool ${exec.name}`, { kind: otel.SpanKind.INTERNAL, attributes });
  for (const [name, event] of parts.events) span.addEvent(name, event);
  if (isError) span.setStatus({ code: otel.SpanStatusCode.ERROR });
  span.end();
}

function warn(error: unknown): void {
  const reason = error instanceof Error ? error.message : String(error);
  process.emitWarning(`toolguard otel: could not write the verdict span (the tool call is unaffected): ${reason}`, 'ToolguardWarning');
}

/**
 * `engine` with `observe`, `observeAsync` and `check` writing each call and
 * its verdict as a span. Throws (code `OTEL_API_MISSING`) when
 * `@opentelemetry/api` is not installed; a failure to write a span later
 * is a warning, never a broken call.
 */
export function traceEngine<E extends GuardEngine>(engine: E, option: OtelOption): E {
  if (option === false) return engine;
  const otel = loadApi();
  const options = option === true ? {} : option;
  const tracer: OtelTracer = options.tracer ?? (otel.trace.getTracer('toolguard') as OtelTracer);
  const capture = options.captureContent === true;
  const observe = engine.observe.bind(engine);
  const observeAsync = engine.observeAsync.bind(engine);
  const check = engine.check.bind(engine);
  const write = (exec: Exec, result: Result, verdict: GuardVerdict | null, deny?: LoopDenyVerdict) => {
    try {
      writeSpan(otel, tracer, capture, exec, result, verdict, deny);
    } catch (error) {
      warn(error);
    }
  };
  engine.observe = (exec: Exec, result?: Result) => {
    const verdict = observe(exec, result);
    write(exec, result, verdict);
    return verdict;
  };
  // The chain advances now (observeAsync's contract); the span is written when the scan is done.
  engine.observeAsync = (exec: Exec, result?: Result) =>
    observeAsync(exec, result).then((verdict) => {
      write(exec, result, verdict);
      return verdict;
    });
  engine.check = (exec: Exec) => {
    const refused = check(exec);
    if (refused) write(exec, undefined, null, refused);
    return refused;
  };
  return engine;
}
