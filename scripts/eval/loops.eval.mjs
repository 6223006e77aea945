// Loop-detection evaluation: runs toolguard and faithful re-statements of
// other agents' loop detectors (scripts/eval/baselines/) over the labelled
// corpus (corpus/loops/) and reports, per system: stuck episodes caught, calls
// of delay past the labelled point, and false alarms on legitimate stretches.
//
//   npm run eval                         (every scripts/eval/*.eval.mjs)
//   node scripts/eval/loops.eval.mjs     (this one)
//     --json             the numbers, as JSON
//     --verbose          list each system's missed episodes and false alarms
//     --config=<file>    the toolguard row's engine config (JSON), e.g. {"loops": {…}};
//                        the `toolguard audit` row gets it as --config too
//     --write            rewrite the table between the loop-eval markers in docs/loops.md
//
// From a test: `import { evaluateLoops, goals } from '../../scripts/eval/loops.eval.mjs'`,
// `const result = await evaluateLoops({ toolguardConfig: { … } })`, then
// `goals(result)` says where toolguard stands against the loop detectors' goals.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

import * as dsh from './baselines/dsh-official.mjs';
import * as gemini from './baselines/gemini-cli.mjs';
import * as openhands from './baselines/openhands.mjs';
import * as openhandsV1 from './baselines/openhands-v1.mjs';
import * as roo from './baselines/roo-code.mjs';
import * as cline from './baselines/cline.mjs';
import * as goose from './baselines/goose.mjs';
import * as openclaw from './baselines/openclaw.mjs';
import * as toolguard from './baselines/toolguard.mjs';
import * as toolguardAudit from './baselines/toolguard-audit.mjs';

const repo = join(dirname(fileURLToPath(import.meta.url)), '../..');
export const CORPUS_DIR = join(repo, 'corpus/loops');
export const LABELS_FILE = join(CORPUS_DIR, 'labels.json');
/** An episode at least this long is "long": a one-shot reminder cannot be enough. */
export const LONG_EPISODE = 30;
/** …and it counts as still alarmed when an alarm falls in its last this-many calls. */
export const LONG_TAIL = 10;

export const BASELINES = [dsh, gemini, openhands, openhandsV1, roo, cline, goose, openclaw];

/** One trace line → the call a detector sees. */
export function toCall(event, index) {
  let args = event.arguments;
  let argsJson = event.argumentsJson;
  if (argsJson === undefined) argsJson = args === undefined ? '{}' : JSON.stringify(args);
  if (args === undefined) {
    try {
      args = argsJson === '' ? {} : JSON.parse(argsJson);
    } catch {
      args = argsJson;
    }
  }
  const rawOutput =
    event.output ??
    (event.content ?? [])
      .filter((b) => b?.type === 'text')
      .map((b) => b.text)
      .join('\n');
  const exitCode = Number.isInteger(event.exitCode) ? event.exitCode : null;
  const output = exitCode ? `${rawOutput}\n[exit code: ${exitCode}]` : rawOutput;
  return { index, tool: event.tool, args, argsJson, rawOutput, output, exitCode, isError: event.isError === true, callId: event.callId };
}

/** A corpus session file → its events: calls (numbered from 0) and user prompts. */
export function readSession(file) {
  const events = [];
  let index = 0;
  readFileSync(file, 'utf8')
    .split('\n')
    .forEach((text, i) => {
      if (!text.trim()) return;
      let event;
      try {
        event = JSON.parse(text);
      } catch (e) {
        throw new Error(`${file}:${i + 1}: not JSON (${e.message})`);
      }
      const type = event.type ?? 'call';
      if (type === 'call') events.push({ type, call: toCall(event, index++) });
      else if (type === 'user' || type === 'end') events.push({ type });
      else throw new Error(`${file}:${i + 1}: unknown line type ${JSON.stringify(type)}`);
    });
  return events;
}

export function loadCorpus({ corpusDir = CORPUS_DIR, labelsFile = LABELS_FILE } = {}) {
  const labels = JSON.parse(readFileSync(labelsFile, 'utf8'));
  const files = readdirSync(corpusDir)
    .filter((f) => f.endsWith('.jsonl'))
    .sort();
  const sessions = files.map((f) => {
    const name = basename(f, '.jsonl');
    const label = labels.sessions[name];
    if (!label) throw new Error(`${f}: no entry in ${basename(labelsFile)}`);
    return { name, file: join(corpusDir, f), events: readSession(join(corpusDir, f)), ...label };
  });
  for (const name of Object.keys(labels.sessions)) {
    if (!files.includes(`${name}.jsonl`)) throw new Error(`${basename(labelsFile)}: session ${name} has no ${name}.jsonl`);
  }
  return sessions;
}

/** Replay one session through one system: the alarms, by call index. */
export async function replay(system, session, options = {}) {
  if (system.replaySession) return system.replaySession(session, options);
  const detector = system.create(system === toolguard ? options.toolguardConfig : undefined);
  const alarms = [];
  for (const ev of session.events) {
    if (ev.type === 'user') await detector.user();
    else if (ev.type === 'call') for (const a of await detector.observe(ev.call)) alarms.push({ index: ev.call.index, ...a });
  }
  return alarms;
}

const median = (xs) => {
  if (!xs.length) return null;
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

/** Score one system's alarms against the labels. */
export function score(sessions, alarmsBySession) {
  const r = {
    episodes: 0,
    caught: 0,
    delays: [],
    missed: [],
    firstAlarm: {},
    traps: 0,
    trapsAlarmed: 0,
    trapAlarms: 0,
    falseAlarms: [],
    long: 0,
    longStillAlarmed: 0,
    byShape: {},
    unlabelledAlarms: 0,
  };
  for (const s of sessions) {
    const alarms = alarmsBySession.get(s.name) ?? [];
    const inside = (from, to) => alarms.filter((a) => a.index >= from && a.index <= to);
    const labelled = new Set();
    for (const ep of s.episodes ?? []) {
      r.episodes += 1;
      r.byShape[ep.shape] ??= { episodes: 0, caught: 0 };
      const shape = r.byShape[ep.shape];
      shape.episodes += 1;
      const hits = inside(ep.from, ep.to);
      for (const a of hits) labelled.add(a);
      r.firstAlarm[`${s.name}#${ep.stuck}`] = hits.length ? hits[0].index : null;
      if (hits.length) {
        r.caught += 1;
        shape.caught += 1;
        r.delays.push(hits[0].index - ep.stuck);
      } else r.missed.push(`${s.name}#${ep.stuck}`);
      if (ep.to - ep.from + 1 >= LONG_EPISODE) {
        r.long += 1;
        if (hits.some((a) => a.index > ep.to - LONG_TAIL)) r.longStillAlarmed += 1;
      }
    }
    for (const t of s.traps ?? []) {
      r.traps += 1;
      const hits = inside(t.from, t.to);
      for (const a of hits) labelled.add(a);
      if (hits.length) {
        r.trapsAlarmed += 1;
        r.trapAlarms += hits.length;
        r.falseAlarms.push(`${s.name}#${hits[0].index} (${t.kind})`);
      }
    }
    r.unlabelledAlarms += alarms.filter((a) => !labelled.has(a)).length;
  }
  r.delayMedian = median(r.delays);
  r.delayMax = r.delays.length ? Math.max(...r.delays) : null;
  return r;
}

export async function evaluateLoops(options = {}) {
  const sessions = loadCorpus(options);
  const systems = options.systems ?? [...BASELINES, toolguard, toolguardAudit];
  const results = [];
  for (const system of systems) {
    await system.prepare?.(sessions, options);
    const alarms = new Map();
    for (const s of sessions) alarms.set(s.name, await replay(system, s, options));
    results.push({ name: system.name, note: system.note, ...score(sessions, alarms), alarms });
  }
  const calls = sessions.reduce((n, s) => n + s.events.filter((e) => e.type === 'call').length, 0);
  return { sessions: sessions.length, calls, results };
}

/**
 * Where one system stands against the loop detectors' goals: catch >= 95% of the
 * episodes with no alarm on a trap, catch every episode some baseline
 * catches, no later than the earliest baseline, and beat every baseline on
 * episodes caught and on traps alarmed.
 */
export function goals({ results }, name = 'toolguard') {
  const me = results.find((r) => r.name === name);
  if (!me) throw new Error(`no results for ${name}`);
  const baselines = results.filter((r) => BASELINES.some((b) => b.name === r.name));
  const missedThatBaselinesCatch = [];
  const laterThanBest = [];
  for (const [episode, mine] of Object.entries(me.firstAlarm)) {
    const theirs = baselines.map((b) => b.firstAlarm[episode]).filter((i) => i !== null);
    if (!theirs.length) continue;
    const best = Math.min(...theirs);
    if (mine === null) missedThatBaselinesCatch.push(episode);
    else if (mine > best) laterThanBest.push(`${episode} (${mine} > ${best})`);
  }
  return {
    name,
    caughtShare: me.caught / me.episodes,
    trapsAlarmed: me.trapsAlarmed,
    missedThatBaselinesCatch,
    laterThanBest,
    moreCaughtThanEveryBaseline: baselines.every((b) => me.caught > b.caught),
    fewerTrapsAlarmedThanEveryBaseline: baselines.every((b) => me.trapsAlarmed < b.trapsAlarmed),
    met: me.caught / me.episodes >= 0.95 && me.trapsAlarmed === 0 && !missedThatBaselinesCatch.length && !laterThanBest.length,
  };
}

export function formatGoals(g) {
  const pct = (x) => `${Math.round(x * 100)}%`;
  return [
    `${g.name} against the loop detectors' goals: ${g.met ? 'met' : 'not met'}`,
    `- episodes caught: ${pct(g.caughtShare)} (goal >= 95%); traps alarmed: ${g.trapsAlarmed} (goal 0)`,
    `- more episodes caught than every baseline: ${g.moreCaughtThanEveryBaseline ? 'yes' : 'no'}; fewer traps alarmed than every baseline: ${g.fewerTrapsAlarmedThanEveryBaseline ? 'yes' : 'no'}`,
    `- episodes a baseline catches and ${g.name} misses: ${g.missedThatBaselinesCatch.length}${g.missedThatBaselinesCatch.length ? ` (${g.missedThatBaselinesCatch.join(', ')})` : ''}`,
    `- episodes where ${g.name} alarms later than the earliest baseline: ${g.laterThanBest.length}${g.laterThanBest.length ? ` (${g.laterThanBest.join(', ')})` : ''}`,
  ].join('\n');
}

export function formatTable({ sessions, calls, results }) {
  const r0 = results[0];
  const rows = [
    [
      'system',
      `episodes caught (of ${r0.episodes})`,
      'delay median',
      'delay max',
      `traps alarmed (of ${r0.traps})`,
      'alarms in traps',
      `long episodes still alarmed (of ${r0.long})`,
    ],
    ...results.map((r) =>
      [
        r.name,
        String(r.caught),
        r.delayMedian ?? '–',
        r.delayMax ?? '–',
        String(r.trapsAlarmed),
        String(r.trapAlarms),
        String(r.longStillAlarmed),
      ].map(String),
    ),
  ];
  const shapes = Object.keys(r0.byShape).sort();
  const shapeRows = [
    ['system', ...shapes.map((k) => `${k} (${r0.byShape[k].episodes})`)],
    ...results.map((r) => [r.name, ...shapes.map((k) => String(r.byShape[k]?.caught ?? 0))]),
  ];
  const md = (table) => {
    const [head, ...body] = table;
    return [
      `| ${head.join(' | ')} |`,
      `|${head.map((_, i) => (i ? ' ---: ' : ' --- ')).join('|')}|`,
      ...body.map((row) => `| ${row.join(' | ')} |`),
    ].join('\n');
  };
  return [
    `Loop detection on corpus/loops: ${sessions} sessions, ${calls} tool calls, ${r0.episodes} stuck episodes, ${r0.traps} legitimate stretches.`,
    'delay: calls between the labelled stuck point and the first alarm inside the episode (negative: earlier).',
    '',
    md(rows),
    '',
    ...results.map((r) => `- ${r.name}: ${r.note}`),
    '',
    'Episodes caught, by shape:',
    '',
    md(shapeRows),
  ].join('\n');
}

export const README_BEGIN = '<!-- loop-eval:begin -->';
export const README_END = '<!-- loop-eval:end -->';

/** docs/loops.md with the block between the loop-eval markers replaced by `table`. */
export function readmeWithTable(readme, table) {
  const a = readme.indexOf(README_BEGIN);
  const b = readme.indexOf(README_END);
  if (a < 0 || b < a) throw new Error(`docs/loops.md: no ${README_BEGIN} … ${README_END} block`);
  return `${readme.slice(0, a + README_BEGIN.length)}\nProduced by \`npm run eval\` (scripts/eval/loops.eval.mjs) on corpus/loops/.\n\n${table}\n${readme.slice(b)}`;
}

export default async function main(argv = []) {
  const configArg = argv.find((a) => a.startsWith('--config='));
  const toolguardConfig = configArg ? JSON.parse(readFileSync(configArg.slice('--config='.length), 'utf8')) : undefined;
  const result = await evaluateLoops({ toolguardConfig, auditArgs: configArg ? ['--config', configArg.slice('--config='.length)] : [] });
  if (argv.includes('--write')) {
    const file = join(repo, 'docs/loops.md');
    writeFileSync(file, readmeWithTable(readFileSync(file, 'utf8'), formatTable(result)));
  }
  if (argv.includes('--json')) {
    return JSON.stringify(
      result.results.map(({ alarms, ...r }) => r),
      null,
      2,
    );
  }
  const lines = [formatTable(result), '', formatGoals(goals(result))];
  if (argv.includes('--verbose')) {
    for (const r of result.results)
      lines.push('', `${r.name}: missed ${r.missed.join(', ') || 'none'}; false alarms ${r.falseAlarms.join(', ') || 'none'}`);
  }
  return lines.join('\n');
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  console.log(await main(process.argv.slice(2)));
}
