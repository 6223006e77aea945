/**
 * Both toolguard guards — loop detection and the silent-failure detector —
 * on one listener and one engine call per tool result. The result-aware loop
 * detectors run by default and take the place of the result-blind repeat
 * reminder; `loops: false` gives DSH's exact repeat reminder instead.
 * @module toolguard/dsh
 */
import type { Context } from '@deepseek-ai/cordis';
import z from '@deepseek-ai/schemastery';
import type { LoopsOptions } from 'toolguard';
import { installGuard } from './core.mjs';
import { LoudFailureConfig, RepeatConfig } from './schema.mjs';

export const name = 'toolguard';

export interface Config {
  repeat?: RepeatConfig;
  loudFailure?: LoudFailureConfig;
  /** The loop detectors (on unless `false`); the engine validates the options. */
  loops?: boolean | LoopsOptions;
}

export const Config: z<Config> = z.object({
  repeat: RepeatConfig,
  loudFailure: LoudFailureConfig,
  loops: z
    .union([z.boolean(), z.dict(z.any())])
    .description('Loop detectors over calls and results (README "Loop detection"): false for DSH\'s exact repeat reminder instead.') as unknown as z<boolean | LoopsOptions>,
});

export function apply(ctx: Context, config: Config): void {
  const loudFailure = config.loudFailure;
  const loops = config.loops === undefined || config.loops === true ? {} : config.loops;
  installGuard(ctx, {
    plugin: name,
    engine: { repeat: config.repeat ?? {}, loudFailure: loudFailure ?? {}, loops },
    repeat: true,
    scan: true,
    deny: loops !== false && loops.deny !== undefined && loops.deny !== false,
  });
}

export { RepeatConfig, LoudFailureConfig };
