/**
 * The shell-command model of crates/toolguard-core/src/shell/, as far as the
 * loop detectors read it: what a tool call does (its `Effect`), from the
 * SAME data files — `rules/programs.json` (the program table) and
 * `rules/shell-tools.json` (the default shell tools) — with the same
 * tokenizer (lex.rs) written again here.
 *
 * Why a hand-written tokenizer and not an npm shell parser: the native
 * engine's is hand-written (lex.rs says why: parser crates reject the
 * half-valid input agents send), and the two must give the same words for
 * the same line, unclosed quotes and cut heredocs included; the npm parsers
 * (`shell-quote`, `bash-parser`, `mvdan-sh`) either expand or reject what
 * lex.rs keeps as text, so none yields the same structure.
 *
 * Both readers use it: the loop detectors (a call's effect) and the
 * command-aware scan (`intent.mts`: what ran, which statuses were hidden,
 * a probe, a display, the agent's own script). What neither reads is left
 * out: read paths and line ranges, answer exit codes, inline code.
 */
import { createRequire } from 'node:module';

import { byCommand, prefixedEffect, shellCommandRule, toolRule } from './harness.mjs';
import { utf8Head } from './normalize.mjs';
import { trimLikeRust } from './whitespace.mjs';

export type Effect = 'read' | 'write' | 'run' | 'test' | 'wait' | 'search' | 'network' | 'navigate' | 'other';

/** Bytes of a command line that are modelled (shell/mod.rs `MAX_INPUT`). */
const MAX_INPUT = 16 * 1024;
/** Simple commands kept per call. */
const MAX_COMMANDS = 64;
/** Nesting of `bash -c '…'` followed. */
const MAX_DEPTH = 2;

const EFFECTS = new Set<Effect>(['read', 'write', 'run', 'test', 'wait', 'search', 'network', 'navigate', 'other']);

/** Which effect names a call made of several commands (mod.rs `Effect::rank`). */
const RANK: Record<Effect, number> = { write: 8, test: 7, run: 6, wait: 5, network: 4, navigate: 3, search: 2, read: 1, other: 0 };

function best(effects: Effect[]): Effect | undefined {
  // Rust `max_by_key`: the last of equal maxima (equal effects are the same value).
  let out: Effect | undefined;
  for (const e of effects) if (out === undefined || RANK[e] >= RANK[out]) out = e;
  return out;
}

type Operands = 'all' | 'after-first' | 'last' | 'none';

interface Program {
  effect: Effect;
  /** Which operands are files read. */
  paths: Operands;
  quiet: boolean;
  probe: boolean;
  writes: Operands;
  valueOptions: string[];
  patternOptions: string[];
  writeOptions: string[];
  flags: Map<string, Effect>;
  subcommands: Map<string, Program>;
  runsRest: string[];
  runsScript: string[];
  testTargets: string[];
  interpreter: boolean;
  shell: boolean;
}

/** When a rule of `commandRules` counts (intent.rs `Need`). */
export type Need =
  | { kind: 'effect'; effects: Effect[] }
  | { kind: 'program-ran' }
  | { kind: 'programs'; programs: string[] }
  | { kind: 'code'; texts: string[] }
  | { kind: 'any'; needs: Need[] };

interface Table {
  programs: Map<string, Program>;
  wrappers: Map<string, number>;
  shellTools: string[];
  /** Lines that are never a failure (installer noise). */
  noise: string[];
  /** Rules that count only with a command, and when. */
  commandRules: Map<string, Need>;
  /** The rules whose match says a script could not run its own code (`brokenScript`). */
  brokenScript: string[];
  /** Words of a fallback message that says the command before it failed. */
  fallbackFailure: string[];
  /** Rules whose match is a test runner's own verdict (`runnerVerdicts`). */
  runnerVerdicts: string[];
  /** The rule whose match is a shell's `command not found` (`missingCommand`). */
  missingCommand: string | undefined;
  /** Rules whose match is a generic failure word (`lexiconRules`): an `error` only when corroborated (corroboration.mts). */
  lexiconRules: string[];
  /** A test runner's all-passed summary (`passingSummaries`, one multi-line expression), if any. */
  passingSummary: RegExp | undefined;
  /** Consumers that stop reading early (`earlyExit`): program, and the start of an argument that makes it so. */
  earlyExit: Array<[string, string | undefined]>;
}

/** programs.rs `need_of`: one need, or a list of which any may hold. */
function needOf(v: unknown): Need | undefined {
  if (typeof v === 'string') return need(v);
  if (!Array.isArray(v)) return undefined;
  const needs: Need[] = [];
  for (const n of v) {
    const one = typeof n === 'string' ? need(n) : undefined;
    if (one === undefined) return undefined;
    needs.push(one);
  }
  return { kind: 'any', needs };
}

/** programs.rs `need`: `program-ran` | `effect:<effect>[,<effect>…]` | `programs:a,b` | `code:<text>[,<text>…]`. */
function need(s: string): Need | undefined {
  if (s === 'program-ran') return { kind: 'program-ran' };
  if (s.startsWith('effect:')) {
    const effects = s.slice('effect:'.length).split(',');
    return effects.every((e) => EFFECTS.has(e as Effect)) ? { kind: 'effect', effects: effects as Effect[] } : undefined;
  }
  if (s.startsWith('code:')) return { kind: 'code', texts: s.slice('code:'.length).split(',') };
  return s.startsWith('programs:') ? { kind: 'programs', programs: s.slice('programs:'.length).split(',') } : undefined;
}

const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((s): s is string => typeof s === 'string') : []);
const isRecord = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

function operands(s: unknown): Operands {
  return s === 'operands' ? 'all' : s === 'after-first' || s === 'last' || s === 'none' ? s : 'none';
}

function program(v: Record<string, unknown>, parent?: Program): Program {
  const effect = typeof v.effect === 'string' && EFFECTS.has(v.effect as Effect) ? (v.effect as Effect) : (parent?.effect ?? 'run');
  const p: Program = {
    effect,
    paths: operands(v.paths),
    quiet: v.quiet === true,
    probe: v.probe === true,
    writes: operands(v.writes),
    valueOptions: 'valueOptions' in v ? strings(v.valueOptions) : [...(parent?.valueOptions ?? [])],
    patternOptions: strings(v.patternOptions),
    writeOptions: strings(v.writeOptions),
    flags: new Map(
      Object.entries(isRecord(v.flags) ? v.flags : {}).filter(
        (e): e is [string, Effect] => typeof e[1] === 'string' && EFFECTS.has(e[1] as Effect),
      ),
    ),
    subcommands: new Map(),
    runsRest: strings(v.runsRest),
    runsScript: strings(v.runsScript),
    testTargets: strings(v.testTargets),
    interpreter: v.interpreter === true,
    shell: v.shell === true,
  };
  if (isRecord(v.subcommands)) {
    const self = { ...p };
    for (const [k, s] of Object.entries(v.subcommands)) if (isRecord(s)) p.subcommands.set(k, program(s, self));
  }
  return p;
}

/** Code point order: serde_json's map (a `BTreeMap`) lists keys so, and aliases resolve in that order. */
const byCodePoint = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

let table: Table | undefined;

/** The program table, decoded once; a bad row is skipped, as natively. */
function tableOf(): Table {
  if (table !== undefined) return table;
  const require = createRequire(import.meta.url);
  const root = require('../../rules/programs.json') as Record<string, unknown>;
  const tools = require('../../rules/shell-tools.json') as Record<string, unknown>;
  const programs = new Map<string, Program>();
  const aliases: Array<[string, string]> = [];
  const rows = isRecord(root.programs) ? root.programs : {};
  for (const name of Object.keys(rows).sort(byCodePoint)) {
    const row = rows[name];
    if (!isRecord(row)) continue;
    if (typeof row.alias === 'string') aliases.push([name, row.alias]);
    else programs.set(name, program(row));
  }
  for (const [name, target] of aliases) {
    const p = programs.get(target);
    if (p !== undefined) programs.set(name, p);
  }
  const wrappers = new Map<string, number>();
  for (const [k, v] of Object.entries(isRecord(root.wrappers) ? root.wrappers : {})) {
    wrappers.set(k, typeof v === 'number' && Number.isInteger(v) && v >= 0 ? v : 0);
  }
  const commandRules = new Map<string, Need>();
  for (const [id, v] of Object.entries(isRecord(root.commandRules) ? root.commandRules : {})) {
    const n = needOf(v);
    if (n !== undefined) commandRules.set(id, n);
  }
  const brokenScript = strings(root.brokenScript);
  table = {
    programs,
    wrappers,
    shellTools: strings(tools.shellTools).map(asciiLower),
    noise: strings(root.noise),
    commandRules,
    brokenScript,
    fallbackFailure: strings(root.fallbackFailure),
    runnerVerdicts: strings(root.runnerVerdicts),
    missingCommand: typeof root.missingCommand === 'string' ? root.missingCommand : undefined,
    lexiconRules: strings(root.lexiconRules),
    passingSummary: anyOf(strings(root.passingSummaries)),
    earlyExit: strings(root.earlyExit).map((e): [string, string | undefined] => {
      const at = e.indexOf(' ');
      return at === -1 ? [e, undefined] : [e.slice(0, at), e.slice(at + 1)];
    }),
  };
  return table;
}

/** programs.rs `any_of`: one multi-line expression matching any of `patterns` (`undefined`: none, or a bad one). */
function anyOf(patterns: string[]): RegExp | undefined {
  if (patterns.length === 0) return undefined;
  try {
    return new RegExp(patterns.map((p) => `(?:${p})`).join('|'), 'm');
  } catch {
    return undefined;
  }
}

/** The program table's noise lines and command rules (intent.mts, corroboration.mts). */
export function scanTable(): Pick<
  Table,
  | 'noise'
  | 'commandRules'
  | 'brokenScript'
  | 'fallbackFailure'
  | 'runnerVerdicts'
  | 'missingCommand'
  | 'lexiconRules'
  | 'passingSummary'
  | 'earlyExit'
> {
  return tableOf();
}

const asciiLower = (s: string) => s.replace(/[A-Z]+/g, (c) => c.toLowerCase());

/** The default shell tools (`loudFailure.shellTools`), lowercase. */
export function defaultShellTools(): string[] {
  return [...tableOf().shellTools];
}

/** Whether `name` is a shell tool by the default list (ASCII case-insensitive). */
export function isShellTool(name: string): boolean {
  const lower = asciiLower(name);
  return tableOf().shellTools.includes(lower);
}

// ---------------------------------------------------------------- lex.rs

type Joiner = 'start' | 'seq' | 'and' | 'or' | 'after-background';

interface Redirect {
  fd: number;
  output: boolean;
  both: boolean;
  target: string;
}

interface RawCommand {
  words: string[];
  assignments: string[];
  redirects: Redirect[];
  heredoc: string | undefined;
}

interface RawPipeline {
  joiner: Joiner;
  stages: RawCommand[];
  background: boolean;
}

type Tok =
  | { kind: 'word'; text: string }
  | { kind: 'op'; op: string }
  | { kind: 'redir'; redirect: Redirect }
  | { kind: 'heredoc' }
  | { kind: 'herestring' };

const emptyCommand = (): RawCommand => ({ words: [], assignments: [], redirects: [], heredoc: undefined });

function isAssignment(w: string): boolean {
  const eq = w.indexOf('=');
  if (eq <= 0) return false;
  let name = w.slice(0, eq);
  if (name.endsWith('+')) name = name.slice(0, -1);
  return name !== '' && !/^[0-9]/.test(name) && /^[A-Za-z0-9_]+$/.test(name);
}

/** lex.rs `parse_line`: pipelines of simple commands, never failing. */
function parseLine(s: string, limit: number): RawPipeline[] {
  const toks = tokenize(s);
  const out: RawPipeline[] = [];
  let joiner: Joiner = 'start';
  let cur: RawPipeline = { joiner, stages: [], background: false };
  let cmd = emptyCommand();
  let count = 0;
  let pending: { redirect?: Redirect; hereString?: true } | undefined;
  const endCmd = () => {
    if (cmd.words.length > 0 || cmd.redirects.length > 0 || cmd.assignments.length > 0) {
      if (count < limit) {
        cur.stages.push(cmd);
        count += 1;
      }
      cmd = emptyCommand();
    }
  };
  let i = 0;
  while (i < toks.length) {
    const t = toks[i]!;
    i += 1;
    if (t.kind === 'word') {
      const w = t.text;
      if (pending !== undefined) {
        if (pending.redirect !== undefined) cmd.redirects.push({ ...pending.redirect, target: w });
        else cmd.heredoc = w;
        pending = undefined;
        continue;
      }
      if (cmd.words.length === 0) {
        if (isAssignment(w)) {
          cmd.assignments.push(w);
          continue;
        }
        if (w === '{' || w === '}') continue;
        if (w === '!' && cur.stages.length === 0) continue;
        if (['if', 'then', 'else', 'elif', 'do', 'while', 'until', 'fi', 'done', 'esac', 'time'].includes(w)) continue;
      }
      cmd.words.push(w);
    } else if (t.kind === 'redir') {
      pending = { redirect: t.redirect };
    } else if (t.kind === 'herestring') {
      pending = { hereString: true };
    } else if (t.kind === 'heredoc') {
      if (toks[i]?.kind === 'word') i += 1;
      const body = toks[i];
      if (body?.kind === 'word') {
        cmd.heredoc = body.text;
        i += 1;
      }
    } else {
      const op = t.op;
      pending = undefined;
      if (op === '|' || op === '|&') {
        endCmd();
        continue;
      }
      if (op === '(') {
        endCmd();
        // `a (b)` is not shell; best effort: the group starts a new pipeline.
        if (cur.stages.length > 0) {
          out.push(cur);
          cur = { joiner: 'seq', stages: [], background: false };
          joiner = 'seq';
        }
        continue;
      }
      endCmd();
      const next: Joiner = op === '&&' ? 'and' : op === '||' ? 'or' : op === '&' ? 'after-background' : 'seq';
      if (cur.stages.length > 0) {
        cur.background = op === '&';
        out.push(cur);
        joiner = next;
      } else if (joiner === 'start' || next === 'and' || next === 'or') {
        if (out.length > 0) {
          joiner = next;
          if (op === '&') out[out.length - 1]!.background = true;
        }
      } else if (op === '&') {
        out[out.length - 1]!.background = true;
        joiner = 'after-background';
      }
      cur = { joiner, stages: [], background: false };
    }
  }
  if ((cmd.words.length > 0 || cmd.redirects.length > 0 || cmd.assignments.length > 0) && count < limit) cur.stages.push(cmd);
  if (cur.stages.length > 0) out.push(cur);
  return out;
}

/** lex.rs `tokenize`: heredoc bodies are read at the newline after their operator, emitted right after the delimiter word. */
function tokenize(s: string): Tok[] {
  const toks: Tok[] = [];
  const pendingHeredocs: Array<[number, string, boolean]> = [];
  let i = 0;
  let atWordStart = true;
  const n = s.length;
  while (i < n) {
    const c = s[i]!;
    if (c === ' ' || c === '\t' || c === '\r') {
      i += 1;
      atWordStart = true;
    } else if (c === '\\' && s[i + 1] === '\n') {
      i += 2;
    } else if (c === '\n') {
      i += 1;
      toks.push({ kind: 'op', op: '\n' });
      for (const [at, delim, strip] of pendingHeredocs.splice(0)) {
        const [body, next] = heredocBody(s, i, delim, strip);
        i = next;
        toks.splice(Math.min(at + 2, toks.length), 0, { kind: 'word', text: body });
      }
      atWordStart = true;
    } else if (c === '#' && atWordStart) {
      while (i < n && s[i] !== '\n') i += 1;
    } else if (c === '|' || c === '&' || c === ';' || c === '(' || c === ')') {
      const two = s[i + 1];
      let op: string;
      if (c === '|') op = two === '|' ? '||' : two === '&' ? '|&' : '|';
      else if (c === '&') {
        if (two === '>') {
          const append = s[i + 2] === '>';
          toks.push({ kind: 'redir', redirect: { fd: 1, output: true, both: true, target: '' } });
          i += append ? 3 : 2;
          atWordStart = true;
          continue;
        }
        op = two === '&' ? '&&' : '&';
      } else if (c === ';') op = two === ';' ? ';;' : ';';
      else op = c;
      toks.push({ kind: 'op', op });
      i += op.length;
      atWordStart = true;
    } else if (c === '<' || c === '>') {
      i = redirect(s, i, undefined, toks, pendingHeredocs);
      atWordStart = true;
    } else {
      const start = i;
      const [word, next] = readWord(s, i);
      i = next;
      if (i < n && (s[i] === '<' || s[i] === '>') && i > start && /^[0-9]+$/.test(s.slice(start, i))) {
        const fd = Number(s.slice(start, i));
        i = redirect(s, i, fd <= 0xffffffff ? fd : 1, toks, pendingHeredocs);
      } else if (i === start) {
        i += 1;
      } else {
        toks.push({ kind: 'word', text: word });
      }
      atWordStart = true;
    }
  }
  for (const [at] of pendingHeredocs) toks.splice(Math.min(at + 2, toks.length), 0, { kind: 'word', text: '' });
  return toks;
}

function redirect(s: string, start: number, fd: number | undefined, toks: Tok[], pending: Array<[number, string, boolean]>): number {
  let i = start;
  if (s[i] === '<') {
    if (s[i + 1] === '<') {
      if (s[i + 2] === '<') {
        toks.push({ kind: 'herestring' });
        return i + 3;
      }
      const strip = s[i + 2] === '-';
      i += strip ? 3 : 2;
      while (i < s.length && (s[i] === ' ' || s[i] === '\t')) i += 1;
      const [delim, next] = readWord(s, i);
      const at = toks.length;
      toks.push({ kind: 'heredoc' });
      toks.push({ kind: 'word', text: delim });
      pending.push([at, delim, strip]);
      return Math.max(next, i);
    }
    toks.push({ kind: 'redir', redirect: { fd: fd ?? 0, output: false, both: false, target: '' } });
    if (s[i + 1] === '&') {
      const [rest, next] = readWord(s, i + 2);
      toks.push({ kind: 'word', text: `&${rest}` });
      return Math.max(next, i + 2);
    }
    return i + 1;
  }
  const append = s[i + 1] === '>';
  i += append ? 2 : 1;
  if (s[i] === '|') i += 1;
  toks.push({ kind: 'redir', redirect: { fd: fd ?? 1, output: true, both: false, target: '' } });
  if (s[i] === '&') {
    const [rest, next] = readWord(s, i + 1);
    toks.push({ kind: 'word', text: `&${rest}` });
    return Math.max(next, i + 1);
  }
  return i;
}

function heredocBody(s: string, i: number, delim: string, strip: boolean): [string, number] {
  let at = i;
  let body = '';
  while (at < s.length) {
    const nl = s.indexOf('\n', at);
    const end = nl === -1 ? s.length : nl;
    const line = s.slice(at, end);
    const cmp = strip ? line.replace(/^\t+/, '') : line;
    const next = Math.min(end + 1, s.length);
    if (cmp.replace(/\r+$/, '') === delim) return [body, next];
    body += `${line}\n`;
    at = end === s.length ? s.length : next;
  }
  return [body, s.length];
}

/** lex.rs `read_word`: quotes removed, `$(…)`, `${…}` and backticks kept whole. */
function readWord(s: string, start: number): [string, number] {
  let i = start;
  let w = '';
  const n = s.length;
  while (i < n) {
    const c = s[i]!;
    if (' \t\r\n|&;<>()'.includes(c)) {
      if (c === '(' && w.endsWith('=')) {
        const end = matching(s, i, '(', ')');
        w += s.slice(i, end);
        i = end;
        continue;
      }
      break;
    }
    if (c === "'") {
      const k = s.indexOf("'", i + 1);
      const end = k === -1 ? n : k;
      w += s.slice(i + 1, end);
      i = end >= n ? n : end + 1;
    } else if (c === '"') {
      i += 1;
      while (i < n && s[i] !== '"') {
        if (s[i] === '\\' && i + 1 < n && '"\\$`\n'.includes(s[i + 1]!)) {
          if (s[i + 1] !== '\n') w += s[i + 1];
          i += 2;
          continue;
        }
        if (s[i] === '$' && s[i + 1] === '(') {
          const end = matching(s, i + 1, '(', ')');
          w += s.slice(i, end);
          i = end;
          continue;
        }
        if (s[i] === '`') {
          const k = s.indexOf('`', i + 1);
          const end = k === -1 ? n : k + 1;
          w += s.slice(i, end);
          i = end;
          continue;
        }
        w += s[i];
        i += 1;
      }
      i = Math.min(i + 1, n);
    } else if (c === '\\') {
      if (i + 1 < n) {
        const ch = s[i + 1]!;
        const wide = ch >= '\ud800' && ch <= '\udbff' && i + 2 < n ? s.slice(i + 1, i + 3) : ch;
        if (ch !== '\n') w += wide;
        i += 1 + wide.length;
      } else {
        i += 1;
      }
    } else if (c === '$' && s[i + 1] === '(') {
      const end = matching(s, i + 1, '(', ')');
      w += s.slice(i, end);
      i = end;
    } else if (c === '$' && s[i + 1] === '{') {
      const end = matching(s, i + 1, '{', '}');
      w += s.slice(i, end);
      i = end;
    } else if (c === '$' && s[i + 1] === "'") {
      const k = s.indexOf("'", i + 2);
      const end = k === -1 ? n : k;
      w += s.slice(i + 2, end);
      i = Math.min(end + 1, n);
    } else if (c === '`') {
      const k = s.indexOf('`', i + 1);
      const end = Math.min(k === -1 ? n : k + 1, n);
      w += s.slice(i, end);
      i = end;
    } else {
      w += c;
      i += 1;
    }
  }
  return [w, i];
}

/** The index after the bracket matching the one at `openAt` (nesting and quotes respected; the end when unclosed). */
function matching(s: string, openAt: number, open: string, close: string): number {
  let depth = 0;
  let i = openAt;
  while (i < s.length) {
    const c = s[i];
    if (c === open) depth += 1;
    else if (c === close) {
      depth = Math.max(0, depth - 1);
      if (depth === 0) return i + 1;
    } else if (c === "'") {
      const k = s.indexOf("'", i + 1);
      i = k === -1 ? s.length : k;
    } else if (c === '\\') i += 1;
    i += 1;
  }
  return s.length;
}

// ---------------------------------------------------------- programs.rs

export type Mask = 'pipeline' | 'fallback' | 'sequence' | 'background';

/** One simple command, classified (mod.rs `Command`, the fields the readers use). */
export interface Command {
  program: string;
  /** The words after the program. */
  args: string[];
  effect: Effect;
  /** Files it reads (paths as written; line ranges are not kept). */
  reads: string[];
  writes: string[];
  url: string | undefined;
  /** Prints or sets shell state only (echo, true, cd, sleep, test). */
  quiet: boolean;
  /** The script an interpreter runs. */
  script: string | undefined;
  /** The code an interpreter or shell runs inline (`-c`, a heredoc). */
  inlineCode: string | undefined;
  /** The directory of the last `cd` before it in the line, if any. */
  cwd: string | undefined;
  pipeline: number;
  stage: number;
  joiner: Joiner;
  masks: Mask[];
}

/** What one tool call did (mod.rs `CallModel`, the fields the readers use). */
export interface CallModel {
  isShell: boolean;
  effect: Effect | undefined;
  commands: Command[];
  reads: string[];
  writes: string[];
  masks: Mask[];
  probe: boolean;
  displaysOnly: boolean;
}

const newCommand = (): Command => ({
  program: '',
  args: [],
  effect: 'other',
  reads: [],
  writes: [],
  url: undefined,
  quiet: false,
  script: undefined,
  inlineCode: undefined,
  cwd: undefined,
  pipeline: 0,
  stage: 0,
  joiner: 'start',
  masks: [],
});

/** Model state threaded through the parse (mod.rs `CallModel` while it is built). */
interface Building {
  commands: Command[];
  probe: boolean;
}

const basename = (w: string) => {
  const last = w.slice(w.lastIndexOf('/') + 1);
  return last === '' ? w : last;
};

const isFile = (target: string) => target !== '' && target !== '/dev/null' && !target.startsWith('&') && !target.startsWith('/dev/std');

/** programs.rs `model_line`: the commands of one line (at `bash -c` depth `depth`). */
function modelLine(line: string, depth: number, model: Building): void {
  const room = Math.max(0, MAX_COMMANDS - model.commands.length);
  const pipelines = parseLine(line, room);
  const pipefail = line.includes('pipefail');
  const errexit = pipelines.some((p) => {
    const c = p.stages[0];
    return (
      c !== undefined && c.words[0] === 'set' && c.words.slice(1).some((w) => w.startsWith('-') && w.includes('e') && !w.startsWith('--'))
    );
  });
  const last = model.commands[model.commands.length - 1];
  const basePipeline = last === undefined ? 0 : last.pipeline + 1;
  const firstNew = model.commands.length;
  let cwd: string | undefined;
  pipelines.forEach((p, pi) => {
    const after = masksAfter(pipelines, pi, errexit);
    const n = p.stages.length;
    p.stages.forEach((raw, si) => {
      if (raw.words[0] === 'cd' || raw.words[0] === 'pushd') cwd = raw.words[1];
      const masks: Mask[] = [...after];
      if (si + 1 < n && !pipefail) masks.unshift('pipeline');
      if (p.background) masks.push('background');
      const cmd = command(raw, depth, model);
      if (cmd === undefined) return;
      cmd.pipeline = basePipeline + pi;
      cmd.stage = si;
      cmd.joiner = p.joiner;
      cmd.masks = masks;
      cmd.cwd = cwd;
      if (model.commands.length < MAX_COMMANDS) model.commands.push(cmd);
    });
  });
  // Probes: a fallback that only prints or succeeds, or an alternative look tried on failure.
  const mine = model.commands.slice(firstNew);
  const looks = (e: Effect) => e === 'read' || e === 'search';
  mine.forEach((c, k) => {
    if (c.joiner === 'or' && c.stage === 0) {
      let before: Command | undefined;
      for (let j = k - 1; j >= 0; j -= 1) {
        if (mine[j]!.pipeline < c.pipeline) {
          before = mine[j];
          break;
        }
      }
      // `|| true` / `|| :` only keep a chain going: not a question.
      const says = c.program === 'echo' || c.program === 'printf';
      if (says || looks(c.effect) || (before !== undefined && (looks(before.effect) || before.quiet))) model.probe = true;
    }
  });
}

/** How a failure of pipeline `pi` could be hidden by what follows it. */
function masksAfter(pipelines: RawPipeline[], pi: number, errexit: boolean): Mask[] {
  if (pipelines[pi]!.background) return [];
  for (const p of pipelines.slice(pi + 1)) {
    if (p.joiner === 'and') continue;
    if (p.joiner === 'or') return ['fallback'];
    if (!errexit) return ['sequence'];
    return [];
  }
  return [];
}

const WRAPPER_VALUES: Record<string, string[]> = {
  sudo: ['-u', '-g'],
  timeout: ['-s', '-k', '--signal'],
  xargs: ['-I', '-n', '-P', '-d'],
  nice: ['-n'],
};

function command(raw: RawCommand, depth: number, model: Building): Command | undefined {
  const t = tableOf();
  let words = raw.words;
  for (let guard = 1; words.length > 0 && guard <= 8; guard += 1) {
    const name = basename(words[0]!);
    const skip = t.wrappers.get(name);
    if (skip === undefined) break;
    let rest = words.slice(1);
    while (rest.length > 0) {
      const w = rest[0]!;
      if (w.startsWith('-')) rest = rest.slice(WRAPPER_VALUES[name]?.includes(w) ? Math.min(2, rest.length) : 1);
      else if (name === 'env' && w.includes('=')) rest = rest.slice(1);
      else break;
    }
    words = rest.slice(Math.min(skip, rest.length));
  }
  const cmd = newCommand();
  let stdoutToFile = false;
  if (words.length > 0) {
    cmd.program = basename(words[0]!);
    cmd.args = words.slice(1);
    classify(cmd, words.slice(1), raw, depth, model);
  } else if (!raw.redirects.some((r) => r.output && isFile(r.target))) {
    return undefined;
  } else {
    cmd.effect = 'write';
  }
  for (const r of raw.redirects) {
    if (r.output && isFile(r.target)) {
      if (r.fd === 1 || r.both) stdoutToFile = true;
      if (!cmd.writes.includes(r.target)) cmd.writes.push(r.target);
    } else if (!r.output && isFile(r.target) && cmd.effect === 'read') {
      cmd.reads.push(r.target);
    }
  }
  // A display redirected to a file is a copy: `cat > f << EOF`, `git diff > x.patch`.
  if (stdoutToFile && (cmd.effect === 'read' || cmd.effect === 'search' || cmd.effect === 'other' || cmd.effect === 'network')) {
    cmd.effect = 'write';
    cmd.quiet = false;
  }
  return cmd;
}

/** programs.rs `is_write_program`: a program of the table whose effect is a write, or a harness command run in a shell that may write. */
export function isWriteProgram(name: string): boolean {
  const program = tableOf().programs.get(name);
  if (program !== undefined) return program.effect === 'write';
  const rule = shellCommandRule(name);
  if (rule === undefined) return false;
  if (rule.kind === 'effect') return rule.effect === 'write';
  if (rule.kind === 'by-command') return rule.default === 'write' || [...rule.commands.values()].includes('write');
  return false;
}

/** programs.rs `is_probe_program`: a program of the table whose run is a yes/no question (`test`, `which`). */
export function isProbeProgram(name: string): boolean {
  return tableOf().programs.get(name)?.probe === true;
}

function lookup(name: string): Program | undefined {
  const t = tableOf();
  // `python3.11`, `pip3.12`: the versioned names of a known program.
  return t.programs.get(name) ?? t.programs.get(name.replace(/[0-9.]+$/, ''));
}

/**
 * programs.rs `harness_command`: `cmd` as a harness command run in a shell — its
 * effect, and the file its first operand (after an editor's sub-command) names,
 * unless a line range or an option. False when the harness model does not know it.
 */
function harnessCommand(cmd: Command, args: string[]): boolean {
  const rule = shellCommandRule(cmd.program);
  if (rule === undefined) return false;
  const effect = byCommand(rule, args[0]);
  if (effect === undefined) return false;
  cmd.effect = effect;
  const operand = args[rule.kind === 'by-command' ? 1 : 0];
  if (operand !== undefined && !operand.startsWith('-') && !/^[0-9:]*$/.test(operand)) {
    if (effect === 'write') cmd.writes.push(operand);
    else if (effect === 'read') cmd.reads.push(operand);
  }
  return true;
}

function classify(cmd: Command, args: string[], raw: RawCommand, depth: number, model: Building): void {
  const name = cmd.program;
  let prog = lookup(name);
  if (prog === undefined) {
    // A harness's tool defined as a shell command (SWE-agent's `open`, `edit 1:5`,
    // `str_replace_editor view a.py`): the harness tool model says.
    if (harnessCommand(cmd, args)) return;
    // Unknown: a script path (`./run.sh`) or a program the table lacks.
    cmd.effect = name.includes('test') ? 'test' : 'run';
    if (name.includes('.') || raw.words[0]!.includes('/')) cmd.script = raw.words[0];
    return;
  }
  let i = 0;
  if (prog.subcommands.size > 0 || prog.runsRest.length > 0 || prog.runsScript.length > 0) {
    while (i < args.length && args[i]!.startsWith('-')) i += prog.valueOptions.includes(args[i]!) ? 2 : 1;
    const sub = args[i];
    if (sub !== undefined) {
      if (prog.runsRest.includes(sub)) {
        const rest = args.slice(i + 1);
        while (rest.length > 0 && rest[0]!.startsWith('-')) rest.shift();
        if (rest.length > 0) {
          const inner = command({ ...raw, words: rest }, depth, model);
          if (inner !== undefined) Object.assign(cmd, inner);
          return;
        }
      }
      if (prog.runsScript.includes(sub)) {
        cmd.effect = (args[i + 1] ?? '').includes('test') ? 'test' : 'run';
        return;
      }
      const s = prog.subcommands.get(sub);
      if (s !== undefined) {
        prog = s;
        i += 1;
      }
    }
  }
  cmd.effect = prog.effect;
  cmd.quiet = prog.quiet;
  model.probe ||= prog.probe;
  if (prog.testTargets.length > 0 && args.some((a) => prog.testTargets.includes(a))) cmd.effect = 'test';
  if (prog.interpreter) {
    interpreter(cmd, prog, raw, args, depth, model);
    return;
  }
  const ops: string[] = [];
  let patternGiven = false;
  let valueOption: string | undefined;
  let optionsDone = false;
  for (let j = i; j < args.length; j += 1) {
    const a = args[j]!;
    if (valueOption !== undefined) {
      if (prog.writeOptions.includes(valueOption) && isFile(a) && a !== '-') cmd.writes.push(a);
      valueOption = undefined;
      continue;
    }
    if (!optionsDone && a === '--') {
      optionsDone = true;
      continue;
    }
    if (!optionsDone && a.startsWith('-') && a.length > 1) {
      if (prog.patternOptions.includes(a)) patternGiven = true;
      if (prog.valueOptions.includes(a)) valueOption = a;
      const e = flagEffect(prog, a);
      if (e !== undefined) cmd.effect = e;
      continue;
    }
    if (name === 'curl' || name === 'wget' || name === 'http' || name === 'https') {
      if (cmd.url === undefined && (a.includes('://') || a.startsWith('localhost') || a.startsWith('127.'))) cmd.url = a;
      continue;
    }
    ops.push(a);
  }
  let paths: string[];
  switch (prog.paths) {
    case 'all':
      paths = ops;
      break;
    case 'after-first':
      paths = patternGiven ? ops : ops.slice(1);
      break;
    case 'last':
      paths = ops.slice(-1);
      break;
    default:
      paths = [];
  }
  if (cmd.effect === 'read' || cmd.effect === 'search' || cmd.effect === 'wait') for (const p of paths) if (p !== '-') cmd.reads.push(p);
  let writes: string[];
  switch (prog.writes) {
    case 'all':
      writes = ops;
      break;
    case 'after-first':
      writes = ops.slice(1);
      break;
    case 'last':
      writes = ops.slice(-1);
      break;
    default:
      writes = cmd.effect === 'write' && name === 'sed' ? ops.slice(patternGiven ? 0 : 1) : [];
  }
  // `git checkout v2 -- f`: only what follows `--` is a path.
  const dashes = args.indexOf('--');
  const afterDashes = dashes === -1 ? [] : args.slice(dashes + 1);
  if (name === 'git' && prog.writes !== 'none' && afterDashes.length > 0) writes = afterDashes;
  for (const w of writes) if (isFile(w) && !cmd.writes.includes(w)) cmd.writes.push(w);
  // `cp a b`: reads a.
  if (name === 'cp') cmd.reads.push(...ops.slice(0, Math.max(0, ops.length - 1)));
  // `curl -o f`, `wget -O f`: a download is a state change.
  if (cmd.effect === 'network' && cmd.writes.length > 0) cmd.effect = 'write';
  // `curl` of a health endpoint is a poll.
  if (cmd.effect === 'network' && cmd.url !== undefined && isHealthUrl(cmd.url)) cmd.effect = 'wait';
  // `cat` with no file and a heredoc: prints the heredoc (`cat <<EOF`).
  if ((name === 'cat' || name === 'tee') && ops.length === 0 && raw.heredoc !== undefined && cmd.effect === 'read') {
    cmd.effect = 'other';
    cmd.quiet = true;
  }
}

function flagEffect(prog: Program, a: string): Effect | undefined {
  const direct = prog.flags.get(a);
  if (direct !== undefined) return direct;
  if (a.startsWith('--')) {
    const long = a.slice(2);
    return prog.flags.get(`--${long.split('=')[0]}`);
  }
  // A cluster of short options (`-ni`, `-i.bak`, `-fn`): each letter.
  if (/^[0-9]*$/.test(a.slice(1))) return undefined;
  for (const c of a.slice(1).match(/^[A-Za-z]*/)![0]) {
    const e = prog.flags.get(`-${c}`);
    if (e !== undefined) return e;
  }
  return undefined;
}

function isHealthUrl(url: string): boolean {
  const parts = url.split('://');
  const rest = parts.length > 1 ? parts[1]! : url;
  const slash = rest.indexOf('/');
  const path = asciiLower(slash === -1 ? '' : rest.slice(slash + 1));
  const segments = path.split(/[/?.]/);
  return ['health', 'healthz', 'ready', 'readyz', 'livez', 'status', 'ping', 'alive'].some((k) => segments.includes(k));
}

/** `python x.py`, `python -m pytest`, `python -c code`, `bash -c '…'`, `node x.js`. */
function interpreter(cmd: Command, prog: Program, raw: RawCommand, args: string[], depth: number, model: Building): void {
  let k = 0;
  while (k < args.length) {
    const a = args[k]!;
    k += 1;
    if (prog.shell && a.startsWith('-') && !a.startsWith('--') && a.includes('c')) {
      // `bash -c '…'`: the inner line's commands stand for this one.
      cmd.inlineCode = args[k] ?? '';
      if (depth < MAX_DEPTH) {
        const before = model.commands.length;
        modelLine(args[k] ?? '', depth + 1, model);
        const inner = model.commands.splice(before);
        const effect = best(inner.map((c) => c.effect));
        if (effect !== undefined) cmd.effect = effect;
        for (const c of inner) {
          cmd.reads.push(...c.reads);
          cmd.writes.push(...c.writes);
        }
        const last = inner[inner.length - 1];
        if (last !== undefined && cmd.script === undefined) cmd.script = last.script;
      }
      return;
    }
    if (a === '-c' || a === '-e' || a === '--eval' || a === '-p') {
      cmd.inlineCode = args[k];
      cmd.effect = 'run';
      if (args[k] !== undefined && isProbeCode(args[k]!)) model.probe = true;
      return;
    }
    if (a === '-m') {
      // `python -m pytest`: the module is the program.
      const module = args[k] ?? '';
      const inner = command({ ...raw, words: [module, ...args.slice(Math.min(k + 1, args.length))] }, depth, model);
      if (inner !== undefined) {
        if (module === 'unittest' || module === 'nose' || module === 'nose2') inner.effect = 'test';
        Object.assign(cmd, inner);
      }
      return;
    }
    if (a === '-') break;
    if (a.startsWith('-')) continue;
    // The script, then its arguments.
    cmd.script = a;
    cmd.effect = 'run';
    const base = basename(a);
    if (base.startsWith('runtests') || (base === 'manage.py' && args[k] === 'test')) cmd.effect = 'test';
    return;
  }
  // `python` with its code on stdin (`python - <<EOF`).
  cmd.effect = 'run';
  if (raw.heredoc !== undefined) cmd.inlineCode = raw.heredoc;
  if (raw.heredoc !== undefined && isProbeCode(raw.heredoc)) model.probe = true;
}

/** Code that catches its own failure and prints it: `try: … except … print`. */
export function isProbeCode(code: string): boolean {
  return (code.includes('try:') && code.includes('except')) || (code.includes('try {') && code.includes('catch'));
}

// -------------------------------------------------------------- tools.rs

/** The function a code cell that is one call names (`open_file('/a.py')` → `open_file`), lowercased (tools.rs `skill_call`). */
function skillCall(record: Record<string, unknown>): string | undefined {
  if (typeof record.code !== 'string') return undefined;
  const code = record.code.trim();
  const open = code.indexOf('(');
  if (open < 0) return undefined;
  const name = code.slice(0, open).trim();
  return name !== '' && /^[A-Za-z0-9_]+$/.test(name) && code.endsWith(')') ? name.toLowerCase() : undefined;
}

/**
 * tools.rs `sub_command`: the sub-command an editor's arguments name — its
 * `command` (or, with no `command` member, `action`); in SWE-agent's command
 * form (`{"command": "str_replace_editor view /a.py"}`) the word after the tool's name.
 */
function subCommand(short: string, record: Record<string, unknown>): string | undefined {
  const value = Object.hasOwn(record, 'command') ? record.command : record.action;
  if (typeof value !== 'string') return undefined;
  const words = splitWhitespace(value);
  return words[0] === short ? words[1] : value;
}

/** Rust `str::split_whitespace`. */
const splitWhitespace = (s: string) =>
  s.split(/[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+/).filter((w) => w !== '');

/** tools.rs `effect_of`: the harness tool model (rules/harness-tools.json) decides, by name and, for editors, the sub-command. */
function toolEffect(short: string, args: unknown): Effect | undefined {
  const record = isRecord(args) ? args : {};
  const rule = toolRule(short);
  if (rule === undefined) return prefixedEffect(short);
  // OpenHands' IPython tool runs one agent-skill call: the skill says what the call does.
  if (rule.kind === 'by-code') {
    const skill = skillCall(record);
    return skill === undefined ? undefined : toolEffect(skill, null);
  }
  return byCommand(rule, subCommand(short, record));
}

// ---------------------------------------------------------------- mod.rs

/**
 * mod.rs `command_of`: the command line of a shell tool's arguments — a
 * named member only (a bare string or malformed text is not a command).
 */
function commandOf(argumentsJson: string): string | undefined {
  let value: unknown;
  try {
    value = JSON.parse(argumentsJson);
  } catch {
    return undefined;
  }
  return commandOfValue(value);
}

function commandOfValue(value: unknown): string | undefined {
  if (isRecord(value)) {
    for (const key of ['command', 'cmd', 'script', 'commandLine', 'command_line', 'code']) {
      const v = Object.hasOwn(value, key) ? value[key] : undefined;
      if (typeof v === 'string') return v;
      if (Array.isArray(v)) return argvCommand(v);
    }
  }
  return undefined;
}

const NEEDS_QUOTES = /[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000'"|&;<>()$`\\]/;

function argvCommand(argv: unknown[]): string | undefined {
  const words = argv.filter((w): w is string => typeof w === 'string');
  if (words.length === 0) return undefined;
  if (words.length === 3) {
    const [shell, flag, cmd] = words as [string, string, string];
    const base = shell.slice(shell.lastIndexOf('/') + 1);
    if (['bash', 'sh', 'zsh', 'dash'].includes(base) && flag.startsWith('-') && flag.includes('c')) return cmd;
  }
  return words.map((w) => (w === '' || NEEDS_QUOTES.test(w) ? `'${w.replaceAll("'", String.raw`'\''`)}'` : w)).join(' ');
}

const PATH_KEYS = [
  'path',
  'file_path',
  'filePath',
  'file',
  'filename',
  'target_file',
  'notebook_path',
  'absolute_path',
  'relative_path',
  'uri',
];

/** Paths an `apply_patch` text touches (`*** Update File: p`, `+++ b/p`). */
function patchPaths(text: string): string[] {
  const out: string[] = [];
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  for (const raw of lines.slice(0, 10_000)) {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    const pre = ['*** Update File: ', '*** Add File: ', '*** Delete File: ', '*** Move to: ', '+++ b/', '+++ '].find((p) =>
      line.startsWith(p),
    );
    if (pre === undefined) continue;
    const p = trimLikeRust(line.slice(pre.length));
    if (p !== '' && p !== '/dev/null' && !out.includes(p)) out.push(p);
  }
  return out;
}

/** tools.rs `classify_tool`: a non-shell tool call as one pseudo-command named after the tool. */
function toolModel(name: string, argumentsJson: string): CallModel {
  const lower = asciiLower(name);
  const cut = lower.lastIndexOf('__');
  const short = cut === -1 ? lower : lower.slice(cut + 2);
  let args: unknown = null;
  try {
    args = JSON.parse(argumentsJson);
  } catch {
    args = null;
  }
  const effect = toolEffect(short, args);
  if (effect === undefined) return finish({ commands: [], probe: false }, false);
  const cmd = newCommand();
  cmd.program = name;
  cmd.effect = effect;
  const record = isRecord(args) ? args : {};
  const text = (k: string) => (Object.hasOwn(record, k) && typeof record[k] === 'string' ? (record[k] as string) : undefined);
  const path = PATH_KEYS.map(text).find((v) => v !== undefined);
  if (effect === 'read') {
    if (path !== undefined) cmd.reads.push(path);
    else if (Array.isArray(record.paths)) for (const p of record.paths) if (typeof p === 'string') cmd.reads.push(p);
  } else if (effect === 'write') {
    // SWE-agent's command form: `{"command": "create repro.py"}` (tools.rs `command_operand`).
    const words = splitWhitespace(text('command') ?? '');
    // An editor's path comes after its sub-command (`str_replace_editor create a.py`).
    const operand = words[0] === short ? words[toolRule(short)?.kind === 'by-command' ? 2 : 1] : undefined;
    const written = path ?? (operand !== undefined && !/^[0-9:]+$/.test(operand) ? operand : undefined);
    if (written !== undefined) cmd.writes.push(written);
    if (short === 'apply_patch' || short === 'applypatch') {
      const patch =
        ['input', 'patch', 'diff', 'content'].map(text).find((v) => v !== undefined) ?? (typeof args === 'string' ? args : argumentsJson);
      for (const p of patchPaths(patch)) if (!cmd.writes.includes(p)) cmd.writes.push(p);
    }
    for (const key of ['destination', 'new_path', 'target']) {
      const p = text(key);
      if (p !== undefined) cmd.writes.push(p);
    }
  } else if (effect === 'network') {
    cmd.url = text('url');
  }
  return finish({ commands: [cmd], probe: false }, false);
}

/** mod.rs `CallModel::finish`: the call's effect, writes, masks and whether it only displays. */
function finish(model: Building, isShell: boolean): CallModel {
  const reads: string[] = [];
  const writes: string[] = [];
  const masks: Mask[] = [];
  for (const c of model.commands) {
    for (const r of c.reads) if (!reads.includes(r)) reads.push(r);
    for (const w of c.writes) if (!writes.includes(w)) writes.push(w);
    if (!c.quiet) for (const m of c.masks) if (!masks.includes(m)) masks.push(m);
  }
  const looks = (e: Effect) => e === 'read' || e === 'search';
  return {
    isShell,
    effect: best(model.commands.map((c) => c.effect)),
    commands: model.commands,
    reads,
    writes,
    masks,
    probe: model.probe,
    displaysOnly:
      model.commands.length > 0 &&
      model.commands.every((c) => looks(c.effect) || c.effect === 'other' || (c.quiet && c.effect === 'wait')) &&
      model.commands.some((c) => looks(c.effect)),
  };
}

/**
 * The model of one tool call (mod.rs `classify_call`): a shell tool's
 * command line parsed, other tools by name and arguments.
 */
export function classifyCall(toolName: string, argumentsJson: string): CallModel {
  if (isShellTool(toolName)) {
    const line = commandOf(argumentsJson);
    if (line !== undefined) {
      const model: Building = { commands: [], probe: false };
      modelLine(utf8Head(line, MAX_INPUT), 0, model);
      return finish(model, true);
    }
  }
  return toolModel(toolName, argumentsJson);
}

/** What a tool call does (`classifyCall(..).effect`); `undefined` when unknown. */
export function callEffect(toolName: string, argumentsJson: string): Effect | undefined {
  return classifyCall(toolName, argumentsJson).effect;
}
