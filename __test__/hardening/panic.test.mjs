// No panic crosses N-API. An addon built with the `test-panic` cargo
// feature (never the shipped one: built here, once, into target/test-panic
// and loaded through NAPI_RS_NATIVE_LIBRARY_PATH) has a test-only hook: when
// the environment variable TOOLGUARD_TEST_PANIC is `observe:<tool>` (panic while
// the call is read and the chain advanced, on the JS thread) or
// `scan:<tool>` (panic in the scan: on a libuv pool thread under
// observeAsync) at the first call, calls of exactly that tool panic inside
// Rust. The scenarios run in child processes (panic-child.mjs) so the hook
// never leaks into other tests; each checks that the caller sees a plain
// JavaScript Error (or rejection), that the engine keeps working, and that
// the DSH plugin passes the tool result through unchanged.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { panicAddon, shippedAddon } from '../support/panic-addon.mjs';

const require = createRequire(import.meta.url);
const child = fileURLToPath(new URL('./panic-child.mjs', import.meta.url));

function runChild(spec) {
  const result = spawnSync(process.execPath, [child], {
    env: { ...process.env, TOOLGUARD_TEST_PANIC: spec, NAPI_RS_NATIVE_LIBRARY_PATH: panicAddon },
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { code: result.status, signal: result.signal, stdout: result.stdout, stderr: result.stderr };
}

/** @type {Array<[string, string[]]>} TOOLGUARD_TEST_PANIC, the child's passing checks */
const panicCases = [
  [
    'observe:bash',
    [
      'observe: the panic is a JavaScript Error',
      'observeAsync: the panic on the JS thread is a synchronous Error',
      'the engine keeps working after a panic',
      'the DSH plugin fails open on the panic (sync and async paths)',
    ],
  ],
  [
    'scan:bash',
    [
      'observe: the panic is a JavaScript Error',
      'observeAsync: the panic on the pool thread is a rejected promise',
      'the chain advanced in call order despite the panics',
      'the engine keeps working after a panic',
      'the DSH plugin fails open on the panic (sync and async paths)',
    ],
  ],
];
for (const [spec, expected] of panicCases) {
  test(`TOOLGUARD_TEST_PANIC=${spec}: a real Rust panic surfaces as a JavaScript Error, never a crash`, () => {
    const { code, signal, stdout, stderr } = runChild(spec);
    assert.equal(signal, null, `child killed by ${signal}\n${stderr}`);
    assert.equal(code, 0, `child failed\n${stdout}\n${stderr}`);
    assert.deepEqual(
      stdout.trim().split('\n'),
      expected.map((name) => `ok ${name}`),
    );
    // The panics really happened inside Rust (the default hook prints them).
    assert.match(stderr, /panicked at src[\\/]errors\.rs:\d+:\d+:\nTOOLGUARD_TEST_PANIC forced a panic for tool bash/);
  });
}

// Each spec on the test build (inert unless it names the tool), and the
// spec that does name it on the shipped build, which has no hook at all.
const inert = [
  ...['', 'observe:', 'observe:bas', 'scan:bash*', 'bash', 'panic:bash'].map((spec) => [spec, panicAddon]),
  ['observe:bash', shippedAddon],
  ['scan:bash', shippedAddon],
];
test('the hook is inert unless the variable names the tool, and absent from the shipped build', () => {
  for (const [spec, addon] of inert) {
    const result = spawnSync(
      process.execPath,
      [
        '-e',
        `
        const { GuardEngine } = require(${JSON.stringify(require.resolve('../../index.js'))});
        const e = new GuardEngine();
        const v = e.observe({ agentId: 'a', name: 'bash', argumentsJson: '{}' }, { text: 'Traceback (most recent call last):' });
        e.observeAsync({ name: 'bash', argumentsJson: '{}' }, { text: 'npm ERR! x' }).then((w) => console.log(v.failure.summary, '|', w.failure.summary));
      `,
      ],
      { env: { ...process.env, TOOLGUARD_TEST_PANIC: spec, NAPI_RS_NATIVE_LIBRARY_PATH: addon }, encoding: 'utf8' },
    );
    assert.equal(result.status, 0, `${spec}: ${result.stderr}`);
    assert.equal(result.stdout.trim(), 'bash: python-traceback | bash: npm-error', spec);
    assert.doesNotMatch(result.stderr, /panicked/, spec);
  }
});
