/**
 * What every framework adapter shares: the engine types, the text a verdict
 * shows the model, and the translation of a shell tool's structured output to
 * the text the engine scans. No guard decision lives here — chains,
 * thresholds, rule matching and verdict texts are the engine's.
 * @module toolguard/adapters/common
 */
import { rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { ExactCall, GuardEngine, GuardConfig, GuardVerdict, ToolResult } from 'toolguard';
import { type OtelOption, traceEngine } from './otel.mjs';

export type { GuardConfig, GuardVerdict, ToolResult, OtelOption };

/** Engine configuration, as `new GuardEngine()` takes it. */
export type EngineConfig = GuardConfig;

/** Options every in-process adapter takes. */
export interface AdapterOptions {
  /** Passed to `new GuardEngine()`; a bad config throws when the adapter is created. */
  engine?: EngineConfig;
  /**
   * Write every guarded call and its verdict as an OpenTelemetry
   * `execute_tool` span (docs/adapters.md "Verdicts in your observability
   * stack"): `true`, or `{ tracer, captureContent }`. Needs the optional
   * peer `@opentelemetry/api` and an SDK registered by the application.
   */
  otel?: OtelOption;
}

/**
 * The engine every host runs: `GuardEngine.withLoopsByDefault` (the core
 * turns the loop detectors on unless the config says `loops: false`), its
 * calls written as spans when `otel` is on. The one place both options are
 * read.
 */
export function createEngine(options: AdapterOptions = {}): GuardEngine {
  // Loaded here, not imported: the CLI loads this module without the addon (`toolguard mcp --help`).
  const { GuardEngine: Engine } = createRequire(import.meta.url)('toolguard') as { GuardEngine: typeof GuardEngine };
  const engine = Engine.withLoopsByDefault(options.engine);
  return options.otel ? traceEngine(engine, options.otel) : engine;
}

export type Engine = GuardEngine;

/**
 * Texts that go to the model next to an accepted result, in the order the DSH
 * plugins use: the repeat reminder (or loop alarm) first, a `context` failure notice last.
 */
export function noticesOf(verdict: GuardVerdict): string[] {
  const out: string[] = [];
  if (verdict.reminder) out.push(verdict.reminder.text);
  if (verdict.loop) out.push(verdict.loop.text);
  if (verdict.failure && verdict.failure.action === 'context') out.push(verdict.failure.text);
  return out;
}

/** The repeat reminder or loop alarm that joins an error result, as a list (empty when none). */
export function loopNotices(verdict: GuardVerdict): string[] {
  const alarm = verdict.reminder ?? verdict.loop;
  return alarm ? [alarm.text] : [];
}

/** The failure text that replaces the result when an `error` rule matched, else undefined. */
export function errorOf(verdict: GuardVerdict): string | undefined {
  return verdict.failure && verdict.failure.action === 'error' ? verdict.failure.text : undefined;
}

/** A text content block, as pi and MCP tool results carry them. */
export interface TextBlock {
  type: 'text';
  text: string;
}

/**
 * A content-block tool result (pi's tool result, MCP's `CallToolResult`) with
 * a verdict folded in: the reminder and a `context` notice appended as text
 * blocks; on an `error` rule (unless the result already is an error) the text
 * blocks replaced by the failure text, which already carries the original
 * text output, other blocks (images, resources) kept, and `isError: true`.
 * `undefined` when nothing changes.
 */
export function foldIntoBlocks<B extends { type: string }>(
  content: readonly B[],
  isError: boolean | undefined,
  verdict: GuardVerdict,
  withNotices = true,
): { content: (B | TextBlock)[]; isError?: true } | undefined {
  const notices = withNotices ? noticesOf(verdict).map((text): TextBlock => ({ type: 'text', text })) : [];
  const error = isError ? undefined : errorOf(verdict);
  if (error !== undefined) {
    const others = content.filter((block) => block.type !== 'text');
    return { content: [{ type: 'text', text: error }, ...others, ...notices], isError: true };
  }
  if (notices.length === 0) return undefined;
  return { content: [...content, ...notices] };
}

/**
 * From this output size on (64 Ki UTF-16 units), the scan runs on a worker
 * thread. Measured with `benchmark/event-loop.mjs` (built-in rules, build
 * log): a synchronous scan costs ~0.25 ms at 64 KB, ~0.9 ms at 256 KB, ~110 ms
 * at 10 MB, all of it event-loop stall; the thread hop adds ~0.05 ms of
 * latency and no stall. 64 KB leaves room for user rules several times
 * slower than the built-ins before a synchronous scan stalls the loop ~1 ms.
 */
export const ASYNC_SCAN_THRESHOLD = 64 * 1024;

/** Separator between a tool output and the notices appended to it. */
export const NOTICE_SEPARATOR = '\n\n';

/**
 * `text` followed by the notices, one blank line before each; `text` alone
 * when there are none. The line breaks `text` ends with (most shell output
 * ends in one) are dropped first, or a notice would follow two blank lines.
 */
export function appendNotices(text: string, notices: readonly string[]): string {
  if (notices.length === 0) return text;
  // A loop, not /\n+$/: that regex retries at every newline of a long run of them.
  let end = text.length;
  while (end > 0 && text.charCodeAt(end - 1) === 10) end--;
  return [text.slice(0, end), ...notices].join(NOTICE_SEPARATOR);
}

/**
 * The engine's view of a tool output that is a JS value (AI SDK, OpenAI
 * Agents, hooks): the value as a shell result (`shell`: the engine makes its
 * text — the DSH shell result format: a string as is; `{stdout, stderr}` as
 * stdout, then `[stderr]` and stderr; `output`; `content` text blocks; then
 * `[exit code: N]` for a non-zero `exitCode`/`exit_code` — in the same call,
 * as for the hook and the audit), and the value itself when successful
 * (scanned only with `scanValue`, only for shell tools).
 */
export function resultOf(output: unknown, isError = false): ToolResult {
  const result: ToolResult = { isError, shell: output };
  if (!isError && output !== undefined) result.value = output;
  return result;
}

/**
 * How many UTF-16 units of text a tool output carries (a string, or the
 * string `stdout`, `stderr` and `output` of a shell result): whether to scan
 * it off the event loop (`observeAsync`). The text itself is the engine's.
 */
export function outputSize(output: unknown): number {
  if (typeof output === 'string') return output.length;
  if (output === null || typeof output !== 'object') return 0;
  const o = output as Record<string, unknown>;
  return [o.stdout, o.stderr, o.output].reduce<number>((n, part) => n + (typeof part === 'string' ? part.length : 0), 0);
}

/** Arguments as JSON text for `observe` (the fast path; `undefined` counts as `{}` like DSH's empty text). */
export function argumentsJson(args: unknown): string {
  if (typeof args === 'string') return args;
  return JSON.stringify(args) ?? '';
}

/**
 * Frameworks that hand each tool call the conversation so far (AI SDK, LangChain)
 * tell "the user spoke" only by a new last user message. Remembers, per chain,
 * a fingerprint of that message. `turn` says whether it is the chain's first
 * (`'first'`: nothing to reset, but the user's words are new), a new one
 * since the chain's previous call (`'new'`: reset, and note the words) or the
 * same (`'same'`); `undefined` when the conversation holds no user message.
 */
export class UserTurns {
  private last = new Map<string, string>();

  turn(agentId: string, fingerprint: string | undefined): 'first' | 'new' | 'same' | undefined {
    if (fingerprint === undefined) return undefined;
    const previous = this.last.get(agentId);
    this.last.set(agentId, fingerprint);
    return previous === undefined ? 'first' : previous === fingerprint ? 'same' : 'new';
  }

  forget(agentId: string): void {
    this.last.delete(agentId);
  }
}

/**
 * The text of a chat message's content as frameworks carry it: a string, or
 * a list of parts whose `{type: 'text', text}` parts are joined by newlines.
 */
export function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .filter(
      (part): part is { type: 'text'; text: string } =>
        !!part &&
        typeof part === 'object' &&
        (part as { type?: unknown }).type === 'text' &&
        typeof (part as { text?: unknown }).text === 'string',
    )
    .map((part) => part.text)
    .join('\n');
}

/**
 * The user spoke to chain `agentId`: on a new message its chain starts over,
 * and the message's text goes to the engine (`noteUserText`: an error it
 * quotes, reproduced, is the reported bug — the engine decides what that
 * means). `texts(all)`: the user messages' texts — with `all` (a chain's
 * first call) every one of the conversation so far, in order, else the last.
 */
export function userSpoke(
  engine: GuardEngine,
  agentId: string,
  turn: ReturnType<UserTurns['turn']>,
  texts: (all: boolean) => string[],
): void {
  if (turn === undefined || turn === 'same') return;
  if (turn === 'new') engine.reset(agentId);
  for (const text of texts(turn === 'first')) if (text) engine.noteUserText(agentId, text);
}

/**
 * Which calls of a chain were issued by one model response, told by a value
 * every call of that response shares and the next response does not (the AI
 * SDK's `messages`, the conversation that prompted the response). Asked as
 * each result comes back: every call of a response after the first to come
 * back was issued before that result came back (`exec.concurrent`: the loop
 * detectors record it and raise no alarm on it; they may alarm on the first,
 * so the same batch made again after its results is still a loop).
 */
export class ModelResponses {
  private last = new Map<string, { response: unknown; size: number }>();

  /**
   * Whether this call shares its response with the chain's previous call:
   * the same `response` value and `size` (the AI SDK hands every step the
   * same, growing `messages` array: its length tells the steps apart).
   */
  concurrent(agentId: string, response: unknown, size = 0): boolean {
    if (response === undefined) return false;
    const last = this.last.get(agentId);
    this.last.set(agentId, { response, size });
    return last !== undefined && last.response === response && last.size === size;
  }

  forget(agentId: string): void {
    this.last.delete(agentId);
  }
}

/**
 * Parallel calls for hosts that announce each call before it runs and report
 * its result later (a pre-call and a post-call event): a call announced while
 * the chain's previous call has no result yet joins that call's batch. Only
 * the call just before counts, so a call whose result never comes (refused
 * by another hook) joins at most the next one to its batch. With
 * {@link ModelResponses} over the batches, the calls of a batch after the
 * first to come back are `exec.concurrent`. Bounded: past `max` open calls
 * the oldest is dropped.
 */
export class CallBatches {
  private open = new Map<string, number>();
  private last = new Map<string, string>();
  private next = 0;

  constructor(private readonly max = 1024) {}

  /** Call `id` of chain `agentId` is about to run. */
  start(agentId: string, id: string): void {
    const previous = this.last.get(agentId);
    const batch = previous !== undefined && this.open.has(previous) ? this.open.get(previous)! : ++this.next;
    this.last.set(agentId, id);
    this.open.set(id, batch);
    if (this.open.size > this.max) this.open.delete(this.open.keys().next().value!);
  }

  /** Call `id`'s result came back: its batch, once (`undefined`: never started). */
  take(id: string): number | undefined {
    const batch = this.open.get(id);
    this.open.delete(id);
    return batch;
  }

  forget(agentId: string): void {
    this.last.delete(agentId);
  }
}

/** Report an engine failure and pass the result through unchanged: a guard must never break the agent. */
export function failOpen(adapter: string, error: unknown): void {
  const reason = error instanceof Error ? error.message : String(error);
  process.emitWarning(`${adapter}: guard engine failed, passing the tool result through unchanged: ${reason}`, 'ToolguardWarning');
}

/** An exact-mode call in flight: the side file to read after it, and the agent's own arguments. */
export interface ExactPending {
  /** `exec.exitStatusFile` for `observe`. */
  exitStatusFile: string;
  /** The arguments the agent wrote (the engine models and compares these, not the rewrite). */
  argumentsJson: string;
}

/**
 * Exact mode (docs/exact-mode.md) for hosts whose rewrite and result arrive
 * in separate callbacks (a pre-call hook, then a post-call one): what the
 * engine's `exactCall` gave, by the host's call id, until the result comes
 * back. The rewrite and the reading of the side file are the engine's; this
 * only carries the file name between the two callbacks. Bounded: past
 * `max` calls that never came back, the oldest is dropped with its side file.
 */
export class ExactCalls {
  private pending = new Map<string, ExactPending>();

  constructor(
    private readonly adapter: string,
    private readonly max = 1024,
  ) {}

  /**
   * The rewritten arguments of call `id` (JSON text), or `null` to run it as
   * written (exact mode off, not a shell command, or not rewritten).
   */
  start(engine: GuardEngine, id: string, name: string, argumentsJson: string): string | null {
    let exact: ExactCall | null;
    try {
      exact = engine.exactCall({ name, argumentsJson });
    } catch (error) {
      failOpen(this.adapter, error);
      return null;
    }
    if (!exact) return null;
    this.drop(id);
    this.pending.set(id, { exitStatusFile: exact.exitStatusFile, argumentsJson });
    if (this.pending.size > this.max) this.drop(this.pending.keys().next().value!);
    return exact.argumentsJson;
  }

  /** Call `id`'s side file and original arguments, once (`undefined`: not rewritten). */
  take(id: string | undefined): ExactPending | undefined {
    if (id === undefined) return undefined;
    const pending = this.pending.get(id);
    this.pending.delete(id);
    return pending;
  }

  private drop(id: string): void {
    const pending = this.pending.get(id);
    if (!pending) return;
    this.pending.delete(id);
    rmSync(pending.exitStatusFile, { force: true });
  }
}
