// `toolguard` command line: a table of subcommands (one entry each; help and
// shell completion are generated from it) and the dispatch.

import { logFormats } from 'toolguard';
import { AUDIT_OPTIONS } from './audit/options.mjs';
import { audit, packageVersion } from './audit/run.mjs';
import { FAIL_ON, REPORTS } from './audit/types.mjs';
import { CHECK_CONFIG_OPTIONS, checkConfig } from './check-config.mjs';
import { COMPLETION_OPTIONS, completion, type CompletionSpec } from './completion.mjs';
import { HOOK_OPTIONS } from '../adapters/hooks.mjs';
import { rules, RULES_OPTIONS } from './rules.mjs';
import { scan } from './scan.mjs';
import { MCP_SDK, MCP_SDK_INSTALL, MCP_USAGE, McpUsageError, parseMcpArgs } from '../mcp/args.mjs';

export interface Command {
  /** The arguments after the command's name, for the usage line. */
  args: string;
  /** One line for `toolguard --help`. */
  summary: string;
  /** Runs the command; resolves to the exit code. Must answer `--help`. */
  run(argv: string[]): number | Promise<number>;
  /** Its parseArgs options and the values of its choice options (for completion). */
  options?: Record<string, { type: 'string' | 'boolean'; short?: string }>;
  choices?: Record<string, readonly string[]>;
}

export const COMMANDS: Record<string, Command> = {
  audit: {
    args: '[FILES or DIRS or -...]',
    summary:
      "find loops and silent failures in recorded agent sessions (no FILES: this machine's Claude Code/Codex histories, else the bundled sample)",
    run: audit,
    options: AUDIT_OPTIONS,
    choices: { report: REPORTS, format: logFormats(), 'fail-on': FAIL_ON },
  },
  hook: {
    args: '[--config FILE]',
    summary: 'Claude Code / Codex command hook: one hook event (JSON) on stdin',
    run: async (argv) => (await import('../adapters/hooks.mjs')).runHook(argv, 0, 1, 2),
    options: HOOK_OPTIONS,
  },
  mcp: {
    args: '[--config FILE] -- <command> [args...]',
    summary: 'run an MCP stdio server behind the guard: tools/call results carry reminders and failures',
    run: runMcp,
  },
  rules: {
    args: '[--config FILE] [--json]',
    summary: 'list the active silent-failure rules (built-ins merged with a config)',
    run: rules,
    options: RULES_OPTIONS,
  },
  scan: {
    args: '[FILE|-] [--config FILE] [--json]',
    summary: 'show which rule matches which line of one tool output',
    run: scan,
    options: RULES_OPTIONS,
  },
  'check-config': {
    args: 'FILE...',
    summary: 'validate a guard config (JSON or YAML) as the hook, the plugins and audit will load it',
    run: checkConfig,
    options: CHECK_CONFIG_OPTIONS,
  },
  completion: {
    args: 'bash|zsh|fish',
    summary: 'print a shell completion script, e.g. eval "$(toolguard completion bash)"',
    run: (argv) => completion(argv, spec()),
    options: COMPLETION_OPTIONS,
  },
};

export { MCP_SDK } from '../mcp/args.mjs';

/**
 * `toolguard mcp`: its arguments are read before the SDK is looked for, so
 * `--help` and a usage error answer without the optional peer dependency.
 */
async function runMcp(argv: string[]): Promise<number> {
  try {
    if (parseMcpArgs(argv) === 'help') {
      process.stdout.write(MCP_USAGE);
      return 0;
    }
  } catch (error) {
    if (!(error instanceof McpUsageError)) throw error;
    process.stderr.write(`toolguard mcp: ${error.message}\n\n${MCP_USAGE}`);
    return 2;
  }
  try {
    import.meta.resolve(`${MCP_SDK}/server/stdio.js`);
  } catch (error) {
    if ((error as { code?: unknown }).code !== 'ERR_MODULE_NOT_FOUND') throw error;
    process.stderr.write(
      `toolguard mcp: the MCP proxy needs the package ${MCP_SDK}, an optional peer dependency of toolguard that is not installed.\n` +
        `Install it beside toolguard: ${MCP_SDK_INSTALL}\n`,
    );
    return 2;
  }
  return (await import('../mcp/proxy.mjs')).runMcp(argv);
}

function spec(): CompletionSpec {
  return Object.entries(COMMANDS).map(([name, c]) => ({
    name,
    summary: c.summary,
    options: Object.keys(c.options ?? {}),
    choices: c.choices ?? {},
  }));
}

function help(): string {
  const width = Math.max(...Object.entries(COMMANDS).map(([name, c]) => name.length + c.args.length + 1));
  const rows = Object.entries(COMMANDS).map(([name, c]) => `  ${`${name} ${c.args}`.padEnd(width)}  ${c.summary}`);
  return `Usage: toolguard <command> [options]

Commands
${rows.join('\n')}

toolguard <command> --help   options of a command
toolguard --version
`;
}

export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command === undefined) {
    process.stderr.write(help());
    return 2;
  }
  if (command === '-h' || command === '--help' || command === 'help') {
    if (rest[0] !== undefined && Object.hasOwn(COMMANDS, rest[0])) return COMMANDS[rest[0]]!.run(['--help']);
    process.stdout.write(help());
    return 0;
  }
  if (command === '-v' || command === '--version') {
    process.stdout.write(`${packageVersion()}\n`);
    return 0;
  }
  if (!Object.hasOwn(COMMANDS, command)) {
    process.stderr.write(`toolguard: unknown command ${JSON.stringify(command)}\n\n${help()}`);
    return 2;
  }
  return COMMANDS[command]!.run(rest);
}
