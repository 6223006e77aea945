// observeCall (the positional repeat path the DSH plugin uses) against
// engine.observe: the same chains, the same reminders, shared state, and the
// same exactness for raw lone surrogates — natively and in the reference engine.
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { describe, it } from 'node:test';

const require = createRequire(import.meta.url);
const native = require('../index.js');
const reference = await import('../dist/reference/index.mjs');

// Calls of two agents, with repeats, a malformed text, an empty text, raw and
// escaped lone surrogates (which must stay distinct) and a long string value.
const long = JSON.stringify({ content: 'x"\\\n'.repeat(2000), file_path: 'a.txt' });
const texts = [
  '{"command":"ls","timeout":120000}',
  '{"timeout":120000,"command":"ls"}',
  '{"command":"ls","timeout":120000}',
  '["\ud800"]',
  '["\udc00"]',
  '["\udc00"]',
  '["\\udc00"]',
  '{"a":1',
  '{"a":1',
  '',
  '{}',
  '{}',
  long,
  long,
  long,
  long,
  '{"a":"\u{1F600}\ud83d"}',
  '{"a":"\u{1F600}\ud83d"}',
  '{"a":"\u{1F600}\ud83d"}',
];

/** @type {Array<[string, typeof native | typeof reference]>} the native binding and the reference engine, one API */
const engines = [
  ['native', native],
  ['reference', reference],
];
for (const [label, mod] of engines) {
  describe(`observeCall (${label})`, () => {
    it('gives exactly the reminders observe gives, call for call', () => {
      const viaObserve = new mod.GuardEngine({ repeat: { thresholds: [2, 3, 4] } });
      const viaCall = new mod.GuardEngine({ repeat: { thresholds: [2, 3, 4] } });
      let reminders = 0;
      for (let i = 0; i < texts.length * 2; i += 1) {
        const agentId = `agent-${i % 2}`;
        const argumentsJson = texts[Math.floor(i / 2)];
        const expected = viaObserve.observe({ agentId, name: 'bash', argumentsJson })?.reminder ?? null;
        const actual = mod.observeCall(viaCall.callHandle, agentId, 'bash', argumentsJson);
        assert.deepEqual(actual === null ? null : { ...actual }, expected === null ? null : { ...expected }, `call ${i}`);
        if (actual !== null) reminders += 1;
      }
      assert.ok(reminders >= 10, `only ${reminders} reminders: the sequence exercises too little`);
    });

    it('shares chains with the engine object (reset, forget, agentCount)', () => {
      const engine = new mod.GuardEngine({ repeat: { thresholds: [2] } });
      assert.equal(mod.observeCall(engine.callHandle, 'a', 'bash', '{"x":1}'), null);
      assert.equal(engine.agentCount, 1);
      engine.reset('a');
      assert.equal(mod.observeCall(engine.callHandle, 'a', 'bash', '{"x":1}'), null);
      assert.equal(engine.observe({ agentId: 'a', name: 'bash', argumentsJson: '{"x":1}' })?.reminder?.count, 2);
      engine.forget('a');
      assert.equal(engine.agentCount, 0);
    });

    it('each engine has its own handle; a handle no engine has throws', () => {
      const one = new mod.GuardEngine({ repeat: { thresholds: [2] } });
      const two = new mod.GuardEngine({ repeat: { thresholds: [2] } });
      assert.notEqual(one.callHandle, two.callHandle);
      mod.observeCall(one.callHandle, 'a', 'bash', '{}');
      assert.equal(mod.observeCall(two.callHandle, 'a', 'bash', '{}'), null);
      assert.equal(mod.observeCall(one.callHandle, 'a', 'bash', '{}')?.count, 2);
      assert.throws(() => mod.observeCall(2 ** 31, 'a', 'bash', '{}'), /no live engine has handle/);
      // Raw lone surrogates stay distinct (a UTF-8 crossing alone would make both U+FFFD).
      assert.equal(mod.observeCall(one.callHandle, 'b', 'bash', '["\ud800"]'), null);
      assert.equal(mod.observeCall(one.callHandle, 'b', 'bash', '["\udc00"]'), null);
      assert.equal(mod.observeCall(one.callHandle, 'b', 'bash', '["\\udc00"]')?.count, 2);
      // @ts-expect-error a number where the JSON text belongs: the error under test
      assert.throws(() => mod.observeCall(one.callHandle, 'a', 'bash', 5), /argumentsJson must be a string \(got number\)/);
    });
  });
}

// observeCallValue writes the canonical text from the argument object itself.
// Differential: for generated flat objects (hard keys, long strings with
// escapes and lone surrogates, -0/NaN/1e21/5e-7, skipped members) the chain
// and the canonical quoted in the detailed reminder must equal observeCall of
// JSON.stringify(value); values it does not take must answer false.
import fc from 'fast-check';

describe('observeCallValue (native) against observeCall of JSON.stringify', () => {
  const unit = fc.oneof(
    { weight: 6, arbitrary: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)) },
    { weight: 2, arbitrary: fc.integer({ min: 0, max: 0x1f }).map((c) => String.fromCharCode(c)) },
    { weight: 1, arbitrary: fc.constantFrom('"', '\\', '/', '\u2028', '\ufffd', 'é', '😀', '\ud800', '\udfff') },
    { weight: 1, arbitrary: fc.integer({ min: 0xd800, max: 0xdfff }).map((c) => String.fromCharCode(c)) },
  );
  const str = fc.oneof(
    fc.string({ unit, maxLength: 8 }),
    fc.tuple(fc.string({ unit, minLength: 1, maxLength: 4 }), fc.integer({ min: 300, max: 1500 })).map(([s, n]) => s.repeat(n)),
  );
  const leaf = fc.oneof(
    str,
    str,
    fc.constantFrom(-0, 0, 1, -1, 1e21, 1e20, 5e-7, 0.1, NaN, Infinity, -Infinity, 2 ** 53 + 2, true, false, null, undefined),
    fc.double(),
    fc.constant(() => 1),
    fc.constant(Symbol('s')),
  );
  const plainKey = fc.oneof(
    fc.constantFrom(
      'command',
      'content',
      'file_path',
      'old_string',
      'new_string',
      'a',
      'B',
      '_',
      '',
      ' ',
      'a b',
      '"',
      '\\',
      '\n',
      'x1',
      '1x',
      '-1',
      '01',
    ),
    fc
      .string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)), maxLength: 6 })
      .filter((k) => !/^\d+$/.test(k) && k !== '__proto__' && k !== 'toJSON'),
  );
  const flat = fc.dictionary(plainKey, leaf, { maxKeys: 6 });
  // Values the walk must refuse (answering false), which then go through observeCall.
  const refused = fc.oneof(
    fc.dictionary(plainKey, leaf, { maxKeys: 3 }).map((o) => ({ ...o, nested: { a: 1 } })),
    fc.dictionary(plainKey, leaf, { maxKeys: 3 }).map((o) => ({ ...o, list: [1, 'x'] })),
    fc.constantFrom(
      { 7: 'x' },
      { é: 'x' },
      { toJSON: 'x' },
      JSON.parse('{"__proto__":1}'),
      new Date(0),
      Object.create({ inherited: 1 }),
      [1],
      'text',
      5,
      null,
      { big: 1n },
    ),
  );

  it('the same canonical and the same chains, call for call', () => {
    const config = { repeat: { thresholds: [2, 3], argumentsPreviewChars: 1e9 } };
    let walked = 0;
    fc.assert(
      fc.property(fc.oneof({ weight: 4, arbitrary: flat }, { weight: 1, arbitrary: refused }), fc.boolean(), (value, _isFlat) => {
        const viaValue = new native.GuardEngine(config);
        const viaText = new native.GuardEngine(config);
        let textThrew = false;
        const text = (() => {
          try {
            return JSON.stringify(value) ?? '';
          } catch {
            textThrew = true;
            return '';
          }
        })();
        for (let i = 0; i < 3; i += 1) {
          let actual = native.observeCallValue(viaValue.callHandle, 'a', 'write', value);
          if (actual === false) {
            if (textThrew) return true; // the plugin's JSON.stringify throws too (BigInt)
            actual = native.observeCall(viaValue.callHandle, 'a', 'write', text);
          } else {
            walked += 1;
          }
          const expected = native.observeCall(viaText.callHandle, 'a', 'write', text);
          assert.deepEqual(actual === null ? null : { ...actual }, expected === null ? null : { ...expected });
        }
        return true;
      }),
      { seed: 424242, numRuns: 400 },
    );
    assert.ok(walked > 400, `the walk ran only ${walked} times`);
  });

  it('answers false for values it does not take, true-path for flat plain objects', () => {
    const engine = new native.GuardEngine({ repeat: { thresholds: [2] } });
    const h = engine.callHandle;
    for (const value of [
      { n: { a: 1 } },
      { l: [] },
      { 7: 'x' },
      { é: 'x' },
      { toJSON: 'x' },
      JSON.parse('{"__proto__":1}'),
      new Date(0),
      Object.create({ i: 1 }),
      [1],
      'text',
      5,
      null,
      { big: 1n },
    ]) {
      assert.equal(native.observeCallValue(h, 'a', 'write', value), false, JSON.stringify(Object.keys(Object(value))));
    }
    assert.equal(native.observeCallValue(h, 'a', 'write', { content: 'x'.repeat(5000), n: -0 }), null);
    assert.equal(engine.agentCount, 1);
    // Lone surrogates stay exact: these two differ only in one.
    assert.equal(native.observeCallValue(h, 'b', 'write', { c: 'x'.repeat(2000) + '\ud800' }), null);
    assert.equal(native.observeCallValue(h, 'b', 'write', { c: 'x'.repeat(2000) + '\udc00' }), null);
    const third = native.observeCallValue(h, 'b', 'write', { c: 'x'.repeat(2000) + '\udc00' });
    assert.equal(third === false ? 'declined' : third?.count, 2);
  });
});
