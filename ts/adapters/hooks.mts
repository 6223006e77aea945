/**
 * toolguard as a Claude Code / Codex command hook (`toolguard hook`): one
 * process per hook event, JSON on stdin, JSON on stdout.
 *
 * - `PostToolUse`: the call and its output advance the session's loop
 *   window (and chain) and the output is scanned. A loop alarm, reminder or
 *   `context` notice goes to `hookSpecificOutput.additionalContext`; an
 *   `error` rule answers `decision: "block"` with the failure header as `reason`.
 * - `PreToolUse` (with `loops.deny` configured): a call that would continue
 *   a loop already reminded that many times is refused with
 *   `permissionDecision: "deny"` and the reason; nothing is reset by it.
 * - `UserPromptSubmit`: the user spoke, the session's chain starts over.
 * - `SessionEnd`: the session's chain state is deleted.
 *
 * Chains outlive the process in a small state file per session (and per
 * subagent) under the state directory: `$TOOLGUARD_STATE_DIR`, else
 * `$XDG_STATE_HOME/toolguard`, else `<os tmpdir>/toolguard-<uid>`. Updates
 * hold an `O_EXCL` lock file and replace the state by rename, so parallel
 * hook processes (parallel tool calls) never lose or tear an update. Files
 * untouched for 7 days (`TOOLGUARD_STATE_TTL_DAYS`) are removed, at most once
 * an hour, by whichever hook process runs next.
 *
 * Every failure is fail-open: a warning on stderr, exit code 1 (a
 * non-blocking error for both hosts), no decision. The hook has a deadline
 * (`TOOLGUARD_HOOK_TIMEOUT_MS`, default 5000) for reading its input and
 * waiting for the session lock; past it, it fails open the same way.
 * @module toolguard/hooks
 */
import {
  closeSync,
  fstatSync,
  mkdirSync,
  createReadStream,
  openSync,
  readFileSync,
  readSync,
  readdirSync,
  renameSync,
  statSync,
  unlinkSync,
  utimesSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createRequire } from 'node:module';
import type { ChainState, GuardConfig, GuardEngine, GuardVerdict, ToolResult } from 'toolguard';
import { argumentsJson, engineConfig, errorOf, noticesOf, resultOf } from './common.mjs';
import { parseCommandLine } from '../cli/args.mjs';
import { checkWithEngine, readConfig } from '../cli/config.mjs';

/**
 * Shell tools of the hosts: the core's one default list
 * (`rules/shell-tools.json`, compared without case), so Claude Code's `Bash`,
 * Codex's `exec_command` and the DSH names are all scanned.
 */
export const HOOK_SHELL_TOOLS: readonly string[] = (
  createRequire(import.meta.url)('toolguard/rules/shell-tools.json') as { shellTools: string[] }
).shellTools;

/**
 * The engine config the hook uses: `config` with `shellTools` defaulting to
 * {@link HOOK_SHELL_TOOLS} and the loop detectors on unless `loops: false`.
 */
export function hookEngineConfig(config: GuardConfig = {}): GuardConfig {
  const loudFailure = { ...config.loudFailure };
  if (loudFailure.shellTools === undefined) loudFailure.shellTools = [...HOOK_SHELL_TOOLS];
  return engineConfig({ ...config, loudFailure });
}

/** Whether the config asks for PreToolUse denials (`loops.deny`). */
export function deniesLoops(config: GuardConfig): boolean {
  const loops = config.loops;
  return typeof loops === 'object' && loops !== null && loops.deny !== undefined && loops.deny !== false;
}

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

/** What the hook prints for `PostToolUse` (nothing is printed when the guard has nothing to say). */
export interface HookOutput {
  decision?: 'block';
  reason?: string;
  hookSpecificOutput?: { hookEventName: 'PostToolUse'; additionalContext: string };
}

/**
 * The hook's answer to one verdict (`null`: print nothing). `scanned` is the
 * output text the engine was given. Claude Code shows the model the tool
 * output right above the hook's reason, so there the reason drops the
 * failure text's verbatim copy of it (`\nOriginal output:\n<output>`)
 * instead of doubling a long output; Codex replaces the output with the
 * reason, so there the reason is the whole failure text.
 */
export function hookOutputFor(verdict: GuardVerdict | null, scanned?: string, host: HookHost = 'claude-code'): HookOutput | null {
  if (!verdict) return null;
  const out: HookOutput = {};
  const error = errorOf(verdict);
  if (error !== undefined) {
    // Codex replaces the output with the reason: there the copy is the only one the model gets.
    const copy = scanned === undefined || host === 'codex' ? undefined : `\nOriginal output:\n${scanned}`;
    out.decision = 'block';
    out.reason = copy !== undefined && error.endsWith(copy) ? error.slice(0, -copy.length) : error;
  }
  const notices = noticesOf(verdict);
  if (notices.length) out.hookSpecificOutput = { hookEventName: 'PostToolUse', additionalContext: notices.join('\n\n') };
  return out.decision || out.hookSpecificOutput ? out : null;
}

// ---------------------------------------------------------------------------
// State directory and files

const DAY_MS = 86_400_000;
const SWEEP_EVERY_MS = 3_600_000;
/** A lock older than this belongs to a crashed process. */
const STALE_LOCK_MS = 10_000;
const LOCK_WAIT_MS = 5_000;

/** The documented state directory for an environment. */
export function stateDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.TOOLGUARD_STATE_DIR) return env.TOOLGUARD_STATE_DIR;
  if (env.XDG_STATE_HOME) return join(env.XDG_STATE_HOME, 'toolguard');
  const uid = typeof process.getuid === 'function' ? process.getuid() : 'user';
  return join(tmpdir(), `toolguard-${uid}`);
}

/**
 * Session ids come from the host: encode them into a safe file name
 * (base64url, reversible, so two ids never share a file); ids too long for
 * a file name are hashed instead. No node:crypto here — loading it costs
 * ~10 ms of every hook process.
 */
export function stateFileName(chainId: string): string {
  const encoded = Buffer.from(chainId, 'utf8').toString('base64url');
  if (encoded.length <= 160) return `s-${encoded}.json`;
  // A subagent's hashed name starts with its session's hash, so SessionEnd finds it.
  const session = chainId.split('\0')[0]!;
  return session === chainId ? `h-${fnv1a64(chainId)}-${chainId.length}.json` : `h-${fnv1a64(session)}-${fnv1a64(chainId)}-${chainId.length}.json`;
}

/** Whether a state file holds a subagent chain of `session` (`<session>\0<agent>`). */
function isSubagentFile(name: string, session: string): boolean {
  if (name.startsWith('s-') && name.endsWith('.json')) {
    return Buffer.from(name.slice(2, -5), 'base64url').toString('utf8').startsWith(`${session}\0`);
  }
  return name.startsWith(`h-${fnv1a64(session)}-`) && name.split('-').length === 4;
}

/** FNV-1a, 64-bit, over UTF-16 code units: only names files for over-long ids. */
function fnv1a64(text: string): string {
  let hash = 0xcbf29ce484222325n;
  for (let i = 0; i < text.length; i++) {
    hash ^= BigInt(text.charCodeAt(i));
    hash = (hash * 0x100000001b3n) & 0xffffffffffffffffn;
  }
  return hash.toString(16).padStart(16, '0');
}

function stateFile(dir: string, chainId: string): string {
  return join(dir, stateFileName(chainId));
}

/**
 * Create `dir` and its missing parents one level at a time. Not
 * `mkdirSync(…, {recursive: true})`: on a file system that answers ENOENT
 * for a directory whose parent exists (/proc) Node's recursive mkdir retries
 * forever, and a per-call hook must never hang.
 */
function makeDir(dir: string): void {
  const missing: string[] = [];
  for (let d = dir; ; d = dirname(d)) {
    try {
      if (!statSync(d).isDirectory()) throw new Error(`${d} is not a directory`);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT' || dirname(d) === d) throw error;
      missing.push(d);
    }
  }
  for (const d of missing.reverse()) {
    try {
      mkdirSync(d, { mode: 0o700 });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw new Error(`cannot create the state directory ${dir}: ${(error as Error).message}`);
    }
  }
}

function ensureDir(dir: string, env: NodeJS.ProcessEnv): void {
  makeDir(dir);
  // A shared tmpdir lets another user create the directory first and read or forge chains.
  const owner = statSync(dir).uid;
  if (typeof process.getuid === 'function' && owner !== process.getuid()) {
    const hint = env.TOOLGUARD_STATE_DIR
      ? 'point TOOLGUARD_STATE_DIR at a directory of your own'
      : 'set TOOLGUARD_STATE_DIR to a directory of your own';
    throw new Error(`state directory ${dir} belongs to uid ${owner}, not to this user (uid ${process.getuid()}); ${hint}`);
  }
}

const sleeper = new Int32Array(new SharedArrayBuffer(4));
function sleep(ms: number): void {
  Atomics.wait(sleeper, 0, 0, ms);
}

/** Run `fn` holding `<file>.lock` (created with O_EXCL; a stale one is broken). */
function withLock<T>(file: string, fn: () => T, deadline = Date.now() + LOCK_WAIT_MS): T {
  const lock = `${file}.lock`;
  for (let attempt = 0; ; attempt++) {
    try {
      closeSync(openSync(lock, 'wx', 0o600));
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      try {
        if (Date.now() - statSync(lock).mtimeMs > STALE_LOCK_MS) {
          unlinkSync(lock);
          continue;
        }
      } catch {
        continue; // released meanwhile
      }
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${lock}`);
      sleep(Math.min(2 + attempt * 2, 25));
    }
  }
  try {
    return fn();
  } finally {
    try {
      unlinkSync(lock);
    } catch {
      // Broken as stale by another process: nothing left to release.
    }
  }
}

function readJson(file: string): unknown {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return undefined; // absent, or torn by a crash before rename (cannot happen with rename, but stay safe)
  }
}

function writeAtomic(file: string, data: unknown): void {
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify(data), { mode: 0o600 });
  renameSync(tmp, file);
}

function remove(file: string): void {
  try {
    unlinkSync(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}

/** Remove state, lock and temp files untouched for `ttlDays`, at most once an hour per directory. */
export function sweep(dir: string, ttlDays: number, now = Date.now()): number {
  const marker = join(dir, '.swept');
  try {
    if (now - statSync(marker).mtimeMs < SWEEP_EVERY_MS) return 0;
  } catch {
    // never swept
  }
  writeFileSync(marker, '');
  utimesSync(marker, now / 1000, now / 1000);
  let removed = 0;
  for (const name of readdirSync(dir)) {
    if (!/\.(json|lock|tmp)$/.test(name)) continue;
    const path = join(dir, name);
    try {
      if (now - statSync(path).mtimeMs > ttlDays * DAY_MS) {
        unlinkSync(path);
        removed++;
      }
    } catch {
      // raced with another sweeper or writer
    }
  }
  return removed;
}

// ---------------------------------------------------------------------------
// Chain persistence

/**
 * One chain's persisted state (`chainState` / `restoreChain`): the repeat
 * chain's key digest and run length and, with loops on, the loop window's
 * digests; never the arguments or outputs. Files written before the loop
 * window existed (`{digest, count}` only) restore unchanged.
 */
type SavedChain = { v: 1; kind: 'engine'; chain: ChainState };

/** The one agent id inside a hook process: each process guards one chain. */
const AGENT = 'hook';

interface Addon {
  GuardEngine: typeof GuardEngine;
}

/** Observe one PostToolUse call against the persisted chain, and persist the advanced chain. */
function observeWithSavedChain(engine: GuardEngine, file: string, input: HookInput, result: ToolResult, deadline: number): GuardVerdict | null {
  const name = String(input.tool_name ?? '');
  const exec = { agentId: AGENT, name, argumentsJson: argumentsJson(input.tool_input ?? {}) };
  return withLock(file, () => {
    const saved = readJson(file) as SavedChain | undefined;
    if (saved?.v === 1 && saved.kind === 'engine') engine.restoreChain(AGENT, saved.chain);
    const verdict = engine.observe(exec, result);
    // Untracked calls (include/exclude) leave no chain: they are transparent.
    const chain = engine.chainState(AGENT);
    if (chain) writeAtomic(file, { v: 1, kind: 'engine', chain } satisfies SavedChain);
    return verdict;
  }, Math.min(deadline, Date.now() + LOCK_WAIT_MS));
}

/** The PreToolUse answer: `null` to let the call run, else a denial. */
export interface PreToolUseOutput {
  hookSpecificOutput: { hookEventName: 'PreToolUse'; permissionDecision: 'deny'; permissionDecisionReason: string };
}

/** Check one PreToolUse call against the persisted loop window. A denial is remembered (saved) so the denied call, if the host still reports it, resets nothing. */
function checkCall(engine: GuardEngine, file: string, input: HookInput, deadline: number): PreToolUseOutput | null {
  const exec = { agentId: AGENT, name: String(input.tool_name ?? ''), argumentsJson: argumentsJson(input.tool_input ?? {}) };
  return withLock(
    file,
    () => {
      const saved = readJson(file) as SavedChain | undefined;
      if (saved?.v !== 1 || saved.kind !== 'engine') return null;
      engine.restoreChain(AGENT, saved.chain);
      const refused = engine.check(exec);
      if (!refused) return null;
      const chain = engine.chainState(AGENT);
      if (chain) writeAtomic(file, { v: 1, kind: 'engine', chain } satisfies SavedChain);
      return { hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: refused.reason } };
    },
    deadline,
  );
}

/**
 * The tool response as the engine should read it. Codex (0.171.0) runs
 * PostToolUse for failed commands too and sends only the output text; the
 * exit code is in its transcript (the `item_completed` event of the call,
 * written before the hook runs). Without it a non-zero exit would read as a
 * clean one and `when: success` rules would fire on output that already
 * shows the failure.
 */
function responseOf(input: HookInput, host: HookHost): unknown {
  const response = input.tool_response;
  if (host !== 'codex' || typeof response !== 'string' || !input.transcript_path || !input.tool_use_id) return response;
  const exitCode = codexExitCode(input.transcript_path, input.tool_use_id);
  return exitCode === undefined ? response : { output: response, exit_code: exitCode };
}

/** The last 1 MiB of a Codex transcript holds the just-finished call; read no more. */
const TRANSCRIPT_TAIL = 1 << 20;

export function codexExitCode(transcriptPath: string, callId: string): number | undefined {
  let text: string;
  try {
    const fd = openSync(transcriptPath, 'r');
    try {
      const size = fstatSync(fd).size;
      const length = Math.min(size, TRANSCRIPT_TAIL);
      const buffer = Buffer.alloc(length);
      readSync(fd, buffer, 0, length, size - length);
      text = buffer.toString('utf8');
    } finally {
      closeSync(fd);
    }
  } catch {
    return undefined;
  }
  const needle = JSON.stringify(callId);
  const lines = text.split('\n');
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = lines[i]!;
    if (!line.includes(needle) || !line.includes('"exit_code"')) continue;
    try {
      const item = (JSON.parse(line) as { payload?: { type?: string; item?: { id?: unknown; exit_code?: unknown } } }).payload;
      if (item?.type === 'item_completed' && item.item?.id === callId && typeof item.item.exit_code === 'number') return item.item.exit_code;
    } catch {
      // the first line of the tail may be cut
    }
  }
  return undefined;
}

function isErrorResponse(response: unknown): boolean {
  if (!response || typeof response !== 'object') return false;
  const r = response as Record<string, unknown>;
  return r.isError === true || r.is_error === true;
}

// ---------------------------------------------------------------------------
// The command

/** The options of `toolguard hook`, for parseArgs and shell completion. */
export const HOOK_OPTIONS = {
  config: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** Where the hook reads and writes: a file descriptor (cheapest: no stream set-up), or a stream. */
export type HookInputSource = number | NodeJS.ReadableStream;
export type HookOutputSink = number | NodeJS.WritableStream;

async function readAll(source: HookInputSource): Promise<string> {
  if (typeof source === 'number') {
    // A regular file reads at once. A pipe goes through the event loop (not a
    // blocking read on a libuv thread, which would keep the process from
    // exiting), so the deadline can end a hook whose host keeps stdin open.
    if (fstatSync(source).isFile()) return readFileSync(source, 'utf8');
    return readAll(source === 0 ? process.stdin : createReadStream('', { fd: source, autoClose: false }));
  }
  let text = '';
  source.setEncoding?.('utf8');
  for await (const chunk of source) text += chunk;
  return text;
}

function write(sink: HookOutputSink, text: string): void {
  if (typeof sink === 'number') writeSync(sink, text);
  else sink.write(text);
}

export const HOOK_USAGE = `usage: toolguard hook [--config <file.json|file.yaml>]
Reads one Claude Code / Codex hook event (JSON) on stdin. Register it for the
PostToolUse, UserPromptSubmit and SessionEnd events (and PreToolUse to refuse
calls that continue a loop, with "loops": {"deny": N}). The config file is a
GuardConfig ({repeat?, loudFailure?, loops?}) in JSON or YAML; TOOLGUARD_CONFIG
names it too. Check it first with: toolguard check-config FILE (the hook's errors go to
stderr, which Claude Code does not show).
State: $TOOLGUARD_STATE_DIR, else $XDG_STATE_HOME/toolguard, else <tmpdir>/toolguard-<uid>.
Deadline: TOOLGUARD_HOOK_TIMEOUT_MS (default 5000) for the input and the session lock.`;

/** Default of `TOOLGUARD_HOOK_TIMEOUT_MS`. */
export const HOOK_TIMEOUT_MS = 5_000;

/** The failure header the engine writes when it takes the exit code to be 0. */
const EXITED_0 = (tool: string) => `[loud-failure] ${tool} exited 0 but its output shows it failed:`;

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
  const failOpen = (error: unknown) => {
    write(stderr, `toolguard hook: ${error instanceof Error ? error.message : String(error)} (tool result passed through unchanged)\n`);
    return 1;
  };
  let flags;
  try {
    flags = parseCommandLine(argv, HOOK_OPTIONS).values;
  } catch (error) {
    return failOpen(new Error(`${(error as Error).message} (${HOOK_USAGE.split('\n')[0]})`));
  }
  if (flags.help) {
    write(stdout, `${HOOK_USAGE}\n`);
    return 0;
  }
  const ms = Number(env.TOOLGUARD_HOOK_TIMEOUT_MS ?? HOOK_TIMEOUT_MS);
  const timeout = Number.isFinite(ms) && ms > 0 ? ms : HOOK_TIMEOUT_MS;
  const deadline = Date.now() + timeout;
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<number>((resolve) => {
    timer = setTimeout(() => resolve(failOpen(new Error(`gave up after ${timeout} ms (TOOLGUARD_HOOK_TIMEOUT_MS)`))), timeout);
  });
  const work = (async () => {
    try {
      return await handle(flags.config ?? env.TOOLGUARD_CONFIG, await readAll(stdin), stdout, env, deadline);
    } catch (error) {
      return failOpen(error);
    }
  })();
  try {
    return await Promise.race([work, expired]);
  } finally {
    clearTimeout(timer);
  }
}

async function handle(configPath: string | undefined, text: string, stdout: HookOutputSink, env: NodeJS.ProcessEnv, deadline: number): Promise<number> {
  const input = JSON.parse(text) as HookInput;
  if (!input || typeof input !== 'object' || typeof input.session_id !== 'string' || !input.session_id) {
    throw new Error('hook input has no session_id');
  }
  const dir = stateDir(env);
  ensureDir(dir, env);
  const ttl = Number(env.TOOLGUARD_STATE_TTL_DAYS ?? 7);
  sweep(dir, Number.isFinite(ttl) && ttl > 0 ? ttl : 7);
  const chainId = input.agent_id ? `${input.session_id}\0${input.agent_id}` : input.session_id;
  const file = stateFile(dir, chainId);
  const lockDeadline = Math.min(deadline, Date.now() + LOCK_WAIT_MS);

  switch (input.hook_event_name) {
    case 'PostToolUse': {
      const loaded = configPath ? readConfig(configPath) : undefined;
      // Loaded only here: prompt and session events never pay for the addon.
      const addon = createRequire(import.meta.url)('toolguard') as Addon;
      const engine = loaded
        ? checkWithEngine(loaded, (config) => new addon.GuardEngine(hookEngineConfig(config)))
        : new addon.GuardEngine(hookEngineConfig());
      const host = hostOf(input);
      const response = responseOf(input, host);
      const result = resultOf(response, isErrorResponse(input.tool_response));
      let verdict = observeWithSavedChain(engine, file, input, result, deadline);
      // Codex sends no exit code; without its transcript the hook does not know it was 0.
      const tool = String(input.tool_name ?? '');
      if (host === 'codex' && typeof response === 'string' && verdict?.failure?.text.startsWith(EXITED_0(tool))) {
        const text = `[loud-failure] ${tool} output shows a failure (its exit code is unknown):${verdict.failure.text.slice(EXITED_0(tool).length)}`;
        verdict = { ...verdict, failure: { ...verdict.failure, text } };
      }
      const out = hookOutputFor(verdict, result.text, host);
      if (out) write(stdout, `${JSON.stringify(out)}\n`);
      return 0;
    }
    case 'PreToolUse': {
      const loaded = configPath ? readConfig(configPath) : undefined;
      const config = hookEngineConfig(loaded?.config);
      // Without loops.deny there is nothing to refuse: the addon is not even loaded.
      if (!deniesLoops(config)) return 0;
      const addon = createRequire(import.meta.url)('toolguard') as Addon;
      const engine = loaded
        ? checkWithEngine(loaded, (c) => new addon.GuardEngine(hookEngineConfig(c)))
        : new addon.GuardEngine(config);
      const out = checkCall(engine, file, input, lockDeadline);
      if (out) write(stdout, `${JSON.stringify(out)}\n`);
      return 0;
    }
    case 'UserPromptSubmit':
      withLock(file, () => remove(file), lockDeadline);
      return 0;
    case 'SessionEnd': {
      withLock(file, () => remove(file), lockDeadline);
      // The session's subagents end with it: their chains go too, not only at the TTL sweep.
      if (!input.agent_id) {
        for (const name of readdirSync(dir)) {
          if (!isSubagentFile(name, input.session_id)) continue;
          const sub = join(dir, name);
          withLock(sub, () => remove(sub), lockDeadline);
        }
      }
      return 0;
    }
    default:
      return 0; // events the guard does not use
  }
}
