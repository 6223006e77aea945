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
      const option = Object.entries(options).find(([name, o]) => o.type === 'string' && (flag === `--${name}` || flag === `-${o.short}`));
      if (!option) throw new UsageError(`${flag} takes no value`);
      // parseArgs reads a value that starts with '-' (`-j -1`, `--shard -1/4`) as the next option.
      const next = argv[argv.indexOf(flag) + 1];
      const dashed = next?.startsWith('-') && next !== '--' ? ` (${next} reads as an option: write --${option[0]}=${next})` : '';
      throw new UsageError(`${flag} needs a value${dashed}`);
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
