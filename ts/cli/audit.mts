// `toolguard audit`: replay recorded agent sessions through the guard engine.
// Reading, decompression, parsing and the guard all run in Rust (one
// `auditFile` call per file); this layer finds the files, loads the config,
// and prints the report.

import {
  accessSync,
  constants,
  type Dirent,
  closeSync,
  lstatSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  rmSync,
  statSync,
  writeSync,
} from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Auditor, detectLogFormat, native } from 'toolguard';

import { oneOf, parseCommandLine, UsageError } from './args.mjs';
import { CONFIG_STDIN, checkWithEngine, ConfigError, readConfig } from './config.mjs';
import { oneLine, renderHuman, type Style } from './render.mjs';
import { sessionsInLogs } from './words.mjs';
import { renderJunit, renderSarif, unread } from './reports.mjs';
import { writeHtmlReport } from './html.mjs';
import { foldWaste, NO_WASTE, wasteLine, type TimelineCallJson, type WasteJson, type WasteSummary } from './waste.mjs';
import { DatasetSummary, datasetText, HtmlFolder, type DatasetJson } from './dataset.mjs';
import { PageError, PageWriter } from './pages.mjs';
import { summarize, Totals } from './totals.mjs';

export { summarize, Totals };

export { UsageError };

export const FAIL_ON = ['loop', 'failure', 'any', 'none'] as const;
export type FailOn = (typeof FAIL_ON)[number];
export const FORMATS = [
  'auto',
  'dsh',
  'trace',
  'claude-code',
  'codex',
  'otlp',
  'mini-swe-agent',
  'swe-agent',
  'openhands-v1',
  'openhands-v0',
  'claude-code-md',
  'codex-exec-log',
  'mini-swe-agent-log',
] as const;
type Format = (typeof FORMATS)[number];

export interface SiteJson {
  /** 1-based position of the call in its session, in file order (docs/trace-format.md). */
  ordinal: number;
  /** The format's own id of the call; null when it has none. */
  callId: string | null;
  tool: string;
  agentId: string | null;
  logLine: number;
  seq: number | null;
  turn: number | null;
}
export interface ReminderJson extends SiteJson {
  count: number;
  summary: string;
  arguments: string;
  command: string | null;
  text: string;
  /** Its episode's waste (crates/toolguard-audit/src/waste.rs; null: past the timeline's bound). */
  waste?: WasteJson | null;
}
/**
 * One loop episode (`loops`, on by default): raised at this call, ended at
 * `lastCall`; its alarms at every further call it went on are this one finding.
 */
export interface LoopJson extends SiteJson {
  kind: 'repeat' | 'cycle' | 'same-error' | 're-read' | 'redo';
  /** Calls in the loop (a cycle: rounds begun), at its last alarm. */
  count: number;
  period: number;
  /** The loop's first and last call, by timeline ordinal. */
  firstCall: number;
  lastCall: number;
  /** Log line of the last call. */
  lastLogLine: number;
  /** The loop's latest calls by timeline ordinal (at most 12). */
  calls: number[];
  summary: string;
  evidence: string;
  /** The first reminder text the model would have been shown. */
  text: string;
  /** Reminders the loop had: one at every call it went on after it was raised. */
  reminders: number;
  command: string | null;
  /** Its episode's waste (crates/toolguard-audit/src/waste.rs; null: past the timeline's bound). */
  waste?: WasteJson | null;
}
export interface FailureJson extends SiteJson {
  ruleId: string;
  action: 'error' | 'context';
  verdict: 'error' | 'context';
  line: number;
  excerpt: string;
  message: string;
  command: string | null;
  summary: string;
  /** The notice the model would have got (without the output it wraps). */
  text: string;
  /** The output lines around the match, the first being line `from`. */
  outputContext: { from: number; lines: string[] };
  /** Its episode's waste (crates/toolguard-audit/src/waste.rs; null: past the timeline's bound). */
  waste?: WasteJson | null;
}
export interface SessionJson {
  file: string;
  /** 0-based index of the session in its file (one session a line: its position). */
  session: number;
  format: Format;
  compressed: boolean;
  sessionId: string | null;
  /** The model that drove the run, when the file says. */
  model: string | null;
  parentSession: string | null;
  cwd: string | null;
  agents: string[];
  calls: number;
  unanswered: number;
  inherited: number;
  lines: number;
  bytes: number;
  decodedBytes: number;
  reminders: ReminderJson[];
  loops: LoopJson[];
  failures: FailureJson[];
  errors: { line: number | null; message: string }[];
  errorCount: number;
  /** What a reader noticed that is not bad input (an observation without its action, no exit codes…). */
  notes: { line: number | null; ordinal: number | null; message: string }[];
  noteCount: number;
  /** The calls in order, for the HTML strips and the waste figures. */
  timeline: { calls: TimelineCallJson[]; omitted: number };
  /** The session's waste (priced by the native audit, crates/toolguard-audit/src/waste.rs). */
  waste?: WasteSummary;
}

/**
 * What a summary folds of one session (crates/toolguard-audit `SessionFigures`),
 * made by the native audit on the worker thread beside the session's JSON, so
 * a streamed audit's main thread writes the report without parsing it.
 */
export interface SessionFigures {
  file: string;
  session: number;
  sessionId: string | null;
  model: string | null;
  format: Format;
  calls: number;
  bytes: number;
  decodedBytes: number;
  errorCount: number;
  /** Numbers of findings. */
  reminders: number;
  loops: number;
  failures: number;
  /** Calls with at least one failure finding. */
  failedCalls: number;
  /** Failure findings by rule id. */
  rules: Record<string, number>;
  /** Tokens of every listed call that says (null: none does). */
  tokens: number | null;
  waste: WasteSummary;
}
export interface AuditDocument {
  sessions: SessionJson[];
  summary: {
    /** Sessions audited (one agent's run each). */
    sessions: number;
    /** Logs (input files) they came from: a log may hold several sessions. */
    files: number;
    calls: number;
    reminders: number;
    /** Loop episodes (one per loop, however long it ran). */
    loops: number;
    failures: number;
    /** Calls with at least one failure finding. */
    failedCalls: number;
    errors: number;
    rules: Record<string, number>;
    bytes: number;
    decodedBytes: number;
    failOn: FailOn;
    exitCode: 0 | 1;
    /** All sessions' waste, folded (waste.mts foldWaste). */
    waste?: WasteSummary;
    /** The dataset figures (dataset.mts): shares of runs stuck or failing silently, per model and agent, the ranking. */
    dataset?: DatasetJson;
  };
}

const packageRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
export const SAMPLE_DIR = join(packageRoot, 'samples', 'dsh');

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
  color: { type: 'boolean' },
  'no-color': { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** How the result is printed: a table for people, or a document for machines. */
export const REPORTS = ['table', 'json', 'jsonl', 'sarif', 'junit'] as const;
export type Report = (typeof REPORTS)[number];

interface Options {
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
  \`codex exec\`, mini-swe-agent's terminal log. Directories
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
                    claude-code-md, codex-exec-log, mini-swe-agent-log
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
  --fail-on WHAT    exit 1 when findings match: loop, failure, any (default), none
  --no-color        no colours (also: NO_COLOR=1, FORCE_COLOR=0); --color forces them
  -h, --help        this help

Exit codes: 0 nothing matched --fail-on; 1 findings matched; 2 usage error
(bad option or config, a path that does not exist, no session log found, or
no input could be read at all).
Bad lines (malformed or unknown events, a truncated tail) are reported with
their file and line and skipped.
`;

function parseOptions(argv: string[]): Options {
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
    format: oneOf('--format', values.format, FORMATS, 'auto'),
    failOn: oneOf('--fail-on', values['fail-on'], FAIL_ON, 'any'),
    color: values['no-color'] ? false : values.color ? true : undefined,
    help: values.help ?? false,
    sinceMs: values.since === undefined ? undefined : parseSince(values.since),
    maxLineBytes: values['max-line-bytes'] === undefined ? undefined : parseBytes(values['max-line-bytes']),
    html: values.html,
    jobs: values.jobs === undefined ? 0 : parseJobs(values.jobs),
    shard: values.shard,
    column: values.column,
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

/** Where Claude Code and Codex keep their histories, when they exist. */
export function defaultLocations(env = process.env): string[] {
  const home = env.HOME || homedir();
  const claude = join(env.CLAUDE_CONFIG_DIR || join(home, '.claude'), 'projects');
  const codex = join(env.CODEX_HOME || join(home, '.codex'), 'sessions');
  return [claude, codex].filter((dir) => {
    try {
      return statSync(dir).isDirectory();
    } catch {
      return false;
    }
  });
}

/** The guard config from a JSON or YAML file, checked by the auditor's engine, as JSON text for the Auditor. */
export function loadConfig(path: string): string {
  const loaded = readConfig(path);
  const json = JSON.stringify(loaded.config);
  checkWithEngine(loaded, () => new (nativeAuditor())(json));
  return json;
}

/** The platform cannot audit: exit 2 as for a usage error, but `--help` would not help. */
class NoNativeError extends Error {}

/**
 * The native Auditor. Without the native binary (the reference fallback) it
 * does not exist: session logs are read and decompressed in Rust.
 */
function nativeAuditor(): typeof Auditor {
  if (native) return Auditor;
  throw new NoNativeError(
    `auditing needs the native binary, which could not be loaded on this platform (${process.platform}-${process.arch}); ` +
      'the engine API works through the reference fallback, the audit does not. Build from source: see the README.',
  );
}

/**
 * Which files a directory search picks up: DSH transcripts, or any JSON
 * Lines file or trajectory; a file whose name does not say (`*.json`,
 * `*.md`, `*.log`: also READMEs, manifests, results) only when its content
 * is a known log (decided in Rust, as `--format auto` reads it).
 */
function isLogName(name: string, format: Format, path: string): boolean {
  if (format === 'dsh') return name === 'session.jsonl' || name === 'session.jsonl.zstd';
  if (/\.(?:jsonl|jsonl\.zst|jsonl\.zstd|ndjson|traj\.json|traj|parquet)$/.test(name)) return true;
  if (!/\.(?:json|md|log)$/.test(name) || !native) return false;
  const found = detectLogFormat(path);
  // A page that quotes a log is not one: *.md only as a Markdown export,
  // *.log only as a terminal capture.
  const fits = name.endsWith('.md')
    ? found === 'claude-code-md'
    : name.endsWith('.log')
      ? found === 'codex-exec-log' || found === 'mini-swe-agent-log'
      : found !== null;
  return fits && (format === 'auto' || found === format);
}

/** The path `-` stands for standard input (zstd is told by its magic, not a name). */
export const STDIN = '-';

/**
 * Expand the command-line paths: files as given, directories searched
 * recursively (symlinked directories are not followed: no cycles), sorted.
 * A path that does not exist is a usage error (a mistyped path must not pass
 * green); a file or directory that exists but cannot be read yields an
 * entry, so the report names it.
 */
export function findLogs(paths: string[], format: Format): string[] {
  return findInputs(paths, format).map((input) => input.path);
}

/** A file to audit, and the key `--shard` hashes: its path relative to the folder given (a file given by itself: the path as given), with `/` separators. */
export interface FoundInput {
  path: string;
  key: string;
}

/** {@link findLogs} with each file's shard key. */
export function findInputs(paths: string[], format: Format): FoundInput[] {
  const out: FoundInput[] = [];
  let root = '';
  const slashes = (p: string) => p.split(sep).join('/');
  const walk = (dir: string) => {
    let entries: Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      out.push({ path: dir, key: slashes(relative(root, dir)) || slashes(dir) });
      return;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if ((entry.isFile() || entry.isSymbolicLink()) && isLogName(entry.name, format, path))
        out.push({ path, key: slashes(relative(root, path)) });
    }
  };
  for (const path of paths) {
    if (path === STDIN) {
      if (out.some((i) => i.path === STDIN)) throw new UsageError('- (standard input) can be given once');
      out.push({ path: STDIN, key: STDIN });
      continue;
    }
    let isDir = false;
    try {
      isDir = lstatSync(path).isDirectory() || statSync(path).isDirectory();
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'ENOTDIR') throw new UsageError(`${path}: no such file or directory`);
      // Unreadable: the Rust side reports it as that file's error.
    }
    if (isDir) {
      const before = out.length;
      root = path;
      walk(path);
      if (out.length === before)
        throw new UsageError(
          `no session logs found under ${path} (looked for ${format === 'dsh' ? 'session.jsonl and session.jsonl.zstd' : '*.jsonl, *.jsonl.zst(d), *.ndjson, *.traj(.json), *.parquet, and *.json, *.md, *.log holding a known log'})`,
        );
    } else out.push({ path, key: slashes(path) });
  }
  return out;
}

function display(path: string): string {
  if (path === STDIN) return '(stdin)';
  const rel = relative(process.cwd(), path);
  return !isAbsolute(path) || rel.startsWith('..') || isAbsolute(rel) ? path : rel;
}

function hasLogs(dir: string, format: Format): boolean {
  try {
    return findLogs([dir], format).length > 0;
  } catch {
    return false;
  }
}

function fileMtime(path: string): number {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return NaN; // unreadable: kept, so the report names it
  }
}

function fileSize(path: string): number {
  if (path === STDIN) return 0;
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}

/**
 * A one-line progress bar on stderr (files, MB, ETA), redrawn at most 10
 * times a second; only on a terminal (a pipe or a file gets none).
 */
export class Progress {
  private drawn = false;
  private last = 0;
  private readonly start = Date.now();
  constructor(
    private stream: NodeJS.WriteStream,
    private now = () => Date.now(),
  ) {}
  update(filesDone: number, filesTotal: number, bytesDone: number, bytesTotal: number) {
    const t = this.now();
    if (t - this.last < 100) return;
    this.last = t;
    this.stream.write(`\r\x1b[K${progressLine(filesDone, filesTotal, bytesDone, bytesTotal, t - this.start)}`);
    this.drawn = true;
  }
  clear() {
    if (this.drawn) this.stream.write('\r\x1b[K');
  }
}

/** The bar's text: `[####....] 45% 123/456 files · 812/2000 MB · ETA 1 min 20 s`. */
export function progressLine(filesDone: number, filesTotal: number, bytesDone: number, bytesTotal: number, elapsedMs: number): string {
  const width = 24;
  const ratio = bytesTotal > 0 ? Math.min(1, bytesDone / bytesTotal) : filesTotal > 0 ? filesDone / filesTotal : 0;
  const filled = Math.round(ratio * width);
  const mb = (n: number) => (n / 1e6).toFixed(n < 1e7 ? 1 : 0);
  // The rate so far; none before a second has passed (too noisy to read).
  const eta = ratio > 0 && ratio < 1 && elapsedMs >= 1000 ? ` · ETA ${formatEta((elapsedMs * (1 - ratio)) / ratio)}` : '';
  return `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${Math.floor(ratio * 100)}% ${filesDone}/${filesTotal} files · ${mb(bytesDone)}/${mb(bytesTotal)} MB${eta}`;
}

function formatEta(ms: number): string {
  const s = Math.ceil(ms / 1000);
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  return m < 60 ? `${m} min ${s % 60} s` : `${Math.floor(m / 60)} h ${m % 60} min`;
}

/**
 * Colour or not: `--color`/`--no-color` first, then FORCE_COLOR (Node's
 * convention: 0 or false off, anything else on), then NO_COLOR
 * (https://no-color.org), then whether the stream is a terminal.
 */
export function colorOn(stream: NodeJS.WriteStream, flag?: boolean, env: NodeJS.ProcessEnv = process.env): boolean {
  if (flag !== undefined) return flag;
  const force = env.FORCE_COLOR;
  if (force !== undefined) return force !== '0' && force.toLowerCase() !== 'false';
  if (env.NO_COLOR) return false;
  return Boolean(stream.isTTY) && env.TERM !== 'dumb';
}

export function style(on: boolean): Style {
  const paint = (code: string) => (text: string) => (on ? `\x1b[${code}m${text}\x1b[0m` : text);
  return {
    bold: paint('1'),
    dim: paint('2'),
    red: paint('31'),
    yellow: paint('33'),
    magenta: paint('35'),
    green: paint('32'),
    cyan: paint('36'),
  };
}

/** Run `toolguard audit`; returns the exit code. */
export function audit(argv: string[]): number {
  try {
    return runAudit(argv);
  } catch (e) {
    // `toolguard audit --report jsonl … | head`: the reader went away (a
    // write in a report callback, which stops the batch); what is left to
    // print is not wanted, as bin/toolguard.mjs treats stdout's EPIPE.
    if ((e as NodeJS.ErrnoException).code === 'EPIPE') return 0;
    if (!(e instanceof UsageError || e instanceof ConfigError || e instanceof PageError || e instanceof NoNativeError)) throw e;
    process.stderr.write(`toolguard audit: ${e.message}\n${e instanceof UsageError ? "Try 'toolguard audit --help'.\n" : ''}`);
    return 2;
  }
}

function runAudit(argv: string[]): number {
  const options = parseOptions(argv);
  if (options.help) {
    process.stdout.write(AUDIT_HELP);
    return 0;
  }
  const NativeAuditor = nativeAuditor();
  const limits = JSON.stringify({ maxLineBytes: options.maxLineBytes, sinceMs: options.sinceMs });
  const auditor = new NativeAuditor(options.config === undefined ? undefined : loadConfig(options.config), limits);
  // Only histories that hold a log: an empty ~/.claude/projects (Claude Code
  // installed, never run) falls back to the sample instead of failing.
  const histories = options.paths.length === 0 ? defaultLocations().filter((dir) => hasLogs(dir, options.format)) : [];
  const usingSample = options.paths.length === 0 && histories.length === 0;
  let inputs = findInputs(usingSample ? [SAMPLE_DIR] : histories.length ? histories : options.paths, options.format);
  // A file last written before --since holds nothing newer.
  if (options.sinceMs !== undefined) inputs = inputs.filter((i) => i.path === STDIN || !(fileMtime(i.path) < options.sinceMs!));
  if (histories.length) {
    process.stderr.write(`toolguard audit: no FILES given, auditing ${histories.map(display).join(' and ')}.\n`);
  } else if (usingSample) {
    process.stderr.write(
      `toolguard audit: no FILES given, auditing the sample sessions bundled with the package (${display(SAMPLE_DIR)}).\nGive a file or folder to audit your own: toolguard audit ~/.dsh/sessions\n`,
    );
  }
  // Small audits finish before a bar would be read; big ones (by bytes or by
  // files) get one, on a terminal only.
  // (Sizes only on a terminal and when the count does not decide: a stat a
  // file is no small share of the main thread's work over 100,000 files.)
  const big = () => inputs.length >= 200 || inputs.reduce((n, i) => n + fileSize(i.path), 0) >= 16e6;
  const progress = process.stderr.isTTY && big() ? new Progress(process.stderr) : undefined;
  const stream = options.report === 'jsonl';
  const htmlDir = options.html !== undefined && options.html !== '-' && isFolderTarget(options.html) ? options.html : undefined;
  // A one-page report is written after the audit: a folder it cannot go in
  // is said now, not after hours of a large collection.
  if (options.html !== undefined && options.html !== '-' && htmlDir === undefined) {
    const parent = dirname(resolve(options.html));
    try {
      if (!statSync(parent).isDirectory()) throw new Error(`${parent} is not a folder`);
      accessSync(parent, constants.W_OK);
    } catch (e) {
      process.stderr.write(`toolguard audit: cannot write the HTML report to ${options.html}: ${(e as Error).message}\n`);
      return 2;
    }
  }
  // A run's page is rendered and written on a thread of its own (pages.mts).
  let pages: PageWriter | undefined;
  let folder: HtmlFolder | undefined;
  // The folder or its index that could not be written (a run page that could
  // not be is thrown through the batch: PageError).
  let folderError: string | undefined;
  if (htmlDir !== undefined) {
    try {
      folder = new HtmlFolder(htmlDir, (json, figures, file) => pages!.write(json, figures, file));
    } catch (e) {
      process.stderr.write(`toolguard audit: cannot write the HTML report to ${htmlDir}: ${(e as Error).message}\n`);
      return 2;
    }
    pages = new PageWriter(options.failOn);
  }
  // A stream keeps the top of the ranking only; other reports hold every session anyway.
  const dataset = new DatasetSummary(stream ? 20 : 50);
  const totals = new Totals();
  const sessions: SessionJson[] = [];
  let waste = NO_WASTE;
  let count = 0;
  let unreadCount = 0;
  const unreadNames: string[] = [];
  const copy = inputs.some((i) => i.path === STDIN) ? stdinToFile() : undefined;
  try {
    const paths = inputs.map((i) => (i.path === STDIN ? copy!.path : i.path));
    const names = inputs.map((i) => display(i.path));
    const batch = JSON.stringify({ format: options.format, threads: options.jobs, shard: options.shard, column: options.column });
    // The report comes priced and serialized from the worker thread, with
    // its figures: a stream writes it as it is, parsing only the figures
    // (docs/audit-at-scale.md: the main thread's share of the work).
    const onReport = (json: string, figuresJson: string) => {
      const figures = JSON.parse(figuresJson) as SessionFigures;
      waste = foldWaste(waste, figures.waste);
      totals.add(figures);
      dataset.add(figures, count);
      folder?.add(json, figures, count);
      count++;
      if (unread(figures)) {
        unreadCount++;
        // Say why when the file as a whole could not be read (it could not be
        // opened, it is binary) or was empty, not only that nothing could be read.
        // (Parsed only here: an unread run is small and rare.)
        const whole = (JSON.parse(json) as SessionJson).errors.find((e) => e.line === null);
        const why = whole ? `: ${whole.message}` : figures.bytes === 0 ? ': empty' : '';
        if (unreadNames.length < 20) unreadNames.push(oneLine(`${figures.file}${why}`)); // a name may hold a terminal escape
      }
      if (stream) writeAll(1, json + '\n');
      else sessions.push(JSON.parse(json) as SessionJson);
    };
    const onProgress = progress && ((fd: number, ft: number, bd: number, bt: number) => progress.update(fd, ft, bd, bt));
    try {
      auditor.auditFiles(
        paths,
        names,
        inputs.map((i) => i.key),
        batch,
        onReport,
        onProgress,
      );
    } catch (e) {
      // A page the HTML folder's thread could not write, thrown through the batch.
      if (pages?.error) throw pages.error;
      // Only the options can be refused before the audit starts (a bad --shard).
      if ((e as { code?: string }).code === 'InvalidArg') throw new UsageError((e as Error).message.replace(/^toolguard: /, ''));
      throw e;
    }
    pages?.finish();
  } finally {
    pages?.close();
    copy?.done();
    progress?.clear();
  }
  const summary = totals.summary(options.failOn);
  (summary as AuditDocument['summary']).waste = waste;
  summary.dataset = dataset.result();
  const document: AuditDocument = { sessions, summary };
  if (folder && folderError === undefined) {
    try {
      folder.finish();
    } catch (e) {
      folderError = (e as Error).message;
    }
  }
  if (folderError !== undefined) {
    process.stderr.write(`toolguard audit: cannot write the HTML report to ${htmlDir}: ${folderError}\n`);
    return 2;
  }
  if (folder) process.stderr.write(`toolguard audit: wrote the HTML report to ${join(htmlDir!, 'index.html')} (and ${count} run pages)\n`);
  // The HTML report; returns an exit code when it took stdout (or failed).
  const done = options.html === undefined || folder !== undefined ? undefined : writeHtmlReport(document, options.html);
  if (done !== undefined) return done;
  if (options.report === 'jsonl') process.stderr.write(summaryText(summary, count));
  else if (options.report === 'json') process.stdout.write(JSON.stringify(document, null, 2) + '\n');
  else if (options.report === 'sarif') process.stdout.write(renderSarif(document, packageVersion()));
  else if (options.report === 'junit') process.stdout.write(renderJunit(document));
  else {
    process.stdout.write(
      renderHuman(document, style(colorOn(process.stdout, options.color)), process.stdout.isTTY ? process.stdout.columns : undefined),
    );
    // A collection's figures; for a few logs (a session and its subagents) they would say nothing new.
    if (count >= DATASET_MIN_RUNS) process.stdout.write(datasetText(summary.dataset));
  }
  // (No sessions at all is no failure: --since left nothing newer to read.)
  if (count > 0 && unreadCount === count) {
    process.stderr.write(
      `toolguard audit: no input could be read (${unreadNames.join('; ')}${count > unreadNames.length ? '; …' : ''}): nothing was audited\n`,
    );
    return 2;
  }
  return summary.exitCode;
}

/** Runs from which the table report ends with the dataset summary (docs/audit-at-scale.md). */
const DATASET_MIN_RUNS = 10;

/** `--html DIR/`: a trailing separator, or a folder that exists. */
function isFolderTarget(target: string): boolean {
  if (target.endsWith('/') || target.endsWith(sep)) return true;
  try {
    return statSync(target).isDirectory();
  } catch {
    return false;
  }
}

/** The streamed report's closing summary, on stderr (stdout holds only sessions). */
function summaryText(summary: AuditDocument['summary'], sessions: number): string {
  const n = (count: number, one: string) => `${count} ${one}${count === 1 ? '' : 's'}`;
  const head = `toolguard audit: ${sessionsInLogs(sessions, summary.files)} · ${n(summary.calls, 'tool call')} · ${n(summary.loops + summary.reminders, 'loop finding')} · ${n(summary.failedCalls, 'silent failure')} · ${n(summary.errors, 'input error')}\n`;
  return (
    head + (summary.waste ? wasteLine(summary.waste) + '\n' : '') + (summary.dataset && sessions > 1 ? datasetText(summary.dataset) : '')
  );
}

/** All of `text` to `fd`, synchronously: a pipe that is full blocks the audit (bounded memory) instead of queueing lines. */
function writeAll(fd: number, text: string) {
  const buffer = Buffer.from(text);
  let at = 0;
  while (at < buffer.length) {
    try {
      at += writeSync(fd, buffer, at);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') throw error;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 5); // a non-blocking pipe that is full
    }
  }
}

/**
 * Standard input copied to a temporary file, chunk by chunk (bounded memory),
 * for the Rust reader: /dev/stdin cannot be opened when stdin is a socket
 * (Node's child-process pipes are), and Windows has none.
 */
function stdinToFile(): { path: string; done(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'toolguard-stdin-'));
  const path = join(dir, 'stdin');
  const out = openSync(path, 'w', 0o600);
  try {
    const chunk = Buffer.alloc(1 << 20);
    for (;;) {
      let n: number;
      try {
        n = readSync(0, chunk, 0, chunk.length, null);
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === 'EAGAIN') {
          Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 5); // a non-blocking pipe with nothing yet
          continue;
        }
        if (code === 'EOF') break; // Windows, at the end of a pipe
        throw new UsageError(`cannot read standard input: ${(error as Error).message}`);
      }
      if (n === 0) break;
      writeSync(out, chunk, 0, n);
    }
  } finally {
    closeSync(out);
  }
  return { path, done: () => rmSync(dir, { recursive: true, force: true }) };
}

export function packageVersion(): string {
  return (JSON.parse(readFileSync(join(packageRoot, 'package.json'), 'utf8')) as { version: string }).version;
}
