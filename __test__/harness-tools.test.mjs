// The harness tool model (rules/harness-tools.json) in the reference engine:
// every case of crates/toolguard-core/src/shell/tool-cases.tsv, which the
// native shell model's tests read too, gets the same effect and paths.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';

import { classifyCall } from '../dist/reference/shell.mjs';

const cases = readFileSync(new URL('../crates/toolguard-core/src/shell/tool-cases.tsv', import.meta.url), 'utf8')
  .split('\n')
  .map((line, i) => /** @type {[number, string]} */ ([i + 1, line]))
  .filter(([, line]) => line.trim() !== '' && !line.startsWith('#'));

describe('harness tool model (reference)', () => {
  it('every case of tool-cases.tsv gets the native effect and paths', () => {
    assert.ok(cases.length > 50);
    const wrong = [];
    for (const [n, line] of cases) {
      const [effect, tool, args = '', facts = ''] = line.split('\t');
      const m = classifyCall(tool, args);
      const got = m.effect ?? 'none';
      if (got !== effect) wrong.push(`line ${n}: ${tool} ${args}: effect ${got}, want ${effect}`);
      for (const fact of facts.split(' ').filter((f) => f !== '')) {
        const [k, v = ''] = fact.split('=');
        const have = k === 'writes' ? m.writes.join(',') : k === 'reads' ? m.reads.join(',') : assert.fail(`line ${n}: fact ${k}`);
        if (have !== v) wrong.push(`line ${n}: ${tool} ${args}: ${k} ${have}, want ${v}`);
      }
    }
    assert.deepEqual(wrong, []);
  });

  it('the package ships the file the reference reads', async () => {
    const { files } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
    assert.ok(files.includes('rules/harness-tools.json'));
  });
});
