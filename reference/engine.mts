/**
 * The pure-TypeScript reference `GuardEngine`: the same API and verdicts as
 * the native engine, written plainly. It is the baseline for benchmarks, the
 * oracle for differential tests, and the fallback where the native binary
 * cannot load.
 */
import { parseArguments } from './canonical.mjs';
import { kindOf, resolveConfig } from './config.mjs';
import { showsFailure } from './markers.mjs';
import { RepeatChains } from './repeat.mjs';
import { buildRuleTable, firstMatch, type CompiledRule } from './rules.mjs';
import type {
  Failure,
  GuardConfig,
  GuardEngineLike,
  RuleMatch,
  ToolExec,
  ToolResult,
  Verdict,
} from './types.mjs';
import { matchesAny, wildcardToRegExp } from './wildcard.mjs';

function isRecord(value: unknown): value is Record<string, unknown> {
  return kindOf(value) === 'object';
}

function inputError(at: string, expected: string, got: unknown): TypeError {
  return new TypeError(`toolguard: ${at} must be ${expected} (got ${kindOf(got)})`);
}

function optionalString(value: unknown, at: string): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw inputError(at, 'a string', value);
  return value;
}

/** The output's text parts: the text blocks, or the plain text. */
function outputTexts(result: ToolResult): string[] {
  const content: unknown = result.content;
  if (content !== undefined) {
    if (!Array.isArray(content)) throw inputError('result.content', 'an array', content);
    return content.filter(isTextBlock).map((block) => block.text);
  }
  const text = optionalString(result.text, 'result.text');
  return text === undefined ? [] : [text];
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
    const { repeat, loudFailure } = resolveConfig(config);
    this.#chains = new RepeatChains(repeat);
    this.#rules = buildRuleTable(loudFailure.rules);
    this.#shellTools = loudFailure.shellTools.map(wildcardToRegExp);
    this.#scanValue = loudFailure.scanValue;
  }

  /** Advance the calling agent's chain and scan the output; `null` when the guard has nothing to say. */
  observe(exec: ToolExec, result: ToolResult): Verdict | null {
    if (!isRecord(exec)) throw inputError('exec', 'an object', exec);
    if (!isRecord(result)) throw inputError('result', 'an object', result);
    const name = exec.name;
    if (typeof name !== 'string') throw inputError('exec.name', 'a string', name);
    const agentId = optionalString(exec.agentId, 'exec.agentId');
    const argumentsJson = optionalString(exec.argumentsJson, 'exec.argumentsJson');
    if ((exec.arguments !== undefined) === (argumentsJson !== undefined)) {
      throw new TypeError('toolguard: exec needs exactly one of `arguments` and `argumentsJson`');
    }
    const isError = result.isError;
    if (isError !== undefined && typeof isError !== 'boolean') throw inputError('result.isError', 'a boolean', isError);
    const texts = outputTexts(result);

    const reminder =
      agentId === undefined
        ? undefined
        : this.#chains.observe(agentId, name, () =>
            argumentsJson !== undefined ? parseArguments(argumentsJson) : exec.arguments,
          );
    const failure = isError === true ? undefined : this.#scan(name, texts, result.value);
    if (reminder === undefined && failure === undefined) return null;
    const verdict: Verdict = {};
    if (reminder !== undefined) verdict.reminder = reminder;
    if (failure !== undefined) verdict.failure = failure;
    return verdict;
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

  #scan(tool: string, texts: readonly string[], value: unknown): Failure | undefined {
    if (!matchesAny(this.#shellTools, tool)) return undefined;
    const output = texts.join('\n');
    let scanned = output;
    if (this.#scanValue && value !== undefined && value !== null) {
      const json = JSON.stringify(value);
      scanned = texts.length === 0 ? json : `${output}\n${json}`;
    }
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
