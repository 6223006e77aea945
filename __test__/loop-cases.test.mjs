// The loop behaviour cases (corpus/cases/loops/*.json, format in its
// README) replayed through the reference engine and through the addon:
// every step's loop alarm, `check` refusal and (where a case names it)
// silent-failure verdict must be what the case expects.
// crates/toolguard-core/tests/loop_cases.rs replays the same files through
// the core, so a behaviour change to a detector is one case entry plus the
// code in each engine.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

import { GuardEngine as Reference } from '../dist/reference/index.mjs';

const require = createRequire(import.meta.url);
const here = path.dirname(fileURLToPath(import.meta.url));
const FOLDER = path.join(here, '..', 'corpus', 'cases', 'loops');

function loadNative() {
  try {
    const native = require('../index.js');
    if (typeof native.GuardEngine !== 'function') return { skip: 'index.js has no GuardEngine export' };
    return { native };
  } catch (error) {
    return { skip: `native addon not loadable: ${error.message.split('\n')[0]}` };
  }
}
const { native, skip } = loadNative();

/** JSON text with object keys sorted, as the Rust runner's serde_json map writes them. */
function sortedJson(value) {
  const sorted = (v) =>
    Array.isArray(v)
      ? v.map(sorted)
      : v !== null && typeof v === 'object'
        ? Object.fromEntries(
            Object.keys(v)
              .sort()
              .map((k) => [k, sorted(v[k])]),
          )
        : v;
  return JSON.stringify(sorted(value));
}

/** The case's steps, `times` expanded: calls, or `{ user }` (the user spoke; no step number). */
function stepsOf(testCase, at) {
  assert.ok(Array.isArray(testCase.calls), `${at}: \`calls\` must be an array`);
  return testCase.calls.flatMap((call, i) => {
    if (call.user !== undefined) return [{ user: typeof call.user === 'string' ? call.user : 'a' }];
    const args = call.args;
    assert.ok(
      typeof args === 'string' || (args !== null && typeof args === 'object' && !Array.isArray(args)),
      `${at}, calls[${i}]: \`args\` must be an object or a JSON string`,
    );
    const step = {
      call: { agentId: call.agent ?? 'a', name: call.tool, argumentsJson: typeof args === 'string' ? args : sortedJson(args) },
      result: { content: [{ type: 'text', text: call.output ?? '' }], isError: call.isError ?? false },
    };
    return Array(call.times ?? 1).fill(step);
  });
}

/** What went otherwise than `want` (a string or a list of strings, each a part of `got`). */
function lacks(want, got, what) {
  const parts = typeof want === 'string' ? [want] : Array.isArray(want) ? want : [];
  return parts.filter((part) => !got.includes(part)).map((part) => `${what} lacks ${JSON.stringify(part)}: ${JSON.stringify(got)}`);
}

function numbers(want, got, keys) {
  return keys.filter((k) => want[k] !== undefined && want[k] !== got[k]).map((k) => `${k}: expected ${want[k]}, got ${got[k]}`);
}

function loopProblems(want, got) {
  if (want === undefined || want === null) return got ? [`unexpected loop alarm: ${got.kind} × ${got.count}: ${got.text}`] : [];
  if (!got) return [`expected loop alarm ${JSON.stringify(want)}, got none`];
  const problems = numbers(want, got, ['kind', 'count', 'period', 'first', 'last', 'reminders', 'summary']);
  if (want.calls !== undefined && JSON.stringify(want.calls) !== JSON.stringify(got.calls)) {
    problems.push(`calls: expected ${JSON.stringify(want.calls)}, got ${JSON.stringify(got.calls)}`);
  }
  return [...problems, ...lacks(want.text, got.text, 'text'), ...lacks(want.evidence, got.evidence, 'evidence')];
}

function denyProblems(want, got) {
  if (want === undefined || want === null) return got ? [`unexpected refusal: ${got.reason}`] : [];
  if (!got) return [`expected refusal ${JSON.stringify(want)}, got none`];
  return [...numbers(want, got, ['kind', 'count', 'reminders']), ...lacks(want.reason, got.reason, 'reason')];
}

/** Replays one case through `engine`; what went otherwise, step by step. */
function replay(engine, testCase, at) {
  const expect = testCase.expect ?? {};
  for (const key of Object.keys(expect)) assert.match(key, /^[0-9]+$/, `${at}: expect key ${JSON.stringify(key)} is not a step number`);
  const problems = [];
  let n = 0;
  for (const step of stepsOf(testCase, at)) {
    if (step.user !== undefined) {
      engine.reset(step.user);
      continue;
    }
    n += 1;
    const want = expect[n] ?? {};
    const deny = engine.check(step.call);
    const verdict = engine.observe(step.call, step.result);
    const found = [...denyProblems(want.deny, deny ?? undefined), ...loopProblems(want.loop, verdict?.loop)];
    if ('failure' in want && want.failure !== (verdict?.failure?.action ?? null)) {
      found.push(`failure: expected ${want.failure}, got ${verdict?.failure?.action ?? null}`);
    }
    if (found.length > 0) problems.push(`${at}, step ${n} (${step.call.name}):\n  ${found.join('\n  ')}`);
  }
  return problems;
}

const files = readdirSync(FOLDER)
  .filter((f) => f.endsWith('.json'))
  .sort();
const cases = files.flatMap((file) => {
  const doc = JSON.parse(readFileSync(path.join(FOLDER, file), 'utf8'));
  assert.ok(Array.isArray(doc.cases), `${file}: \`cases\` must be an array`);
  return doc.cases.map((testCase) => ({ file, testCase }));
});

describe('loop behaviour cases (corpus/cases/loops)', () => {
  it(`has cases (${cases.length} in ${files.length} files)`, () => {
    assert.ok(cases.length > 0);
  });
  /** @type {Array<{ engineName: string, make: (config: object) => any, skipped: string | false | undefined }>} */
  const engines = [
    { engineName: 'reference', make: (config) => new Reference(config), skipped: false },
    { engineName: 'native', make: (config) => new native.GuardEngine(config), skipped: skip },
  ];
  for (const { engineName, make, skipped } of engines) {
    describe(`through the ${engineName} engine`, { skip: skipped }, () => {
      for (const { file, testCase } of cases) {
        const at = `${file}: ${testCase.name}`;
        it(at, () => {
          const problems = replay(make(testCase.config ?? { loops: {} }), testCase, at);
          assert.deepEqual(problems, []);
        });
      }
    });
  }
});
