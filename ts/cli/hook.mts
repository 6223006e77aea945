/**
 * Entry point of `toolguard hook` (see `toolguard/hooks`): kept apart from the
 * main CLI so a hook process loads nothing but the hook module — it runs once
 * per tool call and its start-up time is the host's latency.
 * @module toolguard/cli/hook
 */
import { runHook } from '../adapters/hooks.mjs';

process.exitCode = await runHook(process.argv.slice(2), process.stdin, process.stdout);
