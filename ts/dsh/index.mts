/**
 * Both toolguard guards — the repeat-call reminder and the silent-failure
 * detector — on one listener and one engine call per tool result.
 * @module toolguard/dsh
 */
import type { Context } from '@deepseek-ai/cordis';
import z from '@deepseek-ai/schemastery';
import { installGuard } from './core.mjs';
import { LoudFailureConfig, RepeatConfig, type ConfigSchema, type PluginContext } from './schema.mjs';

export const name = 'toolguard';

export interface Config {
  repeat?: RepeatConfig;
  loudFailure?: LoudFailureConfig;
}

export const Config: ConfigSchema<Config> = z.object({
  repeat: RepeatConfig as z<RepeatConfig>,
  loudFailure: LoudFailureConfig as z<LoudFailureConfig>,
});

export function apply(ctx: PluginContext, config: Config): void {
  // This plugin has no official original to stay compatible with: an unknown key is an error, as inside its sections.
  const unknown = Object.keys(config ?? {}).filter((key) => !(key in (Config.dict ?? {})));
  if (unknown.length > 0) {
    throw new Error(`toolguard: unknown key config.${unknown[0]} (expected one of: ${Object.keys(Config.dict ?? {}).join(', ')})`);
  }
  const loudFailure = config.loudFailure;
  installGuard(ctx as Context, {
    plugin: name,
    engine: { repeat: config.repeat ?? {}, loudFailure: loudFailure ?? {} },
    repeat: true,
    scan: true,
  });
}

export { RepeatConfig, LoudFailureConfig };
