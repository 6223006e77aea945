// The audit document's summary, folded one session's figures at a time,
// and a run's page of an HTML folder as a document of its own. Apart from
// audit/run.mts (which loads the native addon) so the thread that renders the
// pages of an HTML folder (pages.mts) can import it.

import type { AuditDocument, FailOn, SessionFigures, SessionJson } from './audit/types.mjs';

/** The document's summary, folded one session's figures at a time (a streamed audit keeps only this). */
export class Totals {
  private rules: Record<string, number> = {};
  private lastFile: string | undefined;
  private n = {
    sessions: 0,
    files: 0,
    calls: 0,
    reminders: 0,
    loops: 0,
    silentFailures: 0,
    ruleMatches: 0,
    errors: 0,
    bytes: 0,
    decodedBytes: 0,
  };
  add(s: SessionFigures) {
    for (const [rule, n] of Object.entries(s.rules)) this.rules[rule] = (this.rules[rule] ?? 0) + n;
    this.n.silentFailures += s.silentFailures;
    this.n.sessions++;
    // A file of many sessions (an evaluation output) counts once; its sessions come together.
    if (s.file !== this.lastFile) this.n.files++;
    this.lastFile = s.file;
    this.n.calls += s.calls;
    this.n.reminders += s.reminders;
    this.n.loops += s.loops;
    this.n.ruleMatches += s.ruleMatches;
    this.n.errors += s.errorCount;
    this.n.bytes += s.bytes;
    this.n.decodedBytes += s.decodedBytes;
  }
  summary(failOn: FailOn): AuditDocument['summary'] {
    const { reminders, loops, ruleMatches: failures } = this.n;
    const matched =
      failOn === 'any'
        ? reminders + loops + failures > 0
        : failOn === 'loop'
          ? reminders + loops > 0
          : failOn === 'failure'
            ? failures > 0
            : false;
    const n = this.n;
    return {
      sessions: n.sessions,
      files: n.files,
      calls: n.calls,
      reminders,
      loops,
      silentFailures: n.silentFailures,
      ruleMatches: n.ruleMatches,
      failures: n.ruleMatches,
      failedCalls: n.silentFailures,
      errors: n.errors,
      rules: { ...this.rules },
      bytes: n.bytes,
      decodedBytes: n.decodedBytes,
      failOn,
      exitCode: matched ? 1 : 0,
    };
  }
}

/** One session as a document of its own (a run's page in an HTML folder). */
export function oneSession(session: SessionJson, figures: SessionFigures, failOn: FailOn): AuditDocument {
  const totals = new Totals();
  totals.add(figures);
  const summary = totals.summary(failOn);
  summary.waste = session.waste;
  return { sessions: [session], summary };
}
