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
import { defineToolOutputGuardrail, type FunctionTool, type ToolOutputGuardrailDefinition } from '@openai/agents';
import { GuardEngine } from 'toolguard';
import {
  type AdapterOptions,
  ExactCalls,
  type GuardVerdict,
  appendNotices,
  errorOf,
  failOpen,
  noticesOf,
  resultOf,
  engineConfig,
  loopNotices,
} from './common.mjs';

export interface OpenAIAgentsGuardOptions extends AdapterOptions {
  /** What to do with a reminder or notice on an accepted output (see the module doc). Default `'replace'`. */
  notices?: 'replace' | 'drop';
  /** Guardrail name in traces (default `'toolguard'`). */
  name?: string;
}

const ADAPTER = 'toolguard/openai-agents';

/** Each guardrail's engine and exact-mode calls in flight, for {@link guardTool}. */
const exactOf = new WeakMap<object, { engine: GuardEngine; calls: ExactCalls }>();

function outputText(output: unknown): string {
  return typeof output === 'string' ? output : (JSON.stringify(output) ?? '');
}

/** The guardrail; one engine serves every tool it is attached to. */
export function toolguardGuardrail(options: OpenAIAgentsGuardOptions = {}): ToolOutputGuardrailDefinition {
  const engine = new GuardEngine(engineConfig(options.engine));
  const replace = (options.notices ?? 'replace') === 'replace';
  const calls = new ExactCalls(ADAPTER);

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
        verdict = engine.observe(
          { agentId: idOf(context, agent.name), name: toolCall.name, argumentsJson: toolCall.arguments, exitStatusFile },
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
  exactOf.set(guardrail, { engine, calls });
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
  const exact = exactOf.get(guard);
  if (!exact) throw new TypeError('toolguard/openai-agents: guardTool needs a guardrail made by toolguardGuardrail()');
  const invoke = tool.invoke;
  return {
    ...tool,
    outputGuardrails: [...(tool.outputGuardrails ?? []), guard],
    invoke: (runContext, input, details) => {
      const id = details?.toolCall?.callId;
      const rewritten = id === undefined ? null : exact.calls.start(exact.engine, id, tool.name, input);
      return invoke(runContext, rewritten ?? input, details);
    },
  };
}
