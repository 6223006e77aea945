// What loops and silent failures cost: calls, wall time and tokens from the
// first flaggable call until the agent moved on. The native audit prices
// each session (crates/toolguard-audit/src/waste.rs, on the thread that
// audited it); here are the types, the sum over sessions and the text forms
// the text and HTML reports use. Definitions: docs/audit.md "Waste" and docs/trace-format.md.

import type { FailureJson, ReminderJson, SessionJson } from './audit/types.mjs';
import { counted, WORDS } from './words.mjs';

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

/** A session as the HTML report reads it: findings and the session priced. */
export type TimedSession = SessionJson & {
  timeline?: { calls: TimelineCallJson[]; omitted: number };
  loops?: (LoopJson & { waste?: WasteJson | null })[];
  waste?: WasteSummary;
};

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

/** No waste: where a sum over sessions starts. */
export const NO_WASTE: WasteSummary = { ...EMPTY, loop: EMPTY, failure: EMPTY };

/** `all` plus one session's waste (a streamed audit folds them one at a time). */
export function foldWaste(all: WasteSummary, w: WasteSummary): WasteSummary {
  return { ...addTotals(all, w), loop: addTotals(all.loop, w.loop), failure: addTotals(all.failure, w.failure) };
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

/** `3 calls · 1.2 s · 40k tokens`: one part of the waste (its episodes are named by the caller). */
export function wasteFigures(w: { calls: number; wallMs: number | null; tokens: number | null }): string {
  return `${counted(w.calls, 'call')} · ${formatDuration(w.wallMs)} · ${formatTokens(w.tokens)} tokens`;
}

/** What one part's episodes the log cannot price, as a parenthesis (or nothing). */
function unpriced(w: WasteTotals): string {
  const notes: string[] = [];
  if (w.episodesWithoutTime > 0 && w.wallMs !== null) notes.push(`${w.episodesWithoutTime} without timestamps`);
  if (w.episodesWithoutTokens > 0 && w.tokens !== null) notes.push(`${w.episodesWithoutTokens} without token usage`);
  return notes.length > 0 ? ` (${notes.join(', ')})` : '';
}

/**
 * The text report's waste lines: loops and silent failures apart, each with
 * what it counts (the failures' tokens are whole model turns, context
 * included, so one sum would be theirs: docs/audit.md "Waste").
 */
export function wasteLine(w: WasteSummary): string {
  if (w.episodes === 0) return 'Waste: none (no stuck episode or silent failure)';
  return [
    `Waste in loops: ${wasteFigures(w.loop)} in ${counted(w.loop.episodes, WORDS.episode)}${unpriced(w.loop)} (from the flagged call until the agent moved on)`,
    `Waste in silent failures: ${wasteFigures(w.failure)} in ${counted(w.failure.episodes, WORDS.failureEpisode)}${unpriced(w.failure)} (each failing call and its identical retries; tokens: the turns that made them, context included)`,
  ].join('\n');
}

export type { FailureJson, ReminderJson };
