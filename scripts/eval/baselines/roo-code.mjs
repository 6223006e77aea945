// Roo Code, src/core/tools/ToolRepetitionDetector.ts (RooCodeInc/Roo-Code):
// key = JSON.stringify({name, parameters: <params with sorted top-level keys>});
// the count starts at 0 for a new call and grows by one per identical
// consecutive call; at `count >= limit (3)` the call is not executed and the
// user is asked, and the detector resets (count 0, previous null). So the 4th
// identical call is blocked, then the 8th, … No reset on user messages.
export const note = 'ToolRepetitionDetector, limit 3';
export const name = 'Roo Code';
export const LIMIT = 3;

function serialize(call) {
  const params = call.args !== null && typeof call.args === 'object' && !Array.isArray(call.args) ? call.args : { value: call.args };
  const sorted = {};
  for (const k of Object.keys(params).sort()) sorted[k] = params[k];
  return JSON.stringify({ name: call.tool, parameters: sorted });
}

export function create() {
  let previous = null;
  let count = 0;
  return {
    observe(call) {
      const json = serialize(call);
      if (previous === json) count += 1;
      else {
        count = 0;
        previous = json;
      }
      if (LIMIT > 0 && count >= LIMIT) {
        count = 0;
        previous = null;
        return [{ level: 'block', reason: 'toolRepetitionLimitReached' }];
      }
      return [];
    },
    user() {},
  };
}
