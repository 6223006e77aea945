// The `toolguard` command line outside `audit`: the help lists every command,
// check-config validates as the hook and plugins will, the one config loader
// reads JSON and YAML and names file and line, shell completion works.
// Child processes on real files.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { root, scratchCli } from '../support/cli.mjs';

const { scratch, cli, file } = scratchCli('toolguard-cli-');

test('--help lists every command, each with its own --help', () => {
  const help = cli(['--help']);
  assert.equal(help.code, 0);
  const commands = [...help.stdout.matchAll(/^ {2}([a-z-]+) /gm)].map((m) => m[1]);
  for (const name of ['audit', 'hook', 'mcp', 'check-config', 'completion']) assert.ok(commands.includes(name), `--help lists ${name}`);
  for (const command of commands) {
    const own = cli([command, '--help']);
    assert.equal(own.code, 0, command);
    assert.match(own.stdout, /^(Usage|usage): toolguard /, command);
    // `toolguard hook --help` is answered by the native hook when one is built: the same text, then a line naming it.
    assert.equal(cli(['help', command]).stdout, own.stdout.replace(/^\(native executable toolguard-hook\)\n$/m, ''));
  }
  assert.match(cli(['--version']).stdout, /^\d+\.\d+\.\d+/);
});

test('the help texts and the README name no file that the package does not ship', () => {
  const { files } = JSON.parse(
    spawnSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: root, encoding: 'utf8' }).stdout,
  )[0];
  const shipped = new Set(files.map((f) => f.path));
  for (const command of ['audit', 'hook', 'check-config', 'completion', '']) {
    const text = cli(command ? [command, '--help'] : ['--help']).stdout;
    for (const [doc] of text.matchAll(/docs\/[\w.-]+\.md/g)) assert.ok(shipped.has(doc), `${command || 'toolguard'} --help names ${doc}`);
  }
  for (const name of ['LICENSE', 'README.md', 'docs/trace-format.md', 'docs/adapters.md']) assert.ok(shipped.has(name), name);
  // Every file the README links to (the package page shows it) is in the tarball.
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  for (const [, target] of readme.matchAll(/\]\(([^)#:]+)(?:#[^)]*)?\)/g)) assert.ok(shipped.has(target), `README links ${target}`);
});

test('check-config: JSON and YAML (flow style, JSON in .yaml, no extension) are valid, exit 0', () => {
  const configs = [
    file('flow.yaml', 'repeat: { thresholds: [3, 5, 8] }\nloudFailure: { shellTools: [Bash, bash] }\n'),
    file('json-in.yaml', '{"repeat": {"thresholds": [2, 4]}}\n'),
    file(
      'guard.json',
      JSON.stringify({
        loudFailure: { rules: [{ id: 'deploy', pattern: '^Deploy skipped', flags: 'm', action: 'context', message: 'skipped' }] },
      }),
    ),
    file('guardrc', 'repeat:\n  exclude: [todo_write]\n'),
    file('empty.yaml', '# nothing set: the defaults\n'),
  ];
  const run = cli(['check-config', ...configs]);
  assert.equal(run.code, 0, run.stderr);
  assert.deepEqual(
    run.stdout
      .trim()
      .split('\n')
      .map((l) => l.slice(scratch.length + 1)),
    [
      'flow.yaml: ok (repeat thresholds [3, 5, 8] · 0 user rules · shell tools Bash, bash · loop detectors on (defaults))',
      'json-in.yaml: ok (repeat thresholds [2, 4] · 0 user rules · loop detectors on (defaults))',
      'guard.json: ok (repeat thresholds [3, 5, 8] · 1 user rule · loop detectors on (defaults))',
      'guardrc: ok (repeat thresholds [3, 5, 8] · exclude todo_write · 0 user rules · loop detectors on (defaults))',
      'empty.yaml: ok (repeat thresholds [3, 5, 8] · 0 user rules · loop detectors on (defaults))',
    ],
  );
});

test('check-config: an invalid config exits 2 with file, line and what is wrong', () => {
  /** @type {Array<[string, RegExp]>} */
  const cases = [
    [
      file('typo.yaml', 'repeat:\n  thresholds: [3]\n  treshold: 5\n'),
      /typo\.yaml:3: toolguard: unknown key config\.repeat\.treshold \(expected one of: /,
    ],
    [file('top.json', '{\n  "repeats": {}\n}\n'), /top\.json:2: toolguard: unknown key config\.repeats/],
    [file('threshold.yaml', 'repeat:\n  thresholds: [1]\n'), /threshold\.yaml:2: repeat-tool-reminder: invalid threshold 1/],
    [
      file(
        'rule.yaml',
        'loudFailure:\n  rules:\n    - id: ok\n      pattern: x\n      action: error\n      message: m\n    - id: look\n      pattern: a(?=b)\n      action: error\n      message: m\n',
      ),
      /rule\.yaml:7: loud-failure: rule look: lookahead/,
    ],
    [file('syntax.json', '{\n  "repeat": {\n    "thresholds": [3,]\n  }\n}\n'), /syntax\.json:3: not valid JSON: /],
    [file('dup.yaml', 'repeat: {}\nrepeat: {}\n'), /dup\.yaml:2: not valid YAML: .*duplicated key/],
    [file('list.yaml', '- repeat\n'), /list\.yaml: a config is a mapping \{repeat\?, loudFailure\?, loops\?, exactMode\?\} \(got a list\)/],
    [join(scratch, 'missing.yaml'), /cannot read config .*missing\.yaml/],
    // Nested aliases, ten times more nodes a level ("billion laughs" has nine levels).
    [
      file(
        'aliases.yaml',
        `a: &a [${Array(10).fill('x')}]\n${[0, 1, 2, 3, 4].map((i) => `b${i}: &b${i} [${Array(10).fill(i ? `*b${i - 1}` : '*a')}]\n`).join('')}`,
      ),
      /aliases\.yaml:4: not valid YAML: its aliases expand to more than 10000 nodes/,
    ],
  ];
  for (const [path, message] of cases) {
    const run = cli(['check-config', path]);
    assert.equal(run.code, 2, `${path}: ${run.stdout}${run.stderr}`);
    assert.match(run.stderr, message);
  }
  assert.equal(cli(['check-config']).code, 2);
  assert.equal(cli(['check-config', '--bogus', 'x']).code, 2);
});

test('audit --config reads the same formats through the same loader', () => {
  const trace = join(root, '__test__/audit/fixtures/trace/agents.jsonl');
  const flow = file('audit-flow.yaml', 'repeat: { thresholds: [2] }\n');
  const json = file('audit.json', '{"repeat": {"thresholds": [2]}}');
  const a = cli(['audit', '--json', '--config', flow, trace]);
  const b = cli(['audit', '--json', '--config', json, trace]);
  assert.equal(a.code, 1, a.stderr);
  assert.deepEqual(JSON.parse(a.stdout), JSON.parse(b.stdout));
  assert.ok(JSON.parse(a.stdout).sessions[0].reminders.every((r) => r.count % 2 === 0 || r.count === 2));
  assert.match(
    cli(['audit', '--config', file('bad-audit.yaml', 'repeat:\n  treshold: 2\n'), trace]).stderr,
    /bad-audit\.yaml:2: toolguard: unknown key config\.repeat\.treshold/,
  );
});

test('completion: bash completes commands, options and option values; zsh and fish scripts are generated from the same table', {
  skip: spawnSync('bash', ['--version']).status !== 0 && 'no bash',
}, () => {
  const script = cli(['completion', 'bash']);
  assert.equal(script.code, 0);
  const complete = (...words) => {
    const run = spawnSync(
      'bash',
      [
        '-c',
        `${script.stdout}\nCOMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length - 1}; _toolguard; printf '%s\\n' "\${COMPREPLY[@]}"`,
      ],
      { encoding: 'utf8' },
    );
    assert.equal(run.status, 0, run.stderr);
    return run.stdout.split('\n').filter(Boolean);
  };
  assert.deepEqual(complete('toolguard', 'a'), ['audit']);
  assert.deepEqual(complete('toolguard', 'c'), ['check-config', 'completion']);
  assert.deepEqual(complete('toolguard', 'audit', '--rep'), ['--report']);
  assert.deepEqual(complete('toolguard', 'audit', '--report', ''), ['table', 'json', 'jsonl', 'sarif', 'junit']);
  assert.deepEqual(complete('toolguard', 'audit', '--fail-on', 'f'), ['failure']);
  assert.deepEqual(complete('toolguard', 'hook', '--'), ['--config', '--help']);
  const zsh = cli(['completion', 'zsh']).stdout;
  assert.match(zsh, /bashcompinit/);
  assert.match(zsh, /complete -o default -F _toolguard toolguard/);
  const fish = cli(['completion', 'fish']).stdout;
  for (const command of ['audit', 'hook', 'check-config', 'completion'])
    assert.match(fish, new RegExp(`-n __fish_use_subcommand -a '${command}'`));
  assert.match(fish, /-n '__fish_seen_subcommand_from audit' -l 'report' -x -a 'table json jsonl sarif junit'/);
  assert.equal(cli(['completion', 'tcsh']).code, 2);
});
