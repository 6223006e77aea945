// Waste: what each stuck episode and silent failure cost, from the first
// flaggable call until the agent moved on, priced by the native audit
// (crates/toolguard-audit/src/waste.rs, whose unit tests cover the edge
// cases on hand-made timelines), on the recorded sample end to end.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { wasteLine } from '../../dist/ts/cli/waste.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '../..');
const fixtures = join(root, '__test__/audit/fixtures/dsh-plain/--home-dev-report-site--');

function cli(args) {
  const run = spawnSync(process.execPath, [join(root, 'bin/toolguard.mjs'), 'audit', ...args], {
    cwd: root,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1' },
  });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

test('recorded sample: the pytest loop from its first reminder until the agent moved on, each failure on its own', () => {
  // DSH's reminders (loops: false): the loop detectors' waste is tested on hand-made timelines below.
  const { doc } = {
    doc: JSON.parse(
      cli(['--json', '--config', join(root, '__test__/audit/dsh-exact.json'), join(fixtures, 'sample-main/session.jsonl')]).stdout,
    ),
  };
  const [s] = doc.sessions;
  // call_06 (3rd identical pytest: the first reminder) .. call_08 (5th), then call_14 is different.
  const loop = s.reminders.map((r) => r.waste);
  assert.deepEqual(loop[0], loop[1], 'both reminders belong to one episode');
  const byId = new Map(s.timeline.calls.map((c) => [c.callId, c]));
  assert.deepEqual(
    { from: loop[0].from, to: loop[0].to, movedOnAt: loop[0].movedOnAt, calls: loop[0].calls },
    { from: 'call_06', to: 'call_08', movedOnAt: 'call_14', calls: 3 },
  );
  assert.equal(loop[0].wallMs, byId.get('call_08').endTime - byId.get('call_06').time);
  const tokens = ['call_06', 'call_07', 'call_08'].reduce((n, id) => n + byId.get(id).inputTokens + byId.get(id).outputTokens, 0);
  assert.equal(loop[0].tokens, tokens);
  // Both rules of call_02 share its episode; a failure the agent did not retry costs its one call.
  const [glyph, traceback, module] = s.failures.map((f) => f.waste);
  assert.deepEqual(traceback, module);
  assert.deepEqual([glyph.calls, glyph.movedOnAt, traceback.calls, traceback.movedOnAt], [1, 'call_02', 1, 'call_03']);
  assert.deepEqual(s.waste.loop.episodes + s.waste.failure.episodes, 3);
  assert.equal(doc.summary.waste.calls, 5);
  assert.equal(doc.summary.waste.tokens, s.waste.tokens);
});

test('the text report ends with the waste of loops and of silent failures apart, each saying what it counts', () => {
  const { stdout } = cli([join(fixtures, 'sample-main/session.jsonl'), join(fixtures, 'sample-sub/session.jsonl')]);
  const lines = stdout.split('\n').filter((l) => l.startsWith('Waste'));
  assert.equal(lines.length, 2);
  assert.match(
    lines[0],
    /^Waste in loops: 4 calls · \d+ ms · 480 tokens in 2 stuck episodes \(from the flagged call until the agent moved on\)$/,
  );
  assert.match(
    lines[1],
    /^Waste in silent failures: 2 calls · \d+ ms · 240 tokens in 2 failure episodes \(each failing call and its identical retries; tokens: the turns that made them, context included\)$/,
  );
});

test('the waste lines say n/a where the log has no timestamps or usage, 0 where nothing was wasted', () => {
  const none = { episodes: 0, calls: 0, wallMs: 0, tokens: 0, episodesWithoutTime: 0, episodesWithoutTokens: 0 };
  const loop = { ...none, episodes: 1, calls: 2, wallMs: null, tokens: null, episodesWithoutTime: 1, episodesWithoutTokens: 1 };
  const [loops, failures] = wasteLine({ ...loop, loop, failure: none }).split('\n');
  assert.match(loops, /^Waste in loops: 2 calls · n\/a · n\/a tokens in 1 stuck episode \(/);
  assert.match(failures, /^Waste in silent failures: 0 calls · 0 ms · 0 tokens in 0 failure episodes \(/);
});

test('a Claude Code run: a part without episodes costs 0 on its page and in the JSON, not n/a (the log has timestamps and usage)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'toolguard-waste-'));
  const log = join(root, '__test__/audit/fixtures/claude-code');
  const { doc } = { doc: JSON.parse(cli(['--json', log]).stdout) };
  const quiet = doc.sessions.flatMap((s) => [s.waste.loop, s.waste.failure].filter((part) => part.episodes === 0).map((part) => [s, part]));
  assert.ok(quiet.length > 0, 'a session with no loop or no silent failure');
  for (const [s, part] of quiet) {
    assert.ok(
      s.timeline.calls.some((c) => c.time !== undefined && c.inputTokens !== undefined),
      `${s.file} has timestamps and usage`,
    );
    assert.deepEqual([part.calls, part.wallMs, part.tokens], [0, 0, 0]);
  }
  const run = cli(['--html', `${dir}/`, log]);
  assert.ok(run.code === 0 || run.code === 1, run.stderr);
  const pages = readdirSync(join(dir, 'runs')).map((f) => readFileSync(join(dir, 'runs', f), 'utf8'));
  assert.equal(pages.length, doc.sessions.length);
  for (const page of pages) {
    for (const id of ['stat-waste-loop', 'stat-waste-failure']) {
      const value = page.match(new RegExp(`<dd id="${id}">([^<]*)</dd>`))?.[1];
      assert.ok(value !== undefined, id);
      assert.doesNotMatch(value, /n\/a/, `${id}: ${value}`);
    }
  }
  rmSync(dir, { recursive: true, force: true });
});
