/**
 * Whether a shell result's text already shows failure, so `when: 'success'`
 * rules stay silent (the model sees the failure anyway). Mirrors
 * `src/markers.rs` `shows_failure`.
 *
 * A marker counts when it is a whole line (surrounding whitespace ignored):
 * - `[exit code: N]` with N ≠ 0,
 * - `[status: <status>, exit code: N]` with N ≠ 0 (job_output),
 * - `[sandbox: file access denied …]`,
 * - `[killed by signal: …]`,
 * - `[timed out after …]`.
 */
export function showsFailure(text: string): boolean {
  for (const rawLine of text.split('\n')) {
    if (lineShowsFailure(rawLine.trim())) return true;
  }
  return false;
}

function lineShowsFailure(line: string): boolean {
  if (!line.startsWith('[') || !line.endsWith(']')) return false;
  const exit = /^\[(?:status: [^\]]*, )?exit code: (-?\d+)\]$/.exec(line);
  if (exit) return !/^-?0+$/.test(exit[1]!);
  return (
    line.startsWith('[sandbox: file access denied') ||
    line.startsWith('[killed by signal: ') ||
    line.startsWith('[timed out after ')
  );
}
