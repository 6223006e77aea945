// Cline (cline/cline), three guards:
// - src/core/task/loop-detection.ts: signature = JSON.stringify(params,
//   sortedKeysWithoutTaskProgress) (a replacer *array*, so nested objects keep
//   only those keys too); consecutive identical name+signature counted from 1;
//   soft warning when the count is exactly 3, hard escalation (mistake limit →
//   ask the user) exactly at 5 — never again after that in the same run.
// - the mistake gate: consecutiveMistakeCount grows on a failed tool (read
//   error, diff failure, missing parameter: `isError` here; a shell command's
//   non-zero exit is not a mistake) and resets on a success; at
//   maxConsecutiveMistakes (3) the user is asked and the count starts over.
// - ReadFileToolHandler: reads keyed on path + mtime; from the 3rd read of an
//   unchanged file the content gets a [DUPLICATE READ] prefix. mtime here:
//   the file counts as changed when an edit/write tool call on that path
//   succeeded, or when a read shows other content than the last read of the
//   same range did (a change made through the shell).
import { READ_TOOLS, WRITE_TOOLS } from './common.mjs';

export const note = 'classic: loop detection 3/5, mistake limit 3, duplicate-read guard';
export const name = 'Cline';
export const SOFT = 3;
export const HARD = 5;
export const MAX_MISTAKES = 3;

function signature(args) {
  if (args === null || typeof args !== 'object') return JSON.stringify(args ?? {});
  const keys = Object.keys(args)
    .filter((k) => k !== 'task_progress')
    .sort();
  return JSON.stringify(args, keys);
}

export function create() {
  let lastName = null;
  let lastSig = null;
  let identical = 0;
  let mistakes = 0;
  const version = new Map();
  const reads = new Map();
  const seen = new Map();
  return {
    observe(call) {
      const alarms = [];
      const sig = signature(call.args);
      if (call.tool === lastName && sig === lastSig) identical += 1;
      else identical = 1;
      lastName = call.tool;
      lastSig = sig;
      if (identical === SOFT) alarms.push({ level: 'warn', reason: `identical call × ${identical}` });
      // The hard escalation sets the mistake count to the limit, which asks the user.
      const hard = identical === HARD;
      const readArg = READ_TOOLS[call.tool];
      if (readArg && !call.isError) {
        const path = call.args?.[readArg];
        const range = `${path}\0${call.args?.offset ?? ''}\0${call.args?.limit ?? ''}`;
        if (seen.has(range) && seen.get(range) !== call.output) version.set(path, (version.get(path) ?? 0) + 1);
        seen.set(range, call.output);
        const key = `${path}\0${version.get(path) ?? 0}`;
        const n = (reads.get(key) ?? 0) + 1;
        reads.set(key, n);
        if (n >= 3) alarms.push({ level: 'warn', reason: `[DUPLICATE READ] ${n} times` });
      }
      const writeArg = WRITE_TOOLS[call.tool];
      if (writeArg && !call.isError) {
        const path = call.args?.[writeArg];
        version.set(path, (version.get(path) ?? 0) + 1);
      }
      mistakes = call.isError ? mistakes + 1 : 0;
      if (hard) mistakes = MAX_MISTAKES;
      if (mistakes >= MAX_MISTAKES) {
        alarms.push({ level: 'ask', reason: hard ? `identical call × ${HARD}` : 'mistake_limit_reached' });
        mistakes = 0;
      }
      return alarms;
    },
    user() {
      mistakes = 0;
    },
  };
}
