// The human report: one aligned table per session log, then a summary.

import type { AuditDocument, ReminderJson, SessionJson } from './audit/types.mjs';
import { failingCalls } from './reports.mjs';
import { wasteLine, type WasteSummary } from './waste.mjs';
import { counted, sessionsInLogs, WORDS } from './words.mjs';

export interface Style {
  bold(s: string): string;
  dim(s: string): string;
  red(s: string): string;
  yellow(s: string): string;
  magenta(s: string): string;
  green(s: string): string;
  cyan(s: string): string;
}

interface Row {
  logLine: number;
  /** The call's number in the session (the timeline's `#N`): the table's order. */
  ordinal: number;
  callId: string | null;
  cells: string[];
  paint: (s: string) => string;
  /** A dim second line under the detail column (the command). */
  note?: string;
}

const plural = counted;

/** Cut to `max` characters (code points) with `…`. */
function cut(text: string, max: number): string {
  const chars = [...text];
  return chars.length <= max ? text : chars.slice(0, Math.max(1, max - 1)).join('') + '…';
}

/**
 * One table line for any text from a log: a line break (a heredoc command)
 * becomes ⏎, other control characters (a terminal escape in the output) are
 * shown escaped, so neither can break the table nor drive the terminal.
 */
export function oneLine(text: string): string {
  return (
    text
      .replace(/\r?\n/g, ' ⏎ ')
      // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this escapes for display
      .replace(/[\x00-\x08\x0b-\x1f\x7f-\x9f]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`)
      .replace(/\t/g, ' ')
  );
}

const width = (s: string) => [...s].length;
const pad = (s: string, n: number) => s + ' '.repeat(Math.max(0, n - width(s)));
const padLeft = (s: string, n: number) => ' '.repeat(Math.max(0, n - width(s))) + s;

/**
 * The loops of a session: reminders of one run of identical calls (same
 * agent and arguments, counts rising) are one loop, shown once with the
 * highest count reached.
 */
export function loops(session: SessionJson): ReminderJson[][] {
  const out: ReminderJson[][] = [];
  const open = new Map<string, ReminderJson[]>();
  for (const r of session.reminders) {
    const key = `${r.agentId}\u0000${r.tool}\u0000${r.arguments}`;
    const run = open.get(key);
    if (run && r.count > run[run.length - 1]!.count) run.push(r);
    else {
      const fresh = [r];
      open.set(key, fresh);
      out.push(fresh);
    }
  }
  return out;
}

function rows(session: SessionJson, c: Style): Row[] {
  const out: Row[] = [];
  for (const run of loops(session)) {
    const [first, last] = [run[0]!, run[run.length - 1]!];
    out.push({
      logLine: first.logLine,
      ordinal: first.ordinal,
      callId: first.callId,
      cells: [
        String(first.logLine),
        first.callId ?? `#${first.ordinal}`,
        first.tool,
        `loop × ${last.count}+`,
        last.command !== null ? `$ ${last.command}` : last.arguments,
      ],
      paint: c.yellow,
    });
  }
  // One row per loop episode, however long it ran: at the call where it was
  // raised, with the count it reached and its first and last call.
  for (const l of session.loops) {
    const label = `${l.kind === 'same-error' ? 'same error' : l.kind} × ${l.count}`;
    const span = l.firstCall !== undefined ? `calls #${l.firstCall}–#${l.lastCall} · ` : '';
    const reminders = l.reminders > 1 ? `${plural(l.reminders, WORDS.alarm)} · ` : '';
    out.push({
      logLine: l.logLine,
      ordinal: l.ordinal,
      callId: l.callId,
      cells: [String(l.logLine), l.callId ?? `#${l.ordinal}`, l.tool, label, `${span}${reminders}${l.evidence}`],
      paint: c.yellow,
      note: l.command !== null ? `$ ${l.command}` : undefined,
    });
  }
  // One row per failing call: its rules, the first rule's line and excerpt.
  for (const fs of failingCalls(session)) {
    const f = fs[0]!;
    const rules = fs.map((x) => (x.action === 'context' ? `${x.ruleId} (context)` : x.ruleId)).join(', ');
    out.push({
      logLine: f.logLine,
      ordinal: f.ordinal,
      callId: f.callId,
      cells: [String(f.logLine), f.callId ?? `#${f.ordinal}`, f.tool, rules, `out:${f.line}  ${f.excerpt}`],
      paint: f.verdict === 'error' ? c.red : c.yellow,
      note: f.command !== null ? `$ ${f.command}` : undefined,
    });
  }
  // Where a log line says nothing (a trajectory is one JSON document, a
  // Parquet row has none), the first column is the call's number instead.
  const lineless = !linesMean(session);
  for (const row of out) {
    if (lineless) row.cells.splice(0, 2, `#${row.ordinal}`, row.callId ?? '');
    row.cells = row.cells.map(oneLine);
    if (row.note !== undefined) row.note = oneLine(row.note);
  }
  // In call order: a loop and a failure of the same stretch side by side.
  return out.sort((a, b) => a.ordinal - b.ordinal || a.logLine - b.logLine);
}

/** Formats with one event a line, whose line numbers place a call in the file. */
const LINE_FORMATS = ['auto', 'dsh', 'trace', 'claude-code', 'codex', 'otlp'];

/** Whether the session's log lines place its calls: a line-per-event log, not a trajectory or a Parquet row (FILE#ROW). */
function linesMean(s: SessionJson): boolean {
  return LINE_FORMATS.includes(s.format) && !/#\d+$/.test(s.file);
}

function sessionTitle(s: SessionJson): string {
  const parts: string[] = [];
  // A trajectory names its format (and its place in a file of many sessions).
  const trajectory = !LINE_FORMATS.includes(s.format);
  if (trajectory) parts.push(`${s.format}${s.session > 0 ? `, session ${s.session} of the file` : ''}`);
  if (s.sessionId !== null) parts.push(`session ${s.sessionId}${s.parentSession !== null ? ` (subagent of ${s.parentSession})` : ''}`);
  else if (s.agents.length > 0 && !trajectory) parts.push(`trace, ${plural(s.agents.length, 'agent')}: ${s.agents.join(', ')}`);
  if (s.model !== null) parts.push(`model ${s.model}`);
  if (s.cwd !== null) parts.push(`cwd ${s.cwd}`);
  parts.push(plural(s.calls, 'call'));
  if (s.unanswered > 0) parts.push(`${s.unanswered} without result`);
  if (s.inherited > 0) parts.push(`${s.inherited} inherited from the parent`);
  return parts.join(' · ');
}

/** DETAIL's length when the output is no terminal: the text a reader needs, bounded (an argument can be a whole file). */
const PIPED_DETAIL = 200;

export function renderHuman(doc: AuditDocument, c: Style, columns?: number): string {
  const lines: string[] = [];
  // A terminal's width bounds the table; piped output (or a terminal that
  // reports no size) has no width to fit, so DETAIL keeps PIPED_DETAIL characters.
  const fits = columns !== undefined && columns > 0;
  const maxWidth = Math.max(60, fits ? columns : 0);
  for (const session of doc.sessions) {
    lines.push(c.bold(oneLine(session.file)));
    lines.push('  ' + c.dim(oneLine(sessionTitle(session))));
    const table = rows(session, c);
    if (table.length === 0) {
      lines.push('  ' + c.green('no findings'));
    } else {
      const head = [linesMean(session) ? 'LINE' : 'CALL', linesMean(session) ? 'CALL' : 'ID', 'TOOL', 'FINDING', 'DETAIL'];
      const widths = head.map((h, i) => Math.max(width(h), ...table.map((r) => (i === 4 ? 0 : width(r.cells[i])))));
      const used = 2 + widths.slice(0, 4).reduce((a, b) => a + b + 2, 0);
      const detail = fits ? Math.max(20, maxWidth - used) : PIPED_DETAIL;
      const fmt = (cells: string[], paint = (x: string) => x) =>
        '  ' +
        [
          padLeft(cells[0], widths[0]),
          pad(cells[1], widths[1]),
          pad(cells[2], widths[2]),
          paint(pad(cells[3], widths[3])),
          cut(cells[4], detail),
        ].join('  ');
      lines.push(c.dim(fmt(head)));
      for (const row of table) {
        // Colour the finding cell only, so the table stays readable.
        lines.push(fmt(row.cells, row.paint));
        if (row.note) lines.push(' '.repeat(used) + c.dim(cut(row.note, detail)));
      }
    }
    for (const e of session.errors) {
      lines.push('  ' + c.magenta(`! ${e.line === null ? 'file' : `line ${e.line}`}: ${oneLine(e.message)}`));
    }
    if (session.errorCount > session.errors.length) {
      lines.push('  ' + c.magenta(`! … and ${session.errorCount - session.errors.length} more input errors`));
    }
    // Reader notes (an action without its observation, no exit codes): dim, not errors.
    for (const n of session.notes ?? []) {
      lines.push('  ' + c.dim(`· ${n.line === null ? '' : `line ${n.line}: `}${oneLine(n.message)}`));
    }
    if ((session.noteCount ?? 0) > (session.notes ?? []).length) {
      lines.push('  ' + c.dim(`· … and ${session.noteCount - session.notes.length} more notes`));
    }
    lines.push('');
  }
  const s = doc.summary;
  // A rule is reported once per call, so its number is a number of calls too.
  const rules = Object.entries(s.rules)
    .map(([id, n]) => `${id} ${n}`)
    .join(', ');
  const parts = [
    sessionsInLogs(s.sessions, s.files),
    plural(s.calls, 'tool call'),
    s.reminders > 0 ? c.yellow(plural(s.reminders, WORDS.reminder)) : plural(s.reminders, WORDS.reminder),
    ...(s.loops > 0 ? [c.yellow(plural(s.loops, WORDS.loop))] : []),
    (s.silentFailures > 0 ? c.red : (x: string) => x)(
      `${plural(s.silentFailures, WORDS.silentFailure)} (${plural(s.ruleMatches, WORDS.ruleMatch, 'rule matches')}${rules ? `: ${rules}` : ''})`,
    ),
    s.errors > 0 ? c.magenta(plural(s.errors, 'input error')) : plural(s.errors, 'input error'),
  ];
  lines.push(`${c.bold('Summary:')} ${parts.join(' · ')}`);
  const waste = (s as typeof s & { waste?: WasteSummary }).waste;
  if (waste !== undefined) lines.push(wasteLine(waste));
  if (s.reminders + s.loops + s.ruleMatches > 0) {
    lines.push(
      c.dim(
        "LINE: the tool call in the log (CALL #N where a line says nothing: a trajectory, a Parquet row) · loop × N+: at least N identical calls in a row (the highest repeat reminder due) · cycle/repeat/same error/re-read/redo × N: one loop, at the call where it was raised, with the count it reached and its calls (#: the timeline's call numbers) · out:N: the line of the tool output",
      ),
    );
  }
  return lines.join('\n') + '\n';
}
