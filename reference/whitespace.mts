/**
 * Rust's `str::trim` (Unicode White_Space), which the native engine uses for
 * excerpts and marker lines. JavaScript's `String.prototype.trim` differs: it
 * also strips U+FEFF and keeps U+0085.
 */
const EDGES =
  /^[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+|[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+$/g;

export function trimLikeRust(text: string): string {
  return text.replace(EDGES, '');
}

/** Rust's `str::trim_start` (Unicode White_Space). */
export function trimStartLikeRust(text: string): string {
  return text.replace(/^[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+/, '');
}
