// goose (block/goose), crates/goose/src/tool_monitor.rs, RepetitionInspector:
// - identical consecutive calls (name + parameters) beyond max_repetitions are
//   denied; max_repetitions comes from GOOSE_MAX_TOOL_REPETITIONS and is unset
//   (None) by default, so this check is off — re-stated as shipped.
// - PR #8994: a failing result records (tool, first 100 characters of the error
//   text); the same pair again grows a streak, another error restarts it, any
//   success clears it. Before a call: when the streak is >= 3 and the call is
//   to that tool, the call is denied and the streak starts over.
//   A failing result: the tool failed, or a shell command exited non-zero
//   (goose's shell tool reports a failed command as a tool error).
import { failed } from './common.mjs';

export const note = 'as shipped: repetition limit unset (off); repeated-error deny (PR #8994)';
export const name = 'goose';
export const MAX_CONSECUTIVE_ERROR_FINGERPRINTS = 3;

export function create({ maxRepetitions = null } = {}) {
  let lastCall = null;
  let repeat = 0;
  let errTool = null;
  let errText = null;
  let streak = 0;
  return {
    observe(call) {
      const alarms = [];
      const key = `${call.tool}\0${JSON.stringify(call.args)}`;
      if (maxRepetitions !== null) {
        if (lastCall === key) {
          repeat += 1;
          if (repeat > maxRepetitions) alarms.push({ level: 'deny', reason: 'REP-001 exceeded maximum repetitions' });
        } else repeat = 1;
      }
      lastCall = key;
      if (streak >= MAX_CONSECUTIVE_ERROR_FINGERPRINTS && call.tool === errTool) {
        alarms.push({ level: 'deny', reason: `REP-002 same error ${streak} consecutive times` });
        streak = 0;
      }
      if (failed(call)) {
        const fp = [...call.output].slice(0, 100).join('');
        if (errTool === call.tool && errText === fp) streak += 1;
        else {
          errTool = call.tool;
          errText = fp;
          streak = 1;
        }
      } else {
        errTool = null;
        errText = null;
        streak = 0;
      }
      return alarms;
    },
    user() {},
  };
}
