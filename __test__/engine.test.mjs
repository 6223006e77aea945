// The native GuardEngine's JavaScript surface: every point of the spec that
// the engine owns, every config error, every bad-input error.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const { GuardEngine, canonicalize } = require('../index.js');

const GENTLE =
  'You are repeating the exact same tool call with identical arguments. Carefully analyze the previous result before calling again: if the task is not complete, try a different approach or different arguments instead of repeating the call.';
const detailed = (tool, count, preview) =>
  `Repeated tool call detected:\n- tool: ${tool}\n- consecutive_calls: ${count}\n- arguments: ${preview}\nThe repeated calls are not making progress. Do not call this tool with these exact arguments again. Inspect the latest result and choose a different action, different arguments, or finish the task if enough evidence has been gathered.`;

/** Run `n` identical calls and return the reminder counts seen. */
function counts(engine, n, exec) {
  const seen = [];
  for (let i = 0; i < n; i++) {
    const verdict = engine.observe({ agentId: 'a', ...exec });
    if (verdict?.reminder) seen.push(verdict.reminder.count);
  }
  return seen;
}

test('default thresholds escalate 3 gentle, 5 and 8 detailed, then silence', () => {
  const engine = new GuardEngine();
  const exec = { name: 'grep', arguments: { q: 'x' } };
  const verdicts = Array.from({ length: 10 }, () => engine.observe({ agentId: 'a', ...exec }));
  assert.deepEqual(
    verdicts.map((v) => v?.reminder?.count ?? null),
    [null, null, 3, null, 5, null, null, 8, null, null],
  );
  assert.deepEqual(verdicts[2], { reminder: { tool: 'grep', count: 3, text: GENTLE, summary: 'grep × 3' } });
  assert.equal(verdicts[4].reminder.text, detailed('grep', 5, '{"q":"x"}'));
  assert.equal(verdicts[0], null);
});

test('gentle text is keyed to thresholds[0] of an unsorted config', () => {
  const engine = new GuardEngine({ repeat: { thresholds: [4, 2] } });
  const verdicts = Array.from({ length: 4 }, () => engine.observe({ agentId: 'a', name: 't', argumentsJson: '{}' }));
  assert.equal(verdicts[1].reminder.text, GENTLE);
  assert.equal(verdicts[3].reminder.text, detailed('t', 4, '{}'));
});

test('preview is capped in UTF-16 units while the key stays whole', () => {
  const engine = new GuardEngine({ repeat: { thresholds: [2, 3], argumentsPreviewChars: 24 } });
  const payload = 'x'.repeat(400);
  const exec = { agentId: 'a', name: 'write', arguments: { content: payload } };
  engine.observe(exec);
  engine.observe(exec);
  const third = engine.observe(exec);
  const canonical = JSON.stringify({ content: payload });
  assert.equal(third.reminder.text, detailed('write', 3, `${canonical.slice(0, 24)}… (+${canonical.length - 24} more chars)`));
  // A change past the preview still breaks the chain.
  assert.equal(engine.observe({ ...exec, arguments: { content: payload + 'y' } }), null);
});

test('a preview cut inside a surrogate pair keeps the lone half, as JavaScript slice does', () => {
  const engine = new GuardEngine({ repeat: { thresholds: [2, 3], argumentsPreviewChars: 3 } });
  const exec = { agentId: 'a', name: 't', argumentsJson: '"😀😀"' };
  engine.observe(exec);
  engine.observe(exec);
  const canonical = JSON.stringify('😀😀');
  assert.equal(engine.observe(exec).reminder.text, detailed('t', 3, `${canonical.slice(0, 3)}… (+3 more chars)`));
});

test('key order is ignored deeply; arrays keep order', () => {
  const engine = new GuardEngine({ repeat: { thresholds: [2] } });
  engine.observe({ agentId: 'a', name: 't', arguments: { a: 1, nested: { x: [1, 2], y: null } } });
  assert.equal(engine.observe({ agentId: 'a', name: 't', argumentsJson: '{"nested":{"y":null,"x":[1,2]},"a":1}' }).reminder.count, 2);
  assert.equal(engine.observe({ agentId: 'a', name: 't', arguments: { a: 1, nested: { x: [2, 1], y: null } } }), null);
});

test('a different tracked call resets; untracked calls are transparent', () => {
  const engine = new GuardEngine({ repeat: { thresholds: [2], exclude: ['todo_*'] } });
  const grep = { agentId: 'a', name: 'grep', argumentsJson: '{"q":1}' };
  engine.observe(grep);
  assert.equal(engine.observe({ agentId: 'a', name: 'todo_write', argumentsJson: '{}' }), null);
  assert.equal(engine.observe(grep).reminder.count, 2);
  engine.observe({ agentId: 'a', name: 'read', argumentsJson: '{}' });
  assert.equal(engine.observe(grep), null);
});

test('include wildcards are anchored and metacharacters literal', () => {
  const engine = new GuardEngine({ repeat: { thresholds: [2], include: ['pr.be', 'web_*'] } });
  assert.deepEqual(counts(engine, 3, { name: 'probe', argumentsJson: '{}' }), []);
  assert.deepEqual(counts(engine, 2, { name: 'web_fetch', argumentsJson: '{}' }), [2]);
  assert.deepEqual(
    counts(new GuardEngine({ repeat: { thresholds: [2], include: ['pr.be'] } }), 2, { name: 'pr.be', argumentsJson: '{}' }),
    [2],
  );
});

test('agents never share a chain; reset and forget start over; agentless calls never count', () => {
  const engine = new GuardEngine({ repeat: { thresholds: [2] } });
  const exec = { name: 't', argumentsJson: '{}' };
  engine.observe({ agentId: 'a', ...exec });
  assert.equal(engine.observe({ agentId: 'b', ...exec }), null);
  assert.equal(engine.observe(exec), null);
  assert.equal(engine.observe(exec), null);
  assert.equal(engine.observe({ agentId: 'a', ...exec }).reminder.count, 2);
  assert.equal(engine.agentCount, 2);
  engine.reset('a');
  assert.equal(engine.observe({ agentId: 'a', ...exec }), null);
  engine.forget('a');
  engine.forget('b');
  engine.forget('never-seen');
  assert.equal(engine.agentCount, 0);
});

test('malformed argument text counts as a raw string and empty text as {}', () => {
  assert.equal(canonicalize('{"b":1,"a":2}'), '{"a":2,"b":1}');
  assert.equal(canonicalize('{oops'), '"{oops"');
  assert.equal(canonicalize(''), '{}');
  const engine = new GuardEngine({ repeat: { thresholds: [2] } });
  engine.observe({ agentId: 'a', name: 't', argumentsJson: '' });
  assert.equal(engine.observe({ agentId: 'a', name: 't', arguments: {} }).reminder.count, 2);
  engine.observe({ agentId: 'a', name: 't', argumentsJson: '{oops' });
  assert.equal(engine.observe({ agentId: 'a', name: 't', arguments: '{oops' }).reminder.count, 2);
});

test('repeat config errors carry the official texts', () => {
  /** @type {Array<[any, string]>} ill-typed on purpose: the input and the error it gets */
  const cases = [
    [{ thresholds: [] }, 'repeat-tool-reminder: `thresholds` must not be empty'],
    [{ thresholds: [3, 1] }, 'repeat-tool-reminder: invalid threshold 1 — every threshold must be an integer >= 2'],
    [{ thresholds: [2.5] }, 'repeat-tool-reminder: invalid threshold 2.5 — every threshold must be an integer >= 2'],
    [{ thresholds: [NaN] }, 'repeat-tool-reminder: invalid threshold NaN — every threshold must be an integer >= 2'],
    [{ thresholds: [3, 3] }, 'repeat-tool-reminder: `thresholds` must not contain duplicates'],
    [{ argumentsPreviewChars: 0 }, 'repeat-tool-reminder: invalid argumentsPreviewChars 0 — must be an integer >= 1'],
    [{ argumentsPreviewChars: 1.5 }, 'repeat-tool-reminder: invalid argumentsPreviewChars 1.5 — must be an integer >= 1'],
  ];
  for (const [repeat, message] of cases) {
    assert.throws(() => new GuardEngine({ repeat }), { message }, JSON.stringify(repeat));
  }
});

test('config shape errors name the key', () => {
  /** @type {Array<[any, string]>} ill-typed on purpose: the input and the error it gets */
  const cases = [
    ['x', 'toolguard: config must be an object (got string)'],
    [{ repeat: 3 }, 'toolguard: config.repeat must be an object (got number)'],
    [{ repeat: { thresholds: '3' } }, 'toolguard: config.repeat.thresholds must be an array of numbers (got string)'],
    [{ repeat: { include: [1] } }, 'toolguard: config.repeat.include[0] must be a string (got number)'],
    [
      { repeat: { treshold: [3] } },
      'toolguard: unknown key config.repeat.treshold (expected one of: thresholds, include, exclude, argumentsPreviewChars)',
    ],
    [{ loudFailure: { shellTools: 'bash' } }, 'toolguard: config.loudFailure.shellTools must be an array of strings (got string)'],
    [{ loudFailure: { scanValue: 'yes' } }, 'toolguard: config.loudFailure.scanValue must be a boolean (got string)'],
    [{ loudFailure: { rules: [{ pattern: 'x' }] } }, 'toolguard: config.loudFailure.rules[0].id must be a string (got undefined)'],
    [
      { loudFailure: { rules: [{ id: 'r', pattern: 'x', action: 'loud', message: 'm' }] } },
      "loud-failure: rule r: `action` must be 'error', 'context' or 'off' (got \"loud\")",
    ],
  ];
  for (const [config, message] of cases) {
    assert.throws(() => new GuardEngine(config), { message }, JSON.stringify(config));
  }
});

test('bad exec input names the field', () => {
  const engine = new GuardEngine();
  /** @type {Array<[any, string]>} ill-typed on purpose: the input and the error it gets */
  const cases = [
    [null, 'toolguard: exec must be an object (got null)'],
    [{ argumentsJson: '{}' }, 'toolguard: exec.name must be a string (got undefined)'],
    [{ name: 7, argumentsJson: '{}' }, 'toolguard: exec.name must be a string (got number)'],
    [{ name: 't', agentId: 1, argumentsJson: '{}' }, 'toolguard: exec.agentId must be a string (got number)'],
    [{ name: 't' }, 'toolguard: exec.arguments or exec.argumentsJson is required'],
    [{ name: 't', arguments: {}, argumentsJson: '{}' }, 'toolguard: give exec.arguments or exec.argumentsJson, not both'],
    [{ name: 't', argumentsJson: {} }, 'toolguard: exec.argumentsJson must be a string (got object)'],
    [{ name: 't', arguments: () => 1 }, 'toolguard: exec.arguments is not JSON-serializable (JSON.stringify returned undefined)'],
  ];
  for (const [exec, message] of cases) {
    assert.throws(() => engine.observe(exec), { message }, JSON.stringify(exec));
  }
  const cyclic = {};
  cyclic.self = cyclic;
  assert.throws(() => engine.observe({ name: 't', arguments: cyclic }), /toolguard: exec\.arguments is not JSON-serializable: .*circular/i);
});

test('bad result input names the field (only for scanned tools)', () => {
  const engine = new GuardEngine();
  const exec = { name: 'bash', argumentsJson: '{}' };
  // @ts-expect-error the wrong type is the point
  assert.throws(() => engine.observe(exec, 7), { message: 'toolguard: result must be an object or a string (got number)' });
  // @ts-expect-error the wrong type is the point
  assert.throws(() => engine.observe(exec, ['out']), { message: 'toolguard: result must be an object or a string (got array)' });
  // @ts-expect-error the wrong type is the point
  assert.throws(() => engine.observe(exec, { content: 'x' }), { message: 'toolguard: result.content must be an array (got string)' });
  // @ts-expect-error the wrong type is the point
  assert.throws(() => engine.observe(exec, { isError: 1 }), { message: 'toolguard: result.isError must be a boolean (got number)' });
  // @ts-expect-error the wrong type is the point
  assert.throws(() => engine.observe(exec, { content: [{ type: 'text', text: 3 }] }), {
    message: 'toolguard: result.content[0].text must be a string (got number)',
  });
  // Not a shell tool: the result is not read at all.
  assert.equal(engine.observe({ name: 'read', argumentsJson: '{}' }, 'out'), null);
});

const traceback = 'step 1\nTraceback (most recent call last):\n  File "train.py", line 3, in <module>\nZeroDivisionError: division by zero';

test('an error rule blocks with a header naming the rule, then the output verbatim', () => {
  const engine = new GuardEngine();
  const verdict = engine.observe(
    { name: 'bash', argumentsJson: '{"command":"python train.py | tail -4"}' },
    {
      content: [{ type: 'text', text: traceback }],
    },
  );
  assert.equal(verdict.reminder, undefined);
  const { failure } = verdict;
  assert.equal(failure.action, 'error');
  assert.equal(failure.rules.length >= 1, true);
  const hit = failure.rules[0];
  assert.equal(hit.line, 2);
  assert.equal(hit.excerpt, 'Traceback (most recent call last):');
  assert.equal(failure.summary, `bash: ${failure.rules.map((r) => r.id).join(', ')}`);
  assert.equal(
    failure.text,
    `[loud-failure] bash reported no error but its output shows it failed:\n${failure.rules
      .map((r) => `- ${r.id} (line ${r.line}): ${r.message}\n  > ${r.excerpt}`)
      .join('\n')}\nOriginal output:\n${traceback}`,
  );
});

test('when:success rules stay silent when the output shows failure already', () => {
  const engine = new GuardEngine();
  for (const marker of [
    '[exit code: 1]',
    '[status: completed, exit code: 2]',
    '[sandbox: file access denied under read-only mode]',
    '[killed by signal: SIGKILL]',
    '[timed out after 1000ms]',
  ]) {
    const name = marker.startsWith('[status') ? 'job_output' : 'bash';
    assert.equal(engine.observe({ name, argumentsJson: '{}' }, { text: `${traceback}\n${marker}` }), null, marker);
  }
  assert.notEqual(engine.observe({ name: 'bash', argumentsJson: '{}' }, { text: `${traceback}\n[exit code: 0]` }), null);
});

test('only shellTools are scanned, error results never, and non-text blocks are skipped', () => {
  const engine = new GuardEngine({ loudFailure: { shellTools: ['my_*'] } });
  assert.equal(engine.observe({ name: 'bash', argumentsJson: '{}' }, { text: traceback }), null);
  assert.equal(engine.observe({ name: 'my_shell', argumentsJson: '{}' }, { text: traceback }).failure.action, 'error');
  assert.equal(engine.observe({ name: 'my_shell', argumentsJson: '{}' }, { isError: true, text: traceback }), null);
  assert.equal(engine.observe({ name: 'my_shell', argumentsJson: '{}' }, { content: [{ type: 'image', text: traceback }] }), null);
});

test('context rules add a notice; an error match wins over context', () => {
  /** @type {import('toolguard').Rule[]} */
  const rules = [
    {
      id: 'warn-deprecated',
      pattern: '^DeprecationWarning:',
      flags: 'm',
      action: 'context',
      when: 'success',
      message: 'a deprecated API is used',
    },
  ];
  const engine = new GuardEngine({ loudFailure: { rules } });
  const text = 'ok\nDeprecationWarning: old api';
  const { failure } = engine.observe({ name: 'bash', argumentsJson: '{}' }, { text });
  assert.deepEqual(failure, {
    action: 'context',
    summary: 'bash: warn-deprecated',
    text: '[loud-failure] bash output may show a silent failure:\n- warn-deprecated (line 2): a deprecated API is used\n  > DeprecationWarning: old api',
    rules: [{ id: 'warn-deprecated', message: 'a deprecated API is used', line: 2, excerpt: 'DeprecationWarning: old api' }],
  });
  const both = engine.observe({ name: 'bash', argumentsJson: '{}' }, { text: `${text}\n${traceback}` }).failure;
  assert.equal(both.action, 'error');
  assert.ok(both.rules.some((r) => r.id === 'warn-deprecated'));
});

test('user rules replace built-ins by id in place; off rules never run; duplicates fail', () => {
  const probe = new GuardEngine().observe({ name: 'bash', argumentsJson: '{}' }, { text: traceback }).failure.rules[0].id;
  const off = new GuardEngine({ loudFailure: { rules: [{ id: probe, pattern: 'x', action: 'off', message: 'm' }] } });
  assert.equal(off.observe({ name: 'bash', argumentsJson: '{}' }, { text: traceback }), null);
  const replaced = new GuardEngine({
    loudFailure: { rules: [{ id: probe, pattern: 'ZeroDivision', action: 'context', message: 'mine' }] },
  });
  const hit = replaced.observe({ name: 'bash', argumentsJson: '{}' }, { text: traceback }).failure.rules[0];
  assert.deepEqual([hit.id, hit.message, hit.line], [probe, 'mine', 4]);
  /** @type {import('toolguard').Rule} */
  const dup = { id: 'mine', pattern: 'x', action: 'error', message: 'm' };
  assert.throws(() => new GuardEngine({ loudFailure: { rules: [dup, dup] } }), /loud-failure: rule mine: /);
});

test('bad rules fail the load naming the rule id and the construct', () => {
  const rule = (extra) => ({ loudFailure: { rules: [{ id: 'bad-one', pattern: 'x', action: 'error', message: 'm', ...extra }] } });
  for (const extra of [
    { pattern: '(' },
    { flags: 'g' },
    { flags: 'y' },
    { flags: 'q' },
    { message: '' },
    { pattern: 'a(?=b)' },
    { pattern: '(a)\\1' },
    { pattern: '(?<!x)y' },
  ]) {
    assert.throws(() => new GuardEngine(rule(extra)), /^Error: loud-failure: rule bad-one: /, JSON.stringify(extra));
  }
});

test('scanValue scans the JSON of a successful value, after the text blocks', () => {
  /** @type {import('toolguard').Rule[]} */
  const rules = [{ id: 'quota', pattern: 'quota exceeded', action: 'error', message: 'over quota' }];
  const value = { status: 'quota exceeded' };
  const result = { text: 'line one\nline two', value };
  assert.equal(new GuardEngine({ loudFailure: { rules } }).observe({ name: 'bash', argumentsJson: '{}' }, result), null);
  const engine = new GuardEngine({ loudFailure: { rules, scanValue: true } });
  const { failure } = engine.observe({ name: 'bash', argumentsJson: '{}' }, result);
  assert.deepEqual(failure.rules, [{ id: 'quota', message: 'over quota', line: 3, excerpt: '{"status":"quota exceeded"}' }]);
  assert.ok(failure.text.endsWith('Original output:\nline one\nline two'), 'the value JSON is not part of the original output');
  assert.equal(engine.observe({ name: 'bash', argumentsJson: '{}' }, { isError: true, value }), null);
});

test('observe scans coloured output as the terminal shows it; the original output stays as given', () => {
  const text =
    'collected 2 items\n\x1b]8;;file:///t/test_x.py\x1b\\test_x.py\x1b]8;;\x1b\\ \x1b[31mF\x1b[0m\x1b[32m.\x1b[0m\n' +
    '\x1b[31m\x1b[1m=== 1 failed, 1 passed in 0.02s ===\x1b[0m';
  const { failure } = new GuardEngine().observe({ name: 'bash', argumentsJson: '{}' }, { text });
  assert.equal(failure.action, 'error');
  const hit = failure.rules[0];
  assert.deepEqual([hit.line, hit.excerpt], [3, '=== 1 failed, 1 passed in 0.02s ===']);
  assert.ok(failure.text.endsWith(`Original output:\n${text}`));
});

test('a reminder and a failure can come together', () => {
  const engine = new GuardEngine({ repeat: { thresholds: [2] } });
  const exec = { agentId: 'a', name: 'bash', argumentsJson: '{"command":"python x.py"}' };
  engine.observe(exec, { text: 'fine' });
  const verdict = engine.observe(exec, { text: traceback });
  assert.equal(verdict.reminder.count, 2);
  assert.equal(verdict.failure.action, 'error');
});

test('with scanValue, failure markers of the text still keep when:success rules silent', () => {
  /** @type {import('toolguard').Rule[]} */
  const rules = [{ id: 'quota', pattern: 'quota exceeded', action: 'error', message: 'over quota' }];
  const engine = new GuardEngine({ loudFailure: { rules, scanValue: true } });
  const result = { text: 'quota exceeded\n[exit code: 3]', value: { stdout: 'quota exceeded' } };
  assert.equal(engine.observe({ name: 'bash', argumentsJson: '{}' }, result), null);
});

test('a string result of a tool that is not scanned reaches the loop detectors as its object form does', () => {
  // Such a text is read for the loop digest alone, through a reused buffer
  // (short) or the general reader (long): both must see what the object gives.
  const asObject = new GuardEngine({ loops: {} });
  const asString = new GuardEngine({ loops: {} });
  const texts = [
    'line one\nline two',
    'naïve café ✓ 中文 😀\n',
    'lone \ud800 surrogate',
    'x'.repeat(20000),
    'HTTP/1.1 404 Not Found\n\n{}',
    'boom\n[exit code: 2]',
  ];
  for (const [k, text] of texts.entries()) {
    const exec = (i) => ({
      name: 'read_file',
      agentId: 'a',
      argumentsJson: JSON.stringify({ path: `f${k}`, i: text.startsWith('HTTP') || text.startsWith('boom') ? i : 0 }),
    });
    for (let i = 0; i < 4; i++) {
      const a = asObject.observe(exec(i), { content: [{ type: 'text', text }] });
      const b = asString.observe(exec(i), text);
      assert.deepEqual(b, a, `text ${k}, call ${i}`);
      if (i === 3) assert.ok(b?.loop, `text ${k}: the fourth call loops (${JSON.stringify(b)})`);
    }
  }
  assert.deepEqual(asString.chainState('a'), asObject.chainState('a'));
  // @ts-expect-error the wrong type is the point
  assert.throws(() => asString.observe({ name: 'read_file', agentId: 'a', argumentsJson: '{}' }, 42), {
    message: 'toolguard: result must be an object or a string (got number)',
  });
});

test('reset and forget name a non-string agentId', () => {
  const engine = new GuardEngine();
  // @ts-expect-error the wrong type is the point
  assert.throws(() => engine.reset(1), { message: 'toolguard: agentId must be a string (got number)' });
  assert.throws(() => engine.forget(undefined), { message: 'toolguard: agentId must be a string (got undefined)' });
});

test('a string result is the result with that one text block', () => {
  // The DSH plugins pass a lone text block this way (one N-API read instead of
  // one per property); every verdict must be the same as for the object.
  const out = 'npm ERR! code E404\nnpm ERR! 404 Not Found';
  const exec = { name: 'bash', agentId: 'a', argumentsJson: '{"command":"npm i x"}' };
  const asObject = new GuardEngine({ loops: {} });
  const asString = new GuardEngine({ loops: {} });
  let last;
  for (let i = 0; i < 4; i++) {
    const a = asObject.observe(exec, { content: [{ type: 'text', text: out }] });
    last = asString.observe(exec, out);
    assert.deepEqual(last, a);
  }
  assert.equal(last?.loop?.kind, 'repeat');
  assert.ok(last?.failure, 'the text is scanned');
  const long = `${'compiling ok\n'.repeat(800)}npm ERR! code E404`;
  assert.deepEqual(
    asString.observe({ name: 'bash', argumentsJson: '{}' }, long),
    asObject.observe({ name: 'bash', argumentsJson: '{}' }, { text: long }),
  );
  assert.deepEqual(asString.chainState('a'), asObject.chainState('a'));
});
