// `toolguard audit` as a new user and a CI job meet it: exit codes
// that make a mistyped path fail, standard input, colours on demand, and the
// SARIF and JUnit XML reports CI systems read. The CLI runs as a child
// process on real files.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { XMLParser, XMLValidator } from 'fast-xml-parser';

const root = join(dirname(fileURLToPath(import.meta.url)), '../..');
const fixtures = join(root, '__test__/audit/fixtures');
const mainPlain = join(fixtures, 'dsh-plain/--home-dev-report-site--/sample-main/session.jsonl');
const mainZstd = join(fixtures, 'dsh-zstd/--home-dev-report-site--/sample-main/session.jsonl.zstd');
const trace = join(fixtures, 'trace/agents.jsonl');
// DSH's result-blind reminders (the audit runs the loop detectors unless told `loops: false`).
const dshExact = join(root, '__test__/audit/dsh-exact.json');

const scratch = mkdtempSync(join(tmpdir(), 'toolguard-first-run-'));

/**
 * @param {string[]} args
 * @param {{ env?: NodeJS.ProcessEnv, input?: string | Buffer }} [options] `env`: over the caller's, with no colour settings
 */
function cli(args, { env = {}, input } = {}) {
  const base = { ...process.env };
  delete base.NO_COLOR;
  delete base.FORCE_COLOR;
  const run = spawnSync(process.execPath, [join(root, 'bin/toolguard.mjs'), ...args], {
    cwd: root,
    encoding: 'utf8',
    env: { ...base, ...env },
    input,
  });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

test('inputs that cannot be audited exit 2, naming the problem (a mistyped path must not pass green)', () => {
  const empty = join(scratch, 'empty');
  mkdirSync(empty);
  const binary = join(scratch, 'binary.jsonl');
  writeFileSync(binary, Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 37) % 256)));
  /** @type {Array<[string[], RegExp]>} */
  const cases = [
    [[join(scratch, 'nope', 'x.jsonl')], /nope[\\/]x\.jsonl: no such file or directory/],
    [[empty], /no session logs found under .*empty/],
    [[binary], /no input could be read/],
    [['-'], /no input could be read/], // empty stdin
  ];
  for (const [args, message] of cases) {
    const run = cli(['audit', ...args], { input: '' });
    assert.equal(run.code, 2, `${args.join(' ')}\n${run.stdout}${run.stderr}`);
    assert.match(run.stderr, message);
  }
  // One readable log among them keeps the usual exit code (its findings): exit 1.
  assert.equal(cli(['audit', binary, trace]).code, 1);
});

test('audit - reads a log from standard input (plain or zstd)', () => {
  for (const file of [trace, mainZstd]) {
    const run = cli(['audit', '--json', '-'], { input: readFileSync(file) });
    assert.equal(run.code, 1, run.stderr);
    const doc = JSON.parse(run.stdout);
    assert.equal(doc.sessions[0].file, '(stdin)');
    const direct = JSON.parse(cli(['audit', '--json', file]).stdout);
    assert.deepEqual({ ...doc.sessions[0], file: null }, { ...direct.sessions[0], file: null });
  }
  assert.match(cli(['audit', '-', '-'], { input: '' }).stderr, /can be given once/);
});

test('colours: off when piped, on with FORCE_COLOR or --color, off with --no-color, FORCE_COLOR=0 or NO_COLOR', () => {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: ESC (\x1b) is the ANSI escape this test checks for
  const esc = /\x1b\[/;
  /** @type {Array<[string[], NodeJS.ProcessEnv, boolean]>} flags, environment, coloured */
  const cases = [
    [[], {}, false],
    [[], { FORCE_COLOR: '1' }, true],
    [[], { FORCE_COLOR: '' }, true],
    [[], { FORCE_COLOR: '0' }, false],
    [['--color'], {}, true],
    [['--no-color'], { FORCE_COLOR: '1' }, false],
    [[], { NO_COLOR: '1' }, false],
    [[], { NO_COLOR: '1', FORCE_COLOR: '1' }, true],
  ];
  for (const [flags, env, coloured] of cases) {
    const run = cli(['audit', ...flags, trace], { env });
    assert.equal(esc.test(run.stdout), coloured, `${flags} ${JSON.stringify(env)}`);
  }
  assert.equal(cli(['audit', '--color', '--no-color', trace]).code, 2);
});

test('a multi-line (heredoc) command keeps the table one line per row when piped', () => {
  const file = join(scratch, 'heredoc.jsonl');
  const command = "cat > notes.md <<'EOF'\nline one\n\x1b[31mline two\nEOF\npython3 build.py";
  // One rule's finding (a NameError is also script-broken: a wider FINDING column would cut the command).
  const output = 'Traceback (most recent call last):\n  File "build.py", line 1\nKeyError: 1\n';
  writeFileSync(file, JSON.stringify({ tool: 'bash', arguments: { command }, output, exitCode: 0 }) + '\n');
  const run = cli(['audit', file]);
  assert.equal(run.code, 1);
  const lines = run.stdout.split('\n');
  const row = lines.findIndex((l) => /^\s+1\s+/.test(l));
  assert.ok(row > 0, run.stdout);
  // The row, then its command on one line: line breaks shown as ⏎, the escape as text.
  assert.match(lines[row + 1], /^\s+\$ cat > notes\.md <<'EOF' ⏎ line one ⏎ \\x1b\[31mline two ⏎ EOF ⏎ python3 build\.py$/);
  assert.equal(lines[row + 2], '');
  // biome-ignore lint/suspicious/noControlCharactersInRegex: ESC (\x1b) is the ANSI escape this test checks for
  assert.doesNotMatch(run.stdout, /\x1b/);
});

test('a run of identical calls is one row with the highest count reached, not one row per reminder', () => {
  const file = join(scratch, 'run20.jsonl');
  const call = JSON.stringify({ tool: 'bash', arguments: { command: 'npm test' }, output: 'ok', exitCode: 0 });
  writeFileSync(file, `${call}\n`.repeat(20));
  const run = cli(['audit', '--config', dshExact, file]);
  const rows = run.stdout.split('\n').filter((l) => /loop ×/.test(l) && !l.startsWith('LINE:'));
  assert.deepEqual(
    rows.map((r) =>
      r
        .trim()
        .split(/\s{2,}/)
        .slice(0, 4),
    ),
    [['3', 'line 3', 'bash', 'loop × 8+']],
  );
  // The JSON keeps every reminder.
  assert.deepEqual(
    JSON.parse(cli(['audit', '--config', dshExact, '--json', file]).stdout).sessions[0].reminders.map((r) => r.count),
    [3, 5, 8],
  );
});

test('--report sarif: a SARIF 2.1.0 log with rules, results at file and line, input errors as notifications', () => {
  const broken = join(scratch, 'broken.jsonl');
  writeFileSync(broken, readFileSync(trace, 'utf8') + '{"tool":\n');
  const run = cli(['audit', '--config', dshExact, '--report', 'sarif', mainPlain, broken]);
  const brokenUri = pathToFileURL(broken).href;
  assert.equal(run.code, 1, run.stderr);
  const log = JSON.parse(run.stdout);
  assert.equal(log.version, '2.1.0');
  assert.match(log.$schema, /sarif-2\.1\.0/);
  assert.equal(log.runs.length, 1);
  const [sarifRun] = log.runs;
  const { driver } = sarifRun.tool;
  assert.equal(driver.name, 'toolguard');
  assert.equal(driver.version, JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).version);
  const ids = driver.rules.map((r) => r.id);
  assert.equal(new Set(ids).size, ids.length, 'rule ids are unique');
  for (const rule of driver.rules) assert.equal(typeof rule.shortDescription.text, 'string');
  const json = JSON.parse(cli(['audit', '--config', dshExact, '--json', mainPlain, broken]).stdout);
  const findings = json.sessions.flatMap((s) => [...s.reminders, ...s.failures].map((f) => [s.file, f.logLine, f.ruleId ?? 'loop']));
  assert.equal(sarifRun.results.length, findings.length);
  for (const r of sarifRun.results) {
    assert.ok(['error', 'warning', 'note'].includes(r.level));
    assert.equal(driver.rules[r.ruleIndex].id, r.ruleId);
    assert.ok(r.message.text.length > 0);
    const loc = r.locations[0].physicalLocation;
    assert.ok(Number.isInteger(loc.region.startLine) && loc.region.startLine >= 1);
    // Relative paths become relative URI references with forward slashes (what
    // code scanning expects), absolute ones file:// URLs.
    assert.ok(
      loc.artifactLocation.uri === brokenUri || loc.artifactLocation.uri.startsWith('__test__/audit/fixtures/'),
      loc.artifactLocation.uri,
    );
  }
  const uri = (file) => (file === broken ? brokenUri : file.replace(/\\/g, '/'));
  assert.deepEqual(
    sarifRun.results
      .map((r) => [r.locations[0].physicalLocation.artifactLocation.uri, r.locations[0].physicalLocation.region.startLine, r.ruleId])
      .sort(),
    findings.map(([file, line, id]) => [uri(file), line, id]).sort(),
  );
  const [invocation] = sarifRun.invocations;
  assert.equal(invocation.executionSuccessful, true);
  assert.equal(invocation.toolExecutionNotifications.length, 1);
  assert.match(invocation.toolExecutionNotifications[0].message.text, /broken\.jsonl:13: malformed JSON/);
});

test('--report junit: well-formed JUnit XML, a failure per finding matched by --fail-on, an error per bad line', () => {
  const broken = join(scratch, 'broken-junit.jsonl');
  // Control characters and markup in the output must not break the XML.
  const output = 'curl: (6) Could not resolve host: <x> & "y"\x07\x1b[0m';
  writeFileSync(
    broken,
    JSON.stringify({ tool: 'bash', arguments: { command: 'curl -sf https://x' }, output, exitCode: 0 }) + '\n["not an object"]\n',
  );
  const parser = new XMLParser({
    ignoreAttributes: false,
    attributeNamePrefix: '',
    isArray: (name) => name === 'testsuite' || name === 'testcase',
  });
  // t10's tool `shell` is a shell tool (the one default list): its `command not found` counts.
  for (const [failOn, failures] of /** @type {Array<[string, number]>} */ ([
    ['any', 5],
    ['failure', 3],
    ['none', 0],
  ])) {
    const run = cli(['audit', '--config', dshExact, '--report', 'junit', '--fail-on', failOn, trace, broken]);
    assert.equal(XMLValidator.validate(run.stdout), true, run.stdout);
    const { testsuites } = parser.parse(run.stdout);
    assert.equal(Number(testsuites.failures), failures, failOn);
    assert.equal(Number(testsuites.errors), 1);
    assert.equal(testsuites.testsuite.length, 2);
    let tests = 0;
    for (const suite of testsuites.testsuite) {
      assert.equal(Number(suite.tests), suite.testcase.length);
      assert.equal(Number(suite.failures), suite.testcase.filter((c) => c.failure).length);
      tests += suite.testcase.length;
    }
    assert.equal(Number(testsuites.tests), tests);
  }
  const clean = cli(['audit', '--report', 'junit', join(fixtures, 'trace/clean.jsonl')]);
  assert.equal(clean.code, 0);
  const { testsuites } = parser.parse(clean.stdout);
  assert.deepEqual([testsuites.tests, testsuites.failures, testsuites.testsuite[0].testcase[0].name], ['1', '0', 'no findings']);
});

test('without the native binary, audit says it needs it (exit 2), not "Auditor is not a constructor"', () => {
  const preload = join(scratch, 'no-native.cjs');
  writeFileSync(preload, "process.dlopen = () => { throw new Error('no binary for this platform') };\n");
  const run = cli(['audit', trace], { env: { NODE_OPTIONS: `--require ${preload}` } });
  assert.equal(run.code, 2, run.stderr);
  assert.match(run.stderr, /toolguard audit: auditing needs the native binary, which could not be loaded on this platform/);
  assert.doesNotMatch(run.stderr, /not a constructor|npm has a bug/);
});

test('--report sarif and junit carry loop-detector alarms (one per loop), not only DSH reminders', () => {
  const file = join(scratch, 'run-loops.jsonl');
  const call = JSON.stringify({ tool: 'bash', arguments: { command: 'npm test' }, output: 'ok', exitCode: 0 });
  writeFileSync(file, `${call}\n`.repeat(12));
  const sarif = JSON.parse(cli(['audit', '--report', 'sarif', file]).stdout);
  const loops = sarif.runs[0].results.filter((r) => r.ruleId === 'loop');
  assert.equal(loops.length, 1, JSON.stringify(sarif.runs[0].results));
  assert.match(loops[0].message.text, /repeat/);
  const junit = cli(['audit', '--report', 'junit', file]).stdout;
  assert.match(junit, /failures="1"/);
  assert.match(junit, /bash: repeat/);
});
