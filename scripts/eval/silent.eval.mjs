#!/usr/bin/env node
// Silent-failure detection measured on the recorded corpus (corpus/silent/):
// every output goes through the real engine (the package root's GuardEngine,
// built-in table, a `bash` call) and its verdict is compared with the label.
//
//   node scripts/eval/silent.eval.mjs [--write] [--config guard.json] [--engine reference] [--corpus DIR]
//
// --corpus DIR measures another corpus of the same format (e.g. a held-out set
// recorded outside the repo with record-silent-corpus.mjs --cases --out);
// --write refuses it, the docs/rules.md block is corpus/silent's.
// --engine reference uses the pure-TS reference engine (same verdicts; it reads
// rules/builtin.json at run time, so rule edits show without a native rebuild).
// A verdict (error or context) on a silent-failure is a hit; on a benign
// output or a failure the output already shows (non-zero exit marker) it is a
// false alarm. Prints the README table (per family and overall), then every
// miss and false alarm. --write refreshes the block in docs/rules.md; the test
// __test__/silent-eval.test.mjs fails when that copy is stale.
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
const require = createRequire(import.meta.url);

export const LABELS = ['silent-failure', 'benign', 'shown-failure'];

/** The corpus entries, sorted by id; throws naming the file and line of a bad entry. */
export function loadCorpus(dir = join(root, 'corpus/silent')) {
  const entries = [];
  for (const file of readdirSync(dir)
    .filter((f) => f.endsWith('.jsonl'))
    .sort()) {
    readFileSync(join(dir, file), 'utf8')
      .split('\n')
      .forEach((line, i) => {
        if (!line.trim()) return;
        let e;
        try {
          e = JSON.parse(line);
        } catch (err) {
          throw new Error(`${file}:${i + 1}: ${err.message}`);
        }
        for (const k of ['id', 'family', 'label', 'command', 'note', 'output']) {
          if (typeof e[k] !== 'string') throw new Error(`${file}:${i + 1}: missing string field ${k}`);
        }
        if (!LABELS.includes(e.label)) throw new Error(`${file}:${i + 1}: unknown label ${e.label}`);
        entries.push(e);
      });
  }
  return entries.sort((a, b) => (a.id < b.id ? -1 : 1));
}

/** Runs the engine on every entry; returns per-entry results. */
export function evaluate(entries, config = {}, engineName = 'native') {
  const { GuardEngine } = engineName === 'reference' ? require(join(root, 'dist/reference/index.mjs')) : require(root);
  const engine = new GuardEngine(config);
  return entries.map((e) => {
    const v = engine.observe(
      { name: 'bash', argumentsJson: JSON.stringify({ command: e.command }) },
      { content: [{ type: 'text', text: e.output }] },
    );
    const f = v?.failure ?? null;
    return { entry: e, flagged: f !== null, action: f?.action ?? null, rules: f ? f.rules.map((r) => `${r.id}@${r.line}`) : [] };
  });
}

const ratio = (a, b) => (b === 0 ? '–' : (a / b).toFixed(2));

/** The README table: one row per family, then the total. */
export function table(results) {
  const fams = new Map();
  const add = (key, r) => {
    if (!fams.has(key)) fams.set(key, { outputs: 0, silent: 0, hit: 0, context: 0, negatives: 0, fa: 0 });
    const s = fams.get(key);
    s.outputs++;
    if (r.entry.label === 'silent-failure') {
      s.silent++;
      if (r.flagged) s.hit++;
      if (r.action === 'context') s.context++;
    } else {
      s.negatives++;
      if (r.flagged) s.fa++;
    }
  };
  for (const r of results) add(r.entry.family, r);
  const total = { outputs: 0, silent: 0, hit: 0, context: 0, negatives: 0, fa: 0 };
  for (const s of fams.values()) for (const k of Object.keys(total)) total[k] += s[k];
  const row = (name, s) =>
    `| ${name} | ${s.outputs} | ${s.silent} | ${s.hit} | ${ratio(s.hit, s.silent)} | ${s.negatives} | ${s.fa} | ${ratio(s.hit, s.hit + s.fa)} |`;
  return [
    '| family | outputs | silent failures | detected | recall | benign + shown | false alarms | precision |',
    '|---|---:|---:|---:|---:|---:|---:|---:|',
    ...[...fams.keys()].sort().map((k) => row(k, fams.get(k))),
    row('**all**', total),
  ].join('\n');
}

export function summary(results) {
  const silent = results.filter((r) => r.entry.label === 'silent-failure');
  const hit = silent.filter((r) => r.flagged).length;
  const fa = results.filter((r) => r.entry.label !== 'silent-failure' && r.flagged).length;
  const benign = results.filter((r) => r.entry.label === 'benign').length;
  const shown = results.length - silent.length - benign;
  const families = new Set(results.map((r) => r.entry.family)).size;
  return {
    outputs: results.length,
    families,
    silent: silent.length,
    benign,
    shown,
    hit,
    falseAlarms: fa,
    recall: silent.length ? hit / silent.length : 0,
    precision: hit + fa ? hit / (hit + fa) : 0,
  };
}

const BEGIN = '<!-- silent-eval:begin -->';
const END = '<!-- silent-eval:end -->';

/** The README block: a one-line summary and the table. */
export function readmeBlock(results) {
  const s = summary(results);
  return (
    `${s.outputs} outputs from ${s.families} tool families (${s.silent} silent failures, ${s.benign} benign, ` +
    `${s.shown} failures already shown by the exit marker); recall ${s.recall.toFixed(3)}, precision ${s.precision.toFixed(3)}.\n\n${table(results)}`
  );
}

export function readmeWithBlock(readme, block) {
  const start = readme.indexOf(BEGIN);
  const end = readme.indexOf(END);
  if (start < 0 || end < start) throw new Error(`docs/rules.md lacks the ${BEGIN} … ${END} markers`);
  return `${readme.slice(0, start + BEGIN.length)}\n${block}\n${readme.slice(end)}`;
}

export function readmeBlockIn(readme) {
  const start = readme.indexOf(BEGIN);
  const end = readme.indexOf(END);
  if (start < 0 || end < start) throw new Error(`docs/rules.md lacks the ${BEGIN} … ${END} markers`);
  return readme.slice(start + BEGIN.length, end).trim();
}

function excerpt(r) {
  const lines = r.entry.output.split('\n').filter((l) => l.trim());
  return lines
    .slice(-3)
    .map((l) => `      ${l.slice(0, 140)}`)
    .join('\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const ci = args.indexOf('--config');
  const config = ci >= 0 ? JSON.parse(readFileSync(args[ci + 1], 'utf8')) : {};
  const ei = args.indexOf('--engine');
  const di = args.indexOf('--corpus');
  const dir = di >= 0 ? args[di + 1] : args.find((a) => a.startsWith('--corpus='))?.slice(9);
  if (dir !== undefined && !dir) throw new Error('silent.eval: --corpus needs a directory');
  if (dir && args.includes('--write'))
    throw new Error('silent.eval: --write refreshes docs/rules.md from corpus/silent only; drop --corpus');
  const results = evaluate(loadCorpus(dir ? resolve(dir) : undefined), config, ei >= 0 ? args[ei + 1] : 'native');
  const block = readmeBlock(results);
  console.log(`## silent failures (${dir ?? 'corpus/silent'})\n`);
  console.log(block);
  const misses = results.filter((r) => r.entry.label === 'silent-failure' && !r.flagged);
  const fas = results.filter((r) => r.entry.label !== 'silent-failure' && r.flagged);
  const faOf = (label) =>
    `${fas.filter((r) => r.entry.label === label).length} of ${results.filter((r) => r.entry.label === label).length} ${label}`;
  console.log(`\nfalse alarms by label: ${faOf('benign')}, ${faOf('shown-failure')}`);
  console.log(`\nmisses (${misses.length}):`);
  for (const r of misses) console.log(`  ${r.entry.id}  $ ${r.entry.command.split('\n')[0].slice(0, 100)}\n${excerpt(r)}`);
  console.log(`\nfalse alarms (${fas.length}):`);
  for (const r of fas) console.log(`  ${r.entry.id} [${r.entry.label}] ${r.action}: ${r.rules.join(', ')}  — ${r.entry.note}`);
  if (args.includes('--write')) {
    const path = join(root, 'docs/rules.md');
    writeFileSync(path, readmeWithBlock(readFileSync(path, 'utf8'), block));
    console.log('\ndocs/rules.md table refreshed');
  }
}
