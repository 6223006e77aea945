/**
 * The silent-failure detector as a DSH plugin: a shell command that exits 0
 * while its output shows it failed becomes an error result (or gains a notice)
 * before the model sees it.
 * @module toolguard/dsh/loud-failure
 */
import type { Context } from '@deepseek-ai/cordis';
import { installGuard, knownKeys } from './core.mjs';
import { LoudFailureConfig, type PluginContext } from './schema.mjs';

export const name = 'loud-failure';
export const Config = LoudFailureConfig;
export type Config = LoudFailureConfig;

export function apply(ctx: PluginContext, config: Config): void {
  installGuard(ctx as Context, {
    plugin: name,
    engine: { loudFailure: knownKeys(ctx as Context, name, config, Object.keys(LoudFailureConfig.dict ?? {})) },
    // Calls carry no agent id, so the engine's repeat chains never run.
    repeat: false,
    scan: true,
    scanValue: config?.scanValue === true,
  });
}
