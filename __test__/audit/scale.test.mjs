// `toolguard audit` over a collection: files on every core in a stable order,
// `--report jsonl`, `--shard i/n` (4 shards merged = one run), the progress
// bar (on a terminal only), Parquet datasets, the dataset summary and the
// HTML folder report. The collection is generated (benchmark/collection.mjs);
// the Parquet fixtures were written by pyarrow (scripts/record/parquet-fixtures.py).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { writeCollection } from '../../benchmark/collection.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '../..');
const cli = join(root, 'bin/toolguard.mjs');
const fixtures = join(root, '__test__/audit/fixtures/parquet');

const run = (args, options = {}) =>
  spawnSync(process.execPath, [cli, 'audit', ...args], { encoding: 'utf8', maxBuffer: 1 << 28, cwd: root, ...options });
const lines = (text) =>
  text
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
const byFile = (a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0);

// 60 runs in 1 folder of 100 plus a Parquet dataset: files and rows both.
const collection = mkdtempSync(join(tmpdir(), 'toolguard-scale-'));
writeCollection(collection, { runs: 60, bytesPerRun: 6_000 });
copyFileSync(join(fixtures, 'trace-text.parquet'), join(collection, 'dataset.parquet'));

test('--report jsonl streams one session a line, in the order of the --json document, whatever the threads', () => {
  const json = run([collection, '--json', '--jobs', '1']);
  assert.equal(json.status, 1, json.stderr);
  const document = JSON.parse(json.stdout);
  const stream = run([collection, '--report', 'jsonl', '--jobs', '3']);
  assert.equal(stream.status, 1, stream.stderr);
  const sessions = lines(stream.stdout);
  assert.equal(sessions.length, 60 + 4);
  assert.deepEqual(sessions, document.sessions);
  // stdout holds sessions only; the summary is on stderr.
  assert.ok(sessions.every((s) => typeof s.file === 'string' && Array.isArray(s.timeline.calls)));
  assert.match(stream.stderr, /^toolguard audit: 64 sessions in 64 logs · /m);
  assert.match(stream.stderr, /^Dataset: 64 runs · \d+% with a stuck episode/m);
});

test('1 worker or 2: the same bytes for --report jsonl and --json, the same HTML folder but for its date', () => {
  for (const report of ['jsonl', 'json']) {
    const one = run([collection, '--report', report, '--jobs', '1']);
    const two = run([collection, '--report', report, '--jobs', '2']);
    assert.equal(one.status, 1, one.stderr);
    assert.ok(one.stdout.length > 100_000);
    assert.ok(one.stdout === two.stdout, `--report ${report}: --jobs 1 and --jobs 2 differ`);
    assert.equal(one.stderr, two.stderr);
  }
  const site = (jobs) => {
    const out = join(mkdtempSync(join(tmpdir(), 'toolguard-html-jobs-')), 'site') + '/';
    assert.equal(run([collection, '--report', 'jsonl', '--jobs', String(jobs), '--html', out]).status, 1);
    const undated = (file) => readFileSync(join(out, file), 'utf8').replace(/generated [0-9-]+ [0-9:]+ UTC/g, 'generated …');
    return ['index.html', ...readdirSync(join(out, 'runs')).map((f) => `runs/${f}`)].map((f) => [f, undated(f)]);
  };
  const one = site(1);
  assert.equal(one.length, 65);
  assert.deepEqual(site(2), one);
});

test('auditFiles hands each report priced, with the figures a summary folds, both made on the worker thread', () => {
  // The main thread of a streamed audit writes the report's bytes as they
  // come and parses only these figures (docs/audit-at-scale.md); before,
  // it parsed, priced and re-serialized every report itself.
  const script = `
    const { Auditor } = require(${JSON.stringify(join(root, 'index.js'))});
    const files = process.argv.slice(1);
    const out = [];
    new Auditor().auditFiles(files, files, files, '{"threads":2}', (json, figures) => out.push([json, figures]));
    console.log(JSON.stringify(out));`;
  const files = readdirSync(join(collection, 'part-0000')).map((f) => join(collection, 'part-0000', f));
  files.push(join(collection, 'dataset.parquet'));
  const r = spawnSync(process.execPath, ['-e', script, ...files], { encoding: 'utf8', maxBuffer: 1 << 28 });
  assert.equal(r.status, 0, r.stderr);
  const pairs = JSON.parse(r.stdout);
  assert.equal(pairs.length, 64);
  let priced = 0;
  for (const [json, figuresJson] of pairs) {
    assert.equal(typeof figuresJson, 'string', 'every report comes with its figures');
    const s = JSON.parse(json);
    const f = JSON.parse(figuresJson);
    assert.ok(s.waste && typeof s.waste.calls === 'number', 'the report is priced');
    for (const finding of [...s.loops, ...s.failures]) assert.ok('waste' in finding);
    const rules = {};
    for (const x of s.failures) rules[x.ruleId] = (rules[x.ruleId] ?? 0) + 1;
    const tokenCalls = s.timeline.calls.filter((c) => c.inputTokens !== undefined || c.outputTokens !== undefined);
    assert.deepEqual(f, {
      file: s.file,
      session: s.session,
      sessionId: s.sessionId,
      model: s.model,
      format: s.format,
      calls: s.calls,
      bytes: s.bytes,
      decodedBytes: s.decodedBytes,
      errorCount: s.errorCount,
      reminders: s.reminders.length,
      loops: s.loops.length,
      silentFailures: s.silentFailures,
      ruleMatches: s.failures.length,
      rules,
      tokens: tokenCalls.length ? tokenCalls.reduce((n, c) => n + (c.inputTokens ?? 0) + (c.outputTokens ?? 0), 0) : null,
      waste: s.waste,
    });
    if (s.waste.episodes > 0) priced++;
  }
  assert.ok(priced > 5, `${priced} sessions with waste`);
});

test('--shard: 4 shards give exactly the sessions of one run, merged, and each session once', () => {
  const whole = lines(run([collection, '--report', 'jsonl']).stdout).sort(byFile);
  const shards = [1, 2, 3, 4].map((i) => {
    const r = run([collection, '--report', 'jsonl', '--shard', `${i}/4`, '--jobs', '2']);
    assert.ok(r.status === 0 || r.status === 1, r.stderr);
    return lines(r.stdout);
  });
  // Every shard has some of the work (60 files and 4 rows hashed 4 ways).
  for (const s of shards) assert.ok(s.length > 5, `a shard of ${s.length} sessions`);
  const merged = shards.flat().sort(byFile);
  assert.equal(merged.length, whole.length);
  assert.deepEqual(merged, whole);
  // Parquet rows are shared out one by one, not by file.
  const rows = shards.map((s) => s.filter((x) => x.file.includes('dataset.parquet#')).length);
  assert.equal(
    rows.reduce((a, b) => a + b, 0),
    4,
  );
  // Deterministic: the same shard twice is the same sessions.
  assert.deepEqual(lines(run([collection, '--report', 'jsonl', '--shard', '2/4']).stdout), shards[1]);
});

test('auditFiles keeps no report alive once its callback returned (memory flat over many sessions)', () => {
  // Each report string must be released after its callback: run in a
  // process with --expose-gc, collect at report 100 and at the last, and
  // compare the live heap. (Before the fix every string lived until the
  // batch returned: 6,000 reports of ~2 KB, some 13 MB more.)
  const script = `
    const { Auditor } = require(${JSON.stringify(join(root, 'index.js'))});
    const files = process.argv.slice(1);
    const list = Array.from({ length: 100 }, () => files).flat();
    let n = 0, at100 = 0, bytes = 0;
    new Auditor().auditFiles(list, list, list, '{"threads":2}', (json) => {
      n++; bytes += json.length;
      if (n === 100 || n === list.length) { global.gc(); const used = process.memoryUsage().heapUsed; if (n === 100) at100 = used; else console.log(JSON.stringify({ n, growth: used - at100, bytes })); }
    });`;
  const files = readdirSync(join(collection, 'part-0000')).map((f) => join(collection, 'part-0000', f));
  const r = spawnSync(process.execPath, ['--expose-gc', '-e', script, ...files], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  const { n, growth, bytes } = JSON.parse(r.stdout);
  assert.equal(n, 6000);
  assert.ok(bytes > 10e6, `reports of ${bytes} bytes in all`);
  assert.ok(growth < bytes / 10, `the live heap grew by ${growth} bytes over ${n} reports of ${bytes} bytes`);
});

test('--shard, --jobs: a bad value is a usage error (exit 2) naming the flag', () => {
  for (const bad of ['0/4', '5/4', '1', 'a/b', '1/0']) {
    const r = run([collection, '--shard', bad]);
    assert.equal(r.status, 2, `--shard ${bad}: ${r.stderr}`);
    assert.match(r.stderr, /--shard must be i\/n with 1 <= i <= n/);
  }
  const r = run([collection, '--jobs', '0']);
  assert.equal(r.status, 2);
  assert.match(r.stderr, /--jobs must be a number of threads/);
});

test('a progress bar (files, MB, ETA) on a terminal, none when stderr is piped', (t) => {
  // 200 files or 16 MB make an audit long enough to show one.
  const many = mkdtempSync(join(tmpdir(), 'toolguard-progress-'));
  writeCollection(many, { runs: 220, bytesPerRun: 2_000 });
  const piped = run([many, '--report', 'jsonl']);
  assert.ok(!piped.stderr.includes('\r'), 'no carriage returns when piped');
  assert.doesNotMatch(piped.stderr, /files ·/);
  if (process.platform !== 'linux' || !existsSync('/usr/bin/script')) {
    t.skip('needs util-linux script(1) for a pseudo-terminal');
    return;
  }
  // script(1) gives the CLI a pseudo-terminal; its stdout goes to /dev/null
  // so only stderr (the bar) and the summary come back through the pty.
  const command = `${JSON.stringify(process.execPath)} ${JSON.stringify(cli)} audit ${JSON.stringify(many)} --report jsonl >/dev/null`;
  const tty = spawnSync('/usr/bin/script', ['-qec', command, '/dev/null'], { encoding: 'utf8', cwd: root, timeout: 120_000 });
  assert.ok(tty.status === 0 || tty.status === 1, `${tty.status} ${tty.stderr}`);
  assert.match(tty.stdout, /\[[#.]{24}\] \d+% \d+\/220 files · [\d.]+\/[\d.]+ MB/);
  // The bar is cleared before the summary is written.
  // biome-ignore lint/suspicious/noControlCharactersInRegex: ESC (\x1b) is the ANSI escape this test checks for
  assert.match(tty.stdout, /\r\x1b\[Ktoolguard audit: 220 sessions in 220 logs/);
});

test('Parquet: one session a row, named FILE#ROW, with the id and model columns; text and nested columns agree', () => {
  const text = run([join(fixtures, 'trace-text.parquet'), '--report', 'jsonl']);
  assert.equal(text.status, 1, text.stderr);
  const rows = lines(text.stdout);
  assert.deepEqual(
    rows.map((s) => [s.file.replace(/^.*\//, ''), s.sessionId, s.model, s.calls, s.loops.length > 0, s.failures.length > 0]),
    [
      ['trace-text.parquet#0', 'task-0', 'model-a', 5, true, false],
      ['trace-text.parquet#1', 'task-1', 'model-b', 2, false, true],
      ['trace-text.parquet#2', 'task-2', 'model-a', 1, false, false],
      ['trace-text.parquet#3', 'task-3', 'model-b', 5, true, false],
    ],
  );
  assert.ok(
    rows.every((s) => s.errorCount === 0),
    JSON.stringify(rows.map((s) => s.errors)),
  );
  // The nested copy (a list of structs, two row groups) finds the same.
  const nested = lines(run([join(fixtures, 'trace-nested.parquet'), '--report', 'jsonl']).stdout);
  const findings = (s) => [s.calls, s.loops.map((l) => [l.callId, l.kind]), s.failures.map((f) => [f.callId, f.ruleId])];
  assert.deepEqual(nested.map(findings), rows.map(findings));
  // Per model, in the dataset summary.
  assert.match(text.stderr, /by model:\n\s+model-a\s+2 runs\s+stuck\s+50%\s+silent failure\s+0%/);
});

test('Parquet: --column names the trajectory column; without it the error lists the columns', () => {
  const file = join(fixtures, 'custom-column.parquet');
  const missing = run([file, '--json']);
  assert.equal(missing.status, 2);
  const session = JSON.parse(missing.stdout).sessions[0];
  assert.match(
    session.errors[0].message,
    /no trajectory column in this Parquet file \(looked for messages, history.*its columns: steps\); --column names it/,
  );
  const named = run([file, '--json', '--column', 'steps']);
  assert.equal(named.status, 1, named.stderr);
  assert.equal(JSON.parse(named.stdout).sessions[0].calls, 5);
  const wrong = JSON.parse(run([file, '--json', '--column', 'nope']).stdout);
  assert.match(wrong.sessions[0].errors[0].message, /no column "nope" in this Parquet file \(its columns: steps\)/);
});

test('Parquet: a codec the build leaves out is an input error naming it', () => {
  const r = run([join(fixtures, 'zstd.parquet'), '--json']);
  assert.equal(r.status, 2);
  const [session] = JSON.parse(r.stdout).sessions;
  assert.match(
    session.errors[0].message,
    /^column "instance_id" is compressed with zstd, which toolguard does not read \(it reads uncompressed and snappy Parquet, the pyarrow default\); rewrite the file with one of those$/,
  );
});

test('Parquet: mini-swe-agent messages, nested or as JSON text, go through the trajectory readers', () => {
  const r = run([join(fixtures, 'mini-swe-agent.parquet'), join(fixtures, 'mini-swe-agent-json.parquet'), '--report', 'jsonl']);
  assert.equal(r.status, 1, r.stderr);
  const sessions = lines(r.stdout);
  assert.deepEqual(
    sessions.map((s) => [s.file.replace(/^.*\//, ''), s.session, s.format, s.sessionId, s.model, s.calls, s.errorCount]),
    [
      ['mini-swe-agent.parquet#0', 0, 'mini-swe-agent', 'repo__issue-1', 'model-a', 4, 0],
      ['mini-swe-agent.parquet#1', 1, 'mini-swe-agent', 'repo__issue-2', 'model-b', 4, 0],
      ['mini-swe-agent-json.parquet#0', 0, 'mini-swe-agent', 'repo__issue-1', null, 4, 0],
      ['mini-swe-agent-json.parquet#1', 1, 'mini-swe-agent', 'repo__issue-2', null, 4, 0],
    ],
  );
  // The same failing call four times: a stuck episode in every run.
  assert.ok(sessions.every((s) => s.loops.length > 0));
});

test('--json carries the dataset summary: shares of runs stuck and failing silently, per agent, ranked runs', () => {
  const r = run([collection, '--json']);
  const { summary, sessions } = JSON.parse(r.stdout);
  const d = summary.dataset;
  assert.equal(d.runs, sessions.length);
  const stuck = sessions.filter((s) => s.waste.loop.episodes > 0).length;
  assert.equal(d.runsStuck, stuck);
  assert.equal(d.shareStuck, stuck / sessions.length);
  assert.equal(d.runsSilentFailure, sessions.filter((s) => s.failures.length > 0).length);
  assert.equal(
    d.stuckCalls,
    sessions.reduce((n, s) => n + s.waste.loop.calls, 0),
  );
  assert.deepEqual(
    d.byAgent.map((g) => [g.name, g.runs]),
    [['trace', 64]],
  );
  assert.deepEqual(
    d.byModel.map((g) => [g.name, g.runs]),
    [
      ['(not stated)', 60],
      ['model-a', 2],
      ['model-b', 2],
    ],
  );
  // Ranked by wasted calls, most first.
  const calls = d.ranking.map((x) => x.wasteCalls);
  assert.deepEqual(
    calls,
    [...calls].sort((a, b) => b - a),
  );
  assert.equal(d.ranking[0].wasteCalls, Math.max(...sessions.map((s) => s.waste.calls)));
});

test('--html DIR/: an index ranking every run, one page per run with a link back', () => {
  const out = join(mkdtempSync(join(tmpdir(), 'toolguard-html-folder-')), 'site') + '/';
  const r = run([collection, '--report', 'jsonl', '--html', out]);
  assert.equal(r.status, 1, r.stderr);
  const pages = readdirSync(join(out, 'runs')).sort();
  assert.equal(pages.length, 64);
  assert.equal(pages[0], '000000.html');
  const index = readFileSync(join(out, 'index.html'), 'utf8');
  const data = JSON.parse(/<script type="application\/json" id="runs-data">(.*?)<\/script>/s.exec(index)[1]);
  assert.equal(data.length, 64);
  // Row: [index, file, session, model, agent, calls, stuck, failures, wasteCalls, tokens, ms]; most waste first.
  const waste = data.map((row) => row[8]);
  assert.deepEqual(
    waste,
    [...waste].sort((a, b) => b - a),
  );
  const page = readFileSync(join(out, 'runs', `${String(data[0][0]).padStart(6, '0')}.html`), 'utf8');
  assert.match(page, /<a href="\.\.\/index\.html">← all runs<\/a>/);
  assert.ok(page.includes(data[0][1].split('/').pop()), 'the run page is that run');
});

test('--html DIR/: a run page that cannot be written is one clear error (exit 2), not a stack trace', () => {
  // The pages are written on a thread of their own (ts/cli/pages.mts); its
  // failure comes back to the main thread. (Before: an uncaught exception, exit 1.)
  const out = join(mkdtempSync(join(tmpdir(), 'toolguard-html-bad-')), 'site');
  mkdirSync(join(out, 'runs', '000003.html'), { recursive: true });
  // An earlier report's folder (a folder that is not one is refused before any page).
  writeFileSync(join(out, 'index.html'), '<meta name="generator" content="toolguard audit --html DIR/">\n');
  const r = run([collection, '--report', 'jsonl', '--html', `${out}/`]);
  assert.equal(r.status, 2, r.stderr);
  assert.match(r.stderr, /^toolguard audit: cannot write an HTML run page: EISDIR: .*000003\.html'\n$/);
});

test('--html DIR/: a folder that cannot be made is exit 2 naming it, at once (/proc/x/ once spun the CPU)', (t) => {
  const small = join(root, '__test__/audit/fixtures/claude-code');
  const file = join(mkdtempSync(join(tmpdir(), 'toolguard-html-nodir-')), 'a-file');
  writeFileSync(file, 'not a folder');
  const targets = [`${file}/site/`];
  // Under /proc, mkdir answers ENOENT below a parent that exists: Node's own
  // recursive mkdir retried that forever.
  if (existsSync('/proc/self')) targets.push('/proc/x/');
  else t.diagnostic('no /proc here: only the folder under a file is tried');
  for (const target of targets) {
    // A generous deadline, not a timed assertion: a process still running at it failed.
    const r = run([small, '--html', target], { timeout: 60_000 });
    assert.equal(r.signal, null, `still running after 60 s for --html ${target}`);
    assert.equal(r.status, 2, r.stderr);
    assert.match(r.stderr, /^toolguard audit: cannot write the HTML report to .*: (ENOENT|ENOTDIR)/m);
  }
});
