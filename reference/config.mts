/**
 * Configuration shapes, defaults and fail-loud validation, with the native
 * engine's messages (crates/toolguard-core/src/config.rs) word for word: repeat-chain errors use
 * the official plugin's texts, shape errors name the config key, rule errors
 * name the rule id. `undefined` means "use the default" everywhere; `null` is
 * accepted as absent only for the config and its two sections, as natively.
 */
import { configError, invalid, kindOf, pathOf } from './errors.mjs';
import { resolveLoops, type ResolvedLoops } from './loops/index.mjs';
import { defaultShellTools } from './shell.mjs';
import { validateThresholds } from './repeat.mjs';
import type { RuleAction, RuleWhen } from './types.mjs';

/** A config with every default applied and every field checked. */
export interface ResolvedConfig {
  repeat: {
    thresholds: number[];
    include: string[];
    exclude: string[];
    argumentsPreviewChars: number;
  };
  loudFailure: {
    rules: ResolvedRule[];
    shellTools: string[];
    scanValue: boolean;
  };
  /** The loop detectors' settings; `undefined`: off. */
  loops: ResolvedLoops | undefined;
}

/** A user rule after the shape check, defaults applied (`flags` `''`, `when` `'success'`). */
export interface ResolvedRule {
  id: string;
  pattern: string;
  flags: string;
  action: RuleAction;
  when: RuleWhen;
  message: string;
  /** The veto pattern (rules.mts `firstMatch`); absent: no veto. */
  unless?: string;
}

const RULE_KEYS = ['id', 'pattern', 'flags', 'action', 'when', 'message', 'reason', 'unless'];

function isObject(value: unknown): value is Record<string, unknown> {
  return kindOf(value) === 'object';
}

function typeError(at: string, expected: string, got: unknown): Error {
  return configError(`toolguard: ${at} must be ${expected} (got ${kindOf(got)})`, 'TOOLGUARD_WRONG_TYPE', at);
}

/** A misspelt key would otherwise be ignored silently and the default used. */
function unknownKey(value: Record<string, unknown>, known: readonly string[]): string | undefined {
  return enumerableKeys(value).find((key) => !known.includes(key) && value[key] !== undefined);
}

/** Enumerable string keys, inherited ones included, as N-API's `napi_get_property_names` lists them. */
function enumerableKeys(value: object): string[] {
  const keys: string[] = [];
  for (const key in value) keys.push(key);
  return keys;
}

/** Deeper configs are not configs (the native walk is recursive and bounded the same way). */
const CONFIG_DEPTH_LIMIT = 32;

function checkDepth(value: unknown, depth: number): void {
  // The binding's own walk refuses it, before the core: a plain input error, as natively.
  if (depth > CONFIG_DEPTH_LIMIT) throw invalid('toolguard: config is nested too deeply');
  if (Array.isArray(value)) for (const item of value) checkDepth(item, depth + 1);
  else if (isObject(value)) for (const key of enumerableKeys(value)) checkDepth(value[key], depth + 1);
}

function rejectUnknownKeys(value: Record<string, unknown>, at: string, known: readonly string[]): void {
  const key = unknownKey(value, known);
  if (key !== undefined)
    throw configError(`toolguard: unknown key ${at}.${key} (expected one of: ${known.join(', ')})`, 'TOOLGUARD_UNKNOWN_KEY', [
      ...pathOf(at),
      key,
    ]);
}

function optionalList<T>(value: unknown, at: string, item: 'number' | 'string'): T[] | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value)) throw typeError(at, `an array of ${item}s`, value);
  value.forEach((element, index) => {
    if (typeof element !== item) throw typeError(`${at}[${index}]`, `a ${item}`, element);
  });
  return value as T[];
}

/**
 * Rust's `{:?}` of a string, which the native action/when errors print: like
 * a JSON string except control characters read `\u{1b}` and `'` is kept.
 */
function rustDebugString(text: string): string {
  let out = '"';
  for (const char of text) {
    const code = char.codePointAt(0)!;
    if (char === '"' || char === '\\') out += `\\${char}`;
    else if (char === '\n') out += '\\n';
    else if (char === '\r') out += '\\r';
    else if (char === '\t') out += '\\t';
    else if (char === '\0') out += '\\0';
    else if (code < 0x20 || code === 0x7f) out += `\\u{${code.toString(16)}}`;
    else out += char;
  }
  return `${out}"`;
}

/** One user rule's shape; errors name the rule by id when it has one, else by index. */
function ruleFromValue(value: unknown, index: number): ResolvedRule {
  const at = `config.loudFailure.rules[${index}]`;
  if (!isObject(value)) throw typeError(at, 'a rule object', value);
  const id = value.id;
  if (typeof id !== 'string') throw typeError(`${at}.id`, 'a string', id);
  if (id === '') throw configError(`loud-failure: ${at}: \`id\` must not be empty`, 'TOOLGUARD_BAD_RULE', at);
  const field = (key: string) => `loud-failure: rule ${id}: \`${key}\``;
  // A rule's own errors name it by id; their path is the rule's (config.rs `rule_from_value`).
  const problem = (message: string) => configError(message, 'TOOLGUARD_BAD_RULE', at);
  const unknown = unknownKey(value, RULE_KEYS);
  if (unknown !== undefined) {
    throw problem(`loud-failure: rule ${id}: unknown key \`${unknown}\` (expected one of: ${RULE_KEYS.join(', ')})`);
  }
  const string = (key: string, fallback?: string): string => {
    const got = value[key];
    if (typeof got === 'string') return got;
    if (got === undefined && fallback !== undefined) return fallback;
    throw problem(`${field(key)} must be a string (got ${kindOf(got)})`);
  };
  // A rule switched off needs only its id (config.rs `rule_from_value`).
  const optional = value.action === 'off' ? '' : undefined;
  const pattern = string('pattern', optional);
  if (pattern === '' && optional === undefined) throw problem(`${field('pattern')} must not be empty`);
  const flags = string('flags', '');
  const message = string('message', optional);
  const action = string('action');
  if (action !== 'error' && action !== 'context' && action !== 'off') {
    throw problem(`${field('action')} must be 'error', 'context' or 'off' (got ${rustDebugString(action)})`);
  }
  const when = string('when', 'success');
  if (when !== 'success' && when !== 'always') {
    throw problem(`${field('when')} must be 'success' or 'always' (got ${rustDebugString(when)})`);
  }
  string('reason', '');
  const unless = value.unless === undefined ? undefined : string('unless');
  return { id, pattern, flags, action, when, message, ...(unless === undefined ? {} : { unless }) };
}

function resolveRepeat(value: unknown): ResolvedConfig['repeat'] {
  const config = { thresholds: [3, 5, 8], include: [] as string[], exclude: [] as string[], argumentsPreviewChars: 500 };
  if (value === undefined || value === null) return config;
  if (!isObject(value)) throw typeError('config.repeat', 'an object', value);
  rejectUnknownKeys(value, 'config.repeat', ['thresholds', 'include', 'exclude', 'argumentsPreviewChars']);
  const thresholds = optionalList<number>(value.thresholds, 'config.repeat.thresholds', 'number');
  if (thresholds !== undefined) config.thresholds = validateThresholds(thresholds);
  config.include = optionalList<string>(value.include, 'config.repeat.include', 'string') ?? config.include;
  config.exclude = optionalList<string>(value.exclude, 'config.repeat.exclude', 'string') ?? config.exclude;
  const preview = value.argumentsPreviewChars;
  if (preview !== undefined) {
    if (typeof preview !== 'number') throw typeError('config.repeat.argumentsPreviewChars', 'a number', preview);
    // Same order and text as the official plugin: thresholds are checked first.
    if (!Number.isInteger(preview) || preview < 1) {
      throw configError(
        `repeat-tool-reminder: invalid argumentsPreviewChars ${preview} — must be an integer >= 1`,
        'TOOLGUARD_OUT_OF_RANGE',
        ['repeat', 'argumentsPreviewChars'],
      );
    }
    config.argumentsPreviewChars = preview;
  }
  return config;
}

function resolveLoudFailure(value: unknown): ResolvedConfig['loudFailure'] {
  // The one default list (`rules/shell-tools.json`, as natively), compared without case.
  const config = { rules: [] as ResolvedRule[], shellTools: defaultShellTools(), scanValue: false };
  if (value === undefined || value === null) return config;
  if (!isObject(value)) throw typeError('config.loudFailure', 'an object', value);
  rejectUnknownKeys(value, 'config.loudFailure', ['rules', 'shellTools', 'scanValue']);
  const rules = value.rules;
  if (rules !== undefined) {
    if (!Array.isArray(rules)) throw typeError('config.loudFailure.rules', 'an array', rules);
    config.rules = rules.map(ruleFromValue);
  }
  config.shellTools = optionalList<string>(value.shellTools, 'config.loudFailure.shellTools', 'string') ?? config.shellTools;
  const scanValue = value.scanValue;
  if (scanValue !== undefined) {
    if (typeof scanValue !== 'boolean') throw typeError('config.loudFailure.scanValue', 'a boolean', scanValue);
    config.scanValue = scanValue;
  }
  return config;
}

/** Check a `GuardConfig` and apply the defaults; throws an `Error` naming the field (sections in the native order). */
export function resolveConfig(config: unknown): ResolvedConfig {
  checkDepth(config, 0);
  if (config === undefined || config === null) {
    return { repeat: resolveRepeat(undefined), loudFailure: resolveLoudFailure(undefined), loops: undefined };
  }
  if (!isObject(config)) throw typeError('config', 'an object', config);
  rejectUnknownKeys(config, 'config', ['repeat', 'loudFailure', 'loops', 'exactMode']);
  // Exact mode is a rewrite the hosts do (docs/exact-mode.md): the key is
  // checked so a config loads the same in both engines.
  if (config.exactMode !== undefined && typeof config.exactMode !== 'boolean') {
    throw typeError('config.exactMode', 'a boolean', config.exactMode);
  }
  const repeat = resolveRepeat(config.repeat);
  const loudFailure = resolveLoudFailure(config.loudFailure);
  return { repeat, loudFailure, loops: resolveLoops(config.loops) };
}
