// `toolguard check-config FILE...`: load a guard config exactly as `audit`,
// the hook and the plugins will (same loader, same engine validation), and
// say so. A hook's stderr is hidden by Claude Code, so this is where a typo
// in a config shows.

import { GuardEngine } from 'toolguard';

import { parseCommandLine, UsageError } from './args.mjs';
import { CONFIG_STDIN, checkWithEngine, ConfigError, readConfig } from './config.mjs';
import { counted, WORDS } from './words.mjs';

export const CHECK_CONFIG_OPTIONS = { help: { type: 'boolean', short: 'h' } } as const;

export const CHECK_CONFIG_HELP = `Usage: toolguard check-config FILE...

Loads each guard config (JSON or YAML: {repeat?, loudFailure?, loops?, exactMode?})
with the loader and the engine validation that \`toolguard audit --config\`,
\`toolguard hook --config\` (TOOLGUARD_CONFIG) and GuardEngine use, and prints
what it holds, or the error naming the file, line and key. FILE - reads a
config from standard input (at most as large as a config file may be).

Exit codes: 0 every config is valid; 2 one is not, or a usage error (as for
audit, scan and mcp).
`;

/** The loop detectors as the hook, the adapters and audit run them: on unless `loops: false`. */
function describeLoops(loops: ReturnType<typeof readConfig>['config']['loops']): string {
  if (loops === false) return "loop detectors off (DSH's result-blind repeat reminder instead)";
  const options = typeof loops === 'object' && loops !== null ? loops : {};
  const deny = options.deny === true ? 2 : options.deny || undefined;
  const others = Object.keys(options).filter((key) => key !== 'deny');
  return `loop detectors on${deny ? `, deny after ${counted(deny, WORDS.alarm)}` : ''}${others.length ? ` (${others.join(', ')} set)` : deny ? '' : ' (defaults)'}`;
}

/** One line saying what a valid config sets. */
function describe(config: ReturnType<typeof readConfig>['config']): string {
  const parts: string[] = [];
  const repeat = config.repeat ?? {};
  parts.push(`repeat thresholds [${(repeat.thresholds ?? [3, 5, 8]).join(', ')}]`);
  if (repeat.include?.length) parts.push(`include ${repeat.include.join(', ')}`);
  if (repeat.exclude?.length) parts.push(`exclude ${repeat.exclude.join(', ')}`);
  const rules = config.loudFailure?.rules ?? [];
  const off = rules.filter((r) => r.action === 'off').length;
  parts.push(`${rules.length - off} user rule${rules.length - off === 1 ? '' : 's'}${off ? `, ${off} switched off` : ''}`);
  if (config.loudFailure?.shellTools) parts.push(`shell tools ${config.loudFailure.shellTools.join(', ')}`);
  parts.push(describeLoops(config.loops));
  // Exact mode changes the commands the hook runs: a config that turns it on must say so.
  if (config.exactMode === true) parts.push('exact mode on (PreToolUse rewrites shell commands)');
  return parts.join(' · ');
}

export function checkConfig(argv: string[]): number {
  let files: string[];
  try {
    const { values, positionals } = parseCommandLine(argv, CHECK_CONFIG_OPTIONS);
    if (values.help) {
      process.stdout.write(CHECK_CONFIG_HELP);
      return 0;
    }
    if (positionals.length === 0) throw new UsageError('give the config file to check');
    // A second `-` would read what the first left: nothing, a config of defaults.
    if (positionals.filter((file) => file === CONFIG_STDIN).length > 1) throw new UsageError('give - (standard input) once');
    files = positionals;
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`toolguard check-config: ${error.message}\nTry 'toolguard check-config --help'.\n`);
    return 2;
  }
  let bad = 0;
  for (const file of files) {
    try {
      const loaded = readConfig(file);
      checkWithEngine(loaded, (config) => GuardEngine.withLoopsByDefault(config));
      process.stdout.write(`${loaded.path}: ok (${describe(loaded.config)})\n`);
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      process.stderr.write(`toolguard check-config: ${error.message}\n`);
      bad++;
    }
  }
  return bad ? 2 : 0;
}
