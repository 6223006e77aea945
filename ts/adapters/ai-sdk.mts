/**
 * toolguard for the Vercel AI SDK (`ai`): `guardTools(tools)` returns the same
 * tools record with every `execute` observed by the engine.
 *
 * - reminder / `context` notice: appended to what the model reads of the tool
 *   output (through `toModelOutput`), the output value your code sees stays
 *   as the tool returned it;
 * - `error` rule: the call fails with a `ToolguardError` carrying the failure
 *   header and the original output (the SDK hands the model a tool error).
 *
 * One chain per `agentId` (default `'default'`); a new last user message in
 * the messages the SDK passes to `execute` resets it. Tools that stream
 * (an `execute` returning an async iterable) pass through unguarded.
 *
 * `toolguardStopWhen(...)` is a stop condition for `stopWhen`: the tool
 * loop ends after the step in which one loop drew its N-th alarm.
 * @module toolguard/ai-sdk
 */
import type { ModelMessage, StepResult, StopCondition, Tool, ToolExecutionOptions, ToolSet } from 'ai';
import { type ExactCall, GuardEngine, type LoopVerdict, type ReminderVerdict } from 'toolguard';
import {
  type AdapterOptions,
  type GuardVerdict,
  NOTICE_SEPARATOR,
  ModelResponses,
  UserTurns,
  appendNotices,
  contentText,
  argumentsJson,
  errorOf,
  failOpen,
  noticesOf,
  resultOf,
  loopNotices,
  userSpoke,
} from './common.mjs';

/** What `toModelOutput` returns (not exported by `ai` itself). */
type ToolResultOutput = Awaited<ReturnType<NonNullable<Tool['toModelOutput']>>>;

export interface AiSdkGuardOptions extends AdapterOptions {
  /** The chain the calls of this tools record advance (default `'default'`). */
  agentId?: string;
  /** How many tool calls' pending notices are kept for `toModelOutput` (default 1024). */
  maxPendingNotices?: number;
}

/** The error a tool call fails with when an `error` rule matched its output. */
export class ToolguardError extends Error {
  constructor(
    message: string,
    readonly verdict: GuardVerdict,
  ) {
    super(message);
    this.name = 'ToolguardError';
  }

  /** The SDK shows the model `error.toString()`: make it exactly the failure text, without a name prefix. */
  override toString(): string {
    return this.message;
  }
}

/** A fingerprint of the last user message, so a new user turn can be told from the same one. */
function lastUserMessage(messages: readonly ModelMessage[] | undefined): string | undefined {
  if (!messages) return undefined;
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i]!;
    if (message.role === 'user') return `${i}:${JSON.stringify(message.content)}`;
  }
  return undefined;
}

/** The texts of the user messages (`all`), or of the last one. */
function userTexts(messages: readonly ModelMessage[] | undefined, all: boolean): string[] {
  const users = (messages ?? []).filter((message) => message.role === 'user').map((message) => contentText(message.content));
  return all ? users : users.slice(-1);
}

function isAsyncIterable(value: unknown): value is AsyncIterable<unknown> {
  return !!value && typeof (value as AsyncIterable<unknown>)[Symbol.asyncIterator] === 'function';
}

/** What the SDK sends the model for an output when the tool has no `toModelOutput`. */
function defaultModelOutput(output: unknown): ToolResultOutput {
  if (typeof output === 'string') return { type: 'text', value: output };
  // As the SDK does: a JSON round trip (applies toJSON, drops undefined).
  const json = output === undefined ? undefined : JSON.stringify(output);
  return { type: 'json', value: json === undefined ? null : JSON.parse(json) };
}

/** `base` with the notices appended as text. */
function withNotices(base: ToolResultOutput, notices: readonly string[]): ToolResultOutput {
  switch (base.type) {
    case 'text':
      return { ...base, value: appendNotices(base.value, notices) };
    case 'json':
      return {
        type: 'content',
        value: [{ type: 'text', text: JSON.stringify(base.value) }, ...notices.map((text) => ({ type: 'text' as const, text }))],
      };
    case 'content':
      return { ...base, value: [...base.value, ...notices.map((text) => ({ type: 'text' as const, text }))] };
    case 'error-text':
      return { ...base, value: appendNotices(base.value, notices) };
    default:
      return base;
  }
}

/**
 * Guard every executable tool of `tools`. The returned record has the same
 * keys and tool objects with `execute` (and `toModelOutput`) wrapped; the
 * key is the tool name the engine sees (the names of `rules/shell-tools.json`
 * — `bash`, `shell`, `run`, `exec_command`, … — are scanned by default, without
 * case; set `engine.loudFailure.shellTools` for yours).
 */
export function guardTools<TOOLS extends ToolSet>(tools: TOOLS, options: AiSdkGuardOptions = {}): TOOLS {
  const engine = GuardEngine.withLoopsByDefault(options.engine);
  const agentId = options.agentId ?? 'default';
  const turns = new UserTurns();
  const responses = new ModelResponses();
  const maxPending = options.maxPendingNotices ?? 1024;
  // Result-blind repeat reminders (`loops: false`) of the current user turn.
  let reminders = 0;
  // toolCallId → notices, read by toModelOutput (which the SDK may call again
  // when it converts messages later, so entries stay, oldest evicted).
  const pending = new Map<string, string[]>();
  // toolCallId → the call's loop alarm, read by toolguardStopWhen(tools).
  const alarms = new Map<string, Alarm>();

  function observe(
    name: string,
    input: unknown,
    options: ToolExecutionOptions<unknown>,
    output: unknown,
    isError: boolean,
    exitStatusFile?: string,
  ) {
    try {
      const messages = options.messages;
      const turn = turns.turn(agentId, lastUserMessage(messages));
      if (turn === 'new') reminders = 0;
      userSpoke(engine, agentId, turn, (all) => userTexts(messages, all));
      // Every call of one model response gets the same `messages` (what
      // prompted the response; one array that grows step by step): after the
      // first of them to come back, the others were issued before its result
      // did (whatever order they finish in).
      const concurrent = responses.concurrent(agentId, messages, messages?.length);
      const verdict = engine.observe(
        { agentId, name, argumentsJson: argumentsJson(input ?? {}), exitStatusFile, concurrent },
        resultOf(output, isError),
      );
      const alarm = alarmOf(verdict, () => ++reminders);
      if (alarm) {
        alarms.set(options.toolCallId, alarm);
        if (alarms.size > maxPending) alarms.delete(alarms.keys().next().value!);
      }
      return verdict;
    } catch (error) {
      failOpen('toolguard/ai-sdk', error);
      return null;
    }
  }

  function exactCall(name: string, input: unknown): ExactCall | null {
    try {
      return engine.exactCall({ name, argumentsJson: argumentsJson(input ?? {}) });
    } catch (error) {
      failOpen('toolguard/ai-sdk', error);
      return null;
    }
  }

  const guarded: Record<string, Tool> = {};
  for (const [name, tool] of Object.entries(tools) as [string, Tool][]) {
    const execute = tool.execute;
    if (typeof execute !== 'function') {
      guarded[name] = tool;
      continue;
    }
    const toModelOutput = tool.toModelOutput;
    guarded[name] = {
      ...tool,
      execute: async (input: unknown, opts: ToolExecutionOptions<unknown>) => {
        // Exact mode: the shell command runs rewritten to record its stages'
        // statuses (the engine decides and rewrites); the engine still sees
        // the agent's own input.
        const exact = exactCall(name, input);
        let output: unknown;
        try {
          output = await execute((exact ? JSON.parse(exact.argumentsJson) : input) as never, opts as never);
        } catch (error) {
          // A failed call still advances the chain (DSH counts denied calls too).
          // The error's message is the result the loop detectors compare.
          const verdict = observe(name, input, opts, error instanceof Error ? error.message : String(error), true, exact?.exitStatusFile);
          const reminder = verdict?.reminder ?? verdict?.loop;
          if (reminder && error instanceof Error) {
            const withReminder = new Error(appendNotices(error.message, [reminder.text]), { cause: error });
            withReminder.name = error.name;
            throw withReminder;
          }
          throw error;
        }
        if (isAsyncIterable(output)) return output;
        const verdict = observe(name, input, opts, output, false, exact?.exitStatusFile);
        if (!verdict) return output;
        const error = errorOf(verdict);
        const notices = loopNotices(verdict);
        if (error !== undefined) throw new ToolguardError(appendNotices(error, notices), verdict);
        const all = noticesOf(verdict);
        if (all.length) {
          pending.set(opts.toolCallId, all);
          if (pending.size > maxPending) pending.delete(pending.keys().next().value!);
        }
        return output;
      },
      toModelOutput: async (args: { toolCallId: string; input: unknown; output: unknown }) => {
        const base = toModelOutput ? await toModelOutput(args as never) : defaultModelOutput(args.output);
        const notices = pending.get(args.toolCallId);
        return notices ? withNotices(base, notices) : base;
      },
    } as Tool;
  }
  alarmsOf.set(guarded, alarms);
  return guarded as TOOLS;
}

/** A loop alarm and how many alarms its loop has drawn, this one included. */
export interface Alarm {
  /** The loop alarm, or the result-blind repeat reminder (`loops: false`). */
  verdict: LoopVerdict | ReminderVerdict;
  /** The loop's alarms so far (for reminders: the reminders of the user turn so far). */
  count: number;
}

/** The guarded tools records made by {@link guardTools}, with their calls' alarms. */
const alarmsOf = new WeakMap<object, Map<string, Alarm>>();

/** A verdict's alarm; `nextReminder()` numbers a result-blind reminder, which carries no count of its own. */
function alarmOf(verdict: GuardVerdict | null, nextReminder: () => number): Alarm | undefined {
  if (verdict?.loop) return { verdict: verdict.loop, count: verdict.loop.reminders };
  if (verdict?.reminder) return { verdict: verdict.reminder, count: nextReminder() };
  return undefined;
}

export interface StopWhenOptions extends AdapterOptions {
  /** Stop after the step in which one loop drew this many alarms (default 2: one reminder, then stop). */
  after?: number;
  /** Called once with the alarm that stopped the loop. */
  onStop?: (alarm: Alarm) => void;
}

/**
 * A stop condition for the AI SDK's `stopWhen`: the tool loop ends after the
 * step in which one loop drew its `after`-th alarm (default 2) — the model
 * was reminded and went on anyway.
 *
 * - `toolguardStopWhen(tools, options?)`, `tools` a {@link guardTools}
 *   record: reads the alarms the guarded tools already raised (the model
 *   reads them too); nothing is observed twice.
 * - `toolguardStopWhen(options?)`: its own engine (`options.engine`)
 *   observes each step's tool calls and results — for tools not wrapped.
 *   The calls of one step after its first are parallel calls (no alarm
 *   on them); a new `generateText` call (its steps start over) is a new
 *   user turn, and the chain starts over.
 *
 * ```ts
 * await generateText({ model, tools, prompt, stopWhen: [stepCountIs(20), toolguardStopWhen(tools)] });
 * ```
 */
export function toolguardStopWhen<TOOLS extends ToolSet>(tools: TOOLS, options?: StopWhenOptions): StopCondition<TOOLS>;
export function toolguardStopWhen(options?: StopWhenOptions): StopCondition<ToolSet>;
export function toolguardStopWhen(source?: ToolSet | StopWhenOptions, more: StopWhenOptions = {}): StopCondition<ToolSet> {
  const recorded = source ? alarmsOf.get(source) : undefined;
  const options = (recorded ? more : (source as StopWhenOptions | undefined)) ?? {};
  const after = options.after ?? 2;
  if (!Number.isInteger(after) || after < 1)
    throw new RangeError(`toolguard/ai-sdk: toolguardStopWhen's \`after\` must be an integer >= 1 (got ${String(after)})`);
  const stop = (alarm: Alarm | undefined): boolean => {
    if (!alarm || alarm.count < after) return false;
    try {
      options.onStop?.(alarm);
    } catch (error) {
      failOpen('toolguard/ai-sdk', error);
    }
    return true;
  };
  if (recorded) {
    return ({ steps }) => {
      const last = steps.at(-1);
      return (
        !!last &&
        last.content.some((part) => (part.type === 'tool-result' || part.type === 'tool-error') && stop(recorded.get(part.toolCallId)))
      );
    };
  }

  const engine = GuardEngine.withLoopsByDefault(options.engine);
  const agentId = 'default';
  let first: StepResult<ToolSet> | undefined;
  let seen = 0;
  let reminders = 0;
  return ({ steps }) => {
    let stopped = false;
    try {
      if (steps[0] !== first || steps.length < seen) {
        // A new generateText call: a new user turn.
        engine.reset(agentId);
        first = steps[0];
        seen = 0;
        reminders = 0;
      }
      for (; seen < steps.length; seen++) {
        let calls = 0;
        for (const part of steps[seen]!.content) {
          if (part.type !== 'tool-result' && part.type !== 'tool-error') continue;
          const isError = part.type === 'tool-error';
          const output = isError ? (part.error instanceof Error ? part.error.message : String(part.error)) : part.output;
          const verdict = engine.observe(
            { agentId, name: part.toolName, argumentsJson: argumentsJson(part.input ?? {}), concurrent: calls++ > 0 },
            resultOf(output, isError),
          );
          const alarm = alarmOf(verdict, () => ++reminders);
          // Only the last step decides (earlier ones did when they were last).
          if (!stopped && seen === steps.length - 1 && stop(alarm)) stopped = true;
        }
      }
    } catch (error) {
      failOpen('toolguard/ai-sdk', error);
    }
    return stopped;
  };
}

export { NOTICE_SEPARATOR };
