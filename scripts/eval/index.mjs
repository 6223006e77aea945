#!/usr/bin/env node
// `npm run eval`: runs every scripts/eval/*.eval.mjs — each default export is
// called with the command-line arguments and what it returns is printed.
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const only = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const flags = process.argv.slice(2).filter((a) => a.startsWith('--'));
let failed = false;
for (const file of readdirSync(here).filter((f) => f.endsWith('.eval.mjs')).sort()) {
  if (only.length && !only.some((o) => file.startsWith(o))) continue;
  console.log(`\n## ${file}\n`);
  try {
    const mod = await import(pathToFileURL(join(here, file)).href);
    const out = await mod.default(flags);
    if (out !== undefined) console.log(typeof out === 'string' ? out : JSON.stringify(out, null, 2));
  } catch (err) {
    failed = true;
    console.error(`${file}: ${err.stack ?? err}`);
  }
}
process.exitCode = failed ? 1 : 0;
