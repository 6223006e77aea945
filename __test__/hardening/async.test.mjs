// observeAsync: the scan runs on a libuv pool thread, the chain advances
// synchronously in call order. Same verdicts as observe; per-agent order
// holds however the scans finish; bad input throws at the call; the DSH
// plugin sends large outputs through it with the same decision.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import fc from 'fast-check';
import { boot, textTool } from '../dsh/kit.mjs';

const require = createRequire(import.meta.url);
const { GuardEngine } = require('../../index.js');

const fixtures = new URL('../fixtures/rules/', import.meta.url);
const TEXTS = readdirSync(fixtures)
  .sort()
  .map((f) => readFileSync(new URL(f, fixtures), 'utf8'));
const MARKERS = ['', '\n[exit code: 0]', '\n[exit code: 2]', '\n[killed by signal: SIGSEGV]'];
const TRACEBACK = 'Traceback (most recent call last):\n  File "job.py", line 3\nKeyError: 1';

/** @type {import('toolguard').GuardConfig[]} */
const CONFIGS = [
  {},
  { repeat: { thresholds: [2, 4], argumentsPreviewChars: 12 }, loudFailure: { scanValue: true } },
  {
    repeat: { exclude: ['read'] },
    loudFailure: {
      shellTools: ['bash', 'job_*'],
      rules: [
        { id: 'python-traceback', pattern: '^Traceback', flags: 'm', action: 'context', when: 'always', message: 'demoted' },
        { id: 'user-warn', pattern: '\\bwarn(ing)?\\b', flags: 'i', action: 'context', when: 'success', message: 'a warning' },
      ],
    },
  },
];

test('observeAsync resolves to exactly what observe returns (generated call sequences)', async () => {
  const text = fc.tuple(fc.nat({ max: TEXTS.length - 1 }), fc.constantFrom(...MARKERS)).map(([i, marker]) => TEXTS[i] + marker);
  const step = fc.record({
    agentId: fc.constantFrom('a', 'b', undefined),
    name: fc.constantFrom('bash', 'pwsh', 'job_output', 'read', 'grep'),
    argumentsJson: fc.constantFrom('{}', '{"command":"make"}', '{"b":1,"a":2}', '{"a":2,"b":1}', '{bad'),
    result: fc.oneof(
      text.map((t) => ({ content: [{ type: 'text', text: t }, { type: 'image' }, { type: 'text', text: 'tail' }] })),
      text.map((t) => ({ text: t })),
      text.map((t) => ({ isError: true, content: [{ type: 'text', text: t }] })),
      fc.tuple(text, fc.constantFrom({ ok: 1 }, { log: 'npm ERR! code E404' })).map(([t, value]) => ({ text: t, value })),
      fc.constant(undefined),
    ),
    times: fc.integer({ min: 1, max: 4 }),
  });
  let calls = 0;
  let verdicts = 0;
  await fc.assert(
    fc.asyncProperty(fc.nat({ max: CONFIGS.length - 1 }), fc.array(step, { minLength: 1, maxLength: 10 }), async (c, steps) => {
      const sync = new GuardEngine(CONFIGS[c]);
      const async_ = new GuardEngine(CONFIGS[c]);
      for (const s of steps) {
        const exec = { name: s.name, argumentsJson: s.argumentsJson, ...(s.agentId ? { agentId: s.agentId } : {}) };
        for (let i = 0; i < s.times; i++) {
          const expected = sync.observe(exec, s.result);
          assert.deepEqual(await async_.observeAsync(exec, s.result), expected);
          calls++;
          if (expected) verdicts++;
        }
      }
    }),
    { numRuns: 300, seed: 20260601 },
  );
  assert.ok(verdicts > 200, `${verdicts} non-null verdicts in ${calls} calls`);
});

test('the chain advances at the call, in call order, whatever order the scans finish in', async () => {
  const engine = new GuardEngine({ repeat: { thresholds: [2, 3, 5] } });
  const big = { content: [{ type: 'text', text: `${'ok\n'.repeat(3_000_000)}${TRACEBACK}` }] };
  const small = { content: [{ type: 'text', text: 'ok' }] };
  const exec = (agentId) => ({ agentId, name: 'bash', argumentsJson: '{"command":"make"}' });
  const finished = [];
  // A slow scan first, fast ones after, for two agents interleaved; none awaited yet.
  const pending = [
    ['a', big],
    ['b', small],
    ['a', small],
    ['a', small],
    ['b', small],
    ['a', big],
    ['a', small],
  ].map(([agent, result], i) =>
    engine.observeAsync(exec(agent), result).then((v) => {
      finished.push(i);
      return v;
    }),
  );
  // A synchronous call right after sees the chain already advanced by all of them.
  const now = engine.observe(exec('b'), small);
  assert.equal(now.reminder.count, 3);
  const verdicts = await Promise.all(pending);
  assert.deepEqual(
    verdicts.map((v) => [v?.reminder?.count ?? null, v?.failure?.summary ?? null]),
    [
      [null, 'bash: python-traceback'], // a1
      [null, null], // b1
      [2, null], // a2
      [3, null], // a3
      [2, null], // b2
      [null, 'bash: python-traceback'], // a4
      [5, null], // a5
    ],
  );
  assert.equal(finished.length, 7);
});

test('observe, reset, forget and agentCount work while scans are in flight', async () => {
  const engine = new GuardEngine({ repeat: { thresholds: [2] } });
  const big = { text: `${'ok\n'.repeat(2_000_000)}${TRACEBACK}` };
  const exec = (agentId) => ({ agentId, name: 'bash', argumentsJson: '{}' });
  const inFlight = [engine.observeAsync(exec('a'), big), engine.observeAsync(exec('b'), big)];
  assert.equal(engine.agentCount, 2);
  engine.reset('a');
  assert.equal(engine.observe(exec('a')), null, 'reset: the chain of a starts over');
  assert.equal(engine.observe(exec('a')).reminder.count, 2);
  engine.forget('b');
  assert.equal(engine.agentCount, 1);
  const verdicts = await Promise.all(inFlight);
  assert.deepEqual(
    verdicts.map((v) => [v.reminder ?? null, v.failure.summary]),
    [
      [null, 'bash: python-traceback'],
      [null, 'bash: python-traceback'],
    ],
  );
});

test('JavaScript that calls back into the engine while a call is read (toJSON, getters) is served', async () => {
  const engine = new GuardEngine({ repeat: { thresholds: [2] } });
  const inner = [];
  const args = {
    toJSON: () => {
      inner.push(engine.observe({ agentId: 'x', name: 'grep', argumentsJson: '{}' }));
      return { q: 1 };
    },
  };
  const result = {
    get content() {
      inner.push(engine.observe({ agentId: 'x', name: 'grep', argumentsJson: '{}' }));
      return [{ type: 'text', text: 'npm ERR! code E404' }];
    },
  };
  const verdict = await engine.observeAsync({ agentId: 'y', name: 'bash', arguments: args }, result);
  assert.equal(verdict.failure.summary, 'bash: npm-error');
  assert.deepEqual(
    inner.map((v) => v?.reminder?.count ?? null),
    [null, 2],
  );
  assert.equal(engine.observe({ agentId: 'y', name: 'bash', arguments: args }).reminder.count, 2);
});

test('observeAsync throws bad input at the call, like observe', () => {
  const engine = new GuardEngine();
  // @ts-expect-error no name: the error under test
  assert.throws(() => engine.observeAsync({ argumentsJson: '{}' }), /^Error: toolguard: exec\.name must be a string \(got undefined\)$/);
  assert.throws(
    // @ts-expect-error content as a string: the error under test
    () => engine.observeAsync({ name: 'bash', argumentsJson: '{}' }, { content: 'x' }),
    /result\.content must be an array \(got string\)/,
  );
  assert.throws(() => engine.observeAsync({ name: 'bash', argumentsJson: '{}', arguments: {} }), /not both/);
});

test('many concurrent scans of large outputs all resolve with their own verdicts', async () => {
  const engine = new GuardEngine();
  const line = 'compiling module 12345 of the project, all fine here\n';
  const bodies = [
    ['npm ERR! code E404', 'bash: npm-error'],
    ['Traceback (most recent call last):', 'bash: python-traceback'],
    ['all good', null],
    ['fatal: not a git repository (or any of the parent directories): .git', 'bash: git-fatal'],
  ];
  const runs = Array.from({ length: 16 }, (_, i) => {
    const [tail, summary] = bodies[i % bodies.length];
    return engine
      .observeAsync({ name: 'bash', argumentsJson: '{}' }, { text: `${line.repeat(5_000 + i * 997)}${tail}\n` })
      .then((v) => assert.equal(v?.failure?.summary ?? null, summary));
  });
  await Promise.all(runs);
});

test('DSH plugin: a 10 MB output (async path) gets the same decision as a small one (sync path)', async (t) => {
  const h = await boot();
  t.after(() => h.dispose());
  const filler = 'compiling module 12345 of the project, all fine here\n'.repeat(200_000);
  const outputs = { small: `step 1\n${TRACEBACK}`, large: `${filler}${TRACEBACK}` };
  assert.ok(outputs.large.length > 10e6);
  h.tool(textTool('bash', (args) => outputs[args.size]));
  // Count which engine entry point the plugin takes (same module instance as ours).
  const taken = [];
  for (const method of ['observe', 'observeAsync']) {
    const original = GuardEngine.prototype[method];
    GuardEngine.prototype[method] = function (...args) {
      taken.push(method);
      return original.apply(this, args);
    };
    t.after(() => (GuardEngine.prototype[method] = original));
  }
  await h.plugin(await import('toolguard/dsh/loud-failure'), {});
  const agent = h.agent('s1');
  await h.turn(agent, [[{ name: 'bash', args: { size: 'small' } }], [{ name: 'bash', args: { size: 'large' } }]]);
  // The result entries of the timeline (kind 'result': a tool's isError and text).
  const results = /** @type {Array<{ isError: boolean, text: string }>} */ (h.timeline(agent).filter((e) => e.kind === 'result'));
  const header = (line) =>
    '[loud-failure] bash reported no error but its output shows it failed:\n' + `- python-traceback (line ${line}): `;
  assert.equal(results.length, 2);
  /** @type {Array<[typeof results[0], string, number]>} result, the output, the traceback's line */
  const expected = [
    [results[0], outputs.small, 2],
    [results[1], outputs.large, 200_001],
  ];
  for (const [r, output, line] of expected) {
    assert.equal(r.isError, true);
    assert.ok(r.text.startsWith(header(line)), r.text.slice(0, 200));
    assert.ok(r.text.endsWith(`\nOriginal output:\n${output}`));
  }
  assert.deepEqual(h.warnings, []);
  assert.deepEqual(taken, ['observe', 'observeAsync']);
});
