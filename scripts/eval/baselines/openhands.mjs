// OpenHands V0, openhands/controller/stuck.py (All-Hands-AI/OpenHands),
// StuckDetector.is_stuck, interactive mode (history after the last user
// message), run after every step:
// 1. the last 4 actions equal and the last 4 observations equal;
// 2. the last 3 actions equal and the last 3 observations are errors
//    (ErrorObservation: a failed tool here);
// 4. the last 6 steps alternate A,B,A,B,A,B with equal observations.
// (3, the monologue check, looks at agent messages, which traces do not hold.)
// Equality (_eq_no_pid): a command observation (CmdOutputObservation) compares
// only the command and the exit code, never the output; everything else
// compares in full. Shell-family calls (bash/Bash/shell/exec_command and
// write_stdin, OpenHands' is_input) are command actions; a running process
// (no exit code yet) has exit code -1 as in OpenHands.
import { SHELL_TOOLS, stableStringify } from './common.mjs';

export const note = 'V0 StuckDetector, interactive mode; command observations compare command + exit code';
export const name = 'OpenHands V0';

function step(call) {
  const action = `${call.tool}\0${stableStringify(call.args)}`;
  let observation;
  if (call.isError) observation = `error\0${call.output}`;
  else if (SHELL_TOOLS.has(call.tool)) {
    const command = call.tool === 'write_stdin' ? call.args.chars : JSON.stringify(call.args.command ?? call.args.cmd);
    observation = `cmd\0${command}\0${call.exitCode ?? -1}`;
  } else observation = `obs\0${call.tool}\0${call.output}`;
  return { action, observation, error: !!call.isError };
}

export function create() {
  let history = [];
  return {
    observe(call) {
      history.push(step(call));
      const h = history;
      const n = h.length;
      const last = (k) => h.slice(n - k);
      if (n >= 4) {
        const l4 = last(4);
        if (l4.every((s) => s.action === l4[0].action) && l4.every((s) => s.observation === l4[0].observation)) {
          return [{ level: 'stuck', reason: 'action-observation loop' }];
        }
        const l3 = last(3);
        if (l3.every((s) => s.action === l3[0].action) && l3.every((s) => s.error)) {
          return [{ level: 'stuck', reason: 'action-error loop' }];
        }
      }
      if (n >= 6) {
        const s = last(6);
        const eq = (i, j) => s[i].action === s[j].action && s[i].observation === s[j].observation;
        if (eq(0, 2) && eq(0, 4) && eq(1, 3) && eq(1, 5)) return [{ level: 'stuck', reason: 'action-observation pattern' }];
      }
      return [];
    },
    user() {
      history = [];
    },
  };
}
