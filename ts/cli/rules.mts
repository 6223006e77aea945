// `toolguard rules`: the active silent-failure rule table — the built-ins
// (rules/builtin.json) merged with a config's `loudFailure.rules` by id, as
// the engine merges them. The engine itself validates the config (one
// decoder); this file only lays the merged table out for reading.

import { createRequire } from 'node:module';
import { loadConfig } from './audit/run.mjs';
import { parseCommandLine, UsageError } from './args.mjs';

const require = createRequire(import.meta.url);

export interface TableRule {
  id: string;
  pattern: string;
  flags: string;
  action: 'error' | 'context' | 'off';
  when: 'success' | 'always';
  message: string;
  reason?: string;
  unless?: string;
  /** `builtin`, `config` (a new id) or `config (replaces built-in)`. */
  source: string;
}

export const RULES_HELP = `Usage: toolguard rules [--config guard.json|yaml] [--json]

Lists the active silent-failure rules: the built-in table merged with the
config's loudFailure.rules (a rule with a built-in's id replaces it in place,
new ids are appended), in the order the engine runs them.

  --config FILE   a guard config (JSON or YAML); - reads it from standard input
  --json          print the table as a JSON array
`;

/** The config value or `{}`; loadConfig has the engine validate it (its decoder names a bad key or rule). */
export function configValue(path: string | undefined): { loudFailure?: { rules?: Partial<TableRule>[] } } {
  if (path === undefined) return {};
  return JSON.parse(loadConfig(path)) as { loudFailure?: { rules?: Partial<TableRule>[] } };
}

/** Built-ins merged with the user rules by id (engine order). */
export function activeTable(userRules: readonly Partial<TableRule>[] = []): TableRule[] {
  const builtin = require('toolguard/rules/builtin.json') as TableRule[];
  const table: TableRule[] = builtin.map((r) => ({ ...r, flags: r.flags ?? '', when: r.when ?? 'success', source: 'builtin' }));
  for (const u of userRules) {
    const rule: TableRule = {
      id: String(u.id),
      pattern: String(u.pattern),
      flags: u.flags ?? '',
      action: u.action ?? 'error',
      when: u.when ?? 'success',
      message: String(u.message),
      ...(u.reason === undefined ? {} : { reason: u.reason }),
      ...(u.unless === undefined ? {} : { unless: u.unless }),
      source: 'config',
    };
    const at = table.findIndex((r) => r.id === rule.id && r.source === 'builtin');
    if (at >= 0) table[at] = { ...rule, source: 'config (replaces built-in)' };
    else table.push(rule);
  }
  return table;
}

/** The options of `toolguard rules` and `toolguard scan`, for parseArgs and shell completion. */
export const RULES_OPTIONS = {
  config: { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

interface Options {
  config?: string;
  json: boolean;
  help: boolean;
}

/** `--config FILE`, `--json`, `--help` (node:util parseArgs); positionals go to `positional`. */
export function parseCommonArgs(argv: string[], positional: (arg: string) => void): Options {
  const { values, positionals } = parseCommandLine(argv, RULES_OPTIONS);
  positionals.forEach(positional);
  return { config: values.config, json: values.json ?? false, help: values.help ?? false };
}

/** Run `toolguard rules`; returns the exit code. */
export function rules(argv: string[]): number {
  let table: TableRule[];
  let options: Options;
  try {
    options = parseCommonArgs(argv, (arg) => {
      throw new UsageError(`unexpected argument ${arg}`);
    });
    if (options.help) {
      process.stdout.write(RULES_HELP);
      return 0;
    }
    table = activeTable(configValue(options.config).loudFailure?.rules ?? []);
  } catch (e) {
    process.stderr.write(`toolguard rules: ${(e as Error).message}\n${e instanceof UsageError ? "Try 'toolguard rules --help'.\n" : ''}`);
    return 2;
  }
  if (options.json) {
    process.stdout.write(`${JSON.stringify(table, null, 2)}\n`);
    return 0;
  }
  const idWidth = Math.max(2, ...table.map((r) => r.id.length));
  const lines = [`${'ID'.padEnd(idWidth)}  ACTION   WHEN     SOURCE    MESSAGE`];
  for (const r of table) {
    const source = r.source === 'builtin' ? 'built-in' : r.source === 'config' ? 'config' : 'config*';
    lines.push(`${r.id.padEnd(idWidth)}  ${r.action.padEnd(7)}  ${r.when.padEnd(7)}  ${source.padEnd(8)}  ${r.message}`);
  }
  const replaced = table.filter((r) => r.source !== 'builtin' && r.source !== 'config').length;
  lines.push(
    '',
    `${table.length} rules (${table.filter((r) => r.source === 'builtin').length} built-in, ` +
      `${table.filter((r) => r.source === 'config').length} from the config, ${replaced} built-in replaced by the config: config*)`,
  );
  process.stdout.write(`${lines.join('\n')}\n`);
  return 0;
}
