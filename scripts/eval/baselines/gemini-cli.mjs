// Gemini CLI, packages/core/src/services/loopDetectionService.ts
// (google-gemini/gemini-cli): key = sha256(`${name}:${JSON.stringify(args)}`)
// (key order matters), counted on consecutive ToolCallRequest events, checked
// before the call runs; `count >= TOOL_CALL_LOOP_THRESHOLD (5)` is a loop.
// Strike 1 injects a nudge and clearDetection() keeps the count, so the next
// identical request is strike 2 (halt the turn). reset() runs on each user
// prompt. Not re-stated: the content-chanting check (model text, not tool
// calls) and the LLM judge (needs a model; from turn 30 only).
import { sha256 } from './common.mjs';

export const note = 'identical-call counter only; its LLM judge (from turn 30) and chanting check need the model';
export const name = 'Gemini CLI';
export const TOOL_CALL_LOOP_THRESHOLD = 5;

export function create() {
  let lastKey = null;
  let count = 0;
  let strikes = 0;
  return {
    observe(call) {
      const key = sha256(`${call.tool}:${JSON.stringify(call.args)}`);
      if (key === lastKey) count += 1;
      else {
        lastKey = key;
        count = 1;
      }
      if (count < TOOL_CALL_LOOP_THRESHOLD) return [];
      strikes += 1;
      return [{ level: strikes === 1 ? 'nudge' : 'halt', reason: `identical call × ${count}` }];
    },
    user() {
      lastKey = null;
      count = 0;
      strikes = 0;
    },
  };
}
