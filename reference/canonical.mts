/**
 * Canonical form of a call's arguments, exactly as the DSH agent loop and the
 * official `dsh-repeat-tool-reminder` plugin compute it: the loop's
 * `parseArguments` then `JSON.stringify` after a deep key sort. JavaScript's
 * own object rules (UTF-16 key order, integer-like keys first, `__proto__`,
 * number printing) shape the result; this file leaves them to the engine on
 * purpose, since reproducing them is the point.
 */

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

/** Canonical string of already-parsed arguments. */
export function canonicalizeValue(value: unknown): string {
  return JSON.stringify(sortJsonValue(value));
}

/** Canonical string of arguments given as JSON text (the native `canonicalize`). */
export function canonicalize(argumentsJson: string): string {
  if (typeof argumentsJson !== 'string') throw new TypeError('argumentsJson must be a string');
  return canonicalizeValue(parseArguments(argumentsJson));
}
