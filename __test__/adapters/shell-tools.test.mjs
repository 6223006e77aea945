// Every adapter's engine scans the one default
// shell-tool list (rules/shell-tools.json), compared without case. The
// adapters (the Claude Agent SDK adapter too) build their engine with
// `GuardEngine.withLoopsByDefault` and never name shell tools
// themselves; the DSH schema's default is the same list (dsh/ours.test.mjs),
// the audit readers' too (crates/toolguard-audit tests).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { GuardEngine } from 'toolguard';
import { GuardEngine as ReferenceEngine } from '../../dist/reference/index.mjs';

const { shellTools } = JSON.parse(readFileSync(new URL('../../rules/shell-tools.json', import.meta.url), 'utf8'));
const out = 'Traceback (most recent call last):\n  File "app.py", line 3, in <module>\nValueError: bad input\n';
const scans = (engine, name) => engine.observe({ name, arguments: { command: 'python app.py' } }, { text: out })?.failure !== undefined;

/** @type {Array<[string, typeof GuardEngine]>} */
const engines = [
  ['native', GuardEngine],
  ['reference', ReferenceEngine],
];

describe('the one default shell-tool list, without case', () => {
  for (const [label, Engine] of engines) {
    it(`${label}: the adapters' and the hook's engine configs scan every listed name in any case, and nothing else`, () => {
      for (const config of [undefined, { loops: false }]) {
        const engine = Engine.withLoopsByDefault(config);
        for (const name of shellTools) {
          for (const spelled of [name, name.toUpperCase(), name[0].toUpperCase() + name.slice(1)]) {
            assert.ok(scans(engine, spelled), `${spelled} is scanned`);
          }
        }
        assert.equal(scans(engine, 'read_file'), false);
      }
    });
  }
});
