/**
 * The pure-TypeScript reference `GuardEngine`: the same API and verdicts as
 * the native engine, written plainly. It is the baseline for benchmarks, the
 * oracle for differential tests, and the fallback where the native binary
 * cannot load.
 */
import { parseArguments } from './canonical.mjs';
import { showsFailure } from './markers.mjs';
import { RepeatChains } from './repeat.mjs';
import { buildRuleTable, firstMatch, type CompiledRule } from './rules.mjs';
import type {
  Failure,
  GuardConfig,
  GuardEngineLike,
  Reminder,
  RuleMatch,
  ToolExec,
  ToolResult,
  Verdict,
} from './types.mjs';
import { matchesAny, wildcardToRegExp } from './wildcard.mjs';

const DEFAULT_THRESHOLDS = [3, 5, 8];
const DEFAULT_PREVIEW_CHARS = 500;
const DEFAULT_SHELL_TOOLS = ['bash', 'pwsh', 'job_output'];

// napi-rs reads `undefined` and `null` alike as an absent optional field; so does this engine.
function absent(value: unknown): value is undefined | null {
  return value === undefined || value === null;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function optionalObject(value: unknown, field: string): Record<string, unknown> {
  if (absent(value)) return {};
  if (!isRecord(value)) throw new TypeError(`${field} must be an object`);
  return value;
}

function optionalArray<T>(value: unknown, field: string, item: string, check: (v: unknown) => v is T): T[] | undefined {
  if (absent(value)) return undefined;
  if (!Array.isArray(value) || !value.every(check)) throw new TypeError(`${field} must be an array of ${item}`);
  return value;
}

const isNumber = (v: unknown): v is number => typeof v === 'number';
const isString = (v: unknown): v is string => typeof v === 'string';
const isAnything = (v: unknown): v is unknown => true;

function optionalNumber(value: unknown, field: string): number | undefined {
  if (absent(value)) return undefined;
  if (typeof value !== 'number') throw new TypeError(`${field} must be a number`);
  return value;
}

function optionalBoolean(value: unknown, field: string): boolean | undefined {
  if (absent(value)) return undefined;
  if (typeof value !== 'boolean') throw new TypeError(`${field} must be a boolean`);
  return value;
}

function optionalString(value: unknown, field: string): string | undefined {
  if (absent(value)) return undefined;
  if (typeof value !== 'string') throw new TypeError(`${field} must be a string`);
  return value;
}

/** The text blocks joined with "\n", or `result.text`. */
function outputText(result: ToolResult): string {
  if (!absent(result.content)) return result.content.filter(isTextBlock).map((block) => block.text).join('\n');
  return result.text ?? '';
}

function isTextBlock(block: unknown): block is { type: 'text'; text: string } {
  return isRecord(block) && block.type === 'text' && typeof block.text === 'string';
}

function ruleLine(match: RuleMatch): string {
  return `- ${match.id} (line ${match.line}): ${match.message}\n  > ${match.excerpt}`;
}

/** The reference engine; see `GuardEngineLike` for the contract. */
export class GuardEngine implements GuardEngineLike {
  readonly #chains: RepeatChains;
  readonly #rules: readonly CompiledRule[];
  readonly #shellTools: readonly RegExp[];
  readonly #scanValue: boolean;

  constructor(config?: GuardConfig | null) {
    const root = optionalObject(config, 'config');
    const repeat = optionalObject(root.repeat, 'config.repeat');
    const loud = optionalObject(root.loudFailure, 'config.loudFailure');
    this.#chains = new RepeatChains({
      thresholds: optionalArray(repeat.thresholds, 'config.repeat.thresholds', 'numbers', isNumber) ?? DEFAULT_THRESHOLDS,
      include: optionalArray(repeat.include, 'config.repeat.include', 'strings', isString) ?? [],
      exclude: optionalArray(repeat.exclude, 'config.repeat.exclude', 'strings', isString) ?? [],
      argumentsPreviewChars:
        optionalNumber(repeat.argumentsPreviewChars, 'config.repeat.argumentsPreviewChars') ?? DEFAULT_PREVIEW_CHARS,
    });
    const rules = optionalArray(loud.rules, 'config.loudFailure.rules', 'rules', isAnything) ?? [];
    this.#rules = buildRuleTable(rules);
    const shellTools =
      optionalArray(loud.shellTools, 'config.loudFailure.shellTools', 'strings', isString) ?? DEFAULT_SHELL_TOOLS;
    this.#shellTools = shellTools.map(wildcardToRegExp);
    this.#scanValue = optionalBoolean(loud.scanValue, 'config.loudFailure.scanValue') ?? false;
  }

  /** Advance the calling agent's chain and scan the output; `null` when the guard has nothing to say. */
  observe(exec: ToolExec, result: ToolResult): Verdict | null {
    if (!isRecord(exec)) throw new TypeError('exec must be an object');
    if (!isRecord(result)) throw new TypeError('result must be an object');
    const name = exec.name;
    if (typeof name !== 'string') throw new TypeError('exec.name must be a string');
    const agentId = optionalString(exec.agentId, 'exec.agentId');
    const argumentsJson = optionalString(exec.argumentsJson, 'exec.argumentsJson');
    const hasArguments = !absent(exec.arguments);
    if (hasArguments === (argumentsJson !== undefined)) {
      throw new TypeError('exec: exactly one of `arguments` and `argumentsJson` is required');
    }
    optionalArray(result.content, 'result.content', 'content blocks', isAnything);
    optionalString(result.text, 'result.text');
    const isError = optionalBoolean(result.isError, 'result.isError') ?? false;

    let reminder: Reminder | undefined;
    if (agentId !== undefined) {
      reminder = this.#chains.observe(agentId, name, () =>
        argumentsJson !== undefined ? parseArguments(argumentsJson) : exec.arguments,
      );
    }
    const failure = isError ? undefined : this.#scan(name, result);
    if (reminder === undefined && failure === undefined) return null;
    const verdict: Verdict = {};
    if (reminder !== undefined) verdict.reminder = reminder;
    if (failure !== undefined) verdict.failure = failure;
    return verdict;
  }

  /** The user spoke: that agent's chain starts over. */
  reset(agentId: string): void {
    if (typeof agentId !== 'string') throw new TypeError('agentId must be a string');
    this.#chains.drop(agentId);
  }

  /** The agent is gone: free its state. */
  forget(agentId: string): void {
    if (typeof agentId !== 'string') throw new TypeError('agentId must be a string');
    this.#chains.drop(agentId);
  }

  #scan(tool: string, result: ToolResult): Failure | undefined {
    if (!matchesAny(this.#shellTools, tool)) return undefined;
    const output = outputText(result);
    const scanned =
      this.#scanValue && !absent(result.value) ? `${output}\n${JSON.stringify(result.value)}` : output;
    const failed = showsFailure(scanned);
    const matches: RuleMatch[] = [];
    let anyError = false;
    for (const rule of this.#rules) {
      if (failed && rule.when === 'success') continue;
      const match = firstMatch(rule, scanned);
      if (match === undefined) continue;
      matches.push(match);
      if (rule.action === 'error') anyError = true;
    }
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
