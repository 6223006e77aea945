// The one config loader of the command line (`audit`, `hook`, `check-config`
// and any new subcommand): a GuardConfig file in JSON or YAML, errors naming
// the file and the line.

import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { extname } from 'node:path';
import type { GuardConfig } from 'toolguard';
import type * as Yaml from 'yaml';

/** A config file that cannot be read, parsed or used; the message names the file (and line when known). */
export class ConfigError extends Error {}

// `yaml` is loaded only for YAML files: the per-call hook reading a JSON config skips its ~10 ms.
let yamlModule: typeof Yaml | undefined;
const yaml = (): typeof Yaml => (yamlModule ??= createRequire(import.meta.url)('yaml') as typeof Yaml);

/** JSON by extension `.json`, YAML by `.yaml`/`.yml`; otherwise JSON when the text starts with `{`, else YAML. */
export function configSyntax(path: string, text: string): 'json' | 'yaml' {
  const ext = extname(path).toLowerCase();
  if (ext === '.json') return 'json';
  if (ext === '.yaml' || ext === '.yml') return 'yaml';
  return /^\s*\{/.test(text) ? 'json' : 'yaml';
}

/** 1-based line and column of a character offset. */
function position(text: string, offset: number): { line: number; col: number } {
  const before = text.slice(0, offset);
  const line = before.split('\n').length;
  return { line, col: offset - before.lastIndexOf('\n') };
}

/** Where V8's JSON.parse error points, as a character offset (its messages differ by version). */
function jsonErrorOffset(message: string, text: string): number | undefined {
  const at = /at position (\d+)/.exec(message);
  if (at) return Number(at[1]);
  if (/Unexpected end of JSON input/.test(message)) return text.length;
  // `Unexpected token 'X', ..."<10 characters before, the rest>"... is not valid JSON`
  const token = /^Unexpected token '([\s\S])', (\.\.\.)?"([\s\S]*)"(?:\.\.\.)? is not valid JSON$/.exec(message);
  if (!token) return undefined;
  if (!token[2]) return text.indexOf(token[1]!);
  const start = text.indexOf(token[3]!);
  return start < 0 ? undefined : start + 10;
}

function parseJson(path: string, text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    const message = (error as Error).message;
    const offset = jsonErrorOffset(message, text);
    const where = offset !== undefined && offset >= 0 ? `:${position(text, offset).line}` : '';
    // Without V8's context snippet (it may span lines: the line number says where).
    const reason = message.replace(/, (?:\.\.\.)?"[\s\S]*$/, '').replace(/ \(line \d+ column \d+\)$/, '');
    throw new ConfigError(`${path}${where}: not valid JSON: ${reason}`);
  }
}

function parseYaml(path: string, text: string): unknown {
  const doc = yaml().parseDocument(text, { uniqueKeys: true, prettyErrors: true });
  const error = doc.errors[0];
  if (error) {
    const line = error.linePos?.[0].line;
    const message = error.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '');
    throw new ConfigError(`${path}${line ? `:${line}` : ''}: not valid YAML: ${message}`);
  }
  return doc.toJS({ maxAliasCount: 100 });
}

/**
 * The 1-based line of the value at `keys` (object keys and array indices) in
 * a JSON or YAML text, when it can be found: engine errors name a config path
 * (`config.repeat.thresholds`), a person wants the line.
 */
export function lineOfPath(text: string, keys: (string | number)[]): number | undefined {
  try {
    // JSON is YAML (flow style) for this purpose: one position lookup for both.
    const doc = yaml().parseDocument(text, { keepSourceTokens: false });
    let node: unknown = doc.contents;
    let range: [number, number, number] | undefined | null = (node as { range?: [number, number, number] } | null)?.range;
    for (const key of keys) {
      const { isMap, isSeq, isScalar } = yaml();
      if (isMap(node)) {
        const pair = node.items.find((p) => isScalar(p.key) && String(p.key.value) === String(key));
        if (!pair) break;
        range = (pair.key as { range?: [number, number, number] }).range;
        node = pair.value;
      } else if (isSeq(node) && typeof key === 'number') {
        node = node.items[key];
        range = (node as { range?: [number, number, number] } | null)?.range;
      } else break;
    }
    return range ? position(text, range[0]).line : undefined;
  } catch {
    return undefined;
  }
}

/** Where an engine error points inside the config: a `config.a.b` path, or a rule id. */
function keysOfEngineError(message: string, value: unknown): (string | number)[] | undefined {
  const path = /\bconfig((?:\.[A-Za-z_$][\w$]*|\[\d+\])+)/.exec(message);
  if (path) {
    return [...path[1]!.matchAll(/\.([A-Za-z_$][\w$]*)|\[(\d+)\]/g)].map((m) => (m[1] !== undefined ? m[1] : Number(m[2])));
  }
  const rule = /\brule ([^\s:]+):/.exec(message);
  const rules = (value as { loudFailure?: { rules?: unknown } } | null)?.loudFailure?.rules;
  if (rule && Array.isArray(rules)) {
    const index = rules.findIndex((r) => r && typeof r === 'object' && (r as { id?: unknown }).id === rule[1]);
    if (index >= 0) return ['loudFailure', 'rules', index];
  }
  const repeat = /^repeat-tool-reminder: .*?\b(thresholds|argumentsPreviewChars)\b|^repeat-tool-reminder: invalid (threshold)/.exec(message);
  if (repeat) return ['repeat', repeat[1] ?? 'thresholds'];
  return undefined;
}

/** A parsed config file: the value, and what is needed to point at a line of it. */
export interface LoadedConfig {
  path: string;
  text: string;
  config: GuardConfig;
}

/** Read and parse a config file (JSON or YAML). The engine has not seen it yet: see {@link checkWithEngine}. */
export function readConfig(path: string): LoadedConfig {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new ConfigError(`cannot read config ${path}: ${(error as Error).message}`);
  }
  const value = configSyntax(path, text) === 'json' ? parseJson(path, text) : parseYaml(path, text);
  if (value === null || value === undefined) return { path, text, config: {} }; // an empty (or all-comment) file
  if (typeof value !== 'object' || Array.isArray(value)) {
    throw new ConfigError(`${path}: a config is a mapping {repeat?, loudFailure?} (got ${Array.isArray(value) ? 'a list' : typeof value})`);
  }
  return { path, text, config: value as GuardConfig };
}

/**
 * Run `build` (an engine or auditor construction on the config); an error it
 * throws becomes a {@link ConfigError} naming the file, and the line when the
 * message names a config path or rule id.
 */
export function checkWithEngine<T>(loaded: LoadedConfig, build: (config: GuardConfig) => T): T {
  try {
    return build(loaded.config);
  } catch (error) {
    const message = (error as Error).message;
    const keys = keysOfEngineError(message, loaded.config);
    const line = keys && lineOfPath(loaded.text, keys);
    throw new ConfigError(`${loaded.path}${line ? `:${line}` : ''}: ${message}`);
  }
}
