/**
 * Every config and input error: a plain `Error` whose message names the field
 * or rule, with `code: 'InvalidArg'` as the native addon's errors carry, so
 * callers can handle both engines alike.
 */
export function invalid(message: string): Error {
  return Object.assign(new Error(message), { code: 'InvalidArg' });
}

/** The steps of a config key path below the config: strings for keys, numbers for indices. */
export type ConfigPath = Array<string | number>;

/**
 * A config error as the native engine gives it (src/errors.rs): the message,
 * a stable `code` (`TOOLGUARD_WRONG_TYPE`, `TOOLGUARD_OUT_OF_RANGE`,
 * `TOOLGUARD_UNKNOWN_KEY`, `TOOLGUARD_BAD_RULE`, `TOOLGUARD_TOO_DEEP`) and the
 * bad key's `path`, so no caller reads the message.
 */
export function configError(message: string, code: string, path: string | ConfigPath): Error {
  return Object.assign(new Error(message), { code, path: typeof path === 'string' ? pathOf(path) : path });
}

/** `config.loudFailure.rules[2].id` → `['loudFailure', 'rules', 2, 'id']`. */
export function pathOf(at: string): ConfigPath {
  const steps: ConfigPath = [];
  for (const m of at.replace(/^config/, '').matchAll(/\.([^.[\]]+)|\[(\d+)\]/g)) steps.push(m[2] === undefined ? m[1]! : Number(m[2]));
  return steps;
}

/** The `typeof`-like name the messages print: `null` and `array` told apart from `object`. */
export function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}
