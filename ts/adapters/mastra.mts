/**
 * toolguard for Mastra agents (`@mastra/core`): the agent's tool hooks see
 * every call and its outcome, and a tool-result processor delivers what the
 * model should read.
 *
 * ```ts
 * const guard = toolguardMastra({ engine: { loudFailure: { shellTools: ['bash'] } } });
 * const agent = new Agent({ name, instructions, model, tools, hooks: guard.hooks, outputProcessors: [guard.processor] });
 * ```
 *
 * - `hooks.afterToolCall`: the call and its output (or error) advance the
 *   chain; a shell tool's output is scanned.
 * - `processor.processToolResult`: a reminder / loop alarm / `context`
 *   notice is appended to the result the model reads (a string result gets
 *   them after a blank line; any other value becomes its JSON text followed
 *   by them); an `error` rule replaces it with the failure text (the header,
 *   then the original output). Mastra keeps the processed result, so the
 *   run's `toolResults` show it too. Mastra runs no processor for a call that
 *   threw: its chain still advances, and the error reaches the model as is.
 * - `hooks.beforeToolCall`: with `loops.deny` in the config, a call that
 *   would go on with a loop already alarmed that many times is not run: its
 *   result is the refusal's reason.
 *
 * Chain: one per memory thread (`threadId`), else one per agent. A new last
 * user message in the conversation Mastra hands the tool resets it, and the
 * user's words go to the engine (`noteUserText`). The calls of one model
 * step (`processor.processOutputStep` notes them before they run) after the
 * first to come back are parallel calls: no loop alarm on them. Fails
 * open: if the engine throws, the result passes through unchanged and a
 * warning is emitted.
 * @module toolguard/mastra
 */
import type { OutputProcessor } from '@mastra/core/processors';
import type { ToolHooks } from '@mastra/core/tools';
import { GuardEngine } from 'toolguard';
import {
  type AdapterOptions,
  type GuardVerdict,
  ModelResponses,
  UserTurns,
  appendNotices,
  argumentsJson,
  contentText,
  errorOf,
  failOpen,
  loopNotices,
  noticesOf,
  resultOf,
  userSpoke,
} from './common.mjs';

const ADAPTER = 'toolguard/mastra';

export interface MastraGuardOptions extends AdapterOptions {
  /** How many calls' verdicts are kept for the processor (default 1024). */
  maxPending?: number;
}

/** What {@link toolguardMastra} returns: the agent's `hooks` and one of its `outputProcessors`. */
export interface MastraGuard {
  hooks: ToolHooks;
  processor: OutputProcessor;
}

/** What the hooks read of Mastra's tool execution context. */
interface CallContext {
  agentId?: string;
  toolCallId?: string;
  threadId?: string;
  messages?: unknown[];
}

/**
 * The call's id, conversation and thread: the hooks get the tool options
 * (`toolCallId`, `messages`) flat; a tool's own execute context nests them
 * under `agent`.
 */
function callOf(context: unknown): CallContext {
  if (!context || typeof context !== 'object') return {};
  const flat = context as CallContext & { agent?: unknown };
  const agent = flat.agent && typeof flat.agent === 'object' ? (flat.agent as CallContext) : {};
  return {
    agentId: agent.agentId,
    toolCallId: agent.toolCallId ?? flat.toolCallId,
    threadId: agent.threadId ?? flat.threadId,
    messages: agent.messages ?? flat.messages,
  };
}

/** A message's role and text, for the Mastra (`content.parts`) and AI SDK (`content`) shapes alike. */
function userText(message: unknown): string | undefined {
  if (!message || typeof message !== 'object') return undefined;
  const m = message as { role?: unknown; content?: unknown };
  if (m.role !== 'user') return undefined;
  const content = m.content as { parts?: unknown } | undefined;
  return contentText(content && typeof content === 'object' && !Array.isArray(content) ? content.parts : content);
}

/** A fingerprint of the last user message, so a new user turn can be told from the same one. */
function lastUserMessage(messages: readonly unknown[] | undefined): string | undefined {
  if (!messages) return undefined;
  for (let i = messages.length - 1; i >= 0; i--) {
    const text = userText(messages[i]);
    if (text === undefined) continue;
    const id = (messages[i] as { id?: unknown }).id;
    return `${i}:${typeof id === 'string' ? id : ''}:${text}`;
  }
  return undefined;
}

/** `result` as the model should read it with the verdict (`undefined`: unchanged). */
function folded(result: unknown, verdict: GuardVerdict): string | undefined {
  const error = errorOf(verdict);
  if (error !== undefined) return appendNotices(error, loopNotices(verdict));
  const notices = noticesOf(verdict);
  if (notices.length === 0) return undefined;
  const text = typeof result === 'string' ? result : (JSON.stringify(result) ?? '');
  return appendNotices(text, notices);
}

/** Tool hooks and a tool-result processor sharing one engine (a bad config throws here). */
export function toolguardMastra(options: MastraGuardOptions = {}): MastraGuard {
  const engine = GuardEngine.withLoopsByDefault(options.engine);
  const turns = new UserTurns();
  const responses = new ModelResponses();
  const maxPending = options.maxPending ?? 1024;
  // toolCallId → the verdict afterToolCall got, for processToolResult.
  const verdicts = new Map<string, GuardVerdict>();
  // toolCallId → the model step that made it (processOutputStep, before the calls run).
  const steps = new Map<string, number>();
  let nextStep = 0;

  const chainOf = (agent: CallContext, metadata: unknown): string =>
    agent.threadId ?? agent.agentId ?? ((metadata as { agentId?: unknown } | undefined)?.agentId as string | undefined) ?? 'default';

  const hooks: ToolHooks = {
    beforeToolCall: ({ toolName, input, context, metadata }) => {
      try {
        const refused = engine.check({
          agentId: chainOf(callOf(context), metadata),
          name: toolName,
          argumentsJson: argumentsJson(input ?? {}),
        });
        if (refused) return { proceed: false, output: refused.reason };
      } catch (error) {
        failOpen(ADAPTER, error);
      }
      return undefined;
    },

    afterToolCall: ({ toolName, input, context, metadata, output, error }) => {
      try {
        const agent = callOf(context);
        const agentId = chainOf(agent, metadata);
        const messages = agent.messages;
        userSpoke(engine, agentId, turns.turn(agentId, lastUserMessage(messages)), (all) => {
          const texts = (messages ?? []).map(userText).filter((t): t is string => t !== undefined);
          return all ? texts : texts.slice(-1);
        });
        // The step that made the call, as the processor saw it (Mastra hands a
        // tool the run's input messages only, the same for every step).
        const step = agent.toolCallId === undefined ? undefined : steps.get(agent.toolCallId);
        if (agent.toolCallId !== undefined) steps.delete(agent.toolCallId);
        const concurrent = responses.concurrent(agentId, step);
        const failed = error !== undefined;
        const verdict = engine.observe(
          { agentId, name: toolName, argumentsJson: argumentsJson(input ?? {}), concurrent },
          resultOf(failed ? (error instanceof Error ? error.message : String(error)) : output, failed),
        );
        if (verdict && agent.toolCallId !== undefined) {
          verdicts.set(agent.toolCallId, verdict);
          if (verdicts.size > maxPending) verdicts.delete(verdicts.keys().next().value!);
        }
      } catch (caught) {
        failOpen(ADAPTER, caught);
      }
    },
  };

  const processor: OutputProcessor = {
    id: 'toolguard',
    name: 'toolguard',
    processOutputStep: ({ toolCalls, messageList }) => {
      const step = ++nextStep;
      for (const call of toolCalls ?? []) {
        steps.set(call.toolCallId, step);
        if (steps.size > maxPending) steps.delete(steps.keys().next().value!);
      }
      return messageList;
    },
    processToolResult: ({ toolCallId, toolName, args, result, messageList }) => {
      const verdict = verdicts.get(toolCallId);
      if (!verdict) return undefined;
      verdicts.delete(toolCallId);
      try {
        const text = folded(result, verdict);
        if (text === undefined) return undefined;
        messageList.updateToolInvocation({
          type: 'tool-invocation',
          toolInvocation: { state: 'result', toolCallId, toolName, args, result: text },
        });
        return messageList;
      } catch (error) {
        failOpen(ADAPTER, error);
        return undefined;
      }
    },
  };

  return { hooks, processor };
}
