/**
 * Command-aware scanning, as crates/toolguard-core/src/shell/intent.rs does
 * it: what the silent-failure scan learns from the call's command.
 *
 * - A rule match in output the command only displayed (a `cat` of a log, a
 *   grep), in a probe (`|| echo`, `python -c "try: … except"`), or in the run
 *   of a script the agent wrote earlier in this session is at most `context`;
 *   a displaying program's own `prog: message` line is still its error.
 * - `prog: message` lines of a program that ran are that program's errors:
 *   the `program-message` rule counts only then, and only with a command.
 * - Rules of `commandRules` (rules/programs.json) count only when the
 *   command ran a program of their kind.
 * - Installer noise lines (`noise`) are not failures: the scan is re-run
 *   without them.
 * - A `context` rule is `error` when the command hid the real status.
 * - What the user reported (`SessionReports`): an exception line the user's
 *   messages name is the reported bug reproduced (at most `context`); one
 *   they never named, from the agent's own script, is that script failing.
 */
import type { RuleAction, RuleHit } from './types.mjs';
import { type CallModel, classifyCall, isProbeCode, isProbeProgram, isShellTool, isWriteProgram, type Need, scanTable } from './shell.mjs';

/** What the scan knows of the call that produced the output. */
export interface ScanContext {
  model: CallModel;
  /** The call runs a script the agent wrote earlier in this session. */
  ownScript: boolean;
  /** What the user said this session; `undefined`: no user message noted. */
  reported?: SessionReports;
}

/** A rule's first match with the action it has in the verdict. */
export interface ActedHit {
  hit: RuleHit;
  action: RuleAction;
}

/**
 * The context of a call of tool `name`; `undefined` when it has no shell
 * command. Only the agent's written paths whose file name occurs in the
 * arguments are candidates for its own script (intent.rs `ScanContext::new`).
 */
export function scanContext(
  name: string,
  argumentsJson: string,
  writes: SessionWrites | undefined,
  reported?: SessionReports,
): ScanContext | undefined {
  const model = classifyCall(name, argumentsJson);
  if (!model.isShell) return undefined;
  const written = writes?.named(argumentsJson);
  const ownScript = written !== undefined && model.commands.some((c) => c.script !== undefined && written.wrote(c.script, c.cwd));
  return { model, ownScript, reported };
}

/**
 * A text as its words (intent.rs `words`): lowercased, masked, space-separated
 * with a space at both ends; a token holding `/` or `\\` is `<p>`, a word with
 * a digit `#`; other punctuation separates words.
 */
function words(text: string): string {
  let out = ' ';
  for (const token of text.split(/[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+/u)) {
    if (token === '') continue;
    if (token.includes('/') || token.includes('\\')) {
      out += '<p> ';
      continue;
    }
    for (const w of token.split(/[^\p{Alphabetic}\p{Nd}\p{Nl}\p{No}_]+/u)) {
      if (w === '') continue;
      out += /[0-9]/.test(w) ? '# ' : `${w.toLowerCase()} `;
    }
  }
  return out;
}

/** The error-like lines of what the user said (intent.rs `SessionReports`), newest last, bounded. */
export class SessionReports {
  static readonly CAP = 32;
  static readonly LINE = 256;
  readonly #lines: string[] = [];

  /** Note one user message: keep its lines that name an error. */
  note(text: string): void {
    for (const line of text.split('\n')) {
      const lower = line.toLowerCase();
      if (!(lower.includes('error') || lower.includes('exception'))) continue;
      let w = words(line);
      if (w.trim() === '') continue;
      const bytes = Buffer.from(w, 'utf8');
      if (bytes.length > SessionReports.LINE) {
        let end = SessionReports.LINE;
        while (end > 0 && (bytes[end] & 0xc0) === 0x80) end--;
        w = bytes.subarray(0, end).toString('utf8');
      }
      const i = this.#lines.indexOf(w);
      if (i >= 0) this.#lines.splice(i, 1);
      if (this.#lines.length === SessionReports.CAP) this.#lines.shift();
      this.#lines.push(w);
    }
  }

  lines(): readonly string[] {
    return this.#lines;
  }

  /** Whether the user named exception `kind` with `message`: a line holds the message's first words, and the type when the message is under three words. */
  names(kind: string, message: string): boolean {
    const k = ` ${words(kind).trim()} `;
    const msg = words(message)
      .split(' ')
      .filter((w) => w !== '')
      .slice(0, 4);
    const typed = msg.length < 3;
    const m = ` ${msg.join(' ')} `;
    return this.#lines.some((l) => (!typed || l.includes(k)) && (m.trim() === '' || l.includes(m)));
  }
}

/** intent.rs `exception_head`: `[type, message]` of `Type: message` or a bare `Type`. */
function exceptionHead(line: string): [string, string] | undefined {
  const kind = /^[A-Za-z0-9_.]*/.exec(line)?.[0] ?? '';
  const rest = line.slice(kind.length);
  const last = kind.split('.').pop() ?? kind;
  const named = /^[A-Z]/.test(last) && (last.endsWith('Error') || last.endsWith('Exception'));
  let message: string;
  if (rest.startsWith(':')) message = trimRust(rest.slice(1));
  else if (trimRust(rest) === '') message = '';
  else return undefined;
  return named ? [last, message] : undefined;
}

/** Rust's `str::trim` (Unicode White_Space; JS `trim` also strips U+FEFF). */
const trimRust = (t: string) =>
  t.replace(
    /^[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+|[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+$/g,
    '',
  );

/** intent.rs `is_exception_line`: whether `line` is an exception line (`Type: message`, a bare `Type`). */
export function isExceptionLine(line: string): boolean {
  return exceptionHead(trimRust(line)) !== undefined;
}

/** runtime_noise.rs `traceback_line`: a frame (indented) or a traceback header. */
function tracebackLine(line: string): boolean {
  return (
    line.startsWith(' ') ||
    line.startsWith('\t') ||
    TRACEBACK_GRAMMAR.has(line.replace(/[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+$/, ''))
  );
}

/** The lines of a Python traceback that are no output of the program. */
const TRACEBACK_GRAMMAR = new Set([
  'Traceback (most recent call last):',
  'During handling of the above exception, another exception occurred:',
  'The above exception was the direct cause of the following exception:',
]);

/** runtime_noise.rs `pipes_into_early_exit`: a later pipeline stage is a consumer that stops reading early. */
function pipesIntoEarlyExit(model: CallModel): boolean {
  const { earlyExit } = scanTable();
  return model.commands.some(
    (c) =>
      c.stage > 0 &&
      earlyExit.some(([program, flag]) => program === c.program && (flag === undefined || c.args.some((a) => a.startsWith(flag)))),
  );
}

/**
 * runtime_noise.rs `blank`: `text` with the runtime's own noise blanked (an
 * interpreter-exit report under `Exception ignored`; a broken pipe when the
 * command pipes into a consumer that stops reading early), or `undefined`.
 */
export function blankRuntimeNoise(text: string, model: CallModel | undefined): string | undefined {
  const ignored = text.includes('Exception ignored ');
  const piped =
    model !== undefined &&
    pipesIntoEarlyExit(model) &&
    (text.includes('Broken pipe') || text.includes('BrokenPipeError') || text.includes(': write error'));
  if (!ignored && !piped) return undefined;
  const lines = text.split('\n');
  const noise = lines.map(() => false);
  lines.forEach((line, i) => {
    if (ignored && line.startsWith('Exception ignored ')) {
      noise[i] = true;
      for (let j = i + 1; j < lines.length; j++) {
        if (trimRust(lines[j]!) === '') break;
        noise[j] = true;
        if (!tracebackLine(lines[j]!)) break;
      }
    }
    const t = trimRust(line);
    if (piped && (t.startsWith('BrokenPipeError') || t.endsWith('Broken pipe') || t.endsWith(': write error'))) {
      noise[i] = true;
      if (isExceptionLine(line)) {
        for (let j = i - 1; j >= 0 && tracebackLine(lines[j]!); j--) noise[j] = true;
      }
    }
  });
  if (!noise.includes(true)) return undefined;
  return lines.map((l, i) => (noise[i] ? '' : l)).join('\n');
}

/** The exception lines of an output (intent.rs `exception_lines`): `[type, message, caught]`. */
function* exceptionLines(text: string): Generator<[string, string, boolean]> {
  for (const raw of text.split('\n')) {
    let line = trimRust(raw);
    if (line.startsWith('E ')) line = trimRust(line.slice(2));
    const head = exceptionHead(line);
    if (head === undefined) continue;
    const [kind, message] = head;
    if (kind !== 'Error' || message === '') {
      yield [kind, message, false];
      continue;
    }
    const inner = exceptionHead(message);
    yield inner === undefined ? [kind, message, true] : [inner[0], inner[1], true];
  }
}

/** intent.rs `reported_by_user`: true/false when the output has exception lines and a user message was noted. */
function reportedByUser(reported: SessionReports | undefined, text: string): boolean | undefined {
  if (reported === undefined) return undefined;
  let any = false;
  for (const [kind, message] of exceptionLines(text)) {
    if (reported.names(kind, message)) return true;
    any = true;
  }
  return any ? false : undefined;
}

const normalize = (p: string) => (p.startsWith('./') ? p.slice(2) : p);

/** intent.rs `first_word`: the first word of the `command` argument, read off the JSON text. */
function firstWord(argumentsJson: string): string | undefined {
  const at = argumentsJson.indexOf('"command"');
  if (at < 0) return undefined;
  const m =
    /^[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]*:[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]*"([^\t\n\f\r "\\]*)/.exec(
      argumentsJson.slice(at + '"command"'.length),
    );
  return m !== null && m[1] !== '' ? m[1] : undefined;
}

/** A `>` redirect to a file in the text: not a dup (`2>&1`, `>&2`) or `/dev/null` (intent.rs `writes_a_file`). */
function writesAFile(text: string): boolean {
  for (let i = text.indexOf('>'); i !== -1; i = text.indexOf('>', i + 1)) {
    let rest = text.slice(i + 1);
    if (rest.startsWith('>')) rest = rest.slice(1);
    rest = rest.replace(/^ +/, '');
    if (!(rest.startsWith('&') || rest.startsWith('/dev/null') || rest === '')) return true;
  }
  return false;
}

/** The paths an agent wrote in this session (newest last), at most `CAP`. */
export class SessionWrites {
  static readonly CAP = 64;
  readonly #paths: string[] = [];

  /** Whether a call may write (a cheap test before modelling it): an edit tool, or a shell command with a redirect or `tee`. */
  static mayWrite(name: string, argumentsJson: string): boolean {
    if (isShellTool(name)) {
      if (writesAFile(argumentsJson) || argumentsJson.includes('tee ')) return true;
      const first = firstWord(argumentsJson);
      return first !== undefined && isWriteProgram(first);
    }
    const lower = name.replace(/[A-Z]+/g, (c) => c.toLowerCase());
    return ['edit', 'write', 'create', 'patch', 'str_replace', 'insert', 'replace'].some((k) => lower.includes(k));
  }

  /** The paths whose file name occurs in `argumentsJson` (the only ones a call can run). */
  named(argumentsJson: string): SessionWrites {
    const out = new SessionWrites();
    for (const p of this.#paths) {
      const file = p.slice(p.lastIndexOf('/') + 1);
      if (file !== '' && argumentsJson.includes(file)) out.#paths.push(p);
    }
    return out;
  }

  /** Record what a call wrote. */
  record(model: CallModel): void {
    if (model.effect !== 'write' && model.writes.length === 0) return;
    for (const written of model.writes) {
      const w = normalize(written);
      const at = this.#paths.indexOf(w);
      if (at !== -1) this.#paths.splice(at, 1);
      if (this.#paths.length === SessionWrites.CAP) this.#paths.shift();
      this.#paths.push(w);
    }
  }

  /** Whether `path` (run in `cwd`) is a file the agent wrote (the same path, or one ends with the other at a `/`). */
  wrote(script: string, cwd: string | undefined): boolean {
    const path = normalize(script);
    const full = cwd !== undefined && !path.startsWith('/') ? `${cwd.replace(/\/+$/, '')}/${path}` : path;
    const same = (a: string, b: string) => a === b || (a.length > b.length && a.endsWith(b) && a[a.length - b.length - 1] === '/');
    return this.#paths.some((p) => same(p, full) || same(p, path) || same(path, p));
  }
}

const ERROR_WORDS = [
  'no such file or directory',
  'cannot ',
  "can't ",
  'could not ',
  "couldn't ",
  'unable to ',
  'failed',
  'not found',
  'permission denied',
  'not a directory',
  'is a directory',
  'invalid ',
  'unrecognized ',
  'illegal ',
  'unknown option',
  'missing ',
  'error',
  'fatal',
  'refused',
  'timed out',
  'bad ',
  'event not found',
  'not recognized',
  'does not exist',
];

/** The error lexicon of a `prog: message` line (ASCII case-insensitive). */
function isErrorMessage(msg: string): boolean {
  const m = msg.replace(/[A-Z]+/g, (c) => c.toLowerCase());
  if (m.startsWith('warning') || m.startsWith('note') || m.startsWith('info')) return false;
  return ERROR_WORDS.some((k) => m.includes(k));
}

/** Rust `split_once(": ")`. */
function splitOnce(s: string, sep: string): [string, string] | undefined {
  const at = s.indexOf(sep);
  return at === -1 ? undefined : [s.slice(0, at), s.slice(at + sep.length)];
}

const SHELLS = new Set(['(eval)', 'bash', 'sh', 'zsh', 'dash', '/bin/sh', '/bin/bash', '/bin/zsh']);

/** Whether `line` is a `prog: message` line of a program that ran (or of the shell itself), with an error message. */
export function isProgramMessage(input: string, model: CallModel): boolean {
  const line = input.replace(/^[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+/, '');
  const split = splitOnce(line, ': ');
  if (split === undefined) return false;
  const head = split[0].split(':')[0]!;
  let rest = split[1];
  if (rest.startsWith('line ')) {
    const r = rest.slice('line '.length);
    rest = splitOnce(r, ': ')?.[1] ?? r;
  }
  const numbered = splitOnce(rest, ': ');
  if (numbered !== undefined && /^[0-9]+$/.test(numbered[0])) rest = numbered[1];
  const base = head.slice(head.lastIndexOf('/') + 1);
  const ran = SHELLS.has(head) || model.commands.some((c) => !c.quiet && c.program !== '' && c.program === base);
  return ran && isErrorMessage(rest);
}

/** intent.rs `fallback_said_failure`: a `|| echo …` fallback whose message says failure printed that message (not after a lookup). */
function fallbackSaidFailure(model: CallModel, text: string, words: string[]): boolean {
  return fallbackMessages(model, true).some((msg) => {
    const lower = msg.replace(/[A-Z]+/g, (x) => x.toLowerCase());
    return words.some((w) => lower.includes(w)) && text.includes(msg);
  });
}

/** intent.rs `fallback_unanswered`: a probe only through `|| echo …` / `|| printf …` fallbacks after commands that ran something, none of whose (expansion-free) messages is in the output. */
function fallbackUnanswered(model: CallModel, text: string): boolean {
  let any = false;
  for (let k = 0; k < model.commands.length; k++) {
    const c = model.commands[k]!;
    if (c.inlineCode !== undefined && isProbeCode(c.inlineCode)) return false;
    if (isProbeProgram(c.program)) return false;
    if (k === 0 || c.joiner !== 'or' || c.stage !== 0) continue;
    const before = model.commands[k - 1]!;
    if (before.quiet || before.effect === 'read' || before.effect === 'search') return false;
    const msg = fallbackMessage(c);
    if (msg === undefined || msg.includes('$') || msg.includes('`') || text.includes(msg)) return false;
    any = true;
  }
  return any;
}

/** intent.rs `fallback_message`: the trimmed, non-empty message of one `echo …` / `printf …` command. */
function fallbackMessage(c: CallModel['commands'][number]): string | undefined {
  let msg: string;
  if (c.program === 'echo') {
    let i = 0;
    while (i < c.args.length && c.args[i]!.startsWith('-')) i += 1;
    msg = c.args.slice(i).join(' ');
  } else if (c.program === 'printf') {
    const f = c.args[0];
    if (f === undefined || f.includes('%')) return undefined;
    msg = f;
    while (msg.endsWith('\\n')) msg = msg.slice(0, -2);
  } else return undefined;
  msg = msg.replace(
    /^[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+|[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+$/g,
    '',
  );
  return msg === '' ? undefined : msg;
}

/** The trimmed, non-empty messages of the call's `|| echo …` / `|| printf …` fallbacks (with `afterRun`, only after a command that is not a read or a search). */
function fallbackMessages(model: CallModel, afterRun: boolean): string[] {
  const out: string[] = [];
  model.commands.forEach((c, k) => {
    if (k === 0 || c.joiner !== 'or' || c.stage !== 0) return;
    const before = model.commands[k - 1]!.effect;
    if (afterRun && (before === 'read' || before === 'search')) return;
    const msg = fallbackMessage(c);
    if (msg !== undefined) out.push(msg);
  });
  return out;
}

/** intent.rs `missing_command`: the name a shell's `command not found` line says is missing. */
function missingCommand(line: string): string | undefined {
  const z = line.indexOf('command not found: ');
  if (z >= 0) return rustTrim(line.slice(z + 'command not found: '.length));
  let head: string;
  if (line.endsWith(': command not found')) head = line.slice(0, -': command not found'.length);
  else if (line.endsWith(': not found')) head = line.slice(0, -': not found'.length);
  else return undefined;
  const parts = head.split(': ');
  return rustTrim(parts[parts.length - 1]!);
}

const rustTrim = (s: string) =>
  s.replace(
    /^[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+|[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+$/g,
    '',
  );

/** intent.rs `asked_about`: a command names `name` as a word, or a fallback message mentions it. */
function askedAbout(model: CallModel, name: string): boolean {
  const lowerName = name.replace(/[A-Z]+/g, (x) => x.toLowerCase());
  const word = (text: string) => text.split(/[^A-Za-z0-9_.-]/).some((w) => w.replace(/[A-Z]+/g, (x) => x.toLowerCase()) === lowerName);
  return model.commands.some((c) => c.args.includes(name)) || fallbackMessages(model, false).some(word);
}

/** intent.rs `Need::holds`: whether a command rule counts for this call. */
function holds(need: Need, model: CallModel, excerpt: string): boolean {
  switch (need.kind) {
    case 'effect':
      return model.commands.some((c) => need.effects.some((e) => c.effect === e || (e === 'network' && c.url !== undefined)));
    case 'program-ran':
      return isProgramMessage(excerpt, model);
    case 'programs':
      return model.commands.some((c) => need.programs.includes(c.program));
    case 'code':
      return model.commands.some((c) => c.inlineCode !== undefined && need.texts.some((t) => c.inlineCode!.includes(t)));
    case 'any':
      return need.needs.some((n) => holds(n, model, excerpt));
  }
  return false; // an unknown need (none today): the rule does not apply
}

/** Adjusts the rule matches of one output by the call's context; `rescan` scans another text (the output with noise lines blanked). */
export function adjust(ctx: ScanContext | undefined, input: string, first: ActedHit[], rescan: (text: string) => ActedHit[]): ActedHit[] {
  let text = input;
  const table = scanTable();
  let matches = first;
  if (matches.some((m) => table.noise.some((n) => m.hit.excerpt.startsWith(n)))) {
    const cleaned = text
      .split('\n')
      .map((l) =>
        table.noise.some((n) => l.replace(/^[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+/, '').startsWith(n))
          ? ''
          : l,
      )
      .join('\n');
    matches = rescan(cleaned);
  }
  if (matches.length === 0) return matches;
  // The runtime's own noise (an interpreter-exit report, SIGPIPE under `| head`): the same scan without it, and the rest reads it so.
  const quiet = blankRuntimeNoise(text, ctx?.model);
  if (quiet !== undefined) {
    matches = rescan(quiet);
    if (matches.length === 0) return matches;
    text = quiet;
  }
  if (ctx === undefined) return matches.filter((m) => !table.commandRules.has(m.hit.id));
  const model = ctx.model;
  matches = matches.filter((m) => {
    const need = table.commandRules.get(m.hit.id);
    return need === undefined || holds(need, model, m.hit.excerpt);
  });
  // A fallback message that says the command failed, printed: not a probe's answer.
  const probe = model.probe && !fallbackSaidFailure(model, text, table.fallbackFailure) && !fallbackUnanswered(model, text);
  // An own script or probe that could not run its own code is not excused as a reproduction.
  const broken = matches.some((m) => table.brokenScript.includes(m.hit.id));
  // What the user reported: their bug reproduced is meant, whoever wrote the
  // script; an exception they never named, from the agent's own script, is
  // that script failing (a probe's answer stays an answer).
  const user = reportedByUser(ctx.reported, text);
  // The script's own `Error: …` print: it caught an exception and said so.
  const caught = [...exceptionLines(text)].some(([, , c]) => c);
  const ownScript = ctx.ownScript && !(user === false && caught);
  const meant = (user === true && !model.displaysOnly) || ((ownScript || probe) && !broken);
  const hidden = model.masks.some((m) => m === 'pipeline' || m === 'fallback' || m === 'sequence');
  // Content shown from files: a displaying command that names no file prints its own errors.
  const showsFiles = model.displaysOnly && model.reads.length > 0;
  return matches.map((m) => {
    const ownError = isProgramMessage(m.hit.excerpt, model);
    // A test runner's verdict is the check's result, whoever wrote it.
    // A missing command is the answer only of a probe that asked about it.
    const missing = table.missingCommand === m.hit.id ? missingCommand(m.hit.excerpt) : undefined;
    const unaskedMissing = missing !== undefined && !askedAbout(model, missing);
    const excused = meant && !table.runnerVerdicts.includes(m.hit.id) && !unaskedMissing;
    if (m.action === 'error' && (excused || (showsFiles && !ownError))) return { ...m, action: 'context' };
    if (m.action === 'context' && hidden && !meant && !showsFiles) return { ...m, action: 'error' };
    return m;
  });
}
