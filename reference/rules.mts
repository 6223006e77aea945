/**
 * Silent-failure rules: the built-in table (`rules/builtin.json`, shared with
 * the native engine), merging user rules into it, validation, and the scan.
 *
 * The one intended difference from the native engine: patterns compile with
 * JavaScript's own `RegExp`, so this engine also accepts constructs the
 * native linear-time engine rejects at load (lookaround, backreferences).
 * Every table the native engine accepts means the same here.
 */
import { createRequire } from 'node:module';

import type { ResolvedRule } from './config.mjs';
import type { BuiltinRule, RuleAction, RuleHit, RuleWhen } from './types.mjs';

/** A validated rule with its compiled pattern. */
export interface CompiledRule {
  readonly id: string;
  readonly action: RuleAction;
  readonly when: RuleWhen;
  readonly message: string;
  readonly regex: RegExp;
}

const ALLOWED_FLAGS = 'imsu';
const STATEFUL_FLAGS = 'gy';
const EXCERPT_MAX_CHARS = 200;

// The compiled file lives in dist/reference/; the table stays data at the repo root.
const require = createRequire(import.meta.url);
let builtinTable: readonly BuiltinRule[] | undefined;

/** The built-in table, read on first use (require caches the file). */
function loadBuiltinRules(): readonly BuiltinRule[] {
  builtinTable ??= require('../../rules/builtin.json') as BuiltinRule[];
  return builtinTable;
}

function ruleError(id: string, reason: string): Error {
  return new Error(`loud-failure: rule ${id}: ${reason}`);
}

/** Check what the shape check leaves open and compile the pattern; throws `loud-failure: rule <id>: <reason>`. */
export function compileRule(rule: ResolvedRule): CompiledRule {
  const { id, pattern, flags, message } = rule;
  if (message === '') throw ruleError(id, '`message` must not be empty');
  const seen = new Set<string>();
  for (const flag of flags) {
    if (STATEFUL_FLAGS.includes(flag)) throw ruleError(id, `stateful flag \`${flag}\` is not allowed`);
    if (!ALLOWED_FLAGS.includes(flag)) throw ruleError(id, `unknown flag \`${flag}\` (allowed: ${ALLOWED_FLAGS})`);
    if (seen.has(flag)) throw ruleError(id, `duplicate flag \`${flag}\``);
    seen.add(flag);
  }
  let regex: RegExp;
  try {
    regex = new RegExp(pattern, flags);
  } catch (error) {
    throw ruleError(id, `invalid regex: ${(error as Error).message}`);
  }
  return { id, action: rule.action, when: rule.when, message, regex };
}

/**
 * The effective table: built-ins, with a user rule of the same id replacing
 * the built-in in place and new ids appended in order. Two user rules with one
 * id fail the load. `off` rules are dropped after compiling, since they never run.
 */
export function buildRuleTable(userRules: readonly ResolvedRule[]): CompiledRule[] {
  const merged: ResolvedRule[] = loadBuiltinRules().map(({ id, pattern, flags, action, when, message }) => ({
    id,
    pattern,
    flags: flags ?? '',
    action,
    when: when ?? 'success',
    message,
  }));
  const indexById = new Map(merged.map((rule, index) => [rule.id, index]));
  const userIds = new Set<string>();
  for (const rule of userRules) {
    if (userIds.has(rule.id)) throw ruleError(rule.id, 'duplicate id');
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

/** The built-in table as data (a fresh copy; editing it changes nothing). */
export function builtinRules(): BuiltinRule[] {
  return loadBuiltinRules().map((rule) => ({ ...rule }));
}

// Rust's `char::is_whitespace` (Unicode White_Space), which the native engine
// trims with; JavaScript's `trim` differs (it strips U+FEFF, keeps U+0085).
const WHITESPACE = /^[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+|[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+$/g;

/** The matching line for the verdict: trimmed, at most 200 Unicode scalar values plus `…`. */
export function excerptOf(line: string): string {
  const trimmed = line.replace(WHITESPACE, '');
  const chars = Array.from(trimmed);
  return chars.length > EXCERPT_MAX_CHARS ? `${chars.slice(0, EXCERPT_MAX_CHARS).join('')}…` : trimmed;
}

/** A match of one rule: where it starts, reported once per rule. */
export function firstMatch(rule: CompiledRule, text: string): RuleHit | undefined {
  const match = rule.regex.exec(text);
  if (match === null) return undefined;
  const start = match.index;
  const lineStart = start === 0 ? 0 : text.lastIndexOf('\n', start - 1) + 1;
  const newline = text.indexOf('\n', start);
  const lineEnd = newline === -1 ? text.length : newline;
  let line = 1;
  for (let at = text.indexOf('\n'); at !== -1 && at < start; at = text.indexOf('\n', at + 1)) line++;
  return { id: rule.id, message: rule.message, line, excerpt: excerptOf(text.slice(lineStart, lineEnd)) };
}
