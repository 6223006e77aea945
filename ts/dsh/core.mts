/**
 * The one DSH listener behind all three toolguard plugins. It wires harness
 * events to a native `GuardEngine` and folds the engine's verdict into the
 * downstream decision; every guard decision (chains, thresholds, texts, rule
 * matching) is the engine's.
 * @module toolguard/dsh/core
 */
import type { Context } from '@deepseek-ai/cordis';
import type { Agent } from '@deepseek-ai/dsh-agent';
import type { PostToolDecision, ToolExecution, ToolExecutionResult } from '@deepseek-ai/dsh-tools';
import type { UserMessage } from '@deepseek-ai/dsh-session';
import { GuardEngine, observeCall, observeCallValue } from 'toolguard';
import { ASYNC_SCAN_THRESHOLD, ModelResponses } from '../adapters/common.mjs';
import { traceEngine } from '../adapters/otel.mjs';
import { boundContextSummary, createUserMessage } from './peers.mjs';

/** Engine configuration, as `new GuardEngine()` takes it. */
export type EngineConfig = ConstructorParameters<typeof GuardEngine>[0];

type EngineResult = Exclude<NonNullable<Parameters<GuardEngine['observe']>[1]>, string>;

/** How a plugin drives the shared listener. */
export interface ListenerOptions {
  /** Plugin name, used in the fail-open warning. */
  plugin: string;
  /** The engine configuration; the engine validates it and throws the official texts. */
  engine: EngineConfig;
  /** Whether repeat chains run: calls then carry an agent id, and user prompts reset. */
  repeat: boolean;
  /**
   * Whether results are scanned: the result then goes to the engine, which
   * reads its content (and value, with `scanValue`) only for shell tools.
   */
  scan: boolean;
  /**
   * Whether the engine config sets `loudFailure.scanValue`: results then
   * always go to the engine whole (their value is scanned too).
   */
  scanValue?: boolean;
  /**
   * Whether the loop detectors run unless the config says `loops: false`
   * (the engine decides: `GuardEngine.withLoopsByDefault`). With them on,
   * the calls of one step (one model response, between two `agent/pre-step`
   * events) after the first to come back are marked `exec.concurrent` (they
   * were issued before that result came back, so the detectors raise no
   * alarm on them), and with `loops.deny` set `tools/pre-execute` asks the
   * engine (`check`) to refuse a call that would continue a loop already
   * reminded that many times.
   */
  loopsByDefault?: boolean;
  /**
   * Text outputs of at least this many UTF-16 code units are scanned off the
   * event loop (`observeAsync`). Default {@link ASYNC_SCAN_THRESHOLD}.
   */
  asyncScanThreshold?: number;
  /** Write each call and its verdict as an OpenTelemetry span (adapters/otel). */
  otel?: boolean;
}

// Shared with the MCP proxy; measured and explained in adapters/common.
export { ASYNC_SCAN_THRESHOLD };

/**
 * From this length (UTF-16 units) on, a string argument makes the engine read
 * the argument object itself (`observeCallValue`) instead of its
 * `JSON.stringify` text. Measured: a 64 KB write 1.4× → ~2× the official
 * plugin's speed; for small objects the dozen N-API calls of the walk cost
 * more than `JSON.stringify`, so they keep the text.
 */
const LONG_STRING = 1024;

/** Whether `value` is an object with a string property of at least {@link LONG_STRING} units. */
function hasLongString(value: unknown): boolean {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  for (const key in value) {
    const item = (value as Record<string, unknown>)[key];
    if (typeof item === 'string' && item.length >= LONG_STRING) return true;
  }
  return false;
}

/** Size of what a scan reads: the text blocks, in UTF-16 code units. */
function textSize(result: Readonly<ToolExecutionResult>): number {
  let size = 0;
  for (const block of result.content ?? []) {
    if (block.type === 'text' && typeof block.text === 'string') size += block.text.length;
  }
  return size;
}

/** Source labels are load-bearing: without `kind: 'plugin'` a context renders as a user prompt. */
const REMINDER_PLUGIN = 'repeat-tool-reminder';
const FAILURE_PLUGIN = 'loud-failure';
const LOOP_PLUGIN = 'toolguard-loops';

function notice(plugin: string, text: string, summary: string): UserMessage {
  return createUserMessage({
    content: [{ type: 'text', text }],
    source: { kind: 'plugin', plugin, form: 'notice', summary },
  }) as UserMessage;
}

/**
 * Install the guard listeners on `ctx`. Throws at load when the engine rejects
 * the configuration, so a bad config fails the plugin instead of falling back.
 */
export function installGuard(ctx: Context, options: ListenerOptions): void {
  const base = options.loopsByDefault ? GuardEngine.withLoopsByDefault(options.engine) : new GuardEngine(options.engine);
  const parallel = base.loopsOn;
  const engine = options.otel ? traceEngine(base, true) : base;

  // DSH keys chains by the live Agent object, so a new agent that reuses a
  // session id starts afresh. Engine ids are minted per object; when the agent
  // is collected its engine state is freed.
  const agentIds = new WeakMap<Agent, string>();
  const forgotten = new FinalizationRegistry<string>((id) => {
    try {
      responses.forget(id);
      engine.forget(id);
    } catch (error) {
      warn(error);
    }
  });
  let nextId = 0;
  function idOf(agent: Agent): string {
    let id = agentIds.get(agent);
    if (id === undefined) {
      id = `agent-${++nextId}`;
      agentIds.set(agent, id);
      forgotten.register(agent, id);
    }
    return id;
  }

  function warn(error: unknown): void {
    const reason = error instanceof Error ? error.message : String(error);
    ctx.logger.warn(`${options.plugin}: guard engine failed, passing the tool result through unchanged: ${reason}`);
  }

  const asyncThreshold = options.asyncScanThreshold ?? ASYNC_SCAN_THRESHOLD;
  // The step each agent is in (numbered across agents): every tool call of
  // a step comes from the one model response of that step.
  const steps = new WeakMap<Agent, number>();
  let nextStep = 0;
  const responses = new ModelResponses();

  // A repeat-only plugin needs no result: it takes the positional
  // `observeCall`, which skips the class-method dispatch and the property reads
  // of `observe` (about half the native cost of a small call).
  // With `otel` every call goes through `observe`, which writes its span.
  const callHandle = options.repeat && !options.scan && !options.otel ? engine.callHandle : undefined;

  /**
   * Hand the call to the engine. The chain advances now, synchronously and
   * in call order; a large output's scan may finish later, on a worker thread.
   */
  function observe(exec: ToolExecution, result: Readonly<ToolExecutionResult>): Verdict | null | Promise<Verdict | null> {
    const agentId = options.repeat && exec.agent ? idOf(exec.agent) : undefined;
    // Nothing to do: no chain to advance and no output to scan.
    if (agentId === undefined && !options.scan) return null;
    if (callHandle !== undefined && agentId !== undefined) {
      let reminder = hasLongString(exec.arguments) ? observeCallValue(callHandle, agentId, exec.name, exec.arguments) : false;
      if (reminder === false) {
        reminder = observeCall(callHandle, agentId, exec.name, JSON.stringify(exec.arguments) ?? '');
      }
      return reminder === null ? null : { reminder };
    }
    const call = {
      agentId,
      concurrent: parallel && agentId !== undefined && responses.concurrent(agentId, steps.get(exec.agent!)),
      name: exec.name,
      // Arguments cross as JSON text: much cheaper through N-API than the object.
      // Without an agent the engine never reads them.
      argumentsJson: agentId === undefined ? '' : (JSON.stringify(exec.arguments) ?? ''),
    };
    if (!options.scan) return engine.observe(call);
    // The common result, one text block, crosses as its text alone: the
    // engine reads a string in one N-API call, an object in one per property.
    const only = result.content?.length === 1 ? result.content[0] : undefined;
    const output =
      !result.isError && !options.scanValue && only?.type === 'text' && typeof only.text === 'string'
        ? only.text
        : {
            isError: result.isError,
            // DSH blocks are a superset of the engine's block shape.
            content: result.content as EngineResult['content'],
            value: result.value,
          };
    return !result.isError && textSize(result) >= asyncThreshold ? engine.observeAsync(call, output) : engine.observe(call, output);
  }

  ctx.on('tools/post-execute', async (exec, result, next) => {
    // Observe first: the chain advances whatever happens downstream. A
    // failing engine (a throw now, or a rejected off-thread scan) is logged
    // and the result passes through: the guard fails open. A scan's handler
    // is attached at once so a rejection during `next()` is never unhandled;
    // a synchronous verdict is not wrapped in a promise (one await less per call).
    let verdict: Verdict | null | Promise<Verdict | null>;
    try {
      verdict = observe(exec, result);
      if (verdict instanceof Promise) {
        verdict = verdict.catch((error: unknown) => {
          warn(error);
          return null;
        });
      }
    } catch (error) {
      warn(error);
      verdict = null;
    }
    const downstream = await next();
    const found = verdict instanceof Promise ? await verdict : verdict;
    if (!found) return downstream;
    return fold(downstream, found);
  });

  if (engine.deniesLoops) {
    // After the other listeners: only a call they allow can be refused here.
    ctx.on('tools/pre-execute', async (exec, next) => {
      const decision = await next();
      if (decision.kind !== 'allow' || !exec.agent) return decision;
      try {
        const refused = engine.check({ agentId: idOf(exec.agent), name: exec.name, argumentsJson: JSON.stringify(exec.arguments) ?? '' });
        if (refused) return { kind: 'deny', reason: refused.reason };
      } catch (error) {
        warn(error);
      }
      return decision;
    });
  }

  if (options.repeat) {
    ctx.on('agent/pre-step', ({ agent, messages }, next) => {
      if (parallel) steps.set(agent, ++nextStep);
      const spoken = messages.filter((message) => message.source.kind === 'user');
      if (spoken.length > 0) {
        try {
          // An agent seen for the first time has nothing to reset, but the
          // task it was given is what the user reported.
          const known = agentIds.get(agent);
          if (known !== undefined) engine.reset(known);
          // With scanning on: the errors the user quotes are the reported bug
          // (a reproduction printing one is context, not error; docs/shell-model.md).
          if (options.scan) {
            const id = idOf(agent);
            for (const message of spoken) {
              const text = message.content
                .filter((block) => block.type === 'text')
                .map((block) => (block as { text: string }).text)
                .join('\n');
              if (text) engine.noteUserText(id, text);
            }
          }
        } catch (error) {
          warn(error);
        }
      }
      return next();
    });
  }
}

type Verdict = NonNullable<ReturnType<GuardEngine['observe']>>;

/**
 * Fold a verdict into the downstream decision: the reminder goes first in
 * `additionalContexts`, a context failure's notice last; an error failure
 * turns an accepted result into a block carrying the failure text. A block
 * from downstream stays as it is (the model already sees an error) and only
 * gains the contexts.
 */
function fold(downstream: PostToolDecision, verdict: Verdict): PostToolDecision {
  const before: UserMessage[] = [];
  const after: UserMessage[] = [];
  const { reminder, failure } = verdict;
  const loop = verdict.loop;
  if (reminder) before.push(notice(REMINDER_PLUGIN, reminder.text, reminder.summary));
  if (loop) before.push(notice(LOOP_PLUGIN, loop.text, boundContextSummary(loop.summary)));
  let decision = downstream;
  if (failure) {
    if (failure.action === 'error') {
      if (downstream.kind !== 'block') {
        decision = { kind: 'block', feedback: [{ type: 'text', text: failure.text }] };
        if (downstream.additionalContexts) decision.additionalContexts = downstream.additionalContexts;
      }
    } else {
      after.push(notice(FAILURE_PLUGIN, failure.text, boundContextSummary(failure.summary)));
    }
  }
  if (before.length === 0 && after.length === 0) return decision;
  const additionalContexts = [...before, ...(decision.additionalContexts ?? []), ...after];
  if (decision.kind === 'block') return { kind: 'block', feedback: decision.feedback, additionalContexts };
  return { ...decision, additionalContexts };
}

/**
 * The top-level keys of a plugin config the schema knows; the others are
 * dropped with one warning naming them. The official plugins ignore unknown
 * keys, so a cordis.yml row that loaded with them keeps loading with ours —
 * but a typo (`treshold`) no longer passes unnoticed.
 */
export function knownKeys<T extends object>(ctx: Context, plugin: string, config: T, known: readonly string[]): T {
  const unknown = Object.keys(config ?? {}).filter((key) => !known.includes(key));
  if (unknown.length === 0) return config;
  ctx.logger.warn(
    `${plugin}: ignoring unknown config key${unknown.length > 1 ? 's' : ''} ${unknown.map((k) => JSON.stringify(k)).join(', ')} (expected one of: ${known.join(', ')})`,
  );
  const out: Record<string, unknown> = {};
  for (const key of known) if (key in config) out[key] = (config as Record<string, unknown>)[key];
  return out as T;
}
