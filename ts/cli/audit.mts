// `toolguard audit`: replay recorded agent sessions through the guard engine.
// Reading, decompression, parsing and the guard all run in Rust (one
// `auditFile` call per file); this layer finds the files, loads the config,
// and prints the report.

import { closeSync, lstatSync, mkdtempSync, openSync, readdirSync, readFileSync, readSync, rmSync, statSync, writeSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Auditor, native } from 'toolguard';

import { oneOf, parseCommandLine, UsageError } from './args.mjs';
import { checkWithEngine, ConfigError, readConfig } from './config.mjs';
import { renderHuman, type Style } from './render.mjs';
import { renderJunit, renderSarif, unread } from './reports.mjs';
import { writeHtmlReport } from './html.mjs';
import { addWaste, type TimelineCallJson, type WasteJson, type WasteSummary } from './waste.mjs';

export { UsageError };

export const FAIL_ON = ['loop', 'failure', 'any', 'none'] as const;
export type FailOn = (typeof FAIL_ON)[number];
export const FORMATS = ['auto', 'dsh', 'trace', 'claude-code', 'codex', 'otlp'] as const;
type Format = (typeof FORMATS)[number];

export interface SiteJson {
  callId: string;
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
  /** Added by waste.mts (null: past the timeline's bound). */
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
  /** Added by waste.mts (null: past the timeline's bound). */
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
  /** Added by waste.mts (null: past the timeline's bound). */
  waste?: WasteJson | null;
}
export interface SessionJson {
  file: string;
  format: Format;
  compressed: boolean;
  sessionId: string | null;
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
  /** The calls in order, for the HTML strips and the waste figures. */
  timeline: { calls: TimelineCallJson[]; omitted: number };
  /** Added by waste.mts. */
  waste?: WasteSummary;
}
export interface AuditDocument {
  sessions: SessionJson[];
  summary: {
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
    /** Added by waste.mts. */
    waste?: WasteSummary;
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
  color: { type: 'boolean' },
  'no-color': { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** How the result is printed: a table for people, or a document for machines. */
export const REPORTS = ['table', 'json', 'sarif', 'junit'] as const;
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
  /** `--html FILE` (`-`: stdout). */
  html?: string;
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
  DSH session logs: session.jsonl (compression: 'none') or session.jsonl.zstd
  (the default), under <root>/--<cwd-slug>--/<sessionId>/. Directories are
  searched recursively for *.jsonl, *.jsonl.zst(d) and *.ndjson files
  (with --format dsh: only session.jsonl and session.jsonl.zstd).
  Generic traces: one JSON object a line, see docs/trace-format.md
  (${join(packageRoot, 'docs', 'trace-format.md')}).
  -: read one log from standard input.

Options
  --config FILE     guard config, JSON or YAML: {repeat?, loudFailure?, loops?}
                    (the same config as the DSH plugins, GuardEngine and the hook)
  --report R        table (default), json, sarif (code scanning) or junit (JUnit XML)
  --json            the same as --report json
  --format F        auto (default: per file), dsh, trace, claude-code, codex, otlp
  --since WHEN      only what happened since WHEN: a date or time (2025-10-01,
                    2025-10-01T12:00Z) or an age (30m, 12h, 7d)
  --max-line-bytes N  a longer line is reported and skipped (default 256MiB;
                    K, M, G suffixes: powers of 1024)
  --html FILE       also write a self-contained HTML report (timelines, findings,
                    waste) to FILE; '-' writes it to stdout instead of the table
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
  if (values.json && values.report !== undefined && values.report !== 'json') throw new UsageError(`--json and --report ${values.report} disagree`);
  if (values.color && values['no-color']) throw new UsageError('--color and --no-color disagree');
  return {
    paths: positionals,
    config: values.config,
    report: values.json ? 'json' : oneOf('--report', values.report, REPORTS, 'table'),
    format: oneOf('--format', values.format, FORMATS, 'auto'),
    failOn: oneOf('--fail-on', values['fail-on'], FAIL_ON, 'any'),
    color: values['no-color'] ? false : values.color ? true : undefined,
    help: values.help ?? false,
    sinceMs: values.since === undefined ? undefined : parseSince(values.since),
    maxLineBytes: values['max-line-bytes'] === undefined ? undefined : parseBytes(values['max-line-bytes']),
    html: values.html,
  };
}

/** `--since`: an age (`30m`, `12h`, `7d`) or anything `Date.parse` reads. */
export function parseSince(text: string, now = Date.now()): number {
  const age = /^(\d+)([mhd])$/.exec(text);
  if (age) return now - Number(age[1]) * { m: 60e3, h: 3600e3, d: 86400e3 }[age[2] as 'm' | 'h' | 'd'];
  const ms = Date.parse(text);
  if (Number.isNaN(ms)) throw new UsageError(`--since must be a date (2025-10-01, 2025-10-01T12:00Z) or an age (30m, 12h, 7d) (got ${JSON.stringify(text)})`);
  return ms;
}

function parseBytes(text: string): number {
  const m = /^(\d+)([KMG]i?B?)?$/i.exec(text);
  const n = m ? Number(m[1]) * 1024 ** ('KMG'.indexOf((m[2] ?? ' ')[0]!.toUpperCase()) + 1) : NaN;
  if (!(n >= 1 && Number.isSafeInteger(n))) throw new UsageError(`--max-line-bytes must be a positive size such as 1048576 or 64M (got ${JSON.stringify(text)})`);
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

/**
 * The native Auditor. Without the native binary (the reference fallback) it
 * does not exist: session logs are read and decompressed in Rust.
 */
function nativeAuditor(): typeof Auditor {
  if (native) return Auditor;
  throw new UsageError(
    `auditing needs the native binary, which could not be loaded on this platform (${process.platform}-${process.arch}); ` +
      'the engine API works through the reference fallback, the audit does not. Build from source: see the README.',
  );
}


/** Which files a directory search picks up: DSH transcripts, or any JSON Lines file. */
function isLogName(name: string, format: Format): boolean {
  if (format === 'dsh') return name === 'session.jsonl' || name === 'session.jsonl.zstd';
  return /\.(?:jsonl|jsonl\.zst|jsonl\.zstd|ndjson)$/.test(name);
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
  const out: string[] = [];
  const walk = (dir: string) => {
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      out.push(dir);
      return;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if ((entry.isFile() || entry.isSymbolicLink()) && isLogName(entry.name, format)) out.push(path);
    }
  };
  for (const path of paths) {
    if (path === STDIN) {
      if (out.includes(STDIN)) throw new UsageError('- (standard input) can be given once');
      out.push(STDIN);
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
      walk(path);
      if (out.length === before) throw new UsageError(`no session logs found under ${path} (looked for ${format === 'dsh' ? 'session.jsonl and session.jsonl.zstd' : '*.jsonl, *.jsonl.zst(d) and *.ndjson'})`);
    } else out.push(path);
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

/** A one-line progress bar on stderr, redrawn at most 10 times a second. */
class Progress {
  private last = 0;
  private drawn = false;
  constructor(private total: number, private stream: NodeJS.WriteStream) {}
  update(done: number, file: string) {
    const now = Date.now();
    if (now - this.last < 100) return;
    this.last = now;
    const width = 24;
    const ratio = this.total > 0 ? Math.min(1, done / this.total) : 0;
    const filled = Math.round(ratio * width);
    const mb = (n: number) => (n / 1e6).toFixed(n < 1e7 ? 1 : 0);
    const room = Math.max(10, (this.stream.columns ?? 80) - width - 30);
    const name = file.length > room ? '…' + file.slice(file.length - room + 1) : file;
    this.stream.write(`\r\x1b[K[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${Math.floor(ratio * 100)}% ${mb(done)}/${mb(this.total)} MB ${name}`);
    this.drawn = true;
  }
  clear() {
    if (this.drawn) this.stream.write('\r\x1b[K');
  }
}

export function summarize(sessions: SessionJson[], failOn: FailOn): AuditDocument['summary'] {
  const rules: Record<string, number> = {};
  let failedCalls = 0;
  for (const s of sessions) {
    const seen = new Set<string>();
    for (const f of s.failures) {
      rules[f.ruleId] = (rules[f.ruleId] ?? 0) + 1;
      const key = `${f.agentId}\u0000${f.callId}`;
      if (!seen.has(key)) failedCalls++;
      seen.add(key);
    }
  }
  const sum = (pick: (s: SessionJson) => number) => sessions.reduce((n, s) => n + pick(s), 0);
  const reminders = sum((s) => s.reminders.length);
  const loops = sum((s) => s.loops.length);
  const failures = sum((s) => s.failures.length);
  const matched =
    failOn === 'any' ? reminders + loops + failures > 0 : failOn === 'loop' ? reminders + loops > 0 : failOn === 'failure' ? failures > 0 : false;
  return {
    files: sessions.length,
    calls: sum((s) => s.calls),
    reminders,
    loops,
    failures,
    failedCalls,
    errors: sum((s) => s.errorCount),
    rules,
    bytes: sum((s) => s.bytes),
    decodedBytes: sum((s) => s.decodedBytes),
    failOn,
    exitCode: matched ? 1 : 0,
  };
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
  return { bold: paint('1'), dim: paint('2'), red: paint('31'), yellow: paint('33'), magenta: paint('35'), green: paint('32'), cyan: paint('36') };
}

/** Run `toolguard audit`; returns the exit code. */
export function audit(argv: string[]): number {
  try {
    return runAudit(argv);
  } catch (e) {
    if (!(e instanceof UsageError || e instanceof ConfigError)) throw e;
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
  let files = findLogs(usingSample ? [SAMPLE_DIR] : histories.length ? histories : options.paths, options.format);
  // A file last written before --since holds nothing newer.
  if (options.sinceMs !== undefined) files = files.filter((f) => f === STDIN || !(fileMtime(f) < options.sinceMs!));
  if (histories.length) {
    process.stderr.write(`toolguard audit: no FILES given, auditing ${histories.map(display).join(' and ')}.\n`);
  } else if (usingSample) {
    process.stderr.write(`toolguard audit: no FILES given, auditing the sample sessions bundled with the package (${display(SAMPLE_DIR)}).\nGive a file or folder to audit your own: toolguard audit ~/.dsh/sessions\n`);
  }
  const sizes = files.map(fileSize);
  const total = sizes.reduce((a, b) => a + b, 0);
  // Small audits finish before a bar would be read; big ones get one on a terminal.
  const progress = process.stderr.isTTY && total >= 16e6 ? new Progress(total, process.stderr) : undefined;
  const sessions: SessionJson[] = [];
  let before = 0;
  for (const [i, file] of files.entries()) {
    const shown = display(file);
    const onProgress = progress && ((done: number) => progress.update(before + done, shown));
    const copy = file === STDIN ? stdinToFile() : undefined;
    let report: SessionJson;
    try {
      report = JSON.parse(auditor.auditFile(copy?.path ?? file, options.format, onProgress)) as SessionJson;
    } finally {
      copy?.done();
    }
    report.file = shown;
    sessions.push(report);
    before += sizes[i]!;
  }
  progress?.clear();
  const document: AuditDocument = { sessions, summary: summarize(sessions, options.failOn) };
  addWaste(document);
  // The HTML report; returns an exit code when it took stdout (or failed).
  const done = options.html === undefined ? undefined : writeHtmlReport(document, options.html);
  if (done !== undefined) return done;
  if (options.report === 'json') process.stdout.write(JSON.stringify(document, null, 2) + '\n');
  else if (options.report === 'sarif') process.stdout.write(renderSarif(document, packageVersion()));
  else if (options.report === 'junit') process.stdout.write(renderJunit(document));
  else process.stdout.write(renderHuman(document, style(colorOn(process.stdout, options.color)), process.stdout.isTTY ? process.stdout.columns : undefined));
  // (No sessions at all is no failure: --since left nothing newer to read.)
  if (sessions.length > 0 && sessions.every(unread)) {
    process.stderr.write(`toolguard audit: no input could be read (${sessions.map((s) => s.file).join(', ')}): nothing was audited\n`);
    return 2;
  }
  return document.summary.exitCode;
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
