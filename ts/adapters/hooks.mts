/**
 * toolguard as a Claude Code / Codex command hook (`toolguard hook`): one
 * process per hook event, JSON on stdin, JSON on stdout.
 *
 * The hook itself — events, config files, state files — is the Rust hook
 * library (crates/toolguard-hook), which the native `toolguard-hook`
 * executable and this module (through the addon) both run, so the two give
 * the same answers byte for byte. What is here is what must be JavaScript:
 * reading a stream within the deadline and writing the answer. The
 * in-process Claude Agent SDK adapter answers through the library's verdict
 * translation too ({@link hookOutputFor}).
 *
 * - `PostToolUse`: the call and its output advance the session's loop
 *   window (and chain) and the output is scanned. A loop alarm, reminder or
 *   `context` notice goes to `hookSpecificOutput.additionalContext`; an
 *   `error` rule answers `decision: "block"` with the failure header as `reason`.
 * - `PostToolUseFailure` (Claude Code's event for a failed call, e.g. a
 *   non-zero exit): the call advances the window as a failed call; a due
 *   alarm goes to `additionalContext`. Not scanned.
 * - `PreToolUse` (with `loops.deny` configured): a call that would continue
 *   a loop already reminded that many times is refused with
 *   `permissionDecision: "deny"` and the reason; nothing is reset by it.
 * - `UserPromptSubmit`: the user spoke, the session's chain starts over.
 * - `SessionEnd`: the session's chain state is deleted.
 *
 * State: a small file per session (and per subagent) under
 * `$TOOLGUARD_STATE_DIR`, else `$XDG_STATE_HOME/toolguard`, else
 * `<tmpdir>/toolguard-<uid>`, updated under a lock file and replaced by
 * rename; files untouched for 7 days (`TOOLGUARD_STATE_TTL_DAYS`) are swept.
 * Every failure is fail-open: a warning on stderr, exit code 1 (a
 * non-blocking error for both hosts), no decision. The deadline
 * (`TOOLGUARD_HOOK_TIMEOUT_MS`, default 5000) covers reading the input and
 * waiting for the session lock.
 * @module toolguard/hooks
 */
import { fstatSync, readFileSync, writeSync, createReadStream } from 'node:fs';
import { createRequire } from 'node:module';
import type { GuardVerdict } from 'toolguard';
import { native, nativeFailure } from '../native.mjs';
import { referenceHookOutput } from '../../reference/hook-output.mjs';

/**
 * Shell tools of the hosts: the core's one default list
 * (`rules/shell-tools.json`, compared without case), so Claude Code's `Bash`,
 * Codex's `exec_command` and the DSH names are all scanned.
 */
export const HOOK_SHELL_TOOLS: readonly string[] = (
  createRequire(import.meta.url)('toolguard/rules/shell-tools.json') as { shellTools: string[] }
).shellTools;

/** The fields of a hook event the hook reads (Claude Code and Codex share them). */
export interface HookInput {
  hook_event_name: string;
  session_id: string;
  /** Claude Code: set when the event comes from a subagent, whose chain is its own. */
  agent_id?: string;
  tool_name?: string;
  tool_input?: unknown;
  tool_response?: unknown;
  tool_use_id?: string;
  transcript_path?: string | null;
  /** Codex sends it, Claude Code does not: how the hook tells the hosts apart. */
  turn_id?: string;
}

/**
 * The hosts differ in what a PostToolUse block does (observed with Claude
 * Code 2.1.332 and Codex 0.171.0): Claude Code keeps the tool output and adds
 * the reason after it; Codex replaces the output with the reason. Codex sends
 * a `turn_id`, Claude Code does not.
 */
export type HookHost = 'claude-code' | 'codex';

export function hostOf(input: Pick<HookInput, 'turn_id'>): HookHost {
  return typeof input.turn_id === 'string' ? 'codex' : 'claude-code';
}

/** What the hook prints after a call (nothing is printed when the guard has nothing to say). */
export interface HookOutput {
  decision?: 'block';
  reason?: string;
  hookSpecificOutput?: { hookEventName: 'PostToolUse' | 'PostToolUseFailure'; additionalContext: string };
}

/**
 * The answer to one verdict (`null`: print nothing), for the in-process
 * Claude Agent SDK adapter: the hook library's own translation
 * (`toolguard_hook::hook_output_of`, through the addon), so it answers as
 * `toolguard hook` does — an `error` failure blocks with a reason that, for
 * Claude Code, drops the copy of `scanned` (the output text the engine was
 * given, or the shell result value whose text the engine made; Claude Code
 * shows it right above the reason); the reminder, the
 * loop alarm and a `context` notice go to `additionalContext`. Without a
 * native binary the reference engine's twin answers (reference/hook-output.mts).
 */
export function hookOutputFor(
  verdict: GuardVerdict | null,
  scanned?: unknown,
  host: HookHost = 'claude-code',
  eventName: 'PostToolUse' | 'PostToolUseFailure' = 'PostToolUse',
): HookOutput | null {
  if (!verdict) return null;
  const addon = native();
  if (!addon) return referenceHookOutput(verdict, scanned, host, eventName);
  const text = addon.__hookOutput(verdict, scanned, host, eventName);
  return text === null ? null : (JSON.parse(text) as HookOutput);
}

/** The hook library, or an error saying why it is not there. */
function hookLibrary() {
  const addon = native();
  if (!addon)
    throw new Error(
      `the hook needs the native binary, which could not be loaded on ${process.platform}-${process.arch} (${nativeFailure()})`,
    );
  return addon;
}

/** The environment as the hook library reads it (string values only). */
function envOf(env: NodeJS.ProcessEnv): Record<string, string> {
  return Object.fromEntries(Object.entries(env).filter((e): e is [string, string] => typeof e[1] === 'string'));
}

/** The documented state directory for an environment (chosen by the hook library). */
export function stateDir(env: NodeJS.ProcessEnv = process.env): string {
  return hookLibrary().__hookStateDir(envOf(env));
}

/** The state file name of a chain (`<session>` or `<session>\0<agent>`). */
export function stateFileName(chainId: string): string {
  return hookLibrary().__hookStateFileName(chainId);
}

// ---------------------------------------------------------------------------
// The command

/** The options of `toolguard hook`, for shell completion (the hook library parses them). */
export const HOOK_OPTIONS = {
  config: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** Where the hook reads and writes: a file descriptor (cheapest: no stream set-up), or a stream. */
export type HookInputSource = number | NodeJS.ReadableStream;
export type HookOutputSink = number | NodeJS.WritableStream;

/** The input as bytes, at most `limit` of them (the library refuses more). */
async function readAll(source: HookInputSource, limit: number): Promise<Buffer> {
  if (typeof source === 'number') {
    // A regular file reads at once. A pipe goes through the event loop (not a
    // blocking read on a libuv thread, which would keep the process from
    // exiting), so the deadline can end a hook whose host keeps stdin open.
    if (fstatSync(source).isFile()) return readFileSync(source);
    return readAll(source === 0 ? process.stdin : createReadStream('', { fd: source, autoClose: false }), limit);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of source) {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
    chunks.push(bytes);
    size += bytes.length;
    if (size > limit) break;
  }
  return Buffer.concat(chunks);
}

function write(sink: HookOutputSink, text: string): void {
  if (!text) return;
  if (typeof sink === 'number') writeSync(sink, text);
  else sink.write(text);
}

/**
 * Run one hook invocation: read the event from `stdin`, answer on `stdout`,
 * warn on `stderr` (file descriptors or streams; the CLI passes 0, 1, 2,
 * which spares the process setting up stdio streams). Resolves to the
 * process exit code (0, or 1 for a non-blocking error), within the deadline.
 */
export async function runHook(
  argv: readonly string[],
  stdin: HookInputSource,
  stdout: HookOutputSink,
  stderr: HookOutputSink = 2,
  env: NodeJS.ProcessEnv = process.env,
): Promise<number> {
  let library: ReturnType<typeof hookLibrary>;
  try {
    library = hookLibrary();
  } catch (error) {
    write(stderr, `toolguard hook: ${(error as Error).message} (tool result passed through unchanged)\n`);
    return 1;
  }
  const vars = envOf(env);
  const start = library.__hookStart([...argv], vars);
  const answer = (a: { code: number; stdout: string; stderr: string }) => {
    write(stdout, a.stdout);
    write(stderr, a.stderr);
    return a.code;
  };
  if (start.answer) return answer(start.answer);
  const deadline = Date.now() + start.timeoutMs;
  let timer: NodeJS.Timeout | undefined;
  let late = false;
  const expired = new Promise<number>((resolve) => {
    timer = setTimeout(() => {
      late = true;
      resolve(answer(start.timeoutAnswer));
    }, start.timeoutMs);
  });
  const work = (async () => {
    let input: Buffer;
    try {
      input = await readAll(stdin, start.maxInputBytes);
    } catch (error) {
      if (!late)
        write(stderr, `toolguard hook: cannot read the hook input: ${(error as Error).message} (tool result passed through unchanged)\n`);
      return 1;
    }
    // Past the deadline the answer is already given: nothing more is written.
    return late ? 1 : answer(library.__hookAnswer(start.config, input, vars, deadline - Date.now()));
  })();
  try {
    return await Promise.race([work, expired]);
  } finally {
    clearTimeout(timer);
  }
}
