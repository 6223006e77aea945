// `toolguard` command line: dispatches subcommands (today: `audit`).

import { readFileSync } from 'node:fs';
import { audit, AUDIT_HELP } from './audit.mjs';

const HELP = `Usage: toolguard <command> [options]

Commands
  audit [FILES or DIRS...]   find loops and silent failures in recorded agent sessions
                             (no FILES: the bundled sample session)
  mcp -- <command> [args...] run an MCP server behind the guard (toolguard mcp --help)

toolguard audit --help      options of audit
toolguard --version
`;

export function main(argv: string[]): number | Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'audit':
      return audit(rest);
    case 'mcp':
      return import('../mcp/proxy.mjs').then((mcp) => mcp.runMcp(rest));
    case '-h':
    case '--help':
    case 'help':
      process.stdout.write(rest[0] === 'audit' ? AUDIT_HELP : HELP);
      return 0;
    case '-v':
    case '--version': {
      const pkg = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string };
      process.stdout.write(`${pkg.version}\n`);
      return 0;
    }
    case undefined:
      process.stderr.write(HELP);
      return 2;
    default:
      process.stderr.write(`toolguard: unknown command ${JSON.stringify(command)}\n\n${HELP}`);
      return 2;
  }
}
