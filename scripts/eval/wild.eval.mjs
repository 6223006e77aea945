#!/usr/bin/env node
// Detector quality on REAL agent sessions: ../shared/wild/ (relative to the
// repo root; TOOLGUARD_WILD overrides), scored against the labels committed in
// corpus/wild-labels/ (loops.json: stuck episodes and benign repetition;
// silent.json: exit-0 error-looking shell outputs labelled failure/benign).
// The sessions are read at run time and never copied into the repo; without
// them this eval says so and exits 0 (a fresh clone has no ../shared).
//
//   npm run eval                        (every scripts/eval/*.eval.mjs)
//   node scripts/eval/wild.eval.mjs     (this one)
//     --verbose   list misses, false-alarm episodes and false alarm texts
//     --json      the figures as JSON
//     --write     refresh the tables between the wild-eval markers in docs/evaluation.md
//     --wild DIR --labels FILE
//                 score another set of real sessions the same way: DIR holds the
//                 sessions and a manifest.json in ../shared/wild's shape (file,
//                 format per entry), FILE loop labels in loops.json's shape. Loops
//                 only (silent failures need silent labels); docs/evaluation.md,
//                 "Held-out loops", uses it for /work/heldloops.
//
// Systems: every re-stated peer of scripts/eval/baselines/ and toolguard's
// engine, fed the calls scripts/eval/wild/calls.mjs reads from each format;
// and `toolguard audit --json` on the files themselves (a format it has no
// reader for yet is listed, and its sessions are left out of that row).
// Also prints the third and fourth held-out silent-failure sets' figures when
// their recordings are present (../heldout3/corpus and ../heldout4/corpus, or
// TOOLGUARD_HELDOUT3 / TOOLGUARD_HELDOUT4).
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

import { manifest, readWild, wildPresent, WILD } from './wild/calls.mjs';
import { falseText, scoreLoops, scoreSilent, sessionKey } from './wild/score.mjs';
import { PEERS, runAudit, runEngine, runPeer, WILD_SHELL_TOOLS } from './wild/systems.mjs';

const repo = join(dirname(fileURLToPath(import.meta.url)), '../..');
export const LABELS_DIR = join(repo, 'corpus/wild-labels');
export const HELDOUT3 = process.env.TOOLGUARD_HELDOUT3 ?? join(repo, '../heldout3/corpus');
export const HELDOUT4 = process.env.TOOLGUARD_HELDOUT4 ?? join(repo, '../heldout4/corpus');

// A recording is a directory of .jsonl files (from a worktree named heldout4,
// ../heldout4/corpus is the repository's own corpus/, which holds none).
const recorded = (dir) => existsSync(dir) && readdirSync(dir).some((f) => f.endsWith('.jsonl'));
async function heldout(dir) {
  if (!recorded(dir)) return null;
  const { loadCorpus, evaluate, summary } = await import('./silent.eval.mjs');
  return { dir, ...summary(evaluate(loadCorpus(dir))) };
}

export function loadLabels(dir = LABELS_DIR) {
  return {
    loops: JSON.parse(readFileSync(join(dir, 'loops.json'), 'utf8')),
    silent: JSON.parse(readFileSync(join(dir, 'silent.json'), 'utf8')),
  };
}

/** `--name VALUE` or `--name=VALUE` from argv, else undefined. */
export function argValue(argv, name) {
  const i = argv.indexOf(`--${name}`);
  if (i >= 0) return argv[i + 1];
  return argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
}

const ratio = (x) => (x === null || x === undefined ? '–' : x.toFixed(2));
const md = ([head, ...body]) =>
  [
    `| ${head.join(' | ')} |`,
    `|${head.map((_, i) => (i ? ' ---: ' : ' --- ')).join('|')}|`,
    ...body.map((r) => `| ${r.join(' | ')} |`),
  ].join('\n');

export async function evaluateWild({ wildDir = WILD, labels = loadLabels() } = {}) {
  const sessions = readWild(wildDir);
  const calls = new Map(sessions.map((s) => [sessionKey(s.file, s.session), s.calls]));
  const runs = [];
  for (const peer of PEERS) runs.push(await runPeer(peer, sessions));
  const engine = runEngine(sessions);
  runs.push(engine);
  const audit = runAudit(sessions, wildDir, manifest(wildDir));
  runs.push(audit);
  const shellEngine = runEngine(sessions, {
    config: { loops: {}, loudFailure: { shellTools: WILD_SHELL_TOOLS } },
    name: 'toolguard engine + wild shell names',
    note: `the engine with loudFailure.shellTools = ${WILD_SHELL_TOOLS.join(', ')} (silent failures only)`,
  });
  const loops = runs.map((r) => {
    const s = scoreLoops(labels.loops, r.alarms, r.covered);
    const judged = r.name.startsWith('toolguard');
    const falseTexts = judged
      ? r.alarms
          .filter((a) => r.covered.has(a.key))
          .map((a) => ({ ...a, why: falseText(a, calls.get(a.key)) }))
          .filter((a) => a.why)
      : null;
    return {
      name: r.name,
      note: r.note,
      sessions: r.covered.size,
      alarms: r.alarms.filter((a) => r.covered.has(a.key)).length,
      ...s,
      falseTexts,
    };
  });
  // Scoring (docs/evaluation.md, "What counts as an alarm"): a `context`
  // verdict tells the model what the output shows without calling the call
  // failed — the action the issue asks for on a reproduction script's own
  // traceback, a displayed log, a probe. The headline row counts `error`
  // verdicts alone (recall: failures told as errors; precision: benign outputs
  // told as errors), with context verdicts reported apart; the any-verdict
  // rows stay for honesty.
  const silent = !labels.silent
    ? []
    : [
        ...[engine, shellEngine, audit].map((r) => ({
          name: r.name,
          note: r.note,
          sessions: r.covered.size,
          ...scoreSilent(labels.silent, r.flags, r.covered),
        })),
        {
          name: `${audit.name}, error verdicts only`,
          note: audit.note,
          sessions: audit.covered.size,
          ...scoreSilent(labels.silent, audit.flags, audit.covered, { alarm: 'error' }),
        },
      ];
  // The engine's own score (error verdicts only), for per-source figures where
  // one build's audit has no reader for a format the eval reads.
  const engineErrors = labels.silent ? scoreSilent(labels.silent, engine.flags, engine.covered, { alarm: 'error' }) : null;
  const heldout3 = labels.silent ? await heldout(HELDOUT3) : null;
  const heldout4 = labels.silent ? await heldout(HELDOUT4) : null;
  return {
    wildDir,
    sessions: sessions.length,
    calls: sessions.reduce((n, s) => n + s.calls.length, 0),
    loops,
    silent,
    unread: audit.unread,
    partial: audit.partial,
    engineErrors,
    heldout3,
    heldout4,
    labels,
  };
}

export function formatWild(r) {
  const st = r.labels.loops.stuck.length;
  const bn = r.labels.loops.benign.length;
  const out = [];
  const where = r.wildDir === WILD ? '../shared/wild' : r.wildDir;
  const silentLabels = r.labels.silent
    ? `, ${r.labels.silent.labels.length} exit-0 error-looking shell outputs (${r.labels.silent.labels.filter((l) => l.label === 'failure').length} failures)`
    : '';
  out.push(
    `Real sessions (${where}): ${r.sessions} sessions, ${r.calls} tool calls; labels: ${st} stuck episodes, ${bn} benign repetition stretches${silentLabels}.`,
  );
  out.push('');
  out.push(
    'Loops. caught: stuck episodes with an alarm inside; false-alarm episodes: benign stretches alarmed + clusters of alarms outside every labelled stretch (alarms ≤ 10 calls apart); false texts: toolguard alarms whose text is untrue for their call (re-read of a write, same result for a changed result, same error without a failure).',
  );
  out.push('');
  out.push(
    md([
      [
        'system',
        'sessions read',
        'stuck episodes caught',
        'false-alarm episodes',
        '(benign stretches alarmed + other)',
        'alarms',
        'alarm texts false',
      ],
      ...r.loops.map((l) => [
        l.name,
        String(l.sessions),
        `${l.caught} of ${l.episodes}`,
        String(l.falseEpisodes),
        `${l.trapsAlarmed.length} + ${l.otherEpisodes.length}`,
        String(l.alarms),
        l.falseTexts ? String(l.falseTexts.length) : '–',
      ]),
    ]),
  );
  out.push('');
  if (!r.labels.silent) return out.concat(auditLine(r)).join('\n');
  out.push(
    'Silent failures. The last row is the score (docs/evaluation.md, "What counts as an alarm"): an `error` verdict is the alarm — recall over failures told as errors, precision against benign outputs told as errors; a `context` verdict is neither, counted in the last column. The rows above count a verdict of either action, for comparison. Precision is over the labelled outputs; "other flags": alarms on calls outside the labelled candidates.',
  );
  out.push('');
  out.push(
    md([
      [
        'system',
        'sessions read',
        'failures caught',
        'recall',
        'benign flagged',
        'precision',
        'other flags',
        'context only (failures / benign)',
      ],
      ...r.silent.map((s) => [
        s.name,
        String(s.sessions),
        `${s.hits} of ${s.failures}`,
        ratio(s.recall),
        `${s.falseAlarms} of ${s.benign}`,
        ratio(s.precision),
        String(s.unlabelled),
        s.alarm === 'error' ? `${s.contextOnFailures} / ${s.contextOnBenign}` : '–',
      ]),
    ]),
  );
  out.push('');
  const classes = [...new Set(r.silent.flatMap((s) => Object.keys(s.byClass)))].sort();
  out.push('Per class (flagged of labelled, in the sessions each system reads):');
  out.push('');
  out.push(
    md([
      ['label/class', ...r.silent.map((s) => s.name)],
      ...classes.map((k) => [
        k,
        ...r.silent.map((s) =>
          s.byClass[k]
            ? `${s.byClass[k].flagged} of ${s.byClass[k].n}${s.byClass[k].context ? ` (+${s.byClass[k].context} context)` : ''}`
            : '–',
        ),
      ]),
    ]),
  );
  out.push('', ...auditLine(r));
  for (const [n, h] of [
    [3, r.heldout3],
    [4, r.heldout4],
  ]) {
    if (h)
      out.push(
        '',
        `Held-out set #${n} (${relative(repo, h.dir)}): ${h.outputs} outputs of ${h.families} tools, ${h.silent} silent failures, ${h.benign} benign; recall ${h.recall.toFixed(3)}, precision ${h.precision.toFixed(3)}.`,
      );
    else
      out.push(
        '',
        `Held-out set #${n}: no recording found (../heldout${n}/corpus or TOOLGUARD_HELDOUT${n}); scripts/record/silent-corpus/heldout${n}-cases.json says how to record it.`,
      );
  }
  return out.join('\n');
}

/** Which files `toolguard audit` could not read (their sessions are left out of its rows). */
function auditLine(r) {
  const formats = [...new Set(r.unread.map((e) => e.kind))];
  return [
    `toolguard audit: no reader yet for ${r.unread.length} files (${formats.join('; ') || 'none'}); their sessions are left out of its rows.${r.partial.length ? ` Read in part: ${r.partial.join(', ')}.` : ''}`,
  ];
}

// the file's last two path parts: a terminal log is always agent.log, its folder names the run
const shortName = (file) => file.split('/').slice(-2).join('/');

function verbose(r) {
  const out = [];
  for (const l of r.loops) {
    out.push('', `## ${l.name}`);
    out.push(`missed: ${l.missed.map((e) => `${shortName(e.file)}#${e.session} ${e.first}-${e.last} (${e.kind})`).join('; ') || 'none'}`);
    out.push(
      `benign stretches alarmed: ${l.trapsAlarmed.map((e) => `${shortName(e.file)}#${e.session} ${e.first}-${e.last} (${e.kind})`).join('; ') || 'none'}`,
    );
    out.push(
      `other false-alarm episodes: ${l.otherEpisodes.map((e) => `${shortName(e.key)} ${e.first}-${e.last} ×${e.alarms.length}`).join('; ') || 'none'}`,
    );
    if (l.falseTexts)
      out.push(`false texts: ${l.falseTexts.map((a) => `${shortName(a.key)} #${a.ordinal} ${a.kind}: ${a.why}`).join('; ') || 'none'}`);
  }
  for (const s of r.silent) {
    out.push('', `## ${s.name} (silent)`);
    out.push(`missed: ${s.misses.map((l) => `${shortName(l.file)}#${l.session} #${l.ordinal} ${l.class}`).join('; ') || 'none'}`);
    out.push(`benign flagged: ${s.wrong.map((l) => `${shortName(l.file)}#${l.session} #${l.ordinal} ${l.class}`).join('; ') || 'none'}`);
  }
  return out.join('\n');
}

export const DOC_BEGIN = '<!-- wild-eval:begin -->';
export const DOC_END = '<!-- wild-eval:end -->';

export default async function main(argv = []) {
  const wildDir = argValue(argv, 'wild');
  const labelsFile = argValue(argv, 'labels');
  if (wildDir || labelsFile) {
    // another set of sessions (a held-out set kept outside the repo): both or neither
    if (!wildDir || !labelsFile) throw new Error('wild eval: --wild DIR and --labels FILE go together');
    if (!wildPresent(wildDir)) throw new Error(`wild eval: --wild ${wildDir}: no manifest.json there`);
    if (argv.includes('--write')) throw new Error('wild eval: --write refreshes the ../shared/wild block only, not --wild');
    if (!existsSync(labelsFile)) throw new Error(`wild eval: --labels ${labelsFile}: no such file`);
  } else if (!wildPresent()) {
    return `wild: ${WILD} is absent (a fresh clone has no ../shared; TOOLGUARD_WILD points elsewhere): real-session evaluation skipped`;
  }
  const r = wildDir
    ? await evaluateWild({ wildDir, labels: { loops: JSON.parse(readFileSync(labelsFile, 'utf8')), silent: null } })
    : await evaluateWild();
  if (argv.includes('--json')) {
    const { labels, ...rest } = r;
    return JSON.stringify(rest, (_k, v) => (v instanceof Set ? [...v] : v), 2);
  }
  const text = formatWild(r);
  if (argv.includes('--write')) {
    const file = join(repo, 'docs/evaluation.md');
    const doc = readFileSync(file, 'utf8');
    const a = doc.indexOf(DOC_BEGIN);
    const b = doc.indexOf(DOC_END);
    if (a < 0 || b < a) throw new Error(`docs/evaluation.md: no ${DOC_BEGIN} … ${DOC_END} block`);
    writeFileSync(file, `${doc.slice(0, a + DOC_BEGIN.length)}\n${text}\n${doc.slice(b)}`);
  }
  return `## real sessions (${wildDir ?? '../shared/wild'})\n\n${text}${argv.includes('--verbose') ? `\n${verbose(r)}` : ''}`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  try {
    console.log(await main(process.argv.slice(2)));
  } catch (e) {
    // a bad --wild/--labels is the caller's mistake: say which, exit non-zero
    console.error(e instanceof Error ? e.message : String(e));
    process.exit(2);
  }
}
