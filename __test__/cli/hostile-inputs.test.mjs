// A demanding new user feeding the CLI hostile inputs: each path that could not do its job names what was wrong and
// exits 2, never with a stack trace. Child processes; the sessions are the
// repository's own sample.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { writeCollection } from '../../benchmark/collection.mjs';
import { root, scratchCli } from '../support/cli.mjs';

const { scratch, cli, file, bin } = scratchCli('toolguard-hostile-');
const sample = join(root, 'samples/dsh');

test('audit that reads nothing says why for each file: binary, cannot open (a dangling link), empty', () => {
  const dir = join(scratch, 'unreadable');
  mkdirSync(dir);
  file('unreadable/binary.jsonl', '\u0000\u0001\u0002 not text');
  file('unreadable/empty.jsonl', '');
  symlinkSync(join(scratch, 'gone.jsonl'), join(dir, 'dangling.jsonl'));
  const run = cli(['audit', dir]);
  assert.equal(run.code, 2, run.stderr);
  assert.match(run.stderr, /binary\.jsonl: not a text log/);
  assert.match(run.stderr, /dangling\.jsonl: cannot open: No such file or directory/);
  assert.match(run.stderr, /empty\.jsonl: empty/);
  assert.doesNotMatch(run.stderr, /^\s+at /m);
});

test('audit --html DIR/ that cannot be made is an error naming it (exit 2), not a stack trace', () => {
  const blocker = file('a-file', 'x');
  const run = cli(['audit', '--html', `${blocker}/site/`, sample]);
  assert.equal(run.code, 2, run.stderr);
  assert.match(run.stderr, /^toolguard audit: cannot write the HTML report to .*a-file\/site\/: ENOTDIR/);
  assert.doesNotMatch(run.stderr, /^\s+at /m);
  assert.equal(run.stdout, '', 'nothing was audited');
});

test('audit --html DIR/ says where it wrote, as --html FILE does', () => {
  const site = join(scratch, 'site');
  const run = cli(['audit', '--html', `${site}/`, sample]);
  assert.equal(run.code, 1, run.stderr);
  assert.match(run.stderr, /wrote the HTML report to .*site\/index\.html \(and 2 run pages\)/);
  assert.ok(existsSync(join(site, 'index.html')));
  assert.equal(readdirSync(join(site, 'runs')).length, 2);
});

test('audit --html with a report it cannot go with is a usage error (exit 2), not a mixed stdout or an empty page', () => {
  /** @type {[string[], RegExp][]} */
  const cases = [
    [['--html', '-', '--report', 'jsonl'], /--html - and --report jsonl both write to stdout/],
    [['--html', '-', '--json'], /--html - and --report json both write to stdout/],
    [['--html', '-', '--report', 'sarif'], /--html - and --report sarif both write to stdout/],
    [['--html', join(scratch, 'one.html'), '--report', 'jsonl'], /--report jsonl keeps no session for a one-page --html FILE/],
  ];
  for (const [args, message] of cases) {
    const run = cli(['audit', ...args, sample]);
    assert.equal(run.code, 2, `${args.join(' ')}: ${run.stderr}`);
    assert.match(run.stderr, message);
    assert.equal(run.stdout, '');
  }
  assert.ok(!existsSync(join(scratch, 'one.html')));
  // A folder keeps a page a run, so the stream goes with it.
  const site = cli(['audit', '--html', `${join(scratch, 'stream-site')}/`, '--report', 'jsonl', sample]);
  assert.equal(site.code, 1, site.stderr);
  assert.equal(site.stdout.trim().split('\n').length, 2);
});

test('an option value that starts with a dash is named, with the way to give it', () => {
  /** @type {[string[], RegExp][]} */
  const cases = [
    [['audit', '-j', '-1', sample], /-j needs a value \(-1 reads as an option: write --jobs=-1\)/],
    [['audit', '--shard', '-1/4', sample], /--shard needs a value \(-1\/4 reads as an option: write --shard=-1\/4\)/],
  ];
  for (const [args, message] of cases) {
    const run = cli(args);
    assert.equal(run.code, 2, run.stderr);
    assert.match(run.stderr, message);
  }
  const written = cli(['audit', '--shard=-1/4', sample]);
  assert.equal(written.code, 2);
  assert.match(written.stderr, /--shard must be i\/n with 1 <= i <= n, such as 1\/4 \(got "-1\/4"\)/);
  const missing = cli(['audit', sample, '--shard']);
  assert.match(missing.stderr, /--shard needs a value\n/);
});

test('audit --report jsonl into a reader that goes away (| head -c 1) stops quietly, no EPIPE stack trace', {
  skip: process.platform === 'win32' && 'a POSIX pipeline',
}, () => {
  const collection = join(scratch, 'collection');
  writeCollection(collection, { runs: 300, bytesPerRun: 4_000 });
  const run = spawnSync(
    'bash',
    ['-c', `set -o pipefail; "${process.execPath}" "${bin}" audit --report jsonl --jobs 1 "${collection}" | head -c 1`],
    {
      encoding: 'utf8',
    },
  );
  assert.equal(run.stdout, '{');
  assert.doesNotMatch(run.stderr, /EPIPE|^\s+at /m, run.stderr);
  assert.equal(run.status, 0, run.stderr);
});

test('a file name with a terminal escape is shown escaped in the "no input could be read" line', {
  skip: process.platform === 'win32' && 'no control characters in Windows file names',
}, () => {
  const evil = file('evil\u001b[2J\u0007.jsonl', '\u0000binary');
  const run = cli(['audit', evil]);
  assert.equal(run.code, 2, run.stderr);
  assert.match(run.stderr, /evil\\x1b\[2J\\x07\.jsonl: not a text log/);
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the raw escape is what must not reach the terminal
  assert.doesNotMatch(run.stderr, /\u001b|\u0007/);
});

test('--since refuses what Date.parse would misread: a bare number (a year), a day past the month end', () => {
  for (const since of ['1', '30', '2025-02-30', '2025-13-01']) {
    const run = cli(['audit', '--since', since, sample]);
    assert.equal(run.code, 2, `${since}: ${run.stderr}`);
    assert.match(run.stderr, /--since must be a date .* or an age \(30m, 12h, 7d\)/);
  }
  for (const since of ['2024-02-29', '2025-10-01T12:00Z', '7d'])
    assert.equal(cli(['audit', '--since', since, sample]).code !== 2, true, since);
});

test('audit --html FILE in a folder that does not exist fails before the audit, not after it', {
  skip: process.platform === 'win32' && 'a named pipe (mkfifo)',
}, () => {
  // An input that blocks until written to: the audit never ends, so only a check made first can answer.
  const pipe = join(scratch, 'never-written.jsonl');
  execFileSync('mkfifo', [pipe]);
  const run = cli(['audit', '--html', join(scratch, 'no-such-folder', 'r.html'), pipe], { timeout: 20_000 });
  assert.equal(run.code, 2, run.stderr);
  assert.match(run.stderr, /^toolguard audit: cannot write the HTML report to .*no-such-folder\/r\.html: ENOENT/);
  const notFolder = cli(['audit', '--html', join(file('plain', 'x'), 'r.html'), pipe], { timeout: 20_000 });
  assert.equal(notFolder.code, 2, notFolder.stderr);
  assert.match(notFolder.stderr, /plain is not a folder/);
});
