#!/usr/bin/env node
// The README's picture of the HTML report: the bundled sample's report in
// headless Chromium, a silent-failure mark opened. Regenerate after changing
// ts/cli/html.mts: `npm run build && node scripts/docs/html-screenshot.mjs`.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

import { launchBrowser } from '../../__test__/support/chromium.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '../..');
const out = process.argv[2] ?? join(root, 'docs/audit-report.png');
const work = mkdtempSync(join(tmpdir(), 'toolguard-shot-'));
const file = join(work, 'report.html');
const run = spawnSync(process.execPath, [join(root, 'bin/toolguard.mjs'), 'audit', '--html', file], { cwd: root, encoding: 'utf8' });
if (run.status !== 0 && run.status !== 1) throw new Error(run.stderr);
const browser = await launchBrowser({ width: 1280, height: 1000 });
try {
  const page = await browser.context.newPage();
  await page.goto(pathToFileURL(file).href);
  await page.click('.mark[data-kind=failure][aria-label*="missing-module"]');
  await page.screenshot({ path: out });
  console.log(`wrote ${out}`);
} finally {
  await browser.close();
  rmSync(work, { recursive: true, force: true });
}
