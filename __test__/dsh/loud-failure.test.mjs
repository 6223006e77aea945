// Silent-failure behaviour inside a real DSH agent loop, for both of our
// modules that carry it (there is no official implementation to compare with).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { boot, textTool } from './kit.mjs';
import { loudFailureVariants, selected } from './variants.mjs';

const require = createRequire(import.meta.url);

const BOOM = { id: 'test-boom', pattern: 'BOOM\\b', action: 'error', when: 'success', message: 'the boom went off' };
const NOTE = { id: 'test-note', pattern: '^note: .*degraded', flags: 'm', action: 'context', when: 'success', message: 'output degraded' };
const ALWAYS = { id: 'test-always', pattern: 'PANIC', action: 'error', when: 'always', message: 'a panic, whatever the exit' };

const call = (name, args) => [{ name, args }];

/**
 * Boot with a fake `bash` (and look-alike tools) whose output is whatever the
 * call's `out` argument says, so each call scripts its own transcript.
 */
async function setup(t, variant, config = {}) {
  const module = await variant.load();
  const h = await boot();
  t.after(() => h.dispose());
  for (const name of ['bash', 'pwsh', 'job_output', 'read_file', 'my_shell']) {
    h.tool(
      textTool(name, (args) => {
        if (args.throw) throw new Error(args.out);
        return args.out;
      }),
    );
  }
  await h.plugin(module, variant.wrap(config));
  return h;
}

const results = (h, a) => h.timeline(a).filter((e) => e.kind === 'result');

for (const variant of selected(loudFailureVariants)) {
  describe(`loud failure — ${variant.label}`, () => {
    test('an error rule turns an exit-0 result into an isError result: header, then the original output', async (t) => {
      const h = await setup(t, variant, { rules: [BOOM] });
      const a = h.agent('s1');
      const out = 'building docs\n  BOOM  while writing out.pdf\ndone';
      await h.turn(a, [call('bash', { out })]);
      const [r] = results(h, a);
      assert.equal(r.isError, true);
      assert.deepEqual(r.content, [
        {
          type: 'text',
          text:
            '[loud-failure] bash reported no error but its output shows it failed:\n' +
            '- test-boom (line 2): the boom went off\n' +
            '  > BOOM  while writing out.pdf\n' +
            'Original output:\n' +
            out,
        },
      ]);
      assert.deepEqual(h.contexts(a), []);
    });

    test('a context rule keeps the result and adds a loud-failure notice', async (t) => {
      const h = await setup(t, variant, { rules: [NOTE] });
      const a = h.agent('s1');
      const out = 'converted 3 files\nnote: glyph U+2011 missing, output degraded\nwrote book.pdf';
      await h.turn(a, [call('bash', { out })]);
      const tl = h.timeline(a);
      assert.deepEqual(
        tl.map((e) => e.kind),
        ['result', 'context'],
      );
      assert.equal(tl[0].isError, false);
      assert.equal(tl[0].text, out);
      assert.deepEqual(tl[1].source, { kind: 'plugin', plugin: 'loud-failure', form: 'notice', summary: 'bash: test-note' });
      assert.equal(
        tl[1].text,
        '[loud-failure] bash output may show a silent failure:\n' +
          '- test-note (line 2): output degraded\n' +
          '  > note: glyph U+2011 missing, output degraded',
      );
    });

    test('an error match wins over a context match and the header lists both', async (t) => {
      const h = await setup(t, variant, { rules: [NOTE, BOOM] });
      const a = h.agent('s1');
      const out = 'note: fonts degraded\nBOOM';
      await h.turn(a, [call('bash', { out })]);
      const [r] = results(h, a);
      assert.equal(r.isError, true);
      assert.match(
        r.text,
        /^\[loud-failure\] bash reported no error but its output shows it failed:\n- test-note \(line 1\): output degraded\n {2}> note: fonts degraded\n- test-boom \(line 2\)/,
      );
      assert.deepEqual(h.contexts(a), []);
    });

    test('a non-zero [exit code: N] keeps when:success rules silent; when:always rules still fire', async (t) => {
      const h = await setup(t, variant, { rules: [BOOM, ALWAYS] });
      const a = h.agent('s1');
      const failed = 'BOOM\n[stderr]\nsomething broke\n[exit code: 2]';
      await h.turn(a, [call('bash', { out: failed })]);
      const [silent] = results(h, a);
      assert.equal(silent.isError, false);
      assert.equal(silent.text, failed);
      const panicked = 'BOOM\nPANIC: at the disco\n[exit code: 101]';
      await h.turn(a, [call('bash', { out: panicked })]);
      const [, loud] = results(h, a);
      assert.equal(loud.isError, true);
      assert.equal(
        loud.text,
        '[loud-failure] bash output shows a failure:\n- test-always (line 2): a panic, whatever the exit\n  > PANIC: at the disco\nOriginal output:\n' +
          panicked,
      );
    });

    test('a job_output status trailer with a non-zero exit code also counts as shown failure', async (t) => {
      const h = await setup(t, variant, { rules: [BOOM] });
      const a = h.agent('s1');
      await h.turn(a, [call('job_output', { out: 'BOOM\n[status: exited, exit code: 1]' })]);
      await h.turn(a, [call('job_output', { out: 'BOOM\n[status: exited, exit code: 0]' })]);
      assert.deepEqual(
        results(h, a).map((r) => r.isError),
        [false, true],
      );
    });

    test('tools outside shellTools are not scanned; shellTools wildcards select the scanned tools', async (t) => {
      const h = await setup(t, variant, { rules: [BOOM] });
      const a = h.agent('s1');
      await h.turn(a, [call('read_file', { out: 'BOOM' }), call('my_shell', { out: 'BOOM' }), call('pwsh', { out: 'BOOM' })]);
      assert.deepEqual(
        results(h, a).map((r) => r.isError),
        [false, false, true],
      );

      const h2 = await setup(t, variant, { rules: [BOOM], shellTools: ['my_*'] });
      const b = h2.agent('s2');
      await h2.turn(b, [call('my_shell', { out: 'BOOM' }), call('bash', { out: 'BOOM' })]);
      assert.deepEqual(
        results(h2, b).map((r) => r.isError),
        [true, false],
      );
    });

    test('scanValue also scans the JSON of a successful value', async (t) => {
      for (const scanValue of [false, true]) {
        const h = await setup(t, variant, { rules: [BOOM], scanValue, shellTools: ['job_status'] });
        // A shell-like tool whose value carries more than its rendered text.
        h.tool({
          name: 'job_status',
          description: 'test tool job_status',
          parameters: { type: 'object', properties: {}, additionalProperties: true },
          output: {
            schema: { type: 'object', additionalProperties: true },
            render: () => [{ type: 'text', text: 'job finished' }],
          },
          execute: async () => ({ log: 'BOOM at step 3' }),
        });
        const a = h.agent('s1');
        await h.turn(a, [call('job_status', {})]);
        const [r] = results(h, a);
        assert.equal(r.isError, scanValue, `scanValue ${scanValue}`);
        if (scanValue) {
          assert.equal(
            r.text,
            '[loud-failure] job_status reported no error but its output shows it failed:\n' +
              '- test-boom (line 2): the boom went off\n  > {"log":"BOOM at step 3"}\n' +
              'Original output:\njob finished',
          );
        }
      }
    });

    test('error results are never scanned', async (t) => {
      const h = await setup(t, variant, { rules: [BOOM] });
      const a = h.agent('s1');
      await h.turn(a, [call('bash', { out: 'BOOM', throw: true })]);
      const [r] = results(h, a);
      assert.equal(r.isError, true);
      assert.doesNotMatch(r.text, /loud-failure/);
    });

    test('an error verdict keeps downstream contexts; a downstream block is left as it is', async (t) => {
      const h = await setup(t, variant, { rules: [BOOM] });
      const { createUserMessage } = await import('@deepseek-ai/dsh-llm');
      h.ctx.on('tools/post-execute', async (exec, _result, next) => {
        await next();
        const context = createUserMessage({
          content: [{ type: 'text', text: 'policy note' }],
          source: { kind: 'plugin', plugin: 'policy', form: 'notice', summary: 'policy' },
        });
        if (exec.arguments.block)
          return { kind: 'block', feedback: [{ type: 'text', text: 'policy says no' }], additionalContexts: [context] };
        return { kind: 'accept', additionalContexts: [context] };
      });
      const a = h.agent('s1');
      await h.turn(a, [call('bash', { out: 'BOOM' }), call('bash', { out: 'BOOM', block: true })]);
      const tl = h.timeline(a);
      assert.deepEqual(
        tl.map((e) => (e.kind === 'result' ? e.isError : e.plugin)),
        [true, 'policy', true, 'policy'],
      );
      assert.match(tl[0].text, /^\[loud-failure\] bash reported no error/);
      assert.equal(tl[2].text, 'policy says no');
    });

    test('a user rule replaces a built-in rule by id', async (t) => {
      const builtin = JSON.parse(readFileSync(require.resolve('toolguard/rules/builtin.json'), 'utf8'));
      const rule = builtin.find((r) => r.id === 'python-traceback');
      assert.ok(rule, 'the built-in python-traceback rule exists');
      // A pipe to tail hides the exit status: exit 0, traceback in the output.
      const out = [
        'processing batch 1/3',
        'Traceback (most recent call last):',
        '  File "/srv/etl/run.py", line 42, in <module>',
        '    main()',
        "KeyError: 'customer_id'",
      ].join('\n');
      const summaryOf = (h, a) => {
        const r = results(h, a)[0];
        const notice = h.contexts(a).find((c) => c.plugin === 'loud-failure');
        return r.isError ? r.text.split('\n').slice(1).join('\n') : (notice?.text ?? '');
      };

      const h = await setup(t, variant);
      const a = h.agent('s1');
      await h.turn(a, [call('bash', { out })]);
      assert.match(summaryOf(h, a), new RegExp(`^- ${rule.id} \\(line \\d+\\): `, 'm'), 'the built-in fires by default');

      const replaced = { ...rule, message: 'replaced by the user', action: 'context', when: 'always' };
      delete replaced.reason;
      const h2 = await setup(t, variant, { rules: [replaced] });
      const b = h2.agent('s2');
      await h2.turn(b, [call('bash', { out })]);
      const text = summaryOf(h2, b);
      assert.match(text, new RegExp(`^- ${rule.id} \\(line \\d+\\): replaced by the user$`, 'm'));
      assert.equal(text.split('\n').filter((l) => l.startsWith(`- ${rule.id} `)).length, 1, 'replaced, not duplicated');

      const h3 = await setup(t, variant, { rules: [{ ...replaced, action: 'off' }] });
      const c = h3.agent('s3');
      await h3.turn(c, [call('bash', { out })]);
      assert.doesNotMatch(summaryOf(h3, c), new RegExp(`^- ${rule.id} `, 'm'));
    });

    describe('a bad rule table fails the plugin load naming the rule id', () => {
      /** @type {Array<[string, object[], string]>} label, rules, the id the error names */
      const cases = [
        ['an invalid regex', [{ ...BOOM, id: 'bad-regex', pattern: 'unclosed(' }], 'bad-regex'],
        ['a stateful flag', [{ ...BOOM, id: 'bad-flag', flags: 'g' }], 'bad-flag'],
        ['an empty message', [{ ...BOOM, id: 'bad-message', message: '' }], 'bad-message'],
        [
          'two user rules with one id',
          [
            { ...BOOM, id: 'twice' },
            { ...NOTE, id: 'twice' },
          ],
          'twice',
        ],
        ['an unknown action', [{ ...BOOM, id: 'bad-action', action: 'warn' }], 'bad-action'],
        ['a lookbehind the linear-time engine cannot run', [{ ...BOOM, id: 'bad-lookbehind', pattern: '(?<=x)BOOM' }], 'bad-lookbehind'],
      ];
      for (const [label, rules, id] of cases) {
        test(label, async (t) => {
          const module = await variant.load();
          const h = await boot();
          t.after(() => h.dispose());
          await assert.rejects(h.plugin(module, variant.wrap({ rules })), (/** @type {Error} */ error) => {
            assert.match(error.message, new RegExp(`^loud-failure: rule ${id}: `));
            return true;
          });
        });
      }
    });

    test('fails open: when the engine throws, one warning and the result passes unchanged', async (t) => {
      const { GuardEngine } = require('toolguard');
      const original = GuardEngine.prototype.observe;
      const h = await setup(t, variant, { rules: [BOOM] });
      GuardEngine.prototype.observe = function observe() {
        throw new Error('engine exploded');
      };
      t.after(() => {
        GuardEngine.prototype.observe = original;
      });
      const a = h.agent('s1');
      await h.turn(a, [call('bash', { out: 'BOOM' })]);
      GuardEngine.prototype.observe = original;
      const [r] = results(h, a);
      assert.equal(r.isError, false);
      assert.equal(r.text, 'BOOM');
      const warnings = h.warnings.filter((w) => w.type === 'warn');
      assert.equal(warnings.length, 1);
      assert.match(String(warnings[0].args[0]), /engine exploded/);
      // The engine works again on the next call.
      await h.turn(a, [call('bash', { out: 'BOOM' })]);
      assert.equal(results(h, a)[1].isError, true);
    });
  });
}

describe('toolguard/dsh (combined): both guards on one call', () => {
  test('a repeated failing command is blocked and reminded', async (t) => {
    const [variant] = loudFailureVariants.filter((v) => v.label.includes('combined'));
    const module = await variant.load();
    const h = await boot();
    t.after(() => h.dispose());
    h.tool(textTool('bash', (args) => args.out));
    await h.plugin(module, { loudFailure: { rules: [BOOM] }, repeat: { thresholds: [2] }, loops: false });
    const a = h.agent('s1');
    await h.turn(a, [call('bash', { out: 'BOOM' }), call('bash', { out: 'BOOM' })]);
    const tl = h.timeline(a);
    assert.deepEqual(
      tl.map((e) => (e.kind === 'result' ? e.isError : e.summary)),
      [true, true, 'bash × 2'],
    );
  });
});
