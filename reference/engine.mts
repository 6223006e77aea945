/**
 * The pure-TypeScript reference `GuardEngine`: the same API and verdicts as
 * the native engine, written plainly. It is the baseline for benchmarks, the
 * oracle for differential tests, and the fallback where the native binary
 * cannot load.
 */
import { parseArguments } from './canonical.mjs';
import { resolveConfig } from './config.mjs';
import { invalid, kindOf } from './errors.mjs';
import { showsFailure } from './markers.mjs';
import { RepeatChains } from './repeat.mjs';
import { buildRuleTable, firstMatch, type CompiledRule } from './rules.mjs';
import type { ChainState, FailureVerdict, GuardConfig, GuardEngineLike, ReminderVerdict, RuleHit, ToolExecution, ToolResult, GuardVerdict } from './types.mjs';
import { commandOf, isNoise, ruleCounts, withoutNoise } from './shell.mjs';
import { matchesAny, wildcardToRegExp } from './wildcard.mjs';

function isRecord(value: unknown): value is Record<string, unknown> {
  return kindOf(value) === 'object';
}

function inputError(at: string, expected: string, got: unknown): Error {
  return invalid(`toolguard: ${at} must be ${expected} (got ${kindOf(got)})`);
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

/** Read a result (a string is `{ text }`); error results are not read further, since they are never scanned. */
function readResult(result: unknown, scanValue: boolean): Output {
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
  if (output.isError) return output;
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
  if (scanValue && result.value !== undefined) output.valueJson = jsonOf(result.value, 'result.value');
  return output;
}

function ruleLine(match: RuleHit): string {
  return `- ${match.id} (line ${match.line}): ${match.message}\n  > ${match.excerpt}`;
}

/** Engines reachable from `observeCall` by handle; a handle is never reused. */
const callEngines: WeakRef<GuardEngine>[] = [];

/** The reference engine; see `GuardEngineLike` for the contract. */
export class GuardEngine implements GuardEngineLike {
  readonly #callHandle = callEngines.push(new WeakRef(this)) - 1;
  readonly #chains: RepeatChains;
  readonly #rules: readonly CompiledRule[];
  readonly #shellTools: readonly RegExp[];
  readonly #scanValue: boolean;

  constructor(config?: GuardConfig | null) {
    const { repeat, loudFailure } = resolveConfig(config);
    this.#chains = new RepeatChains(repeat);
    this.#rules = buildRuleTable(loudFailure.rules);
    // Tool names are compared without case (`Bash` is `bash`), as natively.
    this.#shellTools = loudFailure.shellTools.map((tool) => wildcardToRegExp(tool.toLowerCase()));
    this.#scanValue = loudFailure.scanValue;
  }

  /**
   * Advance the calling agent's chain and scan the output; `null` when the
   * guard has nothing to say. The call is checked before the chain moves; the
   * result is read only when its tool is scanned.
   */
  observe(exec: ToolExecution, result?: ToolResult | string): GuardVerdict | null {
    if (!isRecord(exec)) throw inputError('exec', 'an object', exec);
    const name = exec.name;
    if (typeof name !== 'string') throw inputError('exec.name', 'a string', name);
    const agentId = optionalString(exec.agentId, 'exec.agentId');
    const argumentsJson = argumentsJsonOf(exec);

    const reminder =
      agentId === undefined ? undefined : this.#chains.observe(agentId, name, () => parseArguments(argumentsJson));
    const failure = matchesAny(this.#shellTools, name.toLowerCase())
      ? this.#scan(name, readResult(result, this.#scanValue), commandOf(name, argumentsJson))
      : undefined;
    if (reminder === undefined && failure === undefined) return null;
    const verdict: GuardVerdict = {};
    if (reminder !== undefined) verdict.reminder = reminder;
    if (failure !== undefined) verdict.failure = failure;
    return verdict;
  }

  /**
   * `observe` for callers written against the native engine's worker-thread
   * variant. Here the scan runs at once (there is no thread to hand it to):
   * bad input throws synchronously and the chain advances in call order, as
   * natively; the promise resolves to what `observe` returned.
   */
  observeAsync(exec: ToolExecution, result?: ToolResult | string): Promise<GuardVerdict | null> {
    return Promise.resolve(this.observe(exec, result));
  }

  /** The user spoke: that agent's chain starts over. */
  reset(agentId: string): void {
    if (typeof agentId !== 'string') throw inputError('agentId', 'a string', agentId);
    this.#chains.drop(agentId);
  }

  /** The agent is gone: free its state. */
  forget(agentId: string): void {
    if (typeof agentId !== 'string') throw inputError('agentId', 'a string', agentId);
    this.#chains.drop(agentId);
  }

  /** The agent's chain as `{ digest, count }`, or null (digests are engine-specific). */
  chainState(agentId: string): ChainState | null {
    if (typeof agentId !== 'string') throw inputError('agentId', 'a string', agentId);
    return this.#chains.state(agentId);
  }

  /**
   * Before a call runs: the native engine may refuse a call that continues
   * a loop (`loops.deny`); the reference has no loop detectors and never does.
   */
  check(_exec: unknown): null {
    return null;
  }

  /**
   * Exact mode's rewrite is the native engine's (docs/exact-mode.md): the
   * reference rewrites nothing, so calls run as written.
   */
  exactCall(_exec: unknown): null {
    return null;
  }

  /** Put back a chain saved with `chainState` by a reference engine (a native loop-only state has no chain: nothing to restore). */
  restoreChain(agentId: string, state: ChainState): void {
    if (typeof agentId !== 'string') throw inputError('agentId', 'a string', agentId);
    if (state !== null && typeof state === 'object' && state.digest === undefined && state.count === undefined) return;
    if (typeof state?.digest !== 'string' || !/^[0-9a-f]{32}$/i.test(state.digest)) {
      throw invalid('toolguard: state.digest must be 32 hexadecimal digits');
    }
    if (typeof state.count !== 'number' || !Number.isInteger(state.count) || state.count < 1) throw invalid('toolguard: state.count must be an integer >= 1');
    this.#chains.restore(agentId, state.digest.toLowerCase(), state.count);
  }

  /** Number of agents with live chain state (for leak checks and metrics). */
  get agentCount(): number {
    return this.#chains.size;
  }

  /** This engine's handle for {@link observeCall} (valid while the engine lives). */
  get callHandle(): number {
    return this.#callHandle;
  }

  #scan(tool: string, { isError, texts, valueJson }: Output, command: string | undefined): FailureVerdict | undefined {
    if (isError) return undefined;
    const output = texts.join('\n');
    let scanned = output;
    if (valueJson !== undefined) scanned = texts.length === 0 ? valueJson : `${output}\n${valueJson}`;
    // Markers trail the shell output; the appended value JSON must not hide them.
    const failed = showsFailure(output);
    const scan = (text: string): [RuleHit, CompiledRule][] => {
      const found: [RuleHit, CompiledRule][] = [];
      for (const rule of this.#rules) {
        if (failed && rule.when === 'success') continue;
        const match = firstMatch(rule, text);
        if (match !== undefined) found.push([match, rule]);
      }
      return found;
    };
    let found = scan(scanned);
    // Installer noise: the same scan without those lines (shell::intent::adjust).
    if (found.some(([match]) => isNoise(match.excerpt))) found = scan(withoutNoise(scanned));
    found = found.filter(([match]) => ruleCounts(match.id, match.excerpt, command));
    const matches = found.map(([match]) => match);
    const anyError = found.some(([, rule]) => rule.action === 'error');
    if (matches.length === 0) return undefined;
    const lines = matches.map(ruleLine).join('\n');
    const summary = `${tool}: ${matches.map((match) => match.id).join(', ')}`;
    if (anyError) {
      const header = failed
        ? `[loud-failure] ${tool} output shows a failure:`
        : `[loud-failure] ${tool} exited 0 but its output shows it failed:`;
      return { action: 'error', summary, text: `${header}\n${lines}\nOriginal output:\n${output}`, rules: matches };
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
  if (typeof argumentsJson !== 'string') throw inputError('argumentsJson', 'a string', argumentsJson);
  return engine.observe({ agentId, name, argumentsJson })?.reminder ?? null;
}

/**
 * `observeCall` with the parsed arguments (natively: read without
 * `JSON.stringify`, or `false` for values the native walk does not take).
 * Here every value is taken: it is `observeCall` of `JSON.stringify(value)`.
 */
export function observeCallValue(handle: number, agentId: string, name: string, argumentsValue: unknown): ReminderVerdict | null | false {
  return observeCall(handle, agentId, name, JSON.stringify(argumentsValue) ?? '');
}
