/**
 * The pure-TypeScript reference `GuardEngine`: the native engine's API and
 * verdicts (repeat chains, silent-failure rules, loop detectors), written
 * plainly. It is the baseline for benchmarks, the oracle for differential
 * tests, and the fallback where the native binary cannot load. Where the two
 * are held equal, and where they knowingly differ: reference/index.mts.
 */
import { parseArguments } from './canonical.mjs';
import { resolveConfig } from './config.mjs';
import { invalid, kindOf, stateError } from './errors.mjs';
import { corroborate } from './corroboration.mjs';
import { adjust, scanContext, SessionReports, SessionWrites, type ActedHit, type ScanContext } from './intent.mjs';
import { isRejection } from './loops/texts.mjs';
import { Loops } from './loops/index.mjs';
import { classifyCall } from './shell.mjs';
import { shellText } from './shell-result.mjs';
import { reportsExitZero, showsFailure, stillRunning } from './markers.mjs';
import { stripAnsi } from './normalize.mjs';
import { RepeatChains } from './repeat.mjs';
import { buildRuleTable, excerptOf, firstMatch, type CompiledRule } from './rules.mjs';
import type {
  ChainState,
  FailureVerdict,
  GuardConfig,
  GuardEngineLike,
  GuardVerdict,
  LoopDenyVerdict,
  ReminderVerdict,
  RuleHit,
  ToolExecution,
  ToolResult,
} from './types.mjs';
import { trimStartLikeRust } from './whitespace.mjs';
import { matchesAny, wildcardToRegExp } from './wildcard.mjs';

let exactModeWarned = false;

/** Once per process: `exactMode` asked for, and this engine cannot give it. */
function warnExactMode(): void {
  if (exactModeWarned) return;
  exactModeWarned = true;
  // The reference also runs outside Node (no `process` there: no warning).
  const host = (globalThis as { process?: { emitWarning?: (message: string, options: { code: string }) => void } }).process;
  host?.emitWarning?.(
    'toolguard: exactMode needs the native engine; the reference engine runs every call as written (docs/reference-engine.md)',
    { code: 'TOOLGUARD_EXACT_MODE_NATIVE_ONLY' },
  );
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return kindOf(value) === 'object';
}

function inputError(at: string, expected: string, got: unknown): Error {
  return invalid(`toolguard: ${at} must be ${expected} (got ${kindOf(got)})`);
}

function optionalBoolean(value: unknown, at: string): boolean | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'boolean') throw inputError(at, 'a boolean', value);
  return value;
}

function optionalString(value: unknown, at: string): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw inputError(at, 'a string', value);
  return value;
}

/**
 * JavaScript's `JSON.stringify`, which defines the canonical form of parsed
 * arguments and of a scanned value; what it cannot serialize is bad input.
 */
function jsonOf(value: unknown, at: string): string {
  let json: string | undefined;
  try {
    json = JSON.stringify(value);
  } catch (error) {
    throw invalid(`toolguard: ${at} is not JSON-serializable: ${String(error)}`);
  }
  if (json === undefined) {
    throw invalid(`toolguard: ${at} is not JSON-serializable (JSON.stringify returned undefined)`);
  }
  return json;
}

/** The argument text of a call: `argumentsJson` as given, or the JSON of `arguments`. */
function argumentsJsonOf(exec: Record<string, unknown>): string {
  const text = optionalString(exec.argumentsJson, 'exec.argumentsJson');
  const hasParsed = exec.arguments !== undefined;
  if (text !== undefined && hasParsed) throw invalid('toolguard: give exec.arguments or exec.argumentsJson, not both');
  if (text !== undefined) return text;
  if (!hasParsed) throw invalid('toolguard: exec.arguments or exec.argumentsJson is required');
  return jsonOf(exec.arguments, 'exec.arguments');
}

/** What a scan reads from a result: `text` first, then the text blocks; the value's JSON when asked for. */
interface Output {
  isError: boolean;
  texts: string[];
  valueJson: string | undefined;
}

/**
 * Read a result (a string is `{ text }`). Error results are read further only
 * for the loop detectors (`errorTexts`), since they are never scanned; for
 * them, too, a successful result with no text stands for its value's JSON.
 */
function readResult(result: unknown, scanValue: boolean, errorTexts: boolean): Output {
  const output: Output = { isError: false, texts: [], valueJson: undefined };
  if (result === undefined || result === null) return output; // napi reads a null optional argument as absent
  if (typeof result === 'string') {
    output.texts.push(result);
    return output;
  }
  if (!isRecord(result)) throw inputError('result', 'an object or a string', result);
  const isError = result.isError;
  if (isError !== undefined && typeof isError !== 'boolean') throw inputError('result.isError', 'a boolean', isError);
  output.isError = isError === true;
  if (output.isError && !errorTexts) return output;
  const text = optionalString(result.text, 'result.text');
  if (text !== undefined) output.texts.push(text);
  const content = result.content;
  if (content !== undefined) {
    if (!Array.isArray(content)) throw inputError('result.content', 'an array', content);
    content.forEach((block: unknown, index) => {
      if (!isRecord(block) || block.type !== 'text') return;
      const blockText = optionalString(block.text, `result.content[${index}].text`);
      if (blockText !== undefined) output.texts.push(blockText);
    });
  }
  const shell = shellText(result.shell);
  if (shell !== undefined) output.texts.push(shell);
  const wantValue = scanValue || (errorTexts && output.texts.length === 0);
  if (wantValue && !output.isError && result.value !== undefined) output.valueJson = jsonOf(result.value, 'result.value');
  return output;
}

/** Lone surrogates as U+FFFD (`String.prototype.toWellFormed`, Node >= 20; ES2024, past the compile target). */
function wellFormed(text: string): string {
  return (text as string & { toWellFormed(): string }).toWellFormed();
}

/** Twin of engine.rs `tool_rejection`: a tool's refusal (rules/loops.json's phrases) as the output's first non-blank line. */
function toolRejection(output: string): RuleHit | undefined {
  const lead = output.length - trimStartLikeRust(output).length;
  const start = lead === 0 ? 0 : output.lastIndexOf('\n', lead - 1) + 1;
  const nl = output.indexOf('\n', start);
  const first = output.slice(start, nl < 0 ? output.length : nl);
  if (!isRejection(first, true)) return undefined;
  let line = 1;
  for (let i = output.indexOf('\n'); i >= 0 && i < start; i = output.indexOf('\n', i + 1)) line += 1;
  return {
    id: 'tool-rejected',
    message: 'The tool refused the call (its output says so first): nothing was changed, though the shell exited 0.',
    line,
    excerpt: excerptOf(first),
  };
}

function ruleLine(match: RuleHit): string {
  return `- ${match.id} (line ${match.line}): ${match.message}\n  > ${match.excerpt}`;
}

/** Engines reachable from `observeCall` by handle; a handle is never reused. */
const callEngines: WeakRef<GuardEngine>[] = [];

/** Each engine's chain-only step (engine.rs `advance`), for `observeCall`. */
const advancers = new WeakMap<GuardEngine, (agentId: string, name: string, argumentsJson: string) => ReminderVerdict | undefined>();

/** The reference engine; see `GuardEngineLike` for the contract. */
export class GuardEngine implements GuardEngineLike {
  readonly #callHandle = callEngines.push(new WeakRef(this)) - 1;
  readonly #chains: RepeatChains;
  readonly #rules: readonly CompiledRule[];
  readonly #shellTools: readonly RegExp[];
  readonly #scanValue: boolean;
  /** Per agent, the paths it wrote (its own scripts: intent.mts). */
  readonly #writes = new Map<string, SessionWrites>();
  /** Per agent, the error lines its user quoted (intent.mts). */
  readonly #reports = new Map<string, SessionReports>();
  /** The loop detectors; `undefined` with `loops` off. */
  readonly #loops: Loops | undefined;
  /** The result-blind DSH repeat chain runs (always with loops off). */
  readonly #blindRepeat: boolean;

  constructor(config?: GuardConfig | null) {
    const { repeat, loudFailure, loops } = resolveConfig(config);
    this.#chains = new RepeatChains(repeat);
    this.#rules = buildRuleTable(loudFailure.rules);
    // Tool names are compared without case (`Bash` is `bash`), as natively.
    this.#shellTools = loudFailure.shellTools.map((pattern) => wildcardToRegExp(pattern.toLowerCase()));
    this.#scanValue = loudFailure.scanValue;
    this.#loops = loops === undefined ? undefined : new Loops(loops);
    this.#blindRepeat = loops === undefined || loops.resultBlindRepeat;
    advancers.set(this, (agentId, name, argumentsJson) => this.#advance(agentId, name, argumentsJson));
    if (config?.exactMode === true) warnExactMode();
  }

  /**
   * An engine as toolguard's products make one: the loop detectors on unless
   * the config says `loops: false` (config.rs `with_loops_by_default`).
   */
  static withLoopsByDefault(config?: GuardConfig | null): GuardEngine {
    return new GuardEngine(config?.loops === undefined ? { ...config, loops: {} } : config);
  }

  /** Whether the loop detectors run (engine.rs `loops_on`). */
  get loopsOn(): boolean {
    return this.#loops !== undefined;
  }

  /** Whether `check` may refuse a call (engine.rs `denies_loops`). */
  get deniesLoops(): boolean {
    return this.#loops?.denies ?? false;
  }

  /** The chain half of a call (engine.rs `advance`): the paths it writes noted, the result-blind repeat reminder. */
  #advance(agentId: string, name: string, argumentsJson: string): ReminderVerdict | undefined {
    this.#noteWrites(agentId, name, argumentsJson);
    return this.#blindRepeat ? this.#chains.observe(agentId, name, () => parseArguments(argumentsJson)) : undefined;
  }

  /**
   * Advance the calling agent's chain and scan the output; `null` when the
   * guard has nothing to say. The call is checked before the chain moves; the
   * result is read only when its tool is scanned.
   */
  observe(exec: ToolExecution, result?: ToolResult | string): GuardVerdict | null {
    return this.#observe(exec, result, true);
  }

  /** `flagging`: a silent-failure error verdict counts as a failure for the loop detectors (not in `observeAsync`, as natively). */
  #observe(exec: ToolExecution, result: ToolResult | string | undefined, flagging: boolean): GuardVerdict | null {
    if (!isRecord(exec)) throw inputError('exec', 'an object', exec);
    const name = exec.name;
    if (typeof name !== 'string') throw inputError('exec.name', 'a string', name);
    const agentId = optionalString(exec.agentId, 'exec.agentId');
    const argumentsJson = argumentsJsonOf(exec);
    const concurrent = optionalBoolean(exec.concurrent, 'exec.concurrent') ?? false;

    const reminder = agentId === undefined ? undefined : this.#advance(agentId, name, argumentsJson);
    const scanned = matchesAny(this.#shellTools, name.toLowerCase());
    const loops = agentId === undefined ? undefined : this.#loops;
    // With loops on every tool's result is read (error results too).
    const output = scanned || loops !== undefined ? readResult(result, scanned && this.#scanValue, loops !== undefined) : undefined;
    const failure =
      scanned && output !== undefined && !output.isError
        ? this.#scan(
            name,
            output,
            scanContext(
              name,
              argumentsJson,
              agentId === undefined ? undefined : this.#writes.get(agentId),
              agentId === undefined ? undefined : this.#reports.get(agentId),
            ),
          )
        : undefined;
    let loop: GuardVerdict['loop'];
    if (loops !== undefined) {
      // A result with no text block stands for its value's JSON; lone
      // surrogates read as U+FFFD, as the native engine reads a JS string.
      const text = output!.texts.length === 0 && output!.valueJson !== undefined ? output!.valueJson : output!.texts.join('\n');
      loop = loops.observe(
        agentId!,
        name,
        argumentsJson,
        {
          text: wellFormed(text),
          isError: output!.isError,
          flagged: flagging && failure?.action === 'error',
        },
        concurrent,
      );
    }
    if (reminder === undefined && failure === undefined && loop === undefined) return null;
    const verdict: GuardVerdict = {};
    if (reminder !== undefined) verdict.reminder = reminder;
    if (failure !== undefined) verdict.failure = failure;
    if (loop !== undefined) verdict.loop = loop;
    return verdict;
  }

  /**
   * `observe` for callers written against the native engine's worker-thread
   * variant. Here the scan runs at once (there is no thread to hand it to):
   * bad input throws synchronously and the chain advances in call order, as
   * natively; the promise resolves to what `observe` returned.
   */
  observeAsync(exec: ToolExecution, result?: ToolResult | string): Promise<GuardVerdict | null> {
    return Promise.resolve(this.#observe(exec, result, false));
  }

  /** The user spoke: that agent's chain starts over (what it wrote stays its own, as natively). */
  reset(agentId: string): void {
    if (typeof agentId !== 'string') throw inputError('agentId', 'a string', agentId);
    this.#chains.drop(agentId);
    this.#loops?.remove(agentId);
  }

  /** The user said `text` to that agent (engine.rs `note_user_text`). */
  noteUserText(agentId: string, text: string): void {
    if (typeof agentId !== 'string') throw inputError('agentId', 'a string', agentId);
    if (typeof text !== 'string') throw inputError('text', 'a string', text);
    let reports = this.#reports.get(agentId);
    if (reports === undefined) {
      reports = new SessionReports();
      this.#reports.set(agentId, reports);
    }
    reports.note(text);
  }

  /** Remember the paths a call writes, per agent (engine.rs `note_writes`). */
  #noteWrites(agentId: string, name: string, argumentsJson: string): void {
    if (!SessionWrites.mayWrite(name, argumentsJson)) return;
    const model = classifyCall(name, argumentsJson);
    if (model.writes.length === 0) return;
    let writes = this.#writes.get(agentId);
    if (writes === undefined) {
      writes = new SessionWrites();
      this.#writes.set(agentId, writes);
    }
    writes.record(model);
  }

  /** The agent is gone: free its state. */
  forget(agentId: string): void {
    if (typeof agentId !== 'string') throw inputError('agentId', 'a string', agentId);
    this.#chains.drop(agentId);
    this.#writes.delete(agentId);
    this.#reports.delete(agentId);
    this.#loops?.remove(agentId);
  }

  /**
   * The agent's saved state: `{ digest, count }` of the repeat chain and,
   * with `loops` on, `loops` (the loop window); null when it has none.
   * Digests are engine-specific: a state goes back into the same kind of engine.
   */
  chainState(agentId: string): ChainState | null {
    if (typeof agentId !== 'string') throw inputError('agentId', 'a string', agentId);
    const chain = this.#chains.state(agentId);
    const loops = this.#loops?.state(agentId);
    if (chain === null && loops === undefined) return null;
    const state: ChainState = {};
    if (chain !== null) Object.assign(state, chain);
    if (loops !== undefined) state.loops = loops;
    return state;
  }

  /**
   * Before a call runs: `null` to let it run, or a refusal when it would
   * continue a loop already reminded `loops.deny` times (never with
   * `loops.deny` unset). A refusal resets no counter.
   */
  check(exec: ToolExecution): LoopDenyVerdict | null {
    if (!isRecord(exec)) throw inputError('exec', 'an object', exec);
    const name = exec.name;
    if (typeof name !== 'string') throw inputError('exec.name', 'a string', name);
    const agentId = optionalString(exec.agentId, 'exec.agentId');
    const argumentsJson = argumentsJsonOf(exec);
    if (this.#loops === undefined || agentId === undefined) return null;
    return this.#loops.check(agentId, name, argumentsJson) ?? null;
  }

  /**
   * Exact mode's rewrite is the native engine's (docs/exact-mode.md): the
   * reference rewrites nothing, so calls run as written and a stage hidden
   * behind `| tail` is judged from the output, as without exact mode
   * (docs/reference-engine.md says why; a config with `exactMode: true`
   * warns once).
   */
  exactCall(_exec: unknown): null {
    return null;
  }

  /**
   * Put back a state saved with `chainState` by a reference engine; a loop
   * state given to an engine with `loops` off is ignored.
   */
  restoreChain(agentId: string, state: ChainState): void {
    if (typeof agentId !== 'string') throw inputError('agentId', 'a string', agentId);
    if (state === null || typeof state !== 'object') throw invalid('toolguard: state.digest must be 32 hexadecimal digits');
    if (state.digest !== undefined || state.count !== undefined) {
      if (typeof state.digest !== 'string' || !/^[0-9a-f]{32}$/i.test(state.digest)) {
        throw stateError('toolguard: state.digest must be 32 hexadecimal digits', 'digest');
      }
      if (typeof state.count !== 'number' || !Number.isInteger(state.count) || state.count < 1)
        throw stateError('toolguard: state.count must be an integer >= 1', 'count');
      this.#chains.restore(agentId, state.digest.toLowerCase(), state.count);
    }
    if (state.loops !== undefined) {
      if (typeof state.loops !== 'string') throw inputError('state.loops', 'a string', state.loops);
      this.#loops?.restore(agentId, state.loops);
    }
  }

  /** Number of agents with live chain or loop state (for leak checks and metrics). */
  get agentCount(): number {
    let onlyLoops = 0;
    for (const agent of this.#loops?.agentIds() ?? []) if (this.#chains.state(agent) === null) onlyLoops += 1;
    return this.#chains.size + onlyLoops;
  }

  /** This engine's handle for {@link observeCall} (valid while the engine lives). */
  get callHandle(): number {
    return this.#callHandle;
  }

  /** Every rule's first match in `text`, with the rule's action (`when: 'success'` rules skipped when the output shows failure). */
  #matches(text: string, failed: boolean): ActedHit[] {
    const out: ActedHit[] = [];
    for (const rule of this.#rules) {
      if (failed && rule.when === 'success') continue;
      const hit = firstMatch(rule, text);
      if (hit !== undefined) out.push({ hit, action: rule.action });
    }
    return out;
  }

  /** Scan a result knowing the call's command (`ctx`, intent.mts); `undefined` scans as without one. */
  #scan(tool: string, { isError, texts, valueJson: json }: Output, ctx: ScanContext | undefined): FailureVerdict | undefined {
    if (isError) return undefined;
    // A chunk of a command still running (Codex's exec_command/write_stdin
    // before the process ended) is no finished result (status_header.rs).
    if (texts.length > 0 && stillRunning(texts[0])) return undefined;
    const valueJson = this.#scanValue ? json : undefined;
    const raw = texts.join('\n');
    // As a terminal shows it (native `strip_ansi`): same line numbers, plain quoted lines.
    const output = stripAnsi(raw);
    let scanned = output;
    if (valueJson !== undefined) scanned = texts.length === 0 ? valueJson : `${output}\n${valueJson}`;
    // Markers trail the shell output; the appended value JSON must not hide them.
    const failed = showsFailure(output);
    // An `error` needs corroboration (corroboration.mts). No JS entry tells
    // of a harness without exit statuses (only the Rust audit readers know one).
    const acted = corroborate(
      ctx?.model,
      { failed, unrecorded: false },
      scanned,
      adjust(ctx, scanned, this.#matches(scanned, failed), (text) => this.#matches(text, failed)),
    );
    const refused = toolRejection(output);
    if (refused !== undefined) acted.unshift({ hit: refused, action: 'error' });
    const matches: RuleHit[] = acted.map((m) => m.hit);
    const anyError = acted.some((m) => m.action === 'error');
    if (matches.length === 0) return undefined;
    const lines = matches.map(ruleLine).join('\n');
    const summary = `${tool}: ${matches.map((match) => match.id).join(', ')}`;
    if (anyError) {
      // The header states no more than the result reported: many hosts report no status at all.
      const header = failed
        ? `[loud-failure] ${tool} output shows a failure:`
        : reportsExitZero(output)
          ? `[loud-failure] ${tool} exited 0 but its output shows it failed:`
          : `[loud-failure] ${tool} reported no error but its output shows it failed:`;
      return { action: 'error', summary, text: `${header}\n${lines}\nOriginal output:\n${raw}`, rules: matches };
    }
    return { action: 'context', summary, text: `[loud-failure] ${tool} output may show a silent failure:\n${lines}`, rules: matches };
  }
}

/**
 * The repeat half of `engine.observe({ agentId, name, argumentsJson })` with
 * positional arguments (natively the cheaper call; here the same work).
 * `handle` is the engine's `callHandle`. Returns the reminder due now, or
 * `null`; no result is scanned. Throws when the engine is gone.
 */
export function observeCall(handle: number, agentId: string, name: string, argumentsJson: string): ReminderVerdict | null {
  const engine = callEngines[handle]?.deref();
  if (engine === undefined) throw invalid(`toolguard: no live engine has handle ${handle}`);
  if (typeof agentId !== 'string') throw inputError('agentId', 'a string', agentId);
  if (typeof name !== 'string') throw inputError('name', 'a string', name);
  if (typeof argumentsJson !== 'string') throw inputError('argumentsJson', 'a string', argumentsJson);
  // The chain only, as natively (fast_path.rs `observe_call` calls `advance`):
  // no result, so the loop detectors do not see this call.
  return advancers.get(engine)!(agentId, name, argumentsJson) ?? null;
}

/**
 * `observeCall` with the parsed arguments (natively: read without
 * `JSON.stringify`, or `false` for values the native walk does not take).
 * Here every value is taken: it is `observeCall` of `JSON.stringify(value)`.
 */
export function observeCallValue(handle: number, agentId: string, name: string, argumentsValue: unknown): ReminderVerdict | null | false {
  return observeCall(handle, agentId, name, JSON.stringify(argumentsValue) ?? '');
}
