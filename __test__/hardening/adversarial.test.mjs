// Adversarial input for the native engine: each case must complete with the
// right answer (no crash, no stack overflow, no hang) and, where it says so,
// with bounded memory. No timing assertions (the machine is shared and noisy);
// each test prints its duration as a diagnostic, and the closing numbers go
// to docs/security.md. The JavaScript reference engine is never run on the
// pathological patterns here: V8's backtracking RegExp would hang on them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const { GuardEngine, canonicalize } = require('../../index.js');

/** Run `f`, report its wall time as a test diagnostic, return its value. */
async function timed(t, label, f) {
  const start = performance.now();
  const value = await f();
  t.diagnostic(`${label}: ${(performance.now() - start).toFixed(0)} ms`);
  return value;
}

const call = (extra = {}) => ({ name: 'bash', argumentsJson: '{}', ...extra });
const TRACEBACK = 'Traceback (most recent call last):\n  File "job.py", line 3, in <module>\nKeyError: 1\n';

test('100,000-deep arguments: canonical form, chain and reminder, no stack overflow', async (t) => {
  const depth = 100_000;
  const arrays = '['.repeat(depth) + ']'.repeat(depth);
  const objects = '{"a":'.repeat(depth) + '{}' + '}'.repeat(depth);
  // Already canonical: the canonical form is the text itself.
  assert.equal(await timed(t, 'canonicalize 100k arrays', () => canonicalize(arrays)), arrays);
  assert.equal(canonicalize(objects), objects);
  // Whitespace and key order inside the deepest level are normalised.
  const messy = '{ "a" :'.repeat(depth) + '{"z":1, "b":2}' + ' }'.repeat(depth);
  assert.equal(canonicalize(messy), '{"a":'.repeat(depth) + '{"b":2,"z":1}' + '}'.repeat(depth));

  const engine = new GuardEngine({ repeat: { thresholds: [2, 3], argumentsPreviewChars: 20 } });
  const verdicts = await timed(t, '3 observes of 100k-deep objects', () =>
    [objects, messy.replace('"z":1', '"z":1'), objects].map((json) => engine.observe({ agentId: 'a', name: 'grep', argumentsJson: json })),
  );
  assert.equal(verdicts[0], null);
  // The second text differs (b, z) from the first: a new chain, count 1.
  assert.equal(verdicts[1], null);
  assert.equal(verdicts[2], null);
  const again = engine.observe({ agentId: 'a', name: 'grep', argumentsJson: objects });
  assert.equal(again.reminder.count, 2);
  const third = engine.observe({ agentId: 'a', name: 'grep', argumentsJson: objects });
  assert.equal(third.reminder.count, 3);
  // The preview is cut to 20 code units, then the official "(+N more chars)".
  assert.ok(
    third.reminder.text.includes(`- arguments: {"a":{"a":{"a":{"a":… (+${objects.length - 20} more chars)\n`),
    third.reminder.text.slice(0, 300),
  );
});

test('100,000-deep arguments object: a clean JavaScript error, never a crash', () => {
  let value = {};
  for (let i = 0; i < 100_000; i++) value = { a: value };
  const engine = new GuardEngine();
  // V8's own JSON.stringify runs out of stack here; the engine reports it as
  // bad input naming the field instead of crashing or hanging.
  assert.throws(
    () => engine.observe({ agentId: 'a', name: 'grep', arguments: value }),
    (error) => error instanceof Error && /^toolguard: exec\.arguments is not JSON-serializable: RangeError/.test(error.message),
  );
  // The engine is still usable afterwards.
  assert.equal(engine.observe({ agentId: 'a', name: 'grep', arguments: { a: 1 } }), null);
});

test('100 MB output: scanned to the end, the failure line found, the output kept verbatim', async (t) => {
  const line = 'compiling module 12345 of the project, all fine here\n';
  const lines = Math.ceil(100e6 / line.length);
  const text = line.repeat(lines) + TRACEBACK;
  assert.ok(text.length > 100e6);
  const engine = new GuardEngine();
  const verdict = await timed(t, 'observe 100 MB', () => engine.observe(call(), { content: [{ type: 'text', text }] }));
  assert.equal(verdict.failure.action, 'error');
  assert.deepEqual(
    verdict.failure.rules.map((r) => [r.id, r.line, r.excerpt]),
    [['python-traceback', lines + 1, 'Traceback (most recent call last):']],
  );
  assert.ok(verdict.failure.text.endsWith(`\nOriginal output:\n${text}`));
});

test('NUL bytes in arguments and output are ordinary characters', () => {
  assert.equal(canonicalize('{"b":"x\\u0000y","a\\u0000":0}'), '{"a\\u0000":0,"b":"x\\u0000y"}');
  // A raw NUL makes the text malformed JSON: it counts as the raw string.
  assert.equal(canonicalize('{"a":"\0"}'), '"{\\"a\\":\\"\\u0000\\"}"');
  const engine = new GuardEngine({ repeat: { thresholds: [2] } });
  assert.equal(engine.observe({ agentId: 'a', name: 'grep', argumentsJson: '{"q":"\\u0000"}' }), null);
  assert.equal(engine.observe({ agentId: 'a', name: 'grep', argumentsJson: '{"q":"\\u0000"}' }).reminder.count, 2);
  // A different NUL-separated argument is a different call.
  assert.equal(engine.observe({ agentId: 'a', name: 'grep', argumentsJson: '{"q":"\\u0000\\u0000"}' }), null);

  const out = `binary\0junk\0\nTraceback (most recent call last): \0tail\n  File "x"\0\0`;
  const verdict = new GuardEngine().observe(call(), { text: out });
  assert.deepEqual(
    verdict.failure.rules.map((r) => [r.id, r.line]),
    [['python-traceback', 2]],
  );
  // A NUL is not whitespace: it stays in the excerpt.
  assert.equal(verdict.failure.rules[0].excerpt, 'Traceback (most recent call last): \0tail');
  // At the start of a line it is a character like any other: `^Traceback` no longer matches there.
  assert.equal(new GuardEngine().observe(call(), { text: `\0${TRACEBACK}` }), null);
  assert.ok(verdict.failure.text.endsWith(out));
});

test('invalid UTF-8 from a Buffer arrives as U+FFFD; a Buffer where a string belongs is a named error', () => {
  const bytes = Buffer.concat([
    Buffer.from([0xff, 0xfe, 0xc3]), // invalid start bytes and a truncated sequence
    Buffer.from('\n' + TRACEBACK),
    Buffer.from([0xed, 0xa0, 0x80]), // an encoded surrogate: invalid in UTF-8
  ]);
  const text = bytes.toString();
  assert.ok(text.startsWith('\ufffd\ufffd\ufffd\n'));
  const engine = new GuardEngine();
  const verdict = engine.observe(call(), { content: [{ type: 'text', text }] });
  assert.deepEqual(
    verdict.failure.rules.map((r) => [r.id, r.line]),
    [['python-traceback', 2]],
  );
  assert.ok(verdict.failure.text.endsWith(`\nOriginal output:\n${text}`));
  // U+FFFD in arguments is an ordinary character for the chain.
  const args = JSON.stringify({ path: Buffer.from([0x66, 0xff, 0x6f]).toString() });
  assert.equal(canonicalize(args), '{"path":"f\ufffdo"}');

  const named = (field) => (error) => error instanceof Error && error.message === `toolguard: ${field} must be a string (got object)`;
  // @ts-expect-error bytes where a string belongs: the error under test
  assert.throws(() => engine.observe(call(), { text: bytes }), named('result.text'));
  // @ts-expect-error bytes where a string belongs: the error under test
  assert.throws(() => engine.observe(call(), { content: [{ type: 'text', text: bytes }] }), named('result.content[0].text'));
  // @ts-expect-error bytes where a string belongs: the error under test
  assert.throws(() => engine.observe({ name: 'bash', argumentsJson: bytes }), named('exec.argumentsJson'));
  // @ts-expect-error bytes where a string belongs: the error under test
  assert.throws(() => engine.observe({ name: Buffer.from('bash'), argumentsJson: '{}' }), named('exec.name'));
  // @ts-expect-error bytes where a string belongs: the error under test
  assert.throws(() => engine.observe({ agentId: Buffer.from('a'), name: 'bash', argumentsJson: '{}' }), named('exec.agentId'));
  // @ts-expect-error bytes where a string belongs: the error under test
  assert.throws(() => engine.reset(Buffer.from('a')), Error);
  // @ts-expect-error bytes where a string belongs: the error under test
  assert.throws(() => canonicalize(bytes), Error);
});

test('lone surrogates in argument text stay distinct calls, quoted as the official plugin does', () => {
  // A JavaScript string may hold lone surrogates (a provider's escaped stream);
  // read as UTF-8 they would all become U+FFFD and two different calls one chain.
  const engine = new GuardEngine({ repeat: { thresholds: [2, 3] } });
  const exec = (json) => ({ agentId: 'a', name: 'grep', argumentsJson: json });
  assert.equal(engine.observe(exec('["\ud800"]')), null);
  assert.equal(engine.observe(exec('["\udc00"]')), null, 'a different lone surrogate is a different call');
  assert.equal(engine.observe(exec('["\udc00"]')).reminder.count, 2);
  const detailed = engine.observe(exec('["\udc00"]')).reminder.text;
  // JSON.parse then JSON.stringify: the lone surrogate comes back as an escape.
  assert.ok(detailed.includes('- arguments: ["\\udc00"]\n'), detailed);
  assert.equal(canonicalize('{"k\ud83d":"\ude00"}'), '{"k\\ud83d":"\\ude00"}');
});

test('10,000 user rules: load, then scan 1 MB with the right rule found', async (t) => {
  /** @type {import('toolguard').Rule[]} */
  const rules = Array.from({ length: 10_000 }, (_, i) => ({
    id: `user-${i}`,
    pattern: `^E${i}: job failed with code \\d+$`,
    flags: 'm',
    action: i % 2 ? 'error' : 'context',
    when: 'always',
    message: `user rule ${i}`,
  }));
  const engine = await timed(t, 'load 10,000 rules', () => new GuardEngine({ loudFailure: { rules } }));
  const filler = 'compiling module 12345 of the project, all fine here\n'.repeat(20_000);
  const text = `${filler}E9999: job failed with code 7\n${filler}E4242: job failed with code 1\n`;
  const verdict = await timed(t, 'first scan of ~2 MB (builds the rule sets)', () => engine.observe(call(), { text }));
  // (A built-in rule may fire on these lines too: "job failed with code 7"
  // is a child's failed exit status, child-exit-status.)
  assert.deepEqual(
    verdict.failure.rules.filter((r) => r.id.startsWith('user-')).map((r) => [r.id, r.line]),
    [
      ['user-4242', 40_002],
      ['user-9999', 20_001],
    ],
  );
  assert.equal(verdict.failure.action, 'error');
  const again = await timed(t, 'second scan of ~2 MB', () => engine.observe(call(), { text }));
  assert.deepEqual(again, verdict);
  assert.equal(engine.observe(call(), { text: filler }), null);
});

test('user rule (a+)+$ against 1 MB of "a" (catastrophic for a backtracking engine) completes', async (t) => {
  const engine = new GuardEngine({
    loudFailure: {
      rules: [
        { id: 'nested-plus', pattern: '(a+)+$', action: 'error', when: 'always', message: 'nested quantifier' },
        { id: 'nested-star', pattern: '(a*)*b', action: 'context', when: 'always', message: 'never matches' },
        { id: 'alternation', pattern: '^(a|aa)+c$', flags: 'm', action: 'context', when: 'always', message: 'never matches' },
      ],
    },
  });
  const text = 'a'.repeat(1 << 20);
  const verdict = await timed(t, 'scan 1 MB of a', () => engine.observe(call(), { text }));
  assert.deepEqual(
    verdict.failure.rules.map((r) => [r.id, r.line]),
    [['nested-plus', 1]],
  );
  assert.equal(verdict.failure.rules[0].excerpt, `${'a'.repeat(200)}…`);
  // The same with one character off the end: no match anywhere, still completes.
  assert.equal(await timed(t, 'scan 1 MB of a + "!"', () => engine.observe(call(), { text: `${text}!` })), null);
});

test('1,000,000 agents: one fixed-size chain each, all freed by forget', async (t) => {
  const engine = new GuardEngine();
  const n = 1_000_000;
  globalThis.gc?.();
  const before = process.memoryUsage().rss;
  await timed(t, 'observe 1,000,000 agents', () => {
    for (let i = 0; i < n; i++) engine.observe({ agentId: `agent-${i}`, name: 'grep', argumentsJson: '{"q":"x"}' });
  });
  globalThis.gc?.();
  const grown = process.memoryUsage().rss - before;
  t.diagnostic(
    `RSS growth for 1,000,000 agents: ${(grown / 1e6).toFixed(1)} MB (${(grown / n).toFixed(0)} B/agent, JS garbage included unless run with --expose-gc)`,
  );
  assert.equal(engine.agentCount, n);
  // Each chain is a digest + count: far below even a short argument text per agent.
  // Loose bound (the RSS includes allocator slack and JS garbage): 1 KB per agent.
  assert.ok(grown < n * 1024, `${grown} bytes of RSS growth`);
  // Chains stay per agent: the first agent's second identical call counts 2.
  engine.observe({ agentId: 'agent-0', name: 'grep', argumentsJson: '{"q":"x"}' });
  assert.equal(engine.observe({ agentId: 'agent-0', name: 'grep', argumentsJson: '{"q":"x"}' }).reminder.count, 3);
  for (let i = 0; i < n; i++) engine.forget(`agent-${i}`);
  assert.equal(engine.agentCount, 0);
});
