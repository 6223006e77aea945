/**
 * toolguard for the OpenAI Agents SDK (`@openai/agents`): a tool output
 * guardrail. Add it to each function tool's `outputGuardrails`.
 *
 * A tool output guardrail can allow the output, replace it
 * (`rejectContent(message)`), or throw; it has no channel that adds a
 * message beside the output. So:
 * - `error` rule: the output is rejected and replaced by the failure header
 *   and the original output;
 * - reminder / `context` notice (option `notices`, default `'replace'`): the
 *   output is replaced by the original output followed by the notices — the
 *   model reads both, but traces record a guardrail rejection; with
 *   `notices: 'drop'` the output is allowed and the notices only appear in
 *   the guardrail's `outputInfo`.
 *
 * One chain per run and agent: every `run()` (a new user turn) starts afresh,
 * so no reset event is needed.
 *
 * Exact mode (`engine: { exactMode: true }`, docs/exact-mode.md): a guardrail
 * sees the call only after it ran, so the rewrite needs the tool itself —
 * `guardTool(tool, guard)` returns the tool with the guardrail attached and
 * its `command` run as the engine rewrites it (the tool must run it with
 * bash or zsh); the guardrail reads the recorded stage statuses back.
 * @module toolguard/openai-agents
 */
import {
  type Agent,
  type AgentInputItem,
  defineToolOutputGuardrail,
  type FunctionTool,
  type RunContext,
  type ToolOutputGuardrailDefinition,
} from '@openai/agents';
import { GuardEngine } from 'toolguard';
import {
  type AdapterOptions,
  ExactCalls,
  type GuardVerdict,
  ModelResponses,
  appendNotices,
  contentText,
  errorOf,
  failOpen,
  noticesOf,
  resultOf,
  loopNotices,
} from './common.mjs';

export interface OpenAIAgentsGuardOptions extends AdapterOptions {
  /** What to do with a reminder or notice on an accepted output (see the module doc). Default `'replace'`. */
  notices?: 'replace' | 'drop';
  /** Guardrail name in traces (default `'toolguard'`). */
  name?: string;
}

const ADAPTER = 'toolguard/openai-agents';

/**
 * Which calls of a run were made by one model response. A response's function
 * calls all start before the next model request, which waits for every one of
 * them, so calls whose runs overlap belong to one response: a call that starts
 * while another of the run is still running joins its batch. Calls that do not
 * overlap (a very fast tool, `maxFunctionToolConcurrency`) get batches of their
 * own: they are not marked concurrent, as without this.
 */
class Batches {
  private runs = new WeakMap<object, { running: number; batch: number }>();
  private of = new Map<string, number>();
  private next = 0;

  constructor(private readonly max = 1024) {}

  start(run: object, callId: string): () => void {
    let state = this.runs.get(run);
    if (!state) {
      state = { running: 0, batch: 0 };
      this.runs.set(run, state);
    }
    if (state.running === 0) state.batch = ++this.next;
    state.running++;
    this.of.set(callId, state.batch);
    if (this.of.size > this.max) this.of.delete(this.of.keys().next().value!);
    const running = state;
    return () => {
      running.running--;
    };
  }

  /** The batch of call `callId`, once (`undefined`: not run through {@link guardTool}). */
  take(callId: string): number | undefined {
    const batch = this.of.get(callId);
    this.of.delete(callId);
    return batch;
  }
}

/** What {@link guardTool} and {@link noteUserInput} need of a guardrail made by {@link toolguardGuardrail}. */
interface GuardInternals {
  engine: GuardEngine;
  calls: ExactCalls;
  batches: Batches;
  chainOf: (run: object, agent: string) => string;
}

const internalsOf = new WeakMap<object, GuardInternals>();

/** The text of each user message among a turn's input items. */
function userTexts(items: readonly AgentInputItem[] | undefined): string[] {
  const texts: string[] = [];
  for (const item of items ?? []) {
    const message = item as { role?: unknown; content?: unknown };
    if (message.role !== 'user') continue;
    // Input parts are `input_text`; a plain string is the whole message.
    const content = Array.isArray(message.content)
      ? message.content.map((part) =>
          part && typeof part === 'object' && (part as { type?: unknown }).type === 'input_text' ? { ...part, type: 'text' } : part,
        )
      : message.content;
    const text = contentText(content);
    if (text) texts.push(text);
  }
  return texts;
}

function outputText(output: unknown): string {
  return typeof output === 'string' ? output : (JSON.stringify(output) ?? '');
}

/** The guardrail; one engine serves every tool it is attached to. */
export function toolguardGuardrail(options: OpenAIAgentsGuardOptions = {}): ToolOutputGuardrailDefinition {
  const engine = GuardEngine.withLoopsByDefault(options.engine);
  const replace = (options.notices ?? 'replace') === 'replace';
  const calls = new ExactCalls(ADAPTER);
  const batches = new Batches();
  const responses = new ModelResponses();

  // The run context object identifies a run; ids are minted per (run, agent)
  // and freed with the run's context.
  const runs = new WeakMap<object, Map<string, string>>();
  const forgotten = new FinalizationRegistry<Map<string, string>>((agents) => {
    for (const id of agents.values()) engine.forget(id);
  });
  let next = 0;
  function idOf(run: object, agent: string): string {
    let agents = runs.get(run);
    if (!agents) {
      agents = new Map();
      runs.set(run, agents);
      // The held map is not the key, so it does not keep the run alive.
      forgotten.register(run, agents);
    }
    let id = agents.get(agent);
    if (id === undefined) {
      id = `run-${++next}/${agent}`;
      agents.set(agent, id);
    }
    return id;
  }

  const guardrail = defineToolOutputGuardrail({
    name: options.name ?? 'toolguard',
    run: async ({ context, agent, toolCall, output }) => {
      let verdict: GuardVerdict | null = null;
      try {
        // `toolCall` is the model's call: the agent's own arguments, also when the tool ran a rewrite.
        const exitStatusFile = calls.take(toolCall.callId)?.exitStatusFile;
        const agentId = idOf(context, agent.name);
        // After the first call of a batch to come back, the others were issued before its result came back.
        const concurrent = responses.concurrent(agentId, batches.take(toolCall.callId));
        verdict = engine.observe(
          { agentId, name: toolCall.name, argumentsJson: toolCall.arguments, exitStatusFile, concurrent },
          resultOf(output),
        );
      } catch (error) {
        failOpen(ADAPTER, error);
      }
      if (!verdict) return { behavior: { type: 'allow' } };
      const outputInfo = { toolguard: verdict };
      const error = errorOf(verdict);
      if (error !== undefined) {
        return { behavior: { type: 'rejectContent', message: appendNotices(error, loopNotices(verdict)) }, outputInfo };
      }
      const notices = noticesOf(verdict);
      if (notices.length && replace) {
        return { behavior: { type: 'rejectContent', message: appendNotices(outputText(output), notices) }, outputInfo };
      }
      return { behavior: { type: 'allow' }, outputInfo };
    },
  });
  internalsOf.set(guardrail, { engine, calls, batches, chainOf: idOf });
  return guardrail;
}

/**
 * `tool` guarded by `guard` (a {@link toolguardGuardrail}, appended to its
 * `outputGuardrails`) and, with `exactMode` on in the guard's engine config,
 * run with its shell command rewritten by the engine (`exactCall`) to
 * record each pipeline stage's exit status, which the guardrail reads back.
 * Without `exactMode` this is the same as adding `guard` to
 * `outputGuardrails`.
 */
// biome-ignore lint/suspicious/noExplicitAny: any function tool, whatever its context, parameters and result types
export function guardTool<T extends FunctionTool<any, any, any>>(tool: T, guard: ToolOutputGuardrailDefinition): T {
  const exact = internalsOf.get(guard);
  if (!exact) throw new TypeError('toolguard/openai-agents: guardTool needs a guardrail made by toolguardGuardrail()');
  const invoke = tool.invoke;
  return {
    ...tool,
    outputGuardrails: [...(tool.outputGuardrails ?? []), guard],
    invoke: async (runContext, input, details) => {
      const id = details?.toolCall?.callId;
      const rewritten = id === undefined ? null : exact.calls.start(exact.engine, id, tool.name, input);
      const done = id === undefined ? undefined : exact.batches.start(runContext, id);
      try {
        return await invoke(runContext, rewritten ?? input, details);
      } finally {
        done?.();
      }
    },
  };
}

/** What {@link noteUserInput} listens on: an `Agent` or a `Runner` (both emit `agent_start`). */
export interface AgentStartEmitter {
  on(
    type: 'agent_start',
    // biome-ignore lint/suspicious/noExplicitAny: any agent and context types
    listener: (context: RunContext<any>, agent: Agent<any, any>, turnInput?: AgentInputItem[]) => void,
  ): unknown;
}

/**
 * Hand the user's messages to `guard`'s engine: every time an agent starts
 * on a run (`agent_start` of `target`, an `Agent` or a `Runner`), the user
 * messages of its input go to `noteUserText` for that run's chain, so a
 * reproduction printing the error the user quoted is a `context` notice,
 * not an `error` (the engine decides; docs/shell-model.md). A guardrail alone
 * never sees the conversation.
 */
export function noteUserInput(guard: ToolOutputGuardrailDefinition, target: AgentStartEmitter): void {
  const internals = internalsOf.get(guard);
  if (!internals) throw new TypeError('toolguard/openai-agents: noteUserInput needs a guardrail made by toolguardGuardrail()');
  target.on('agent_start', (context, agent, turnInput) => {
    try {
      const id = internals.chainOf(context, agent.name);
      for (const text of userTexts(turnInput)) internals.engine.noteUserText(id, text);
    } catch (error) {
      failOpen(ADAPTER, error);
    }
  });
}
