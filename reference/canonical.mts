/**
 * Canonical form of a call's arguments, exactly as the DSH agent loop and the
 * official `dsh-repeat-tool-reminder` plugin compute it: the loop's
 * `parseArguments` then `JSON.stringify` after a deep key sort. JavaScript's
 * own object rules (UTF-16 key order, integer-like keys first, `__proto__`,
 * number printing) shape the result; this file leaves them to the engine on
 * purpose, since reproducing them is the point.
 */
import { invalid, kindOf } from './errors.mjs';

/** The agent loop's `parseArguments`: empty text is `{}`, malformed JSON stays the raw string. */
export function parseArguments(raw: string): unknown {
  try {
    return raw ? JSON.parse(raw) : {};
  } catch {
    return raw;
  }
}

/** The official plugin's `sortJsonValue`: object keys sorted by `Array.prototype.sort`, arrays kept in order. */
export function sortJsonValue(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortJsonValue);
  if (value !== null && typeof value === 'object') {
    const record = value as Record<string, unknown>;
    const sorted: Record<string, unknown> = {};
    for (const key of Object.keys(record).sort()) sorted[key] = sortJsonValue(record[key]);
    return sorted;
  }
  return value;
}

/**
 * Canonical string of already-parsed arguments (a `JSON.parse` result). The
 * official code recurses and overflows the stack past a few thousand levels;
 * the native engine does not, so deep values take an iterative path that
 * writes the same text.
 */
export function canonicalizeValue(value: unknown): string {
  try {
    return JSON.stringify(sortJsonValue(value));
  } catch (error) {
    if (error instanceof RangeError) return stringifySortedIteratively(value);
    throw error;
  }
}

/** A canonical array index, which a JavaScript object lists first, in numeric order. */
function isArrayIndex(key: string): boolean {
  return /^(?:0|[1-9]\d*)$/.test(key) && Number(key) < 4294967295;
}

/**
 * The keys `JSON.stringify(sortJsonValue(record))` writes, in its order:
 * re-inserting the sorted keys puts array indices first (numeric order), and
 * assigning `__proto__` sets the prototype instead of a property, so it vanishes.
 */
function emittedKeys(record: Record<string, unknown>): string[] {
  const keys = Object.keys(record)
    .filter((key) => key !== '__proto__')
    .sort();
  const indices = keys.filter(isArrayIndex).sort((a, b) => Number(a) - Number(b));
  return [...indices, ...keys.filter((key) => !isArrayIndex(key))];
}

/** `JSON.stringify(sortJsonValue(value))` for a JSON value of any depth, with an explicit stack. */
export function stringifySortedIteratively(root: unknown): string {
  const out: string[] = [];
  // Work items: a value still to write, or literal punctuation.
  const work: Array<{ value: unknown } | string> = [{ value: root }];
  while (work.length > 0) {
    const item = work.pop()!;
    if (typeof item === 'string') {
      out.push(item);
      continue;
    }
    const { value } = item;
    if (Array.isArray(value)) {
      out.push('[');
      work.push(']');
      for (let i = value.length - 1; i >= 0; i--) {
        work.push({ value: value[i] });
        if (i > 0) work.push(',');
      }
    } else if (value !== null && typeof value === 'object') {
      const record = value as Record<string, unknown>;
      const keys = emittedKeys(record);
      out.push('{');
      work.push('}');
      for (let i = keys.length - 1; i >= 0; i--) {
        work.push({ value: record[keys[i]!] });
        work.push(`${JSON.stringify(keys[i])}:`);
        if (i > 0) work.push(',');
      }
    } else {
      out.push(JSON.stringify(value));
    }
  }
  return out.join('');
}

/** Canonical string of arguments given as JSON text (the native `canonicalize`). */
export function canonicalize(argumentsJson: string): string {
  if (typeof argumentsJson !== 'string') throw invalid(`toolguard: argumentsJson must be a string (got ${kindOf(argumentsJson)})`);
  return canonicalizeValue(parseArguments(argumentsJson));
}
