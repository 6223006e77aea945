// `toolguard audit --html` in a real browser (headless Chromium, see
// __test__/support/chromium.mjs): the bundled sample's report and a
// generated 300-session audit. The DOM is checked against the `--json`
// document of the same audit, a finding is opened by click and by keyboard,
// and a screenshot is checked not to be blank.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

import { launchBrowser } from '../support/chromium.mjs';
import { writeSessions } from '../../benchmark/sessions.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '../..');
const work = mkdtempSync(join(tmpdir(), 'toolguard-html-'));
let browser;

function cli(args) {
  const run = spawnSync(process.execPath, [join(root, 'bin/toolguard.mjs'), 'audit', ...args], {
    cwd: root,
    encoding: 'utf8',
    maxBuffer: 1 << 28,
  });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

/** The `--json` document and the HTML report of one audit. */
function report(name, paths) {
  const json = cli(['--json', ...paths]);
  assert.equal(json.stderr, '');
  const file = join(work, `${name}.html`);
  const html = cli(['--html', file, ...paths]);
  assert.equal(html.code, json.code, html.stderr);
  return { doc: JSON.parse(json.stdout), file, html: readFileSync(file, 'utf8') };
}

const loopCount = (doc) => doc.sessions.reduce((n, s) => n + (Array.isArray(s.loops) ? s.loops : s.reminders).length, 0);
const failureCount = (doc) => doc.sessions.reduce((n, s) => n + s.failures.length, 0);

/** WCAG contrast ratio of two `rgb(…)` colours. */
function contrast(a, b) {
  const lum = (css) => {
    const [r, g, bl] = css
      .match(/\d+(\.\d+)?/g)
      .slice(0, 3)
      .map((v) => {
        const c = Number(v) / 255;
        return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
      });
    return 0.2126 * r + 0.7152 * g + 0.0722 * bl;
  };
  const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p);
  return (x + 0.05) / (y + 0.05);
}

/** The screenshot decoded by the browser itself: distinct colours and the share of non-white pixels. */
async function inkOf(page, png) {
  return page.evaluate(async (b64) => {
    const img = new Image();
    img.src = `data:image/png;base64,${b64}`;
    await img.decode();
    const canvas = document.createElement('canvas');
    canvas.width = img.width;
    canvas.height = img.height;
    const ctx = canvas.getContext('2d');
    ctx.drawImage(img, 0, 0);
    const data = ctx.getImageData(0, 0, img.width, img.height).data;
    const colours = new Set();
    let ink = 0;
    for (let i = 0; i < data.length; i += 4) {
      colours.add((data[i] << 16) | (data[i + 1] << 8) | data[i + 2]);
      if (data[i] + data[i + 1] + data[i + 2] < 600) ink++;
    }
    return { width: img.width, height: img.height, colours: colours.size, ink: ink / (data.length / 4) };
  }, png.toString('base64'));
}

/** Open a report; fails on any script error or request that leaves the file. */
async function open(file) {
  const page = await browser.context.newPage();
  const problems = [];
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('console', (m) => m.type() === 'error' && problems.push(`console: ${m.text()}`));
  page.on('request', (r) => !r.url().startsWith('file:') && !r.url().startsWith('data:') && problems.push(`request: ${r.url()}`));
  await page.goto(pathToFileURL(file).href);
  return { page, problems };
}

async function checkDom(page, doc) {
  const count = (selector) => page.locator(selector).count();
  assert.equal(await count('section.session'), doc.sessions.length);
  assert.equal(await count('.mark[data-kind=loop]'), loopCount(doc));
  assert.equal(await count('.mark[data-kind=failure]'), failureCount(doc));
  assert.equal(await page.textContent('#stat-sessions'), String(doc.sessions.length));
  assert.equal(await page.textContent('#stat-calls'), String(doc.summary.calls));
  assert.equal(await page.textContent('#stat-loops'), String(loopCount(doc)));
  // Waste apart for loops and silent failures, each as calls · time · tokens.
  const w = doc.summary.waste;
  assert.match(await page.textContent('#stat-waste-loop'), new RegExp(`^${w.loop.calls} calls? · `));
  assert.match(await page.textContent('#stat-waste-failure'), new RegExp(`^${w.failure.calls} calls? · `));
  // One strip lane per tool a session used; one tick per listed call.
  const ticks = await page.$$eval('path.calls', (paths) => paths.reduce((n, p) => n + (p.getAttribute('d').match(/M/g) ?? []).length, 0));
  assert.equal(
    ticks,
    doc.sessions.reduce((n, s) => n + s.timeline.calls.length, 0),
  );
  // Subagents sit inside their parent's section.
  for (const [i, s] of doc.sessions.entries()) {
    if (s.parentSession === null) continue;
    const parent = doc.sessions.findIndex((p) => p.sessionId === s.parentSession);
    if (parent >= 0) assert.equal(await count(`#s-${parent} > .children > #s-${i}`), 1, `${s.sessionId} under ${s.parentSession}`);
  }
  // Most wasteful first.
  const ranked = await page.$$eval('#top-waste tbody tr', (rows) => rows.map((r) => Number(r.children[3].textContent)));
  assert.ok(ranked.length > 0);
  assert.deepEqual(
    ranked,
    [...ranked].sort((a, b) => b - a),
  );
}

async function screenshotIsNotBlank(page, name) {
  const png = await page.screenshot({ path: join(work, `${name}.png`) });
  const ink = await inkOf(page, png);
  assert.equal(ink.width, 1280);
  assert.ok(ink.colours > 20, `only ${ink.colours} colours`);
  assert.ok(ink.ink > 0.01, `only ${(ink.ink * 100).toFixed(2)}% of pixels are not white`);
  return png;
}

before(async () => {
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
  rmSync(work, { recursive: true, force: true });
});

test('the bundled sample: DOM matches the JSON, a failure mark opens its call, keyboard and contrast', async () => {
  const { doc, file, html } = report('sample', [join(root, 'samples/dsh')]);
  assert.ok(html.length < 200_000, `${html.length} bytes`);
  // Self-contained: no external resource of any kind.
  assert.doesNotMatch(html, /\b(?:src|href)\s*=\s*["']?(?:https?:)?\/\//i);
  assert.doesNotMatch(html, /@import|url\(/i);
  const { page, problems } = await open(file);
  await checkDom(page, doc);
  assert.match(await page.textContent('#stat-waste-loop'), / · 480 tokens$/);
  assert.match(await page.textContent('#stat-waste-failure'), / · 240 tokens$/);

  // Click: the failing `make docs` call, its output around the match, the notice.
  const failure = doc.sessions[0].failures.find((f) => f.ruleId === 'missing-module');
  await page.click(`.mark[data-kind=failure][aria-label*="${failure.ruleId}"]`);
  const detail = page.locator('#detail');
  assert.match(await detail.locator('h2').textContent(), /silent failure: missing-module/);
  const text = await detail.textContent();
  assert.ok(text.includes(failure.command), text);
  assert.ok(text.includes("ModuleNotFoundError: No module named 'yaml'"));
  assert.equal((await detail.locator('.hit').textContent()).trim(), `${failure.line}  ${failure.excerpt}`);
  assert.ok(text.includes(failure.text.split('\n')[0]), 'the notice the model would have got');
  assert.ok(text.includes(`${failure.waste.calls} call`));

  // Keyboard: Tab from the last filter lands on the first mark; Enter opens it.
  await page.focus('#f-session');
  await page.keyboard.press('Tab');
  const focused = await page.evaluate(() => {
    const a = /** @type {HTMLElement} */ (document.activeElement);
    const style = getComputedStyle(a);
    return {
      mark: a.classList.contains('mark'),
      f: a.dataset.f,
      outline: style.outlineStyle,
      outlineColor: style.outlineColor,
      fill: style.fill,
    };
  });
  assert.ok(focused.mark, 'Tab reaches a finding mark');
  assert.equal(focused.outline, 'solid', 'a focused mark shows a focus ring');
  await page.keyboard.press('Enter');
  assert.equal(await page.evaluate(() => document.activeElement.id), 'detail');
  assert.ok((await detail.locator('h2').textContent()).length > 0);

  // Contrast (WCAG 1.4.11, >= 3:1) of marks and the focus ring against the strip and the episode bands.
  const colours = await page.evaluate(() => {
    const fill = (sel) => getComputedStyle(document.querySelector(sel)).fill;
    return {
      loop: fill('.mark.loop'),
      failure: fill('.mark.failure'),
      strip: getComputedStyle(document.querySelector('.strip')).backgroundColor,
      bandLoop: fill('.band.loop'),
      bandFailure: fill('.band.failure'),
    };
  });
  for (const mark of [colours.loop, colours.failure, focused.outlineColor]) {
    for (const ground of [colours.strip, colours.bandLoop, colours.bandFailure]) {
      assert.ok(contrast(mark, ground) >= 3, `${mark} on ${ground}: ${contrast(mark, ground).toFixed(2)}`);
    }
  }

  // Filters: kind, tool, session.
  await page.uncheck('input[name=kind][value=loop]');
  assert.equal(await page.locator('.mark[data-kind=loop]:visible').count(), 0);
  assert.equal(await page.locator('.mark[data-kind=failure]:visible').count(), failureCount(doc));
  await page.check('input[name=kind][value=loop]');
  await page.selectOption('#f-tool', 'read_file');
  assert.equal(await page.locator('.mark[data-kind=failure]:visible').count(), 0);
  assert.equal(await page.locator('.mark[data-kind=loop]:visible').count(), 1);
  await page.selectOption('#f-tool', '');
  await page.fill('#f-session', 'sample-sub');
  assert.equal(await page.textContent('#shown'), '1 of 2 sessions');
  // The parent stays visible around its matching subagent.
  assert.ok(await page.locator('#s-1').isVisible());
  await page.fill('#f-session', '');

  await page.click('.mark[data-kind=loop]');
  await screenshotIsNotBlank(page, 'sample');
  assert.deepEqual(problems, []);
  await page.close();
});

test('a generated 300-session audit: DOM matches the JSON, findings open, screenshot', async () => {
  const dir = join(work, 'sessions');
  writeSessions(dir, 300);
  const { doc, file, html } = report('large', [dir]);
  assert.equal(doc.sessions.length, 300);
  assert.ok(loopCount(doc) > 100 && failureCount(doc) > 50, 'the generator made loops and failures');
  const { page, problems } = await open(file);
  await checkDom(page, doc);
  // The last failure of the last session that has one: its detail names its call.
  const s = doc.sessions.findLast((x) => x.failures.length > 0);
  const f = s.failures.at(-1);
  const mark = page.locator(`#s-${doc.sessions.indexOf(s)} .mark[data-kind=failure]`).last();
  await mark.scrollIntoViewIfNeeded();
  await mark.click();
  const text = await page.textContent('#detail');
  assert.ok(text.includes(f.callId) && text.includes(f.ruleId), text);
  await page.evaluate(() => window.scrollTo(0, 0));
  await screenshotIsNotBlank(page, 'large');
  assert.deepEqual(problems, []);
  await page.close();
  writeFileSync(join(work, 'size.txt'), String(html.length));
});

test('--html - writes the page to stdout and nothing else', () => {
  const run = cli(['--html', '-']);
  assert.equal(run.code, 1);
  assert.match(run.stdout, /^<!doctype html>/);
  assert.match(run.stdout, /<\/html>\n$/);
  const bad = cli(['--html', join(work, 'no/such/dir/r.html')]);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /cannot write the HTML report to .*r\.html/);
});
