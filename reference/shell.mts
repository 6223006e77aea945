/**
 * The part of the native shell model (crates/toolguard-core/src/shell/) the
 * reference engine mirrors: the one default shell-tool list (compared
 * without case), the command of a call's arguments, the rules that count
 * only with a command (`commandRules` in rules/programs.json) and the
 * installer-noise re-scan. The programs that ran are found by a simpler
 * word split than the native tokenizer (operators `| || && ; &` and
 * newlines, env assignments and the table's wrappers skipped).
 *
 * Not mirrored (the native engine only): the intent adjustments — a match
 * in output the command only displayed, in a probe, or in the run of a
 * script the agent wrote is `context`; a `context` match behind a hidden
 * status is `error`. The differential tests use commands those never touch.
 */
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

interface ProgramsTable {
  noise: string[];
  commandRules: Record<string, string>;
  wrappers: Record<string, number>;
  programs: Record<string, { effect?: string; alias?: string }>;
}

let programs: ProgramsTable | undefined;
let shellTools: readonly string[] | undefined;

function table(): ProgramsTable {
  programs ??= require('../../rules/programs.json') as ProgramsTable;
  return programs;
}

/** The one default `loudFailure.shellTools` list (rules/shell-tools.json). */
export function defaultShellTools(): string[] {
  shellTools ??= (require('../../rules/shell-tools.json') as { shellTools: string[] }).shellTools.map((t) => t.toLowerCase());
  return [...shellTools];
}

function isShellTool(name: string): boolean {
  return defaultShellTools().includes(name.toLowerCase());
}

/** The command line of a shell tool's arguments (as `shell::command_of`). */
export function commandOf(name: string, argumentsJson: string): string | undefined {
  if (!isShellTool(name)) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(argumentsJson);
  } catch {
    return undefined;
  }
  const argv = (a: unknown[]): string | undefined => {
    const words = a.filter((w): w is string => typeof w === 'string');
    if (words.length === 0) return undefined;
    if (words.length === 3 && /^(?:.*\/)?(?:bash|sh|zsh|dash)$/.test(words[0]) && words[1].startsWith('-') && words[1].includes('c')) return words[2];
    return words.join(' ');
  };
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    for (const key of ['command', 'cmd', 'script', 'commandLine', 'command_line', 'code']) {
      const v = (value as Record<string, unknown>)[key];
      if (typeof v === 'string') return v;
      if (Array.isArray(v)) return argv(v);
    }
  }
  return undefined;
}

/** Basenames of the programs a command line runs (the simpler split; see the file comment). */
export function programsOf(command: string): string[] {
  const { wrappers } = table();
  const out: string[] = [];
  for (const segment of command.slice(0, 16 * 1024).split(/\|\||&&|[|;&\n()]/)) {
    const words = segment.trim().split(/\s+/).filter((w) => w !== '');
    let i = 0;
    while (i < words.length && /^[A-Za-z_][A-Za-z0-9_]*=/.test(words[i])) i++;
    while (i < words.length && Object.hasOwn(wrappers, words[i].split('/').pop() ?? '')) {
      const skip = wrappers[words[i].split('/').pop() ?? ''];
      i++;
      while (i < words.length && words[i].startsWith('-')) i++;
      i += skip;
    }
    const word = words[i]?.replace(/^['"]|['"]$/g, '');
    if (word) out.push(word.split('/').pop() || word);
  }
  return out;
}

const SHELLS = new Set(['(eval)', 'bash', 'sh', 'zsh', 'dash', '/bin/sh', '/bin/bash', '/bin/zsh']);
const LEXICON = [
  'no such file or directory', 'cannot ', "can't ", 'could not ', "couldn't ", 'unable to ', 'failed', 'not found',
  'permission denied', 'not a directory', 'is a directory', 'invalid ', 'unrecognized ', 'illegal ', 'unknown option',
  'missing ', 'error', 'fatal', 'refused', 'timed out', 'bad ', 'event not found', 'not recognized', 'does not exist',
];

/** `shell::intent::is_program_message`, with the programs found by `programsOf`. */
function isProgramMessage(line: string, ran: readonly string[]): boolean {
  const trimmed = line.trimStart();
  const at = trimmed.indexOf(': ');
  if (at < 0) return false;
  let head = trimmed.slice(0, at);
  let rest = trimmed.slice(at + 2);
  head = head.split(':')[0];
  if (rest.startsWith('line ')) {
    const k = rest.indexOf(': ');
    rest = k < 0 ? rest.slice(5) : rest.slice(k + 2);
  }
  const k = rest.indexOf(': ');
  if (k > 0 && /^\d+$/.test(rest.slice(0, k))) rest = rest.slice(k + 2);
  const base = head.split('/').pop() ?? head;
  if (!SHELLS.has(head) && !ran.includes(base)) return false;
  const m = rest.toLowerCase();
  if (m.startsWith('warning') || m.startsWith('note') || m.startsWith('info')) return false;
  return LEXICON.some((w) => m.includes(w));
}

function effectOf(program: string): string | undefined {
  const rows = table().programs;
  const row = Object.hasOwn(rows, program) ? rows[program] : undefined;
  if (row?.alias !== undefined) return rows[row.alias]?.effect;
  return row?.effect;
}

/** Whether a rule's match counts for this command (`commandRules`); rules not listed always count. */
export function ruleCounts(id: string, excerpt: string, command: string | undefined): boolean {
  const rules = table().commandRules;
  if (!Object.hasOwn(rules, id)) return true;
  if (command === undefined) return false;
  const need = rules[id];
  const ran = programsOf(command);
  if (need === 'program-ran') return isProgramMessage(excerpt, ran);
  if (need.startsWith('effect:')) {
    const effect = need.slice('effect:'.length);
    return ran.some((p) => effectOf(p) === effect);
  }
  if (need.startsWith('programs:')) return need.slice('programs:'.length).split(',').some((p) => ran.includes(p));
  return true;
}

/** Whether a matched excerpt is a known noise line (the scan is then re-run without them). */
export function isNoise(excerpt: string): boolean {
  return table().noise.some((n) => excerpt.startsWith(n));
}

/** `text` with its noise lines blanked (line numbers kept). */
export function withoutNoise(text: string): string {
  const { noise } = table();
  return text
    .split('\n')
    .map((l) => (noise.some((n) => l.trimStart().startsWith(n)) ? '' : l))
    .join('\n');
}
