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
} as const;
