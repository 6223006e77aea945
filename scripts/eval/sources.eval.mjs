#!/usr/bin/env node
// Detector quality per SOURCE on the real-session corpus kept outside the repo
// (corpus/wild-sources/*.json says where each source comes from and whether it
// is a tuning or a held-out source; scripts/eval/corpus/restore.mjs rebuilds
// the folder). Each labelled source (corpus/wild-labels/sources/<source>.silent.json
// and/or <source>.loops.json, written blind) is scored on its own, then pooled,
// then pooled leaving each source out in turn, so one source cannot carry the
// figure. Held-out sources are measured, never tuned on.
//
//   node scripts/eval/sources.eval.mjs [--corpus DIR] [--split heldout|tuning|all] [--labels-dir DIR] [--json] [--verbose]
//
// DIR (default $TOOLGUARD_WILD2, else ../data/wild2 beside the repository)
// holds the sessions and a manifest.json listing {file, format, source, split}.
// Without it this eval says so and exits 0.
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

import { argValue, evaluateWild } from './wild.eval.mjs';

const repo = join(dirname(fileURLToPath(import.meta.url)), '../..');
export const CORPUS = process.env.TOOLGUARD_WILD2 ?? join(repo, '../data/wild2');
export const SOURCE_LABELS = join(repo, 'corpus/wild-labels/sources');

const readJson = (f) => JSON.parse(readFileSync(f, 'utf8'));
const emptyLoops = { stuck: [], benign: [] };

/** The labels written for one source, or null when it has none. */
export function sourceLabels(source, dir = SOURCE_LABELS) {
  const silentFile = join(dir, `${source}.silent.json`);
  const loopsFile = join(dir, `${source}.loops.json`);
  if (!existsSync(silentFile) && !existsSync(loopsFile)) return null;
  return {
    silent: existsSync(silentFile) ? readJson(silentFile) : null,
    loops: existsSync(loopsFile) ? readJson(loopsFile) : null,
  };
}

/** A folder holding only one source's files (a symlink) and its manifest, for evaluateWild. */
function sourceDir(corpus, source, entries) {
  const dir = mkdtempSync(join(tmpdir(), `toolguard-source-${source}-`));
  const top = new Set(entries.map((e) => e.file.split('/')[0]));
  for (const t of top) symlinkSync(resolve(corpus, t), join(dir, t));
  writeFileSync(join(dir, 'manifest.json'), JSON.stringify(entries));
  return dir;
}

const row = (runs, name) => runs.find((r) => r.name === name);

/** The figures of one source: loops (audit and engine rows, quietest peer) and silent (audit, error verdicts). */
function figures(r, calls, labels) {
  const audit = row(r.loops, 'toolguard audit');
  const engine = row(r.loops, 'toolguard engine');
  const peers = r.loops.filter((l) => !l.name.startsWith('toolguard'));
  const quietest = peers.reduce((q, p) => (q === null || p.falseEpisodes < q.falseEpisodes ? p : q), null);
  const silent = r.silent.find((s) => s.name === 'toolguard audit, error verdicts only');
  // Exact mode knows each stage's status: a failure whose failing program exited
  // non-zero (the label's stageFailed) is caught there whatever its text says.
  let exact = null;
  if (labels.silent) {
    const failures = labels.silent.labels.filter((l) => l.label === 'failure');
    const missed = new Set((silent?.misses ?? []).map((l) => `${l.file}#${l.session}@${l.ordinal}`));
    const known = failures.filter((l) => l.stageFailed === true).length;
    const caughtExact = failures.filter((l) => l.stageFailed === true || !missed.has(`${l.file}#${l.session}@${l.ordinal}`)).length;
    exact = { failures: failures.length, stageFailed: known, caught: silent ? caughtExact : null };
  }
  return {
    calls,
    loops: labels.loops
      ? {
          episodes: audit?.episodes ?? 0,
          caught: audit?.caught ?? 0,
          falseEpisodes: audit?.falseEpisodes ?? 0,
          falseTexts: audit?.falseTexts?.length ?? 0,
          engine: engine
            ? { caught: engine.caught, falseEpisodes: engine.falseEpisodes, falseTexts: engine.falseTexts?.length ?? 0 }
            : null,
          quietestPeer: quietest ? { name: quietest.name, falseEpisodes: quietest.falseEpisodes, caught: quietest.caught } : null,
          peers: Object.fromEntries(peers.map((p) => [p.name, { falseEpisodes: p.falseEpisodes, caught: p.caught }])),
          missed: audit?.missed ?? [],
          trapsAlarmed: audit?.trapsAlarmed ?? [],
          otherEpisodes: audit?.otherEpisodes ?? [],
        }
      : null,
    silent:
      labels.silent && silent
        ? {
            failures: silent.failures,
            hits: silent.hits,
            benign: silent.benign,
            falseAlarms: silent.falseAlarms,
            misses: silent.misses,
            wrong: silent.wrong,
          }
        : null,
    exact,
    unread: r.unread.map((e) => e.file),
  };
}

/** Sums figures over sources (for pooled and leave-one-out rows). */
export function pool(list) {
  const out = {
    calls: 0,
    episodes: 0,
    caught: 0,
    falseEpisodes: 0,
    falseTexts: 0,
    peerFalse: 0,
    peerName: '–',
    failures: 0,
    hits: 0,
    falseAlarms: 0,
    stageFailed: 0,
    exactCaught: 0,
  };
  const peers = new Map();
  for (const f of list) {
    out.calls += f.calls;
    if (f.loops) {
      out.episodes += f.loops.episodes;
      out.caught += f.loops.caught;
      out.falseEpisodes += f.loops.falseEpisodes;
      out.falseTexts += f.loops.falseTexts;
      for (const [name, p] of Object.entries(f.loops.peers)) peers.set(name, (peers.get(name) ?? 0) + p.falseEpisodes);
    }
    if (f.silent) {
      out.failures += f.silent.failures;
      out.hits += f.silent.hits;
      out.falseAlarms += f.silent.falseAlarms;
    }
    if (f.exact) {
      out.stageFailed += f.exact.stageFailed;
      out.exactCaught += f.exact.caught ?? 0;
    }
  }
  // the quietest peer over the pooled sources: one peer's own total, the lowest
  for (const [name, n] of peers) if (out.peerName === '–' || n < out.peerFalse) [out.peerName, out.peerFalse] = [name, n];
  return out;
}

const r2 = (x) => (Number.isFinite(x) ? x.toFixed(2) : '–');
const perK = (n, calls) => (calls ? ((1000 * n) / calls).toFixed(2) : '–');
const recall = (p) => (p.failures ? r2(p.hits / p.failures) : '–');
const precision = (p) => (p.hits + p.falseAlarms ? r2(p.hits / (p.hits + p.falseAlarms)) : '–');

export async function evaluateSources({ corpus = CORPUS, split = 'heldout', labelsDir = SOURCE_LABELS } = {}) {
  const manifest = readJson(join(corpus, 'manifest.json'));
  const bySource = new Map();
  for (const e of manifest) {
    if (!e.source) continue;
    if (split !== 'all' && e.split !== split) continue;
    if (!bySource.has(e.source)) bySource.set(e.source, []);
    bySource.get(e.source).push(e);
  }
  const sources = [];
  for (const [source, entries] of [...bySource].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const labels = sourceLabels(source, labelsDir);
    if (!labels) {
      sources.push({ source, split: entries[0].split, labelled: false, files: entries.length });
      continue;
    }
    const dir = sourceDir(corpus, source, entries);
    try {
      const r = await evaluateWild({ wildDir: dir, labels: { loops: labels.loops ?? emptyLoops, silent: labels.silent } });
      sources.push({
        source,
        split: entries[0].split,
        labelled: true,
        files: entries.length,
        sessions: r.sessions,
        ...figures(r, r.calls, labels),
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  const labelled = sources.filter((s) => s.labelled);
  const pooled = pool(labelled);
  const leaveOneOut = labelled.map((s) => ({ without: s.source, ...pool(labelled.filter((o) => o !== s)) }));
  return { corpus, split, sources, pooled, leaveOneOut };
}

export function formatSources(r) {
  const out = [];
  out.push(`Real-session corpus (${r.corpus}), ${r.split} sources: per source, pooled, and pooled without each source.`);
  out.push('');
  out.push(
    '| source | split | sessions | calls | stuck caught | false-alarm episodes (per 1,000 calls) | quietest peer (per 1,000) | false texts | silent failures | recall | precision | exact-mode recall |',
  );
  out.push('| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
  for (const s of r.sources) {
    if (!s.labelled) {
      out.push(`| ${s.source} | ${s.split} | – | – | not labelled | | | | | | | |`);
      continue;
    }
    const l = s.loops;
    const si = s.silent;
    const p = si ? { failures: si.failures, hits: si.hits, falseAlarms: si.falseAlarms } : null;
    out.push(
      `| ${s.source} | ${s.split} | ${s.sessions} | ${s.calls} | ${l ? `${l.caught} of ${l.episodes}` : '–'} | ${l ? `${l.falseEpisodes} (${perK(l.falseEpisodes, s.calls)})` : '–'} | ${l?.quietestPeer ? `${l.quietestPeer.falseEpisodes} (${perK(l.quietestPeer.falseEpisodes, s.calls)}, ${l.quietestPeer.name})` : '–'} | ${l ? l.falseTexts : '–'} | ${si ? si.failures : '–'} | ${p ? recall(p) : '–'} | ${p ? precision(p) : '–'} | ${s.exact?.caught != null && s.exact.failures ? r2(s.exact.caught / s.exact.failures) : '–'} |`,
    );
  }
  const line = (name, p) =>
    `| ${name} | | | ${p.calls} | ${p.caught} of ${p.episodes} | ${p.falseEpisodes} (${perK(p.falseEpisodes, p.calls)}) | ${p.peerFalse} (${perK(p.peerFalse, p.calls)}, ${p.peerName}) | ${p.falseTexts} | ${p.failures} | ${recall(p)} | ${precision(p)} | ${p.failures ? r2(p.exactCaught / p.failures) : '–'} |`;
  out.push(line('**pooled**', r.pooled));
  for (const l of r.leaveOneOut) out.push(line(`pooled without ${l.without}`, l));
  const unread = r.sources.flatMap((s) => s.unread ?? []);
  if (unread.length) out.push('', `toolguard audit read none of: ${unread.join(', ')}`);
  return out.join('\n');
}

function verbose(r) {
  const out = [];
  for (const s of r.sources.filter((x) => x.labelled)) {
    out.push('', `## ${s.source}`);
    if (s.loops) {
      out.push(`missed: ${s.loops.missed.map((e) => `${e.file}#${e.session} ${e.first}-${e.last}`).join('; ') || 'none'}`);
      out.push(
        `benign stretches alarmed: ${s.loops.trapsAlarmed.map((e) => `${e.file}#${e.session} ${e.first}-${e.last}`).join('; ') || 'none'}`,
      );
      out.push(`other false-alarm episodes: ${s.loops.otherEpisodes.map((e) => `${e.key} ${e.first}-${e.last}`).join('; ') || 'none'}`);
    }
    if (s.silent) {
      out.push(
        `silent missed: ${s.silent.misses.map((l) => `${l.file}#${l.session} #${l.ordinal} ${l.class ?? ''}`).join('; ') || 'none'}`,
      );
      out.push(
        `silent benign flagged: ${s.silent.wrong.map((l) => `${l.file}#${l.session} #${l.ordinal} ${l.class ?? ''}`).join('; ') || 'none'}`,
      );
    }
  }
  return out.join('\n');
}

export default async function main(argv = []) {
  const corpus = argValue(argv, 'corpus') ?? CORPUS;
  const split = argValue(argv, 'split') ?? 'heldout';
  const labelsDir = argValue(argv, 'labels-dir') ?? SOURCE_LABELS;
  if (!['heldout', 'tuning', 'all'].includes(split)) throw new Error(`sources eval: --split ${split}: expected heldout, tuning or all`);
  if (!existsSync(join(corpus, 'manifest.json')))
    return `sources: ${corpus} has no manifest.json (restore it with scripts/eval/corpus/restore.mjs; TOOLGUARD_WILD2 points elsewhere): per-source evaluation skipped`;
  const r = await evaluateSources({ corpus, split, labelsDir });
  if (argv.includes('--json')) return JSON.stringify(r, (_k, v) => (v instanceof Set ? [...v] : v), 2);
  return `${formatSources(r)}${argv.includes('--verbose') ? `\n${verbose(r)}` : ''}`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  try {
    console.log(await main(process.argv.slice(2)));
  } catch (e) {
    console.error(e instanceof Error ? e.message : String(e));
    process.exit(2);
  }
}
