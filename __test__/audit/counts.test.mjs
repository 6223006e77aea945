// One count, one name: "silent failures" are calls whose output shows they
// failed, "rule matches" are the rules that matched them (a call can match
// several), and every surface — the table's summary, `--json`, the HTML
// page's overview, session header and ranking — says the same number under
// the same name (the native audit decides it: report.rs `silentFailures`).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '../..');
const home = mkdtempSync(join(tmpdir(), 'toolguard-counts-'));

function audit(args) {
  /** @type {NodeJS.ProcessEnv} */
  const env = { ...process.env, HOME: home, NO_COLOR: '1' };
  delete env.CLAUDE_CONFIG_DIR;
  delete env.CODEX_HOME;
  // DSH's repeat chain (loops: false) groups the retry into the failure's episode.
  const config = ['--config', join(root, '__test__/audit/dsh-exact.json')];
  const run = spawnSync(process.execPath, [join(root, 'bin/toolguard.mjs'), 'audit', ...config, ...args], { encoding: 'utf8', env });
  assert.equal(run.status, 1, run.stderr);
  return run.stdout;
}

// `make docs` fails (a traceback and a missing module: two rules) with exit 0,
// the agent retries it as is, then moves on: 2 silent failures, 4 rule
// matches, 1 failure episode.
const failing = {
  tool: 'bash',
  arguments: { command: 'make docs 2>&1 | tail -n 5' },
  output:
    'Traceback (most recent call last):\n  File "docs/build.py", line 3, in <module>\n    import yaml\nModuleNotFoundError: No module named \'yaml\'',
  exitCode: 0,
};
const trace = join(home, 'retried.jsonl');
writeFileSync(
  trace,
  [
    { ...failing, callId: 'c1', time: 1000, endTime: 1100, usage: { inputTokens: 500, outputTokens: 10 } },
    { ...failing, callId: 'c2', time: 2000, endTime: 2100, usage: { inputTokens: 600, outputTokens: 10 } },
    {
      tool: 'bash',
      callId: 'c3',
      arguments: { command: 'pip install pyyaml' },
      output: 'Successfully installed PyYAML-6.0',
      exitCode: 0,
      time: 3000,
      endTime: 3500,
    },
  ]
    .map((l) => JSON.stringify(l))
    .join('\n') + '\n',
);

test('silent failures count calls and rule matches count rules, the same in the JSON, the table and the HTML page', () => {
  const doc = JSON.parse(audit(['--json', trace]));
  const [s] = doc.sessions;
  assert.equal(s.failures.length, 4);
  assert.equal(s.silentFailures, 2);
  assert.equal(s.waste.failure.episodes, 1);
  assert.deepEqual([doc.summary.silentFailures, doc.summary.ruleMatches], [2, 4]);
  // The older names keep their meaning for existing readers.
  assert.deepEqual([doc.summary.failedCalls, doc.summary.failures], [2, 4]);

  const table = audit([trace]);
  assert.match(table, /· 2 silent failures \(4 rule matches: python-traceback 2, missing-module 2\) ·/);

  const html = audit(['--html', '-', trace]);
  const overview = html.match(/<dd id="stat-failures">([\s\S]*?)<\/dd>/)?.[1];
  assert.equal(overview, '2 <small>calls, 4 rule matches</small>');
  const header = html.match(/<p class="meta">[^<]*retried\.jsonl[\s\S]*?<\/p>/)?.[0] ?? '';
  assert.match(header, /<b class="t-failure">2 silent failures<\/b> \(4 rule matches\)/);
  // The ranking's "silent failures" column: the same calls, not the failure episodes (1).
  const head = html.match(/<table id="top-waste">[\s\S]*?<\/thead>/)?.[0] ?? '';
  const column = [...head.matchAll(/<th[^>]*>([^<]*)<\/th>/g)].map((m) => m[1]).indexOf('silent failures');
  assert.ok(column > 0, head);
  const row = html.match(/<table id="top-waste">[\s\S]*?<tbody><tr>([\s\S]*?)<\/tr>/)?.[1] ?? '';
  const cells = [...row.matchAll(/<td[^>]*>([\s\S]*?)<\/td>/g)].map((m) => m[1]);
  assert.equal(cells[column], '2');
});
