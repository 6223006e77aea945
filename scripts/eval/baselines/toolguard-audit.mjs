// toolguard as its CLI runs it: `toolguard audit --json` over the session
// files, with the audit's own defaults. An alarm is each entry of a session's
// `loops` list (the loop detectors: one entry per episode, placed
// at its first and its last alarm), else of its `reminders`, placed at the
// call it names (`callId`).
import { execFileSync } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '../../..');
const bin = join(root, 'bin/toolguard.mjs');

export const note = 'the `toolguard audit --json` CLI with its defaults; its loops list, else its reminders';
export const name = 'toolguard audit';

let reports = new Map();

/** One audit run over every session file (the CLI reads files, not single calls). */
export function prepare(sessions, { auditArgs = [] } = {}) {
  const out = execFileSync(
    process.execPath,
    [bin, 'audit', '--json', '--fail-on', 'none', '--format', 'trace', ...auditArgs, ...sessions.map((s) => s.file)],
    { cwd: root, encoding: 'utf8', maxBuffer: 256 << 20 },
  );
  reports = new Map(JSON.parse(out).sessions.map((r) => [resolve(root, r.file), r]));
}

/** Whether the audit reports a `loops` list (the loop detectors) at all. */
export const reportsLoops = () => [...reports.values()].some((r) => Array.isArray(r.loops));

export function replaySession(session, options) {
  if (!reports.has(resolve(session.file))) prepare([session], options);
  const report = reports.get(resolve(session.file));
  const index = new Map();
  for (const ev of session.events) if (ev.type === 'call') index.set(ev.call.callId, ev.call.index);
  const entries = report.loops ?? report.reminders ?? [];
  // A loop finding is one episode: alarmed where it was raised and, to its
  // end, at every call it went on; its last call (`lastCall`, a timeline
  // ordinal) is where the last alarm fell.
  const callIdAt = new Map((report.timeline?.calls ?? []).map((c) => [c.ordinal, c.callId]));
  const alarms = [];
  for (const e of entries) {
    const level = e.kind ?? 'reminder';
    const episode = e.firstCall;
    alarms.push({ index: index.get(e.callId), level, reason: e.summary ?? '', episode });
    const last = e.lastCall !== undefined ? callIdAt.get(e.lastCall) : undefined;
    if (last !== undefined && last !== e.callId) alarms.push({ index: index.get(last), level, reason: e.summary ?? '', episode });
  }
  return alarms.filter((a) => a.index !== undefined);
}
