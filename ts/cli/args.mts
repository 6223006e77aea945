// Command-line parsing for every subcommand: node:util's parseArgs (strict),
// with its errors turned into short usage messages.

import { parseArgs, type ParseArgsConfig } from 'node:util';

/** Raised for exit code 2: a bad command line, config or input path. */
export class UsageError extends Error {}

type Options = NonNullable<ParseArgsConfig['options']>;
type Parsed<O extends Options> = ReturnType<typeof parseArgs<{ args: string[]; options: O; allowPositionals: true; strict: true }>>;

/** Parse `argv` against `options` (positionals allowed); throws {@link UsageError}. */
export function parseCommandLine<O extends Options>(argv: readonly string[], options: O): Parsed<O> {
  try {
    return parseArgs({ args: [...argv], options, allowPositionals: true, strict: true });
  } catch (error) {
    const e = error as NodeJS.ErrnoException;
    const flag = /'(-[^' ]+)/.exec(e.message)?.[1] ?? '';
    if (e.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') throw new UsageError(`unknown option ${flag}`);
    if (e.code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') {
      const takesValue = Object.entries(options).some(
        ([name, o]) => o.type === 'string' && (flag === `--${name}` || flag === `-${o.short}`),
      );
      throw new UsageError(takesValue ? `${flag} needs a value` : `${flag} takes no value`);
    }
    throw new UsageError(e.message);
  }
}

/** The value of a choice option, checked against its allowed values. */
export function oneOf<T extends string>(flag: string, value: string | undefined, allowed: readonly T[], fallback: T): T {
  if (value === undefined) return fallback;
  if (!(allowed as readonly string[]).includes(value))
    throw new UsageError(`${flag} must be one of ${allowed.join(', ')} (got ${JSON.stringify(value)})`);
  return value as T;
}
