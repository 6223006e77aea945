// `mkdir -p` with a bounded number of steps. Node's own recursive mkdirSync
// spins forever where mkdir answers ENOENT under a parent that exists
// (`/proc/x`: the kernel refuses new entries there that way), so the report
// folder is made one component at a time, each tried once.

import { mkdirSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

/** Make `path` and any missing parents; throws the first error (a path that is not a folder included). */
export function makeFolder(path: string): void {
  const missing: string[] = [];
  let at = resolve(path);
  // Up to the first ancestor that exists (the root always does).
  for (;;) {
    try {
      if (!statSync(at).isDirectory()) throw Object.assign(new Error(`${at} is not a folder`), { code: 'ENOTDIR' });
      break;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT' || dirname(at) === at) throw e;
      missing.push(at);
      at = dirname(at);
    }
  }
  for (const dir of missing.reverse()) {
    try {
      mkdirSync(dir);
    } catch (e) {
      // Made meanwhile by another process: fine if it is a folder.
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST' || !statSync(dir).isDirectory()) throw e;
    }
  }
}
