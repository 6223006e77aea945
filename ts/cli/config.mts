// The one config loader of the command line (`audit`, `hook`, `check-config`,
// `mcp` and any new subcommand): a GuardConfig file in JSON or YAML, read and
// checked in Rust (crates/toolguard-hook, through the addon) as the native
// hook reads it. Its errors are data: `code`, the bad key's `path`, `file`,
// `line`; the message is built from them there, never read back here.

import { closeSync, openSync, readSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { GuardConfig } from 'toolguard';
import { native, nativeFailure } from '../native.mjs';

/** What a config error carries besides its message (copied from the addon's error). */
export interface ConfigErrorData {
  /** A stable name: `TOOLGUARD_UNKNOWN_KEY`, `TOOLGUARD_CONFIG_SYNTAX`, … */
  code?: string;
  /** The bad key's path below the config (`['repeat', 'treshold']`); `[]`: the file as a whole. */
  path?: (string | number)[];
  /** For an unknown key: the keys its section accepts. */
  expected?: string[];
  file?: string;
  line?: number;
}

/** A config file that cannot be read, parsed or used; the message names the file (and line when known). */
export class ConfigError extends Error implements ConfigErrorData {
  code?: string;
  path?: (string | number)[];
  expected?: string[];
  file?: string;
  line?: number;

  constructor(message: string, data: ConfigErrorData = {}) {
    super(message);
    Object.assign(this, data);
  }

  /** A config error from an error the addon or an engine threw, keeping its data. */
  static from(error: unknown, message = error instanceof Error ? error.message : String(error)): ConfigError {
    const { code, path, expected, file, line } = (error ?? {}) as ConfigErrorData;
    return new ConfigError(message, { code, path, expected, file, line });
  }
}

/** A parsed config file. */
export interface LoadedConfig {
  path: string;
  config: GuardConfig;
}

/** The config path that stands for standard input (`check-config -`, `rules --config -`). */
export const CONFIG_STDIN = '-';

/** How errors and reports name a config read from standard input. */
const STDIN_NAME = '(stdin)';

/**
 * Read, parse and check a config file (JSON or YAML) as `new GuardEngine()`
 * would; `-` reads it from standard input, bounded as a file is (a caller
 * whose stdin holds something else refuses `-` first). Without the native
 * binary (the pure-TypeScript fallback) only JSON is read: a second YAML
 * parser in JavaScript would be the duplicate this loader exists to remove,
 * and platforms without a binary are rare.
 */
export function readConfig(path: string): LoadedConfig {
  const addon = native();
  const stdin = path === CONFIG_STDIN;
  const name = stdin ? STDIN_NAME : path;
  if (addon && !stdin) {
    try {
      return { path, config: addon.__loadConfigFile(path) };
    } catch (error) {
      throw ConfigError.from(error);
    }
  }
  let bytes: Buffer;
  try {
    bytes = stdin ? readBounded(0, configFileBytes()) : readFileBounded(path, configFileBytes());
  } catch (error) {
    throw new ConfigError(`cannot read config ${name}: ${(error as Error).message}`, {
      code: 'TOOLGUARD_CONFIG_UNREADABLE',
      path: [],
      file: name,
    });
  }
  if (addon) {
    // The same parser and checks as a file's (the limit included), in Rust.
    try {
      return { path: name, config: addon.__loadConfigBytes(name, bytes) };
    } catch (error) {
      throw ConfigError.from(error);
    }
  }
  if (bytes.length > configFileBytes()) {
    throw new ConfigError(`config ${name} is larger than ${configFileBytes()} bytes`, {
      code: 'TOOLGUARD_CONFIG_TOO_LARGE',
      path: [],
      file: name,
    });
  }
  // A byte order mark some editors write is not part of the first key (as in Rust).
  const bom = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  const text = bytes.toString('utf8', bom);
  let value: unknown;
  try {
    value = text.trim() ? JSON.parse(text) : null;
  } catch (error) {
    const yaml = /\.ya?ml$/i.test(path) ? '; YAML configs need the native binary, which could not be loaded here' : '';
    throw new ConfigError(`${name}: not valid JSON${yaml}: ${(error as Error).message} (${nativeFailure()})`, {
      code: 'TOOLGUARD_CONFIG_SYNTAX',
      path: [],
      file: name,
    });
  }
  if (value === null) return { path: name, config: {} };
  if (typeof value !== 'object' || Array.isArray(value)) {
    throw new ConfigError(
      `${name}: a config is a mapping {repeat?, loudFailure?, loops?, exactMode?} (got ${Array.isArray(value) ? 'a list' : typeof value})`,
      { code: 'TOOLGUARD_WRONG_TYPE', path: [], file: name },
    );
  }
  return { path: name, config: value as GuardConfig };
}

/** The largest config file read: the one limit in rules/limits.json, which the Rust loader reads too. */
function configFileBytes(): number {
  return (createRequire(import.meta.url)('../../../rules/limits.json') as { configFileBytes: number }).configFileBytes;
}

function readFileBounded(path: string, limit: number): Buffer {
  const fd = openSync(path, 'r');
  try {
    return readBounded(fd, limit);
  } finally {
    closeSync(fd);
  }
}

/**
 * At most `limit + 1` bytes of `fd` (more: too large), so a device
 * (`/dev/zero`) or a huge log given by mistake is refused instead of read whole.
 */
function readBounded(fd: number, limit: number): Buffer {
  const chunks: Buffer[] = [];
  let total = 0;
  while (total <= limit) {
    const chunk = Buffer.allocUnsafe(Math.min(64 * 1024, limit + 1 - total));
    let n: number;
    try {
      n = readSync(fd, chunk, 0, chunk.length, null);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EOF') break; // Windows, at the end of a pipe
      if (code !== 'EAGAIN') throw error;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 5); // a non-blocking pipe with nothing yet
      continue;
    }
    if (n === 0) break;
    chunks.push(chunk.subarray(0, n));
    total += n;
  }
  return Buffer.concat(chunks, total);
}

/**
 * Run `build` (an engine or auditor construction on the config); an error
 * it throws becomes a {@link ConfigError} naming the file, with the error's
 * `code` and `path`. (With the addon, {@link readConfig} has already run the
 * same check and located a bad key's line.)
 */
export function checkWithEngine<T>(loaded: LoadedConfig, build: (config: GuardConfig) => T): T {
  try {
    return build(loaded.config);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const located = ConfigError.from(error, `${loaded.path}: ${message}`);
    located.file = loaded.path;
    throw located;
  }
}
