// Every error the core (or the audit's option decoding) raises reaches
// JavaScript as data: a `TOOLGUARD_…` code and the bad value's key path
// within the argument it came from, never napi's generic `InvalidArg`; and
// the CLI decides on codes, never on a message. (Argument checks of the
// binding itself, such as `exec.name must be a string`, keep `InvalidArg`.)
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Auditor, GuardEngine, native } from 'toolguard';
import { GuardEngine as ReferenceEngine } from '../dist/reference/index.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const sample = join(root, 'samples/dsh');

/**
 * The error `f` throws: a coded one, with this code and path.
 * @param {() => unknown} f
 * @param {string} code
 * @param {Array<string | number>} path
 * @param {string} what
 * @returns {Error & { code: string, path: Array<string | number>, expected?: string[] }}
 */
function assertCoded(f, code, path, what) {
  /** @type {any} */
  let thrown;
  try {
    f();
  } catch (e) {
    thrown = e;
  }
  assert.ok(thrown instanceof Error, `${what}: throws an Error`);
  /** @type {any} */
  const e = thrown;
  assert.notEqual(e.code, 'InvalidArg', `${what}: ${e.message}`);
  assert.equal(e.code, code, `${what}: ${e.message}`);
  assert.deepEqual(e.path, path, `${what}: path`);
  return e;
}

/** A config nested deeper than any config is (the walk's bound is 32). */
function deep(levels) {
  let value = {};
  for (let i = 0; i < levels; i++) value = { a: value };
  return { repeat: value };
}

/** @type {Array<[string, new (config?: any) => import('toolguard').GuardEngine]>} */
const engines = [
  ['native', GuardEngine],
  ['reference', ReferenceEngine],
];
for (const [label, Engine] of engines) {
  describe(`${label} engine: core errors carry their code and path`, () => {
    it('new GuardEngine(bad config): the key that is wrong', () => {
      assertCoded(() => new Engine({ repeat: { include: 'x' } }), 'TOOLGUARD_WRONG_TYPE', ['repeat', 'include'], 'wrong type');
      assertCoded(() => new Engine({ repeat: { thresholds: [1] } }), 'TOOLGUARD_OUT_OF_RANGE', ['repeat', 'thresholds'], 'out of range');
      assertCoded(
        () => new Engine({ loudFailure: { rules: [{ id: 'r', pattern: '(', action: 'error', message: 'm' }] } }),
        'TOOLGUARD_BAD_RULE',
        ['loudFailure', 'rules', 0],
        'bad rule',
      );
    });

    it('new GuardEngine(a config nested too deeply): the config as a whole', () => {
      assertCoded(() => new Engine(deep(40)), 'TOOLGUARD_TOO_DEEP', [], 'too deep');
    });

    it('restoreChain(bad state): the member of the state that is wrong', () => {
      const engine = new Engine({ loops: {} });
      assertCoded(() => engine.restoreChain('a', { digest: 'xyz', count: 1 }), 'TOOLGUARD_BAD_STATE', ['digest'], 'digest');
      assertCoded(() => engine.restoreChain('a', { digest: '0'.repeat(32), count: 0 }), 'TOOLGUARD_BAD_STATE', ['count'], 'count');
      // A loop state of this version that is damaged (another version starts afresh).
      const source = new Engine({ loops: {} });
      source.observe({ agentId: 'a', name: 'Bash', arguments: { command: 'ls' } }, { text: 'x' });
      const loops = source.chainState('a')?.loops;
      assert.equal(typeof loops, 'string');
      const damaged = `${loops.split('.')[0]}.not-a-state`;
      assertCoded(() => engine.restoreChain('a', { loops: damaged }), 'TOOLGUARD_BAD_STATE', ['loops'], 'loops');
    });
  });
}

describe('the Auditor: its config and option errors carry their code and path', { skip: !native && 'no native binary' }, () => {
  it('new Auditor(bad config) and new Auditor(config, bad options)', () => {
    assertCoded(() => new Auditor('{"repeat":{"include":"x"}}'), 'TOOLGUARD_WRONG_TYPE', ['repeat', 'include'], 'config');
    assertCoded(() => new Auditor('{'), 'TOOLGUARD_BAD_JSON', [], 'config JSON');
    assertCoded(() => new Auditor(undefined, '{"maxLineBytes":0}'), 'TOOLGUARD_OUT_OF_RANGE', ['maxLineBytes'], 'maxLineBytes');
    const unknown = assertCoded(() => new Auditor(undefined, '{"since":1}'), 'TOOLGUARD_UNKNOWN_KEY', ['since'], 'unknown option');
    assert.deepEqual(unknown.expected, ['maxLineBytes', 'sinceMs']);
  });

  it('auditFiles(bad batch options) and auditFile(bad format)', () => {
    const auditor = new Auditor();
    const files = (options) => () => auditor.auditFiles([], [], [], options, () => {});
    assertCoded(files('{"shard":"3/2"}'), 'TOOLGUARD_OUT_OF_RANGE', ['shard'], 'shard');
    assertCoded(files('{"format":"nope"}'), 'TOOLGUARD_OUT_OF_RANGE', ['format'], 'format');
    assertCoded(files('{"threads":-1}'), 'TOOLGUARD_WRONG_TYPE', ['threads'], 'threads');
    const format = /** @type {any} */ ('nope');
    assertCoded(() => auditor.auditFile(join(sample, 'x'), format), 'TOOLGUARD_OUT_OF_RANGE', [], 'auditFile format');
  });

  it('the CLI says a bad --shard as before: its own usage error, from the code (exit 2)', () => {
    const run = spawnSync(process.execPath, [join(root, 'bin/toolguard.mjs'), 'audit', '--shard=3/2', sample], { encoding: 'utf8' });
    assert.equal(run.status, 2);
    assert.equal(
      run.stderr,
      'toolguard audit: --shard must be i/n with 1 <= i <= n, such as 1/4 (got "3/2")\nTry \'toolguard audit --help\'.\n',
    );
  });
});

it('the CLI never tests InvalidArg nor takes a message apart', () => {
  const walk = (dir) =>
    readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(join(dir, e.name)) : [join(dir, e.name)]));
  for (const file of walk(join(root, 'ts/cli')).filter((f) => f.endsWith('.mts'))) {
    const text = readFileSync(file, 'utf8');
    assert.doesNotMatch(text, /InvalidArg/, file);
    assert.doesNotMatch(text, /\.message\.(replace|startsWith|match|includes|slice)\(/, file);
  }
});
