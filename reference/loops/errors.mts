/**
 * What a result says of a failure, in the words of its text
 * (crates/toolguard-core/src/loops/errors.rs): the line that names the
 * error ({@link errorLine}) and its signature ({@link signature}), an HTTP
 * error status, a rate limit, Codex's exit line, harness frame lines, and
 * whether an output names an error at all.
 */
import { digest, normalizeLine, utf8From, utf8Head } from '../normalize.mjs';
import { trimLikeRust } from '../whitespace.mjs';

/** Codex's shell output starts `Exit code: N`. */
export function codexExitFailed(text: string): boolean {
  if (!text.startsWith('Exit code: ')) return false;
  const code = trimLikeRust(text.slice('Exit code: '.length).split(/[\n\r]/)[0]!);
  return code !== '' && /^[0-9]+$/.test(code) && /[1-9]/.test(code);
}

/** Rust `str::lines`: split on `\n`, a trailing `\r` dropped, no last empty line. */
export function rustLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines.map((line) => (line.endsWith('\r') ? line.slice(0, -1) : line));
}

/** The lines looked at for an HTTP status: the first 20, and the whole lines of the last 400 bytes. */
function edgeLines(text: string): string[] {
  const head = rustLines(edgeSpans(text)[0]).slice(0, 20);
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes <= 400) return head;
  const tail = utf8From(text, bytes - 400);
  if (tail === text) return head;
  return [...head, ...rustLines(tail).slice(1)];
}

/** An HTTP 4xx/5xx status line (`HTTP/1.1 404 Not Found`, `HTTP 404`) near the edges of the output. */
export function httpError(text: string): number | undefined {
  const bytes = Buffer.byteLength(text, 'utf8');
  const found =
    bytes <= 4096 ? text.includes('HTTP') : utf8Head(text, 4096).includes('HTTP') || utf8From(text, bytes - 512, true).includes('HTTP');
  if (!found) return undefined;
  for (const raw of edgeLines(text)) {
    const code = statusOf(trimLikeRust(raw));
    if (code !== undefined) return code;
  }
  return undefined;
}

function statusOf(line: string): number | undefined {
  let rest: string;
  if (line.startsWith('HTTP/')) {
    const space = line.indexOf(' ', 5);
    if (space === -1) return undefined;
    rest = line.slice(space + 1);
  } else if (line.startsWith('HTTP ')) rest = line.slice(5);
  else return undefined;
  // Rust `rest.get(..3)?.parse::<u16>()`: three bytes that are a number (a `+` sign allowed).
  const head = rest.slice(0, 3);
  if (Buffer.byteLength(head, 'utf8') !== 3 || !/^\+?[0-9]+$/.test(head)) return undefined;
  const code = Number(head);
  const whole = rest.length === 3 || rest.charCodeAt(3) === 0x20;
  return whole && code >= 400 && code < 600 ? code : undefined;
}

/** Rate limits and temporary unavailability: back-off territory. */
export function transient(text: string): boolean {
  const code = httpError(text);
  if (code === 429 || code === 503) return true;
  const [head, tail] = edgeSpans(text);
  return [head, tail].some((span) => /too many requests|rate limit|rate_limit|retry-after/i.test(span));
}

/** The first 20 lines, and the whole lines of the last 400 bytes (loops.rs `edge_spans`). */
function edgeSpans(text: string): [string, string] {
  let headEnd = -1;
  for (let k = 0; k < 20; k += 1) {
    headEnd = text.indexOf('\n', headEnd + 1);
    if (headEnd === -1) break;
  }
  const head = headEnd === -1 ? text : text.slice(0, headEnd);
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes <= 400) return [head, ''];
  const from = utf8From(text, bytes - 400);
  const newline = from.indexOf('\n');
  return [head, newline === -1 ? '' : from.slice(newline + 1)];
}

/** Words that name a failure, ASCII case-insensitive (a regex without `u` folds no non-ASCII letter onto these). */
const ERROR_WORDS =
  /error|exception|fail|fatal|panic|not found|no such|denied|cannot|can't|could not|unable|refused|does not exist|invalid/i;

const TRACEBACK = 'Traceback (most recent call last):';

/** Rust `char::is_whitespace` for a line's first character. */
const STARTS_WITH_SPACE = /^[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]/;

/**
 * The line that names a failure: a Python traceback's exception line, else
 * the first line holding an error word or an HTTP error status (banners and
 * harness headers skipped), else the first non-empty line.
 */
export function errorLine(text: string): string | undefined {
  const at = text.lastIndexOf(TRACEBACK);
  if (at !== -1) {
    const exception = rustLines(text.slice(at))
      .slice(1)
      .find((l) => l !== '' && !STARTS_WITH_SPACE.test(l) && !l.startsWith('^') && !l.startsWith('~'));
    if (exception !== undefined) return exception;
  }
  let first: string | undefined;
  for (const line of text.split(/(?<=\n)/)) {
    const t = trimLikeRust(line);
    if (t === '' || isBanner(t) || isHarnessHeader(t)) continue;
    first ??= t;
    if (ERROR_WORDS.test(line) || httpError(t) !== undefined) return t;
  }
  return first;
}

/** Whether `text` names an error: a Python traceback, or a line with an error word that is not a passing test's line (loops.rs `names_error`). */
export function namesError(text: string): boolean {
  if (text.includes(TRACEBACK)) return true;
  for (const line of text.split('\n')) {
    if (ERROR_WORDS.test(line) && !(line.includes('PASS') || line.includes('passed') || line.includes(' ok'))) return true;
  }
  return false;
}

/**
 * Whether `text` shows that the program failed, not merely mentions an error
 * (errors.rs `shows_error`): a line that starts as a program prints its
 * failure (`error:`, `Error: …`, `fatal:`, `panic:`, `error[E0425]:`,
 * `ValueError: …`, a traceback header, `npm ERR!`, `[ERROR]`, after pytest's
 * `E   `) or a located diagnostic (`a.c:3:5: error: …`).
 */
export function showsError(text: string): boolean {
  return text.split('\n').some(errorLabel);
}

const RUST_SPACE = '\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000';
const HEAD_END = new RegExp(`[:\\[${RUST_SPACE}]`);
const LEADING_SPACE = new RegExp(`^[${RUST_SPACE}]+`);

/** Whether one line is a program's failure line (errors.rs `error_label`). */
export function errorLabel(line: string): boolean {
  let t = trimLikeRust(line);
  if (t.startsWith('E ')) t = t.slice(2).replace(LEADING_SPACE, '');
  if (t.startsWith('[ERROR]') || t.startsWith('npm ERR!') || t.startsWith(TRACEBACK) || t.startsWith('Exception in thread ')) return true;
  const cut = t.search(HEAD_END);
  const head = cut < 0 ? t : t.slice(0, cut);
  const next = cut < 0 ? undefined : t[cut];
  const lower = head.replace(/[A-Z]+/g, (c) => c.toLowerCase());
  if ((lower === 'error' || lower === 'fatal' || lower === 'panic' || lower === 'exception') && (next === ':' || next === '[')) return true;
  // An exception's name: `ValueError: x`, `java.io.IOException: x`, `AssertionError`.
  const named = (head.endsWith('Error') || head.endsWith('Exception')) && head.length > 5 && /^[A-Za-z][A-Za-z0-9_.$]*$/.test(head);
  if (named && (next === undefined || next === ':')) return true;
  return t.includes(': error:') || t.includes(': error[') || t.includes(': fatal error:') || t.includes('): error ');
}

function isBanner(t: string): boolean {
  return t.length >= 3 && /^[=_\-*]{3}/.test(t);
}

/** A line a harness wraps a result in (a header, an exit-status line), not the command's own output. */
export function isFrame(t: string): boolean {
  return (
    isHarnessHeader(t) ||
    (t.startsWith('Exit code ') && /^[0-9-]*$/.test(t.slice('Exit code '.length))) ||
    (t.startsWith('[Command finished with exit code ') && t.endsWith(']')) ||
    (t.startsWith('<returncode>') && t.endsWith('</returncode>')) ||
    (t.startsWith('[status: ') && t.endsWith(']'))
  );
}

/** A status line, or an empty output's `<output>` tags of mini-swe-agent's template for the model (loops.rs `is_wrapper`). */
export function isWrapper(t: string): boolean {
  return isFrame(t) || t === '<output>' || t === '</output>';
}

/** A status line whose number says the command was stopped, not that it failed: 124, 137, 143, -9, -15 (loops.rs `stopped`). */
export function stopped(frame: string): boolean {
  const m = /(-?)([0-9]+)[^0-9]*$/.exec(frame);
  if (m === null) return false;
  return m[1] === '-' ? m[2] === '9' || m[2] === '15' : m[2] === '124' || m[2] === '137' || m[2] === '143';
}

function isHarnessHeader(t: string): boolean {
  return (
    t.startsWith('Exit code: ') ||
    t.startsWith('Wall time: ') ||
    t === 'Output:' ||
    t.startsWith('Process running with session ID') ||
    (t.startsWith('[exit code: ') && t.endsWith(']'))
  );
}

/** Rust `char::is_whitespace` plus the quote and bracket characters a signature splits on. */
const SIGNATURE_SPLIT = /[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000"'`()[\]{},]/;

/**
 * The error signature of `line`: normalised, digit runs as `#`, and every
 * token that also occurs in the call's arguments as `<arg>`.
 */
export function signature(line: string, argumentsJson: string): string {
  const normal = normalizeLine(line);
  const out: string[] = [];
  // A run of argument tokens is one `<arg>`.
  let afterArg = false;
  for (const token of normal.split(SIGNATURE_SPLIT)) {
    const numeric = /^[0-9]*$/.test(token);
    const arg = !numeric && Buffer.byteLength(token, 'utf8') >= 3 && argumentsJson.includes(token);
    // Inside a run, a short token of the arguments (`-q`, `&&`) goes on with it.
    if (afterArg && (arg || token === '' || argumentsJson.includes(token))) continue;
    if (arg) {
      out.push('<arg>');
      afterArg = true;
      continue;
    }
    afterArg &&= token === '';
    out.push(token.replace(/[0-9]+/g, '#'));
  }
  return digest(out.join(' '));
}
