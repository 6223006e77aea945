/**
 * The harness tool model of crates/toolguard-core/src/shell/harness.rs:
 * what each tool of each agent harness does, from the SAME data file,
 * `rules/harness-tools.json`. The one place that decides the effect of a
 * tool that is not a shell, and of a harness's tools run as shell commands
 * (SWE-agent's `open`, `edit 1:5`, `str_replace_editor view a.py`).
 */
import { createRequire } from 'node:module';

import type { Effect } from './shell.mjs';

const EFFECTS = new Set<string>(['read', 'write', 'run', 'test', 'wait', 'search', 'network', 'navigate', 'other']);

export type Rule =
  | { kind: 'effect'; effect: Effect }
  | { kind: 'shell' }
  | { kind: 'by-command'; commands: Map<string, Effect>; default: Effect | undefined }
  | { kind: 'by-code' };

interface Table {
  tools: Map<string, Rule>;
  inShell: Map<string, Rule>;
  prefixes: Array<[string, Map<string, Effect>, Effect | undefined]>;
}

const isRecord = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
const asEffect = (v: unknown): Effect | undefined => (typeof v === 'string' && EFFECTS.has(v) ? (v as Effect) : undefined);
const asciiLower = (s: string) => s.replace(/[A-Z]+/g, (c) => c.toLowerCase());

function effects(v: unknown): Map<string, Effect> {
  const out = new Map<string, Effect>();
  if (isRecord(v))
    for (const [k, e] of Object.entries(v)) {
      const effect = asEffect(e);
      if (effect !== undefined) out.set(k, effect);
    }
  return out;
}

function rule(v: unknown): Rule | undefined {
  if (v === 'shell') return { kind: 'shell' };
  if (typeof v === 'string') {
    const effect = asEffect(v);
    return effect === undefined ? undefined : { kind: 'effect', effect };
  }
  if (!isRecord(v)) return undefined;
  if (v.by === 'code') return { kind: 'by-code' };
  if (v.by === 'command') return { kind: 'by-command', commands: effects(v.commands), default: asEffect(v.default) };
  return undefined;
}

let table: Table | undefined;

/** The shipped table, decoded once (harness.rs `table`); a bad row is skipped. */
function tableOf(): Table {
  if (table !== undefined) return table;
  const require = createRequire(import.meta.url);
  const root = require('../../rules/harness-tools.json') as Record<string, unknown>;
  const t: Table = { tools: new Map(), inShell: new Map(), prefixes: [] };
  // serde_json's map lists keys in code point order; the first of equal lowercase names wins there too.
  const sorted = (o: Record<string, unknown>) => Object.keys(o).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const harnesses = isRecord(root.harnesses) ? root.harnesses : {};
  for (const id of sorted(harnesses)) {
    const h = harnesses[id];
    if (!isRecord(h) || !isRecord(h.tools)) continue;
    for (const name of sorted(h.tools)) {
      const r = rule(h.tools[name]);
      if (r === undefined) continue;
      if (h.inShell === true) t.inShell.set(name, r);
      const key = asciiLower(name);
      if (!t.tools.has(key)) t.tools.set(key, r);
    }
  }
  const prefixes = isRecord(root.prefixes) ? root.prefixes : {};
  for (const prefix of sorted(prefixes)) {
    const p = prefixes[prefix];
    if (isRecord(p)) t.prefixes.push([asciiLower(prefix), effects(p.ops), asEffect(p.default)]);
  }
  table = t;
  return t;
}

/** The rule of a tool by its short name (lowercased, MCP prefix removed). */
export function toolRule(short: string): Rule | undefined {
  return tableOf().tools.get(short);
}

/** The effect of a tool of a named family (`browser_click`), by the rest of its name. */
export function prefixedEffect(short: string): Effect | undefined {
  for (const [prefix, ops, fallback] of tableOf().prefixes) {
    if (!short.startsWith(prefix)) continue;
    const effect = ops.get(short.slice(prefix.length)) ?? fallback;
    if (effect !== undefined) return effect;
  }
  return undefined;
}

/** The rule of a harness command run in a shell (SWE-agent's `open`, `edit`, `str_replace_editor`). */
export function shellCommandRule(program: string): Rule | undefined {
  return tableOf().inShell.get(program);
}

/** harness.rs `by_command`: the effect of `rule` for a sub-command; undefined when it needs one and there is none. */
export function byCommand(r: Rule, sub: string | undefined): Effect | undefined {
  if (r.kind === 'effect') return r.effect;
  if (r.kind !== 'by-command' || sub === undefined || sub === '') return undefined;
  return r.commands.get(sub) ?? r.default;
}
