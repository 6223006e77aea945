// The dataset view of an audit: what a researcher asks first of a collection
// of runs (how many got stuck, how many hid a failure, what the stuck
// episodes cost, per model and per agent, which runs wasted most), built one
// session at a time so a streamed audit of 100,000 runs holds only the
// figures, and the HTML folder report (an index page ranking the runs, one
// page per run). It folds each session's figures (`SessionFigures`: counts,
// tokens, waste), which the native audit makes on its worker threads;
// nothing here re-derives them.

import { closeSync, openSync, readdirSync, readSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import type { SessionFigures } from './audit/types.mjs';
import { makeFolder } from './make-folder.mjs';
import { formatDuration, formatTokens } from './waste.mjs';
import { MEANING } from './words.mjs';

/** Runs of one model or one agent. */
export interface GroupFigures {
  name: string;
  runs: number;
  /** Runs with at least one stuck episode (a loop), and with a silent failure. */
  runsStuck: number;
  runsSilentFailure: number;
  calls: number;
  /** Calls and tokens inside stuck episodes. */
  stuckCalls: number;
  stuckTokens: number | null;
}

/** One run in the ranking (the most wasteful first). */
export interface RankedRun {
  /** Position of the session in the audit's order (its page in an HTML folder). */
  index: number;
  /** The file, and ` #N` for the N-th (0-based) session of a file of several. */
  file: string;
  sessionId: string | null;
  model: string | null;
  agent: string;
  calls: number;
  stuckEpisodes: number;
  silentFailures: number;
  wasteCalls: number;
  wasteTokens: number | null;
  wasteMs: number | null;
}

export interface DatasetJson extends Omit<GroupFigures, 'name'> {
  /** Shares of `runs`, 0 to 1 (0 with no runs). */
  shareStuck: number;
  shareSilentFailure: number;
  /** Tokens of every call the logs priced (null: none says). */
  tokens: number | null;
  /** Grouped by the model the log names ("(not stated)" when it does not), and by agent (the log format). */
  byModel: GroupFigures[];
  byAgent: GroupFigures[];
  /** The runs with any waste, most first (by wasted calls, then tokens, then time); at most `rankLimit` of them. */
  ranking: RankedRun[];
  /** Runs with waste left out of `ranking` by its limit. */
  rankingOmitted: number;
}

const add = (a: number | null, b: number | null) => (a === null ? b : b === null ? a : a + b);
const NOT_STATED = '(not stated)';

/** Most waste first: calls, then tokens, then wall time, then input order. */
export function byWaste(a: RankedRun, b: RankedRun): number {
  return (
    b.wasteCalls - a.wasteCalls || (b.wasteTokens ?? 0) - (a.wasteTokens ?? 0) || (b.wasteMs ?? 0) - (a.wasteMs ?? 0) || a.index - b.index
  );
}

/**
 * Folds sessions' figures into the dataset figures.
 * Memory: the groups, and the `rankLimit` most wasteful runs (all of them
 * with `Infinity`, for the HTML index).
 */
export class DatasetSummary {
  private total: GroupFigures = { name: '', runs: 0, runsStuck: 0, runsSilentFailure: 0, calls: 0, stuckCalls: 0, stuckTokens: null };
  private tokens: number | null = null;
  private models = new Map<string, GroupFigures>();
  private agents = new Map<string, GroupFigures>();
  private ranking: RankedRun[] = [];
  private withWaste = 0;
  private unsorted = 0;

  constructor(private rankLimit = 20) {}

  add(s: SessionFigures, index: number): RankedRun {
    const w = s.waste;
    const stuck = w.loop.episodes > 0;
    const failed = s.silentFailures > 0;
    const fold = (g: GroupFigures) => {
      g.runs++;
      if (stuck) g.runsStuck++;
      if (failed) g.runsSilentFailure++;
      g.calls += s.calls;
      g.stuckCalls += w.loop.calls;
      g.stuckTokens = add(g.stuckTokens, w.loop.tokens);
    };
    const group = (map: Map<string, GroupFigures>, name: string) => {
      let g = map.get(name);
      if (g === undefined) {
        g = { name, runs: 0, runsStuck: 0, runsSilentFailure: 0, calls: 0, stuckCalls: 0, stuckTokens: null };
        map.set(name, g);
      }
      return g;
    };
    fold(this.total);
    fold(group(this.models, s.model ?? NOT_STATED));
    fold(group(this.agents, s.format));
    this.tokens = add(this.tokens, s.tokens);
    const run: RankedRun = {
      index,
      // A file of several sessions (an evaluation output) names each by its index.
      // (A Parquet row's file already ends with #ROW.)
      file: s.session > 0 && !s.file.endsWith(`#${s.session}`) ? `${s.file} #${s.session}` : s.file,
      sessionId: s.sessionId,
      model: s.model,
      agent: s.format,
      calls: s.calls,
      stuckEpisodes: w.loop.episodes,
      silentFailures: s.silentFailures,
      wasteCalls: w.calls,
      wasteTokens: w.tokens,
      wasteMs: w.wallMs,
    };
    if (w.episodes > 0) {
      this.withWaste++;
      this.ranking.push(run);
      this.unsorted++;
      // Keep the top `rankLimit`: trim now and then, not at every run.
      if (this.ranking.length >= 2 * this.rankLimit + 64) this.trim();
    }
    return run;
  }

  private trim() {
    if (this.unsorted > 0) this.ranking.sort(byWaste);
    this.unsorted = 0;
    if (this.ranking.length > this.rankLimit) this.ranking.length = this.rankLimit;
  }

  result(): DatasetJson {
    this.trim();
    const { name: _, ...total } = this.total;
    const groups = (map: Map<string, GroupFigures>) => [...map.values()].sort((a, b) => b.runs - a.runs || (a.name < b.name ? -1 : 1));
    return {
      ...total,
      shareStuck: total.runs > 0 ? total.runsStuck / total.runs : 0,
      shareSilentFailure: total.runs > 0 ? total.runsSilentFailure / total.runs : 0,
      tokens: this.tokens,
      byModel: groups(this.models),
      byAgent: groups(this.agents),
      ranking: [...this.ranking],
      rankingOmitted: this.withWaste - this.ranking.length,
    };
  }
}

const pct = (x: number) => `${(x * 100).toFixed(x > 0 && x < 0.1 ? 1 : 0)}%`;
const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** The text report's dataset block (for more than one run). */
export function datasetText(d: DatasetJson): string {
  const lines: string[] = [];
  lines.push(
    `Dataset: ${plural(d.runs, 'run')} · ${pct(d.shareStuck)} with a stuck episode (${d.runsStuck}) · ${pct(d.shareSilentFailure)} with a silent failure (${d.runsSilentFailure})`,
  );
  const tokenShare = d.stuckTokens !== null && d.tokens ? ` (${pct(d.stuckTokens / d.tokens)} of ${formatTokens(d.tokens)})` : '';
  lines.push(
    `  inside stuck episodes: ${plural(d.stuckCalls, 'call')} of ${d.calls} (${pct(d.calls > 0 ? d.stuckCalls / d.calls : 0)}) · ${formatTokens(d.stuckTokens)} tokens${tokenShare}`,
  );
  const table = (title: string, groups: GroupFigures[]) => {
    if (groups.length < 2 && (groups[0]?.name ?? NOT_STATED) === NOT_STATED) return;
    lines.push(`  by ${title}:`);
    const width = Math.max(...groups.map((g) => [...g.name].length));
    for (const g of groups.slice(0, 12)) {
      lines.push(
        `    ${g.name.padEnd(width)}  ${plural(g.runs, 'run').padStart(9)}  stuck ${pct(g.runs ? g.runsStuck / g.runs : 0).padStart(4)}  silent failure ${pct(g.runs ? g.runsSilentFailure / g.runs : 0).padStart(4)}  stuck calls ${g.stuckCalls} · ${formatTokens(g.stuckTokens)} tokens`,
      );
    }
    if (groups.length > 12) lines.push(`    … and ${groups.length - 12} more`);
  };
  table('model', d.byModel);
  table('agent', d.byAgent);
  if (d.ranking.length > 0) {
    lines.push(`  most waste (calls · time · tokens in stuck episodes and silent failures, until the agent moved on):`);
    for (const r of d.ranking.slice(0, 10)) {
      lines.push(
        `    ${String(r.wasteCalls).padStart(6)} ${r.wasteCalls === 1 ? 'call ' : 'calls'} · ${formatDuration(r.wasteMs)} · ${formatTokens(r.wasteTokens)} tokens  ${r.file}`,
      );
    }
  }
  return lines.join('\n') + '\n';
}

const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The page of run `index` inside an HTML folder report. */
export const runPage = (index: number) => `runs/${String(index).padStart(6, '0')}.html`;
/** The name of a run page {@link runPage} writes, and no other file. */
const RUN_PAGE = /^(\d{6,})\.html$/;

/** Marks the index of an HTML folder report, so a later audit knows the folder as its own. */
const GENERATOR = '<meta name="generator" content="toolguard audit --html DIR/">';

/**
 * Whether `dir/index.html` is an index toolguard wrote: the generator mark,
 * or the title reports before the mark had. Only the head is read.
 */
function isReportIndex(dir: string): boolean {
  let fd: number;
  try {
    fd = openSync(join(dir, 'index.html'), 'r');
  } catch {
    return false;
  }
  try {
    const head = Buffer.alloc(4096);
    const text = head.toString('utf8', 0, readSync(fd, head, 0, head.length, 0));
    return text.includes(GENERATOR) || /<title>toolguard audit — [\d,]+ runs?<\/title>/.test(text);
  } finally {
    closeSync(fd);
  }
}

/** The entries of `dir`, or none when it does not exist yet. */
function entries(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
}

/**
 * `--html DIR/`: an index page (the dataset figures and every run ranked by
 * waste, each a link) and one self-contained page per run, written as the
 * sessions arrive so memory holds only the ranking rows.
 */
export class HtmlFolder {
  private dataset = new DatasetSummary(Infinity);
  private runs: RankedRun[] = [];

  /** `writeRun(json, figures, file)` writes a run's page (pages.mts: on a thread of its own). */
  constructor(
    private dir: string,
    private writeRun: (json: string, figures: SessionFigures, file: string) => void,
  ) {
    // A site is written only into a new or empty folder or over an earlier
    // report: `--html ./` in a project, or `/`, must not scatter pages there.
    if (entries(dir).length > 0 && !isReportIndex(dir))
      throw new Error(`${dir} is not empty and holds no toolguard report (index.html): give a new or empty folder`);
    makeFolder(join(dir, 'runs'));
    // Marked at once, so a folder whose audit is interrupted is still known as a report.
    writeFileSync(join(dir, 'index.html'), `<!doctype html>\n${GENERATOR}\n<title>toolguard audit (not finished)</title>\n`);
  }

  add(json: string, figures: SessionFigures, index: number) {
    const run = this.dataset.add(figures, index);
    this.runs.push(run);
    this.writeRun(json, figures, join(this.dir, runPage(index)));
  }

  finish(generated = new Date()) {
    writeFileSync(join(this.dir, 'index.html'), renderIndex(this.dataset.result(), this.runs, generated));
    // Pages of an earlier, larger audit into this folder: this index does not link them.
    for (const name of entries(join(this.dir, 'runs'))) {
      const page = RUN_PAGE.exec(name);
      if (page && Number(page[1]) >= this.runs.length) unlinkSync(join(this.dir, 'runs', name));
    }
  }
}

/** The index page: figures, groups, and all runs ranked (rendered a page of rows at a time by its script). */
export function renderIndex(d: DatasetJson, runs: RankedRun[], generated = new Date()): string {
  const ranked = [...runs].sort(byWaste);
  const group = (title: string, groups: GroupFigures[]) =>
    `<table><caption>By ${title}</caption><thead><tr><th>${title}</th><th class="n">runs</th><th class="n">stuck</th><th class="n">silent failure</th><th class="n">calls</th><th class="n" title="${esc(MEANING.stuck)}">stuck calls</th><th class="n" title="${esc(MEANING.stuck)}">stuck tokens</th></tr></thead><tbody>` +
    groups
      .map(
        (g) =>
          `<tr><td>${esc(g.name)}</td><td class="n">${g.runs}</td><td class="n">${pct(g.runs ? g.runsStuck / g.runs : 0)}</td><td class="n">${pct(g.runs ? g.runsSilentFailure / g.runs : 0)}</td><td class="n">${g.calls}</td><td class="n">${g.stuckCalls}</td><td class="n">${formatTokens(g.stuckTokens)}</td></tr>`,
      )
      .join('') +
    `</tbody></table>`;
  // Rows as compact arrays; the script draws PAGE rows at a time, so
  // 100,000 runs make a page that opens at once.
  const rows = ranked.map((r) => [
    r.index,
    r.file,
    r.sessionId,
    r.model,
    r.agent,
    r.calls,
    r.stuckEpisodes,
    r.silentFailures,
    r.wasteCalls,
    r.wasteTokens,
    r.wasteMs,
  ]);
  const json = JSON.stringify(rows).replace(/</g, '\\u003c');
  const stat = (label: string, value: string, title?: string) =>
    `<div${title ? ` title="${esc(title)}"` : ''}><dt>${label}</dt><dd>${value}</dd></div>`;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
${GENERATOR}
<title>toolguard audit — ${plural(d.runs, 'run')}</title>
<style>${CSS}</style></head>
<body>
<header><h1>toolguard audit</h1><p class="meta">${plural(d.runs, 'run')} · generated ${esc(generated.toISOString().slice(0, 19).replace('T', ' '))} UTC · a run's page opens on click</p></header>
<main>
<dl class="stats">
${stat('runs', String(d.runs))}
${stat('with a stuck episode', `${pct(d.shareStuck)} <small>${d.runsStuck}</small>`)}
${stat('with a silent failure', `${pct(d.shareSilentFailure)} <small>${d.runsSilentFailure}</small>`)}
${stat('stuck calls', `${d.stuckCalls} <small>of ${d.calls}</small>`, MEANING.stuck)}
${stat('stuck tokens', `${formatTokens(d.stuckTokens)} <small>of ${formatTokens(d.tokens)}</small>`, MEANING.stuck)}
</dl>
<div class="tables">${group('model', d.byModel)}${group('agent', d.byAgent)}</div>
<h2>Runs, most waste first</h2>
<p class="meta">Waste: calls, wall time and tokens in stuck episodes and silent failures, from the first flaggable call until the agent moved on (docs/audit.md "Waste"). <label>Filter <input id="q" type="search" placeholder="file, session, model or agent"></label> <output id="shown"></output></p>
<table id="runs"><thead><tr><th>#</th><th>run</th><th>model</th><th>agent</th><th class="n">calls</th><th class="n">stuck</th><th class="n">silent failures</th><th class="n" title="${esc(MEANING.waste)}">waste calls</th><th class="n" title="${esc(MEANING.waste)}">waste time</th><th class="n" title="${esc(MEANING.waste)}">waste tokens</th></tr></thead><tbody></tbody></table>
<p><button id="more" type="button">show more</button></p>
<noscript><p>The run table needs JavaScript; each run's page is runs/NNNNNN.html (its position in the audit's order).</p></noscript>
</main>
<script type="application/json" id="runs-data">${json}</script>
<script>${SCRIPT}</script>
</body></html>
`;
}

const CSS = `
:root{--fg:#111827;--muted:#4b5563;--line:#d1d5db}
body{margin:0;font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg)}
header,main{padding:0 20px}h1{font-size:20px;margin:14px 0 0}h2{font-size:16px;margin:18px 0 4px}
.meta{color:var(--muted);margin:2px 0 6px}
.stats{display:flex;flex-wrap:wrap;gap:8px;margin:12px 0}
.stats div{border:1px solid var(--line);border-radius:6px;padding:6px 12px;min-width:130px}
.stats dt{color:var(--muted);font-size:12px}.stats dd{margin:0;font-size:20px;font-weight:600}.stats small{font-size:12px;font-weight:400;color:var(--muted)}
.tables{display:flex;flex-wrap:wrap;gap:24px;align-items:flex-start}
table{border-collapse:collapse;min-width:320px}caption{text-align:left;font-weight:600;padding:4px 0}
th,td{border-bottom:1px solid var(--line);padding:3px 10px 3px 0;text-align:left}.n{text-align:right}
#runs td:nth-child(2){max-width:48ch;overflow:hidden;text-overflow:ellipsis;white-space:nowrap}
`;

// Text goes in with textContent only (file names come from the logs' paths).
const SCRIPT = `
(() => {
  const rows = JSON.parse(document.getElementById('runs-data').textContent);
  const body = document.querySelector('#runs tbody');
  const more = document.getElementById('more');
  const q = document.getElementById('q');
  const shown = document.getElementById('shown');
  const PAGE = 200;
  const dur = (ms) => ms === null ? 'n/a' : ms < 1000 ? Math.round(ms) + ' ms' : ms < 60000 ? (ms / 1000).toFixed(ms < 10000 ? 1 : 0) + ' s' : Math.floor(ms / 60000) + ' min ' + Math.round((ms % 60000) / 1000) + ' s';
  const tok = (n) => n === null ? 'n/a' : n < 1000 ? String(n) : n < 1e6 ? (n / 1000).toFixed(n < 1e4 ? 1 : 0) + 'k' : (n / 1e6).toFixed(1) + 'M';
  let list = rows, drawn = 0;
  const page = (i) => 'runs/' + String(i).padStart(6, '0') + '.html';
  function draw() {
    const end = Math.min(list.length, drawn + PAGE);
    for (; drawn < end; drawn++) {
      const [index, file, session, model, agent, calls, stuck, failures, wc, wt, wm] = list[drawn];
      const tr = document.createElement('tr');
      const cell = (text, n) => { const td = document.createElement('td'); td.textContent = text; if (n) td.className = 'n'; tr.append(td); return td; };
      cell(String(drawn + 1));
      const a = document.createElement('a'); a.href = page(index); a.textContent = session ? session + ' — ' + file : file; a.title = file;
      cell('').append(a);
      cell(model || ''); cell(agent); cell(String(calls), 1); cell(String(stuck), 1); cell(String(failures), 1); cell(String(wc), 1); cell(dur(wm), 1); cell(tok(wt), 1);
      body.append(tr);
    }
    more.hidden = drawn >= list.length;
    shown.textContent = list.length + ' of ' + rows.length + ' runs';
  }
  q.addEventListener('input', () => {
    const t = q.value.trim().toLowerCase();
    list = t === '' ? rows : rows.filter((r) => [r[1], r[2], r[3], r[4]].some((v) => v && v.toLowerCase().includes(t)));
    body.replaceChildren(); drawn = 0; draw();
  });
  more.addEventListener('click', draw);
  draw();
})();
`;
