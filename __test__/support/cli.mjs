// The `toolguard` CLI as a child process in a scratch folder, and files written there.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = fileURLToPath(new URL('../../', import.meta.url));
const bin = join(root, 'bin/toolguard.mjs');

/** `cli(args, {node?, ...spawnOptions})` runs `node [node...] bin/toolguard.mjs args` in a fresh scratch folder; `file(name, text)` writes one there. */
export function scratchCli(prefix) {
  const scratch = mkdtempSync(join(tmpdir(), prefix));
  /**
   * @param {string[]} args
   * @param {{ node?: string[], input?: string, cwd?: string, env?: NodeJS.ProcessEnv, timeout?: number }} [options] `node`: flags for node itself
   * @returns {{ code: number | null, stdout: string, stderr: string }}
   */
  const cli = (args, { node = [], ...options } = {}) => {
    const run = spawnSync(process.execPath, [...node, bin, ...args], { cwd: scratch, encoding: 'utf8', ...options });
    return { code: run.status, stdout: run.stdout, stderr: run.stderr };
  };
  const file = (name, text) => {
    const path = join(scratch, name);
    writeFileSync(path, text);
    return path;
  };
  return { scratch, cli, file, bin };
}
