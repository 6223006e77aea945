/**
 * Config schemas of the toolguard DSH plugins. The repeat schema is the
 * official `dsh-repeat-tool-reminder` schema field for field, so a cordis.yml
 * row written for the official plugin loads unchanged.
 * @module toolguard/dsh/schema
 */
import { createRequire } from 'node:module';
import type Schema from '@deepseek-ai/schemastery';
import { z } from './peers.mjs';

/** The one default shell-tool list (rules/shell-tools.json), compared without case. */
const SHELL_TOOLS: string[] = (createRequire(import.meta.url)('toolguard/rules/shell-tools.json') as { shellTools: string[] }).shellTools;

/**
 * A config schema as cordis uses it (a schemastery schema is one). The
 * published types name this, not schemastery or cordis, so that
 * `toolguard/dsh` type-checks in a project that has neither installed.
 */
export interface ConfigSchema<T> {
  // biome-ignore lint/suspicious/noExplicitAny: what a schema accepts is its own business (unknown would refuse every caller's value)
  (value?: any): T;
  /** The keys of an object schema. */
  dict?: Record<string, unknown>;
}

/** The host a plugin's `apply` gets: a cordis `Context` (typed loosely for the reason above). */
export type PluginContext = object;

export interface RepeatConfig {
  thresholds: number[];
  include: string[];
  exclude: string[];
  argumentsPreviewChars: number;
}

export const RepeatConfig: ConfigSchema<RepeatConfig> = z.object({
  thresholds: z.array(z.number()).default([3, 5, 8]),
  include: z.array(z.string()).default([]),
  exclude: z.array(z.string()).default([]),
  argumentsPreviewChars: z.number().default(500),
});

export interface LoudFailureRule {
  id: string;
  pattern: string;
  flags?: string;
  action: 'error' | 'context' | 'off';
  when: 'success' | 'always';
  message: string;
  reason?: string;
  unless?: string;
}

export interface LoudFailureConfig {
  rules: LoudFailureRule[];
  shellTools: string[];
  scanValue: boolean;
}

// Rule fields are typed loosely on purpose: the engine validates each rule and
// its error names the rule id, which a schema path (`$.rules[3].action`) does not.
const Rule = z.object({
  id: z.string().description('Unique id; a built-in id replaces that built-in in place.'),
  pattern: z.string().description('JavaScript regular-expression source, without slashes.'),
  flags: z.string().description('A subset of "imsu".'),
  action: z.string().description('"error" (block the result), "context" (add a notice) or "off".'),
  when: z.string().description('"success" (silent when the output already shows failure) or "always".'),
  message: z.string().description('One line, shown to the model next to the matching line.'),
  reason: z.string().description('Why the rule is high precision (documentation only).'),
  unless: z.string().description('A veto pattern: a match is passed over when this matches within 2 lines of it.'),
}) as unknown as Schema<LoudFailureRule>;

export const LoudFailureConfig: ConfigSchema<LoudFailureConfig> = z.object({
  rules: z.array(Rule).default([]),
  shellTools: z.array(z.string()).default(SHELL_TOOLS),
  scanValue: z.boolean().default(false),
});
