/**
 * Both toolguard guards — loop detection and the silent-failure detector —
 * on one listener and one engine call per tool result. The result-aware loop
 * detectors run by default and take the place of the result-blind repeat
 * reminder; `loops: false` gives DSH's exact repeat reminder instead.
 * @module toolguard/dsh
 */
import type { Context } from '@deepseek-ai/cordis';
import type Schema from '@deepseek-ai/schemastery';
import type { LoopsOptions } from 'toolguard';
import { installGuard } from './core.mjs';
import { z } from './peers.mjs';
import { LoudFailureConfig, RepeatConfig, type ConfigSchema, type PluginContext } from './schema.mjs';

export const name = 'toolguard';

export interface Config {
  repeat?: RepeatConfig;
  loudFailure?: LoudFailureConfig;
  /** The loop detectors (on unless `false`); the engine validates the options. */
  loops?: boolean | LoopsOptions;
  /** Write each call and its verdict as an OpenTelemetry span (docs/adapters.md "Verdicts in your observability stack"). */
  otel?: boolean;
}

export const Config: ConfigSchema<Config> = z.object({
  repeat: RepeatConfig as Schema<RepeatConfig>,
  loudFailure: LoudFailureConfig as Schema<LoudFailureConfig>,
  loops: z
    .union([z.boolean(), z.dict(z.any())])
    .description(
      'Loop detectors over calls and results (docs/loops.md "Loop detection"): false for DSH\'s exact repeat reminder instead.',
    ) as unknown as Schema<boolean | LoopsOptions>,
  otel: z
    .boolean()
    .default(false)
    .description(
      'Write each tool call and its verdict as an OpenTelemetry execute_tool span (needs @opentelemetry/api and an SDK registered by the host).',
    ),
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
    // Loops on unless `false`: the engine decides, as for every shell.
    engine: { repeat: config.repeat ?? {}, loudFailure: loudFailure ?? {}, loops: config.loops },
    loopsByDefault: true,
    repeat: true,
    scan: true,
    scanValue: loudFailure?.scanValue === true,
    otel: config.otel === true,
  });
}

export { RepeatConfig, LoudFailureConfig };
