// `toolguard audit`: replay recorded agent sessions through the guard engine.
// Reading, decompression, parsing and the guard all run in Rust (one
// `auditFiles` batch); this layer loads the config, runs the batch and
// prints the report. The command line is read in options.mts, the files
// are found in inputs.mts, the report's types are in types.mts.

import { accessSync, constants, readFileSync, statSync, writeSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { Auditor, native } from 'toolguard';

import { UsageError } from '../args.mjs';
import { checkWithEngine, ConfigError, readConfig } from '../config.mjs';
import { DatasetSummary, datasetText, HtmlFolder } from '../dataset.mjs';
import { writeHtmlReport } from '../html.mjs';
import { PageError, PageWriter } from '../pages.mjs';
import { oneLine, renderHuman } from '../render.mjs';
import { renderJunit, renderSarif, unread } from '../reports.mjs';
import { Totals } from '../totals.mjs';
import { foldWaste, NO_WASTE, wasteLine } from '../waste.mjs';
import { sessionsInLogs } from '../words.mjs';
import {
  defaultLocations,
  display,
  fileMtime,
  fileSize,
  findInputs,
  hasLogs,
  packageRoot,
  SAMPLE_DIR,
  STDIN,
  stdinToFile,
} from './inputs.mjs';
import { AUDIT_HELP, isFolderTarget, parseOptions } from './options.mjs';
import { colorOn, Progress, style } from './progress.mjs';
import type { AuditDocument, SessionFigures, SessionJson } from './types.mjs';

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
  const found = inputs.length;
  if (options.sinceMs !== undefined) inputs = inputs.filter((i) => i.path === STDIN || !(fileMtime(i.path) < options.sinceMs!));
  // Logs were found but --since left none: said now, before an empty report.
  if (inputs.length === 0 && !options.allowEmpty)
    return nothingLeft(`--since left none of the ${found} logs found (each was last written before it)`);
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
      // Only the options can be refused before the audit starts (a bad
      // --shard): an error of toolguard's own, with a code, names the option.
      if (isToolguardError(e)) throw new UsageError(e.message);
      throw e;
    }
    pages?.finish();
  } finally {
    pages?.close();
    copy?.done();
    progress?.clear();
  }
  // --shard can leave no session (a Parquet file with no row too).
  if (count === 0 && !options.allowEmpty)
    return nothingLeft(
      `no session of the ${found} logs found was audited${options.shard === undefined ? '' : ` (--shard ${options.shard})`}`,
    );
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
  if (count > 0 && unreadCount === count) {
    process.stderr.write(
      `toolguard audit: no input could be read (${unreadNames.join('; ')}${count > unreadNames.length ? '; …' : ''}): nothing was audited\n`,
    );
    return 2;
  }
  return summary.exitCode;
}

/** An error the native side raised as data (`code` `TOOLGUARD_…`, `path`: src/errors.rs), not a callback's rethrown. */
function isToolguardError(e: unknown): e is Error & { code: string } {
  const code = (e as { code?: unknown } | null)?.code;
  return e instanceof Error && typeof code === 'string' && code.startsWith('TOOLGUARD_');
}

/** Exit 2 when the filters left nothing to audit: a CI gate must not pass on nothing (docs/audit.md). */
function nothingLeft(why: string): number {
  process.stderr.write(`toolguard audit: nothing to audit: ${why}; --allow-empty exits 0 instead\n`);
  return 2;
}

/** Runs from which the table report ends with the dataset summary (docs/audit-at-scale.md). */
const DATASET_MIN_RUNS = 10;

/** The streamed report's closing summary, on stderr (stdout holds only sessions). */
function summaryText(summary: AuditDocument['summary'], sessions: number): string {
  const n = (count: number, one: string) => `${count} ${one}${count === 1 ? '' : 's'}`;
  const head = `toolguard audit: ${sessionsInLogs(sessions, summary.files)} · ${n(summary.calls, 'tool call')} · ${n(summary.loops + summary.reminders, 'loop finding')} · ${n(summary.silentFailures, 'silent failure')} (${summary.ruleMatches} rule ${summary.ruleMatches === 1 ? 'match' : 'matches'}) · ${n(summary.errors, 'input error')}\n`;
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

export function packageVersion(): string {
  return (JSON.parse(readFileSync(join(packageRoot, 'package.json'), 'utf8')) as { version: string }).version;
}
