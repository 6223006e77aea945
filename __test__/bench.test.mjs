// The benchmark runner end to end in its tiny `--smoke` mode: stdout is
// exactly one JSON document of the documented shape, the ratios follow from
// the medians, and the README table / SVG chart generators accept it.
// No timing assertions: only shape and internal consistency.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { markdownReport, targets } from '../benchmark/table.mjs';
import { chartSvg } from '../benchmark/chart.mjs';
import { callPattern, buildLog, FAILURE_LINE } from '../benchmark/fixtures.mjs';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');

describe('benchmark runner (--json --smoke)', () => {
  const run = spawnSync(process.execPath, ['benchmark/index.mjs', '--json', '--smoke'], {
    cwd: root,
    encoding: 'utf8',
    timeout: 120_000,
    maxBuffer: 16 << 20,
  });

  it('exits 0 and prints exactly one JSON document on stdout', () => {
    assert.equal(run.status, 0, run.stderr);
    // JSON.parse rejects trailing text, so stray logging on stdout fails here.
    const doc = JSON.parse(run.stdout);
    assert.equal(typeof doc, 'object');
    assert.match(run.stderr, /done in/);
  });

  it('has the documented shape', () => {
    const doc = JSON.parse(run.stdout);
    assert.equal(doc.node, process.version);
    assert.ok(doc.scenarios.length > 0);
    const groups = new Set(doc.scenarios.map((s) => s.group));
    assert.deepEqual([...groups].sort(), ['agents', 'dsh-listener', 'engine', 'loops']);
    for (const s of doc.scenarios) {
      assert.equal(typeof s.name, 'string');
      assert.ok(['toolguard', 'official', 'reference', 'loops-off'].includes(s.subject), s.subject);
      assert.ok(Number.isFinite(s.ns_per_op) && s.ns_per_op > 0, `${s.name} ${s.subject}: ns_per_op ${s.ns_per_op}`);
      assert.ok(Number.isInteger(s.samples) && s.samples >= 1);
    }
    // The DSH scenarios compare against the official plugin, the others against the reference engine.
    assert.ok(doc.scenarios.filter((s) => s.group === 'dsh-listener').every((s) => s.subject !== 'reference'));
    assert.ok(doc.scenarios.filter((s) => s.group !== 'dsh-listener').every((s) => s.subject !== 'official'));
    assert.equal(doc.memory.length, 8);
    for (const m of doc.memory) {
      assert.ok(Number.isFinite(m.heap_bytes_per_agent) && Number.isFinite(m.rss_bytes_per_agent));
      assert.ok(m.agents > 0);
    }
    assert.ok(Number.isFinite(doc.throughput_mb_s) && doc.throughput_mb_s > 0);
    // Dataset scale (benchmark/scale.mjs): the whole CLI over a tiny generated collection.
    assert.equal(doc.scale.jsonl_1_thread.sessions, 40);
    assert.equal(doc.scale.jsonl_2_threads.sessions, 40);
    assert.ok(Number.isFinite(doc.scale.speedup_2_vs_1) && doc.scale.speedup_2_vs_1 > 0);
  });

  it('derives each ratio from the two medians', () => {
    const doc = JSON.parse(run.stdout);
    const pairs = new Set(doc.scenarios.map((s) => `${s.group}\u0000${s.name}`));
    assert.equal(doc.ratios.length, pairs.size);
    for (const r of doc.ratios) {
      const ours = doc.scenarios.find((s) => s.group === r.group && s.name === r.name && s.subject === 'toolguard');
      const base = doc.scenarios.find((s) => s.group === r.group && s.name === r.name && s.subject === r.baseline);
      assert.ok(ours && base, `${r.group}/${r.name}`);
      assert.ok(Math.abs(r.speedup - base.ns_per_op / ours.ns_per_op) < 1e-9);
    }
  });

  it('feeds the README table and the SVG chart', () => {
    const doc = JSON.parse(run.stdout);
    const table = markdownReport(doc);
    for (const r of doc.ratios) assert.ok(table.includes(`| ${r.name} |`), `table row for ${r.name}`);
    assert.ok(targets(doc).length >= 4);
    const svg = chartSvg(doc);
    assert.match(svg, /^<svg [^>]*xmlns="http:\/\/www.w3.org\/2000\/svg"/);
    assert.equal((svg.match(/<rect /g) ?? []).length, 1 + doc.ratios.length);
    assert.ok(svg.trimEnd().endsWith('</svg>'));
  });
});

describe('benchmark fixtures', () => {
  it('the DSH call pattern has three repeats and one run of three per period', () => {
    const p = callPattern();
    assert.equal(p.length, 64);
    const repeats = p.filter((v, i) => i > 0 && p[i - 1] === v).length;
    assert.equal(repeats, 3);
  });

  it('build logs have the requested size and end with the failure line when asked', () => {
    const plain = buildLog(10 << 10);
    const failing = buildLog(10 << 10, { failLast: true });
    for (const text of [plain, failing]) {
      const bytes = Buffer.byteLength(text);
      assert.ok(bytes <= 10 << 10 && bytes > (10 << 10) - 200, `size ${bytes}`);
    }
    assert.ok(!plain.includes(FAILURE_LINE));
    assert.ok(failing.endsWith(`\n${FAILURE_LINE}`));
    assert.equal(buildLog(10 << 10), plain, 'deterministic');
  });
});
