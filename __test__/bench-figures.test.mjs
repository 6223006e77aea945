// The published figures are from a run: docs/performance.md's generated
// block is the rendering of the committed benchmark/results/latest.json,
// and every benchmark figure README.md and docs/*.md quote is a number of
// that run (benchmark/figures.mjs says what counts as a figure).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { quotedFigures, unheldFigures } from '../benchmark/figures.mjs';
import { blockOf, performanceBlock, PERFORMANCE, RESULTS } from '../benchmark/publish.mjs';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const run = JSON.parse(readFileSync(RESULTS, 'utf8'));
const pages = [
  'README.md',
  ...readdirSync(path.join(root, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

describe('published benchmark figures', () => {
  it('the committed run is a full run with the machine named', () => {
    assert.equal(run.mode, 'full');
    assert.equal(typeof run.machine, 'string');
    assert.ok(run.machine.length > 0);
    assert.match(run.date, /^\d{4}-\d\d-\d\dT/);
  });

  it("docs/performance.md's generated block is the committed run's (npm run bench:publish)", () => {
    assert.equal(blockOf(readFileSync(PERFORMANCE, 'utf8')), performanceBlock(run));
  });

  it('every figure README.md and docs/*.md quote is in the committed run', () => {
    const figures = pages.flatMap((page) => quotedFigures(readFileSync(path.join(root, page), 'utf8'), page));
    // The check has something to check: the generated block alone quotes dozens.
    assert.ok(figures.length > 30, `${figures.length} figures found`);
    const unheld = unheldFigures(figures, run).map((f) => `${f.file}:${f.line}: ${f.text}`);
    assert.deepEqual(unheld, [], 'figures with no run behind them (re-run `npm run bench:publish`, or drop the figure)');
  });

  it('a made-up figure is caught, a measured one held, code and targets are not figures', () => {
    const speedup = run.ratios[0].speedup;
    const text = [
      `The drop-in is ${speedup.toFixed(2)}× the official plugin.`,
      'The scan runs at 98765 MB/s.',
      'It answers in 0.01 ns.',
      'A target: scan ≥ 600 MB/s, hook ≤ +2 ms.',
      'A config value in code: `timeoutMs: 37 ms`.',
      '```',
      'Waste: 6 calls · 58 ms',
      '```',
    ].join('\n');
    const figures = quotedFigures(text, 'made-up.md');
    assert.deepEqual(
      figures.map((f) => f.text),
      [`${speedup.toFixed(2)}×`, '98765 MB/s', '0.01 ns'],
    );
    assert.deepEqual(
      unheldFigures(figures, run).map((f) => f.text),
      ['98765 MB/s', '0.01 ns'],
    );
  });

  it('a figure is held only at its own precision', () => {
    const ns = run.scenarios[0].ns_per_op;
    const [fig] = quotedFigures(`${(ns / 1e3).toFixed(3)} µs`, 'x.md');
    assert.deepEqual(unheldFigures([fig], run), []);
    // Off by two units of its last digit: not this run's figure.
    const [off] = quotedFigures(`${(ns / 1e3 + 0.002).toFixed(3)} µs`, 'x.md');
    assert.equal(unheldFigures([off], run).length, 1);
  });
});
