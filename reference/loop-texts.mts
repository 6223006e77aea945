/**
 * The texts the loop detectors look for in results, from the SAME data file
 * as the native engine (crates/toolguard-core/src/loop_texts.rs):
 * `rules/loops.json` — a tool's rejection said in words, a search's
 * "nothing found", a poll's "the job has ended". Matched ASCII
 * case-insensitively as plain text.
 */
import { createRequire } from 'node:module';

import { utf8Head } from './normalize.mjs';
import { trimLikeRust } from './whitespace.mjs';

/** Bytes of a result searched for a rejection phrase: a harness says it first. */
const REJECTION_HEAD = 1024;

interface Texts {
  rejections: string[];
  prefixes: string[];
  noResults: string[];
  jobDone: string[];
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
  const root = require('../../rules/loops.json') as unknown;
  texts = {
    rejections: list(root, ['rejections', 'phrases']).map(asciiLower),
    prefixes: list(root, ['rejections', 'prefixes']),
    noResults: list(root, ['noResults', 'lines']),
    jobDone: list(root, ['jobDone', 'phrases']).map(asciiLower),
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

/** Whether a poll's result says the job it watches has ended. */
export function jobDone(text: string): boolean {
  const lower = asciiLower(text);
  return textsOf().jobDone.some((phrase) => lower.includes(phrase));
}
