#!/usr/bin/env node
// Launcher: the CLI is TypeScript compiled to dist/ts/cli (npm run build:ts).
// `toolguard hook` runs once per agent tool call, so it skips the main CLI's imports.
if (process.argv[2] === 'hook') {
  const { runHook } = await import('../dist/ts/adapters/hooks.mjs');
  process.exitCode = await runHook(process.argv.slice(3), 0, 1, 2);
} else {
  const { main } = await import('../dist/ts/cli/main.mjs');
  process.exitCode = await main(process.argv.slice(2));
}
