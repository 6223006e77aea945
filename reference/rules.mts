/**
 * Silent-failure rules: the built-in table (`rules/builtin.json`, shared with
 * the native engine), merging user rules into it, validation, and the scan.
 *
 * The one intended difference from the native engine: patterns compile with
 * JavaScript's own `RegExp`, so this engine also accepts what the native
 * linear-time engine rejects at load (lookaround, backreferences, legacy
 * octal and identity escapes, inline modifiers). A pattern both accept means
 * the same in both, except the corners listed in crates/toolguard-core/src/rules/dialect.rs
 * ("Documented divergences": `m` with CR LF or U+2028, astral characters
 * without `u`, lone surrogates, Unicode-version differences).
 */
import { createRequire } from 'node:module';

import type { ResolvedRule } from './config.mjs';
import { configError } from './errors.mjs';
import type { BuiltinRule, RuleAction, RuleHit, RuleWhen } from './types.mjs';
import { trimLikeRust } from './whitespace.mjs';

/** A validated rule with its compiled pattern. */
export interface CompiledRule {
  readonly id: string;
  readonly action: RuleAction;
  readonly when: RuleWhen;
  readonly message: string;
  readonly regex: RegExp;
  /** The pattern again with `g`, to resume after a vetoed match (only with `unless`). */
  readonly resumable?: RegExp;
  readonly unless?: RegExp;
}

/** Lines of context on each side of a match that `unless` sees (native: rules/unless.rs `WINDOW_LINES`). */
const WINDOW_LINES = 2;
/** Matches of one rule examined per scan before it gives up (native `MAX_EXAMINED`). */
const MAX_EXAMINED = 64;
/** DSH's line between stdout and stderr: not output, so the window does not count it. */
const STDERR_SEPARATOR = '[stderr]';

const EXCERPT_MAX_CHARS = 200;

// The compiled file lives in dist/reference/; the table stays data at the repo root.
const require = createRequire(import.meta.url);
let builtinTable: readonly BuiltinRule[] | undefined;

/** The built-in table, read on first use (require caches the file). */
function loadBuiltinRules(): readonly BuiltinRule[] {
  builtinTable ??= require('../../rules/builtin.json') as BuiltinRule[];
  return builtinTable;
}

/** The user rules being compiled: a rule's error is located by its id among them, as natively (error.rs `Error::path`). */
let compiling: readonly ResolvedRule[] = [];

function ruleError(id: string, reason: string): Error {
  const index = compiling.findIndex((rule) => rule.id === id);
  return configError(`loud-failure: rule ${id}: ${reason}`, 'TOOLGUARD_BAD_RULE', index === -1 ? [] : ['loudFailure', 'rules', index]);
}

/** The native dialect's flag check (crates/toolguard-core/src/rules/dialect.rs `parse_flags`), reasons word for word. */
function checkFlags(flags: string): string | undefined {
  const seen = new Set<string>();
  for (const flag of flags) {
    if (flag === 'g' || flag === 'y') return `flag '${flag}' is stateful (lastIndex) and is not supported`;
    if (flag === 'd') return "flag 'd' (match indices) is not supported";
    if (flag === 'v') return "flag 'v' (unicodeSets) is not supported; use 'u'";
    if (!'imsu'.includes(flag)) return `unknown flag '${flag}'`;
    if (seen.has(flag)) return `duplicate flag '${flag}'`;
    seen.add(flag);
  }
  return undefined;
}

/**
 * Check what the shape check leaves open and compile the pattern; throws
 * `loud-failure: rule <id>: <reason>`. Syntax errors carry V8's reason where
 * the native engine gives its own.
 */
export function compileRule(rule: ResolvedRule): CompiledRule {
  const { id, pattern, flags, message } = rule;
  // A built-in switched off by id alone: nothing to compile or run (rules/mod.rs `check_rule_sized`).
  if (rule.action === 'off' && pattern === '') return { id, action: 'off', when: rule.when, message, regex: /$^/ };
  if (id === '') throw ruleError('(empty id)', '`id` must not be empty');
  if (trimLikeRust(message) === '' && rule.action !== 'off') throw ruleError(id, '`message` must not be empty');
  const flagError = checkFlags(flags);
  if (flagError !== undefined) throw ruleError(id, flagError);
  let regex: RegExp;
  try {
    regex = new RegExp(pattern, flags);
  } catch (error) {
    throw ruleError(id, `invalid pattern: ${(error as Error).message}`);
  }
  const compiled = { id, action: rule.action, when: rule.when, message, regex };
  if (rule.unless === undefined) return compiled;
  if (rule.unless === '') throw ruleError(id, '`unless` must not be empty (leave it out for no veto)');
  let unless: RegExp;
  try {
    unless = new RegExp(rule.unless, flags);
  } catch (error) {
    throw ruleError(id, `\`unless\`: invalid pattern: ${(error as Error).message}`);
  }
  return { ...compiled, unless, resumable: new RegExp(pattern, `${flags}g`) };
}

/**
 * The effective table: built-ins, with a user rule of the same id replacing
 * the built-in in place and new ids appended in order. Two user rules with one
 * id fail the load. `off` rules compile too (an unusable table fails the load
 * whatever the actions), then are dropped, since they never run.
 */
export function buildRuleTable(userRules: readonly ResolvedRule[]): CompiledRule[] {
  compiling = userRules;
  try {
    return buildRules(userRules);
  } finally {
    compiling = [];
  }
}

function buildRules(userRules: readonly ResolvedRule[]): CompiledRule[] {
  const merged: ResolvedRule[] = loadBuiltinRules().map(({ id, pattern, flags, action, when, message, unless }) => ({
    id,
    pattern,
    flags: flags ?? '',
    action,
    when: when ?? 'success',
    message,
    ...(unless === undefined ? {} : { unless }),
  }));
  const indexById = new Map(merged.map((rule, index) => [rule.id, index]));
  const userIds = new Set<string>();
  for (const rule of userRules) {
    if (userIds.has(rule.id)) throw ruleError(rule.id, 'two user rules have this id');
    userIds.add(rule.id);
    const existing = indexById.get(rule.id);
    if (existing === undefined) {
      indexById.set(rule.id, merged.length);
      merged.push(rule);
    } else {
      merged[existing] = rule;
    }
  }
  return merged.map(compileRule).filter((rule) => rule.action !== 'off');
}

/** The matching line for the verdict: trimmed, at most 200 Unicode scalar values plus `…`. */
export function excerptOf(line: string): string {
  const trimmed = trimLikeRust(line);
  const chars = Array.from(trimmed);
  return chars.length > EXCERPT_MAX_CHARS ? `${chars.slice(0, EXCERPT_MAX_CHARS).join('')}…` : trimmed;
}

/** A match of one rule: where it starts, reported once per rule. */
export function firstMatch(rule: CompiledRule, text: string): RuleHit | undefined {
  const start = firstUnvetoed(rule, text);
  if (start === undefined) return undefined;
  const lineStart = start === 0 ? 0 : text.lastIndexOf('\n', start - 1) + 1;
  const newline = text.indexOf('\n', start);
  const lineEnd = newline === -1 ? text.length : newline;
  let line = 1;
  for (let at = text.indexOf('\n'); at !== -1 && at < start; at = text.indexOf('\n', at + 1)) line++;
  return { id: rule.id, message: rule.message, line, excerpt: excerptOf(text.slice(lineStart, lineEnd)) };
}

/**
 * The start of the rule's first match that its `unless` does not veto (any
 * first match for a rule without one). After a vetoed match the search
 * resumes at the line after the match's last line; at most MAX_EXAMINED
 * matches are examined (native: rules/unless.rs `first_unvetoed`).
 */
function firstUnvetoed(rule: CompiledRule, text: string): number | undefined {
  if (rule.unless === undefined || rule.resumable === undefined) return rule.regex.exec(text)?.index;
  const re = rule.resumable;
  let at = 0;
  for (let examined = 0; examined < MAX_EXAMINED; examined++) {
    re.lastIndex = at;
    const match = re.exec(text);
    if (match === null) return undefined;
    const start = match.index;
    const [from, to, next] = vetoWindow(text, start, start + match[0].length);
    if (!rule.unless.test(text.slice(from, to))) return start;
    if (next > text.length) return undefined;
    at = next;
  }
  return undefined;
}

/**
 * The match's window — from the start of the line WINDOW_LINES above its
 * first line to the end (before the `\n`) of the line WINDOW_LINES below its
 * last line, a `[stderr]` separator line not counted — and the start of the
 * line after its last line.
 */
function vetoWindow(text: string, start: number, end: number): [number, number, number] {
  const lineStart = (at: number) => (at === 0 ? 0 : text.lastIndexOf('\n', at - 1) + 1);
  const lineEnd = (at: number) => {
    const newline = text.indexOf('\n', at);
    return newline === -1 ? text.length : newline;
  };
  let from = lineStart(start);
  for (let counted = 0; counted < WINDOW_LINES && from > 0; ) {
    const previous = lineStart(from - 1);
    if (text.slice(previous, from - 1) !== STDERR_SEPARATOR) counted++;
    from = previous;
  }
  const lastEnd = lineEnd(end > start ? end - 1 : start);
  let to = lastEnd;
  for (let counted = 0; counted < WINDOW_LINES && to < text.length; ) {
    const next = lineEnd(to + 1);
    if (text.slice(to + 1, next) !== STDERR_SEPARATOR) counted++;
    to = next;
  }
  return [from, to, lastEnd + 1];
}
