// An error verdict's text is header + original output. Natively, for big
// outputs, the text is built in V8 from the original string (no copy through
// Rust); it must equal the reference engine's text byte for byte whatever the
// output size (around the 4,096-byte switch), shape (text, one block, several
// blocks) and content (lone surrogates kept exactly).
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { describe, it } from 'node:test';

const require = createRequire(import.meta.url);
const native = require('../index.js');
const reference = await import('../dist/reference/index.mjs');

const FAIL = 'make: *** [Makefile:214: all] Error 1';
function output(bytes, extra = '') {
  const line = 'gcc -O2 -c src/util.c -o build/util.o ✔\n';
  return line.repeat(Math.ceil(bytes / line.length)).slice(0, bytes) + extra + '\n' + FAIL;
}

describe('error verdict text, native vs reference', () => {
  const shapes = {
    block: (t) => ({ content: [{ type: 'text', text: t }] }),
    text: (t) => ({ text: t }),
    'two blocks': (t) => ({ content: [{ type: 'text', text: t.slice(0, 10) }, { type: 'image' }, { type: 'text', text: t.slice(10) }] }),
    'text and block': (t) => ({ text: 'first', content: [{ type: 'text', text: t }] }),
  };
  for (const bytes of [100, 4000, 4096, 4200, 100_000, 1_000_000]) {
    for (const [shape, make] of Object.entries(shapes)) {
      for (const extra of ['', '\ud800 lone \udc00']) {
        it(`${bytes} B, ${shape}${extra ? ', lone surrogates' : ''}`, () => {
          const result = make(output(bytes, extra));
          const n = new native.GuardEngine().observe({ name: 'bash', argumentsJson: '{}' }, result);
          const r = new reference.GuardEngine().observe({ name: 'bash', argumentsJson: '{}' }, result);
          assert.equal(n?.failure?.action, 'error');
          assert.equal(n.failure.text.length, r.failure.text.length);
          assert.ok(n.failure.text === r.failure.text, 'texts differ');
          assert.deepEqual({ ...n.failure, text: '' }, { ...r.failure, text: '' });
        });
      }
    }
  }
});

describe('the error header claims no exit status the result did not report', () => {
  // A framework's or MCP tool's result carries no exit status: "exited 0" would be made up.
  const cases = [
    ['no status', FAIL, '[loud-failure] bash reported no error but its output shows it failed:'],
    ['[exit code: 0]', `${FAIL}\n[exit code: 0]`, '[loud-failure] bash exited 0 but its output shows it failed:'],
    [
      '[status: exited, exit code: 0]',
      `${FAIL}\n[status: exited, exit code: 0]`,
      '[loud-failure] bash exited 0 but its output shows it failed:',
    ],
    ['[exit code: 0] mid-output', `[exit code: 0]\n${FAIL}`, '[loud-failure] bash reported no error but its output shows it failed:'],
  ];
  for (const [name, text, header] of cases) {
    for (const [engine, mod] of /** @type {const} */ ([
      ['native', native],
      ['reference', reference],
    ])) {
      it(`${name}, ${engine}`, () => {
        const v = new mod.GuardEngine().observe({ name: 'bash', argumentsJson: '{}' }, { text });
        assert.equal(v?.failure?.action, 'error');
        assert.equal(v.failure.text.split('\n')[0], header);
      });
    }
  }
});
