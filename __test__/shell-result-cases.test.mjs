// The shell result cases (corpus/cases/shell-result.json), replayed by the
// addon and the reference engine: a result given as `shell` (the host's
// value, the text made by the engine) draws exactly the verdict of the
// expected text given as `text`. The core replays the same file
// (crates/toolguard-core/src/shell_result.rs).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { GuardEngine } from 'toolguard';
import { GuardEngine as ReferenceEngine } from '../dist/reference/index.mjs';

const { cases } = JSON.parse(readFileSync(new URL('../corpus/cases/shell-result.json', import.meta.url), 'utf8'));
// Every text draws a verdict that quotes it whole.
/** @type {import('toolguard').GuardConfig} */
const config = { loudFailure: { rules: [{ id: 'any', pattern: '[\\s\\S]', action: 'error', when: 'always', message: 'any' }] } };
const exec = { name: 'bash', argumentsJson: '{"command":"make"}' };
/** The verdict with lone surrogates as U+FFFD: a text the native engine puts together is UTF-8 (see the exact case below). */
const wellFormed = (verdict) =>
  JSON.parse(JSON.stringify(verdict), (_, v) => (typeof v === 'string' ? /** @type {any} */ (v).toWellFormed() : v));

/** @type {Array<[string, typeof GuardEngine]>} */
const engines = [
  ['native', GuardEngine],
  ['reference', ReferenceEngine],
];
for (const [label, Engine] of engines) {
  describe(`shell result cases: ${label}`, () => {
    for (const c of cases) {
      it(c.name, () => {
        const engine = new Engine(config);
        const got = engine.observe(exec, { shell: c.shell });
        const want = engine.observe(exec, c.text === null ? {} : { text: c.text });
        assert.deepEqual(wellFormed(got), wellFormed(want));
        if (c.text !== null) assert.ok(got?.failure, 'the rules see a text');
      });
    }

    it('an output that is one string as given is quoted exactly, lone surrogates and all', () => {
      const output = `cut \udc00 here ${'x'.repeat(70_000)}`;
      const got = new Engine(config).observe(exec, { shell: { output } });
      assert.ok(got.failure.text.endsWith(output));
    });
  });
}
