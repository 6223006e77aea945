// OpenHands V1 (the software-agent-sdk), openhands-sdk/openhands/sdk/
// conversation/stuck_detector.py, default StuckDetectionThresholds
// (action_observation 4, action_error 3, monologue 3, alternating_pattern 6),
// checked after every step over the last 20 events after the last user message:
// 1. the last 4 actions equal and the last 4 observations equal;
// 2. the last 3 actions equal and the last 3 observations are AgentErrorEvents
//    (a failed tool here);
// 4. the last 6 actions and observations alternate ([i] == [i + 2]).
// (3, monologue, and 5, context-window errors, look at events traces do not
// hold.) Unlike V0, an observation compares in full (its output too); an
// action compares tool, arguments and thought (traces carry no thought).
import { stableStringify } from './common.mjs';

export const note = 'V1 SDK StuckDetector, default thresholds (4, 3, 6); observations compare in full';
export const name = 'OpenHands V1';
const WINDOW_STEPS = 10; // 20 events: an action and an observation per step

export function create() {
  let history = [];
  return {
    observe(call) {
      history.push({
        action: `${call.tool}\0${stableStringify(call.args)}`,
        observation: `${call.isError ? 'error' : 'obs'}\0${call.tool}\0${call.output}`,
        error: !!call.isError,
      });
      const h = history.slice(-WINDOW_STEPS);
      const n = h.length;
      const last = (k) => h.slice(n - k);
      if (n >= 4) {
        const l4 = last(4);
        if (l4.every((s) => s.action === l4[0].action && s.observation === l4[0].observation))
          return [{ level: 'stuck', reason: 'action-observation loop' }];
      }
      if (n >= 3) {
        const l3 = last(3);
        if (l3.every((s) => s.action === l3[0].action && s.error)) return [{ level: 'stuck', reason: 'action-error loop' }];
      }
      if (n >= 6) {
        const s = last(6);
        if ([0, 1, 2, 3].every((i) => s[i].action === s[i + 2].action && s[i].observation === s[i + 2].observation))
          return [{ level: 'stuck', reason: 'alternating action-observation loop' }];
      }
      return [];
    },
    user() {
      history = [];
    },
  };
}
