// The audit's report as JSON: the sessions, their findings and the summary
// (what `--report json` prints, in the native audit's key order), and the
// figures a summary folds of one session.

import type { TimelineCallJson, WasteJson, WasteSummary } from '../waste.mjs';
import type { DatasetJson } from '../dataset.mjs';

export const FAIL_ON = ['loop', 'failure', 'any', 'none'] as const;
export type FailOn = (typeof FAIL_ON)[number];
/** A `--format` name: one of the native `logFormats()` (the audit crate's one list). */
export type Format = string;

/** How the result is printed: a table for people, or a document for machines. */
export const REPORTS = ['table', 'json', 'jsonl', 'sarif', 'junit'] as const;
export type Report = (typeof REPORTS)[number];

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
  /** Rule matches: one entry per rule that matched a call's output. */
  failures: FailureJson[];
  /** Silent failures: calls with at least one rule match (decided by the native audit, report.rs). */
  silentFailures: number;
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
  /** Silent failures: calls with at least one rule match. */
  silentFailures: number;
  /** Rule matches: entries of the session's `failures` (a call can match several rules). */
  ruleMatches: number;
  /** Rule matches by rule id. */
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
    /** Silent failures: calls with at least one rule match (the table's and the HTML pages' "silent failures"). */
    silentFailures: number;
    /** Rule matches: one per rule that matched a call's output (the sessions' `failures` entries). */
    ruleMatches: number;
    /** The same count as `ruleMatches`, under its older name (kept for existing readers). */
    failures: number;
    /** The same count as `silentFailures`, under its older name (kept for existing readers). */
    failedCalls: number;
    errors: number;
    /** Rule matches by rule id. */
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
