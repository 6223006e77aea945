// Machine reports of `toolguard audit` for CI systems: SARIF 2.1.0 (code
// scanning) and JUnit XML (test report viewers). Both are written from the
// same audit document as the table and --json.

import { isAbsolute } from 'node:path';
import { pathToFileURL } from 'node:url';
import type * as Sarif from 'sarif';

import type { AuditDocument, FailureJson, LoopJson, ReminderJson, SessionJson } from './audit/types.mjs';

/** The SARIF rule id of a loop reminder (`--fail-on loop`); failures use their rule ids. */
const LOOP_RULE = 'loop';
const LOOP_TEXT =
  'The agent is stuck in a loop: the same call (or block of calls, or the same error) again and again (a loop reminder or alarm was due).';

/** Each loop once, where it started: a finding is a whole episode. */
const loopStarts = (s: SessionJson): LoopJson[] => s.loops ?? [];

/** A log nothing could be read from: empty, or no call audited and at least one input error. */
export const unread = (s: Pick<SessionJson, 'bytes' | 'calls' | 'errorCount'>): boolean =>
  s.bytes === 0 || (s.calls === 0 && s.errorCount > 0);

/** The failing calls of a session: one entry per call, with every rule that matched it. */
export function failingCalls(session: SessionJson): FailureJson[][] {
  const byCall = new Map<string, FailureJson[]>();
  for (const f of session.failures) {
    const key = `${f.agentId}\u0000${f.ordinal}`;
    byCall.set(key, [...(byCall.get(key) ?? []), f]);
  }
  return [...byCall.values()];
}

const what = (x: { command: string | null; arguments?: string }) => (x.command !== null ? `$ ${x.command}` : (x.arguments ?? ''));

function reminderText(r: ReminderJson): string {
  return `${r.tool} called ${r.count} times in a row with the same arguments: ${what(r)}`;
}

function failureText(f: FailureJson): string {
  return `${f.message} Output line ${f.line}: ${f.excerpt}${f.command !== null ? ` (command: ${f.command})` : ''}`;
}

/** A URI reference for a report's file name: relative stays relative (slashes), absolute becomes file://. */
function uriOf(file: string): string {
  if (isAbsolute(file)) return pathToFileURL(file).href;
  return file.split(/[\\/]/).map(encodeURIComponent).join('/');
}

function location(session: SessionJson, line: number | null): Sarif.Location[] | undefined {
  if (session.file === '(stdin)') return undefined;
  const physicalLocation: Sarif.PhysicalLocation = { artifactLocation: { uri: uriOf(session.file) } };
  if (line !== null) physicalLocation.region = { startLine: line };
  return [{ physicalLocation }];
}

/** The SARIF 2.1.0 log of an audit: one run, a result per reminder and per failing rule, input errors as notifications. */
export function renderSarif(doc: AuditDocument, version: string): string {
  const rules = new Map<string, Sarif.ReportingDescriptor>();
  const results: Sarif.Result[] = [];
  const notifications: Sarif.Notification[] = [];
  for (const s of doc.sessions) {
    for (const r of s.reminders) {
      if (!rules.has(LOOP_RULE))
        rules.set(LOOP_RULE, { id: LOOP_RULE, shortDescription: { text: LOOP_TEXT }, defaultConfiguration: { level: 'warning' } });
      results.push({ ruleId: LOOP_RULE, level: 'warning', message: { text: reminderText(r) }, locations: location(s, r.logLine) });
    }
    for (const l of loopStarts(s)) {
      if (!rules.has(LOOP_RULE))
        rules.set(LOOP_RULE, { id: LOOP_RULE, shortDescription: { text: LOOP_TEXT }, defaultConfiguration: { level: 'warning' } });
      results.push({
        ruleId: LOOP_RULE,
        level: 'warning',
        message: { text: `${l.summary}: ${l.evidence}` },
        locations: location(s, l.logLine),
      });
    }
    for (const f of s.failures) {
      if (!rules.has(f.ruleId)) rules.set(f.ruleId, { id: f.ruleId, shortDescription: { text: f.message } });
      results.push({
        ruleId: f.ruleId,
        level: f.action === 'error' ? 'error' : 'note',
        message: { text: failureText(f) },
        locations: location(s, f.logLine),
      });
    }
    for (const e of s.errors) {
      notifications.push({
        level: 'error',
        message: { text: `${s.file}${e.line !== null ? `:${e.line}` : ''}: ${e.message}` },
        locations: location(s, e.line),
      });
    }
    if (s.errorCount > s.errors.length) {
      notifications.push({ level: 'error', message: { text: `${s.file}: ${s.errorCount - s.errors.length} more input errors` } });
    }
  }
  // Rule indices must point into driver.rules.
  const ids = [...rules.keys()];
  for (const r of results) r.ruleIndex = ids.indexOf(r.ruleId!);
  const log: Sarif.Log = {
    $schema: 'https://json.schemastore.org/sarif-2.1.0.json',
    version: '2.1.0',
    runs: [
      {
        tool: { driver: { name: 'toolguard', version, rules: [...rules.values()] } },
        invocations: [{ executionSuccessful: !doc.sessions.every(unread), toolExecutionNotifications: notifications }],
        results,
      },
    ],
  };
  return JSON.stringify(log, null, 2) + '\n';
}

/** Characters XML 1.0 cannot hold (controls, lone surrogates, U+FFFE/F) become U+FFFD. */
const NOT_XML = /[^\t\n\r\x20-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;
const xmlText = (s: string) => s.replace(NOT_XML, '\uFFFD').replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const xmlAttr = (s: string) => xmlText(s).replace(/"/g, '&quot;').replace(/\n/g, '&#10;').replace(/\r/g, '&#13;').replace(/\t/g, '&#9;');

interface Case {
  name: string;
  /** A finding that matched --fail-on. */
  failure?: { type: string; message: string; text: string };
  /** An input error. */
  error?: { message: string };
  /** A finding outside --fail-on: reported, not failing. */
  out?: string;
}

/**
 * The JUnit XML report of an audit: a test suite per log, a test case per
 * finding (a failure when it matches --fail-on) and per input error (an
 * error); a log with neither holds one passing case.
 */
export function renderJunit(doc: AuditDocument): string {
  const failOn = doc.summary.failOn;
  const loopsFail = failOn === 'loop' || failOn === 'any';
  const failuresFail = failOn === 'failure' || failOn === 'any';
  const suites: string[] = [];
  const totals = { tests: 0, failures: 0, errors: 0 };
  for (const s of doc.sessions) {
    const cases: Case[] = [];
    for (const r of s.reminders) {
      const text = reminderText(r);
      cases.push({
        name: `line ${r.logLine}: ${r.callId} ${r.tool}: loop × ${r.count}`,
        ...(loopsFail ? { failure: { type: LOOP_RULE, message: r.summary, text } } : { out: text }),
      });
    }
    for (const l of loopStarts(s)) {
      const text = `${l.evidence}\n${l.text}`;
      cases.push({
        name: `line ${l.logLine}: ${l.callId} ${l.tool}: ${l.kind}`,
        ...(loopsFail ? { failure: { type: LOOP_RULE, message: l.summary, text } } : { out: text }),
      });
    }
    for (const fs of failingCalls(s)) {
      const f = fs[0]!;
      const ids = fs.map((x) => x.ruleId).join(', ');
      const text = fs.map(failureText).join('\n');
      cases.push({
        name: `line ${f.logLine}: ${f.callId} ${f.tool}: ${ids}`,
        ...(failuresFail ? { failure: { type: ids, message: f.summary, text } } : { out: text }),
      });
    }
    for (const e of s.errors) cases.push({ name: `input ${e.line === null ? 'file' : `line ${e.line}`}`, error: { message: e.message } });
    if (s.errorCount > s.errors.length)
      cases.push({ name: 'input: more errors', error: { message: `${s.errorCount - s.errors.length} more input errors` } });
    if (cases.length === 0) cases.push({ name: 'no findings' });
    const failures = cases.filter((c) => c.failure).length;
    const errors = cases.filter((c) => c.error).length;
    totals.tests += cases.length;
    totals.failures += failures;
    totals.errors += errors;
    const body = cases.map((c) => {
      const open = `    <testcase classname="${xmlAttr(s.file)}" name="${xmlAttr(c.name)}"`;
      if (c.failure)
        return `${open}>\n      <failure type="${xmlAttr(c.failure.type)}" message="${xmlAttr(c.failure.message)}">${xmlText(c.failure.text)}</failure>\n    </testcase>`;
      if (c.error) return `${open}>\n      <error message="${xmlAttr(c.error.message)}"/>\n    </testcase>`;
      if (c.out) return `${open}>\n      <system-out>${xmlText(c.out)}</system-out>\n    </testcase>`;
      return `${open}/>`;
    });
    suites.push(
      `  <testsuite name="${xmlAttr(s.file)}" tests="${cases.length}" failures="${failures}" errors="${errors}" skipped="0">\n${body.join('\n')}\n  </testsuite>`,
    );
  }
  return (
    '<?xml version="1.0" encoding="UTF-8"?>\n' +
    `<testsuites name="toolguard audit" tests="${totals.tests}" failures="${totals.failures}" errors="${totals.errors}">\n` +
    suites.map((x) => x + '\n').join('') +
    '</testsuites>\n'
  );
}
