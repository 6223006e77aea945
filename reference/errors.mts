/**
 * Every config and input error: a plain `Error` whose message names the field
 * or rule, with `code: 'InvalidArg'` as the native addon's errors carry, so
 * callers can handle both engines alike.
 */
export function invalid(message: string): Error {
  return Object.assign(new Error(message), { code: 'InvalidArg' });
}
