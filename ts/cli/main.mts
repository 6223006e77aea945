// `toolguard` command line: dispatches subcommands (today: `audit`).

import { readFileSync } from 'node:fs';
import { audit, AUDIT_HELP } from './audit.mjs';
import { rules } from './rules.mjs';
import { scan } from './scan.mjs';

const HELP = `Usage: toolguard <command> [options]

Commands
  audit [FILES or DIRS...]   find loops and silent failures in recorded agent sessions
                             (no FILES: the bundled sample session)
  rules                      list the active silent-failure rules (built-ins + --config)
  scan [FILE|-]              show which rule matches which line of one tool output

toolguard audit --help      options of audit
toolguard --version
`;

export function main(argv: string[]): number {
  const [command, ...rest] = argv;
  switch (command) {
    case 'audit':
      return audit(rest);
    case 'rules':
      return rules(rest);
    case 'scan':
      return scan(rest);
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
