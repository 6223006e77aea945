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

import type { Rule, RuleAction, RuleMatch, RuleWhen } from './types.mjs';

/** A validated rule with its compiled pattern. */
export interface CompiledRule {
  readonly id: string;
  readonly action: Exclude<RuleAction, 'off'>;
  readonly when: RuleWhen;
  readonly message: string;
  readonly regex: RegExp;
}

const ACTIONS: readonly string[] = ['error', 'context', 'off'];
const WHENS: readonly string[] = ['success', 'always'];
const ALLOWED_FLAGS = 'imsu';
const STATEFUL_FLAGS = 'gy';
const EXCERPT_MAX_CHARS = 200;

// The compiled file lives in dist/reference/; the table stays data at the repo root.
const require = createRequire(import.meta.url);
let builtinTable: readonly Rule[] | undefined;

/** The built-in table, read on first use (require caches the file). */
function loadBuiltinRules(): readonly Rule[] {
  builtinTable ??= require('../../rules/builtin.json') as Rule[];
  return builtinTable;
}

function ruleError(id: string, reason: string): Error {
  return new Error(`loud-failure: rule ${id}: ${reason}`);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/**
 * Check one rule's shape and compile its pattern; throws
 * `loud-failure: rule <id>: <reason>`. `label` names a rule without a usable id.
 */
export function compileRule(rule: unknown, label: string): CompiledRule & { readonly off: boolean } {
  if (!isRecord(rule)) throw ruleError(label, 'must be an object');
  const { id, pattern, flags = '', action, when, message } = rule;
  if (typeof id !== 'string' || id === '') throw ruleError(label, '`id` must be a non-empty string');
  if (typeof pattern !== 'string') throw ruleError(id, '`pattern` must be a string');
  if (typeof flags !== 'string') throw ruleError(id, '`flags` must be a string');
  if (typeof action !== 'string' || !ACTIONS.includes(action)) {
    throw ruleError(id, "`action` must be 'error', 'context' or 'off'");
  }
  if (typeof when !== 'string' || !WHENS.includes(when)) throw ruleError(id, "`when` must be 'success' or 'always'");
  if (typeof message !== 'string' || message === '') throw ruleError(id, '`message` must be a non-empty string');
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
  return {
    id,
    action: action === 'off' ? 'context' : (action as 'error' | 'context'),
    off: action === 'off',
    when: when as RuleWhen,
    message,
    regex,
  };
}

/**
 * The effective table: built-ins, with a user rule of the same id replacing
 * the built-in in place and new ids appended in order. Two user rules with one
 * id fail the load. `off` rules are dropped here since they never run.
 */
export function buildRuleTable(userRules: readonly unknown[] = []): CompiledRule[] {
  const builtins = loadBuiltinRules();
  const merged: Array<{ rule: unknown; label: string }> = builtins.map((rule, index) => ({
    rule,
    label: `builtin #${index}`,
  }));
  const indexById = new Map<string, number>();
  builtins.forEach((rule, index) => indexById.set(rule.id, index));
  const userIds = new Set<string>();
  userRules.forEach((rule, index) => {
    const label = `#${index}`;
    const id = isRecord(rule) && typeof rule.id === 'string' && rule.id !== '' ? rule.id : undefined;
    if (id === undefined) {
      compileRule(rule, label); // throws the shape error
      return;
    }
    if (userIds.has(id)) throw ruleError(id, 'duplicate id');
    userIds.add(id);
    const existing = indexById.get(id);
    if (existing === undefined) {
      indexById.set(id, merged.length);
      merged.push({ rule, label });
    } else {
      merged[existing] = { rule, label };
    }
  });
  const table: CompiledRule[] = [];
  for (const { rule, label } of merged) {
    const compiled = compileRule(rule, label);
    if (!compiled.off) table.push(compiled);
  }
  return table;
}

/** The built-in table as data (a fresh copy; editing it changes nothing). */
export function builtinRules(): Rule[] {
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
export function firstMatch(rule: CompiledRule, text: string): RuleMatch | undefined {
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
