// The human report: one aligned table per session log, then a summary.

import type { AuditDocument, SessionJson } from './audit.mjs';

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
  cells: string[];
  paint: (s: string) => string;
  /** A dim second line under the detail column (the command). */
  note?: string;
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** Cut to `max` characters (code points) with `…`. */
function cut(text: string, max: number): string {
  const chars = [...text];
  return chars.length <= max ? text : chars.slice(0, Math.max(1, max - 1)).join('') + '…';
}

const width = (s: string) => [...s].length;
const pad = (s: string, n: number) => s + ' '.repeat(Math.max(0, n - width(s)));
const padLeft = (s: string, n: number) => ' '.repeat(Math.max(0, n - width(s))) + s;

function rows(session: SessionJson, c: Style): Row[] {
  const out: Row[] = [];
  for (const r of session.reminders) {
    out.push({
      logLine: r.logLine,
      cells: [String(r.logLine), r.callId, r.tool, `loop × ${r.count}`, r.command !== null ? `$ ${r.command}` : r.arguments],
      paint: c.yellow,
    });
  }
  // One row per loop (its alarms recur at every call it goes on): at the
  // call where it was raised, with the count it reached.
  let open: { row: Row; kind: string } | undefined;
  for (const l of session.loops) {
    const label = `${l.kind === 'same-error' ? 'same error' : l.kind} × ${l.count}`;
    if (l.reminders > 1 && open && open.kind === `${l.agentId}\u0000${l.kind}`) {
      open.row.cells[3] = label;
      open.row.cells[4] = `${l.reminders} reminders · ${l.evidence}`;
      continue;
    }
    const row: Row = {
      logLine: l.logLine,
      cells: [String(l.logLine), l.callId, l.tool, label, l.evidence],
      paint: c.yellow,
      note: l.command !== null ? `$ ${l.command}` : undefined,
    };
    out.push(row);
    open = { row, kind: `${l.agentId}\u0000${l.kind}` };
  }
  // One row per failing call: its rules, the first rule's line and excerpt.
  const byCall = new Map<string, SessionJson['failures']>();
  for (const f of session.failures) {
    const key = `${f.agentId}\u0000${f.callId}\u0000${f.logLine}`;
    byCall.set(key, [...(byCall.get(key) ?? []), f]);
  }
  for (const fs of byCall.values()) {
    const f = fs[0];
    const rules = fs.map((x) => (x.action === 'context' ? `${x.ruleId} (context)` : x.ruleId)).join(', ');
    out.push({
      logLine: f.logLine,
      cells: [String(f.logLine), f.callId, f.tool, rules, `out:${f.line}  ${f.excerpt}`],
      paint: f.verdict === 'error' ? c.red : c.yellow,
      note: f.command !== null ? `$ ${f.command}` : undefined,
    });
  }
  return out.sort((a, b) => a.logLine - b.logLine);
}

function sessionTitle(s: SessionJson): string {
  const parts: string[] = [];
  if (s.sessionId !== null) parts.push(`session ${s.sessionId}${s.parentSession !== null ? ` (subagent of ${s.parentSession})` : ''}`);
  else if (s.agents.length > 0) parts.push(`trace, ${plural(s.agents.length, 'agent')}: ${s.agents.join(', ')}`);
  if (s.cwd !== null) parts.push(`cwd ${s.cwd}`);
  parts.push(plural(s.calls, 'call'));
  if (s.unanswered > 0) parts.push(`${s.unanswered} without result`);
  if (s.inherited > 0) parts.push(`${s.inherited} inherited from the parent`);
  return parts.join(' · ');
}

export function renderHuman(doc: AuditDocument, c: Style, columns?: number): string {
  const lines: string[] = [];
  // Piped output (or a terminal that reports no size) gets a 120-column table.
  const maxWidth = Math.max(60, columns && columns > 0 ? columns : 120);
  for (const session of doc.sessions) {
    lines.push(c.bold(session.file));
    lines.push('  ' + c.dim(sessionTitle(session)));
    const table = rows(session, c);
    if (table.length === 0) {
      lines.push('  ' + c.green('no findings'));
    } else {
      const head = ['LINE', 'CALL', 'TOOL', 'FINDING', 'DETAIL'];
      const widths = head.map((h, i) => Math.max(width(h), ...table.map((r) => (i === 4 ? 0 : width(r.cells[i])))));
      const used = 2 + widths.slice(0, 4).reduce((a, b) => a + b + 2, 0);
      const detail = Math.max(20, maxWidth - used);
      const fmt = (cells: string[], paint = (x: string) => x) =>
        '  ' + [padLeft(cells[0], widths[0]), pad(cells[1], widths[1]), pad(cells[2], widths[2]), paint(pad(cells[3], widths[3])), cut(cells[4], detail)].join('  ');
      lines.push(c.dim(fmt(head)));
      for (const row of table) {
        // Colour the finding cell only, so the table stays readable.
        lines.push(fmt(row.cells, row.paint));
        if (row.note) lines.push(' '.repeat(used) + c.dim(cut(row.note, detail)));
      }
    }
    for (const e of session.errors) {
      lines.push('  ' + c.magenta(`! ${e.line === null ? 'file' : `line ${e.line}`}: ${e.message}`));
    }
    if (session.errorCount > session.errors.length) {
      lines.push('  ' + c.magenta(`! … and ${session.errorCount - session.errors.length} more input errors`));
    }
    lines.push('');
  }
  const s = doc.summary;
  const rules = Object.entries(s.rules)
    .map(([id, n]) => `${id} ×${n}`)
    .join(', ');
  const parts = [
    plural(s.files, 'log'),
    plural(s.calls, 'tool call'),
    s.reminders > 0 ? c.yellow(plural(s.reminders, 'loop reminder')) : plural(s.reminders, 'loop reminder'),
    ...(s.loops > 0 ? [c.yellow(plural(s.loops, 'loop alarm'))] : []),
    (s.failedCalls > 0 ? c.red : (x: string) => x)(`${plural(s.failedCalls, 'silent failure')}${rules ? ` (${rules})` : ''}`),
    s.errors > 0 ? c.magenta(plural(s.errors, 'input error')) : plural(s.errors, 'input error'),
  ];
  lines.push(`${c.bold('Summary:')} ${parts.join(' · ')}`);
  if (s.reminders + s.loops + s.failures > 0) {
    lines.push(c.dim('LINE: the tool call in the log · loop × N: the reminder due at the Nth identical call in a row · cycle/repeat/same error/re-read × N: a loop detector\'s alarm, at the call where it was raised, with the count it reached · out:N: the line of the tool output'));
  }
  return lines.join('\n') + '\n';
}
