// Repeat-call reminder behaviour inside a real DSH agent loop, run against
// the official plugin and ours with identical expectations.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { boot, textTool } from './kit.mjs';
import { repeatVariants, selected } from './variants.mjs';

const GENTLE =
  'You are repeating the exact same tool call with identical arguments. Carefully analyze the previous result before calling again: if the task is not complete, try a different approach or different arguments instead of repeating the call.';
const detailed = (tool, count, args) =>
  `Repeated tool call detected:\n- tool: ${tool}\n- consecutive_calls: ${count}\n- arguments: ${args}\n` +
  'The repeated calls are not making progress. Do not call this tool with these exact arguments again. Inspect the latest result and choose a different action, different arguments, or finish the task if enough evidence has been gathered.';

const call = (name, args = {}) => [{ name, args }];
const times = (n, step) => Array.from({ length: n }, () => step);

/**
 * Compress a timeline to what these tests assert on: `probe` for a result,
 * `<summary>` in angle brackets for a reminder, e.g. ['probe', 'probe', 'probe', '<probe × 3>'].
 */
function shape(timeline) {
  return timeline.map((e) => (e.kind === 'result' ? e.name : `<${e.summary}>`));
}

async function setup(t, variant, config = {}) {
  const module = await variant.load();
  const h = await boot();
  t.after(() => h.dispose());
  for (const name of ['probe', 'other', 'todo_write', 'pr.be', 'denied']) h.tool(textTool(name));
  await h.plugin(module, variant.wrap(config));
  return h;
}

for (const variant of selected(repeatVariants)) {
  describe(`repeat reminder — ${variant.label}`, () => {
    test('escalates at the default thresholds: gentle at 3, detailed at 5 and 8, then silent', async (t) => {
      const h = await setup(t, variant);
      const a = h.agent('s1');
      await h.turn(a, times(10, call('probe', { path: 'a.txt' })));
      const tl = h.timeline(a);
      assert.deepEqual(shape(tl), [
        'probe',
        'probe',
        'probe',
        '<probe × 3>',
        'probe',
        'probe',
        '<probe × 5>',
        'probe',
        'probe',
        'probe',
        '<probe × 8>',
        'probe',
        'probe',
      ]);
      const contexts = tl.filter((e) => e.kind === 'context');
      assert.equal(contexts[0].text, GENTLE);
      assert.equal(contexts[1].text, detailed('probe', 5, '{"path":"a.txt"}'));
      assert.equal(contexts[2].text, detailed('probe', 8, '{"path":"a.txt"}'));
      for (const c of contexts) {
        assert.deepEqual(c.source, { kind: 'plugin', plugin: 'repeat-tool-reminder', form: 'notice', summary: c.summary });
      }
      // Advisory only: every result is the tool's own output.
      assert.ok(tl.filter((e) => e.kind === 'result').every((e) => e.text === 'ok' && !e.isError));
    });

    test('the gentle text is keyed to thresholds[0] of an unsorted config ([4, 2])', async (t) => {
      const h = await setup(t, variant, { thresholds: [4, 2] });
      const a = h.agent('s1');
      await h.turn(a, times(5, call('probe', { q: 1 })));
      const contexts = h.contexts(a);
      assert.deepEqual(
        contexts.map((c) => c.summary),
        ['probe × 2', 'probe × 4'],
      );
      assert.equal(contexts[0].text, GENTLE);
      assert.equal(contexts[1].text, detailed('probe', 4, '{"q":1}'));
    });

    test('argumentsPreviewChars caps the preview while the key compares the full arguments', async (t) => {
      const h = await setup(t, variant, { thresholds: [2, 3], argumentsPreviewChars: 24 });
      const a = h.agent('s1');
      const p = { text: 'a'.repeat(400) };
      const q = { text: `${'a'.repeat(399)}b` }; // same first 409 chars of canonical form
      await h.turn(a, [...times(3, call('probe', p)), ...times(2, call('probe', q))]);
      const contexts = h.contexts(a);
      assert.deepEqual(
        contexts.map((c) => c.summary),
        ['probe × 2', 'probe × 3', 'probe × 2'],
      );
      const canonical = JSON.stringify(p);
      assert.equal(canonical.length, 411);
      assert.equal(contexts[1].text, detailed('probe', 3, `${canonical.slice(0, 24)}… (+387 more chars)`));
    });

    test('a preview exactly at the cap is not truncated', async (t) => {
      const h = await setup(t, variant, { thresholds: [2, 3], argumentsPreviewChars: 11 });
      const a = h.agent('s1');
      await h.turn(a, times(3, call('probe', { k: 'abcde' }))); // {"k":"abcde"} is 13 chars
      await h.turn(a, times(3, call('probe', { k: 'abc' }))); // {"k":"abc"} is 11 chars
      const texts = h.contexts(a).map((c) => c.text);
      assert.equal(texts[1], detailed('probe', 3, '{"k":"abcde… (+2 more chars)'));
      assert.equal(texts[3], detailed('probe', 3, '{"k":"abc"}'));
    });

    test('a different tracked call resets the count', async (t) => {
      const h = await setup(t, variant);
      const a = h.agent('s1');
      await h.turn(a, [
        call('probe', { x: 1 }),
        call('probe', { x: 1 }),
        call('probe', { x: 2 }),
        call('probe', { x: 1 }),
        call('probe', { x: 1 }),
        call('other', { x: 1 }),
        call('probe', { x: 1 }),
        call('probe', { x: 1 }),
        call('probe', { x: 1 }),
      ]);
      assert.deepEqual(
        h.contexts(a).map((c) => c.summary),
        ['probe × 3'],
      );
      assert.equal(shape(h.timeline(a)).at(-1), '<probe × 3>');
    });

    test('excluded calls are transparent: they neither count nor reset', async (t) => {
      const h = await setup(t, variant, { exclude: ['todo_*'] });
      const a = h.agent('s1');
      await h.turn(a, [
        call('probe'),
        call('todo_write', { i: 1 }),
        call('probe'),
        call('todo_write', { i: 2 }),
        call('probe'),
        call('todo_write'),
        call('todo_write'),
        call('todo_write'),
      ]);
      assert.deepEqual(shape(h.timeline(a)), [
        'probe',
        'todo_write',
        'probe',
        'todo_write',
        'probe',
        '<probe × 3>',
        'todo_write',
        'todo_write',
        'todo_write',
      ]);
    });

    test('include wildcards select the tracked tools; others are transparent', async (t) => {
      const h = await setup(t, variant, { include: ['pro*', 'nothing'] });
      const a = h.agent('s1');
      await h.turn(a, [
        call('other'),
        call('other'),
        call('other'),
        call('probe'),
        call('other', { y: 1 }),
        call('probe'),
        call('other'),
        call('probe'),
      ]);
      assert.deepEqual(
        h.contexts(a).map((c) => c.summary),
        ['probe × 3'],
      );
    });

    test('pattern metacharacters are literal: `pr.be` does not match `probe`', async (t) => {
      const h = await setup(t, variant, { include: ['pr.be'] });
      const a = h.agent('s1');
      await h.turn(a, times(3, call('probe')));
      assert.deepEqual(h.contexts(a), []);
      await h.turn(a, times(3, call('pr.be')));
      assert.deepEqual(
        h.contexts(a).map((c) => c.summary),
        ['pr.be × 3'],
      );
    });

    test('object key order is ignored at every depth; array order is not', async (t) => {
      const h = await setup(t, variant, { thresholds: [3, 4] });
      const a = h.agent('s1');
      // Raw JSON text so the model's key order reaches the harness as written.
      const forms = [
        '{"a":1,"b":{"c":1,"d":[{"e":1,"f":{"h":2,"g":1}}]}}',
        '{"b":{"d":[{"f":{"g":1,"h":2},"e":1}],"c":1},"a":1}',
        '{"b":{"c":1,"d":[{"e":1,"f":{"h":2,"g":1}}]},"a":1}',
      ];
      await h.turn(
        a,
        forms.map((args) => call('probe', args)),
      );
      await h.turn(a, [...forms.map((args) => call('probe', args)), call('probe', '{"a":1,"b":{"c":1,"d":[{"f":{"g":1,"h":2},"e":1}]}}')]);
      const contexts = h.contexts(a);
      assert.deepEqual(
        contexts.map((c) => c.summary),
        ['probe × 3', 'probe × 3', 'probe × 4'],
      );
      assert.equal(contexts[2].text, detailed('probe', 4, '{"a":1,"b":{"c":1,"d":[{"e":1,"f":{"g":1,"h":2}}]}}'));
      await h.turn(a, [call('probe', { l: [1, 2] }), call('probe', { l: [2, 1] }), call('probe', { l: [1, 2] })]);
      assert.equal(h.contexts(a).length, 3);
    });

    test('JavaScript quirks of the canonical form match the official algorithm', async (t) => {
      const h = await setup(t, variant, { thresholds: [2, 3] });
      const a = h.agent('s1');
      // The official canonicalisation, restated as the oracle (DSH parses the
      // raw text first: empty → {}, malformed → the raw string).
      const parse = (raw) => {
        if (raw === '') return {};
        try {
          return JSON.parse(raw);
        } catch {
          return raw;
        }
      };
      const sort = (v) =>
        Array.isArray(v)
          ? v.map(sort)
          : v !== null && typeof v === 'object'
            ? Object.keys(v)
                .sort()
                .reduce((o, k) => {
                  o[k] = sort(v[k]);
                  return o;
                }, {})
            : v;
      const canonical = (raw) => JSON.stringify(sort(parse(raw)));
      const quirky = [
        '{"b":1,"a":2,"10":3,"9":4,"B":5,"é":6,"😀":7,"ﬀ":8}',
        // (-0 and 1e400 are not lossless JSON: DSH fails such calls before post-execute.)
        '{"n":[1e21,5e-7,0.1,1.0,123456789012345678901234567890,-1.5e-300]}',
        '{"__proto__":{"x":1},"a":1}',
        '{"s":"\u0001\u2028\ud800 tab\t"}',
        '{"unclosed":',
        '',
        '[3,{"b":1,"a":[]},null,true]',
      ];
      for (const raw of quirky) await h.turn(a, times(3, call('probe', raw)));
      const detailedTexts = h
        .contexts(a)
        .filter((c) => c.summary === 'probe × 3')
        .map((c) => c.text);
      assert.deepEqual(
        detailedTexts,
        quirky.map((raw) => detailed('probe', 3, canonical(raw))),
      );
      // Texts that differ only where the canonical form erases it are one call.
      await h.turn(a, [call('probe', '{"a":1.0}'), call('probe', '{"a":1}')]);
      await h.turn(a, [call('probe', '{"__proto__":7,"a":1}'), call('probe', '{"a":1}')]);
      await h.turn(a, [call('probe', ''), call('probe', '{}')]);
      assert.equal(h.contexts(a).length, quirky.length * 2 + 3);
    });

    test('two agents never share a chain', async (t) => {
      const h = await setup(t, variant);
      const a = h.agent('sa');
      const b = h.agent('sb');
      await h.turn(a, times(2, call('probe')));
      await h.wake(b, times(1, call('probe'))); // shared chain would make this the 3rd
      assert.deepEqual(h.contexts(b), []);
      await h.wake(a, times(1, call('probe'))); // B's call must not have reset A
      assert.deepEqual(
        h.contexts(a).map((c) => c.summary),
        ['probe × 3'],
      );
      await h.wake(b, times(2, call('probe')));
      assert.deepEqual(
        h.contexts(b).map((c) => c.summary),
        ['probe × 3'],
      );
    });

    test('two agents interleaving step by step keep separate counts', async (t) => {
      const h = await setup(t, variant);
      const a = h.agent('sa');
      const b = h.agent('sb');
      // Request order A B A B A B A B: each agent's third call is its own third.
      h.model.order.push('sa', 'sb', 'sa', 'sb', 'sa', 'sb', 'sa', 'sb');
      await Promise.all([h.turn(a, times(3, call('probe'))), h.turn(b, times(3, call('probe')))]);
      assert.deepEqual(h.model.served, ['sa', 'sb', 'sa', 'sb', 'sa', 'sb', 'sa', 'sb']);
      assert.deepEqual(
        h.contexts(a).map((c) => c.summary),
        ['probe × 3'],
      );
      assert.deepEqual(
        h.contexts(b).map((c) => c.summary),
        ['probe × 3'],
      );
    });

    test('a user prompt resets that agent’s chain; a plugin wake does not', async (t) => {
      const h = await setup(t, variant);
      const a = h.agent('s1');
      await h.turn(a, times(2, call('probe')));
      await h.turn(a, times(2, call('probe')), 'try again'); // counts 1, 2 after the reset
      assert.deepEqual(h.contexts(a), []);
      await h.wake(a, times(1, call('probe'))); // no user message: count 3
      assert.deepEqual(
        h.contexts(a).map((c) => c.summary),
        ['probe × 3'],
      );
    });

    test('a disposed agent’s chain is dropped: a new agent on the same session id starts at 1', async (t) => {
      const h = await setup(t, variant);
      const first = await h.ownedAgent('s1');
      await h.turn(first.agent, times(2, call('probe')));
      await first.dispose();
      const second = await h.ownedAgent('s1');
      assert.notEqual(second.agent, first.agent);
      await h.wake(second.agent, times(2, call('probe')));
      assert.deepEqual(h.contexts(second.agent), []);
      await h.wake(second.agent, times(1, call('probe')));
      assert.deepEqual(
        h.contexts(second.agent).map((c) => c.summary),
        ['probe × 3'],
      );
    });

    test('calls denied in tools/pre-execute still count', async (t) => {
      const h = await setup(t, variant);
      h.ctx.on('tools/pre-execute', (exec, next) => (exec.name === 'denied' ? { kind: 'deny', reason: 'not allowed' } : next()));
      const a = h.agent('s1');
      await h.turn(a, times(3, call('denied', { rm: '/' })));
      const tl = h.timeline(a);
      assert.ok(tl.filter((e) => e.kind === 'result').every((e) => e.isError && e.text.includes('not allowed')));
      assert.deepEqual(shape(tl).at(-1), '<denied × 3>');
    });

    test('direct ctx.tools.execute() without an agent neither crashes nor counts', async (t) => {
      const h = await setup(t, variant);
      const a = h.agent('s1');
      await h.turn(a, times(2, call('probe')));
      for (let i = 0; i < 5; i++) {
        const result = await h.execute('probe', {});
        assert.deepEqual(result.content, [{ type: 'text', text: 'ok' }]);
        assert.equal(result.isError, false);
        assert.equal(result.additionalContexts, undefined);
      }
      await h.execute('other', {}); // would reset an agent chain if it counted
      await h.wake(a, times(1, call('probe')));
      assert.deepEqual(
        h.contexts(a).map((c) => c.summary),
        ['probe × 3'],
      );
    });

    test('folding onto a downstream block keeps its feedback and contexts', async (t) => {
      const h = await setup(t, variant);
      const { createUserMessage } = await import('@deepseek-ai/dsh-llm');
      // Registered after the plugin, so it runs downstream of it (inside next()).
      h.ctx.on('tools/post-execute', async (exec, _result, next) => {
        const decision = await next();
        if (exec.name !== 'probe') return decision;
        return {
          kind: 'block',
          feedback: [{ type: 'text', text: 'blocked by policy' }],
          additionalContexts: [
            createUserMessage({
              content: [{ type: 'text', text: 'policy note' }],
              source: { kind: 'plugin', plugin: 'policy', form: 'notice', summary: 'policy' },
            }),
          ],
        };
      });
      const a = h.agent('s1');
      await h.turn(a, times(3, call('probe')));
      const tl = h.timeline(a);
      assert.deepEqual(shape(tl), ['probe', '<policy>', 'probe', '<policy>', 'probe', '<probe × 3>', '<policy>']);
      assert.ok(tl.filter((e) => e.kind === 'result').every((e) => e.isError && e.text === 'blocked by policy'));
      assert.equal(tl[5].text, GENTLE);
    });

    test('a downstream value replacement is preserved', async (t) => {
      const h = await setup(t, variant);
      h.ctx.on('tools/post-execute', async (exec, _result, next) => {
        await next();
        return { kind: 'accept', value: `replaced ${exec.callId}` };
      });
      const a = h.agent('s1');
      await h.turn(a, times(3, call('probe')));
      const tl = h.timeline(a);
      assert.deepEqual(shape(tl), ['probe', 'probe', 'probe', '<probe × 3>']);
      for (const e of tl.filter((x) => x.kind === 'result')) assert.equal(e.text, `replaced ${e.callId}`);
    });

    test('a downstream content replacement is preserved', async (t) => {
      const h = await setup(t, variant);
      h.ctx.on('tools/post-execute', async (_exec, _result, next) => {
        await next();
        return { kind: 'accept', content: [{ type: 'text', text: 'redacted' }] };
      });
      const a = h.agent('s1');
      await h.turn(a, times(3, call('probe')));
      const tl = h.timeline(a);
      assert.deepEqual(shape(tl), ['probe', 'probe', 'probe', '<probe × 3>']);
      assert.ok(tl.filter((e) => e.kind === 'result').every((e) => e.text === 'redacted'));
    });

    describe('config errors fail the plugin load with the official texts', () => {
      const cases = [
        [{ thresholds: [] }, 'repeat-tool-reminder: `thresholds` must not be empty'],
        [{ thresholds: [3, 1] }, 'repeat-tool-reminder: invalid threshold 1 — every threshold must be an integer >= 2'],
        [{ thresholds: [2.5] }, 'repeat-tool-reminder: invalid threshold 2.5 — every threshold must be an integer >= 2'],
        [{ thresholds: [-4] }, 'repeat-tool-reminder: invalid threshold -4 — every threshold must be an integer >= 2'],
        [{ thresholds: [3, 5, 3] }, 'repeat-tool-reminder: `thresholds` must not contain duplicates'],
        [{ argumentsPreviewChars: 0 }, 'repeat-tool-reminder: invalid argumentsPreviewChars 0 — must be an integer >= 1'],
        [{ argumentsPreviewChars: 1.5 }, 'repeat-tool-reminder: invalid argumentsPreviewChars 1.5 — must be an integer >= 1'],
      ];
      for (const [config, message] of cases) {
        test(JSON.stringify(config), async (t) => {
          const module = await variant.load();
          const h = await boot();
          t.after(() => h.dispose());
          await assert.rejects(h.plugin(module, variant.wrap(config)), (/** @type {Error} */ error) => {
            assert.equal(error.message, message);
            return true;
          });
        });
      }
      test('a valid edge config loads (thresholds [2], argumentsPreviewChars 1)', async (t) => {
        const module = await variant.load();
        const h = await boot();
        t.after(() => h.dispose());
        await h.plugin(module, variant.wrap({ thresholds: [2], argumentsPreviewChars: 1 }));
      });
    });
  });
}
