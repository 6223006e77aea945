// The per-source evaluation (scripts/eval/sources.eval.mjs): pooling sums each
// source's figures and takes the quietest peer as one peer's own total (not the
// quietest of each source added up), leave-one-out rows drop exactly one source,
// and the eval skips cleanly (exit 0, says so) when the corpus is absent.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { pool } from '../../scripts/eval/sources.eval.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '../..');

const source = (calls, loops, silent, exact) => ({ calls, loops, silent, exact });
const loops = (caught, episodes, falseEpisodes, peers) => ({ caught, episodes, falseEpisodes, falseTexts: 0, peers });

test('pool: sums sources; the quietest peer is the one with the lowest total over all sources', () => {
  const a = source(
    1000,
    loops(3, 4, 1, { P: { falseEpisodes: 0 }, Q: { falseEpisodes: 5 } }),
    { failures: 10, hits: 8, falseAlarms: 1 },
    { stageFailed: 6, caught: 9 },
  );
  const b = source(
    500,
    loops(2, 2, 0, { P: { falseEpisodes: 4 }, Q: { falseEpisodes: 0 } }),
    { failures: 5, hits: 3, falseAlarms: 0 },
    { stageFailed: 2, caught: 4 },
  );
  const p = pool([a, b]);
  assert.equal(p.calls, 1500);
  assert.deepEqual([p.caught, p.episodes, p.falseEpisodes], [5, 6, 1]);
  assert.deepEqual([p.failures, p.hits, p.falseAlarms], [15, 11, 1]);
  assert.deepEqual([p.stageFailed, p.exactCaught], [8, 13]);
  // per-source quietest would be 0 + 0; one peer's own total is P 4 or Q 5
  assert.deepEqual([p.peerName, p.peerFalse], ['P', 4]);
});

test('pool: a source with silent labels only adds no loop figures', () => {
  const p = pool([source(200, null, { failures: 12, hits: 11, falseAlarms: 0 }, null)]);
  assert.deepEqual([p.calls, p.episodes, p.failures, p.hits, p.peerName], [200, 0, 12, 11, '–']);
});

test('sources eval: without the corpus it says so and exits 0', () => {
  const empty = mkdtempSync(join(tmpdir(), 'toolguard-no-corpus-'));
  const r = spawnSync(process.execPath, [join(root, 'scripts/eval/sources.eval.mjs'), '--corpus', empty], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /no manifest\.json.*skipped/);
});

test('sources eval: an unknown --split is refused with exit 2, naming it', () => {
  const r = spawnSync(process.execPath, [join(root, 'scripts/eval/sources.eval.mjs'), '--split', 'later'], { encoding: 'utf8' });
  assert.equal(r.status, 2);
  assert.match(r.stderr, /--split later/);
});
