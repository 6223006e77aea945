// The official DSH plugin itself: @deepseek-ai/dsh-repeat-tool-reminder
// (0.1.0-rc.8), its real `apply()` mounted on a minimal plugin context that
// records its listeners. Each call goes through its `tools/post-execute`
// listener (a reminder is an alarm); a user prompt goes through
// `agent/pre-step` with a user-sourced message, which resets the chain.
import * as official from '@deepseek-ai/dsh-repeat-tool-reminder';

export const note = '@deepseek-ai/dsh-repeat-tool-reminder 0.1.0-rc.8, run for real, default config';
export const name = 'DSH plugin';

export function create(config = {}) {
  const listeners = new Map();
  const ctx = { on: (event, fn) => listeners.set(event, fn) };
  // The cast: apply() uses only `on` of the full cordis Context.
  official.apply(/** @type {import('@deepseek-ai/cordis').Context} */ (/** @type {unknown} */ (ctx)), official.Config(config));
  const agent = {};
  const post = listeners.get('tools/post-execute');
  const preStep = listeners.get('agent/pre-step');
  return {
    async observe(call) {
      const decision = await post(
        { agent, name: call.tool, arguments: call.args },
        { content: [{ type: 'text', text: call.output }] },
        async () => ({ kind: 'accept' }),
      );
      const notes = decision.additionalContexts ?? [];
      return notes.map((m) => ({ level: 'reminder', reason: m.source.summary }));
    },
    async user() {
      await preStep({ agent, messages: [{ source: { kind: 'user' } }] }, async () => undefined);
    },
  };
}
