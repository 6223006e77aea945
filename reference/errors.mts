/**
 * Every config and input error: a plain `Error` whose message names the field
 * or rule, with `code: 'InvalidArg'` as the native addon's errors carry, so
 * callers can handle both engines alike.
 */
export function invalid(message: string): Error {
  return Object.assign(new Error(message), { code: 'InvalidArg' });
}

/** The `typeof`-like name the messages print: `null` and `array` told apart from `object`. */
export function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}
