// The real-session corpus scripts (scripts/eval/corpus/): restore takes each
// listed file out of a source repository's git directory, refuses one whose
// sha256 differs, skips a repository that is absent, and writes a manifest in
// ../shared/wild's shape; the table sums each source's files and puts the
// held-out sources first.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';

import { loadSources, manifestFormat, restore } from '../../scripts/eval/corpus/restore.mjs';
import { replaceBetween, table, BEGIN, END } from '../../scripts/eval/corpus/table.mjs';

const git = (dir, ...args) =>
  execFileSync('git', ['-C', dir, ...args], {
    encoding: 'utf8',
    env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' },
  }).trim();

function fixture() {
  const root = mkdtempSync(join(tmpdir(), 'toolguard-corpus-'));
  const work = join(root, 'mirror', 'someone+runs');
  mkdirSync(join(work, 'trajs'), { recursive: true });
  const body = '{"messages": []}\n';
  writeFileSync(join(work, 'trajs', 'a.traj.json'), body);
  git(work, 'init', '-q');
  git(work, 'add', '.');
  git(work, 'commit', '-qm', 'runs');
  const commit = git(work, 'rev-parse', 'HEAD');
  const sha = createHash('sha256').update(body).digest('hex');
  const sources = join(root, 'sources');
  mkdirSync(sources);
  const file = (over) => ({
    path: 'trajs/a.traj.json',
    file: 'runs/a.traj.json',
    sha256: sha,
    size: body.length,
    sessions: 1,
    calls: 3,
    shell: 2,
    model: 'm',
    ...over,
  });
  const source = (name, over) => ({
    source: name,
    repo: 'someone/runs',
    commit,
    harness: 'mini-swe-agent-1.x',
    format: 'mini-swe-agent',
    models: ['m'],
    split: 'heldout',
    files: [file()],
    ...over,
  });
  return { root, work, commit, sources, source, file };
}

test('restore: checks the sha256, writes the file and a manifest in the wild shape', () => {
  const f = fixture();
  // A bare clone at DIR/<owner>+<name>.git (fetch's layout is DIR/<owner>+<name>/repo).
  execFileSync('git', ['clone', '-q', '--bare', f.work, join(f.root, 'mirror2', 'someone+runs.git')]);
  writeFileSync(join(f.sources, 'runs.json'), JSON.stringify(f.source('runs')));
  const out = join(f.root, 'out');
  const r = restore({ mirror: join(f.root, 'mirror2'), out, sources: [f.sources], repoSources: false, log: () => {} });
  assert.equal(r.restored, 1);
  assert.deepEqual(r.bad, []);
  assert.equal(readFileSync(join(out, 'runs/a.traj.json'), 'utf8'), '{"messages": []}\n');
  const [entry] = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8'));
  assert.equal(entry.file, 'runs/a.traj.json');
  assert.equal(entry.format, 'mini-swe-agent-traj-v1');
  assert.equal(entry.split, 'heldout');
  assert.equal(entry.commit, f.commit);
  // Run again: present files are kept and listed, nothing is re-read.
  const again = restore({ mirror: join(f.root, 'nowhere'), out, sources: [f.sources], repoSources: false, log: () => {} });
  assert.equal(again.present, 1);
  assert.equal(again.manifest.length, 1);
});

test('restore: a file whose sha256 differs is refused and not written; an absent repository is skipped', () => {
  const f = fixture();
  execFileSync('git', ['clone', '-q', '--bare', f.work, join(f.root, 'bare', 'someone+runs.git')]);
  writeFileSync(
    join(f.sources, 'bad.json'),
    JSON.stringify(f.source('bad', { files: [f.file({ sha256: '0'.repeat(64), file: 'bad/a.json' })] })),
  );
  writeFileSync(
    join(f.sources, 'gone.json'),
    JSON.stringify(f.source('gone', { repo: 'nobody/gone', files: [f.file({ file: 'gone/a.json' })] })),
  );
  const said = [];
  const out = join(f.root, 'out');
  const r = restore({ mirror: join(f.root, 'bare'), out, sources: [f.sources], repoSources: false, log: (m) => said.push(m) });
  assert.equal(r.bad.length, 1);
  assert.match(r.bad[0], /sha256 .* is not the recorded 0{64}/);
  assert.ok(!existsSync(join(out, 'bad/a.json')));
  assert.deepEqual(r.skipped, ['gone']);
  assert.match(said.join('\n'), /gone: nobody\/gone is not under .*skipped/);
});

test('loadSources: a provenance file without a split, or with another one, is refused naming it', () => {
  const f = fixture();
  writeFileSync(join(f.sources, 'x.json'), JSON.stringify(f.source('x', { split: 'later' })));
  assert.throws(() => loadSources([f.sources]), /x\.json: split must be "heldout" or "tuning"/);
  writeFileSync(join(f.sources, 'x.json'), JSON.stringify({ ...f.source('x'), commit: 'abc' }));
  assert.throws(() => loadSources([f.sources]), /x\.json: commit is not 40 hex digits/);
});

test('manifestFormat: the wild manifest names, a source may name its own', () => {
  assert.equal(manifestFormat({ format: 'swe-agent', harness: 'swe-agent-1.x' }), 'swe-agent-traj');
  assert.equal(manifestFormat({ format: 'mini-swe-agent', harness: 'mini-swe-agent-2.x' }), 'mini-swe-agent-traj-v2');
  assert.equal(manifestFormat({ format: 'openhands-v0', manifest_format: 'openhands-v0-llm-completions' }), 'openhands-v0-llm-completions');
});

test('table: held-out sources first, per-split and overall totals', () => {
  const s = (source, split, calls) => ({
    source,
    repo: `o/${source}`,
    harness: 'h',
    split,
    files: [{ sessions: 2, calls, shell: 1, model: 'a,b' }],
  });
  const text = table([s('t1', 'tuning', 10), s('h1', 'heldout', 5)]);
  const lines = text.trim().split('\n');
  assert.match(lines[2], /^\| `h1` .* \| a, b \| 2 \| 5 \| 1 \| heldout \|$/);
  assert.match(lines[3], /^\| `t1` /);
  assert.match(lines.at(-1), /^\| \*\*all\*\* \| 2 repositories \| 1 harnesses \| \| 4 \| 15 \| 2 \| \|$/);
  const doc = `a\n${BEGIN}\nold\n${END}\nb\n`;
  assert.equal(replaceBetween(doc, 'new\n'), `a\n${BEGIN}\nnew\n${END}\nb\n`);
  assert.throws(() => replaceBetween('no markers', 'x'), /no .* markers/);
});
