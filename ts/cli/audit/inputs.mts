// What `toolguard audit` reads: the files and folders given (searched for
// logs), the histories on this machine, the bundled sample, standard input.

import { closeSync, type Dirent, lstatSync, mkdtempSync, openSync, readdirSync, readSync, rmSync, statSync, writeSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { detectLogFormat, native } from 'toolguard';

import { UsageError } from '../args.mjs';
import type { Format } from './types.mjs';

/** The installed package's folder (dist/ts/cli/audit/ is four levels down). */
export const packageRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../../../..');
export const SAMPLE_DIR = join(packageRoot, 'samples', 'dsh');

/** Where Claude Code and Codex keep their histories, when they exist. */
export function defaultLocations(env = process.env): string[] {
  const home = env.HOME || homedir();
  const claude = join(env.CLAUDE_CONFIG_DIR || join(home, '.claude'), 'projects');
  const codex = join(env.CODEX_HOME || join(home, '.codex'), 'sessions');
  return [claude, codex].filter((dir) => {
    try {
      return statSync(dir).isDirectory();
    } catch {
      return false;
    }
  });
}

/**
 * Which files a directory search picks up: DSH transcripts, or any JSON
 * Lines file or trajectory; a file whose name does not say (`*.json`,
 * `*.md`, `*.log`: also READMEs, manifests, results) only when its content
 * is a known log (decided in Rust, as `--format auto` reads it).
 */
function isLogName(name: string, format: Format, path: string): boolean {
  if (format === 'dsh') return name === 'session.jsonl' || name === 'session.jsonl.zstd';
  if (/\.(?:jsonl|jsonl\.zst|jsonl\.zstd|ndjson|traj\.json|traj|parquet)$/.test(name)) return true;
  if (!/\.(?:json|md|log)$/.test(name) || !native) return false;
  const found = detectLogFormat(path);
  // A page that quotes a log is not one: *.md only as a Markdown export,
  // *.log only as a terminal capture.
  const fits = name.endsWith('.md')
    ? found === 'claude-code-md'
    : name.endsWith('.log')
      ? found === 'codex-exec-log' || found === 'mini-swe-agent-log'
      : found !== null;
  return fits && (format === 'auto' || found === format);
}

/** The path `-` stands for standard input (zstd is told by its magic, not a name). */
export const STDIN = '-';

/**
 * Expand the command-line paths: files as given, directories searched
 * recursively (symlinked directories are not followed: no cycles), sorted.
 * A path that does not exist is a usage error (a mistyped path must not pass
 * green); a file or directory that exists but cannot be read yields an
 * entry, so the report names it.
 */
export function findLogs(paths: string[], format: Format): string[] {
  return findInputs(paths, format).map((input) => input.path);
}

/** A file to audit, and the key `--shard` hashes: its path relative to the folder given (a file given by itself: the path as given), with `/` separators. */
export interface FoundInput {
  path: string;
  key: string;
}

/** {@link findLogs} with each file's shard key. */
export function findInputs(paths: string[], format: Format): FoundInput[] {
  const out: FoundInput[] = [];
  let root = '';
  const slashes = (p: string) => p.split(sep).join('/');
  const walk = (dir: string) => {
    let entries: Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      out.push({ path: dir, key: slashes(relative(root, dir)) || slashes(dir) });
      return;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if ((entry.isFile() || entry.isSymbolicLink()) && isLogName(entry.name, format, path))
        out.push({ path, key: slashes(relative(root, path)) });
    }
  };
  for (const path of paths) {
    if (path === STDIN) {
      if (out.some((i) => i.path === STDIN)) throw new UsageError('- (standard input) can be given once');
      out.push({ path: STDIN, key: STDIN });
      continue;
    }
    let isDir = false;
    try {
      isDir = lstatSync(path).isDirectory() || statSync(path).isDirectory();
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'ENOTDIR') throw new UsageError(`${path}: no such file or directory`);
      // Unreadable: the Rust side reports it as that file's error.
    }
    if (isDir) {
      const before = out.length;
      root = path;
      walk(path);
      if (out.length === before)
        throw new UsageError(
          `no session logs found under ${path} (looked for ${format === 'dsh' ? 'session.jsonl and session.jsonl.zstd' : '*.jsonl, *.jsonl.zst(d), *.ndjson, *.traj(.json), *.parquet, and *.json, *.md, *.log holding a known log'})`,
        );
    } else out.push({ path, key: slashes(path) });
  }
  return out;
}

export function display(path: string): string {
  if (path === STDIN) return '(stdin)';
  const rel = relative(process.cwd(), path);
  return !isAbsolute(path) || rel.startsWith('..') || isAbsolute(rel) ? path : rel;
}

export function hasLogs(dir: string, format: Format): boolean {
  try {
    return findLogs([dir], format).length > 0;
  } catch {
    return false;
  }
}

export function fileMtime(path: string): number {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return NaN; // unreadable: kept, so the report names it
  }
}

export function fileSize(path: string): number {
  if (path === STDIN) return 0;
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}

/**
 * Standard input copied to a temporary file, chunk by chunk (bounded memory),
 * for the Rust reader: /dev/stdin cannot be opened when stdin is a socket
 * (Node's child-process pipes are), and Windows has none.
 */
export function stdinToFile(): { path: string; done(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'toolguard-stdin-'));
  const path = join(dir, 'stdin');
  const out = openSync(path, 'w', 0o600);
  try {
    const chunk = Buffer.alloc(1 << 20);
    for (;;) {
      let n: number;
      try {
        n = readSync(0, chunk, 0, chunk.length, null);
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === 'EAGAIN') {
          Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 5); // a non-blocking pipe with nothing yet
          continue;
        }
        if (code === 'EOF') break; // Windows, at the end of a pipe
        throw new UsageError(`cannot read standard input: ${(error as Error).message}`);
      }
      if (n === 0) break;
      writeSync(out, chunk, 0, n);
    }
  } finally {
    closeSync(out);
  }
  return { path, done: () => rmSync(dir, { recursive: true, force: true }) };
}
