#!/usr/bin/env node
// The HTML report of a 300-session audit (target: renders in the
// browser in under 2 s): its size, and its render time in headless Chromium.
//
//   node benchmark/html.mjs [--sessions 300] [--runs 5] [--quick|--smoke] [--json]
//
// Generates the sessions (benchmark/sessions.mjs, DSH logs in the OS temp
// dir), runs `toolguard audit --html` on them once, then opens the file
// --runs times, each in a fresh page, and reports the median of: load (navigation start to the
// load event: parsing, style, script) and render (to the first frame
// painted after load, measured with requestAnimationFrame + a macrotask).
// Needs the built package (npm run build) and /usr/bin/chromium (the browser
// test installs it; see __test__/support/chromium.mjs).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';

import { writeSessions } from './sessions.mjs';
import { launchBrowser } from '../__test__/support/chromium.mjs';

const args = process.argv.slice(2);
const opt = (name, fallback) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? Number(args[i + 1]) : fallback;
};
const mode = args.includes('--smoke') ? 'smoke' : args.includes('--quick') ? 'quick' : 'full';
const sessions = opt('sessions', mode === 'smoke' ? 20 : 300);
const runs = opt('runs', { full: 7, quick: 3, smoke: 1 }[mode]);
const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const log = (m) => process.stderr.write(`[html] ${m}\n`);

const work = mkdtempSync(join(tmpdir(), 'toolguard-html-bench-'));
const browser = await launchBrowser();
try {
  writeSessions(join(work, 'logs'), sessions);
  const file = join(work, 'report.html');
  const started = performance.now();
  const cli = spawnSync(process.execPath, [join(root, 'bin/toolguard.mjs'), 'audit', '--html', file, '--json', join(work, 'logs')], {
    encoding: 'utf8',
    maxBuffer: 1 << 28,
  });
  const auditMs = performance.now() - started;
  if (cli.status !== 0 && cli.status !== 1) throw new Error(`toolguard audit exited ${cli.status}: ${cli.stderr}`);
  const doc = JSON.parse(cli.stdout);
  const html = readFileSync(file);
  log(`${sessions} sessions, ${doc.summary.calls} calls: ${(html.length / 1e6).toFixed(2)} MB HTML`);
  const samples = [];
  for (let i = 0; i < runs; i++) {
    const page = await browser.context.newPage();
    await page.goto(pathToFileURL(file).href, { waitUntil: 'load' });
    const t = await page.evaluate(
      () =>
        new Promise((resolve) => {
          requestAnimationFrame(() =>
            setTimeout(() => {
              const nav = /** @type {PerformanceNavigationTiming} */ (performance.getEntriesByType('navigation')[0]);
              resolve({
                load: nav.loadEventEnd - nav.startTime,
                render: performance.now() - nav.startTime,
                marks: document.querySelectorAll('.mark').length,
              });
            }, 0),
          );
        }),
    );
    samples.push(t);
    log(`run ${i + 1}: load ${t.load.toFixed(0)} ms, render ${t.render.toFixed(0)} ms`);
    await page.close();
  }
  const median = (xs) => xs.slice().sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const result = {
    sessions,
    calls: doc.summary.calls,
    findings: doc.summary.reminders + doc.summary.failures,
    marks: samples[0].marks,
    html_bytes: html.length,
    html_gzip_bytes: gzipSync(html).length,
    audit_and_write_ms: Math.round(auditMs),
    load_ms: Math.round(median(samples.map((s) => s.load))),
    render_ms: Math.round(median(samples.map((s) => s.render))),
    runs,
    chromium: spawnSync('/usr/bin/chromium', ['--version'], { encoding: 'utf8' }).stdout.trim(),
  };
  if (args.includes('--json')) process.stdout.write(`${JSON.stringify(result)}\n`);
  else {
    console.log(`HTML report of ${sessions} sessions (${result.calls} calls, ${result.findings} findings):`);
    console.log(`  size ${(result.html_bytes / 1e6).toFixed(2)} MB (${(result.html_gzip_bytes / 1e3).toFixed(0)} KB gzipped)`);
    console.log(
      `  load ${result.load_ms} ms, rendered ${result.render_ms} ms after navigation start (median of ${runs}; target < 2000 ms)`,
    );
    console.log(`  ${result.chromium}`);
  }
} finally {
  await browser.close();
  rmSync(work, { recursive: true, force: true });
}
