// OpenClaw, src/agents/tool-loop-detection.ts (openclaw/openclaw), with
// `tools.loopDetection.enabled: true` (it is off by default) and the default
// thresholds: history 30, warning 10, critical 20, global breaker 30.
// Before a call, detectToolCallLoop() looks at the recorded history (tool,
// args hash, result hash): global breaker, ping-pong critical/warning, generic
// critical (same call with the same outcome 20 times in the window, other
// calls in between skipped) and generic warning (same call 10 times in the
// window). After the call, its outcome hash is recorded (errors as
// `error:<hash of the text>`, otherwise the hash of {details, text}).
// Known poll tools (command_status, process poll/log) are not in the corpus's
// tool styles, so the poll detector never applies. A user prompt starts a new
// run (history is scoped per run).
import { sha256, stableStringify } from './common.mjs';

export const note = 'loop detection switched on (it is off by default), default thresholds';
export const name = 'OpenClaw';
export const HISTORY = 30;
export const WARNING = 10;
export const CRITICAL = 20;
export const GLOBAL = 30;

const hashCall = (call) => `${call.tool}:${sha256(stableStringify(call.args))}`;
const hashOutcome = (call) =>
  call.isError ? `error:${sha256(stableStringify(call.output))}` : sha256(stableStringify({ details: {}, text: call.output.trim() }));

function noProgressStreak(history, tool, argsHash) {
  let streak = 0;
  let latest;
  for (let i = history.length - 1; i >= 0; i--) {
    const r = history[i];
    if (r.tool !== tool || r.argsHash !== argsHash || !r.resultHash) continue;
    if (!latest) {
      latest = r.resultHash;
      streak = 1;
      continue;
    }
    if (r.resultHash !== latest) break;
    streak += 1;
  }
  return streak;
}

function pingPong(history, current) {
  const last = history.at(-1);
  if (!last) return { count: 0, noProgress: false };
  let other;
  for (let i = history.length - 2; i >= 0; i--) {
    if (history[i].argsHash !== last.argsHash) {
      other = history[i].argsHash;
      break;
    }
  }
  if (!other) return { count: 0, noProgress: false };
  let tail = 0;
  for (let i = history.length - 1; i >= 0; i--) {
    const expected = tail % 2 === 0 ? last.argsHash : other;
    if (history[i].argsHash !== expected) break;
    tail += 1;
  }
  if (tail < 2 || current !== other) return { count: 0, noProgress: false };
  let a, b;
  let noProgress = true;
  for (let i = history.length - tail; i < history.length; i++) {
    const r = history[i];
    if (!r.resultHash) {
      noProgress = false;
      break;
    }
    if (r.argsHash === last.argsHash) {
      if (!a) a = r.resultHash;
      else if (a !== r.resultHash) {
        noProgress = false;
        break;
      }
    } else if (r.argsHash === other) {
      if (!b) b = r.resultHash;
      else if (b !== r.resultHash) {
        noProgress = false;
        break;
      }
    } else {
      noProgress = false;
      break;
    }
  }
  if (!a || !b) noProgress = false;
  return { count: tail + 1, noProgress };
}

export function create() {
  let history = [];
  return {
    observe(call) {
      const argsHash = hashCall(call);
      const streak = noProgressStreak(history, call.tool, argsHash);
      const pp = pingPong(history, argsHash);
      let alarm = null;
      if (streak >= GLOBAL) alarm = { level: 'critical', reason: `global circuit breaker × ${streak}` };
      else if (pp.count >= CRITICAL && pp.noProgress) alarm = { level: 'critical', reason: `ping-pong × ${pp.count}` };
      else if (pp.count >= WARNING) alarm = { level: 'warning', reason: `ping-pong × ${pp.count}` };
      else if (streak >= CRITICAL) alarm = { level: 'critical', reason: `generic repeat × ${streak}` };
      else {
        const recent = history.filter((h) => h.tool === call.tool && h.argsHash === argsHash).length;
        if (recent >= WARNING) alarm = { level: 'warning', reason: `generic repeat × ${recent}` };
      }
      history.push({ tool: call.tool, argsHash, resultHash: hashOutcome(call) });
      if (history.length > HISTORY) history.splice(0, history.length - HISTORY);
      return alarm ? [alarm] : [];
    },
    user() {
      history = [];
    },
  };
}
