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
 * @module toolguard/openai-agents
 */
import { defineToolOutputGuardrail, type ToolOutputGuardrailDefinition } from '@openai/agents';
import { GuardEngine } from 'toolguard';
import {
  type AdapterOptions,
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

function outputText(output: unknown): string {
  return typeof output === 'string' ? output : (JSON.stringify(output) ?? '');
}

/** The guardrail; one engine serves every tool it is attached to. */
export function toolguardGuardrail(options: OpenAIAgentsGuardOptions = {}): ToolOutputGuardrailDefinition {
  const engine = new GuardEngine(engineConfig(options.engine));
  const replace = (options.notices ?? 'replace') === 'replace';

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

  return defineToolOutputGuardrail({
    name: options.name ?? 'toolguard',
    run: async ({ context, agent, toolCall, output }) => {
      let verdict: GuardVerdict | null = null;
      try {
        verdict = engine.observe(
          { agentId: idOf(context, agent.name), name: toolCall.name, argumentsJson: toolCall.arguments },
          resultOf(output),
        );
      } catch (error) {
        failOpen('toolguard/openai-agents', error);
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
}
