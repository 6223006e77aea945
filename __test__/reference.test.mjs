// The pure-TypeScript reference engine (`toolguard/reference`):
// - part A (repeat chains) against the official dsh-repeat-tool-reminder
//   plugin itself, driven through its own listeners;
// - part B (silent-failure rules) against the verdict texts of the spec;
// - the native GuardEngine against the reference over generated call
//   sequences (skipped, with the reason, when the addon is not built).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { readdirSync, readFileSync, existsSync, mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { spawnSync } from 'node:child_process';
import path from 'node:path';

import fc from 'fast-check';
import * as official from '@deepseek-ai/dsh-repeat-tool-reminder';

import { GuardEngine, canonicalize } from '../dist/reference/index.mjs';
import { sortJsonValue, stringifySortedIteratively } from '../dist/reference/canonical.mjs';
import { showsFailure } from '../dist/reference/markers.mjs';

const require = createRequire(import.meta.url);
const here = path.dirname(fileURLToPath(import.meta.url));
const BUILTINS = require('../rules/builtin.json');
const FIXTURES = path.join(here, 'fixtures', 'rules');

const GENTLE =
  'You are repeating the exact same tool call with identical arguments. Carefully analyze the previous result before calling again: if the task is not complete, try a different approach or different arguments instead of repeating the call.';
const detailed = (tool, count, preview) =>
  `Repeated tool call detected:\n- tool: ${tool}\n- consecutive_calls: ${count}\n- arguments: ${preview}\nThe repeated calls are not making progress. Do not call this tool with these exact arguments again. Inspect the latest result and choose a different action, different arguments, or finish the task if enough evidence has been gathered.`;

/** The DSH agent loop's parseArguments (dsh-agent-loop lib/index.js), the oracle for `argumentsJson`. */
function dshParseArguments(raw) {
  try {
    return raw ? JSON.parse(raw) : {};
  } catch {
    return raw;
  }
}

/**
 * The official plugin, applied to a minimal context stand-in; its listeners
 * are called directly. Agents are objects (its chains live in a WeakMap), so
 * `forget` hands out a fresh object for that id.
 */
function officialGuard(config) {
  const listeners = {};
  official.apply({ on: (event, listener) => (listeners[event] = listener) }, config);
  const agents = new Map();
  const agent = (id) => {
    if (!agents.has(id)) agents.set(id, { id });
    return agents.get(id);
  };
  return {
    async observe(agentId, name, args) {
      const exec = { name, arguments: args, agent: agentId === undefined ? undefined : agent(agentId), callId: 'c' };
      const decision = await listeners['tools/post-execute'](exec, { isError: false, value: null, content: [] }, async () => ({
        kind: 'accept',
      }));
      const [context] = decision.additionalContexts ?? [];
      if (context === undefined) return undefined;
      return { text: context.content[0].text, summary: context.source.summary };
    },
    async reset(agentId) {
      await listeners['agent/pre-step']({ agent: agent(agentId), messages: [{ source: { kind: 'user' } }] }, async () => {});
    },
    forget(agentId) {
      agents.delete(agentId);
    },
  };
}

/** Every built-in rule switched off, so a test sees only its own rules. */
const builtinsOff = () => BUILTINS.map(({ id }) => ({ id, pattern: 'x', action: 'off', message: 'off' }));

/** A reference engine with only `rules` active (plus the given loudFailure options). */
const engineWith = (rules, loudFailure = {}, repeat = undefined) =>
  new GuardEngine({ repeat, loudFailure: { ...loudFailure, rules: [...builtinsOff(), ...rules] } });

const call = (name, args, agentId) => ({ name, arguments: args, ...(agentId === undefined ? {} : { agentId }) });
const out = (text) => ({ content: [{ type: 'text', text }] });

describe('reference: module', () => {
  it('exports the engine, canonicalize and observeCall, and loads without the native binary', async () => {
    const mod = await import('../dist/reference/index.mjs');
    assert.deepEqual(Object.keys(mod).sort(), ['GuardEngine', 'canonicalize', 'observeCall', 'observeCallValue']);
    assert.equal(new mod.GuardEngine().agentCount, 0);
    assert.equal(typeof new mod.GuardEngine().observe, 'function');
  });

  it('works where no native binary can load, from ESM and from CommonJS (the fallback path)', () => {
    const entry = path.join(here, '..', 'dist', 'reference', 'index.mjs');
    // process.dlopen is how Node loads a .node file: make every attempt fail.
    const script = `
      process.dlopen = () => { throw new Error('no native binaries here'); };
      const check = ({ GuardEngine, canonicalize }) => {
        const engine = new GuardEngine({ repeat: { thresholds: [2] } });
        engine.observe({ agentId: 'a', name: 'bash', argumentsJson: '{"b":1,"a":2}' });
        const verdict = engine.observe({ agentId: 'a', name: 'bash', arguments: { a: 2, b: 1 } }, { text: 'Traceback (most recent call last):' });
        return [verdict.reminder.count, verdict.failure.action, canonicalize('{"b":1,"a":2}')].join(' ');
      };
      const viaRequire = check(require(${JSON.stringify(entry)}));
      import(${JSON.stringify(pathToFileURL(entry).href)}).then((mod) => console.log(viaRequire, '|', check(mod)));
    `;
    const child = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8' });
    assert.equal(child.stderr, '');
    assert.equal(child.stdout.trim(), '2 error {"a":2,"b":1} | 2 error {"a":2,"b":1}');
  });

  it('its types and the native index.d.ts are interchangeable (the fallback can stand in)', {
    skip: !existsSync(path.join(here, '..', 'index.d.ts')) && 'no index.d.ts',
  }, () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'toolguard-types-'));
    const nativeTypes = JSON.stringify(path.join(here, '..', 'index.js'));
    const referenceTypes = JSON.stringify(path.join(here, '..', 'dist', 'reference', 'index.mjs'));
    writeFileSync(
      path.join(dir, 'check.mts'),
      `import type * as N from ${nativeTypes};
       import { GuardEngine, type GuardConfig, type GuardVerdict, type ToolExecution, type ToolResult, type Rule } from ${referenceTypes};
       const engine: N.GuardEngine = new GuardEngine();
       export const pairs = [
         [{} as N.GuardConfig satisfies GuardConfig, {} as GuardConfig satisfies N.GuardConfig],
         [{} as N.ToolExecution satisfies ToolExecution, {} as ToolExecution satisfies N.ToolExecution],
         [{} as N.ToolResult satisfies ToolResult, {} as ToolResult satisfies N.ToolResult],
         [{} as N.Rule satisfies Rule, {} as Rule satisfies N.Rule],
         [engine.observe({ name: 'x', argumentsJson: '' }) satisfies GuardVerdict | null, {} as GuardVerdict satisfies N.GuardVerdict],
       ];
      `,
    );
    writeFileSync(
      path.join(dir, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, noEmit: true, types: [] },
        files: ['check.mts'],
      }),
    );
    const tsc = spawnSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', dir], { encoding: 'utf8' });
    rmSync(dir, { recursive: true, force: true });
    assert.equal(tsc.stdout + tsc.stderr, '');
    assert.equal(tsc.status, 0);
  });

  it('canonicalize follows DSH parseArguments then the deep key sort', () => {
    assert.equal(canonicalize(''), '{}');
    assert.equal(canonicalize('{"b":1,"a":{"d":[{"z":1,"y":2}],"c":null}}'), '{"a":{"c":null,"d":[{"y":2,"z":1}]},"b":1}');
    assert.equal(canonicalize('{not json'), '"{not json"');
    assert.equal(canonicalize('{"10":1,"9":2,"b":3,"B":4}'), '{"9":2,"10":1,"B":4,"b":3}');
    assert.equal(canonicalize('[1e21, 5e-7, -0, 1.0]'), '[1e+21,5e-7,0,1]');
    assert.equal(canonicalize('"\\ud800"'), '"\\ud800"');
    assert.equal(canonicalize('{"\\ud83d\\ude00":1,"\\uffff":2}'), '{"😀":1,"\uffff":2}');
  });
  it('deep arguments: the iterative path writes what the official recursion would', () => {
    const keys = fc.constantFrom(
      'a',
      'b',
      'B',
      '__proto__',
      '9',
      '10',
      '01',
      '-1',
      '1.5',
      '4294967294',
      '4294967295',
      'é',
      '\ud83d\ude00',
      '\uffff',
      '',
    );
    const json = fc.letrec((tie) => ({
      value: fc.oneof(
        { depthSize: 'small' },
        fc.constantFrom(null, true, false, 0, -0, 1e21, 5e-7, 1.5, 'x', '\u0000\ud800"'),
        fc.array(tie('value'), { maxLength: 4 }),
        fc.dictionary(keys, tie('value'), { maxKeys: 5 }),
      ),
    })).value;
    fc.assert(
      fc.property(json, (value) => {
        const parsed = JSON.parse(JSON.stringify(value)); // own `__proto__` keys, as JSON.parse makes them
        assert.equal(stringifySortedIteratively(parsed), JSON.stringify(sortJsonValue(parsed)));
      }),
      { numRuns: 3000, seed: 11 },
    );
    const depth = 100_000;
    const deep = `${'{"k":['.repeat(depth)}{"b":1,"a":2}${']}'.repeat(depth)}`;
    assert.equal(canonicalize(deep), `${'{"k":['.repeat(depth)}{"a":2,"b":1}${']}'.repeat(depth)}`);
    const engine = new GuardEngine({ repeat: { thresholds: [2] } });
    engine.observe({ agentId: 'a', name: 'f', argumentsJson: deep }, {});
    assert.equal(engine.observe({ agentId: 'a', name: 'f', argumentsJson: deep }, {}).reminder.count, 2);
  });
});

describe('reference: repeat chains (part A)', () => {
  it('gentle at thresholds[0], detailed later, silent past the last', () => {
    const engine = new GuardEngine();
    const seen = [];
    for (let i = 1; i <= 12; i++) {
      const verdict = engine.observe(call('grep', { q: 'x' }, 'a'), out(''));
      seen.push(verdict?.reminder?.count ?? null);
      if (i === 3) assert.deepEqual(verdict, { reminder: { tool: 'grep', count: 3, text: GENTLE, summary: 'grep × 3' } });
      if (i === 5) assert.equal(verdict.reminder.text, detailed('grep', 5, '{"q":"x"}'));
      if (i === 8) assert.equal(verdict.reminder.summary, 'grep × 8');
    }
    assert.deepEqual(seen, [null, null, 3, null, 5, null, null, 8, null, null, null, null]);
  });

  it('sorts thresholds; the lowest is the gentle tier', () => {
    const engine = new GuardEngine({ repeat: { thresholds: [6, 2, 4] } });
    const texts = [];
    for (let i = 1; i <= 7; i++) texts.push(engine.observe(call('read', { p: 1 }, 'a'), {})?.reminder?.text ?? null);
    assert.deepEqual(texts, [null, GENTLE, null, detailed('read', 4, '{"p":1}'), null, detailed('read', 6, '{"p":1}'), null]);
  });

  it('caps the preview in UTF-16 code units with `… (+N more chars)`', () => {
    const engine = new GuardEngine({ repeat: { thresholds: [2, 3], argumentsPreviewChars: 10 } });
    const args = { text: '😀'.repeat(10) };
    const canonical = canonicalize(JSON.stringify(args));
    assert.equal(canonical.length, 31);
    engine.observe(call('write', args, 'a'), {});
    engine.observe(call('write', args, 'a'), {});
    const { text } = engine.observe(call('write', args, 'a'), {}).reminder;
    assert.equal(text, detailed('write', 3, `${canonical.slice(0, 10)}… (+21 more chars)`));
    assert.ok(text.includes('"\ud83d…'), 'the cut may split a surrogate pair, as in the official code');

    const exact = new GuardEngine({ repeat: { thresholds: [2, 3], argumentsPreviewChars: 9 } });
    for (let i = 0; i < 2; i++) exact.observe(call('w', { a: 'xyz' }, 'a'), {});
    assert.equal(
      exact.observe(call('w', { a: 'xyz' }, 'a'), {}).reminder.text,
      detailed('w', 3, '{"a":"xyz"}'.slice(0, 9) + '… (+2 more chars)'),
    );
    const fits = new GuardEngine({ repeat: { thresholds: [2, 3], argumentsPreviewChars: 11 } });
    for (let i = 0; i < 2; i++) fits.observe(call('w', { a: 'xyz' }, 'a'), {});
    assert.equal(fits.observe(call('w', { a: 'xyz' }, 'a'), {}).reminder.text, detailed('w', 3, '{"a":"xyz"}'));
  });

  it('matches include/exclude wildcards anchored, with metacharacters literal', () => {
    const counts = (repeat, name) => {
      const engine = new GuardEngine({ repeat: { thresholds: [2], ...repeat } });
      engine.observe(call(name, {}, 'a'), {});
      return engine.observe(call(name, {}, 'a'), {}) !== null;
    };
    assert.equal(counts({ include: ['mcp__*'] }, 'mcp__fs__read'), true);
    assert.equal(counts({ include: ['mcp__*'] }, 'xmcp__fs'), false, 'anchored at the start');
    assert.equal(counts({ include: ['read'] }, 'read_file'), false, 'anchored at the end');
    assert.equal(counts({ exclude: ['a.c'] }, 'abc'), true, '`.` is literal');
    assert.equal(counts({ exclude: ['a.c'] }, 'a.c'), false);
    assert.equal(counts({ exclude: ['t(o)[d]{1}+?^$|\\'] }, 't(o)[d]{1}+?^$|\\'), false);
    assert.equal(counts({ exclude: ['*'] }, ''), false, '`*` matches the empty name');
    assert.equal(counts({ exclude: ['a*b'] }, 'a\nb'), true, '`*` is JavaScript `.*`: it stops at a newline');
    assert.equal(counts({ include: ['x*', 'read'], exclude: ['x-*'] }, 'x-ray'), false, 'exclude wins');
  });

  it('untracked calls are transparent: they neither count nor reset', () => {
    const engine = new GuardEngine({ repeat: { exclude: ['todo_*'] } });
    const verdicts = [
      engine.observe(call('grep', { q: 1 }, 'a'), {}),
      engine.observe(call('todo_write', { q: 1 }, 'a'), {}),
      engine.observe(call('grep', { q: 1 }, 'a'), {}),
      engine.observe(call('todo_write', { q: 2 }, 'a'), {}),
      engine.observe(call('grep', { q: 1 }, 'a'), {}),
    ];
    assert.deepEqual(
      verdicts.map((v) => v?.reminder?.count ?? null),
      [null, null, null, null, 3],
    );
  });

  it('key = tool + canonical arguments: key order, JSON text and parsed value are one call', () => {
    const engine = new GuardEngine();
    engine.observe({ agentId: 'a', name: 'f', argumentsJson: '{"b":[1,{"y":1,"x":2}],"a":1}' }, {});
    engine.observe(call('f', { a: 1, b: [1, { x: 2, y: 1 }] }, 'a'), {});
    assert.equal(
      engine.observe({ agentId: 'a', name: 'f', argumentsJson: ' { "a" : 1 , "b" : [1,{"x":2,"y":1}] } ' }, {}).reminder.count,
      3,
    );
    const other = new GuardEngine();
    other.observe({ agentId: 'a', name: 'f', argumentsJson: '' }, {});
    other.observe(call('f', {}, 'a'), {});
    assert.equal(other.observe({ agentId: 'a', name: 'f', argumentsJson: '{}' }, {}).reminder.count, 3, 'empty text is {}');
    const raw = new GuardEngine();
    raw.observe({ agentId: 'a', name: 'f', argumentsJson: '{oops' }, {});
    raw.observe(call('f', '{oops', 'a'), {});
    assert.equal(raw.observe({ agentId: 'a', name: 'f', argumentsJson: '{oops' }, {}).reminder.count, 3, 'malformed = raw string');
    const differ = new GuardEngine();
    differ.observe(call('f', [1, 2], 'a'), {});
    differ.observe(call('f', [2, 1], 'a'), {});
    assert.equal(differ.observe(call('g', [2, 1], 'a'), {}), null, 'arrays keep order; another tool breaks the chain');
  });

  it('reset and forget restart one agent; agents never interact; agentless calls take no part', () => {
    const engine = new GuardEngine({ repeat: { thresholds: [2] } });
    engine.observe(call('grep', {}, 'a'), {});
    engine.observe(call('grep', {}, 'b'), {});
    engine.observe(call('grep', {}, undefined), {});
    engine.reset('a');
    assert.equal(engine.observe(call('grep', {}, 'a'), {}), null, 'reset: count 1');
    assert.equal(engine.observe(call('grep', {}, 'b'), {}).reminder.count, 2, 'b untouched');
    engine.forget('b');
    assert.equal(engine.observe(call('grep', {}, 'b'), {}), null, 'forget: count 1');
    for (let i = 0; i < 5; i++) assert.equal(engine.observe(call('grep', {}, undefined), {}), null);
    engine.reset('never-seen');
    engine.forget('never-seen');
    assert.equal(engine.agentCount, 2);
    engine.forget('a');
    engine.reset('b');
    assert.equal(engine.agentCount, 0, 'reset and forget free the chain');
    new GuardEngine({ repeat: { exclude: ['x'] } }).observe(call('x', {}, 'z'), {});
  });

  it('untracked calls leave no chain state', () => {
    const engine = new GuardEngine({ repeat: { include: ['grep'] } });
    engine.observe(call('read', {}, 'a'), {});
    assert.equal(engine.agentCount, 0);
    engine.observe(call('grep', {}, 'a'), {});
    assert.equal(engine.agentCount, 1);
  });

  it('config errors use the official texts, in the official order', () => {
    const cases = [
      [{ thresholds: [] }, 'repeat-tool-reminder: `thresholds` must not be empty'],
      [{ thresholds: [3, 1] }, 'repeat-tool-reminder: invalid threshold 1 — every threshold must be an integer >= 2'],
      [{ thresholds: [2.5] }, 'repeat-tool-reminder: invalid threshold 2.5 — every threshold must be an integer >= 2'],
      [{ thresholds: [NaN] }, 'repeat-tool-reminder: invalid threshold NaN — every threshold must be an integer >= 2'],
      [{ thresholds: [-0] }, 'repeat-tool-reminder: invalid threshold 0 — every threshold must be an integer >= 2'],
      [{ thresholds: [Infinity] }, 'repeat-tool-reminder: invalid threshold Infinity — every threshold must be an integer >= 2'],
      [{ thresholds: [3, 4, 3] }, 'repeat-tool-reminder: `thresholds` must not contain duplicates'],
      [{ argumentsPreviewChars: 0 }, 'repeat-tool-reminder: invalid argumentsPreviewChars 0 — must be an integer >= 1'],
      [{ argumentsPreviewChars: 1.5 }, 'repeat-tool-reminder: invalid argumentsPreviewChars 1.5 — must be an integer >= 1'],
      [{ thresholds: [], argumentsPreviewChars: 0 }, 'repeat-tool-reminder: `thresholds` must not be empty'],
    ];
    for (const [repeat, message] of cases) {
      assert.throws(() => new GuardEngine({ repeat }), { message }, JSON.stringify(repeat));
      const full = { ...official.Config({}), ...repeat };
      assert.throws(() => officialGuard(full), { message }, `official agrees: ${JSON.stringify(repeat)}`);
    }
  });

  it('config shape errors name the field', () => {
    const cases = [
      ['x', 'toolguard: config must be an object (got string)'],
      [{ repeats: {} }, 'toolguard: unknown key config.repeats (expected one of: repeat, loudFailure, loops, exactMode)'],
      [{ repeat: 3 }, 'toolguard: config.repeat must be an object (got number)'],
      [{ repeat: { thresholds: '3' } }, 'toolguard: config.repeat.thresholds must be an array of numbers (got string)'],
      [{ repeat: { thresholds: [3, '5'] } }, 'toolguard: config.repeat.thresholds[1] must be a number (got string)'],
      [{ repeat: { include: [1] } }, 'toolguard: config.repeat.include[0] must be a string (got number)'],
      [{ repeat: { exclude: null } }, 'toolguard: config.repeat.exclude must be an array of strings (got null)'],
      [{ repeat: { argumentsPreviewChars: '9' } }, 'toolguard: config.repeat.argumentsPreviewChars must be a number (got string)'],
      [
        { repeat: { threshold: [3] } },
        'toolguard: unknown key config.repeat.threshold (expected one of: thresholds, include, exclude, argumentsPreviewChars)',
      ],
      [{ loudFailure: [] }, 'toolguard: config.loudFailure must be an object (got array)'],
      [{ loudFailure: { rules: {} } }, 'toolguard: config.loudFailure.rules must be an array (got object)'],
      [{ loudFailure: { shellTools: 'bash' } }, 'toolguard: config.loudFailure.shellTools must be an array of strings (got string)'],
      [{ loudFailure: { scanValue: 1 } }, 'toolguard: config.loudFailure.scanValue must be a boolean (got number)'],
    ];
    for (const [config, message] of cases) assert.throws(() => new GuardEngine(config), { message }, JSON.stringify(config));
    // undefined means "default"; null is accepted for the config and its sections.
    new GuardEngine(null);
    new GuardEngine({ repeat: null, loudFailure: null, other: undefined });
    new GuardEngine({ repeat: { thresholds: undefined } });
  });

  it('property: verdicts equal the official plugin over random call sequences', async () => {
    const names = ['grep', 'read', 'todo_write', 'a.c', 'abc', 'mcp__fs__x'];
    const argPool = [{}, { q: 'x' }, { q: 'x', n: 1 }, { n: 1, q: 'x' }, [1, 2], 'raw', { long: 'é'.repeat(40) }];
    const jsonPool = ['', '{}', '{"q":"x"}', ' {"q" : "x"}', '{"n":1,"q":"x"}', '{bad', '[1,2]'];
    const op = fc.oneof(
      {
        weight: 8,
        arbitrary: fc.record({
          kind: fc.constant('call'),
          agent: fc.constantFrom('a', 'b', undefined),
          name: fc.constantFrom(...names),
          args: fc.oneof(
            fc.constantFrom(...argPool).map((value) => ({ value })),
            fc.constantFrom(...jsonPool).map((json) => ({ json })),
          ),
          repeat: fc.integer({ min: 1, max: 6 }),
        }),
      },
      { weight: 1, arbitrary: fc.record({ kind: fc.constantFrom('reset', 'forget'), agent: fc.constantFrom('a', 'b') }) },
    );
    const config = fc.record({
      thresholds: fc.uniqueArray(fc.integer({ min: 2, max: 9 }), { minLength: 1, maxLength: 4 }),
      include: fc.subarray(['*', 'grep', 'mcp__*', 'a.c', 'todo_*']),
      exclude: fc.subarray(['todo_*', 'a.c', '*x']),
      argumentsPreviewChars: fc.integer({ min: 1, max: 30 }),
    });
    let compared = 0;
    let reminders = 0;
    await fc.assert(
      fc.asyncProperty(config, fc.array(op, { maxLength: 25 }), async (repeat, ops) => {
        const ours = new GuardEngine({ repeat });
        const theirs = officialGuard(repeat);
        for (const step of ops) {
          if (step.kind !== 'call') {
            ours[step.kind](step.agent);
            if (step.kind === 'reset') await theirs.reset(step.agent);
            else theirs.forget(step.agent);
            continue;
          }
          for (let i = 0; i < step.repeat; i++) {
            const exec = { name: step.name, ...(step.agent === undefined ? {} : { agentId: step.agent }) };
            if ('json' in step.args) exec.argumentsJson = step.args.json;
            else exec.arguments = step.args.value;
            const value = 'json' in step.args ? dshParseArguments(step.args.json) : step.args.value;
            const reminder = ours.observe(exec, {})?.reminder;
            const expected = await theirs.observe(step.agent, step.name, value);
            assert.deepEqual(reminder && { text: reminder.text, summary: reminder.summary }, expected);
            compared++;
            if (expected !== undefined) reminders++;
          }
        }
      }),
      { numRuns: 500, seed: 20261130 },
    );
    assert.ok(compared > 5000 && reminders > 500, `compared ${compared} calls, ${reminders} with a reminder`);
  });
});

describe('reference: silent-failure verdicts (part B)', () => {
  const TRACE = {
    id: 'trace',
    pattern: '^Traceback \\(most recent call last\\):',
    flags: 'm',
    action: 'error',
    message: 'Python raised an exception',
  };
  const WARN = { id: 'warn', pattern: 'WARNING: .*missing', action: 'context', message: 'a warning about something missing' };
  const SEG = { id: 'seg', pattern: 'Segmentation fault', action: 'error', when: 'always', message: 'the process crashed' };

  it('error: header, one line per rule in table order, then the original output', () => {
    const engine = engineWith([WARN, TRACE]);
    const text = 'step 1\nWARNING: font missing\nTraceback (most recent call last):\n  File "x.py"\nValueError: bad\n[exit code: 0]';
    const verdict = engine.observe(call('bash', { command: 'python x.py | tail' }), out(text));
    assert.deepEqual(verdict, {
      failure: {
        action: 'error',
        summary: 'bash: warn, trace',
        text:
          '[loud-failure] bash exited 0 but its output shows it failed:\n' +
          '- warn (line 2): a warning about something missing\n  > WARNING: font missing\n' +
          '- trace (line 3): Python raised an exception\n  > Traceback (most recent call last):\n' +
          `Original output:\n${text}`,
        rules: [
          { id: 'warn', message: 'a warning about something missing', line: 2, excerpt: 'WARNING: font missing' },
          { id: 'trace', message: 'Python raised an exception', line: 3, excerpt: 'Traceback (most recent call last):' },
        ],
      },
    });
  });

  it('context: the notice text, only context rules matched', () => {
    const verdict = engineWith([WARN]).observe(call('pwsh', {}), out('ok\n  WARNING: glyph missing  \t'));
    assert.deepEqual(verdict.failure, {
      action: 'context',
      summary: 'pwsh: warn',
      text: '[loud-failure] pwsh output may show a silent failure:\n- warn (line 2): a warning about something missing\n  > WARNING: glyph missing',
      rules: [{ id: 'warn', message: 'a warning about something missing', line: 2, excerpt: 'WARNING: glyph missing' }],
    });
  });

  it('`when: success` rules stay silent once the output shows failure; `always` rules then use the other header', () => {
    const engine = engineWith([TRACE, SEG]);
    const body = 'Traceback (most recent call last):\nSegmentation fault (core dumped)';
    const markers = [
      '[exit code: 1]',
      '[exit code: 139]',
      '[exit code: -1]',
      '[status: failed, exit code: 2]',
      '[sandbox: file access denied under read-only mode]',
      '[killed by signal: SIGSEGV]',
      '[timed out after 30000ms]',
      '[sandbox: file access denied under strict mode]\n[exit code: 0]',
      '[exit code: 2]\n\n  \r\n',
      '[timed out after 5000ms]\r',
      '[exit code: 99999999999999999999]',
    ];
    for (const marker of markers) {
      const verdict = engine.observe(call('bash', {}), out(`${body}\n${marker}`));
      assert.deepEqual(
        verdict.failure.rules.map((r) => r.id),
        ['seg'],
        marker,
      );
      assert.ok(verdict.failure.text.startsWith('[loud-failure] bash output shows a failure:\n- seg (line 2)'), marker);
    }
    const benigns = [
      '[exit code: 0]',
      '[status: completed, exit code: 0]',
      '[status: running]',
      '[exit code: 00]',
      '[exit code: +1]',
      'echo "[exit code: 1]" done',
      '[exit code: 1]\nthen it was fixed',
      '[killed by signal: SIGKILL]\n[exit code: x]',
    ];
    for (const benign of benigns) {
      const verdict = engine.observe(call('bash', {}), out(`${body}\n${benign}`));
      assert.deepEqual(
        verdict.failure.rules.map((r) => r.id),
        ['trace', 'seg'],
        benign,
      );
      // Only a zero exit code in the trailing markers lets the header say "exited 0".
      const zero = /^\[(?:status: \w+, )?exit code: 0+\]$/.test(benign);
      assert.ok(verdict.failure.text.startsWith(`[loud-failure] bash ${zero ? 'exited 0' : 'reported no error'} but`), benign);
    }
  });

  it('failure markers: only the trailing block counts (the cases of crates/toolguard-core/src/markers.rs)', () => {
    const yes = [
      'boom\n[exit code: 1]',
      'boom\n[exit code: 127]\n\n  \n',
      '[exit code: -1]',
      '\n[exit code: 1]\n',
      'x\n[sandbox: file access denied under read-only mode]\n[exit code: 0]',
      'x\n[timed out after 120000ms]',
      'x\n[killed by signal: SIGKILL]',
      '(no output)\n[timed out after 5000ms]\r\n',
      'out\n[status: exited, exit code: 2]',
      'x\n[exit code: 99999999999999999999]',
      '[exit code: 1]\n[exit code: 0]',
    ];
    const no = [
      '',
      '\n',
      '\n\n',
      'ok',
      'ok\n[exit code: 0]',
      'out\n[status: exited, exit code: 0]',
      'out\n[status: running]',
      'log says:\n[exit code: 1]\nthen it was fixed\n',
      '[exit code: 1] in prose',
      'x\n[exit code: one]',
      'x\n[exit code: +1]',
      'x\n[exit code: 00]',
      '[]',
    ];
    for (const text of yes) assert.equal(showsFailure(text), true, JSON.stringify(text));
    for (const text of no) assert.equal(showsFailure(text), false, JSON.stringify(text));
  });

  it('reports each rule once at its first match; line and excerpt rules', () => {
    const rule = { id: 'boom', pattern: 'boom', action: 'context', message: 'm' };
    const long = `${'😀'.repeat(150)}boom${'x'.repeat(100)}`;
    const verdict = engineWith([rule]).observe(call('bash', {}), out(`a\r\nb\n\n  ${long}  \nboom again`));
    assert.deepEqual(verdict.failure.rules, [{ id: 'boom', message: 'm', line: 4, excerpt: `${'😀'.repeat(150)}boom${'x'.repeat(46)}…` }]);
    const exact = `${'y'.repeat(196)}boom`;
    assert.equal(engineWith([rule]).observe(call('bash', {}), out(exact)).failure.rules[0].excerpt, exact, '200 chars: no cut');
    const first = engineWith([{ ...rule, pattern: '^', flags: 'm' }]).observe(call('bash', {}), out('\nx'));
    assert.deepEqual(first.failure.rules[0], { id: 'boom', message: 'm', line: 1, excerpt: '' }, 'an empty match at 0 on an empty line');
    const crlf = engineWith([{ ...rule, pattern: 'z' }]).observe(call('bash', {}), out('a\r\nz \r\n'));
    assert.deepEqual(crlf.failure.rules[0], { id: 'boom', message: 'm', line: 2, excerpt: 'z' });
    const nel = engineWith([{ ...rule, pattern: 'z' }]).observe(call('bash', {}), out('\u0085\u3000z\ufeff'));
    assert.equal(nel.failure.rules[0].excerpt, 'z\ufeff', 'trimmed like Rust str::trim (Unicode White_Space)');
  });

  it('an error rule wins over context rules; the action is per verdict', () => {
    const verdict = engineWith([WARN, TRACE]).observe(call('bash', {}), out('WARNING: x missing\nTraceback (most recent call last):'));
    assert.equal(verdict.failure.action, 'error');
    assert.equal(
      engineWith([WARN, { ...TRACE, action: 'off' }]).observe(
        call('bash', {}),
        out('WARNING: x missing\nTraceback (most recent call last):'),
      ).failure.action,
      'context',
    );
  });

  it('scans only shell tools, never error results, only text blocks', () => {
    const engine = engineWith([SEG], { shellTools: ['bash', 'mcp__*__run'] });
    const text = 'Segmentation fault';
    assert.equal(engine.observe(call('pwsh', {}), out(text)), null, 'not listed');
    assert.equal(engine.observe(call('bash', {}), { isError: true, ...out(text) }), null, 'error results');
    assert.ok(engine.observe(call('mcp__box__run', {}), out(text)), 'wildcard');
    assert.equal(engine.observe(call('mcp__box__run2', {}), out(text)), null, 'anchored');
    assert.equal(engine.observe(call('bash', {}), { content: [{ type: 'image', text }, { type: 'text' }] }), null, 'non-text blocks');
    const verdict = engine.observe(call('bash', {}), { content: [{ type: 'text', text: 'a' }, { type: 'image' }, { type: 'text', text }] });
    assert.equal(verdict.failure.rules[0].line, 2, 'text blocks joined with \\n');
    assert.ok(verdict.failure.text.endsWith('Original output:\na\nSegmentation fault'));
    assert.equal(engine.observe(call('bash', {}), { text }).failure.rules[0].line, 1, 'plain text');
    const both = engine.observe(call('bash', {}), { text: 'first', content: [{ type: 'text', text }] });
    assert.equal(both.failure.rules[0].line, 2, '`text` comes before the blocks');
    assert.ok(both.failure.text.endsWith('Original output:\nfirst\nSegmentation fault'));
    assert.equal(engine.observe(call('bash', {}), {}), null, 'no output');
  });

  it('scanValue appends the JSON of a successful value, kept out of the original output', () => {
    const rule = { id: 'v', pattern: '"status":"failed"', action: 'error', message: 'the value says failed' };
    const value = { status: 'failed' };
    assert.equal(engineWith([rule]).observe(call('bash', {}), { ...out('fine'), value }), null, 'off by default');
    const engine = engineWith([rule], { scanValue: true });
    const verdict = engine.observe(call('bash', {}), { ...out('fine'), value });
    assert.deepEqual(verdict.failure.rules, [{ id: 'v', message: 'the value says failed', line: 2, excerpt: '{"status":"failed"}' }]);
    assert.ok(verdict.failure.text.endsWith('Original output:\nfine'));
    assert.equal(engine.observe(call('bash', {}), { value }).failure.rules[0].line, 1, 'value alone');
    const nullRule = { id: 'n', pattern: '^null$', action: 'context', message: 'null value' };
    assert.equal(
      engineWith([nullRule], { scanValue: true }).observe(call('bash', {}), { value: null }).failure.rules[0].line,
      1,
      'null is a value',
    );
    assert.equal(engine.observe(call('bash', {}), { isError: true, ...out('fine'), value }), null);
  });

  it('observeAsync: input errors throw at once, the chain advances in call order, the promise holds the verdict', async () => {
    const engine = engineWith([{ id: 'seg', pattern: 'Segmentation fault', action: 'error', message: 'crash' }], {}, { thresholds: [2] });
    assert.throws(() => engine.observeAsync({ name: 'bash' }), { message: 'toolguard: exec.arguments or exec.argumentsJson is required' });
    const first = engine.observeAsync(call('bash', {}, 'a'), out('Segmentation fault'));
    const second = engine.observeAsync(call('bash', {}, 'a'), out('ok'));
    assert.deepEqual(await Promise.all([second, first]), [
      { reminder: { tool: 'bash', count: 2, text: GENTLE, summary: 'bash × 2' } },
      engineWith([{ id: 'seg', pattern: 'Segmentation fault', action: 'error', message: 'crash' }]).observe(
        call('bash', {}),
        out('Segmentation fault'),
      ),
    ]);
  });

  it('a call can carry a reminder and a failure together', () => {
    const engine = engineWith([SEG], {}, { thresholds: [2] });
    engine.observe(call('bash', { c: 1 }, 'a'), out('Segmentation fault'));
    const verdict = engine.observe(call('bash', { c: 1 }, 'a'), out('Segmentation fault'));
    assert.deepEqual(Object.keys(verdict), ['reminder', 'failure']);
    assert.equal(verdict.reminder.summary, 'bash × 2');
  });

  it('merges user rules by id: replace in place, append new, off disables', () => {
    assert.ok(BUILTINS.length >= 2, 'the built-in table has rules');
    const [first, second] = BUILTINS;
    const rules = [
      { id: 'zz-new', pattern: 'MARK', action: 'context', message: 'appended' },
      { id: second.id, pattern: 'MARK', action: 'context', message: 'replaced' },
      { id: first.id, pattern: 'MARK', action: 'context', message: 'replaced first' },
    ];
    const engine = new GuardEngine({ loudFailure: { rules: [...builtinsOff().slice(2), ...rules] } });
    const verdict = engine.observe(call('bash', {}), out('MARK'));
    assert.deepEqual(
      verdict.failure.rules.map((r) => [r.id, r.message]),
      [
        [first.id, 'replaced first'],
        [second.id, 'replaced'],
        ['zz-new', 'appended'],
      ],
    );
  });

  it('rule table errors name the rule', () => {
    const ok = { pattern: 'x', action: 'error', message: 'm' };
    const cases = [
      [
        [
          { id: 'a', ...ok },
          { id: 'a', ...ok },
        ],
        'loud-failure: rule a: two user rules have this id',
      ],
      [[{ id: 'r', ...ok, pattern: '(' }], /^loud-failure: rule r: invalid pattern: /],
      [[{ id: 'r', ...ok, flags: 'g' }], "loud-failure: rule r: flag 'g' is stateful (lastIndex) and is not supported"],
      [[{ id: 'r', ...ok, flags: 'iy' }], "loud-failure: rule r: flag 'y' is stateful (lastIndex) and is not supported"],
      [[{ id: 'r', ...ok, flags: 'd' }], "loud-failure: rule r: flag 'd' (match indices) is not supported"],
      [[{ id: 'r', ...ok, flags: 'v' }], "loud-failure: rule r: flag 'v' (unicodeSets) is not supported; use 'u'"],
      [[{ id: 'r', ...ok, flags: 'x' }], "loud-failure: rule r: unknown flag 'x'"],
      [[{ id: 'r', ...ok, flags: 'ii' }], "loud-failure: rule r: duplicate flag 'i'"],
      [[{ id: 'r', ...ok, message: '' }], 'loud-failure: rule r: `message` must not be empty'],
      [[{ id: 'r', ...ok, message: ' \t ' }], 'loud-failure: rule r: `message` must not be empty'],
      [[{ id: 'r', ...ok, action: 'off', pattern: '[' }], /^loud-failure: rule r: invalid pattern: /],
      [[{ id: '', ...ok }], 'loud-failure: config.loudFailure.rules[0]: `id` must not be empty'],
      [[{ ...ok }], 'toolguard: config.loudFailure.rules[0].id must be a string (got undefined)'],
      [['x'], 'toolguard: config.loudFailure.rules[0] must be a rule object (got string)'],
      [[{ id: 'r', action: 'error', message: 'm' }], 'loud-failure: rule r: `pattern` must be a string (got undefined)'],
      [[{ id: 'r', ...ok, action: 'loud' }], "loud-failure: rule r: `action` must be 'error', 'context' or 'off' (got \"loud\")"],
      [[{ id: 'r', ...ok, when: 'never' }], "loud-failure: rule r: `when` must be 'success' or 'always' (got \"never\")"],
      [
        [{ id: 'r', ...ok, flag: 'i' }],
        'loud-failure: rule r: unknown key `flag` (expected one of: id, pattern, flags, action, when, message, reason, unless)',
      ],
      [[{ id: 'r', ...ok, unless: 3 }], 'loud-failure: rule r: `unless` must be a string (got number)'],
      [[{ id: 'r', ...ok, unless: '' }], 'loud-failure: rule r: `unless` must not be empty (leave it out for no veto)'],
      [[{ id: 'r', ...ok, unless: '(' }], /^loud-failure: rule r: `unless`: invalid pattern: /],
      [[{ id: 'r', ...ok, flags: null }], 'loud-failure: rule r: `flags` must be a string (got null)'],
    ];
    for (const [rules, message] of cases) {
      assert.throws(
        () => new GuardEngine({ loudFailure: { rules } }),
        message instanceof RegExp ? { message: message } : { message },
        JSON.stringify(rules),
      );
    }
  });

  it('accepts lookaround and backreferences (JavaScript RegExp: the one intended difference)', () => {
    const engine = engineWith([
      { id: 'look', pattern: 'error(?!s? ?0)', action: 'context', message: 'an error' },
      { id: 'back', pattern: '(\\w+) \\1', action: 'context', message: 'doubled' },
    ]);
    assert.deepEqual(
      engine.observe(call('bash', {}), out('errors 0\nerror: x x')).failure.rules.map((r) => [r.id, r.line]),
      [
        ['look', 2],
        ['back', 2],
      ],
    );
  });

  it('bad input throws an Error naming the field', () => {
    const engine = new GuardEngine();
    const cases = [
      [{ arguments: {} }, {}, 'toolguard: exec.name must be a string (got undefined)'],
      [{ name: 1, arguments: {} }, {}, 'toolguard: exec.name must be a string (got number)'],
      [{ name: 'x', agentId: 7, arguments: {} }, {}, 'toolguard: exec.agentId must be a string (got number)'],
      [{ name: 'x', agentId: null, arguments: {} }, {}, 'toolguard: exec.agentId must be a string (got null)'],
      [{ name: 'x' }, {}, 'toolguard: exec.arguments or exec.argumentsJson is required'],
      [{ name: 'x', arguments: {}, argumentsJson: '{}' }, {}, 'toolguard: give exec.arguments or exec.argumentsJson, not both'],
      [{ name: 'x', argumentsJson: {} }, {}, 'toolguard: exec.argumentsJson must be a string (got object)'],
      [{ name: 'x', arguments: () => 1 }, {}, 'toolguard: exec.arguments is not JSON-serializable (JSON.stringify returned undefined)'],
      [
        { name: 'x', arguments: { n: 1n } },
        {},
        'toolguard: exec.arguments is not JSON-serializable: TypeError: Do not know how to serialize a BigInt',
      ],
      [{ name: 'bash', arguments: {} }, 7, 'toolguard: result must be an object or a string (got number)'],
      [{ name: 'bash', arguments: {} }, 'out', null],
      [{ name: 'bash', arguments: {} }, null, null],
      [{ name: 'bash', arguments: {} }, { content: 'x' }, 'toolguard: result.content must be an array (got string)'],
      [
        { name: 'bash', arguments: {} },
        { content: [{ type: 'text', text: 5 }] },
        'toolguard: result.content[0].text must be a string (got number)',
      ],
      [{ name: 'bash', arguments: {} }, { text: null }, 'toolguard: result.text must be a string (got null)'],
      [{ name: 'bash', arguments: {} }, { isError: 'no' }, 'toolguard: result.isError must be a boolean (got string)'],
      [{ name: 'bash', arguments: {} }, { value: { n: 1n } }, null],
      [null, {}, 'toolguard: exec must be an object (got null)'],
      [[], {}, 'toolguard: exec must be an object (got array)'],
    ];
    for (const [exec, result, message] of cases) {
      if (message === null) engine.observe(exec, result);
      else assert.throws(() => engine.observe(exec, result), { message, code: 'InvalidArg' }, message);
    }
    const scanning = new GuardEngine({ loudFailure: { scanValue: true } });
    assert.throws(() => scanning.observe({ name: 'bash', arguments: {} }, { value: { n: 1n } }), {
      message: 'toolguard: result.value is not JSON-serializable: TypeError: Do not know how to serialize a BigInt',
    });
    // Results of tools that are not scanned, and error results, are not read further.
    engine.observe({ name: 'read', arguments: {} }, { content: 'x' });
    engine.observe({ name: 'bash', arguments: {} }, { isError: true, content: 'x' });
    engine.observe({ name: 'bash', arguments: {} });
    assert.throws(() => new GuardEngine({ repeat: { include: [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[['x']]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]] } }), {
      message: 'toolguard: config is nested too deeply',
    });
    assert.throws(() => engine.reset(1), { message: 'toolguard: agentId must be a string (got number)' });
    assert.throws(() => engine.forget(undefined), { message: 'toolguard: agentId must be a string (got undefined)' });
  });

  it('the call is checked before the chain moves; a bad result is found after', () => {
    const engine = new GuardEngine({ repeat: { thresholds: [2] } });
    assert.throws(() => engine.observe({ name: 'bash', agentId: 'a', arguments: {} }, { text: 1 }));
    assert.equal(engine.observe({ name: 'bash', agentId: 'a', arguments: {} }, {}).reminder.count, 2, 'the bad-result call counted');
    assert.throws(() => engine.observe({ name: 'bash', agentId: 'a', argumentsJson: 1 }, {}));
    assert.equal(engine.observe({ name: 'bash', agentId: 'a', arguments: {} }, {}), null, 'the bad call did not');
  });

  it('parsed arguments are keyed by their JSON: toJSON and dropped undefined fields count', () => {
    const engine = new GuardEngine({ repeat: { thresholds: [3] } });
    engine.observe(call('f', { when: new Date(0), skip: undefined }, 'a'), {});
    engine.observe({ agentId: 'a', name: 'f', argumentsJson: '{"when":"1970-01-01T00:00:00.000Z"}' }, {});
    assert.equal(engine.observe(call('f', { when: '1970-01-01T00:00:00.000Z' }, 'a'), {}).reminder.count, 3);
  });
});

describe('reference: built-in rules on their fixtures', () => {
  const engine = new GuardEngine();
  const variantsFile = path.join(FIXTURES, 'variants.json');
  const variants = existsSync(variantsFile) ? JSON.parse(readFileSync(variantsFile, 'utf8')) : {};
  // Rules that count only with a command (rules/programs.json `commandRules`)
  // are scanned after a command that satisfies them: a download for the HTTP
  // rules, the programs the text's `prog: message` lines name for program-message.
  const commandRules = require('../rules/programs.json').commandRules ?? {};
  const commandFor = (id, text) => {
    const need = commandRules[id];
    if (need === undefined) return {};
    // A list: any of its needs; an `effect:` need names the effects.
    const needs = Array.isArray(need) ? need : [need];
    const effects = needs.flatMap((n) => (n.startsWith('effect:') ? n.slice('effect:'.length).split(',') : []));
    if (effects.includes('network')) return { command: 'curl -s http://localhost:8000/api' };
    if (effects.includes('run')) return { command: 'python check.py' };
    if (effects.includes('test')) return { command: 'python -m pytest' };
    const programs = text
      .split('\n')
      .map((l) => /^\s*([^\s:]+):/.exec(l)?.[1])
      .filter((p) => p !== undefined && !p.startsWith('('));
    return { command: programs.length === 0 ? 'true' : programs.join(' ; ') };
  };
  const reportedBy = (id) => (text) => engine.observe(call('bash', commandFor(id, text)), out(text))?.failure?.rules.map((r) => r.id) ?? [];
  for (const rule of BUILTINS) {
    for (const kind of ['pos', 'neg']) {
      const file = path.join(FIXTURES, `${rule.id}.${kind}.txt`);
      it(`${rule.id} ${kind === 'pos' ? 'fires on' : 'stays silent on'} ${path.basename(file)}`, {
        skip: !existsSync(file) && 'fixture missing',
      }, () => {
        const ids = reportedBy(rule.id)(readFileSync(file, 'utf8'));
        assert.equal(ids.includes(rule.id), kind === 'pos', `reported: ${ids.join(', ') || 'nothing'}`);
      });
    }
    it(`${rule.id} agrees with its variant lines`, { skip: !variants[rule.id] && 'no variant lines' }, () => {
      const reported = reportedBy(rule.id);
      for (const line of variants[rule.id].match) assert.ok(reported(line).includes(rule.id), `should fire on ${JSON.stringify(line)}`);
      for (const line of variants[rule.id].nomatch)
        assert.ok(!reported(line).includes(rule.id), `should not fire on ${JSON.stringify(line)}`);
    });
  }
});

// ---------------------------------------------------------------------------
// Differential: native GuardEngine vs the reference, identical verdicts.

function loadNative() {
  try {
    const native = require('../index.js');
    if (typeof native.GuardEngine !== 'function') return { skip: 'index.js has no GuardEngine export' };
    return { native };
  } catch (error) {
    return { skip: `native addon not loadable: ${error.message.split('\n')[0]}` };
  }
}

/** Shell outputs: every rule fixture, plus markers and lookalikes, cut and combined by the generator. */
function fixtureTexts() {
  const texts = existsSync(FIXTURES)
    ? readdirSync(FIXTURES)
        .filter((f) => f.endsWith('.txt'))
        .sort()
        .map((f) => readFileSync(path.join(FIXTURES, f), 'utf8'))
    : [];
  const variantsFile = path.join(FIXTURES, 'variants.json');
  if (existsSync(variantsFile)) {
    for (const { match, nomatch } of Object.values(JSON.parse(readFileSync(variantsFile, 'utf8')))) texts.push(...match, ...nomatch);
  }
  return [
    ...texts,
    '',
    '(no output)',
    'all good\n',
    'Segmentation fault (core dumped)',
    'Traceback (most recent call last):\n  File "a.py", line 1\nKeyError: 1',
    'bash: foo: command not found',
    'ok 😀 ünïcode\r\nsecond line\twith tab',
  ];
}

/** Harness marker lines and lookalikes; the generator puts them at the end and in the middle. */
const MARKER_LINES = [
  '[exit code: 1]',
  '[exit code: 0]',
  '[exit code: -3]',
  '[exit code: 00]',
  '[status: failed, exit code: 2]',
  '[status: done, exit code: 0]',
  '[status: running]',
  '[sandbox: file access denied under read-only mode]',
  '[killed by signal: SIGKILL]',
  '[timed out after 1000ms]',
  '[stderr]',
  'warning: retrying',
  '',
];

/**
 * Whitespace put around every line: where Rust's `trim` and JavaScript's
 * differ (U+0085, U+FEFF) and where they agree. CR and U+2028 are left out:
 * under `m` they are documented dialect divergences (crates/toolguard-core/src/rules/dialect.rs).
 */
/** Escape sequences a coloured line starts and ends with (CSI, OSC 8 links, charset, malformed). */
const ANSI_WRAPS = [
  ['\x1b[31m', '\x1b[0m'],
  ['\x1b[1;31m', '\x1b[m'],
  ['\x1b]8;;file:///x\x1b\\', '\x1b]8;;\x07'],
  ['\x1b(B\x1b[m', '\x1b[K'],
  ['\x1b[2K\x1b[1G', '\x1b'],
  ['\x1b[', '\x1b]0;title'],
];
const LINE_PADDING = ['', ' ', '\t', '\u0085', '\ufeff', '\u00a0 ', '\u3000'];

const CONFIGS = [
  undefined,
  { repeat: { thresholds: [2, 4], argumentsPreviewChars: 12 } },
  { repeat: { include: ['bash', 'read*'], exclude: ['read.x'] }, loudFailure: { scanValue: true, shellTools: ['bash', 'job_*'] } },
  {
    repeat: { thresholds: [5, 2, 3] },
    loudFailure: {
      rules: [
        { id: 'user-ctx', pattern: '\\bwarn(ing)?\\b', flags: 'i', action: 'context', message: 'a warning' },
        { id: 'user-always', pattern: '^\\s*at \\S+ \\(', flags: 'm', action: 'error', when: 'always', message: 'a stack frame' },
        {
          id: 'python-traceback',
          pattern: 'Traceback \\(most recent call last\\):',
          action: 'error',
          when: 'always',
          message: 'replaced in place',
        },
        { id: 'git-fatal', pattern: 'unused', action: 'off', message: 'switched off' },
      ],
    },
  },
  {
    // `unless`: user vetoes, with and without `m` (the window is searched on its own).
    loudFailure: {
      rules: [
        {
          id: 'user-veto',
          pattern: "^[a-z]+: (?:cannot|can't) [^\n]*$",
          flags: 'm',
          action: 'error',
          message: 'cannot',
          unless: '^```|[Rr]etrying|\\(ignored\\)$',
        },
        { id: 'user-veto-s', pattern: 'error:?[^\n]*\n[^\n]*', flags: 'i', action: 'context', message: 'error', unless: '^\\S|\\bok$' },
        {
          id: 'c-library-error',
          pattern: ': No such file or directory$',
          flags: 'm',
          action: 'error',
          message: 'replaced, its veto with it',
        },
      ],
    },
  },
];

// What a user may say (the task) and outputs with exception lines: the
// user-reported signal of shell/intent.rs, compared in the sequences below.
const USER_TEXTS = [
  'Combining fails:\n```\nRuntimeError: Dropped elements in sequence 3 at /tmp/x.py\n```',
  'Please fix the error: Unable to load file src/__init__.py in the parser',
  'Add a --verbose flag.',
  `ΣΑΣ Error ${'word '.repeat(80)}`,
];
const REPORT_OUTPUTS = [
  'Traceback (most recent call last):\n  File "repro.py", line 2, in <module>\nRuntimeError: Dropped elements in sequence 9 at /t/a.py',
  "Traceback (most recent call last):\n  File \"repro.py\", line 2, in <module>\nAttributeError: 'Q' object has no attribute 'as_sql'\nError: 'Q' object has no attribute 'as_sql'",
  'Traceback (most recent call last):\n  File "repro.py", line 2, in <module>\nError: AstroidBuildingError: Unable to load file /tmp/p/src:',
  'E   KeyError: 3\nError: \nmyapp.errors.ParseException',
];

describe('differential: native GuardEngine vs reference', () => {
  const { native, skip } = loadNative();

  it('canonicalize agrees on generated JSON', { skip }, () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.json(), fc.string(), fc.constantFrom('', ' ', '{', '{"9":1,"10":2,"a":[1e21,-0,5e-7]}', '{"__proto__":{"x":1},"b":2}')),
        (text) => {
          assert.equal(native.canonicalize(text), canonicalize(text));
        },
      ),
      { numRuns: 3000, seed: 7 },
    );
  });

  it('identical verdicts over ≥2,000 generated call sequences', { skip }, (t) => {
    const texts = fixtureTexts();
    const segment = fc.oneof(
      // noBias: fast-check favours small and extreme indices, so a text in the
      // middle of a long list could go unsampled and its rule never be compared.
      { weight: 3, arbitrary: fc.noBias(fc.nat({ max: texts.length - 1 })).map((i) => texts[i]) },
      { weight: 1, arbitrary: fc.constantFrom(...MARKER_LINES) },
      // Exception lines a user may have reported (shell/intent.rs `SessionReports`).
      { weight: 1, arbitrary: fc.constantFrom(...REPORT_OUTPUTS) },
      // A fixture as a coloured terminal printed it (scans strip ANSI escapes).
      {
        weight: 1,
        arbitrary: fc.tuple(fc.noBias(fc.nat({ max: texts.length - 1 })), fc.constantFrom(...ANSI_WRAPS)).map(([i, [on, off]]) =>
          texts[i]
            .split('\n')
            .map((line) => `${on}${line}${off}`)
            .join('\n'),
        ),
      },
    );
    const text = fc
      .record({
        body: fc.array(segment, { minLength: 1, maxLength: 3 }),
        tail: fc.array(fc.constantFrom(...MARKER_LINES), { maxLength: 2 }),
        pad: fc.constantFrom(...LINE_PADDING),
        newline: fc.boolean(),
      })
      .map(({ body, tail, pad, newline }) => {
        let joined = [...body, ...tail].join('\n');
        if (pad !== '')
          joined = joined
            .split('\n')
            .map((line) => `${pad}${line}${pad}`)
            .join('\n');
        return newline ? `${joined}\n` : joined;
      });
    const result = fc.oneof(
      text.map((t) => ({ content: [{ type: 'text', text: t }] })),
      fc.tuple(text, text).map(([a, b]) => ({ content: [{ type: 'text', text: a }, { type: 'image' }, { type: 'text', text: b }] })),
      text.map((t) => ({ text: t })),
      text.map((t) => ({ isError: true, content: [{ type: 'text', text: t }] })),
      fc
        .tuple(text, fc.constantFrom({ ok: true }, { status: 'failed', log: 'Segmentation fault' }, ['a', 1]))
        .map(([t, value]) => ({ content: [{ type: 'text', text: t }], value })),
    );
    const args = fc.oneof(
      fc
        .constantFrom(
          '{}',
          '',
          '{"command":"ls -la src"}',
          '{ "command" : "ls -la src" }',
          '{"command":"make -C src"}',
          '{"command":"curl -s https://api.example.com/v1/x"}',
          '{bad',
          '[1,2]',
          '{"b":1,"a":2}',
          '{"a":2,"b":1}',
        )
        .map((json) => ({ argumentsJson: json })),
      // Commands the command-aware scan reads (shell/intent.rs): a download, a
      // display, a probe, a hidden status, a script written then run.
      fc
        .constantFrom(
          'curl -s http://localhost:8000/api/items',
          'curl -si http://localhost:8000/api/items/7',
          'curl -s -X POST http://127.0.0.1:5000/jobs',
          'cat build.log | tail -20',
          'unzip release.zip; echo done',
          "python -c 'try:\n import x\nexcept Exception as e: print(e)'",
          'cat > repro.py << EOF\nimport x\nEOF\npython repro.py',
          'python repro.py',
          'make test || true',
          'grep -rn error logs/',
          // A fallback that did or did not run (an unanswered `|| echo` is no probe).
          'curl -s http://localhost:8081/graph/stats | python3 -m json.tool 2>/dev/null || echo "No stats endpoint"',
          'curl -s "$URL" || echo "no answer from $URL"',
          'ls logs || echo "no logs yet"',
          'make build || echo "Build failed."',
          'objdump -d a.out 2>&1 | head -n 5; echo done',
          'sh jobs/build.sh 2>&1 | tail -n 2',
        )
        .map((command) => ({ argumentsJson: JSON.stringify({ command }) })),
      fc.constantFrom({}, { command: 'ls -la src' }, { a: 2, b: 1 }, { path: 'x'.repeat(40) }).map((value) => ({ arguments: value })),
      fc.json({ maxDepth: 2 }).map((json) => ({ argumentsJson: json })),
    );
    const step = fc.oneof(
      {
        weight: 10,
        arbitrary: fc.record({
          kind: fc.constant('call'),
          agentId: fc.constantFrom('a', 'b', 'c', undefined),
          name: fc.constantFrom('bash', 'pwsh', 'job_output', 'job_status', 'read', 'read.x', 'grep'),
          args,
          result,
          times: fc.integer({ min: 1, max: 5 }),
        }),
      },
      { weight: 1, arbitrary: fc.record({ kind: fc.constantFrom('reset', 'forget'), agentId: fc.constantFrom('a', 'b', 'c') }) },
      {
        weight: 1,
        arbitrary: fc.record({
          kind: fc.constant('noteUserText'),
          agentId: fc.constantFrom('a', 'b', 'c'),
          text: fc.constantFrom(...USER_TEXTS),
        }),
      },
    );
    let sequences = 0;
    let calls = 0;
    let verdicts = 0;
    let reminders = 0;
    let alreadyFailed = 0;
    const actions = { error: 0, context: 0 };
    const ruleIds = new Set();
    // Each built-in's whole positive fixture once, as a bash output: a rule
    // that needs its match to end the output (a stack trace) rarely fires in
    // the random sequences below, which add markers and padding around texts.
    const { commandRules } = JSON.parse(readFileSync(new URL('../rules/programs.json', import.meta.url), 'utf8'));
    for (const rule of BUILTINS) {
      // A rule that counts only with a command gets one it counts with.
      const fixtureText = readFileSync(path.join(FIXTURES, `${rule.id}.pos.txt`), 'utf8');
      const command = !Object.hasOwn(commandRules, rule.id)
        ? undefined
        : commandRules[rule.id] === 'program-ran'
          ? `${fixtureText.trimStart().split(/[:\s]/)[0]} x`
          : 'curl -s https://api.example.com/v1/x';
      const exec = { name: 'bash', argumentsJson: command === undefined ? '{}' : JSON.stringify({ command }) };
      const result = { content: [{ type: 'text', text: readFileSync(path.join(FIXTURES, `${rule.id}.pos.txt`), 'utf8') }] };
      const expected = new GuardEngine().observe(exec, result);
      assert.deepEqual(normalize(new native.GuardEngine().observe(exec, result)), expected, `${rule.id}.pos.txt`);
      for (const hit of expected?.failure?.rules ?? []) ruleIds.add(hit.id);
    }
    fc.assert(
      fc.property(fc.nat({ max: CONFIGS.length - 1 }), fc.array(step, { minLength: 1, maxLength: 12 }), (configIndex, steps) => {
        const config = CONFIGS[configIndex];
        const ours = new GuardEngine(config);
        const theirs = new native.GuardEngine(config);
        for (const s of steps) {
          if (s.kind !== 'call') {
            ours[s.kind](s.agentId, s.text);
            theirs[s.kind](s.agentId, s.text);
            continue;
          }
          const exec = { name: s.name, ...s.args, ...(s.agentId === undefined ? {} : { agentId: s.agentId }) };
          for (let i = 0; i < s.times; i++) {
            const expected = ours.observe(exec, s.result);
            assert.deepEqual(normalize(theirs.observe(exec, s.result)), expected);
            calls++;
            if (expected !== null) verdicts++;
            if (expected?.reminder) reminders++;
            if (expected?.failure) {
              actions[expected.failure.action]++;
              if (expected.failure.text.includes('output shows a failure:')) alreadyFailed++;
              for (const hit of expected.failure.rules) ruleIds.add(hit.id);
            }
          }
        }
        sequences++;
      }),
      { numRuns: 2500, seed: 424242 },
    );
    t.diagnostic(
      `${sequences} sequences, ${calls} calls, ${verdicts} verdicts: ${reminders} reminders, ` +
        `${actions.error} error + ${actions.context} context failures (${alreadyFailed} after a failure marker), ` +
        `${ruleIds.size} rule ids hit`,
    );
    assert.ok(sequences >= 2000, `${sequences} sequences`);
    // A floor, not a target: `alreadyFailed` needs a `when: 'always'` user rule's stack-frame line and a
    // failure marker in one output, so it falls as the fixture pool grows (12 with the `.vetoed` fixtures).
    assert.ok(reminders > 500 && actions.error > 500 && actions.context > 50 && alreadyFailed >= 10, 'every verdict kind is compared');
    const builtinIds = BUILTINS.filter((rule) => rule.action !== 'off').map((rule) => rule.id);
    const missed = builtinIds.filter((id) => !ruleIds.has(id));
    assert.deepEqual(missed, [], 'every built-in rule fired at least once');
  });

  it('bad input: both engines throw the same message, at the same point of the chain', { skip }, () => {
    const cyclic = { a: [1] };
    cyclic.a.push(cyclic);
    const calls = [
      [{ arguments: {} }, {}],
      [{ name: 1, arguments: {} }, {}],
      [{ name: 'x', agentId: 7, arguments: {} }, {}],
      [{ name: 'x', agentId: null, arguments: {} }, {}],
      [{ name: 'x', agentId: 'a' }, {}],
      [{ name: 'x', agentId: 'a', arguments: {}, argumentsJson: '{}' }, {}],
      [{ name: 'x', argumentsJson: {} }, {}],
      [{ name: 'x', arguments: () => 1 }, {}],
      [{ name: 'x', arguments: Symbol('s') }, {}],
      [{ name: 'x', arguments: { n: 1n } }, {}],
      [{ name: 'x', arguments: cyclic }, {}],
      [{ name: 'bash', agentId: 'a', arguments: {} }, 'out'],
      [{ name: 'bash', agentId: 'a', arguments: {} }, null],
      [{ name: 'bash', agentId: 'a', arguments: {} }, { content: 'x' }],
      [{ name: 'bash', agentId: 'a', arguments: {} }, { content: null }],
      [{ name: 'bash', agentId: 'a', arguments: {} }, { content: [{ type: 'text', text: 5 }] }],
      [{ name: 'bash', agentId: 'a', arguments: {} }, { content: [null, 1, { type: 'text' }, { type: 'img', text: 2 }] }],
      [{ name: 'bash', agentId: 'a', arguments: {} }, { text: null }],
      [
        { name: 'bash', agentId: 'a', arguments: {} },
        { isError: 'no', text: 5 },
      ],
      [
        { name: 'bash', agentId: 'a', arguments: {} },
        { isError: true, text: 5, content: 'x' },
      ],
      [{ name: 'bash', agentId: 'a', arguments: {} }, { value: { n: 1n } }],
      [{ name: 'bash', agentId: 'a', arguments: {} }, { value: () => 1 }],
      [{ name: 'read', agentId: 'a', arguments: {} }, 'not read'],
      [null, {}],
      [[], {}],
      ['x', {}],
    ];
    for (const config of [{ repeat: { thresholds: [2] } }, { repeat: { thresholds: [2] }, loudFailure: { scanValue: true } }]) {
      const ours = new GuardEngine(config);
      const theirs = new native.GuardEngine(config);
      for (const [exec, result] of calls) {
        const outcome = (engine) => {
          try {
            return { verdict: normalize(engine.observe(exec, result)) };
          } catch (error) {
            return { error: error.message, code: error.code };
          }
        };
        const label = `${String(exec?.name)} ${typeof result === 'object' && result ? Object.keys(result) : String(result)}`;
        assert.deepEqual(outcome(theirs), outcome(ours), label);
        // The chain state after the call tells whether the call counted before it threw.
        const probe = { name: 'bash', agentId: 'a', arguments: {} };
        assert.deepEqual(normalize(theirs.observe(probe)), ours.observe(probe), `after ${label}`);
      }
    }
  });

  // Known divergence, kept visible: observe() reads argumentsJson (and names)
  // through a UTF-8 conversion that turns a lone surrogate into U+FFFD, while
  // the official plugin (and canonicalize()) keep it. Two calls differing only
  // in which lone surrogate they carry then share a chain natively.
  it('lone surrogates in observe() inputs', { skip }, () => {
    const config = { repeat: { thresholds: [2, 3], argumentsPreviewChars: 4 } };
    const ours = new GuardEngine(config);
    const theirs = new native.GuardEngine(config);
    for (const argumentsJson of ['"\ud800x"', '"\ud800x"', '"\udc00x"', '{"k":"\ud800"}', '{"k":"\ud800"}', '{"k":"\ud800"}']) {
      const exec = { agentId: 'a', name: 'tool', argumentsJson };
      assert.deepEqual(normalize(theirs.observe(exec)), ours.observe(exec), JSON.stringify(argumentsJson));
    }
  });

  /** Sixty calls over two agents and three tools, through observeAsync; `concurrent` leaves them all pending at once. */
  async function observeAsyncBoth(concurrent) {
    const texts = fixtureTexts();
    for (const config of CONFIGS) {
      const ours = new GuardEngine(config);
      const theirs = new native.GuardEngine(config);
      const pending = [];
      for (let i = 0; i < 60; i++) {
        const exec = { agentId: ['a', 'b'][i % 2], name: ['bash', 'pwsh', 'read'][i % 3], argumentsJson: `{"n":${Math.floor(i / 6)}}` };
        const result = { content: [{ type: 'text', text: texts[(i * 7) % texts.length] }] };
        const both = Promise.all([theirs.observeAsync(exec, result), ours.observeAsync(exec, result)]);
        pending.push(concurrent ? both : await both);
      }
      for (const [fromNative, fromReference] of await Promise.all(pending)) assert.deepEqual(normalize(fromNative), fromReference);
    }
  }

  it('observeAsync agrees, one call at a time', { skip }, () => observeAsyncBoth(false));

  // Chains advance in call order "whatever order their scans finish in".
  it('observeAsync agrees with many calls pending at once', { skip }, () => observeAsyncBoth(true));

  it('a rule switched off needs only its id, in both engines', { skip }, () => {
    // README "Rules": `{ id, action: 'off' }` switches a built-in off.
    const config = { loudFailure: { rules: [{ id: 'make-error', action: 'off' }] } };
    const exec = { name: 'bash', agentId: 'a', argumentsJson: '{"command":"make"}' };
    const output = { text: 'cc -c x.c\nmake: *** [Makefile:3: x.o] Error 1\n[exit code: 0]' };
    const verdicts = [new GuardEngine(config), new native.GuardEngine(config)].map((engine) => normalize(engine.observe(exec, output)));
    assert.deepEqual(verdicts[0], verdicts[1]);
    assert.ok(!JSON.stringify(verdicts[1] ?? {}).includes('make-error'), JSON.stringify(verdicts[1]));
  });

  it('config errors: both engines reject the same configs with the same message', { skip }, () => {
    const bad = [
      'x',
      { repeat: { thresholds: [] } },
      { repeat: { thresholds: [1] } },
      { repeat: { thresholds: [3, 3] } },
      { repeat: { argumentsPreviewChars: 0.5 } },
      { repeat: { include: [1] } },
      { loudFailure: { rules: [{ id: 'r', pattern: 'x', action: 'error', message: 'm', flags: 'g' }] } },
      { loudFailure: { rules: [{ id: 'r', pattern: 'x', action: 'error', message: '' }] } },
      { loudFailure: { rules: [{ id: 'r', pattern: 'x', action: 'nope', message: 'm' }] } },
      {
        loudFailure: {
          rules: [
            { id: 'r', pattern: 'x', action: 'error', message: 'm' },
            { id: 'r', pattern: 'y', action: 'error', message: 'm' },
          ],
        },
      },
      { loudFailure: { rules: [{ id: 'r', pattern: '(', action: 'error', message: 'm' }] } },
      { loudFailure: { rules: [{ id: 'r', pattern: 'x', action: 'error', message: 'm', unless: 3 }] } },
      { loudFailure: { rules: [{ id: 'r', pattern: 'x', action: 'error', message: 'm', unless: '' }] } },
      { loudFailure: { rules: [{ id: 'r', pattern: 'x', action: 'error', message: 'm', unless: '(' }] } },
      { loudFailure: { rules: [{ id: 'r', pattern: 'x', action: 'error', message: 'm', flag: 'i' }] } },
      { loudFailure: { rules: [{ id: 'r', pattern: '', action: 'error', message: 'm' }] } },
      { loudFailure: { rules: [{ id: 'r', action: 'error', message: 'm' }] } },
      { loudFailure: { rules: [{ id: 'r', pattern: 'x', action: 'error' }] } },
    ];
    for (const config of bad) {
      let message;
      assert.throws(
        () => new GuardEngine(config),
        (error) => {
          message = error.message;
          return true;
        },
      );
      assert.throws(
        () => new native.GuardEngine(config),
        (error) => {
          // Regex syntax errors come from two different parsers: compare up to the reason.
          const at = message.indexOf('invalid pattern: ');
          if (at === -1) assert.equal(error.message, message, JSON.stringify(config));
          else assert.ok(error.message.startsWith(message.slice(0, at)), `${error.message} vs ${message}`);
          return true;
        },
      );
    }
  });
});

/** napi objects may carry `undefined` for absent optional fields; the reference omits them. */
function normalize(verdict) {
  if (verdict === null || verdict === undefined) return null;
  const out = {};
  if (verdict.reminder !== undefined && verdict.reminder !== null) out.reminder = { ...verdict.reminder };
  if (verdict.failure !== undefined && verdict.failure !== null) {
    out.failure = { ...verdict.failure, rules: verdict.failure.rules.map((r) => ({ ...r })) };
  }
  return out;
}

describe('reference engine: exact mode is native only, and says so', () => {
  it('exactCall runs every call as written; a config asking for exactMode warns once per process', async () => {
    const warnings = [];
    const onWarning = (w) => warnings.push(w);
    process.on('warning', onWarning);
    try {
      for (let i = 0; i < 2; i++) {
        const engine = new GuardEngine({ exactMode: true });
        assert.equal(engine.exactCall({ name: 'bash', arguments: { command: 'make | tail -1' } }), null);
      }
      assert.equal(new GuardEngine({}).exactCall({ name: 'bash', arguments: { command: 'make | tail' } }), null);
      await new Promise((r) => setImmediate(r));
    } finally {
      process.off('warning', onWarning);
    }
    const ours = warnings.filter((w) => w.code === 'TOOLGUARD_EXACT_MODE_NATIVE_ONLY');
    assert.equal(ours.length, 1, warnings.map(String).join('\n'));
    assert.match(ours[0].message, /exactMode needs the native engine/);
  });
});
