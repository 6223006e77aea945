/**
 * What the loop detectors say and what they read in words
 * (crates/toolguard-core/src/loops/texts.rs): the alarm's text (evidence,
 * reminder, advice) and a refusal's advice, word for word the native
 * engine's; and the phrases of the SAME data file as the native engine,
 * `rules/loops.json` — a tool's rejection said in words, a search's
 * "nothing found", a poll's "the job has ended", matched ASCII
 * case-insensitively as plain text.
 */
import { createRequire } from 'node:module';

import { utf8Head } from '../normalize.mjs';
import { classifyCall } from '../shell.mjs';
import type { LoopVerdict } from '../types.mjs';
import { trimLikeRust } from '../whitespace.mjs';
import { EVIDENCE_CALLS } from './config.mjs';
import type { About, Found } from './detect.mjs';
import type { Active } from './entry.mjs';
import { errorLine } from './errors.mjs';
import type { LoopKind } from './index.mjs';

export const LABELS: Record<LoopKind, string> = {
  repeat: 'repeat',
  cycle: 'cycle',
  'same-error': 'same error',
  're-read': 're-read',
  redo: 'redo',
};

/** The alarm for `found`, the newest step of `episode`, raised at a call of `tool` whose result is `text`. */
export function alarm(tool: string, found: Found, episode: Active, text: string, argumentsJson: string): LoopVerdict {
  const calls = listCalls(episode.firstOrdinal, found.calls, episode.calls);
  const count = episode.count;
  const first = episode.firstOrdinal;
  const over = found.spanMs !== undefined && found.spanMs >= 60_000 ? ` over ${minutes(found.spanMs)}` : '';
  let evidence: string;
  let head: string;
  if (found.kind === 'repeat' && found.about === 'polls') {
    evidence = `calls ${calls}: the same ${tool} poll, nothing new each time${over}`;
    head = `${tool} polled the same job ${count} times in a row and showed nothing new each time${over} (calls ${calls}).`;
  } else if (found.kind === 'repeat' && found.about === 'ended-job') {
    evidence = `calls ${calls}: the same ${tool} poll of a job that has ended, the same result each time`;
    head = `${tool} polled a job that has already ended ${count} times in a row and got the same result each time (calls ${calls}).`;
  } else if (found.kind === 'repeat') {
    evidence = `calls ${calls}: the same ${tool} call, the same result each time`;
    head = `${tool} was called ${count} times in a row with the same arguments and returned the same result each time (calls ${calls}).`;
  } else if (found.kind === 'cycle' && found.about === 'polls') {
    evidence = `calls ${calls}: a block of ${found.period} polls repeated with nothing new, ${count} rounds${over}`;
    head = `the last ${episode.calls} calls (calls ${calls}) poll the same job in the same block of ${found.period} calls and show nothing new each round${over}; this is round ${count}.`;
  } else if (found.kind === 'cycle') {
    evidence = `calls ${calls}: a block of ${found.period} calls repeated with the same results, ${count} rounds`;
    head = `the last ${episode.calls} calls (calls ${calls}) repeat the same block of ${found.period} calls with the same results every round; this is round ${count}.`;
  } else if (found.kind === 'same-error') {
    const error = errorLine(text);
    const line = error === undefined ? '' : excerpt(error);
    evidence = `calls ${calls}: ${tool} failed with the same error each time: ${line}`;
    const how =
      found.distinct === 1
        ? 'the same call each time'
        : found.distinct !== undefined && found.distinct < found.count
          ? `with ${found.distinct} different sets of arguments`
          : 'each time with other arguments';
    const row = found.scattered === true ? ', whatever was tried in between,' : ' in a row';
    head = `${tool} failed ${count} times${row} with the same error, ${how} (calls ${calls}): ${line}`;
  } else if (found.kind === 'redo' && found.about === 'undo') {
    const what = restored(tool, argumentsJson);
    const [before, failed] = found.echo ?? [0, 0];
    evidence = `calls ${calls}: the same ${tool} restore of ${what}, attempts in between; call #${failed} failed as call #${before} had`;
    head = `${tool} restored ${what} the same way ${count} times since call #${first} (calls ${calls}), each time undoing the changes made since, and the attempts in between end as before: call #${failed} failed exactly as call #${before} had.`;
  } else if (found.kind === 'redo') {
    evidence = `calls ${calls}: the same ${tool} change made again with the same result, only looks in between`;
    head = `${tool} made the same change ${count} times since call #${first} with the same result each time, with nothing but looking in between (calls ${calls}).`;
  } else if (found.about === 'reruns' && found.scattered === true) {
    evidence = `calls ${calls}: the same ${tool} run failed the same way after the same steps as before`;
    head = `${tool} ran the same command ${count} times since call #${first} and it failed the same way each time, after the same steps as the time before (calls ${calls}).`;
  } else if (found.about === 'reruns') {
    evidence = `calls ${calls}: the same ${tool} run failed the same way each time, other calls in between`;
    head = `${tool} ran the same command ${count} times since call #${first} and it failed the same way each time, whatever was done in between (calls ${calls}).`;
  } else {
    evidence = `calls ${calls}: the same ${tool} call returned the same result, other calls in between`;
    head = `${tool} was called with the same arguments ${count} times since call #${first} and returned the same result each time (calls ${calls}).`;
  }
  const reminders = episode.reminders;
  // A loop that goes on after its first reminder hears it again, and louder.
  const lead =
    reminders > 1
      ? `[toolguard] Loop detected (reminder ${reminders} for this loop, which began at call #${first}):`
      : '[toolguard] Loop detected:';
  return {
    kind: found.kind,
    tool,
    count,
    period: found.period,
    calls: found.calls.slice(-EVIDENCE_CALLS),
    first,
    last: episode.lastOrdinal,
    evidence,
    text: `${lead} ${head} ${advice(found.kind, found.transient, found.about)}`,
    summary: `${tool}: ${LABELS[found.kind]} × ${count}`,
    reminders,
  };
}

export function advice(kind: LoopKind, transient: boolean, about: About): string {
  if (transient) {
    return 'The service is rate-limiting or temporarily unavailable: wait before the next attempt (back off, and longer each time) or check its status instead of retrying at once.';
  }
  switch (about) {
    case 'polls':
      return 'The job may still be running and simply quiet: wait longer before the next check (back off, and longer each time), or look at it another way (its log file, its process, what it writes); if it has hung, stop it and say so.';
    case 'ended-job':
      return 'The job has ended, so polling it again will return the same thing: read its final output and exit status and act on them.';
    case 'reruns':
      return 'What changed in between has not changed the failure: find out why it fails (read the error, check your assumption) before running it again.';
    case 'undo':
      return 'Undoing the change and trying again has not got you further: find out why the attempts fail (read the error, check your assumption) before the next one, or try another approach.';
    case 'calls':
      break;
  }
  switch (kind) {
    case 'repeat':
      return 'Calling it again will return the same thing. Read the result you already have, then change something (the arguments, the approach), or stop and report what blocks you.';
    case 'cycle':
      return 'Nothing changes between rounds. Stop the cycle: find out why the failing step keeps failing (read the error, check your assumption) and do something different.';
    case 'same-error':
      return 'Changing the arguments does not reach the cause. Diagnose the error itself (read it, check what it names) before trying again.';
    case 're-read':
      return 'The content has not changed since you last read it. Use what you already have instead of fetching it again.';
    case 'redo':
      return 'Doing it again has not changed anything: check whether it took effect, and why not, before doing it again; try another way.';
  }
}

/** What a restore writes, for an undo alarm: the first two paths the call writes (by the shell model), or "the same files". */
function restored(tool: string, argumentsJson: string): string {
  const paths = classifyCall(tool, argumentsJson).writes.slice(0, 2).map(excerpt);
  return paths.length === 0 ? 'the same files' : paths.join(' and ');
}

/** `12 min`, `2 h 5 min`. */
function minutes(ms: number): string {
  const m = Math.floor(ms / 60_000);
  if (m < 60) return `${m} min`;
  return m % 60 === 0 ? `${m / 60} h` : `${Math.floor(m / 60)} h ${m % 60} min`;
}

/** `#3, #4, #5`: the episode's latest calls, after its first call and `…` when the episode holds more than they show. */
function listCalls(first: number, calls: number[], total: number): string {
  const shown = calls.slice(Math.max(0, calls.length - EVIDENCE_CALLS));
  const out = shown.map((c) => `#${c}`);
  if (total > shown.length && shown[0] !== first) out.unshift(`#${first}`, '…');
  return out.join(', ');
}

/** The line trimmed, cut after 160 characters (Unicode scalar values) with `…`. */
function excerpt(line: string): string {
  const trimmed = trimLikeRust(line);
  const chars = Array.from(trimmed);
  return chars.length > 160 ? `${chars.slice(0, 160).join('')}…` : trimmed;
}

/** Bytes of a result searched for a rejection phrase: a harness says it first. */
const REJECTION_HEAD = 1024;

interface Texts {
  rejections: string[];
  prefixes: string[];
  noResults: string[];
  jobDone: string[];
  notRun: string[];
}

let texts: Texts | undefined;

/** Non-empty strings at `path` of the file, lowercased (ASCII); none when the file lacks them, as natively. */
function list(root: unknown, path: string[]): string[] {
  let v: unknown = root;
  for (const key of path) v = v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>)[key] : undefined;
  return Array.isArray(v) ? v.filter((s): s is string => typeof s === 'string' && s !== '') : [];
}

function textsOf(): Texts {
  if (texts !== undefined) return texts;
  const require = createRequire(import.meta.url);
  const root = require('../../../rules/loops.json') as unknown;
  texts = {
    rejections: list(root, ['rejections', 'phrases']).map(asciiLower),
    prefixes: list(root, ['rejections', 'prefixes']),
    noResults: list(root, ['noResults', 'lines']),
    jobDone: list(root, ['jobDone', 'phrases']).map(asciiLower),
    notRun: list(root, ['notRun', 'phrases']).map(asciiLower),
  };
  return texts;
}

/** ASCII lowercase only (a full `toLowerCase` folds non-ASCII letters onto ASCII ones: `K` Kelvin → `k`). */
export const asciiLower = (s: string) => s.replace(/[A-Z]+/g, (c) => c.toLowerCase());

const sameAscii = (a: string, b: string) => a.length === b.length && asciiLower(a) === asciiLower(b);

/** Whether a result says the tool refused the call (`shell`: a shell's output is its program's: only the phrases count). */
export function isRejection(text: string, shell: boolean): boolean {
  const t = textsOf();
  // Rust `str::trim_start` (Unicode White_Space).
  const start = text.replace(/^[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+/, '');
  if (!shell && t.prefixes.some((p) => sameAscii(start.slice(0, p.length), p))) return true;
  const head = asciiLower(utf8Head(text, REJECTION_HEAD));
  return t.rejections.some((phrase) => head.includes(phrase));
}

/** The line of a result that holds a rejection phrase (the refusal is the error, whatever detail follows); a bare prefix is no such line. */
export function rejectionLine(text: string): string | undefined {
  const t = textsOf();
  // ASCII lowercasing keeps every UTF-16 index, so a match's index is the text's.
  const head = asciiLower(utf8Head(text, REJECTION_HEAD));
  let at = -1;
  for (const phrase of t.rejections) {
    const i = head.indexOf(phrase);
    if (i >= 0 && (at < 0 || i < at)) at = i;
  }
  if (at < 0) return undefined;
  const from = text.lastIndexOf('\n', at) + 1;
  const nl = text.indexOf('\n', at);
  return text.slice(from, nl < 0 ? text.length : nl).replace(/\r+$/, '');
}

/** A search's result says it found nothing: every line is empty, a frame (`isFrame`), or a "no matches" line. */
export function foundNothing(text: string, isFrame: (line: string) => boolean): boolean {
  const t = textsOf();
  const lines = text === '' ? [] : text.split('\n');
  if (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  return lines
    .map((l) => trimLikeRust(l.endsWith('\r') ? l.slice(0, -1) : l))
    .every((l) => l === '' || isFrame(l) || t.noResults.some((n) => sameAscii(l, n)));
}

/** Whether a result says the harness never ran the call (a parallel call cancelled because another failed; texts.rs `not_run`). */
export function notRun(text: string): boolean {
  const head = asciiLower(utf8Head(text, 256));
  return textsOf().notRun.some((phrase) => head.includes(phrase));
}

/** Whether a poll's result says the job it watches has ended. */
export function jobDone(text: string): boolean {
  const lower = asciiLower(text);
  return textsOf().jobDone.some((phrase) => lower.includes(phrase));
}
