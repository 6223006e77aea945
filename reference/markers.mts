/**
 * Whether a shell result's text already shows failure, so `when: 'success'`
 * rules stay silent (the model sees the failure anyway). Mirrors
 * `crates/toolguard-core/src/markers.rs` `shows_failure`.
 *
 * The harness appends its markers one per line at the very end of a shell
 * result, so only that trailing block is read: a marker-looking line in the
 * middle is command output (a `cat` of an old transcript) and must not
 * silence the rules for the command that actually ran.
 */
import { trimLikeRust } from './whitespace.mjs';

/**
 * From the last line up, skipping blank lines: a sandbox denial, a timeout, a
 * fatal signal or a non-zero exit code (`[exit code: N]`,
 * `[status: <s>, exit code: N]`) shows failure; other markers are passed
 * over; the first line that is not a marker ends the block.
 */
export function showsFailure(text: string): boolean {
  // Walk lines from the end: the block is a few lines, the output may be megabytes.
  let end = text.length;
  while (end >= 0) {
    const start = end === 0 ? 0 : text.lastIndexOf('\n', end - 1) + 1;
    const line = trimLikeRust(text.slice(start, end));
    end = start - 1;
    if (line === '') continue;
    const failed = marker(line);
    if (failed === undefined) return false;
    if (failed) return true;
  }
  return false;
}

/**
 * Whether the trailing marker block reports a zero exit code (`[exit code: 0]`,
 * `[status: <s>, exit code: 0]`): the only case a verdict may say the command
 * exited 0. Mirrors `reports_exit_zero`.
 */
export function reportsExitZero(text: string): boolean {
  let end = text.length;
  while (end >= 0) {
    const start = end === 0 ? 0 : text.lastIndexOf('\n', end - 1) + 1;
    const line = trimLikeRust(text.slice(start, end));
    end = start - 1;
    if (line === '') continue;
    if (marker(line) === undefined) return false;
    if (exitCodeOf(line.slice(1, -1)) === false) return true;
  }
  return false;
}

/** A marker body's exit code as failed (true) or zero (false); `undefined` when it gives none. */
function exitCodeOf(body: string): boolean | undefined {
  if (body.startsWith('exit code: ')) return exitCodeFailed(body.slice('exit code: '.length));
  if (!body.startsWith('status: ')) return undefined;
  const status = body.slice('status: '.length);
  const at = status.lastIndexOf(', exit code: ');
  if (at === -1 || status.slice(0, at).includes(']')) return undefined;
  return exitCodeFailed(status.slice(at + ', exit code: '.length));
}

/** Whether a marker line shows failure; `undefined` when the line is not a marker. */
function marker(line: string): boolean | undefined {
  if (line.length < 2 || !line.startsWith('[') || !line.endsWith(']')) return undefined;
  const body = line.slice(1, -1);
  if (body.startsWith('sandbox: file access denied') || body.startsWith('killed by signal: ') || body.startsWith('timed out after ')) {
    return true;
  }
  if (body.startsWith('exit code: ')) return exitCodeFailed(body.slice('exit code: '.length));
  if (body.startsWith('status: ')) {
    // `[status: <s>]` alone reports no exit code: a marker, not a failure.
    const status = body.slice('status: '.length);
    const at = status.lastIndexOf(', exit code: ');
    if (at === -1 || status.slice(0, at).includes(']')) return false;
    return exitCodeFailed(status.slice(at + ', exit code: '.length)) ?? false;
  }
  return undefined;
}

/** Non-zero for `-?digits`; `undefined` for anything else. */
function exitCodeFailed(code: string): boolean | undefined {
  const digits = code.startsWith('-') ? code.slice(1) : code;
  if (!/^[0-9]+$/.test(digits)) return undefined;
  return /[1-9]/.test(digits);
}

/**
 * Whether `text` is a chunk of a command still running: a Codex status header
 * (at most 8 `Key: value` lines ending `Output:`) that says `Process running
 * with session ID N`. The rest of the output and the exit code come from later
 * `write_stdin` polls, so the chunk is no finished result. Mirrors
 * `crates/toolguard-core/src/status_header.rs` `still_running`.
 */
export function stillRunning(text: string): boolean {
  let running = false;
  let rest = text;
  for (let lines = 1; lines <= 8; lines++) {
    const nl = rest.indexOf('\n');
    const line = (nl === -1 ? rest : rest.slice(0, nl)).replace(/\r+$/, '');
    if (line === 'Output:') return running;
    const exited = line.startsWith('Exit code: ')
      ? line.slice('Exit code: '.length)
      : line.startsWith('Process exited with code ')
        ? line.slice('Process exited with code '.length)
        : undefined;
    if (exited !== undefined) {
      if (!/^[+-]?\d+$/.test(exited.trim())) return false;
    } else if (line.startsWith('Process running with session ID ')) {
      if (!/^\+?\d+$/.test(line.slice('Process running with session ID '.length).trim())) return false;
      running = true;
    } else if (!line.includes(': ')) {
      return false;
    }
    if (nl === -1) return false;
    rest = rest.slice(nl + 1);
  }
  return false;
}
