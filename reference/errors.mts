/**
 * An error in the arguments of a call (not in a config or a saved state): a
 * plain `Error` whose message names the field, with `code: 'InvalidArg'` as
 * the native binding's own argument checks carry, so callers can handle both
 * engines alike.
 */
export function invalid(message: string): Error {
  return Object.assign(new Error(message), { code: 'InvalidArg' });
}

/** The steps of a config key path below the config: strings for keys, numbers for indices. */
export type ConfigPath = Array<string | number>;

/**
 * A config or state error as the native engine gives it (src/errors.rs): the
 * message, a stable `code` (`TOOLGUARD_WRONG_TYPE`, `TOOLGUARD_OUT_OF_RANGE`,
 * `TOOLGUARD_UNKNOWN_KEY`, `TOOLGUARD_BAD_RULE`, `TOOLGUARD_TOO_DEEP`,
 * `TOOLGUARD_BAD_STATE`) and the bad key's `path` in the argument it came
 * from, so no caller reads the message.
 */
export function configError(message: string, code: string, path: string | ConfigPath): Error {
  return Object.assign(new Error(message), { code, path: typeof path === 'string' ? pathOf(path) : path });
}

/** A saved state that no engine could have left: `key` is the bad member of the state. */
export function stateError(message: string, key: string): Error {
  return configError(message, 'TOOLGUARD_BAD_STATE', [key]);
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
