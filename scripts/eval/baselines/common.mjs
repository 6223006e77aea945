// Shared helpers for the baseline re-statements: each baseline sees a call as
// { index, tool, args, argsJson, output, exitCode, isError } — `output` is the
// text the model saw (a non-zero exit code appended as DSH shows it).
import { createHash } from 'node:crypto';

export const sha256 = (text) => createHash('sha256').update(text).digest('hex');

/** Tools that run a shell command (or feed one) in the corpus's tool styles. */
export const SHELL_TOOLS = new Set(['bash', 'Bash', 'shell', 'exec_command', 'write_stdin']);
/** Tools that read a file by path, and the argument that names it. */
export const READ_TOOLS = { read_file: 'path', Read: 'file_path' };
/** Tools that change a file by path. */
export const WRITE_TOOLS = { edit_file: 'path', write_file: 'path', Edit: 'file_path', Write: 'file_path' };

/** Deep key sort, then JSON.stringify (the "stable stringify" most of them use). */
export function stableStringify(value) {
  const sort = (v) => {
    if (Array.isArray(v)) return v.map(sort);
    if (v !== null && typeof v === 'object') {
      const out = {};
      for (const k of Object.keys(v).sort()) out[k] = sort(v[k]);
      return out;
    }
    return v;
  };
  return JSON.stringify(sort(value));
}

/** A failed call: the tool itself failed, or a shell command exited non-zero. */
export const failed = (call) => call.isError || (SHELL_TOOLS.has(call.tool) && call.exitCode !== null && call.exitCode !== 0);
