// `toolguard audit --html FILE`: one self-contained HTML page (inline CSS, JS
// and SVG; no network) over the audit document: an overview, one timeline
// strip per session (subagents nested under their parent), finding marks
// that open the call's detail, filters. The strips are static markup, so
// the page shows without script; the script only filters and opens details.

import { writeFileSync } from 'node:fs';

import type { AuditDocument } from './audit/types.mjs';
import { counted, MEANING, sessionsInLogs, WORDS } from './words.mjs';
import {
  formatDuration,
  formatTokens,
  wasteFigures,
  type TimedSession,
  type TimelineCallJson,
  type WasteJson,
  type WasteSummary,
} from './waste.mjs';

const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
const plural = counted;

/** One finding as the page's script needs it (embedded as JSON). */
interface FindingData {
  kind: 'loop' | 'failure';
  session: number;
  title: string;
  tool: string;
  callId: string | null;
  agentId: string | null;
  logLine: number;
  ordinal: number | null;
  time: number | null;
  command: string | null;
  arguments: string | null;
  ruleId: string | null;
  message: string | null;
  line: number | null;
  context: { from: number; lines: string[] } | null;
  text: string;
  waste: WasteJson | null;
}

interface LoopLike {
  ordinal: number;
  callId: string | null;
  tool: string;
  agentId: string | null;
  logLine: number;
  summary?: string;
  kind?: string;
  count?: number;
  command?: string | null;
  arguments?: string;
  text?: string;
  evidence?: string;
  /** A loop episode's first and last call (timeline ordinals) and its reminders. */
  firstCall?: number;
  lastCall?: number;
  reminders?: number;
  waste?: WasteJson | null;
}
interface FailureLike {
  ordinal: number;
  callId: string | null;
  tool: string;
  agentId: string | null;
  logLine: number;
  ruleId: string;
  action: string;
  message: string;
  line: number;
  excerpt: string;
  command: string | null;
  summary: string;
  text?: string;
  outputContext?: { from: number; lines: string[] };
  waste?: WasteJson | null;
}

const LANE = 18;
const WIDTH = 1000;

/** Loop findings of a session: the loop detectors' when present, else the repeat reminders. */
function loopFindings(s: TimedSession): LoopLike[] {
  return (Array.isArray(s.loops) ? s.loops : s.reminders) as LoopLike[];
}

function sessionName(s: TimedSession): string {
  return s.sessionId ?? s.file;
}

/** The strip of one agent's calls: lanes by tool, episode bands, finding marks. */
function strip(
  calls: TimelineCallJson[],
  span: number,
  tools: string[],
  marks: { at: number; tool: string; kind: 'loop' | 'failure'; index: number; label: string; stack: number }[],
  bands: { from: number; to: number; kind: 'loop' | 'failure' }[],
): string {
  const height = tools.length * LANE;
  const x = (ordinal: number) => ((ordinal - 0.5) / span) * WIDTH;
  const slot = Math.max(WIDTH / span, 0.6);
  const lane = new Map(tools.map((t, i) => [t, i]));
  const parts: string[] = [];
  for (const b of bands) {
    const x0 = x(b.from) - slot / 2;
    parts.push(
      `<rect class="band ${b.kind}" x="${x0.toFixed(2)}" y="0" width="${(x(b.to) - x0 + slot / 2).toFixed(2)}" height="${height}"/>`,
    );
  }
  const paths = tools.map(() => [] as string[]);
  for (const c of calls) {
    const i = lane.get(c.tool) as number;
    paths[i].push(`M${x(c.ordinal).toFixed(1)} ${i * LANE + 3}v${LANE - 6}`);
  }
  paths.forEach((d) => {
    if (d.length > 0) parts.push(`<path class="calls" d="${d.join('')}"/>`);
  });
  // Marks stay clickable at any density: 10 to 16 units, the call's slot when it fits.
  const w = Math.min(16, Math.max(slot * 0.7, 10));
  for (const m of marks) {
    const y = (lane.get(m.tool) ?? 0) * LANE + (m.kind === 'loop' ? 1 : LANE / 2);
    const mx = x(m.at) - w / 2 + m.stack * w;
    parts.push(
      `<rect class="mark ${m.kind}" data-kind="${m.kind}" data-tool="${esc(m.tool)}" data-f="${m.index}" tabindex="0" role="button" aria-label="${esc(m.label)}" x="${mx.toFixed(2)}" y="${y}" width="${w.toFixed(2)}" height="${LANE / 2 - 1}"><title>${esc(m.label)}</title></rect>`,
    );
  }
  const labels = tools.map((t) => `<span>${esc(t)}</span>`).join('');
  return (
    `<div class="strip"><div class="lanes" style="height:${height}px">${labels}</div>` +
    `<svg viewBox="0 0 ${WIDTH} ${height}" preserveAspectRatio="none" height="${height}" role="group" aria-label="tool calls in order, one lane per tool">${parts.join('')}</svg></div>`
  );
}

/** `back`: the link to the index page, for a run's page of an HTML folder report (dataset.mts). */
export function renderHtml(doc: AuditDocument, generated = new Date(), page: { back?: string } = {}): string {
  const sessions = doc.sessions as TimedSession[];
  const findings: FindingData[] = [];
  const sections: string[] = [];
  const allTools = new Set<string>();
  const byId = new Map<string, number>();
  sessions.forEach((s, i) => {
    if (s.sessionId !== null) byId.set(s.sessionId, i);
  });

  sessions.forEach((s, si) => {
    const calls = s.timeline?.calls ?? [];
    const at = new Map<string, TimelineCallJson>();
    for (const c of calls) at.set(`${c.agentId}\u0000${c.ordinal}`, c);
    const site = (f: { agentId: string | null; ordinal: number }) => at.get(`${f.agentId}\u0000${f.ordinal}`);
    /** Where a finding happened: its call in the log and, when drawn, on the timeline. */
    const placeOf = (f: LoopLike | FailureLike, c: TimelineCallJson | undefined) => ({
      tool: f.tool,
      callId: f.callId,
      agentId: f.agentId,
      logLine: f.logLine,
      ordinal: c?.ordinal ?? null,
      time: c?.time ?? null,
    });
    const agents: (string | null)[] = [];
    for (const c of calls) if (!agents.includes(c.agentId)) agents.push(c.agentId);
    const tools = [...new Set(calls.map((c) => c.tool))].sort();
    for (const t of tools) allTools.add(t);
    const marksByAgent = new Map<string | null, Parameters<typeof strip>[3]>();
    const bandsByAgent = new Map<string | null, Parameters<typeof strip>[4]>();
    const seenEpisode = new Set<number>();
    const stackAt = new Map<string, number>();
    const addMark = (
      agent: string | null,
      tool: string,
      kind: 'loop' | 'failure',
      c: TimelineCallJson | undefined,
      index: number,
      label: string,
      waste: WasteJson | null | undefined,
    ) => {
      if (c === undefined) return;
      const key = `${kind}\u0000${c.ordinal}`;
      const stack = stackAt.get(key) ?? 0;
      stackAt.set(key, stack + 1);
      const list = marksByAgent.get(agent) ?? [];
      list.push({ at: c.ordinal, tool, kind, index, label, stack });
      marksByAgent.set(agent, list);
      if (waste && !seenEpisode.has(waste.episode)) {
        seenEpisode.add(waste.episode);
        const last = calls.find((x) => x.agentId === agent && x.ordinal === waste.toOrdinal);
        const bands = bandsByAgent.get(agent) ?? [];
        bands.push({ from: c.ordinal, to: last?.ordinal ?? c.ordinal, kind });
        bandsByAgent.set(agent, bands);
      }
    };
    for (const l of loopFindings(s)) {
      const c = site(l);
      const span =
        l.firstCall !== undefined && l.lastCall !== undefined
          ? `, calls #${l.firstCall}–#${l.lastCall}${(l.reminders ?? 1) > 1 ? `, ${l.reminders} reminders` : ''}`
          : '';
      const title = (l.summary ?? `${l.tool} × ${l.count ?? '?'}`) + span;
      const index = findings.length;
      findings.push({
        kind: 'loop',
        session: si,
        title: l.kind !== undefined ? `${l.kind} loop: ${title}` : `loop: ${title}`,
        ...placeOf(l, c),
        command: l.command ?? null,
        arguments: l.arguments ?? l.evidence ?? null,
        ruleId: null,
        message: null,
        line: null,
        context: null,
        text: l.text ?? '',
        waste: l.waste ?? null,
      });
      addMark(l.agentId, l.tool, 'loop', c, index, `loop ${title}, call ${c?.ordinal ?? '?'} (${l.callId ?? 'no id'})`, l.waste);
    }
    for (const f of s.failures as FailureLike[]) {
      const c = site(f);
      const index = findings.length;
      findings.push({
        kind: 'failure',
        session: si,
        title: `silent failure: ${f.ruleId}${f.action === 'context' ? ' (context)' : ''}`,
        ...placeOf(f, c),
        command: f.command,
        arguments: null,
        ruleId: f.ruleId,
        message: f.message,
        line: f.line,
        context: f.outputContext ?? { from: f.line, lines: [f.excerpt] },
        text: f.text ?? f.message,
        waste: f.waste ?? null,
      });
      addMark(
        f.agentId,
        f.tool,
        'failure',
        c,
        index,
        `silent failure ${f.ruleId}, call ${c?.ordinal ?? '?'} (${f.callId ?? 'no id'})`,
        f.waste,
      );
    }
    const span = Math.max(1, calls.length > 0 ? calls[calls.length - 1].ordinal : 1);
    const strips = agents
      .map((agent) => {
        const mine = calls.filter((c) => c.agentId === agent);
        const label = agents.length > 1 ? `<p class="agent">agent ${esc(agent ?? '(none)')}</p>` : '';
        return label + strip(mine, span, tools, marksByAgent.get(agent) ?? [], bandsByAgent.get(agent) ?? []);
      })
      .join('');
    const w = s.waste;
    const loopsN = loopFindings(s).length;
    const kinds = [loopsN > 0 ? 'loop' : '', s.failures.length > 0 ? 'failure' : '', loopsN + s.failures.length === 0 ? 'none' : '']
      .filter(Boolean)
      .join(' ');
    const meta = [
      esc(s.file),
      s.format,
      plural(s.calls, 'call'),
      loopsN > 0 ? `<b class="t-loop">${plural(loopsN, WORDS.loop)}</b>` : '',
      s.silentFailures > 0
        ? `<b class="t-failure">${plural(s.silentFailures, WORDS.silentFailure)}</b> (${plural(s.failures.length, WORDS.ruleMatch, 'rule matches')})`
        : '',
      w && w.loop.episodes > 0 ? `<span title="${esc(MEANING.loopWaste)}">waste in loops ${wasteFigures(w.loop)}</span>` : '',
      w && w.failure.episodes > 0
        ? `<span title="${esc(MEANING.failureWaste)}">waste in silent failures ${wasteFigures(w.failure)}</span>`
        : '',
      s.timeline && s.timeline.omitted > 0 ? `${plural(s.timeline.omitted, 'call')} past the timeline bound not drawn` : '',
      s.errorCount > 0 ? `<b class="t-error">${plural(s.errorCount, 'input error')}</b>` : '',
    ]
      .filter(Boolean)
      .join(' · ');
    sections[si] =
      `<section class="session" id="s-${si}" data-session="${esc(sessionName(s) + ' ' + s.file)}" data-tools="${esc(' ' + tools.join(' ') + ' ')}" data-kinds="${kinds}" aria-labelledby="h-${si}">` +
      `<h3 id="h-${si}">${s.parentSession !== null ? '<span class="sub">subagent</span> ' : ''}${esc(sessionName(s))}</h3><p class="meta">${meta}</p>` +
      (calls.length > 0 ? strips : '<p class="meta">no calls</p>') +
      `<!--children-${si}-->` +
      `</section>`;
  });

  // Subagents nest under their parent (when the parent's log is in the audit).
  const childrenOf = new Map<number, number[]>();
  const roots: number[] = [];
  sessions.forEach((s, i) => {
    const parent = s.parentSession !== null ? byId.get(s.parentSession) : undefined;
    if (parent !== undefined && parent !== i) childrenOf.set(parent, [...(childrenOf.get(parent) ?? []), i]);
    else roots.push(i);
  });
  const placed = new Set<number>();
  const build = (i: number): string => {
    placed.add(i);
    const kids = (childrenOf.get(i) ?? []).filter((k) => !placed.has(k)).map(build);
    return sections[i].replace(`<!--children-${i}-->`, kids.length > 0 ? `<div class="children">${kids.join('')}</div>` : '');
  };
  const body = roots.map(build).join('') + sessions.map((_, i) => (placed.has(i) ? '' : build(i))).join('');

  const sum = doc.summary as AuditDocument['summary'] & { waste?: WasteSummary };
  const waste = sum.waste;
  const loopCount = sessions.reduce((n, s) => n + loopFindings(s).length, 0);
  const ruleRows = Object.entries(sum.rules)
    .sort((a, b) => b[1] - a[1])
    .map(([id, n]) => `<tr><td>silent failure</td><td>${esc(id)}</td><td class="n">${n}</td></tr>`);
  const loopKinds = new Map<string, number>();
  for (const s of sessions)
    for (const l of loopFindings(s)) loopKinds.set(l.kind ?? 'repeat', (loopKinds.get(l.kind ?? 'repeat') ?? 0) + 1);
  const loopRows = [...loopKinds].map(([k, n]) => `<tr><td>loop</td><td>${esc(k)}</td><td class="n">${n}</td></tr>`);
  const ranked = sessions
    .map((s, i) => ({ s, i }))
    .filter(({ s }) => (s.waste?.episodes ?? 0) > 0)
    .sort(
      (a, b) =>
        b.s.waste!.calls - a.s.waste!.calls ||
        (b.s.waste!.tokens ?? 0) - (a.s.waste!.tokens ?? 0) ||
        (b.s.waste!.wallMs ?? 0) - (a.s.waste!.wallMs ?? 0),
    )
    .slice(0, 10)
    .map(
      ({ s, i }) =>
        `<tr><td><a href="#s-${i}">${esc(sessionName(s))}</a></td><td class="n">${s.waste!.loop.episodes}</td><td class="n">${s.silentFailures}</td><td class="n">${s.waste!.calls}</td><td class="n">${formatDuration(s.waste!.wallMs)}</td><td class="n">${formatTokens(s.waste!.tokens)}</td></tr>`,
    );
  const toolOptions = [...allTools]
    .sort()
    .map((t) => `<option>${esc(t)}</option>`)
    .join('');
  const stat = (label: string, value: string, id: string, title?: string) =>
    `<div${title ? ` title="${esc(title)}"` : ''}><dt>${label}</dt><dd id="${id}">${value}</dd></div>`;
  const json = JSON.stringify(findings).replace(/</g, '\\u003c');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>toolguard audit — ${plural(sessions.length, 'session')}</title>
<style>${CSS}</style></head>
<body>
<header>${page.back !== undefined ? `<p class="meta"><a href="${esc(page.back)}">← all runs</a></p>` : ''}<h1>toolguard audit</h1><p class="meta">${sessionsInLogs(sessions.length, sum.files)} · generated ${esc(generated.toISOString().slice(0, 19).replace('T', ' '))} UTC</p></header>
<main>
<section id="overview" aria-label="overview">
<dl class="stats">
${stat('sessions', String(sessions.length), 'stat-sessions')}
${stat('tool calls', String(sum.calls), 'stat-calls')}
${stat(`${WORDS.loop}s`, String(loopCount), 'stat-loops')}
${stat(`${WORDS.silentFailure}s`, `${sum.silentFailures} <small>calls, ${plural(sum.ruleMatches, WORDS.ruleMatch, 'rule matches')}</small>`, 'stat-failures')}
${stat('waste in loops', waste ? wasteFigures(waste.loop) : 'n/a', 'stat-waste-loop', MEANING.loopWaste)}
${stat('waste in silent failures', waste ? wasteFigures(waste.failure) : 'n/a', 'stat-waste-failure', MEANING.failureWaste)}
${stat('input errors', String(sum.errors), 'stat-errors')}
</dl>
<div class="tables">
<table id="by-rule"><caption>Findings by kind and rule</caption><thead><tr><th>kind</th><th>rule / loop kind</th><th class="n">findings</th></tr></thead><tbody>${[...loopRows, ...ruleRows].join('') || '<tr><td colspan="3">none</td></tr>'}</tbody></table>
<table id="top-waste"><caption>Most waste first (by calls, then tokens)</caption><thead><tr><th>session</th><th class="n">${WORDS.episode}s</th><th class="n">silent failures</th><th class="n">calls</th><th class="n">time</th><th class="n">tokens</th></tr></thead><tbody>${ranked.join('') || '<tr><td colspan="6">no waste</td></tr>'}</tbody></table>
</div>
<p class="note">Waste, apart for loops and silent failures: in loops, the calls, wall time and tokens of each stuck episode from the flagged call until the agent moved on (its first call that does not carry the loop on); in silent failures, each failing call and its identical retries, with the tokens of the model turns that made them (a turn's whole input, context included, so these sums are the larger). The ranking's calls, time and tokens are both, overlaps counted once. n/a: the log has no timestamps or token usage.</p>
</section>
<form id="filters" aria-label="filters" onsubmit="return false">
<fieldset><legend>Findings</legend>
<label><input type="checkbox" name="kind" value="loop" checked> <span class="key loop"></span>loops</label>
<label><input type="checkbox" name="kind" value="failure" checked> <span class="key failure"></span>silent failures</label>
<label><input type="checkbox" name="kind" value="none" checked> sessions without findings</label>
</fieldset>
<label>Tool <select id="f-tool"><option value="">all tools</option>${toolOptions}</select></label>
<label>Session <input id="f-session" type="search" placeholder="id or file"></label>
<output id="shown" aria-live="polite">${plural(sessions.length, 'session')}</output>
</form>
<div id="layout">
<div id="sessions">${body}</div>
<aside id="detail" tabindex="-1" aria-live="polite" aria-label="finding detail"><p class="meta">Select a mark on a timeline (click, or Tab to it and press Enter) to see the call, its output and what the guard tells the model.</p></aside>
</div>
<p class="meta legend"><span class="key loop"></span> ${WORDS.loop} <span class="key failure"></span> silent failure <span class="key band-loop"></span><span class="key band-failure"></span> episode until the agent moved on · lanes: tools · left to right: calls in order</p>
</main>
<script type="application/json" id="findings-data">${json}</script>
<script>${SCRIPT}</script>
</body></html>
`;
}

/** Write the report; returns an exit code when the audit should stop here (stdout taken, or it failed). */
export function writeHtmlReport(doc: AuditDocument, target: string): number | undefined {
  const html = renderHtml(doc);
  if (target === '-') {
    process.stdout.write(html);
    return doc.summary.exitCode;
  }
  try {
    writeFileSync(target, html);
  } catch (e) {
    process.stderr.write(`toolguard audit: cannot write the HTML report to ${target}: ${(e as Error).message}\n`);
    return 2;
  }
  process.stderr.write(`toolguard audit: wrote the HTML report to ${target}\n`);
  return undefined;
}

const CSS = `
:root{--fg:#111827;--muted:#4b5563;--bg:#fff;--line:#d1d5db;--loop:#b45309;--failure:#b91c1c;--focus:#1d4ed8}
*{box-sizing:border-box}
body{margin:0;font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg);background:var(--bg)}
header,main{padding:0 20px}
h1{font-size:20px;margin:14px 0 0}
h3{font-size:14px;margin:0}
.meta{color:var(--muted);margin:2px 0 6px}
.stats{display:flex;flex-wrap:wrap;gap:8px;margin:12px 0}
.stats div{border:1px solid var(--line);border-radius:6px;padding:6px 12px;min-width:110px}
.stats dt{color:var(--muted);font-size:12px}.stats dd{margin:0;font-size:20px;font-weight:600}
.stats small{font-size:12px;font-weight:400;color:var(--muted)}
.tables{display:flex;flex-wrap:wrap;gap:24px;align-items:flex-start}
table{border-collapse:collapse;min-width:320px}caption{text-align:left;font-weight:600;padding:4px 0}
th,td{border-bottom:1px solid var(--line);padding:3px 10px 3px 0;text-align:left}.n{text-align:right}
.note{color:var(--muted);max-width:900px}
#filters{display:flex;flex-wrap:wrap;gap:16px;align-items:center;position:sticky;top:0;background:var(--bg);padding:8px 0;border-bottom:1px solid var(--line);z-index:2}
fieldset{border:0;padding:0;margin:0;display:flex;gap:12px}legend{float:left;margin-right:8px;color:var(--muted)}
#layout{display:grid;grid-template-columns:minmax(0,1fr) 380px;gap:16px;align-items:start}
#detail{position:sticky;top:56px;border:1px solid var(--line);border-radius:6px;padding:10px 12px;max-height:calc(100vh - 70px);overflow:auto}
#detail:focus{outline:3px solid var(--focus)}
#detail h2{font-size:15px;margin:0 0 6px}
#detail pre{background:#f3f4f6;padding:6px 8px;white-space:pre-wrap;word-break:break-word;margin:4px 0 10px;font-size:12px}
#detail .hit{background:#fde68a;display:block}
#detail dl{display:grid;grid-template-columns:auto 1fr;gap:2px 10px;margin:0 0 8px}#detail dt{color:var(--muted)}#detail dd{margin:0}
.session{border-top:1px solid var(--line);padding:8px 0}
.children{margin-left:22px;border-left:3px solid var(--line);padding-left:10px}
.sub{font-size:11px;background:#e5e7eb;border-radius:3px;padding:0 4px;font-weight:500}
.agent{margin:4px 0 0;font-size:12px;color:var(--muted)}
.strip{display:grid;grid-template-columns:110px minmax(0,1fr);border:1px solid var(--line);border-radius:4px;background:#fafafa}
.lanes{display:flex;flex-direction:column;border-right:1px solid var(--line)}
.lanes span{height:${LANE}px;line-height:${LANE}px;font-size:11px;padding:0 6px;overflow:hidden;text-overflow:ellipsis;white-space:nowrap;color:var(--muted)}
svg{width:100%;display:block;overflow:visible}
.calls{stroke:#4b5563;stroke-width:1.5px;vector-effect:non-scaling-stroke}
.band.loop{fill:#fef3c7}.band.failure{fill:#fee2e2}
.mark{cursor:pointer;stroke:#fff;stroke-width:1px;vector-effect:non-scaling-stroke}
.mark.loop{fill:var(--loop)}.mark.failure{fill:var(--failure)}
.mark:hover{stroke:#111827;stroke-width:2px}
.mark:focus{outline:none}
.mark:focus-visible,.mark.selected{stroke:var(--focus);stroke-width:3px;outline:3px solid var(--focus);outline-offset:1px}
.t-loop{color:var(--loop)}.t-failure{color:var(--failure)}.t-error{color:#7e22ce}
.key{display:inline-block;width:10px;height:10px;margin:0 4px 0 8px;vertical-align:-1px}
.key.loop{background:var(--loop)}.key.failure{background:var(--failure)}.key.band-loop{background:#fef3c7;border:1px solid var(--line)}.key.band-failure{background:#fee2e2;border:1px solid var(--line);margin-left:0}
[hidden]{display:none!important}
@media (max-width:900px){#layout{grid-template-columns:1fr}#detail{position:static}}
`;

// The page's script: filters and the detail panel. Text goes in with
// textContent only (log content is never parsed as HTML).
const SCRIPT = `
(() => {
  const findings = JSON.parse(document.getElementById('findings-data').textContent);
  const detail = document.getElementById('detail');
  const el = (tag, text, cls) => { const e = document.createElement(tag); if (text !== undefined) e.textContent = text; if (cls) e.className = cls; return e; };
  const dur = (ms) => ms === null ? 'n/a' : ms < 1000 ? Math.round(ms) + ' ms' : ms < 60000 ? (ms / 1000).toFixed(ms < 10000 ? 1 : 0) + ' s' : Math.floor(ms / 60000) + ' min ' + Math.round((ms % 60000) / 1000) + ' s';
  const tok = (n) => n === null ? 'n/a' : n < 1000 ? String(n) : n < 1e6 ? (n / 1000).toFixed(n < 1e4 ? 1 : 0) + 'k' : (n / 1e6).toFixed(1) + 'M';
  let selected = null;
  function show(mark) {
    const f = findings[Number(mark.dataset.f)];
    if (selected) selected.classList.remove('selected');
    selected = mark; mark.classList.add('selected');
    detail.replaceChildren();
    detail.append(el('h2', f.title, f.kind === 'loop' ? 't-loop' : 't-failure'));
    const dl = el('dl');
    const row = (k, v) => { if (v === null || v === undefined || v === '') return; dl.append(el('dt', k), el('dd', String(v))); };
    row('tool', f.tool); row('call', (f.callId ?? 'no id') + (f.ordinal !== null ? ' (call ' + f.ordinal + ' of the session)' : ''));
    row('agent', f.agentId); row('log line', f.logLine);
    row('time', f.time !== null ? new Date(f.time).toISOString().replace('T', ' ').slice(0, 23) + ' UTC' : null);
    row('rule', f.ruleId); row('why', f.message);
    detail.append(dl);
    if (f.command !== null) { detail.append(el('h3', 'Command')); detail.append(el('pre', f.command)); }
    else if (f.arguments !== null) { detail.append(el('h3', 'Arguments')); detail.append(el('pre', f.arguments)); }
    if (f.context) {
      detail.append(el('h3', 'Output around line ' + f.line));
      const pre = el('pre');
      f.context.lines.forEach((text, i) => { const n = f.context.from + i; const line = el('span', String(n).padStart(4) + '  ' + text + '\\n', n === f.line ? 'hit' : ''); pre.append(line); });
      detail.append(pre);
    }
    if (f.text) { detail.append(el('h3', f.kind === 'loop' ? 'Reminder the guard gives the model' : 'Notice the guard gives the model')); detail.append(el('pre', f.text, 'said')); }
    const w = f.waste;
    detail.append(el('h3', 'Waste'));
    detail.append(el('p', w === null ? 'n/a (call past the timeline bound)' :
      'episode ' + w.episode + ': ' + w.calls + (w.calls === 1 ? ' call' : ' calls') + ', ' + dur(w.wallMs) + ', ' + tok(w.tokens) + ' tokens; from ' + w.from + ' to ' + w.to + ', ' +
      (w.movedOnAt === null ? 'the log ends before the agent moved on' : 'moved on at ' + w.movedOnAt) + (w.partial ? ' (past the timeline bound: partial)' : ''), 'waste'));
  }
  document.addEventListener('click', (e) => { const m = e.target.closest && e.target.closest('.mark'); if (m) { show(m); } });
  document.addEventListener('keydown', (e) => {
    const m = e.target.closest && e.target.closest('.mark');
    if (m && (e.key === 'Enter' || e.key === ' ')) { e.preventDefault(); show(m); detail.focus(); }
  });
  const sessions = [...document.querySelectorAll('.session')];
  const kindBoxes = [...document.querySelectorAll('input[name=kind]')];
  const tool = document.getElementById('f-tool');
  const text = document.getElementById('f-session');
  const shown = document.getElementById('shown');
  function apply() {
    const kinds = new Set(kindBoxes.filter((b) => b.checked).map((b) => b.value));
    const t = tool.value; const q = text.value.trim().toLowerCase();
    // SVG elements have no .hidden property: the attribute, styled by [hidden].
    for (const m of document.querySelectorAll('.mark')) m.toggleAttribute('hidden', !kinds.has(m.dataset.kind) || (t !== '' && m.dataset.tool !== t));
    let n = 0;
    // Children first, so a parent stays when a subagent matches.
    for (const s of sessions.slice().reverse()) {
      const own = s.dataset.kinds.split(' ').some((k) => kinds.has(k)) && (t === '' || s.dataset.tools.includes(' ' + t + ' ')) && (q === '' || s.dataset.session.toLowerCase().includes(q));
      const child = [...s.querySelectorAll(':scope > .children > .session')].some((c) => !c.hidden);
      s.hidden = !(own || child);
      if (own) n++;
    }
    shown.textContent = n + ' of ' + sessions.length + ' sessions';
  }
  for (const b of kindBoxes) b.addEventListener('change', apply);
  tool.addEventListener('change', apply); text.addEventListener('input', apply);
  apply();
})();
`;
