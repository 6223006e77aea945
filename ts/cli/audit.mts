// `toolguard audit`: replay recorded agent sessions through the guard engine.
// Reading, decompression, parsing and the guard all run in Rust (one
// `auditFile` call per file); this layer finds the files, loads the config,
// and prints the report.

import { lstatSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, extname, isAbsolute, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Auditor } from 'toolguard';

import { parseYaml, YamlError } from './yaml.mjs';
import { renderHuman, type Style } from './render.mjs';

export const FAIL_ON = ['loop', 'failure', 'any', 'none'] as const;
export type FailOn = (typeof FAIL_ON)[number];
const FORMATS = ['auto', 'dsh', 'trace'] as const;
type Format = (typeof FORMATS)[number];

/** Raised for exit code 2 (bad command line or config). */
export class UsageError extends Error {}

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
}
/** A loop detector's alarm at this call (`loops`, on by default). */
export interface LoopJson extends SiteJson {
  kind: 'repeat' | 'cycle' | 'same-error' | 're-read';
  count: number;
  period: number;
  calls: number[];
  summary: string;
  evidence: string;
  text: string;
  /** Reminders this loop has had, this one included (1: the loop starts here). */
  reminders: number;
  command: string | null;
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
}
export interface AuditDocument {
  sessions: SessionJson[];
  summary: {
    files: number;
    calls: number;
    reminders: number;
    /** Loop alarms (one per call a loop goes on). */
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
  };
}

interface Options {
  paths: string[];
  config?: string;
  json: boolean;
  format: Format;
  failOn: FailOn;
  help: boolean;
}

export const AUDIT_HELP = `Usage: toolguard audit [FILES or DIRS...] [options]

Replays recorded agent sessions through the toolguard engine and reports the
loop reminders and silent-failure verdicts it would have produced.
With no FILES, audits the sample session bundled with the package.

Inputs
  DSH session logs: session.jsonl (compression: 'none') or session.jsonl.zstd
  (the default), under <root>/--<cwd-slug>--/<sessionId>/. Directories are
  searched recursively for *.jsonl, *.jsonl.zst(d) and *.ndjson files
  (with --format dsh: only session.jsonl and session.jsonl.zstd).
  Generic traces: one JSON object a line, see docs/trace-format.md.

Options
  --config FILE     guard config, JSON or YAML: {repeat?, loudFailure?, loops?}
                    (the same config as the DSH plugins and GuardEngine)
  --json            print one JSON document instead of the table
  --format F        auto (default: per file), dsh or trace
  --fail-on WHAT    exit 1 when findings match: loop, failure, any (default), none
  -h, --help        this help

Exit codes: 0 nothing matched --fail-on, 1 findings matched, 2 usage error.
Bad input (unreadable file, malformed or unknown line, truncated tail) is
reported with its file and line and skipped.
`;

function parseArgs(argv: string[]): Options {
  const options: Options = { paths: [], json: false, format: 'auto', failOn: 'any', help: false };
  const value = (i: number, flag: string, inline?: string): string => {
    const v = inline ?? argv[i + 1];
    if (v === undefined || (inline === undefined && v.startsWith('--'))) throw new UsageError(`${flag} needs a value`);
    return v;
  };
  let onlyPaths = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (onlyPaths || !arg.startsWith('-') || arg === '-') {
      options.paths.push(arg);
      continue;
    }
    const eq = arg.indexOf('=');
    const flag = eq > 0 ? arg.slice(0, eq) : arg;
    const inline = eq > 0 ? arg.slice(eq + 1) : undefined;
    const step = inline === undefined ? 1 : 0;
    switch (flag) {
      case '--':
        onlyPaths = true;
        break;
      case '-h':
      case '--help':
        options.help = true;
        break;
      case '--json':
        if (inline !== undefined) throw new UsageError('--json takes no value');
        options.json = true;
        break;
      case '--config':
        options.config = value(i, flag, inline);
        i += step;
        break;
      case '--format': {
        const v = value(i, flag, inline);
        if (!(FORMATS as readonly string[]).includes(v)) throw new UsageError(`--format must be one of ${FORMATS.join(', ')} (got ${JSON.stringify(v)})`);
        options.format = v as Format;
        i += step;
        break;
      }
      case '--fail-on': {
        const v = value(i, flag, inline);
        if (!(FAIL_ON as readonly string[]).includes(v)) throw new UsageError(`--fail-on must be one of ${FAIL_ON.join(', ')} (got ${JSON.stringify(v)})`);
        options.failOn = v as FailOn;
        i += step;
        break;
      }
      default:
        throw new UsageError(`unknown option ${flag}`);
    }
  }
  return options;
}

/** The guard config from a JSON or YAML file, as JSON text for the Auditor. */
export function loadConfig(path: string): string {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new UsageError(`cannot read config ${path}: ${(e as Error).message}`);
  }
  const ext = extname(path).toLowerCase();
  let value: unknown;
  try {
    if (ext === '.json') value = JSON.parse(text);
    else if (ext === '.yaml' || ext === '.yml') value = parseYaml(text);
    else {
      try {
        value = JSON.parse(text);
      } catch {
        value = parseYaml(text);
      }
    }
  } catch (e) {
    const kind = e instanceof YamlError ? 'YAML' : 'JSON';
    throw new UsageError(`config ${path} is not valid ${kind}: ${(e as Error).message}`);
  }
  const json = JSON.stringify(value ?? {});
  try {
    new Auditor(json);
  } catch (e) {
    throw new UsageError(`config ${path}: ${(e as Error).message}`);
  }
  return json;
}

const packageRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
export const SAMPLE_DIR = join(packageRoot, 'samples', 'dsh');

/** Which files a directory search picks up: DSH transcripts, or any JSON Lines file. */
function isLogName(name: string, format: Format): boolean {
  if (format === 'dsh') return name === 'session.jsonl' || name === 'session.jsonl.zstd';
  return /\.(?:jsonl|jsonl\.zst|jsonl\.zstd|ndjson)$/.test(name);
}

/**
 * Expand the command-line paths: files as given, directories searched
 * recursively (symlinked directories are not followed: no cycles), sorted.
 * A path that cannot be read still yields an entry, so the report names it.
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
    let isDir = false;
    try {
      isDir = lstatSync(path).isDirectory() || statSync(path).isDirectory();
    } catch {
      // Missing or unreadable: the Rust side reports it as that file's error.
    }
    if (isDir) walk(path);
    else out.push(path);
  }
  return out;
}

function display(path: string): string {
  const rel = relative(process.cwd(), path);
  return !isAbsolute(path) || rel.startsWith('..') || isAbsolute(rel) ? path : rel;
}

function fileSize(path: string): number {
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

const SESSION_KEYS = ['file', 'format', 'compressed', 'sessionId', 'parentSession', 'cwd', 'agents', 'calls', 'unanswered', 'inherited', 'lines', 'bytes', 'decodedBytes', 'reminders', 'loops', 'failures', 'errors', 'errorCount'];
const SITE_KEYS = ['callId', 'tool', 'agentId', 'logLine', 'seq', 'turn'];
const REMINDER_KEYS = [...SITE_KEYS, 'count', 'summary', 'command', 'arguments', 'text'];
const LOOP_KEYS = [...SITE_KEYS, 'kind', 'count', 'period', 'calls', 'summary', 'evidence', 'text', 'reminders', 'command'];
const FAILURE_KEYS = [...SITE_KEYS, 'ruleId', 'action', 'verdict', 'line', 'excerpt', 'message', 'command', 'summary'];

/** Rust's serde_json sorts keys; print them in the documented order instead. */
function pick<T extends object>(value: T, keys: string[]): T {
  const source = value as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const key of keys) out[key] = source[key];
  for (const key of Object.keys(source)) if (!(key in out)) out[key] = source[key];
  return out as T;
}

function ordered(session: SessionJson): SessionJson {
  const out = pick(session, SESSION_KEYS);
  out.reminders = session.reminders.map((r) => pick(r, REMINDER_KEYS));
  out.loops = session.loops.map((l) => pick(l, LOOP_KEYS));
  out.failures = session.failures.map((f) => pick(f, FAILURE_KEYS));
  return out;
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

export function style(stream: NodeJS.WriteStream): Style {
  // Colour only on a terminal; NO_COLOR (https://no-color.org) turns it off.
  const on = Boolean(stream.isTTY) && !process.env.NO_COLOR && process.env.TERM !== 'dumb';
  const paint = (code: string) => (text: string) => (on ? `\x1b[${code}m${text}\x1b[0m` : text);
  return { bold: paint('1'), dim: paint('2'), red: paint('31'), yellow: paint('33'), magenta: paint('35'), green: paint('32'), cyan: paint('36') };
}

/** Run `toolguard audit`; returns the exit code. */
export function audit(argv: string[]): number {
  let options: Options;
  try {
    options = parseArgs(argv);
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    process.stderr.write(`toolguard audit: ${e.message}\nTry 'toolguard audit --help'.\n`);
    return 2;
  }
  if (options.help) {
    process.stdout.write(AUDIT_HELP);
    return 0;
  }
  let auditor: Auditor;
  try {
    auditor = new Auditor(options.config === undefined ? undefined : loadConfig(options.config));
  } catch (e) {
    process.stderr.write(`toolguard audit: ${(e as Error).message}\n`);
    return 2;
  }
  const usingSample = options.paths.length === 0;
  const files = findLogs(usingSample ? [SAMPLE_DIR] : options.paths, options.format);
  if (usingSample && process.stderr.isTTY && !options.json) {
    process.stderr.write(`No files given: auditing the bundled sample (${display(SAMPLE_DIR)}).\n`);
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
    const report = JSON.parse(auditor.auditFile(file, options.format, onProgress)) as SessionJson;
    report.file = shown;
    sessions.push(ordered(report));
    before += sizes[i];
  }
  progress?.clear();
  if (files.length === 0 && !usingSample) {
    process.stderr.write(`toolguard audit: no session logs found under ${options.paths.join(', ')}\n`);
  }
  const document: AuditDocument = { sessions, summary: summarize(sessions, options.failOn) };
  if (options.json) process.stdout.write(JSON.stringify(document, null, 2) + '\n');
  else process.stdout.write(renderHuman(document, style(process.stdout), process.stdout.columns));
  return document.summary.exitCode;
}
