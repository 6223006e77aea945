// toolguard itself, through the real engine (the package root: native addon,
// or the reference engine where there is none). An alarm is the verdict's
// `loop` member when it has one (the loop detectors), else its
// `reminder` (today's DSH-exact repeat reminder).
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const { GuardEngine } = require('../../../main.js');

export const note =
  "the real engine with the loop detectors on (`loops: {}`, as every toolguard product runs it); a verdict's loop member, else its reminder";
export const name = 'toolguard';

export function create(config = { loops: {} }) {
  const engine = new GuardEngine(config);
  const agentId = 'main';
  return {
    observe(call) {
      const content = [{ type: 'text', text: call.rawOutput }];
      if (call.exitCode) content.push({ type: 'text', text: `[exit code: ${call.exitCode}]` });
      const verdict = engine.observe({ agentId, name: call.tool, argumentsJson: call.argsJson }, { content, isError: call.isError });
      const loop = verdict?.loop;
      const alarm = loop ?? verdict?.reminder;
      if (!alarm) return [];
      return [
        { level: loop?.kind ?? 'reminder', reason: alarm.summary ?? '', ...(loop?.first !== undefined ? { episode: loop.first } : {}) },
      ];
    },
    user() {
      engine.reset(agentId);
    },
  };
}
