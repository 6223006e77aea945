// The command line of `toolguard audit`: its options, its help, and the
// checks of their values (a bad one is a usage error, exit 2).

import { statSync } from 'node:fs';
import { join, sep } from 'node:path';

import { logFormats } from 'toolguard';
import { oneOf, parseCommandLine, UsageError } from '../args.mjs';
import { CONFIG_STDIN } from '../config.mjs';
import { packageRoot, STDIN } from './inputs.mjs';
import { FAIL_ON, type FailOn, type Format, REPORTS, type Report } from './types.mjs';

/** The options of `toolguard audit`, for parseArgs and shell completion. */
export const AUDIT_OPTIONS = {
  config: { type: 'string' },
  json: { type: 'boolean' },
  report: { type: 'string' },
  format: { type: 'string' },
  'fail-on': { type: 'string' },
  since: { type: 'string' },
  'max-line-bytes': { type: 'string' },
  html: { type: 'string' },
  jobs: { type: 'string', short: 'j' },
  shard: { type: 'string' },
  column: { type: 'string' },
  'allow-empty': { type: 'boolean' },
  color: { type: 'boolean' },
  'no-color': { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

export interface Options {
  paths: string[];
  config?: string;
  report: Report;
  format: Format;
  failOn: FailOn;
  color?: boolean;
  help: boolean;
  /** Skip files last written, and lines stamped, before this time (ms since the epoch). */
  sinceMs?: number;
  maxLineBytes?: number;
  /** `--html FILE` (`-`: stdout), or `--html DIR/` (a folder: index and one page per run). */
  html?: string;
  /** Worker threads (0: one per core). */
  jobs: number;
  /** `--shard i/n`, checked by the native side. */
  shard?: string;
  /** The Parquet column holding the trajectory. */
  column?: string;
  /** Nothing left to audit after --since or --shard is no error (exit 0). */
  allowEmpty: boolean;
}
export const AUDIT_HELP = `Usage: toolguard audit [FILES or DIRS or -...] [options]

Replays recorded agent sessions through the toolguard engine and reports the
loop reminders and silent-failure verdicts it would have produced.
With no FILES, audits the Claude Code and Codex histories on this machine
(~/.claude/projects, ~/.codex/sessions) when they exist, else the sample
session bundled with the package; stderr says which.

Inputs (the format is picked per file from its first line)
  Claude Code transcripts: ~/.claude/projects/<slug>/<session>.jsonl and
  their subagents ($CLAUDE_CONFIG_DIR/projects when set).
  Codex rollouts: ~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl ($CODEX_HOME).
  OTLP/JSON traces: one export request a line (GenAI or OpenInference tool spans).
  Parquet datasets (*.parquet): one trajectory a row, in the column named
  messages, history, trajectory, traj, events or conversation(s) (--column
  names another); each row is a session named FILE#ROW.
  DSH session logs: session.jsonl (compression: 'none') or session.jsonl.zstd
  (the default), under <root>/--<cwd-slug>--/<sessionId>/. Directories are
  searched recursively for *.jsonl, *.jsonl.zst(d), *.ndjson and *.parquet files
  (with --format dsh: only session.jsonl and session.jsonl.zstd).
  Generic traces: one JSON object a line, see docs/trace-format.md
  (${join(packageRoot, 'docs', 'trace-format.md')}).
  Trajectories (docs/audit-formats.md): mini-swe-agent *.traj.json, SWE-agent
  *.traj, OpenHands V1 and V0 (a conversation, an SDK conversation folder
  by its base_state.json, an evaluation output with one a line, or a V0
  run's LLM completion log), and
  captures: Claude Code sessions exported to Markdown, the text output of
  \`codex exec\`, mini-swe-agent's terminal log.
  OpenCode sessions as \`opencode export\` prints them (*.json).
  Gemini CLI recordings: ~/.gemini/tmp/<project>/chats/session-*.jsonl
  (or the older session-*.json). Directories
  are searched for *.traj.json and *.traj too, and for *.json, *.md and
  *.log files whose content is one of these.
  -: read one log from standard input.

Options
  --config FILE     guard config, JSON or YAML: {repeat?, loudFailure?, loops?,
                    exactMode?}; - reads it from standard input
                    (the same config as the DSH plugins, GuardEngine and the hook)
  --report R        table (default), json, jsonl (one session a line, streamed
                    in input order; the dataset summary goes to stderr), sarif
                    (code scanning) or junit (JUnit XML)
  --json            the same as --report json
  --format F        auto (default: per file), dsh, trace, claude-code, codex, otlp,
                    mini-swe-agent, swe-agent, openhands-v1, openhands-v0,
                    claude-code-md, codex-exec-log, mini-swe-agent-log,
                    opencode, gemini-cli
  --since WHEN      only what happened since WHEN: a date or time (2025-10-01,
                    2025-10-01T12:00Z) or an age (30m, 12h, 7d)
  --max-line-bytes N  a longer line is reported and skipped (default 256MiB;
                    K, M, G suffixes: powers of 1024)
  --html FILE       also write a self-contained HTML report (timelines, findings,
                    waste) to FILE; '-' writes it to stdout instead of the table;
                    DIR/ (a trailing slash, or an existing folder): an index page
                    ranking the runs by waste and one page per run (for thousands)
  -j, --jobs N      audit N files at a time (default: one per core)
  --shard I/N       audit only the I-th of N deterministic shares of the inputs
                    (1 <= I <= N; by a hash of each path relative to the folder
                    given), for job arrays: see docs/audit-at-scale.md
  --column NAME     the Parquet column holding each row's trajectory
  --allow-empty     exit 0 when --since or --shard leaves no log to audit
                    (by default that is exit 2: a CI gate must not pass on nothing)
  --fail-on WHAT    exit 1 when findings match: loop, failure, any (default), none
  --no-color        no colours (also: NO_COLOR=1, FORCE_COLOR=0); --color forces them
  -h, --help        this help

Exit codes: 0 nothing matched --fail-on; 1 findings matched; 2 usage error
(bad option or config, a path that does not exist, no session log found,
--since or --shard left no log to audit, or no input could be read at all).
Bad lines (malformed or unknown events, a truncated tail) are reported with
their file and line and skipped.
`;

export function parseOptions(argv: string[]): Options {
  const { values, positionals } = parseCommandLine(argv, AUDIT_OPTIONS);
  if (values.json && values.report !== undefined && values.report !== 'json')
    throw new UsageError(`--json and --report ${values.report} disagree`);
  if (values.color && values['no-color']) throw new UsageError('--color and --no-color disagree');
  if (values.config === CONFIG_STDIN && positionals.includes(STDIN))
    throw new UsageError('--config - and a log (-) cannot both come from standard input: give one as a file');
  const report = values.json ? 'json' : oneOf('--report', values.report, REPORTS, 'table');
  // Both would go to stdout, one after the other (the report was dropped, or mixed with the page).
  if (values.html === '-' && report !== 'table') throw new UsageError(`--html - and --report ${report} both write to stdout`);
  // The stream keeps no session, so the one page would have none.
  if (report === 'jsonl' && values.html !== undefined && values.html !== '-' && !isFolderTarget(values.html))
    throw new UsageError(
      '--report jsonl keeps no session for a one-page --html FILE: give a folder (--html DIR/, a page a run) or another --report',
    );
  return {
    paths: positionals,
    config: values.config,
    report,
    format: formatOf(values.format),
    failOn: oneOf('--fail-on', values['fail-on'], FAIL_ON, 'any'),
    color: values['no-color'] ? false : values.color ? true : undefined,
    help: values.help ?? false,
    sinceMs: values.since === undefined ? undefined : parseSince(values.since),
    maxLineBytes: values['max-line-bytes'] === undefined ? undefined : parseBytes(values['max-line-bytes']),
    html: values.html,
    jobs: values.jobs === undefined ? 0 : parseJobs(values.jobs),
    shard: values.shard,
    column: values.column,
    allowEmpty: values['allow-empty'] ?? false,
  };
}

/** `--since`: an age (`30m`, `12h`, `7d`) or anything `Date.parse` reads. */
export function parseSince(text: string, now = Date.now()): number {
  const age = /^(\d+)([mhd])$/.exec(text);
  if (age) return now - Number(age[1]) * { m: 60e3, h: 3600e3, d: 86400e3 }[age[2] as 'm' | 'h' | 'd'];
  const ms = Date.parse(text);
  // Date.parse reads a bare number as a year ('1': 2001) and rolls a day
  // past the month's end over ('2025-02-30': 2 March): neither is what was meant.
  const day = /^(\d{4})-(\d{2})-(\d{2})/.exec(text);
  const rolled = day !== null && new Date(Date.UTC(+day[1], +day[2] - 1, +day[3])).getUTCDate() !== +day[3];
  if (Number.isNaN(ms) || /^\d+$/.test(text.trim()) || rolled)
    throw new UsageError(`--since must be a date (2025-10-01, 2025-10-01T12:00Z) or an age (30m, 12h, 7d) (got ${JSON.stringify(text)})`);
  return ms;
}

function parseJobs(text: string): number {
  const n = /^\d+$/.test(text) ? Number(text) : NaN;
  if (!(n >= 1 && n <= 1024)) throw new UsageError(`--jobs must be a number of threads from 1 to 1024 (got ${JSON.stringify(text)})`);
  return n;
}

function parseBytes(text: string): number {
  const m = /^(\d+)([KMG]i?B?)?$/i.exec(text);
  const n = m ? Number(m[1]) * 1024 ** ('KMG'.indexOf((m[2] ?? ' ')[0]!.toUpperCase()) + 1) : NaN;
  if (!(n >= 1 && Number.isSafeInteger(n)))
    throw new UsageError(`--max-line-bytes must be a positive size such as 1048576 or 64M (got ${JSON.stringify(text)})`);
  return n;
}

/** `--html DIR/`: a trailing separator, or a folder that exists. */
export function isFolderTarget(target: string): boolean {
  if (target.endsWith('/') || target.endsWith(sep)) return true;
  try {
    return statSync(target).isDirectory();
  } catch {
    return false;
  }
}

/**
 * The `--format` value, checked against the audit's own list (the addon's
 * `logFormats`). Without the native binary there is no list and no audit:
 * the value passes through and the audit says why it cannot run.
 */
function formatOf(value: string | undefined): Format {
  const formats = logFormats();
  return formats.length === 0 ? (value ?? 'auto') : oneOf('--format', value, formats, 'auto');
}
