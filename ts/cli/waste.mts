// What loops and silent failures cost: calls, wall time and tokens from the
// first flaggable call until the agent moved on, read off each session's
// timeline (the logs' own timestamps and usage). Definitions: README
// "Waste" and docs/trace-format.md; the HTML report and the text line use these figures.

import type { AuditDocument, FailureJson, ReminderJson, SessionJson } from './audit.mjs';

/** One call of a session's timeline (crates/toolguard-audit `TimelineCall`). */
export interface TimelineCallJson {
  ordinal: number;
  callId: string | null;
  tool: string;
  agentId: string | null;
  logLine: number;
  time?: number;
  endTime?: number;
  inputTokens?: number;
  outputTokens?: number;
  repeat?: number;
}

/** A loop-detector finding (`loops`, when the engine reports them): one loop episode, raised at its site. */
export interface LoopJson {
  ordinal: number;
  callId: string | null;
  tool: string;
  agentId: string | null;
  logLine: number;
  kind: string;
  count: number;
  /** Timeline ordinal of the loop's last call (older reports: absent, one finding per alarmed call). */
  lastCall?: number;
  summary?: string;
  text?: string;
  evidence?: string;
  reminders?: number;
}

export interface WasteJson {
  /** 1-based within the session; findings of one episode share it. */
  episode: number;
  kind: 'loop' | 'failure';
  /** The first flaggable call, and the last call before the agent moved on (call ids; null: the format has none). */
  from: string | null;
  to: string | null;
  /** The call the agent moved on with; null: the log ended first (or it has no id). */
  movedOnAt: string | null;
  /** The same calls by ordinal in the session (every format has one). */
  fromOrdinal: number;
  toOrdinal: number;
  movedOnAtOrdinal: number | null;
  calls: number;
  /** null: the log has no timestamps for these calls. */
  wallMs: number | null;
  /** null: the log has no token usage for these calls. */
  tokens: number | null;
  /** The episode runs past the timeline's bound: the figures cover its listed part. */
  partial?: true;
}

export interface WasteTotals {
  episodes: number;
  calls: number;
  wallMs: number | null;
  tokens: number | null;
  /** Episodes whose wall time or tokens the log cannot tell. */
  episodesWithoutTime: number;
  episodesWithoutTokens: number;
}

export interface WasteSummary extends WasteTotals {
  loop: WasteTotals;
  failure: WasteTotals;
}

type Finding = { ordinal: number; callId: string | null; agentId: string | null; logLine: number; waste?: WasteJson | null };
export type TimedSession = SessionJson & {
  timeline?: { calls: TimelineCallJson[]; omitted: number };
  loops?: (LoopJson & { waste?: WasteJson | null })[];
  waste?: WasteSummary;
};

const siteKey = (f: { agentId: string | null; ordinal: number }) => `${f.agentId}\u0000${f.ordinal}`;

interface Episode {
  waste: WasteJson;
  /** Timeline indexes of the episode's calls. */
  members: number[];
}

/**
 * The episode starting at timeline index `start`: the agent's later calls
 * while `continues(i, last)` holds. With `transparent`, calls of a tool the
 * repeat chain does not track (no `repeat`) are passed over as the chain
 * passes over them, inside the episode only when a continuing call follows.
 */
function episodeFrom(
  calls: TimelineCallJson[],
  start: number,
  kind: 'loop' | 'failure',
  continues: (i: number, last: number) => boolean,
  transparent: boolean,
  omitted: number,
): { members: number[]; waste: Omit<WasteJson, 'episode'> } {
  const agent = calls[start].agentId;
  const members = [start];
  let pending: number[] = [];
  let last = start;
  let movedOn: number | null = null;
  for (let i = start + 1; i < calls.length; i++) {
    if (calls[i].agentId !== agent) continue;
    if (continues(i, last)) {
      members.push(...pending, i);
      pending = [];
      last = i;
    } else if (transparent && calls[i].repeat === undefined) {
      pending.push(i);
    } else {
      movedOn = i;
      break;
    }
  }
  // The first call after the episode's last one is where the agent moved on.
  if (pending.length > 0) movedOn = pending[0];
  const first = calls[start];
  const end = calls[last];
  const stop = end.endTime ?? end.time;
  const wallMs = first.time !== undefined && stop !== undefined ? Math.max(0, stop - first.time) : null;
  let tokens: number | null = null;
  for (const i of members) {
    const c = calls[i];
    if (c.inputTokens !== undefined || c.outputTokens !== undefined) tokens = (tokens ?? 0) + (c.inputTokens ?? 0) + (c.outputTokens ?? 0);
  }
  const waste: Omit<WasteJson, 'episode'> = {
    kind,
    from: first.callId,
    to: end.callId,
    movedOnAt: movedOn === null ? null : calls[movedOn].callId,
    fromOrdinal: first.ordinal,
    toOrdinal: end.ordinal,
    movedOnAtOrdinal: movedOn === null ? null : calls[movedOn].ordinal,
    calls: members.length,
    wallMs,
    tokens,
  };
  if (movedOn === null && omitted > 0) waste.partial = true;
  return { members, waste };
}

/** Call `i` repeats call `last` (the chain's run length grew by one). */
const runsOn = (calls: TimelineCallJson[], i: number, last: number) =>
  calls[i].repeat !== undefined && calls[last].repeat !== undefined && calls[i].repeat === (calls[last].repeat as number) + 1;

function totals(episodes: Episode[], calls: TimelineCallJson[]): WasteTotals {
  const seen = new Set<number>();
  const spans: [number, number][] = [];
  let tokens: number | null = null;
  let withoutTime = 0;
  let withoutTokens = 0;
  for (const e of episodes) {
    if (e.waste.wallMs === null) withoutTime++;
    else {
      const start = calls[e.members[0]].time as number;
      spans.push([start, start + e.waste.wallMs]);
    }
    if (e.waste.tokens === null) withoutTokens++;
    for (const i of e.members) {
      if (seen.has(i)) continue;
      seen.add(i);
      const c = calls[i];
      if (c.inputTokens !== undefined || c.outputTokens !== undefined)
        tokens = (tokens ?? 0) + (c.inputTokens ?? 0) + (c.outputTokens ?? 0);
    }
  }
  // Overlapping episodes (a loop of failing calls) count their time once.
  spans.sort((a, b) => a[0] - b[0]);
  let wallMs: number | null = spans.length > 0 ? 0 : null;
  let reach = -Infinity;
  for (const [a, b] of spans) {
    const from = Math.max(a, reach);
    if (b > from) wallMs = (wallMs as number) + (b - from);
    reach = Math.max(reach, b);
  }
  return {
    episodes: episodes.length,
    calls: seen.size,
    wallMs,
    tokens,
    episodesWithoutTime: withoutTime,
    episodesWithoutTokens: withoutTokens,
  };
}

function addTotals(a: WasteTotals, b: WasteTotals): WasteTotals {
  const add = (x: number | null, y: number | null) => (x === null ? y : y === null ? x : x + y);
  return {
    episodes: a.episodes + b.episodes,
    calls: a.calls + b.calls,
    wallMs: add(a.wallMs, b.wallMs),
    tokens: add(a.tokens, b.tokens),
    episodesWithoutTime: a.episodesWithoutTime + b.episodesWithoutTime,
    episodesWithoutTokens: a.episodesWithoutTokens + b.episodesWithoutTokens,
  };
}

const EMPTY: WasteTotals = { episodes: 0, calls: 0, wallMs: null, tokens: null, episodesWithoutTime: 0, episodesWithoutTokens: 0 };

/**
 * Price one session's findings: sets `waste` on each finding (null when its
 * call is past the timeline's bound) and returns the session's totals.
 */
export function sessionWaste(session: TimedSession): WasteSummary {
  const calls = session.timeline?.calls ?? [];
  const omitted = session.timeline?.omitted ?? 0;
  const index = new Map<string, number>();
  calls.forEach((c, i) => {
    index.set(siteKey(c), i);
  });
  const loops: Episode[] = [];
  const failures: Episode[] = [];
  let numbered = 0;
  const claim = (list: Episode[], findings: Finding[], build: (start: number) => ReturnType<typeof episodeFrom>) => {
    // Findings in timeline order; one inside an earlier episode joins it.
    const byIndex = new Map<number, Episode>();
    const sorted = findings.map((f) => ({ f, i: index.get(siteKey(f)) })).sort((a, b) => (a.i ?? Infinity) - (b.i ?? Infinity));
    for (const { f, i } of sorted) {
      if (i === undefined) {
        f.waste = null;
        continue;
      }
      let episode = byIndex.get(i);
      if (episode === undefined) {
        const built = build(i);
        episode = { members: built.members, waste: { episode: ++numbered, ...built.waste } };
        list.push(episode);
        for (const m of built.members) byIndex.set(m, episode);
      }
      f.waste = episode.waste;
    }
  };

  // Loop alarms with the detectors on; DSH's reminders with `loops: false`
  // (the report always has both lists; with the detectors on, reminders stay empty).
  if (Array.isArray(session.loops) && session.loops.length > 0) {
    // A loop finding is one episode, from the call where it was raised to its
    // last call (`lastCall`); the agent's next call moved on. (An older report
    // has one finding per alarmed call: the run of alarmed calls.)
    const alarmed = new Set<number>();
    const lastOf = new Map<number, number>();
    for (const l of session.loops) {
      const i = index.get(siteKey(l));
      if (i === undefined) continue;
      alarmed.add(i);
      if (l.lastCall !== undefined) lastOf.set(i, l.lastCall);
    }
    claim(loops, session.loops, (start) => {
      const last = lastOf.get(start);
      return episodeFrom(calls, start, 'loop', (i) => (last !== undefined ? calls[i].ordinal <= last : alarmed.has(i)), false, omitted);
    });
  } else {
    // Repeat reminders fire at thresholds only: the episode runs on while
    // the agent repeats the same call (the chain's run length grows).
    claim(loops, session.reminders as Finding[], (start) =>
      episodeFrom(calls, start, 'loop', (i, last) => runsOn(calls, i, last), true, omitted),
    );
  }
  // A silent failure: the failing call and the agent's immediate retries of it.
  claim(failures, session.failures as Finding[], (start) =>
    episodeFrom(calls, start, 'failure', (i, last) => runsOn(calls, i, last), true, omitted),
  );
  const loop = totals(loops, calls);
  const failure = totals(failures, calls);
  return { ...totals([...loops, ...failures], calls), loop, failure };
}

/** No waste: where a sum over sessions starts. */
export const NO_WASTE: WasteSummary = { ...EMPTY, loop: EMPTY, failure: EMPTY };

/** `all` plus one session's waste (a streamed audit folds them one at a time). */
export function foldWaste(all: WasteSummary, w: WasteSummary): WasteSummary {
  return { ...addTotals(all, w), loop: addTotals(all.loop, w.loop), failure: addTotals(all.failure, w.failure) };
}

/** Price every session's findings; sets `waste` on findings, sessions and the summary. */
export function addWaste(document: AuditDocument): WasteSummary {
  let all = NO_WASTE;
  for (const session of document.sessions as TimedSession[]) {
    const w = sessionWaste(session);
    session.waste = w;
    all = foldWaste(all, w);
  }
  (document.summary as AuditDocument['summary'] & { waste?: WasteSummary }).waste = all;
  return all;
}

/** `1.2 s`, `3 min 20 s`, `2 h 5 min`; `n/a` for null. */
export function formatDuration(ms: number | null): string {
  if (ms === null) return 'n/a';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const s = ms / 1000;
  if (s < 60) return `${s.toFixed(s < 10 ? 1 : 0)} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min ${Math.round(s - m * 60)} s`;
  return `${Math.floor(m / 60)} h ${m % 60} min`;
}

/** `840`, `12.3k`, `4.1M`; `n/a` for null. */
export function formatTokens(n: number | null): string {
  if (n === null) return 'n/a';
  if (n < 1000) return String(n);
  if (n < 1e6) return `${(n / 1000).toFixed(n < 1e4 ? 1 : 0)}k`;
  return `${(n / 1e6).toFixed(1)}M`;
}

/** The text report's one waste line. */
export function wasteLine(w: WasteSummary): string {
  if (w.episodes === 0) return 'Waste: none (no stuck episode or silent failure)';
  const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;
  const notes: string[] = [];
  if (w.episodesWithoutTime > 0 && w.wallMs !== null) notes.push(`${w.episodesWithoutTime} without timestamps`);
  if (w.episodesWithoutTokens > 0 && w.tokens !== null) notes.push(`${w.episodesWithoutTokens} without token usage`);
  return (
    `Waste: ${plural(w.calls, 'call')} · ${formatDuration(w.wallMs)} · ${formatTokens(w.tokens)} tokens` +
    ` in ${plural(w.loop.episodes, 'stuck episode')} and ${plural(w.failure.episodes, 'silent failure')}` +
    (notes.length > 0 ? ` (${notes.join(', ')})` : '')
  );
}

export type { FailureJson, ReminderJson };
