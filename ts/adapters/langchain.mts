/**
 * toolguard for LangChain.js v1 agents (`langchain`): a middleware whose
 * `wrapToolCall` hands every tool result to the engine.
 *
 * - reminder / `context` notice: appended to the `ToolMessage` content;
 * - `error` rule: a `ToolMessage` with `status: "error"` carrying the failure
 *   header and the original output.
 *
 * One chain per thread (`configurable.thread_id`, else `'default'`, or your
 * `agentId(request)`); a new last human message in the agent state resets it.
 *
 * With `engine: { exactMode: true }` (docs/exact-mode.md) a shell tool's
 * `command` runs rewritten by the engine to record each pipeline stage's
 * exit status (the tool must run it with bash or zsh); the engine reads the
 * statuses back, so a stage that failed behind `| tail` is an `error` with
 * its real status, and it models the agent's own command.
 * @module toolguard/langchain
 */
import { createMiddleware, ToolMessage, type ToolCallRequest } from 'langchain';
import { type ExactCall, GuardEngine } from 'toolguard';
import {
  type AdapterOptions,
  type GuardVerdict,
  ModelResponses,
  UserTurns,
  appendNotices,
  argumentsJson,
  errorOf,
  failOpen,
  noticesOf,
  loopNotices,
  userSpoke,
  contentText as partsText,
} from './common.mjs';

export interface LangChainGuardOptions extends AdapterOptions {
  /** The chain a call advances (default: the run's `thread_id`, else `'default'`). */
  agentId?: (request: ToolCallRequest) => string;
}

type Content = ToolMessage['content'];

function contentText(content: Content): string {
  if (typeof content === 'string') return content;
  return content
    .filter(
      (block): block is { type: 'text'; text: string } => block.type === 'text' && typeof (block as { text?: unknown }).text === 'string',
    )
    .map((block) => block.text)
    .join('\n');
}

function appendTo(content: Content, notices: readonly string[]): Content {
  if (typeof content === 'string') return appendNotices(content, notices);
  return [...content, ...notices.map((text) => ({ type: 'text' as const, text }))] as Content;
}

/** The message that replaces `message` for a verdict (`message` itself when nothing changes). */
export function messageFor(message: ToolMessage, verdict: GuardVerdict): ToolMessage {
  const error = message.status === 'error' ? undefined : errorOf(verdict);
  const fields = {
    tool_call_id: message.tool_call_id,
    name: message.name,
    artifact: message.artifact,
    metadata: message.metadata,
    id: message.id,
  };
  if (error !== undefined) {
    return new ToolMessage({ ...fields, content: appendNotices(error, loopNotices(verdict)), status: 'error' });
  }
  const notices = noticesOf(verdict);
  if (notices.length === 0) return message;
  return new ToolMessage({ ...fields, content: appendTo(message.content, notices), status: message.status });
}

/** The last human message of the state, as a fingerprint (its id when it has one). */
function lastHuman(request: ToolCallRequest): string | undefined {
  const messages = request.state?.messages ?? [];
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i]!;
    if (message.type === 'human') return message.id ?? `${i}:${JSON.stringify(message.content)}`;
  }
  return undefined;
}

/** The texts of the state's human messages (`all`), or of the last one. */
function humanTexts(request: ToolCallRequest, all: boolean): string[] {
  const texts = (request.state?.messages ?? []).filter((message) => message.type === 'human').map((message) => partsText(message.content));
  return all ? texts : texts.slice(-1);
}

/**
 * The model response that made this call: the ids of the tool calls of the
 * AI message that holds it (`undefined` when the state does not show it).
 */
function responseOf(request: ToolCallRequest): string | undefined {
  const id = request.toolCall.id;
  if (id === undefined) return undefined;
  const messages = request.state?.messages ?? [];
  for (let i = messages.length - 1; i >= 0; i--) {
    const calls = (messages[i] as { tool_calls?: { id?: string }[] }).tool_calls;
    if (messages[i]!.type === 'ai' && calls?.some((call) => call.id === id)) return calls.map((call) => call.id).join('\0');
  }
  return undefined;
}

/** The toolguard middleware: pass it in `createAgent({ middleware: [...] })`. */
export function toolguardMiddleware(options: LangChainGuardOptions = {}) {
  const engine = GuardEngine.withLoopsByDefault(options.engine);
  const turns = new UserTurns();
  const responses = new ModelResponses();
  const agentIdOf = options.agentId ?? ((request: ToolCallRequest) => String(request.runtime?.configurable?.thread_id ?? 'default'));

  function observe(request: ToolCallRequest, message: ToolMessage | undefined, exact: ExactCall | null) {
    try {
      const agentId = agentIdOf(request);
      userSpoke(engine, agentId, turns.turn(agentId, lastHuman(request)), (all) => humanTexts(request, all));
      // The tool calls of one AI message run in parallel (the tool node):
      // after the first of them to come back, the others were issued
      // before its result came back.
      const concurrent = responses.concurrent(agentId, responseOf(request));
      const { name, args } = request.toolCall;
      return engine.observe(
        { agentId, name, argumentsJson: argumentsJson(args ?? {}), exitStatusFile: exact?.exitStatusFile, concurrent },
        // A Command (state update) or a thrown tool error has no output to scan.
        message ? { isError: message.status === 'error', text: contentText(message.content) } : { isError: true },
      );
    } catch (error) {
      failOpen('toolguard/langchain', error);
      return null;
    }
  }

  /** Exact mode: the engine's rewrite of the call (`null`: run it as written). */
  function exactCall(request: ToolCallRequest): ExactCall | null {
    try {
      return engine.exactCall({ name: request.toolCall.name, argumentsJson: argumentsJson(request.toolCall.args ?? {}) });
    } catch (error) {
      failOpen('toolguard/langchain', error);
      return null;
    }
  }

  return createMiddleware({
    name: 'toolguard',
    wrapToolCall: async (request, handler) => {
      const exact = exactCall(request);
      let result: Awaited<ReturnType<typeof handler>>;
      try {
        // The tool runs the rewritten command; the engine still sees the agent's own call.
        result = await handler(
          exact
            ? { ...request, toolCall: { ...request.toolCall, args: JSON.parse(exact.argumentsJson) as Record<string, unknown> } }
            : request,
        );
      } catch (error) {
        // The call still advances the detectors; a due alarm joins the error's
        // message (what a caller that handles tool errors shows the model).
        const verdict = observe(request, undefined, exact);
        const notices = verdict ? loopNotices(verdict) : [];
        if (notices.length && error instanceof Error) {
          const withAlarm = new Error(appendNotices(error.message, notices), { cause: error });
          withAlarm.name = error.name;
          throw withAlarm;
        }
        throw error;
      }
      const message = ToolMessage.isInstance(result) ? result : undefined;
      const verdict = observe(request, message, exact);
      return verdict && message ? messageFor(message, verdict) : result;
    },
  });
}
