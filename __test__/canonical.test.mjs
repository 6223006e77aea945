// Differential test: the native `canonicalize(argumentsJson)` against the
// official DSH algorithm (`__test__/support/official-canonical.mjs`, copied
// verbatim from the installed packages) on seeded fast-check inputs biased
// toward the places where JavaScript's own rules shape the canonical form.
// Both sides always get the same JSON text. Reproducible: fixed seeds and run
// counts; a failure prints the counterexample and the seed.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { after, test } from 'node:test';
import fc from 'fast-check';
import { COPIED_FROM, officialCanonical } from './support/official-canonical.mjs';

const require = createRequire(import.meta.url);
const { canonicalize } = require('../index.js');

let compared = 0;
let diffs = 0;
/** One differential case; returns whether native and official agree. */
function same(text) {
  compared += 1;
  const expected = officialCanonical(text);
  const actual = canonicalize(text);
  if (actual !== expected) diffs += 1;
  return actual === expected;
}
/** One differential case as an assertion (shows both strings on a diff). */
function expectSame(text) {
  compared += 1;
  const expected = officialCanonical(text);
  const actual = canonicalize(text);
  if (actual !== expected) diffs += 1;
  assert.equal(actual, expected, `input ${JSON.stringify(text).slice(0, 300)}`);
}
after(() => console.log(`canonical differential: ${compared} cases compared, ${diffs} diffs`));

// ---- generators -------------------------------------------------------------

const fromCode = (lo, hi) => fc.integer({ min: lo, max: hi }).map((c) => String.fromCodePoint(c));
/** One UTF-16 "character" from the ranges where orders and escapes differ. */
const hardChar = fc.oneof(
  { weight: 4, arbitrary: fromCode(0x20, 0x7e) },
  { weight: 2, arbitrary: fromCode(0x00, 0x1f) },
  { weight: 1, arbitrary: fc.constantFrom('"', '\\', '/', '\u007f', '\u2028', '\u2029', '\ufeff', 'é') },
  { weight: 2, arbitrary: fromCode(0xe000, 0xffff) },
  { weight: 2, arbitrary: fromCode(0x10000, 0x10ffff) },
  { weight: 2, arbitrary: fromCode(0xd800, 0xdfff) }, // lone surrogates (or accidental pairs)
  { weight: 1, arbitrary: fromCode(0x80, 0xd7ff) },
);
const hardString = fc.string({ unit: hardChar, maxLength: 12 });
const longString = (min, max) =>
  fc.tuple(fc.string({ unit: hardChar, minLength: 1, maxLength: 3 }), fc.integer({ min, max })).map(([s, n]) => s.repeat(n));
const key = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      '0',
      '9',
      '10',
      '4294967294',
      '4294967295',
      '01',
      '-0',
      '1.0',
      '99999999999',
      '__proto__',
      'constructor',
      'toString',
      'length',
      '',
      'a',
      'b',
      'A',
      '_',
      '😀',
      '\ue000',
      '\uffff',
      '\ud83d',
      '\ude00',
      'x😀',
      'x\ue000',
    ),
  },
  { weight: 1, arbitrary: fc.nat().map(String) },
  { weight: 1, arbitrary: fc.bigInt({ min: 4294967290n, max: 4294967300n }).map(String) },
  { weight: 4, arbitrary: hardString },
);
/** Number TEXT (not values): exercises parsing, rounding and printing. */
const numberText = fc.oneof(
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      '-0',
      '0',
      '-0.0',
      '1e21',
      '1E+21',
      '1e20',
      '5e-7',
      '1e-7',
      '0.000001',
      '1e400',
      '-1e400',
      '1e-400',
      '5e-324',
      '2e-324',
      '9007199254740993',
      '123456789012345678901234567890',
      '0.1',
      '1.7976931348623159e308',
    ),
  },
  {
    weight: 2,
    arbitrary: fc.double({ noNaN: true, noDefaultInfinity: true }).map((d) => (Object.is(d, -0) ? '-0' : String(d)).replace('+', '')),
  },
  { weight: 1, arbitrary: fc.integer().map(String) },
  { weight: 2, arbitrary: fc.stringMatching(/^-?(0|[1-9][0-9]{0,30})(\.[0-9]{1,30})?([eE][+-]?[0-9]{1,3})?$/) },
);

/**
 * A value as a tree that keeps what a JS object cannot: duplicate keys and
 * `__proto__` entries. `toText` turns it into JSON text.
 */
const tree = fc.letrec((tie) => ({
  node: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    { weight: 6, arbitrary: tie('leaf') },
    { weight: 2, arbitrary: fc.array(tie('node'), { maxLength: 5 }).map((items) => ({ array: items })) },
    { weight: 3, arbitrary: fc.array(fc.tuple(key, tie('node')), { maxLength: 6 }).map((entries) => ({ object: entries })) },
  ),
  leaf: fc.oneof(
    { weight: 3, arbitrary: numberText.map((n) => ({ number: n })) },
    { weight: 4, arbitrary: hardString.map((s) => ({ string: s })) },
    { weight: 1, arbitrary: longString(100, 2000).map((s) => ({ string: s })) },
    { weight: 1, arbitrary: fc.constantFrom({ literal: 'true' }, { literal: 'false' }, { literal: 'null' }) },
    { weight: 1, arbitrary: fc.constantFrom({ array: [] }, { object: [] }) },
  ),
})).node;

/** How to spell strings and whitespace; the value stays the same. */
const style = fc.record({
  escapeAll: fc.boolean(), // every non-ASCII/awkward char as \uXXXX (upper- or lowercase hex)
  upperHex: fc.boolean(),
  space: fc.constantFrom('', ' ', '\n', ' \t\r\n'),
});

/** A JSON string literal that never holds a raw lone surrogate. */
function stringText(s, st) {
  if (!st.escapeAll) return JSON.stringify(s);
  let out = '"';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0x20 && c < 0x7f && c !== 0x22 && c !== 0x5c) out += s[i];
    else {
      const hex = c.toString(16).padStart(4, '0');
      out += `\\u${st.upperHex ? hex.toUpperCase() : hex}`;
    }
  }
  return `${out}"`;
}

/** JSON text of a tree, iteratively (deep trees must not exhaust the JS stack here). */
function toText(root, st) {
  const ws = st.space;
  let out = '';
  /** @type {Array<{ raw?: string, node?: any }>} a JSON text piece, or a tree node still to write */
  const stack = [{ node: root }];
  while (stack.length) {
    const item = stack.pop();
    if (item.raw !== undefined) {
      out += item.raw;
      continue;
    }
    const n = item.node;
    if (n.number !== undefined) out += n.number;
    else if (n.string !== undefined) out += stringText(n.string, st);
    else if (n.literal !== undefined) out += n.literal;
    else if (n.array) {
      /** @type {typeof stack} */
      const parts = [{ raw: `${ws}[${ws}` }];
      n.array.forEach((child, i) => {
        parts.push(...(i ? [{ raw: `${ws},${ws}` }] : []), { node: child });
      });
      parts.push({ raw: `${ws}]${ws}` });
      stack.push(...parts.reverse());
    } else {
      /** @type {typeof stack} */
      const parts = [{ raw: `{${ws}` }];
      n.object.forEach(([k, child], i) => {
        if (i) parts.push({ raw: `,${ws}` });
        parts.push({ raw: `${stringText(k, st)}${ws}:${ws}` }, { node: child });
      });
      parts.push({ raw: `${ws}}` });
      stack.push(...parts.reverse());
    }
  }
  return out;
}

/** Wrap a value in `depth` arrays or single-key objects (the official code throws past ~2,000). */
const nested = fc
  .tuple(tree, fc.integer({ min: 1, max: 1000 }), fc.constantFrom('[', '{"k":', '{"__proto__":0,"z":'), style)
  .map(([t, depth, open, st]) => {
    const close = open === '[' ? ']' : '}';
    return open.repeat(depth) + toText(t, st) + close.repeat(depth);
  });

/** Edits that usually break the text (and sometimes do not). */
const mutation = fc.tuple(
  fc.constantFrom('insert', 'delete', 'truncate', 'replace', 'append', 'prepend'),
  fc.nat(),
  fc.constantFrom(
    ',',
    '}',
    ']',
    '{',
    '[',
    '"',
    '\\',
    ':',
    ' ',
    '\u00a0',
    '\ufeff',
    '\u000b',
    '\u000c',
    '0',
    '-',
    '+',
    '.',
    'e',
    '\n',
    '\u0000',
    'x',
    '\\u',
    '/',
    "'",
    'tru',
    'null',
  ),
);
function mutate(text, [kind, at, piece]) {
  const i = text.length ? at % (text.length + 1) : 0;
  switch (kind) {
    case 'insert':
      return text.slice(0, i) + piece + text.slice(i);
    case 'delete':
      return text.slice(0, i) + text.slice(i + 1);
    case 'truncate':
      return text.slice(0, i);
    case 'replace':
      return text.slice(0, i) + piece + text.slice(i + piece.length);
    case 'append':
      return text + piece;
    default:
      return piece + text;
  }
}

/** A lone surrogate left raw in the text must never be split from its string. */
const hasLoneSurrogate = (s) => /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(s);

// ---- tests --------------------------------------------------------------------

test('the oracle is a verbatim copy of the official functions', () => {
  for (const [file, fns] of Object.entries(COPIED_FROM)) {
    const source = readFileSync(new URL(`../node_modules/${file}`, import.meta.url), 'utf8');
    for (const fn of fns) assert.ok(source.includes(fn.toString()), `${fn.name} differs from ${file}`);
  }
});

test('generated valid JSON texts: native === official (10,000 runs)', () => {
  fc.assert(
    fc.property(tree, style, (t, st) => same(toText(t, st))),
    { seed: 20261130, numRuns: 10_000 },
  );
});

test('deeply nested values up to 1,000 levels: native === official', () => {
  fc.assert(
    fc.property(nested, (text) => same(text)),
    { seed: 7, numRuns: 300 },
  );
});

test('very long strings (up to 300,000 code units): native === official', () => {
  fc.assert(
    fc.property(longString(5_000, 100_000), key, style, (s, k, st) =>
      same(
        toText(
          {
            object: [
              [k, { string: s }],
              ['a', { array: [{ string: s }] }],
            ],
          },
          st,
        ),
      ),
    ),
    { seed: 5, numRuns: 100 },
  );
});

test('mutated, mostly malformed texts: native === official (5,000 runs)', () => {
  fc.assert(
    fc.property(tree, style, fc.array(mutation, { minLength: 1, maxLength: 3 }), (t, st, edits) => {
      const text = edits.reduce(mutate, toText(t, st));
      // Raw lone surrogates have their own test below.
      fc.pre(!hasLoneSurrogate(text));
      return same(text);
    }),
    { seed: 424242, numRuns: 5_000 },
  );
});

test('JSON.parse corner texts: native === official', () => {
  const texts = [
    '',
    ' ',
    '\t',
    '{}',
    ' {} ',
    '\ufeff{}',
    '{}\ufeff',
    '\u00a0{}',
    '\u000b1',
    '\u000c1',
    '\u20281',
    '01',
    '-01',
    '00',
    '1.',
    '.5',
    '+1',
    '-',
    '1e',
    '1e+',
    '0x10',
    'NaN',
    'Infinity',
    '-Infinity',
    '"\\x"',
    '"\\u12"',
    '"\\uGGGG"',
    '"\\U0041"',
    '"\\\'"',
    '"\t"',
    '"\u0000"',
    '"\u007f"',
    '[1,]',
    '{"a":1,}',
    '{"a" 1}',
    "{'a':1}",
    '{}{}',
    '"a"x',
    '1 2',
    'true',
    'tru',
    'null',
    'false',
    '"s"',
    '5',
    '-0',
    '[-0]',
    '{"a":1,"a":2}',
    '{"a":1,"\\u0061":2}',
    '{"__proto__":{"x":1},"b":2}',
    '{"\\u005f_proto__":null}',
    '{"a":{"__proto__":[1]}}',
    '[{"__proto__":"s"}]',
    '{"b":1,"10":2,"9":3,"01":4,"-0":5,"4294967294":6,"4294967295":7,"a":8,"0":9}',
    '{"\\ud83d":1,"\\ud83d\\ude00":2,"\\ude00":3,"\\uffff":4,"\\ue000":5}',
    '"\\ud83d\\ude00"',
    '"\\ude00\\ud83d"',
    '1e21',
    '1e20',
    '5e-7',
    '1e-7',
    '1e400',
    '-1e400',
    '2e-324',
    `1${'0'.repeat(400)}`,
    `0.${'0'.repeat(400)}1`,
  ];
  for (const text of texts) expectSame(text);
});

test('raw lone surrogates in the argument text: native === official', () => {
  // A JS string can carry lone surrogates (a provider's `\ud800` escape in the
  // stream); inside a JSON string they are data, outside they make it malformed.
  // Lone surrogates next to backslashes are the tricky spot (`"\\` + U+D800 is an invalid escape).
  const loneOrEscape = fc.oneof(fromCode(0xd800, 0xdfff), fc.constantFrom('\\', '\\\\', '"', '\\u', '\\ud83d', '\\ude00', '😀'));
  const texts = [
    '"\ud800"',
    '"\\\ud800"',
    '"\\\\\ud800"',
    '["\ud800x"]',
    '\ud800',
    '{"\udc00":1,"\ud83d":2}',
    '"\ud83d\\ude00"',
    '"\\ud83d\ude00"',
    '{"a":"\udfff"} \ud800',
    '\udc00{}',
  ];
  for (const text of texts) expectSame(text);
  fc.assert(
    fc.property(
      tree,
      style,
      fc.array(fc.tuple(fc.constant('insert'), fc.nat(), loneOrEscape), { minLength: 1, maxLength: 4 }),
      (t, st, edits) => same(edits.reduce(mutate, toText(t, st))),
    ),
    { seed: 99, numRuns: 3_000 },
  );
});

test('wide objects (60,000 keys: V8 dictionary mode keeps the same key order)', () => {
  const keys = [];
  for (let i = 0; i < 60_000; i++) {
    const r = Math.imul(i, 2654435761) >>> 0;
    const pick = [
      String(r % 5000),
      `k${r}`,
      String.fromCodePoint(0xe000 + (r % 0x2000)),
      String.fromCodePoint(0x10000 + (r % 0x1000)),
      `0${r % 100}`,
      String(4294967290 + (r % 10)),
      '__proto__',
    ];
    keys.push(pick[i % pick.length]);
  }
  expectSame(`{${keys.map((k, i) => `${JSON.stringify(k)}:${i}`).join(',')}}`);
});

test('100,000 levels of nesting: no stack overflow (the official code throws a RangeError here)', () => {
  const n = 100_000;
  // Documented divergence: the recursive official code cannot go this deep.
  assert.throws(() => officialCanonical('['.repeat(n) + ']'.repeat(n)), RangeError);
  assert.equal(canonicalize('['.repeat(n) + ']'.repeat(n)), '['.repeat(n) + ']'.repeat(n));
  assert.equal(canonicalize(`${'{"b":0,"a":'.repeat(n)}1${'}'.repeat(n)}`), `${'{"a":'.repeat(n)}1${',"b":0}'.repeat(n)}`);
  // Unclosed: malformed, so the raw text comes back as a string (as officially).
  expectSame('['.repeat(n));
});

test('10 MB inputs: native === official', () => {
  const long = JSON.stringify({ z: 'x'.repeat(10_000_000), a: [1, -0, 1e21, '\u0000😀\ue000'] });
  expectSame(long);
  const escaped = `{"s":"${'\\n\\u00e9\\ud83d\\ude00\\ud800'.repeat(400_000)}"}`;
  expectSame(escaped);
  const many = JSON.stringify(Array.from({ length: 210_000 }, (_, i) => ({ [`k${i % 997}`]: i, 10: [i / 7], __x: 'v' })));
  expectSame(many);
  expectSame(many.slice(0, -1)); // malformed 10 MB text → the raw string
});
