// The silent-failure evaluation (scripts/eval/silent.eval.mjs) on the repo's
// corpus (corpus/silent/): the table in docs/rules.md must be exactly what the eval
// prints with the real engine today, so it cannot go stale; and the corpus
// must keep the shape the README promises.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { evaluate, loadCorpus, readmeBlock, readmeBlockIn } from '../scripts/eval/silent.eval.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const corpus = loadCorpus();

test('the docs/rules.md table is what the eval prints (refresh: node scripts/eval/silent.eval.mjs --write)', () => {
  const readme = readFileSync(join(root, 'docs/rules.md'), 'utf8');
  assert.equal(readmeBlockIn(readme), readmeBlock(evaluate(corpus)));
});

test('npm run eval runs the silent eval and prints the table, misses and false alarms', () => {
  const run = spawnSync(process.execPath, [join(root, 'scripts/eval/index.mjs')], { cwd: root, encoding: 'utf8' });
  assert.equal(run.status, 0, run.stderr);
  assert.ok(run.stdout.includes(readmeBlock(evaluate(corpus))));
  assert.match(run.stdout, /^misses \(\d+\):$/m);
  assert.match(run.stdout, /^false alarms \(\d+\):$/m);
  assert.match(run.stdout, /^\d+ evals run, 0 failed$/m);
});

test('the corpus has the promised shape: real outputs, labelled, unique ids', () => {
  const ids = new Set(corpus.map((e) => e.id));
  assert.equal(ids.size, corpus.length, 'duplicate ids');
  const count = (label) => corpus.filter((e) => e.label === label).length;
  assert.ok(corpus.length >= 400, `${corpus.length} outputs`);
  assert.ok(count('silent-failure') >= 150, `${count('silent-failure')} silent failures`);
  assert.ok(count('benign') >= 150, `${count('benign')} benign`);
  const families = new Set(corpus.filter((e) => e.label === 'silent-failure').map((e) => e.family));
  assert.ok(families.size >= 40, `${families.size} families with silent failures`);
  for (const e of corpus) {
    assert.equal(e.id.split('/')[0], e.family, e.id);
    // A label follows the exit marker the harness rendered.
    const exitMarker = /\n?\[(?:exit code: -?\d*[1-9]\d*|killed by signal: [^\]]+|timed out after \d+ms)\]$/.test(e.output);
    if (e.label === 'silent-failure') assert.ok(!exitMarker, `${e.id}: a silent failure has no failure marker`);
    if (e.label === 'shown-failure') assert.ok(exitMarker, `${e.id}: a shown failure ends with its marker`);
    assert.ok(e.note.length > 0 && e.command.length > 0, e.id);
  }
});

test('--corpus DIR measures another corpus of the same format (a held-out set) and --write refuses it', () => {
  const dir = mkdtempSync(join(tmpdir(), 'silent-heldout-'));
  try {
    const entries = [
      {
        id: 'x/hidden',
        family: 'x',
        label: 'silent-failure',
        command: 'cp a b; echo ok',
        note: 'cp fails',
        output: "ok\n[stderr]\ncp: cannot stat 'a': No such file or directory",
      },
      { id: 'x/fine', family: 'x', label: 'benign', command: 'ls', note: 'a listing', output: 'a.txt' },
    ];
    writeFileSync(join(dir, 'x.jsonl'), entries.map((e) => JSON.stringify(e)).join('\n') + '\n');
    const script = join(root, 'scripts/eval/silent.eval.mjs');
    const run = spawnSync(process.execPath, [script, '--corpus', dir], { cwd: root, encoding: 'utf8' });
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stdout, /^2 outputs from 1 tool families \(1 silent failures, 1 benign, 0 failures already shown/m);
    assert.match(run.stdout, /^false alarms by label: 0 of 1 benign, 0 of 0 shown-failure$/m);
    const write = spawnSync(process.execPath, [script, `--corpus=${dir}`, '--write'], { cwd: root, encoding: 'utf8' });
    assert.notEqual(write.status, 0);
    assert.match(write.stderr, /--write refreshes docs\/rules.md from corpus\/silent only/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
