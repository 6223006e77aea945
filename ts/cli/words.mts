// The words every audit report (the table, its summary, the HTML page) uses
// for the same counts, so one number never goes by two names.

/** `n` and the word, plural unless `n` is 1. */
export function counted(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

export const WORDS = {
  /** One loop the detectors found (an entry of `loops[]`, however long it ran). */
  loop: 'loop',
  /** One time the model was told about a loop (a loop's `reminders` counts them). */
  alarm: 'loop alarm',
  /** DSH's result-blind repeat reminder (`reminders[]`; only with `loops: false`). */
  reminder: 'repeat reminder',
  /** A stretch of calls from the first flagged call until the agent moved on (the waste figures). */
  episode: 'stuck episode',
  /** A failing call and the agent's identical retries of it (the silent failures' waste figures). */
  failureEpisode: 'failure episode',
  /** A call whose output shows it failed: at least one rule matched (`silentFailures`; report.rs decides). */
  silentFailure: 'silent failure',
  /** One rule matching one call's output (an entry of `failures[]`; `ruleMatches`). */
  ruleMatch: 'rule match',
  /** One agent's run: what the findings and timelines are of (a log may hold several: an evaluation output). */
  session: 'session',
  /** One input file (or stdin); `summary.files` counts them. */
  log: 'log',
} as const;

/** "154 sessions in 109 logs": the two counts, each by its one name. */
export function sessionsInLogs(sessions: number, logs: number): string {
  return `${counted(sessions, WORDS.session)} in ${counted(logs, WORDS.log)}`;
}

/**
 * What each cost figure measures, said once (HTML titles; docs/audit.md
 * "Words"). Waste and stuck are different sums: waste holds stuck episodes
 * and silent failures, stuck only the episodes.
 */
export const MEANING = {
  waste:
    'waste: the calls, wall time and tokens from the first flagged call of each stuck episode or silent failure until the agent moved on (overlaps count once)',
  loopWaste:
    'waste in loops: the calls, wall time and tokens of each stuck episode, from the call the loop was flagged at until the agent moved on',
  failureWaste:
    "waste in silent failures: each failing call and the agent's identical retries of it, with the tokens of the model turns that made them (a turn's whole input, context included)",
  stuck: 'stuck: the calls and tokens inside stuck episodes only (loops; silent failures not included), so at most the waste',
} as const;
