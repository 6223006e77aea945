#!/usr/bin/env node
// Launcher: the CLI is TypeScript compiled to dist/ts/cli (npm run build:ts).
// `toolguard hook` runs once per agent tool call, so it skips the main CLI's imports.
import { existsSync } from 'node:fs';

if (!existsSync(new URL('../dist/ts/cli/main.mjs', import.meta.url))) {
  // A git checkout (or an install from git) before `npm run build`.
  process.stderr.write('toolguard: this copy is not built (dist/ is missing): run `npm run build` in the package folder (it needs a Rust toolchain), or install the package from the npm registry\n');
  process.exit(2);
}
if (process.argv[2] === 'hook') {
  const { runHook } = await import('../dist/ts/adapters/hooks.mjs');
  // exit(), not exitCode: past its deadline the hook must not wait for a stdin that never closes.
  process.exit(await runHook(process.argv.slice(3), 0, 1, 2));
} else {
  const { main } = await import('../dist/ts/cli/main.mjs');
  process.exitCode = await main(process.argv.slice(2));
}
