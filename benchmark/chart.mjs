#!/usr/bin/env node
// SVG chart of the speedups in a benchmark JSON document (hand-written SVG,
// no dependency):
//   node benchmark/chart.mjs benchmark/results/latest.json docs/benchmark.svg
// (benchmark/publish.mjs writes the published chart)
// One bar per scenario: baseline median / toolguard median on a log scale,
// so 0.5× and 2× are the same distance from the 1× line.
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

import { formatNs } from './table.mjs';

const GROUP_TITLES = {
  'dsh-listener': 'DSH listener: toolguard drop-in vs official plugin',
  engine: 'Full engine: native vs pure-TS reference',
  agents: 'Many agents: native vs pure-TS reference',
};

const escapeXml = (s) => String(s).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** The chart as an SVG string. */
export function chartSvg(doc) {
  const rows = [];
  let lastGroup;
  for (const r of doc.ratios) {
    if (r.group !== lastGroup) {
      rows.push({ heading: GROUP_TITLES[r.group] ?? r.group });
      lastGroup = r.group;
    }
    const ours = doc.scenarios.find((s) => s.group === r.group && s.name === r.name && s.subject === 'toolguard');
    const base = doc.scenarios.find((s) => s.group === r.group && s.name === r.name && s.subject === r.baseline);
    rows.push({ ...r, detail: `${formatNs(ours.ns_per_op)} vs ${formatNs(base.ns_per_op)}` });
  }
  const speedups = doc.ratios.map((r) => r.speedup);
  const lo = Math.min(0.5, ...speedups) / 1.2;
  const hi = Math.max(16, ...speedups) * 1.2;
  const width = 980;
  const labelW = 330;
  const valueW = 200;
  const plotX = labelW + 10;
  const plotW = width - plotX - valueW;
  const rowH = 22;
  const top = 64;
  const height = top + rows.length * rowH + 40;
  const x = (v) => plotX + ((Math.log(v) - Math.log(lo)) / (Math.log(hi) - Math.log(lo))) * plotW;

  const out = [];
  out.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="system-ui, -apple-system, Segoe UI, sans-serif" font-size="12">`,
  );
  out.push(`<rect width="100%" height="100%" fill="#ffffff"/>`);
  out.push(`<text x="12" y="22" font-size="15" font-weight="600">toolguard speedup (baseline median ÷ toolguard median, log scale)</text>`);
  out.push(
    `<text x="12" y="42" fill="#555">${escapeXml(`${doc.command} · Node ${doc.node} · ${doc.cpu} (${doc.cpus} cores) · ${doc.date.slice(0, 10)}`)}</text>`,
  );
  // Grid lines at powers of two.
  for (let v = 2 ** Math.ceil(Math.log2(lo)); v <= hi; v *= 2) {
    const gx = x(v).toFixed(1);
    out.push(
      `<line x1="${gx}" y1="${top - 6}" x2="${gx}" y2="${height - 30}" stroke="${v === 1 ? '#333' : '#e3e3e3'}" stroke-width="${v === 1 ? 1.5 : 1}"/>`,
    );
    out.push(`<text x="${gx}" y="${height - 14}" text-anchor="middle" fill="#555">${v >= 1 ? v : `1/${1 / v}`}×</text>`);
  }
  rows.forEach((row, i) => {
    const y = top + i * rowH;
    if (row.heading) {
      out.push(`<text x="12" y="${y + 15}" font-weight="600">${escapeXml(row.heading)}</text>`);
      return;
    }
    const x1 = x(1);
    const xv = x(row.speedup);
    const color = row.speedup >= 1 ? '#2f7d32' : '#c62828';
    out.push(`<text x="${labelW}" y="${y + 15}" text-anchor="end">${escapeXml(row.name)}</text>`);
    out.push(
      `<rect x="${Math.min(x1, xv).toFixed(1)}" y="${y + 4}" width="${Math.max(1, Math.abs(xv - x1)).toFixed(1)}" height="${rowH - 8}" fill="${color}" rx="2"/>`,
    );
    out.push(
      `<text x="${plotX + plotW + 8}" y="${y + 15}"><tspan font-weight="600" fill="${color}">${row.speedup.toFixed(2)}×</tspan><tspan fill="#555"> ${escapeXml(row.detail)}</tspan></text>`,
    );
  });
  out.push('</svg>');
  return `${out.join('\n')}\n`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [input, output = 'docs/benchmark.svg'] = process.argv.slice(2);
  if (!input) {
    process.stderr.write('usage: node benchmark/chart.mjs <bench.json> [out.svg]\n');
    process.exit(2);
  }
  writeFileSync(output, chartSvg(JSON.parse(readFileSync(input, 'utf8'))));
  process.stderr.write(`wrote ${output}\n`);
}
