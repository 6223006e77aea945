// `toolguard scan [FILE|-]`: run the active rule table on one tool output (a
// file, or stdin) through the engine, as a `bash` result, and show which rule
// matched which line — so a rule author sees why something fired or did not.
// Rules silenced because the output already shows its failure (a non-zero
// `[exit code: N]` marker and `when: success`) are listed as such: the same
// table runs a second time with every rule `when: always`.

import { createReadStream } from 'node:fs';
import { GuardEngine } from 'toolguard';

import { native } from '../native.mjs';
import { UsageError } from './args.mjs';
import { CONFIG_STDIN } from './config.mjs';
import { activeTable, configValue, parseCommonArgs, type TableRule } from './rules.mjs';

export const SCAN_HELP = `Usage: toolguard scan [FILE|-] [--command CMD] [--config guard.json|yaml] [--json]

Runs the active silent-failure rules (built-ins merged with the config) on one
tool output — FILE, or stdin when FILE is - or absent — as the engine scans a
shell tool's result (whatever the config's loudFailure.shellTools names), and
prints each matching rule with the line it matched.
The output is read as the harness shows it: stdout, a [stderr] block, and the
trailing markers ([exit code: N] …), or below a status header (Codex:
'Exit code: N' or 'Process exited with code N', then 'Output:'); when they
show a failure, 'when: success' rules stay silent and are listed as silenced.
--command CMD scans it as the result of the shell command CMD, as the engine
and the hook do with the call's command (rules that count only with a command,
such as program-message, then count).

At most 64 MiB is read (a longer input is an error, not one tool output).

Exit code: 0 no rule fired, 1 a rule fired, 2 usage or config error.
`;

interface Hit {
  id: string;
  action: string;
  line: number;
  excerpt: string;
  message: string;
  /** true: matched, but silent because the output already shows its failure. */
  silenced: boolean;
}

type Verdict = { failure?: { rules: { id: string; line: number; excerpt: string; message: string }[] } } | null;

/** The tool the input is presented as: scan runs it through the engine as this tool's result. */
const TOOL = 'bash';

function observe(engine: GuardEngine, text: string, command: string | undefined): Verdict {
  const argumentsJson = JSON.stringify(command === undefined ? {} : { command });
  return engine.observe({ name: TOOL, argumentsJson }, { content: [{ type: 'text', text }] }) as Verdict;
}

/** argv without `--command CMD` / `--command=CMD`, and CMD (the shared option parser knows no --command). */
function takeCommand(argv: string[]): { rest: string[]; command?: string } {
  const rest: string[] = [];
  let command: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--command') {
      if (i + 1 >= argv.length) throw new UsageError('--command needs the shell command the output came from');
      command = argv[++i];
    } else if (arg.startsWith('--command=')) {
      command = arg.slice('--command='.length);
    } else rest.push(arg);
  }
  return { rest, command };
}

/**
 * The config as scan runs it: its rules, with the one tool scan presents the
 * input as for the only shell tool — a config whose `shellTools` leaves out
 * `bash` (an MCP server's `run_command`) must not turn every scan into "no
 * rule matched".
 */
function scanConfig(config: ReturnType<typeof configValue>, rules: unknown[] | undefined): object {
  return { ...config, loudFailure: { ...config.loudFailure, ...(rules === undefined ? {} : { rules }), shellTools: [TOOL] } };
}

/**
 * The table with every rule `when: always`, as the engine takes it: each rule
 * keeps every key of its row (`reason`, and any rule key added later) but the
 * listing's own `source`.
 */
export function alwaysTable(table: readonly TableRule[]): Omit<TableRule, 'source'>[] {
  return table.map((row) => {
    const { source: _source, ...rule } = row;
    return { ...rule, when: 'always' };
  });
}

/**
 * The most `scan` reads: 64 MiB, far above any harness's tool output (they
 * truncate to kilobytes), so `scan /dev/zero` or a runaway pipe ends with an
 * error instead of filling memory.
 */
export const SCAN_MAX_BYTES = 64 * 1024 * 1024;

/** FILE (or stdin for '-') as text, at most `limit` bytes; a UsageError naming it otherwise. */
async function readOutput(file: string, source: string, limit = SCAN_MAX_BYTES): Promise<string> {
  const stream = file === '-' ? process.stdin : createReadStream(file);
  const chunks: Buffer[] = [];
  let total = 0;
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      total += chunk.length;
      if (total > limit) {
        stream.destroy();
        throw new UsageError(`${source} is longer than ${limit / (1024 * 1024)} MiB: not one tool output (scan reads at most that much)`);
      }
      chunks.push(chunk);
    }
  } catch (e) {
    if (e instanceof UsageError) throw e;
    throw new UsageError(`cannot read ${source}: ${(e as Error).message}`);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * The output as the engine gets it from a log reader: a status header above
 * it (Codex's `Exit code: 1` / `Process exited with code 1` … `Output:`, read
 * by the core as the Codex reader reads it) becomes the `[exit code: N]`
 * marker of a non-zero code. `headerLines` maps a hit's line back to the
 * input's. Without the native binary the header is scanned as output.
 */
function asHarnessShows(input: string): { text: string; headerLines: number } {
  const header = native()?.__statusHeader(input);
  if (!header) return { text: input, headerLines: 0 };
  const code = header.exitCode;
  if (code === undefined || code === null || code === 0) return { text: header.output, headerLines: header.lines };
  const sep = header.output === '' || header.output.endsWith('\n') ? '' : '\n';
  return { text: `${header.output}${sep}[exit code: ${code}]`, headerLines: header.lines };
}

/** Run `toolguard scan`; resolves to the exit code. */
export async function scan(argv: string[]): Promise<number> {
  const files: string[] = [];
  let hits: Hit[];
  let json = false;
  let source = '';
  try {
    const { rest, command } = takeCommand(argv);
    const options = parseCommonArgs(rest, (arg) => files.push(arg));
    if (options.help) {
      process.stdout.write(SCAN_HELP);
      return 0;
    }
    json = options.json;
    if (files.length > 1) throw new UsageError('give one FILE (or - for stdin)');
    const file = files[0] ?? '-';
    if (file === '-' && options.config === CONFIG_STDIN)
      throw new UsageError('--config - and the tool output cannot both come from standard input: give one as a file');
    source = file === '-' ? 'stdin' : file;
    const { text, headerLines } = asHarnessShows(await readOutput(file, source));
    const config = configValue(options.config);
    const table = activeTable(config.loudFailure?.rules ?? []);
    const action = new Map(table.map((r) => [r.id, r.action]));
    const fired = observe(new GuardEngine(scanConfig(config, undefined) as never), text, command)?.failure?.rules ?? [];
    const all = observe(new GuardEngine(scanConfig(config, alwaysTable(table)) as never), text, command)?.failure?.rules ?? [];
    const firedIds = new Set(fired.map((h) => h.id));
    hits = all.map((h) => ({
      id: h.id,
      action: action.get(h.id) ?? 'error',
      line: h.line + headerLines,
      excerpt: h.excerpt,
      message: h.message,
      silenced: !firedIds.has(h.id),
    }));
  } catch (e) {
    process.stderr.write(`toolguard scan: ${(e as Error).message}\n${e instanceof UsageError ? "Try 'toolguard scan --help'.\n" : ''}`);
    return 2;
  }
  const firedCount = hits.filter((h) => !h.silenced).length;
  if (json) {
    process.stdout.write(`${JSON.stringify({ source, hits }, null, 2)}\n`);
  } else if (hits.length === 0) {
    process.stdout.write(`${source}: no rule matched\n`);
  } else {
    const idWidth = Math.max(...hits.map((h) => h.id.length));
    const lines = hits.map(
      (h) =>
        `  line ${String(h.line).padStart(4)}  ${h.id.padEnd(idWidth)}  ${(h.silenced ? 'silenced' : h.action).padEnd(8)}  ${h.excerpt}`,
    );
    const silenced = hits.length - firedCount;
    process.stdout.write(
      `${source}: ${firedCount} rule${firedCount === 1 ? '' : 's'} fired` +
        `${silenced ? `, ${silenced} silenced (the output already shows its failure)` : ''}\n${lines.join('\n')}\n`,
    );
  }
  return firedCount > 0 ? 1 : 0;
}
