/**
 * The `loops` config section, decoded with every default applied as
 * crates/toolguard-core/src/config.rs decodes it, with the same errors.
 */
import { configError, kindOf, pathOf, type ConfigPath } from '../errors.mjs';

/** The `loops` section with every default applied (config.rs `LoopsConfig`). */
export interface ResolvedLoops {
  window: number;
  repeat: number | undefined;
  cycle: number | undefined;
  maxPeriod: number;
  sameError: number | undefined;
  softError: number | undefined;
  reRead: number | undefined;
  transientMultiplier: number;
  poll: number | undefined;
  pollQuietSeconds: number;
  deny: number | undefined;
  resultBlindRepeat: boolean;
  ignoreArguments: Array<[string, string[]]>;
  exempt: string[];
  multipliers: Array<[string, number]>;
  mutatingTools: string[];
}

/**
 * Tools whose success changes files beyond what the harness tool model knows (config.rs
 * `DEFAULT_MUTATING_TOOLS`): none — rules/harness-tools.json says which tools of every harness write.
 */
export const DEFAULT_MUTATING_TOOLS: string[] = [];

/** Keys of the `loops` section, in documented order (config.rs `LOOPS_KEYS`). */
export const LOOPS_KEYS = [
  'window',
  'repeat',
  'cycle',
  'maxPeriod',
  'sameError',
  'softError',
  'reRead',
  'transientMultiplier',
  'poll',
  'pollQuietSeconds',
  'deny',
  'resultBlindRepeat',
  'ignoreArguments',
  'exempt',
  'multipliers',
  'mutatingTools',
];

/** The most calls a loop window may keep (config.rs `MAX_LOOP_WINDOW`). */
export const MAX_LOOP_WINDOW = 256;

/** At most this many call ordinals are listed as evidence. */
export const EVIDENCE_CALLS = 12;

export function defaultLoops(): ResolvedLoops {
  return {
    window: 30,
    repeat: 3,
    cycle: 3,
    maxPeriod: 4,
    sameError: 3,
    softError: 4,
    reRead: 3,
    transientMultiplier: 2,
    poll: 8,
    pollQuietSeconds: 300,
    deny: undefined,
    resultBlindRepeat: false,
    ignoreArguments: [['Bash', ['description']]],
    exempt: [],
    multipliers: [],
    mutatingTools: [...DEFAULT_MUTATING_TOOLS],
  };
}

/** Enumerable string keys, inherited ones included, as the native config walk lists them. */
function entriesOf(value: Record<string, unknown>): Array<[string, unknown]> {
  const entries: Array<[string, unknown]> = [];
  for (const key in value) entries.push([key, value[key]]);
  return entries;
}

const isObject = (value: unknown): value is Record<string, unknown> => kindOf(value) === 'object';

function wrongType(at: string, expected: string, got: unknown, path: ConfigPath = pathOf(at)): Error {
  return configError(`toolguard: ${at} must be ${expected} (got ${kindOf(got)})`, 'TOOLGUARD_WRONG_TYPE', path);
}

/** config.rs `integer`: an optional integer in `[min, max]`; the message offers `false` where a detector can be off. */
function integer(value: unknown, at: string, min: number, max: number): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max) return value;
  const orFalse =
    at.endsWith('window') || at.endsWith('maxPeriod') || at.endsWith('transientMultiplier') || at.endsWith('pollQuietSeconds')
      ? ''
      : ', or false';
  const got = typeof value === 'number' ? String(value) : kindOf(value);
  throw configError(`toolguard: ${at} must be an integer from ${min} to ${max}${orFalse} (got ${got})`, 'TOOLGUARD_OUT_OF_RANGE', at);
}

function optionalStrings(value: unknown, at: string, path: ConfigPath = pathOf(at)): string[] | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value)) throw wrongType(at, 'an array of strings', value, path);
  value.forEach((item, index) => {
    if (typeof item !== 'string') throw wrongType(`${at}[${index}]`, 'a string', item, [...path, index]);
  });
  return [...(value as string[])];
}

/**
 * config.rs `LoopsConfig::from_value`: `undefined`, `null` and `false` are
 * off; `true` or an object is on; the checks run in the native order, so the
 * first error is the native engine's first error.
 */
export function resolveLoops(value: unknown): ResolvedLoops | undefined {
  if (value === undefined || value === null || value === false) return undefined;
  const config = defaultLoops();
  if (value === true) return config;
  if (!isObject(value)) throw wrongType('config.loops', 'an object', value);
  const unknown = entriesOf(value).find(([key, v]) => !LOOPS_KEYS.includes(key) && v !== undefined);
  if (unknown !== undefined) {
    throw configError(
      `toolguard: unknown key config.loops.${unknown[0]} (expected one of: ${LOOPS_KEYS.join(', ')})`,
      'TOOLGUARD_UNKNOWN_KEY',
      ['loops', unknown[0]],
    );
  }
  const at = (key: string) => `config.loops.${key}`;
  config.window = integer(value.window, at('window'), 2, MAX_LOOP_WINDOW) ?? config.window;
  for (const key of ['repeat', 'cycle', 'sameError', 'softError', 'reRead', 'poll'] as const) {
    const v = value[key];
    if (v === undefined) continue;
    config[key] = v === false ? undefined : integer(v, at(key), 2, 1e9);
  }
  config.maxPeriod = integer(value.maxPeriod, at('maxPeriod'), 2, 8) ?? config.maxPeriod;
  config.transientMultiplier = integer(value.transientMultiplier, at('transientMultiplier'), 1, 100) ?? config.transientMultiplier;
  config.pollQuietSeconds = integer(value.pollQuietSeconds, at('pollQuietSeconds'), 0, 86_400) ?? config.pollQuietSeconds;
  const deny = value.deny;
  if (deny === true) config.deny = 2;
  else if (deny !== undefined && deny !== false) config.deny = integer(deny, at('deny'), 1, 1e9);
  const blind = value.resultBlindRepeat;
  if (blind !== undefined) {
    if (typeof blind !== 'boolean') throw wrongType(at('resultBlindRepeat'), 'a boolean', blind);
    config.resultBlindRepeat = blind;
  }
  const ignore = value.ignoreArguments;
  if (ignore !== undefined) {
    if (!isObject(ignore)) throw wrongType(at('ignoreArguments'), 'an object of tool: [keys]', ignore);
    config.ignoreArguments = entriesOf(ignore)
      .filter(([, keys]) => keys !== undefined)
      .map(([tool, keys]) => [
        tool,
        optionalStrings(keys, `config.loops.ignoreArguments.${tool}`, ['loops', 'ignoreArguments', tool]) ?? [],
      ]);
  }
  config.exempt = optionalStrings(value.exempt, at('exempt')) ?? config.exempt;
  config.mutatingTools = optionalStrings(value.mutatingTools, at('mutatingTools')) ?? config.mutatingTools;
  const multipliers = value.multipliers;
  if (multipliers !== undefined) {
    if (!isObject(multipliers)) throw wrongType(at('multipliers'), 'an object of tool: number', multipliers);
    config.multipliers = entriesOf(multipliers)
      .filter(([, m]) => m !== undefined)
      .map(([tool, m]) => {
        if (typeof m === 'number' && Number.isFinite(m) && m > 0 && m <= 100) return [tool, m];
        throw wrongType(`config.loops.multipliers.${tool}`, 'a number in (0, 100]', m, ['loops', 'multipliers', tool]);
      });
  }
  return config;
}
