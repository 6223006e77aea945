/**
 * Result normalisation for the loop detectors, as
 * crates/toolguard-core/src/normalize.rs does it: what makes two tool results
 * "the same" once the noise that changes on every run (ANSI colour,
 * carriage-return overdraw, progress bars, timestamps, durations, UUIDs, hex
 * ids, pids, generated temp paths) is taken out. Line order does not count.
 *
 * The native engine works on UTF-8 bytes; every test it makes on a byte is an
 * ASCII test, and a non-ASCII byte (>= 0x80) behaves like a UTF-16 code unit
 * >= 0x80, so this reads code units. Lengths that the native side measures in
 * bytes (the long-output edges) are measured in UTF-8 bytes here too.
 *
 * Where the native engine keeps a 64-bit digest of the normal form, this
 * keeps the normal form itself (sorted lines) and hashes it with SHA-1
 * ({@link digest}): equality is what matters, not the digest's value.
 */
import { createHash } from 'node:crypto';

/**
 * A 64-bit digest as 16 hex digits: the first half of SHA-1 of the text's
 * UTF-8 (node:crypto, so long results are hashed natively). Only equality of
 * digests is used; their values are this engine's own.
 */
export function digest(text: string): string {
  return createHash('sha1').update(text, 'utf8').digest('hex').slice(0, 16);
}

/** Outputs longer than this (UTF-8 bytes) are digested by their first and last `DIGEST_EDGE` bytes plus their length. */
export const DIGEST_EDGE = 32 * 1024;

/** Rust's `str::trim_end` (Unicode White_Space). */
const TRAILING_SPACE = /[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+$/;

export function trimEndLikeRust(text: string): string {
  return text.replace(TRAILING_SPACE, '');
}

/** Bytes after which a line may need normalising: digits, ESC, `/`, `\r`, `%`. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: ESC starts the ANSI sequences normalising removes
const SPECIAL = /[0-9\x1b/\r%]/;

const isHigh = (unit: number) => unit >= 0xd800 && unit <= 0xdbff;
const isLow = (unit: number) => unit >= 0xdc00 && unit <= 0xdfff;

/**
 * The UTF-8 prefix of `text` of at most `bytes` bytes, cut down to a
 * character boundary (Rust `floor_char_boundary`). Only the first `bytes`
 * code units are encoded (each is at least one byte): a long output costs no
 * more than its head.
 */
export function utf8Head(text: string, bytes: number): string {
  let part = text.slice(0, bytes);
  if (part.length > 0 && isHigh(part.charCodeAt(part.length - 1))) part = text.slice(0, bytes + 1);
  const buffer = Buffer.from(part, 'utf8');
  let end = Math.min(bytes, buffer.length);
  while (end > 0 && end < buffer.length && (buffer[end]! & 0xc0) === 0x80) end -= 1;
  return buffer.toString('utf8', 0, end);
}

/**
 * The UTF-8 suffix of `text` from byte `from`, moved up to a character
 * boundary (Rust `ceil_char_boundary`, or `floor` when `down`). Only the last
 * code units that can hold those bytes are encoded.
 */
export function utf8From(text: string, from: number, down = false): string {
  const total = Buffer.byteLength(text, 'utf8');
  const wanted = Math.max(0, total - Math.max(0, from));
  let at = Math.max(0, text.length - wanted);
  if (at > 0 && isLow(text.charCodeAt(at)) && isHigh(text.charCodeAt(at - 1))) at -= 1;
  const buffer = Buffer.from(text.slice(at), 'utf8');
  let start = Math.min(buffer.length, Math.max(0, buffer.length - wanted));
  while (start > 0 && start < buffer.length && (buffer[start]! & 0xc0) === 0x80) start += down ? -1 : 1;
  return buffer.toString('utf8', start);
}

/**
 * The order-insensitive digest of `text` after normalisation (`is_error`
 * folded in, so an error never equals a success with the same text).
 * `memo` (raw line → normal form, bounded) is the native `LineMemo`: it
 * changes no answer, only what a recurring line costs.
 */
export function resultDigest(text: string, isError: boolean, memo: Map<string, string>, positions = false): string {
  const lines: string[] = [];
  const bytes = Buffer.byteLength(text, 'utf8');
  let count: number;
  if (bytes <= 2 * DIGEST_EDGE) {
    addText(text, lines, memo, positions);
    count = lines.length;
  } else {
    const buffer = Buffer.from(text, 'utf8');
    let head = DIGEST_EDGE;
    while ((buffer[head]! & 0xc0) === 0x80) head -= 1;
    let tail = buffer.length - DIGEST_EDGE;
    while ((buffer[tail]! & 0xc0) === 0x80) tail += 1;
    addText(buffer.toString('utf8', 0, head), lines, memo, positions);
    addText(buffer.toString('utf8', tail), lines, memo, positions);
    count = lines.length + bytes;
  }
  lines.sort();
  return digest(`${positions ? 'P' : ''}${isError ? 'E' : 'S'}${count}\n${lines.join('\n')}`);
}

/**
 * The digest of a failure's output, positions masked in every line
 * (normalize.rs `failure_digest_with`): an edit above the failing line moves
 * them, the failure stays what it was.
 */
export function failureDigest(text: string, isError: boolean, memo: Map<string, string>): string {
  return resultDigest(text, isError, memo, true);
}

/** normalize.rs `mask_positions`: numbers that give a place in a source file as `#`. */
export function maskPositions(line: string): string {
  const c = (k: number) => (k < line.length ? line.charCodeAt(k) : -1);
  let out = '';
  let flushed = 0;
  let i = 0;
  const lead = run(line, 0, (u) => u === 0x20 || u === 0x09);
  const digitsEnd = run(line, lead, isDigit);
  if (digitsEnd > lead && c(run(line, digitsEnd, (u) => u === 0x20)) === 0x7c) {
    out += `${line.slice(0, lead)}#`;
    flushed = digitsEnd;
    i = digitsEnd;
  }
  while (i < line.length) {
    if (!isDigit(c(i)) || (i > 0 && isWord(c(i - 1)))) {
      i += 1;
      continue;
    }
    const end = run(line, i, isDigit);
    if (end < line.length && isWord(c(end))) {
      i = end;
      continue;
    }
    const before = line.slice(0, i);
    const position =
      (Buffer.byteLength(before, 'utf8') >= 5 && before.slice(-5).toLowerCase() === 'line ') ||
      (before.endsWith(':') && namesAPlace(before.slice(0, -1)));
    if (position) {
      out += `${line.slice(flushed, i)}#`;
      flushed = end;
    }
    i = end;
  }
  return out + line.slice(flushed);
}

function namesAPlace(before: string): boolean {
  if (before.endsWith('#')) return true;
  let start = 0;
  // ASCII delimiters only, as natively.
  for (let k = before.length - 1; k >= 0; k -= 1) {
    const c = before.charCodeAt(k);
    if (isAsciiSpace(c) || c === 0x28 || c === 0x22 || c === 0x27 || c === 0x5b || c === 0x3c || c === 0x60) {
      start = k + 1;
      break;
    }
  }
  const token = before.slice(start);
  return token.length > 0 && isWord(token.charCodeAt(token.length - 1)) && (token.includes('.') || token.includes('/'));
}

const MEMO_MAX = 4096;

function addText(text: string, out: string[], memo: Map<string, string>, positions = false): void {
  for (const line of text.split('\n')) {
    let normal: string;
    if (!SPECIAL.test(line)) {
      normal = trimEndLikeRust(line);
    } else {
      // The two forms of a line are memoised apart.
      const key = positions ? `P${line}` : `S${line}`;
      const known = memo.get(key);
      if (known !== undefined) {
        normal = known;
      } else {
        const form = normalizeLine(line);
        normal = trimEndLikeRust(positions ? maskPositions(form) : form);
        if (memo.size >= MEMO_MAX) memo.clear();
        memo.set(key, normal);
      }
    }
    if (normal !== '') out.push(normal);
  }
}

const isDigit = (c: number) => c >= 0x30 && c <= 0x39;
const isAlpha = (c: number) => (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a);
const isHex = (c: number) => isDigit(c) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);
/** ASCII letters, digits and `_`. */
const isWord = (c: number) => isDigit(c) || isAlpha(c) || c === 0x5f;
/** Rust `u8::is_ascii_whitespace`: space, \t, \n, \x0c, \r (not \x0b). */
const isAsciiSpace = (c: number) => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0c || c === 0x0d;

/**
 * Where the ANSI escape sequence starting at `text[i]` (an ESC) ends (native
 * `escape_end`): CSI `ESC [`, parameter and intermediate bytes, one final
 * byte; OSC `ESC ]` up to BEL or `ESC \`; otherwise `ESC`, intermediate
 * bytes, one final byte. Never takes a `\n` nor a code unit that cannot end it.
 */
export function escapeEnd(text: string, i: number): number {
  const n = text.length;
  let j = i + 1;
  const c = j < n ? text.charCodeAt(j) : -1;
  if (c === 0x5b) {
    j += 1;
    while (j < n && text.charCodeAt(j) >= 0x20 && text.charCodeAt(j) <= 0x3f) j += 1;
    if (j < n && text.charCodeAt(j) >= 0x40 && text.charCodeAt(j) <= 0x7e) j += 1;
  } else if (c === 0x5d) {
    j += 1;
    while (j < n) {
      const d = text.charCodeAt(j);
      if (d === 0x07) return j + 1;
      if (d === 0x1b && j + 1 < n && text.charCodeAt(j + 1) === 0x5c) return j + 2;
      if (d === 0x1b || d === 0x0a) return j;
      j += 1;
    }
  } else {
    while (j < n && text.charCodeAt(j) >= 0x20 && text.charCodeAt(j) <= 0x2f) j += 1;
    if (j < n && text.charCodeAt(j) >= 0x30 && text.charCodeAt(j) <= 0x7e) j += 1;
  }
  return j;
}

/** `text` as a terminal shows it (native `strip_ansi`): escape sequences removed, newlines kept. */
export function stripAnsi(text: string): string {
  let i = text.indexOf('\x1b');
  if (i === -1) return text;
  let out = '';
  let flushed = 0;
  while (i !== -1) {
    out += text.slice(flushed, i);
    flushed = escapeEnd(text, i);
    i = text.indexOf('\x1b', flushed);
  }
  return out + text.slice(flushed);
}

/** Normalise one line (no `\n`): the normal form native `normalize_line` writes. */
export function normalizeLine(input: string): string {
  let line = input.endsWith('\r') ? input.slice(0, -1) : input;
  const cr = line.lastIndexOf('\r');
  if (cr !== -1) line = line.slice(cr + 1);
  if (isProgressBar(line)) return '<progress>';
  const n = line.length;
  const at = (i: number) => (i < n ? line.charCodeAt(i) : -1);
  let out = '';
  let i = 0;
  let flushed = 0;
  let lastWord = '';
  while (i < n) {
    const b = line.charCodeAt(i);
    if (b === 0x1b) {
      out += line.slice(flushed, i);
      i = escapeEnd(line, i);
      flushed = i;
      continue;
    }
    const wordStart = i === 0 || !isWord(line.charCodeAt(i - 1));
    if (b === 0x2f && wordStart) {
      const path = tempPath(line, i);
      if (path !== undefined) {
        out += line.slice(flushed, i) + path.text;
        i = path.end;
        flushed = path.end;
        lastWord = '';
        continue;
      }
    }
    if (isWord(b) && wordStart) {
      const end = wordEnd(line, i);
      if (isHex(b) && (isDigit(b) || end - i >= 7)) {
        let replaced: [number, string] | undefined;
        const uuid = end - i === 8 ? uuidAt(line, i) : undefined;
        if (uuid !== undefined) replaced = [uuid, '<uuid>'];
        else if (!isDigit(b)) replaced = isHexId(line.slice(i, end)) ? [end, '<hex>'] : undefined;
        else {
          const next = at(end);
          const time = next === 0x2d || next === 0x3a ? timestampAt(line, i) : undefined;
          if (time !== undefined) replaced = [time, '<time>'];
          else {
            const duration = durationAt(line, i);
            if (duration !== undefined) replaced = [duration, '<dur>'];
            else if (isTimingWord(lastWord)) {
              const e = numberEnd(line, i);
              replaced = e === undefined ? undefined : [e, '<dur>'];
            } else if (lastWord.toLowerCase() === 'pid' || lastWord.toLowerCase() === 'process') {
              const e = run(line, i, isDigit);
              replaced = e === n || !isWord(line.charCodeAt(e)) ? [e, '<pid>'] : undefined;
            } else replaced = isHexId(line.slice(i, end)) ? [end, '<hex>'] : undefined;
          }
        }
        if (replaced !== undefined) {
          out += line.slice(flushed, i) + replaced[1];
          i = replaced[0];
          flushed = replaced[0];
          lastWord = '';
          continue;
        }
      }
      lastWord = line.slice(i, end);
      i = end;
      continue;
    }
    if (!isAsciiSpace(b) && b !== 0x3d && b !== 0x3a && b !== 0x5b) lastWord = '';
    i += 1;
  }
  return out + line.slice(flushed);
}

function run(line: string, from: number, test: (c: number) => boolean): number {
  let i = from;
  while (i < line.length && test(line.charCodeAt(i))) i += 1;
  return i;
}

function wordEnd(line: string, i: number): number {
  return run(line, i, isWord);
}

function numberEnd(line: string, i: number): number | undefined {
  let end = run(line, i, isDigit);
  if (line.charCodeAt(end) === 0x2e) end = run(line, end + 1, isDigit);
  return end === line.length || !isWord(line.charCodeAt(end)) ? end : undefined;
}

/** A key whose number is a measured time (`duration_ms: 0.25`, `elapsed 3.1`); ASCII case-insensitive. */
function isTimingWord(word: string): boolean {
  if (word.length < 4) return false;
  const lower = word.toLowerCase(); // a word is ASCII letters, digits and `_`
  return lower.startsWith('duration') || lower.startsWith('elapsed') || lower === 'took' || lower.endsWith('_ms');
}

const hexRun = (line: string, i: number, n: number) => {
  if (i + n > line.length) return false;
  for (let k = i; k < i + n; k += 1) if (!isHex(line.charCodeAt(k))) return false;
  return true;
};
const digitsAt = (line: string, i: number, n: number) => {
  if (i + n > line.length) return false;
  for (let k = i; k < i + n; k += 1) if (!isDigit(line.charCodeAt(k))) return false;
  return true;
};

function uuidAt(line: string, i: number): number | undefined {
  let at = i;
  const groups = [8, 4, 4, 4, 12];
  for (let k = 0; k < groups.length; k += 1) {
    if (!hexRun(line, at, groups[k]!)) return undefined;
    at += groups[k]!;
    if (k < 4) {
      if (line.charCodeAt(at) !== 0x2d) return undefined;
      at += 1;
    }
  }
  return at === line.length || !isWord(line.charCodeAt(at)) ? at : undefined;
}

function timestampAt(line: string, i: number): number | undefined {
  let at = i;
  let matched = false;
  const c = (k: number) => (k < line.length ? line.charCodeAt(k) : -1);
  if (digitsAt(line, at, 4) && c(at + 4) === 0x2d && digitsAt(line, at + 5, 2) && c(at + 7) === 0x2d && digitsAt(line, at + 8, 2)) {
    at += 10;
    matched = true;
    if (c(at) === 0x54 || c(at) === 0x20) {
      const time = timeAt(line, at + 1);
      if (time !== undefined) at = time;
    }
  } else {
    const end = timeAt(line, at);
    if (end !== undefined) {
      at = end;
      matched = true;
    }
  }
  if (!matched) return undefined;
  if (c(at) === 0x5a) at += 1;
  else if ((c(at) === 0x2b || c(at) === 0x2d) && digitsAt(line, at + 1, 2) && c(at + 3) === 0x3a && digitsAt(line, at + 4, 2)) at += 6;
  return at === line.length || !isWord(line.charCodeAt(at)) ? at : undefined;
}

function timeAt(line: string, i: number): number | undefined {
  const c = (k: number) => (k < line.length ? line.charCodeAt(k) : -1);
  const h = run(line, i, isDigit);
  if (h === i || h - i > 2 || c(h) !== 0x3a || !digitsAt(line, h + 1, 2)) return undefined;
  let at = h + 3;
  if (c(at) === 0x3a && digitsAt(line, at + 1, 2)) {
    at += 3;
    if (c(at) === 0x2e && isDigit(c(at + 1))) at = run(line, at + 1, isDigit);
  } else if (isDigit(c(at))) {
    return undefined;
  }
  return at;
}

const UNITS = new Set([
  'ns',
  'us',
  'µs',
  'ms',
  's',
  'sec',
  'secs',
  'second',
  'seconds',
  'm',
  'min',
  'mins',
  'minute',
  'minutes',
  'h',
  'hr',
  'hrs',
  'hour',
  'hours',
]);

function durationAt(line: string, i: number): number | undefined {
  const c = (k: number) => (k < line.length ? line.charCodeAt(k) : -1);
  let at = run(line, i, isDigit);
  if (c(at) === 0x2e && isDigit(c(at + 1))) at = run(line, at + 1, isDigit);
  const unitStart = c(at) === 0x20 ? at + 1 : at;
  const end = run(line, unitStart, (u) => isAlpha(u) || u >= 0x80);
  // A compound duration goes on after its hours or minutes (`0m1.234s`, `1h2m`).
  const unit = line.slice(unitStart, end);
  if (unitStart === at && end < line.length && isDigit(line.charCodeAt(end)) && (unit === 'h' || unit === 'm'))
    return durationAt(line, end);
  if (end === unitStart || (end < line.length && isWord(line.charCodeAt(end)))) return undefined;
  return UNITS.has(line.slice(unitStart, end)) ? end : undefined;
}

function isHexId(word: string): boolean {
  if (word.startsWith('0x')) {
    const rest = word.slice(2);
    return rest.length > 0 && /^[0-9a-fA-F]+$/.test(rest);
  }
  return word.length >= 7 && /^[0-9a-fA-F]+$/.test(word) && /[0-9]/.test(word) && /[a-fA-F]/.test(word);
}

const TEMP_ROOTS = ['/tmp/', '/var/folders/', '/private/var/folders/', '/var/tmp/'];

function tempPath(line: string, i: number): { text: string; end: number } | undefined {
  const root = TEMP_ROOTS.find((r) => line.startsWith(r, i));
  if (root === undefined) return undefined;
  const end = run(
    line,
    i,
    (c) => !isAsciiSpace(c) && c !== 0x22 && c !== 0x27 && c !== 0x60 && c !== 0x3a && c !== 0x2c && c !== 0x29 && c !== 0x28,
  );
  const path = line.slice(i, end);
  let text = root.slice(0, -1);
  for (const segment of path
    .slice(root.length - 1)
    .split('/')
    .slice(1)) {
    text += '/' + (looksGenerated(segment) ? '<tmp>' : segment);
  }
  return { text, end };
}

function looksGenerated(segment: string): boolean {
  const stem = segment.split('.')[0]!;
  const bytes = Buffer.byteLength(stem, 'utf8');
  if (bytes > 3 && stem.startsWith('tmp')) return true;
  let d = 0;
  let a = 0;
  for (let k = 0; k < stem.length; k += 1) {
    const c = stem.charCodeAt(k);
    if (isDigit(c)) d += 1;
    else if (isAlpha(c)) a += 1;
  }
  return bytes >= 6 && d >= 3 && a >= 2;
}

const BAR_CHARS = new Set(['█', '▓', '▒', '░', '#', '=', '━', '─', '>', '■', '▉', '▊', '▋', '▌', '▍', '▎', '▏']);

function isProgressBar(line: string): boolean {
  if (!/[0-9]%/.test(line)) return false;
  let streak = 0;
  for (const c of line) {
    if (BAR_CHARS.has(c)) {
      streak += 1;
      if (streak >= 5) return true;
    } else streak = 0;
  }
  return false;
}
