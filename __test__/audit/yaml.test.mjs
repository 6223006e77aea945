// The YAML subset read by `toolguard audit --config x.yaml` (ts/cli/yaml.mts):
// what it accepts must parse exactly as YAML would; the rest must be refused
// with a line number, never guessed at.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseYaml } from '../../dist/ts/cli/yaml.mjs';

test('block mappings, sequences, flow sequences and scalars', () => {
  const text = [
    '# guard config',
    'repeat:',
    '  thresholds: [2, 4, 8]',
    '  include: []',
    '  exclude:',
    '  - "job_*"',
    "  - 'ls'",
    '  argumentsPreviewChars: 120',
    'loudFailure:',
    '  scanValue: false',
    '  shellTools: [bash, "pwsh", job_output]   # trailing comment',
    '  rules:',
    '    - id: deploy-skipped',
    "      pattern: '^Deploy skipped: \\w+ #1'",
    '      flags: m',
    '      action: context',
    '      message: "Tab\\there, quote \\" and \\u00e9"',
    '    - id: empty',
    '      when: always',
    '      message: it\'s fine',
  ].join('\n');
  assert.deepEqual(parseYaml(text), {
    repeat: { thresholds: [2, 4, 8], include: [], exclude: ['job_*', 'ls'], argumentsPreviewChars: 120 },
    loudFailure: {
      scanValue: false,
      shellTools: ['bash', 'pwsh', 'job_output'],
      rules: [
        { id: 'deploy-skipped', pattern: '^Deploy skipped: \\w+ #1', flags: 'm', action: 'context', message: 'Tab\there, quote " and é' },
        { id: 'empty', when: 'always', message: "it's fine" },
      ],
    },
  });
  assert.deepEqual(parseYaml('a: null\nb: ~\nc: 1.5e3\nd: -7\ne: "12"\nf: True'), { a: null, b: null, c: 1500, d: -7, e: '12', f: true });
  assert.equal(parseYaml('# nothing\n'), null);
  assert.deepEqual(parseYaml('---\nrepeat: {}\n'), { repeat: {} });
});

test('constructs outside the subset are refused with their line', () => {
  const refused = [
    ['a: &x 1', /line 1: anchors/],
    ['a: *x', /line 1: anchors/],
    ['a: !!str 1', /line 1: anchors, aliases, tags/],
    ['a: |\n  text', /line 1: anchors, aliases, tags and block scalars/],
    ['a: {b: 1}', /line 1: flow mappings/],
    ['a: [1, [2]]', /line 1: nested/],
    ['a:\n\tb: 1', /line 2: tabs/],
    ['a: 1\na: 2', /line 2: duplicate key "a"/],
    ['a: "open', /line 1: unterminated/],
    ['a: 1\n---\nb: 2', /line 2: only one YAML document/],
    ['a:\n  b: 1\n c: 2', /line 3: unexpected indentation/],
    ['just text', /line 1: expected "key: value"/],
  ];
  for (const [text, message] of refused) assert.throws(() => parseYaml(text), message, text);
});
