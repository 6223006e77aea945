/**
 * Drop-in replacement for `@deepseek-ai/dsh-repeat-tool-reminder` on the
 * native engine: same name, config, texts, source labels and decisions.
 * @module toolguard/dsh/repeat-tool-reminder
 */
import type { Context } from '@deepseek-ai/cordis';
import { installGuard, knownKeys } from './core.mjs';
import { RepeatConfig, type PluginContext } from './schema.mjs';

export const name = 'repeat-tool-reminder';
export const Config = RepeatConfig;
export type Config = RepeatConfig;

export function apply(ctx: PluginContext, config: Config): void {
  installGuard(ctx as Context, {
    plugin: name,
    // No shell tools: this plugin scans nothing, and only the repeat part is validated.
    engine: { repeat: knownKeys(ctx as Context, name, config, Object.keys(RepeatConfig.dict ?? {})), loudFailure: { shellTools: [] } },
    repeat: true,
    scan: false,
  });
}
