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
 * @module toolguard/ai-sdk
 */
import type { ModelMessage, Tool, ToolExecutionOptions, ToolSet } from 'ai';
import { type ExactCall, GuardEngine } from 'toolguard';
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
  engineConfig,
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
  const engine = new GuardEngine(engineConfig(options.engine));
  const agentId = options.agentId ?? 'default';
  const turns = new UserTurns();
  const responses = new ModelResponses();
  const maxPending = options.maxPendingNotices ?? 1024;
  // toolCallId → notices, read by toModelOutput (which the SDK may call again
  // when it converts messages later, so entries stay, oldest evicted).
  const pending = new Map<string, string[]>();

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
      userSpoke(engine, agentId, turns.turn(agentId, lastUserMessage(messages)), (all) => userTexts(messages, all));
      // Every call of one model response gets the same `messages` (what
      // prompted the response; one array that grows step by step): after the
      // first of them to come back, the others were issued before its result
      // did (whatever order they finish in).
      const concurrent = responses.concurrent(agentId, messages, messages?.length);
      return engine.observe(
        { agentId, name, argumentsJson: argumentsJson(input ?? {}), exitStatusFile, concurrent },
        resultOf(output, isError),
      );
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
  return guarded as TOOLS;
}

export { NOTICE_SEPARATOR };
