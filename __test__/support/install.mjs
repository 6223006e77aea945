// What the install tests share: a machine without Rust (PATH with no cargo
// or rustc, and nothing from this checkout), npm run there, and a
// Claude Code `PostToolUse` event that the hook must block.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { delimiter, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = fileURLToPath(new URL('../../', import.meta.url));

// PATH as a Rust-less machine has it: no folder holding cargo or rustc, and
// nothing from this checkout (its node_modules/.bin); the Node running this
// test comes first so the installed `toolguard` bin runs on it.
const isExecutable = (dir, name) => existsSync(join(dir, name)) || existsSync(join(dir, `${name}.exe`));
const PATH = [dirname(process.execPath), ...(process.env.PATH ?? '').split(delimiter)]
  .filter((dir) => dir && !isExecutable(dir, 'cargo') && !isExecutable(dir, 'rustc') && !resolve(dir).startsWith(resolve(root)))
  .filter((dir, i, all) => all.indexOf(dir) === i)
  .join(delimiter);

/** The environment of a machine without Rust, colours left to the defaults. */
/** @type {NodeJS.ProcessEnv} */
export const env = { ...process.env, PATH, NO_COLOR: '', FORCE_COLOR: '' };
delete env.CARGO_HOME;
delete env.RUSTUP_HOME;
delete env.NODE_PATH;

/** `npm …` quietly in `cwd` on that machine; stdout (throws on failure, with npm's stderr). */
export function npm(args, cwd, extra = {}) {
  return execFileSync('npm', [...args, '--no-audit', '--no-fund', '--loglevel=error'], {
    cwd,
    env: { ...env, ...extra },
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/**
 * `npm install …` offline first (npm ci left most packages in the npm
 * cache); a machine without them falls back to the registry. Returns npm's
 * stderr (warnings) of the run that worked.
 */
export function npmInstall(specs, cwd) {
  let last;
  for (const mode of ['--offline', '--prefer-offline']) {
    last = spawnSync('npm', ['install', ...specs, mode, '--no-audit', '--no-fund', '--loglevel=warn'], { cwd, env, encoding: 'utf8' });
    if (last.status === 0) return last.stderr;
  }
  throw new Error(`npm install ${specs.join(' ')} failed:\n${last.stderr}`);
}

/** A `Bash` call whose traceback hides behind exit 0 (`| tail`): every hook blocks it. */
export function tracebackEvent(cwd) {
  return {
    session_id: 'install-test',
    hook_event_name: 'PostToolUse',
    cwd,
    tool_name: 'Bash',
    tool_input: { command: 'make docs 2>&1 | tail -n 3' },
    tool_response: {
      stdout: 'Traceback (most recent call last):\n  File "docs.py", line 3, in <module>\nModuleNotFoundError: No module named \'yaml\'\n',
      stderr: '',
      interrupted: false,
      isImage: false,
    },
  };
}
