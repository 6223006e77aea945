/**
 * `toolguard mcp -- <command> [args…]`: an MCP stdio proxy. It starts the
 * given MCP server as a child process and relays every JSON-RPC message
 * between the client (our stdin/stdout) and the server (its stdin/stdout)
 * unchanged — initialize and capabilities, tools/list, resources, prompts,
 * notifications, and the server's own requests to the client (sampling,
 * elicitation, roots) — except the responses to `tools/call`:
 *
 * - every call goes through the loop detectors (on unless the config says
 *   `loops: false`, as in every product; then DSH's repeat chain) — one
 *   window per MCP session, started over by each `initialize`; a
 *   task-augmented call when its result is fetched (`tasks/result`); with
 *   `loops.deny`, a call that would go on with a loop already reminded that
 *   many times is answered by the proxy itself (`isError: true`, the reason)
 *   and never reaches the server;
 * - results of tools named in `loudFailure.shellTools` are scanned;
 * - a reminder or `context` notice is appended as a text block; an `error`
 *   verdict turns the result into `isError: true` with the failure header
 *   (the same fold as the pi adapter); the verdict without its texts goes in
 *   `_meta["toolguard/verdict"]`; `structuredContent` and every other field
 *   are kept.
 *
 * Message framing and validation are the official SDK's (`StdioServerTransport`
 * towards the client, its `ReadBuffer` for the server's stdout). The proxy
 * spawns the server itself so it can hand on the server's exit code; the
 * server's stderr is inherited. Fails open: whatever goes wrong in the guard,
 * the server's response is relayed as it came, with a warning on stderr.
 * @module toolguard/mcp
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { constants } from 'node:os';
import { createRequire } from 'node:module';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { ReadBuffer, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { MCP_USAGE, type McpArgs, parseMcpArgs } from './args.mjs';
import { traceEngine } from '../adapters/otel.mjs';
import type { GuardEngine, GuardVerdict, LoopDenyVerdict, ToolResult } from 'toolguard';
import {
  ASYNC_SCAN_THRESHOLD,
  appendNotices,
  argumentsJson,
  failOpen,
  foldIntoBlocks,
  loopNotices,
  ModelResponses,
} from '../adapters/common.mjs';
import { checkWithEngine, readConfig } from '../cli/config.mjs';

/** The `_meta` key of the machine-readable verdict (an MCP `_meta` name: prefix `toolguard/`). */
export const VERDICT_META_KEY = 'toolguard/verdict';

/** The verdict as `_meta` carries it: what was found, without the texts the content already shows. */
export interface VerdictMeta {
  reminder?: { tool: string; count: number; summary: string };
  /** A loop detector's alarm (the loop detectors run unless `loops: false`). */
  loop?: { kind: string; tool: string; count: number; period: number; calls: number[]; summary: string; reminders: number };
  /** The call was refused before it ran (`loops.deny`); the server never saw it. */
  denied?: { kind: string; count: number; reminders: number; reason: string };
  failure?: {
    action: 'error' | 'context';
    summary: string;
    rules: { id: string; message: string; line: number; excerpt: string }[];
  };
}

export function verdictMeta(verdict: GuardVerdict): VerdictMeta {
  const meta: VerdictMeta = {};
  if (verdict.reminder) {
    const { tool, count, summary } = verdict.reminder;
    meta.reminder = { tool, count, summary };
  }
  if (verdict.loop) {
    const { kind, tool, count, period, calls, summary, reminders } = verdict.loop;
    meta.loop = { kind, tool, count, period, calls, summary, reminders };
  }
  if (verdict.failure) {
    const { action, summary, rules } = verdict.failure;
    meta.failure = { action, summary, rules: rules.map(({ id, message, line, excerpt }) => ({ id, message, line, excerpt })) };
  }
  return meta;
}

/** The part of a `CallToolResult` the guard reads; every other field is carried over untouched. */
export interface CallToolResultLike {
  content: { type: string; text?: unknown }[];
  isError?: boolean;
  _meta?: Record<string, unknown>;
  [key: string]: unknown;
}

/** A `CallToolResult` (the SDK's shape) or something else (a task handle, a malformed result). */
export function isCallToolResult(value: unknown): value is CallToolResultLike {
  return (
    !!value &&
    typeof value === 'object' &&
    Array.isArray((value as { content?: unknown }).content) &&
    (value as { content: unknown[] }).content.every(
      (b) => !!b && typeof b === 'object' && typeof (b as { type?: unknown }).type === 'string',
    )
  );
}

/** `result` with the verdict folded in: blocks as the pi adapter folds them, the verdict in `_meta`. */
export function guardedResult(result: CallToolResultLike, verdict: GuardVerdict): CallToolResultLike {
  const folded = foldIntoBlocks(result.content, result.isError, verdict);
  return {
    ...result,
    ...folded,
    _meta: { ...result._meta, [VERDICT_META_KEY]: verdictMeta(verdict) },
  };
}

/** The answer to a `tools/call` the engine refused (`loops.deny`): an error result with the reason, the refusal in `_meta`. */
export function deniedResult(refusal: LoopDenyVerdict): CallToolResultLike {
  const { kind, count, reminders, reason } = refusal;
  return {
    content: [{ type: 'text', text: reason }],
    isError: true,
    _meta: { [VERDICT_META_KEY]: { denied: { kind, count, reminders, reason } } },
  };
}

/** The chain of the one session a stdio proxy serves. */
const SESSION = 'session';

type Id = string | number;

/**
 * Calls remembered at most while their result is awaited: unanswered
 * requests and unfetched task results. Past it the oldest is dropped (its
 * result then passes unguarded): a client or server that never finishes
 * cannot grow the proxy's memory.
 */
const MAX_OPEN_CALLS = 1024;

/** `map.set(key, value)`, dropping the oldest entry when the map is full. */
function remember<K, V>(map: Map<K, V>, key: K, value: V): void {
  if (map.size >= MAX_OPEN_CALLS && !map.has(key)) map.delete(map.keys().next().value as K);
  map.set(key, value);
}

/** The task id of a `CreateTaskResult` (`{task: {taskId}}`) that is not also a `CallToolResult`. */
function taskIdOf(result: unknown): string | undefined {
  if (isCallToolResult(result)) return undefined;
  const task = (result as { task?: { taskId?: unknown } } | undefined)?.task;
  return typeof task?.taskId === 'string' ? task.taskId : undefined;
}

interface Call {
  name: string;
  arguments: unknown;
  /** The calls the client made while others were awaiting their result share one batch. */
  batch: number;
}

function textSize(content: CallToolResultLike['content']): number {
  let size = 0;
  for (const block of content) if (block.type === 'text' && typeof block.text === 'string') size += block.text.length;
  return size;
}

/**
 * The guard between one client and one server: sees the client's requests,
 * and rewrites the server's responses to `tools/call`. Transport-free, so it
 * is tested on plain messages too.
 */
export class McpGuard {
  /** `tools/call` (and `tasks/result` of a tool task) requests sent to the server and not answered yet. */
  private pending = new Map<Id, Call>();
  /**
   * Task-augmented calls whose result has not been fetched yet (`tools/call`
   * with `task` answers a task handle; `tasks/result` later answers the
   * `CallToolResult`).
   */
  private tasks = new Map<string, Call>();

  /**
   * The batch a new call joins: the previous call's while that call awaits
   * its result, else a new one. The proxy sees what the definition of
   * `exec.concurrent` asks: a call sent before the previous call's result
   * came back (a client's parallel calls of one model turn). Only the call
   * just before counts, so a call the server never answers joins at most
   * the next one to its batch.
   */
  private batch = 0;
  private lastSent: Id | undefined;
  private responses = new ModelResponses();

  constructor(private readonly engine: GuardEngine) {}

  /**
   * A message from the client, before it goes to the server. Returns the
   * answer the client gets instead when the call is refused (`loops.deny`):
   * the message is then not passed on. Never throws.
   */
  fromClient(message: JSONRPCMessage): JSONRPCMessage | undefined {
    if (!('method' in message)) return undefined; // the client's answer to a server request
    try {
      if ('id' in message && message.method === 'tools/call') {
        const params = (message.params ?? {}) as { name?: unknown; arguments?: unknown };
        if (this.lastSent === undefined || !this.pending.has(this.lastSent)) this.batch++;
        this.lastSent = message.id;
        const call = { name: String(params.name ?? ''), arguments: params.arguments ?? {}, batch: this.batch };
        const refusal = this.engine.check({ agentId: SESSION, name: call.name, argumentsJson: argumentsJson(call.arguments) });
        if (refusal) return { jsonrpc: '2.0', id: message.id, result: deniedResult(refusal) } as JSONRPCMessage;
        remember(this.pending, message.id, call);
      } else if ('id' in message && message.method === 'tasks/result') {
        const taskId = (message.params as { taskId?: unknown } | undefined)?.taskId;
        const call = typeof taskId === 'string' ? this.tasks.get(taskId) : undefined;
        if (call) {
          this.tasks.delete(taskId as string);
          remember(this.pending, message.id, call);
        }
      } else if (message.method === 'tasks/cancel') {
        const taskId = (message.params as { taskId?: unknown } | undefined)?.taskId;
        if (typeof taskId === 'string') this.tasks.delete(taskId);
      } else if ('id' in message && message.method === 'initialize') {
        this.engine.reset(SESSION); // a new session: its chain starts empty
      } else if (message.method === 'notifications/cancelled') {
        // A cancelled call may never be answered: do not keep it.
        const id = (message.params as { requestId?: Id } | undefined)?.requestId;
        if (id !== undefined) this.pending.delete(id);
      }
    } catch (error) {
      failOpen('toolguard mcp', error);
    }
    return undefined;
  }

  /**
   * A message from the server, as it should reach the client: unchanged,
   * or for a `tools/call` result the guarded result (a promise when the
   * output is scanned off the event loop). Never throws, never rejects.
   */
  fromServer(message: JSONRPCMessage): JSONRPCMessage | Promise<JSONRPCMessage> {
    if ('method' in message || !('id' in message) || message.id === undefined) return message;
    const call = this.pending.get(message.id);
    if (call === undefined) return message;
    this.pending.delete(message.id);
    const taskId = 'result' in message ? taskIdOf(message.result) : undefined;
    if (taskId !== undefined) {
      // A task handle: the call is observed when its result is fetched.
      remember(this.tasks, taskId, call);
      return message;
    }
    // An error response: nothing to scan, the call still counts.
    const result = 'result' in message && isCallToolResult(message.result) ? message.result : undefined;
    let verdict: GuardVerdict | null | Promise<GuardVerdict | null>;
    try {
      // After the first call of a batch to come back, the others were sent before its result came back.
      const concurrent = this.responses.concurrent(SESSION, call.batch);
      const exec = { agentId: SESSION, name: call.name, argumentsJson: argumentsJson(call.arguments), concurrent };
      if (result === undefined) {
        // A failed call advances the detectors; a due alarm joins the error's message,
        // the only text of it the client shows the model.
        const alarm = this.engine.observe(exec, { isError: true });
        const notices = alarm ? loopNotices(alarm) : [];
        if (notices.length === 0 || !('error' in message) || typeof message.error?.message !== 'string') return message;
        return { ...message, error: { ...message.error, message: appendNotices(message.error.message, notices) } };
      }
      const output: ToolResult = { isError: result.isError === true, content: result.content as ToolResult['content'] };
      verdict =
        !output.isError && textSize(result.content) >= ASYNC_SCAN_THRESHOLD
          ? this.engine.observeAsync(exec, output)
          : this.engine.observe(exec, output);
    } catch (error) {
      failOpen('toolguard mcp', error);
      return message;
    }
    const apply = (found: GuardVerdict | null): JSONRPCMessage => {
      if (!found) return message;
      try {
        return { ...message, result: guardedResult(result, found) } as JSONRPCMessage;
      } catch (error) {
        failOpen('toolguard mcp', error);
        return message;
      }
    };
    if (!(verdict instanceof Promise)) return apply(verdict);
    return verdict.then(apply, (error: unknown) => {
      failOpen('toolguard mcp', error);
      return message;
    });
  }
}

// ---------------------------------------------------------------------------
// The command (its arguments and usage: ./args.mts, readable without the SDK)

export { MCP_USAGE, type McpArgs, McpUsageError, parseMcpArgs } from './args.mjs';

/** The server's exit as a process exit code (a signal as 128 + its number, as shells do). */
function exitCodeOf(code: number | null, signal: NodeJS.Signals | null): number {
  if (code !== null) return code;
  const number = signal ? constants.signals[signal] : undefined;
  return number ? 128 + number : 1;
}

interface Addon {
  GuardEngine: typeof GuardEngine;
}

/**
 * Run the proxy until the client hangs up (the server is then closed: stdin
 * ended, SIGTERM after 2 s, SIGKILL after 2 s more) or the server exits
 * (the proxy then exits with its code). Resolves to the exit code.
 */
export async function runMcp(argv: readonly string[]): Promise<number> {
  let parsed: McpArgs | 'help';
  let engine: GuardEngine;
  try {
    parsed = parseMcpArgs(argv);
    if (parsed === 'help') {
      process.stdout.write(MCP_USAGE);
      return 0;
    }
    const addon = createRequire(import.meta.url)('toolguard') as Addon;
    // The loop detectors run unless the config says `loops: false`, as in every product.
    engine =
      parsed.config === undefined
        ? addon.GuardEngine.withLoopsByDefault()
        : checkWithEngine(readConfig(parsed.config), (config) => addon.GuardEngine.withLoopsByDefault(config));
    if (parsed.otel) engine = traceEngine(engine, true);
  } catch (error) {
    process.stderr.write(`toolguard mcp: ${error instanceof Error ? error.message : String(error)}\n\n${MCP_USAGE}`);
    return 2;
  }
  const { command, args } = parsed;
  const guard = new McpGuard(engine);

  const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'inherit'], env: process.env });
  const started = await new Promise<Error | undefined>((resolve) => {
    child.once('spawn', () => resolve(undefined));
    child.once('error', resolve);
  });
  if (started) {
    process.stderr.write(`toolguard mcp: cannot start ${JSON.stringify(command)}: ${started.message}\n`);
    return 1;
  }
  return relay(child, guard);
}

function relay(child: ChildProcess, guard: McpGuard): Promise<number> {
  const client = new StdioServerTransport();
  const fromServer = new ReadBuffer();
  /** Guarded responses still being scanned: flushed before the proxy ends. */
  const inFlight = new Set<Promise<unknown>>();
  let clientGone = false;

  const toClient = (message: JSONRPCMessage) => {
    client.send(message).catch(() => {}); // the client is gone: nobody left to tell
  };

  child.stdin!.on('error', () => {}); // EPIPE when the server dies: its exit is handled below
  child.stdout!.on('data', (chunk: Buffer) => {
    try {
      fromServer.append(chunk);
    } catch (error) {
      // One message over the SDK's buffer limit (10 MB, as the SDK's clients read): the stream is lost.
      process.stderr.write(`toolguard mcp: ${(error as Error).message}; stopping the server\n`);
      child.kill('SIGTERM');
      return;
    }
    for (;;) {
      let message: JSONRPCMessage | null;
      try {
        message = fromServer.readMessage();
      } catch (error) {
        // What an SDK client does with a line that is not JSON-RPC (a stray log on stdout): skip it.
        process.stderr.write(`toolguard mcp: skipped a server stdout line that is not a JSON-RPC message: ${(error as Error).message}\n`);
        continue;
      }
      if (message === null) break;
      const out = guard.fromServer(message);
      if (out instanceof Promise) {
        const sent = out.then(toClient);
        inFlight.add(sent);
        void sent.finally(() => inFlight.delete(sent));
      } else toClient(out);
    }
  });

  client.onmessage = (message) => {
    const answer = guard.fromClient(message);
    if (answer) toClient(answer);
    else if (child.stdin!.writable) child.stdin!.write(serializeMessage(message));
  };
  client.onerror = (error) => {
    process.stderr.write(`toolguard mcp: client message skipped: ${error.message}\n`);
  };

  return new Promise<number>((resolve) => {
    let serverGone = false;
    child.on('close', (code, signal) => {
      serverGone = true;
      const exit = exitCodeOf(code, signal);
      // Client gone first: the server was asked to stop, that is a clean end.
      const asked = clientGone;
      void Promise.allSettled([...inFlight]).then(async () => {
        await client.close();
        process.stdin.destroy();
        if (!asked && exit !== 0) process.stderr.write(`toolguard mcp: the server exited with ${signal ?? `code ${code}`}\n`);
        resolve(asked ? 0 : exit);
      });
    });
    const hangUp = () => {
      if (clientGone || serverGone) return;
      clientGone = true;
      child.stdin!.end();
      const term = setTimeout(() => child.kill('SIGTERM'), 2000);
      const kill = setTimeout(() => child.kill('SIGKILL'), 4000);
      term.unref();
      kill.unref();
      child.once('close', () => {
        clearTimeout(term);
        clearTimeout(kill);
      });
    };
    // The SDK transport closes itself on a message over its size limit: nothing more can be read.
    client.onclose = hangUp;
    process.stdin.once('end', hangUp);
    process.stdin.once('close', hangUp);
    process.stdout.on('error', hangUp); // EPIPE: the client is gone
    // Stopped by the client's host: stop the server too, then exit with its code.
    for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) process.once(signal, () => child.kill(signal));
    void client.start();
  });
}
