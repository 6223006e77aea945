// Reminder-text differential: for 10,000 generated argument values, the
// repeat reminders (gentle and detailed, with the preview cut in UTF-16 code
// units) from the native engine, from the pure-TS reference engine and from
// the official plugin's own functions (copied verbatim below; the first test
// checks the copies against the installed package) are identical, byte for
// byte. Arguments are biased to the hard cases: keys outside the BMP and in
// U+E000–U+FFFF, integer-like keys, `__proto__`, -0, 1e21, 5e-7, long
// strings, lone surrogates (escaped in the text, and raw), empty containers,
// nesting. Each value goes in both as argument text and as a parsed object.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import fc from 'fast-check';
import { GuardEngine as ReferenceEngine } from '../../dist/reference/index.mjs';
import { officialCanonical } from '../support/official-canonical.mjs';

const require = createRequire(import.meta.url);
const { GuardEngine } = require('../../index.js');

// ---- the official functions, verbatim from @deepseek-ai/dsh-repeat-tool-reminder@0.1.0-rc.8
// biome-ignore format: verbatim upstream text; the test below compares it with the installed package
const GENTLE_REMINDER = "You are repeating the exact same tool call with identical arguments. Carefully analyze the previous result before calling again: if the task is not complete, try a different approach or different arguments instead of repeating the call.";
/** The detailed later-threshold reminder naming the tool, the run length, and the canonical arguments. */
// biome-ignore format: verbatim upstream text; the test below compares it with the installed package
function detailedReminder(toolName, count, canonicalArguments) {
	return `Repeated tool call detected:
- tool: ${toolName}\n- consecutive_calls: ${count}\n- arguments: ${canonicalArguments}\nThe repeated calls are not making progress. Do not call this tool with these exact arguments again. Inspect the latest result and choose a different action, different arguments, or finish the task if enough evidence has been gathered.`;
}
// biome-ignore format: verbatim upstream text; the test below compares it with the installed package
function previewArguments(canonical, cap) {
	if (canonical.length <= cap) return canonical;
	return `${canonical.slice(0, cap)}… (+${canonical.length - cap} more chars)`;
}

test('the official copies are verbatim', () => {
  const source = readFileSync(require.resolve('@deepseek-ai/dsh-repeat-tool-reminder'), 'utf8');
  for (const fn of [detailedReminder, previewArguments]) assert.ok(source.includes(fn.toString()), fn.name);
  assert.ok(source.includes(`const GENTLE_REMINDER = ${JSON.stringify(GENTLE_REMINDER)};`));
});

// ---- generators -----------------------------------------------------------------

const code = (lo, hi) => fc.integer({ min: lo, max: hi }).map((c) => String.fromCodePoint(c));
const char = fc.oneof(
  { weight: 5, arbitrary: code(0x20, 0x7e) },
  { weight: 1, arbitrary: code(0x00, 0x1f) },
  { weight: 2, arbitrary: code(0xe000, 0xffff) },
  { weight: 2, arbitrary: code(0x10000, 0x10ffff) },
  { weight: 2, arbitrary: code(0xd800, 0xdfff) }, // lone surrogates
  { weight: 1, arbitrary: fc.constantFrom('"', '\\', '\u2028', 'é', '😀') },
);
const str = fc.string({ unit: char, maxLength: 10 });
const key = fc.oneof(
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      '0',
      '9',
      '10',
      '01',
      '-0',
      '4294967294',
      '4294967295',
      '__proto__',
      'constructor',
      '',
      'a',
      'B',
      '😀',
      '\ue000',
      '\uffff',
      '\ud83d',
      'x\ude00',
    ),
  },
  { weight: 3, arbitrary: str },
);
const value = fc.letrec((tie) => ({
  node: fc.oneof(
    { depthSize: 'small' },
    { weight: 5, arbitrary: tie('leaf') },
    { weight: 2, arbitrary: fc.array(tie('node'), { maxLength: 4 }) },
    { weight: 3, arbitrary: fc.array(fc.tuple(key, tie('node')), { maxLength: 5 }).map((entries) => ({ entries })) },
  ),
  leaf: fc.oneof(
    { weight: 3, arbitrary: str },
    {
      weight: 1,
      arbitrary: fc
        .tuple(fc.string({ unit: char, minLength: 1, maxLength: 3 }), fc.integer({ min: 50, max: 400 }))
        .map(([s, n]) => s.repeat(n)),
    },
    {
      weight: 2,
      arbitrary: fc.constantFrom(-0, 0, 1e21, 1e-7, 5e-7, 0.1, -1.5, 2 ** 53 + 2, 1.7976931348623157e308, 5e-324, true, false, null),
    },
    { weight: 1, arbitrary: fc.double({ noNaN: true, noDefaultInfinity: true }) },
    { weight: 1, arbitrary: fc.constantFrom([], { entries: [] }) },
  ),
})).node;
/** JSON text of a generated value; `{entries}` keeps duplicate and `__proto__` keys. */
function toText(v) {
  if (Array.isArray(v)) return `[${v.map(toText).join(',')}]`;
  if (v && typeof v === 'object') return `{${v.entries.map(([k, x]) => `${JSON.stringify(k)}:${toText(x)}`).join(',')}}`;
  return JSON.stringify(v);
}
const argumentText = fc.oneof(
  { weight: 8, arbitrary: value.map(toText) },
  { weight: 1, arbitrary: fc.tuple(value.map(toText), fc.nat()).map(([t, n]) => t.slice(0, n % (t.length + 1))) }, // malformed: raw string
  { weight: 1, arbitrary: fc.constantFrom('', ' ', '{', '"\ud800"', '["\udc00x"]', 'not json \ud83d') }, // raw lone surrogates too
);
const CAPS = [1, 2, 5, 17, 80, 500];

// ---- the test -----------------------------------------------------------------

test('reminders for 10,000 generated arguments: native === reference === official', () => {
  const thresholds = [2, 3];
  const engines = CAPS.map((cap) => {
    const config = { repeat: { thresholds, argumentsPreviewChars: cap } };
    return { cap, native: new GuardEngine(config), reference: new ReferenceEngine(config) };
  });
  let cases = 0;
  let cut = 0;
  fc.assert(
    fc.property(
      argumentText,
      fc.nat({ max: CAPS.length - 1 }),
      fc.constantFrom('bash', 'grep', 'tool😀'),
      fc.boolean(),
      (text, c, name, asObject) => {
        const { cap, native, reference } = engines[c];
        const agentId = `case-${cases++}`;
        // As a parsed object: what a harness hands over after JSON.parse (only for valid JSON).
        /** @type {import('toolguard').ToolExecution} */
        let exec = { agentId, name, argumentsJson: text };
        if (asObject) {
          try {
            exec = { agentId, name, arguments: JSON.parse(text) };
          } catch {}
        }
        const canonical = officialCanonical(text);
        const official = [
          null,
          { text: GENTLE_REMINDER, count: 2 },
          { text: detailedReminder(name, 3, previewArguments(canonical, cap)), count: 3 },
        ];
        if (canonical.length > cap) cut++;
        for (const expected of official) {
          const ours = native.observe(exec);
          const theirs = reference.observe(exec);
          const want = expected && {
            reminder: { tool: name, count: expected.count, text: expected.text, summary: `${name} × ${expected.count}` },
          };
          assert.deepEqual(ours, want, `native, ${JSON.stringify(exec)}`);
          assert.deepEqual(theirs, want, `reference, ${JSON.stringify(exec)}`);
        }
        native.forget(agentId);
        reference.forget(agentId);
      },
    ),
    { seed: 20260606, numRuns: 10_000 },
  );
  for (const { native } of engines) assert.equal(native.agentCount, 0);
  console.log(`reminder differential: ${cases} argument values × 3 calls, ${cut} previews cut, 0 diffs`);
  assert.ok(cut > 2000, `${cut} previews cut`);
});
