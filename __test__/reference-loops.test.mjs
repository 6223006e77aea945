// The loop detectors of the pure-TypeScript reference engine against the
// native engine ("the fallback tells the truth"):
// - every session of corpus/loops/*.jsonl replayed through both, under a few
//   configs (defaults, deny, the DSH repeat kept, thresholds changed), with
//   `check` before each call as the hooks call it: the same verdict objects
//   and refusals call by call;
// - scripted sequences of the loop tests (crates/toolguard-core/src/loops/
//   tests, __test__/dsh/loops.test.mjs) as a table (the behaviour cases with
//   expected verdicts, corpus/cases/loops, replay in loop-cases.test.mjs);
// - random call sequences over a few tools, arguments and results (fast-check);
// - the `loops` config errors, message for message.
// The reference-only parts (its own texts, state round trip) run without the
// addon; the differential parts skip, with the reason, when it is not built.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

import fc from 'fast-check';

import { GuardEngine as Reference } from '../dist/reference/index.mjs';
import { callEffect } from '../dist/reference/shell.mjs';
import { readSession } from '../scripts/eval/loops.eval.mjs';

const require = createRequire(import.meta.url);
const here = path.dirname(fileURLToPath(import.meta.url));
const CORPUS = path.join(here, '..', 'corpus', 'loops');

function loadNative() {
  try {
    const native = require('../index.js');
    if (typeof native.GuardEngine !== 'function') return { skip: 'index.js has no GuardEngine export' };
    return { native };
  } catch (error) {
    return { skip: `native addon not loadable: ${error.message.split('\n')[0]}` };
  }
}
const { native, skip } = loadNative();

/** A verdict as plain data (the addon's objects and the reference's compare alike). */
const plain = (value) => (value === null || value === undefined ? null : JSON.parse(JSON.stringify(value)));

/** Either engine's outcome of one step: its value, or its error's message and code. */
function attempt(f) {
  try {
    return { value: plain(f()) };
  } catch (error) {
    return { error: error.message, code: error.code, path: error.path };
  }
}

/** A corpus call as the eval's toolguard row hands it over: the output as text blocks, the exit code as the harness's marker block. */
function resultOf(call) {
  const content = [{ type: 'text', text: call.rawOutput }];
  if (call.exitCode) content.push({ type: 'text', text: `[exit code: ${call.exitCode}]` });
  return { content, isError: call.isError };
}

/**
 * Drive two engines through the same steps; every step's outcome must be
 * equal. Steps: `{ call: {name, argumentsJson|arguments, agentId?}, result, check? }`,
 * `{ user: agentId }`, `{ forget: agentId }`, `{ async: true, call, result }`.
 */
async function same(config, steps, label) {
  const ours = new Reference(config);
  const theirs = new native.GuardEngine(config);
  for (const [i, step] of steps.entries()) {
    const at = `${label}, step ${i}`;
    if (step.user !== undefined) {
      ours.reset(step.user);
      theirs.reset(step.user);
      continue;
    }
    if (step.forget !== undefined) {
      ours.forget(step.forget);
      theirs.forget(step.forget);
      continue;
    }
    if (step.check)
      assert.deepEqual(
        attempt(() => ours.check(step.call)),
        attempt(() => theirs.check(step.call)),
        `${at}: check`,
      );
    if (step.async) {
      const [a, b] = await Promise.all([ours.observeAsync(step.call, step.result), theirs.observeAsync(step.call, step.result)]);
      assert.deepEqual(plain(a), plain(b), `${at}: observeAsync`);
    } else {
      assert.deepEqual(
        attempt(() => ours.observe(step.call, step.result)),
        attempt(() => theirs.observe(step.call, step.result)),
        `${at}: observe`,
      );
    }
    assert.equal(ours.agentCount, theirs.agentCount, `${at}: agentCount`);
  }
}

const sessions = readdirSync(CORPUS)
  .filter((f) => f.endsWith('.jsonl'))
  .sort()
  .map((f) => ({ name: path.basename(f, '.jsonl'), events: readSession(path.join(CORPUS, f)) }));

/** A session's events as steps of agent `main`, checked before every call. */
const sessionSteps = (session, { check = true } = {}) =>
  session.events.map((event) =>
    event.type === 'user'
      ? { user: 'main' }
      : { call: { agentId: 'main', name: event.call.tool, argumentsJson: event.call.argsJson }, result: resultOf(event.call), check },
  );

const CONFIGS = [
  ['defaults', { loops: {} }],
  ['deny after 1 reminder', { loops: { deny: 1 } }],
  ['deny: true, the DSH repeat kept', { loops: { deny: true, resultBlindRepeat: true } }],
  [
    'thresholds changed',
    { loops: { repeat: 4, cycle: 2, maxPeriod: 8, sameError: 2, reRead: false, window: 12, multipliers: { 'shell*': 1.5 } } },
  ],
  ['no description ignored, nothing mutating', { loops: { ignoreArguments: {}, mutatingTools: [], exempt: ['job_output'] } }],
  ['scanned as shell tools', { loops: { transientMultiplier: 1 }, loudFailure: { shellTools: ['*'] } }],
];

describe('reference loop detectors: the loop corpus, native vs reference', { skip }, () => {
  it(`has the corpus (${sessions.length} sessions)`, () => {
    assert.ok(sessions.length >= 50, 'corpus/loops holds the labelled sessions');
  });
  for (const [label, config] of CONFIGS) {
    it(`every session, call by call: ${label}`, async () => {
      let alarms = 0;
      for (const session of sessions) {
        await same(config, sessionSteps(session), `${session.name} (${label})`);
        const engine = new Reference(config);
        for (const step of sessionSteps(session, { check: false })) {
          if (step.user) engine.reset('main');
          else if (engine.observe(step.call, step.result)?.loop) alarms += 1;
        }
      }
      assert.ok(alarms > 0, 'the corpus raises alarms: the comparison compares something');
    });
  }
  it('every session through observeAsync (no silent-failure flag for the window, as natively)', async () => {
    for (const session of sessions) {
      const steps = sessionSteps(session, { check: false }).map((s) => (s.call ? { ...s, async: true } : s));
      await same({ loops: {}, loudFailure: { shellTools: ['*'] } }, steps, `${session.name} (async)`);
    }
  });
  it('two agents interleaved, one reset midway, one forgotten', async () => {
    const [a, b] = [sessions.find((s) => s.name.startsWith('cycle2-read')), sessions.find((s) => s.name.startsWith('repeat-grep'))];
    const left = sessionSteps(a).map((s) => (s.call ? { ...s, call: { ...s.call, agentId: 'a' } } : { user: 'a' }));
    const right = sessionSteps(b).map((s) => (s.call ? { ...s, call: { ...s.call, agentId: 'b' } } : { user: 'b' }));
    const steps = [];
    for (let i = 0; i < Math.max(left.length, right.length); i += 1) {
      if (left[i]) steps.push(left[i]);
      if (right[i]) steps.push(right[i]);
      if (i === 5) steps.push({ user: 'b' });
      if (i === 9) steps.push({ forget: 'a' });
    }
    await same({ loops: { deny: 2 } }, steps, 'interleaved');
  });
});

/** `(tool, argumentsJson, output, isError)` sequences of the loop tests, fed as one agent's calls. */
const PYTEST = '{"command":"pytest -q"}';
const REJECTED = (detail) =>
  `Your proposed edit has introduced new syntax error(s). Please understand the fixes and retry your edit commmand.\n\nERRORS:\n- E999 SyntaxError: unmatched '${detail}'`;
/** Misses on real sessions: what each engine must now call a loop, and at which call. */
const IMPORT_FAIL =
  "Traceback (most recent call last):\n  File \"<string>\", line 1\nImportError: cannot import name 'formatargspec' from 'inspect'\n[exit code: 1]";

const SYNTAX_FAIL = (line) =>
  `Traceback (most recent call last):\n  File "pkg/a.py", line ${line}\n    import struct\nSyntaxError: invalid syntax\n[exit code: 1]`;

const HARNESS_TIMEOUT = (cmd) =>
  `<exception>An error occurred while executing the command: Command '['docker', 'exec', '-w', '/testbed', 'bash', '-c', '${cmd}']' timed out after 60 seconds</exception>\n<returncode>-1</returncode>`;

const WILD_MISSES = {
  // OpenHands V1 looks at the page with browser_get_state: a look, so the same click between looks is a redo.
  'the same click with browser_get_state between': {
    calls: Array.from({ length: 8 }, (_, i) =>
      i % 2 === 0
        ? ['browser_click', '{"index":1233}', 'Clicked element 1233', false]
        : ['browser_get_state', '{"include_screenshot":false}', `{"url":"http://x/files","elements":[{"index":${2000 + i * 87}}]}`, false],
    ),
    at: 4,
    kind: 'redo',
  },
  // SWE-agent's edit rejected three times: the detail changes, the last try repeats the one before word for word.
  'an edit rejected with other details, then retried word for word': {
    calls: [
      ['bash', '{"command":"edit 287:295\\n    x = [\\nend_of_edit"}', REJECTED(']'), false],
      ['bash', '{"command":"edit 287:295\\n    y = (\\nend_of_edit"}', REJECTED(')'), false],
      ['bash', '{"command":"edit 287:295\\n    y = (\\nend_of_edit"}', REJECTED(')'), false],
    ],
    at: 2,
    kind: 'same-error',
  },
  // The same import failure comes back after patches that failed the same way or otherwise.
  'the same failure with other calls of the tool between': {
    calls: [
      ['bash', '{"command":"python -c \'import astroid\'"}', IMPORT_FAIL, false],
      ['bash', '{"command":"cat > p.py << \'EOF\'\\nimport inspect\\nEOF\\npython p.py"}', IMPORT_FAIL, false],
      ['bash', '{"command":"sed -i s/a/b/ w.py"}', '', false],
      ['bash', '{"command":"python -c \'import astroid\'"}', "NameError: name 'inspect' is not defined\n[exit code: 1]", false],
      ['bash', '{"command":"python -c \'import astroid\'"}', IMPORT_FAIL, false],
    ],
    at: 4,
    kind: 'same-error',
  },
  // An own script catches its error and exits 0; the edits between do not change it.
  'a re-run whose output names an error after each edit': {
    calls: [
      ['bash', '{"command":"python test_fix.py 2>&1"}', 'Error: too many indices for array', false],
      ['bash', '{"command":"python fix1.py"}', 'Fixed', false],
      ['bash', '{"command":"python test_fix.py 2>&1"}', 'Error: too many indices for array', false],
      ['bash', '{"command":"python fix2.py"}', 'Fixed', false],
      ['bash', '{"command":"python test_fix.py 2>&1"}', 'Error: too many indices for array', false],
    ],
    at: 4,
    kind: 're-read',
  },
  // OpenHands' browser refuses a click on an element that is not there, again and again.
  'a click refused in words, other clicks between': {
    calls: [
      ['browser_click', '{"index":1260}', 'Element with index 1260 not found', false],
      ['browser_click', '{"index":1230}', 'Clicked element 1230', false],
      ['browser_click', '{"index":1260}', 'Element with index 1260 not found', false],
      ['browser_get_state', '{}', 'page', false],
      ['browser_click', '{"index":1260}', 'Element with index 1260 not found', false],
    ],
    at: 4,
    kind: 'same-error',
  },
  // The same attempt again: the same import check before the test, the test fails the same way.
  'the same attempt made again with the same failure': {
    calls: [
      ['bash', '{"command":"python fix1.py"}', 'Updated', false],
      ['bash', '{"command":"python -c \'import pkg\'"}', '', false],
      ['bash', '{"command":"python test_fix.py"}', SYNTAX_FAIL(13), false],
      ['bash', '{"command":"cp a.py.bak a.py"}', '', false],
      ['bash', '{"command":"python fix2.py"}', 'Updated', false],
      ['bash', '{"command":"python -c \'import pkg\'"}', '', false],
      ['bash', '{"command":"python test_fix.py"}', SYNTAX_FAIL(500), false],
    ],
    at: 6,
    kind: 're-read',
  },
  // `pytest | tail` exits 0 whatever pytest said: its import error three times with looks between.
  'a test behind a pipe whose output names an error': {
    calls: [0, 1, 2, 3, 4].map((i) =>
      i % 2 === 0
        ? [
            'Bash',
            '{"command":"uv run pytest tests/ -v 2>&1 | tail -40"}',
            "ImportError while loading conftest '/p/tests/conftest.py'.\nE   ModuleNotFoundError: No module named 'x'",
            false,
          ]
        : ['Bash', `{"command":"ls -la tests/${i}"}`, 'conftest.py', false],
    ),
    at: 4,
    kind: 're-read',
  },
  // Three installs killed by the harness's timeout, whose message quotes each command line.
  'a harness error quoting other command lines': {
    calls: [
      [
        'bash',
        JSON.stringify({ command: 'pip install numpy -q 2>&1 | tail -5' }),
        HARNESS_TIMEOUT('pip install numpy -q 2>&1 | tail -5'),
        true,
      ],
      [
        'bash',
        '{"command":"python3 -c \'import numpy\' 2>&1 | head -2"}',
        "Traceback (most recent call last):\nModuleNotFoundError: No module named 'numpy'",
        false,
      ],
      [
        'bash',
        JSON.stringify({ command: 'apt-get update && apt-get install -y python3-numpy' }),
        HARNESS_TIMEOUT('apt-get update && apt-get install -y python3-numpy'),
        true,
      ],
      ['bash', '{"command":"python3 -m pip list | head -5"}', 'Package Version', false],
      [
        'bash',
        JSON.stringify({ command: 'python3 -m pip install numpy --no-cache-dir -q' }),
        HARNESS_TIMEOUT('python3 -m pip install numpy --no-cache-dir -q'),
        true,
      ],
    ],
    at: 4,
    kind: 'same-error',
  },
  // Instrument a file, break its import, restore the backup, start over: every edit differs, and the
  // import check comes back with the same traceback after a restore (sqlfluff-1733).
  'the same restore after attempts that end as before': {
    calls: [150, 185, 206, 219].flatMap((line, i) => [
      ['bash', '{"command":"cp src/rules/L003.py.backup src/rules/L003.py"}', '', false],
      ['bash', `{"command":"sed -i '${line} i\\\\    sys.stderr.write(x)' src/rules/L003.py"}`, '', false],
      [
        'bash',
        '{"command":"python -c \'import pkg.L003; print(1)\' 2>&1 | head -5"}',
        i === 0 ? '1' : 'Traceback (most recent call last):\n  File "<string>", line 1, in <module>\n    import pytest\n',
        false,
      ],
      ['bash', `{"command":"grep -n indent_${i} src/rules/L003.py"}`, `${line}: indent`, false],
    ]),
    at: 12,
    kind: 'redo',
  },
  // Claude Code's bare `Exit code 7` three times from three health checks.
  'a bare exit status from different calls': {
    calls: [1, 2, 3].map((i) => ['Bash', `{"command":"sleep ${i} && curl -s http://localhost:8081/health"}`, 'Exit code 7', true]),
    at: 2,
    kind: 'same-error',
  },
};

const SCRIPTED = {
  ...Object.fromEntries(Object.entries(WILD_MISSES).map(([name, m]) => [name, m.calls])),
  // Restores between debug runs that each show something new; a restore before an approach that passes (traps).
  'restores between attempts that show something new': [0, 1, 2, 3].flatMap((i) => [
    ['bash', '{"command":"cp related.py.orig related.py"}', '', false],
    ['bash', `{"command":"python /tmp/add_pre_save_${i}.py"}`, 'Added pre_save', false],
    [
      'bash',
      `{"command":"python test_debug_${i}.py 2>&1 | tail -30"}`,
      `product_id = ${i}\nError saving order: FOREIGN KEY constraint failed`,
      false,
    ],
    [
      'bash',
      '{"command":"python -m pytest -q 2>&1 | tail -3"}',
      i < 3 ? `E   AssertionError: ${i} != 2\n${3 - i} failed` : '3 passed',
      false,
    ],
  ]),
  'polling with a changing result': Array.from({ length: 12 }, (_, i) => [
    'job_output',
    '{"job_id":"j1"}',
    `epoch ${i + 1}/20 loss 0.${89 - i}\n[status: running]`,
    false,
  ]),
  're-test after each edit while failures shrink': [
    ['bash', PYTEST, 'FAILED t::a\nFAILED t::b\nFAILED t::c\n3 failed\n[exit code: 1]', false],
    ['edit_file', '{"path":"a.py","old_string":"x","new_string":"y"}', 'Edited a.py', false],
    ['bash', PYTEST, 'FAILED t::b\nFAILED t::c\n2 failed\n[exit code: 1]', false],
    ['edit_file', '{"path":"a.py","old_string":"y","new_string":"z"}', 'Edited a.py', false],
    ['bash', PYTEST, 'FAILED t::c\n1 failed\n[exit code: 1]', false],
    ['edit_file', '{"path":"a.py","old_string":"z","new_string":"w"}', 'Edited a.py', false],
    ['bash', PYTEST, '3 passed', false],
  ],
  're-read after each edit': Array.from({ length: 8 }, (_, i) =>
    i % 2 === 0
      ? ['read_file', '{"path":"config.toml"}', i % 4 === 0 ? 'port = 1' : 'port = 2', false]
      : ['edit_file', '{"path":"config.toml"}', 'Edited', false],
  ),
  '429 then success': [
    ...Array(3).fill([
      'bash',
      String.raw`{"command":"curl -s -w '\\nHTTP %{http_code}\\n' http://h/api"}`,
      '{"error": "rate_limited"}\n\nHTTP 429\n',
      false,
    ]),
    ['bash', String.raw`{"command":"curl -s -w '\\nHTTP %{http_code}\\n' http://h/api"}`, '{"ok": true}\n\nHTTP 200\n', false],
  ],
  '429 past the transient thresholds': Array(8).fill([
    'bash',
    '{"command":"curl http://h/api"}',
    'HTTP/1.1 429 Too Many Requests\nRetry-After: 1\n',
    false,
  ]),
  'debugger stepping with prints in between': Array.from({ length: 16 }, (_, i) =>
    i % 2 === 0
      ? ['write_stdin', '{"session_id":1,"chars":"n\\n"}', `-> acc += x\n(Pdb) line ${10 + (i % 6)}`, false]
      : ['write_stdin', '{"session_id":1,"chars":"p acc\\n"}', `${i * 3}\n(Pdb)`, false],
  ),
  'codex exit header and long outputs': [
    ...Array(4).fill([
      'shell',
      '{"command":["bash","-lc","make"]}',
      `Exit code: 2\nWall time: 0.4 seconds\nOutput:\n${'cc -c x.c\n'.repeat(9000)}x.c:3: error: expected ';'\n`,
      false,
    ]),
    ...Array(3).fill([
      'shell',
      '{"command":["bash","-lc","cat big.log"]}',
      `${'é line 1234 at 12:00:01\n'.repeat(4000)}done in 3.2s\n`,
      false,
    ]),
  ],
  'a description that changes every call (Claude Code Bash)': Array.from({ length: 5 }, (_, i) => [
    'Bash',
    JSON.stringify({ command: 'npm test', description: `run the tests (${i})` }),
    '2 failing\n[exit code: 1]',
    false,
  ]),
  'ignored key with numbers serde re-writes': [
    ['Bash', '{"command":"x","n":1e21,"description":"a","k":{"10":1,"9":2}}', 'same', false],
    ['Bash', '{"command":"x","n":1e21,"k":{"10":1,"9":2}}', 'same', false],
    ['Bash', '{"command":"x","n":1e21,"description":"b","k":{"10":1,"9":2}}', 'same', false],
    ['Bash', '{"command":"x","n":1e21,"description":"c","k":{"10":1,"9":2}}', 'same', false],
    ['Bash', '{"command":"y","n":0.000001,"f":-1.5e-7,"big":18446744073709551616,"description":"a"}', 'same', false],
    ['Bash', '{"command":"y","n":0.000001,"f":-1.5e-7,"big":18446744073709551616}', 'same', false],
    ['Bash', '{"command":"y","n":0.000001,"f":-1.5e-7,"big":18446744073709551616}', 'same', false],
  ],
  'a loop longer than the window: one episode, reminders climbing, the first call kept': Array(70).fill([
    'bash',
    PYTEST,
    '1 failed, 2 passed\n[exit code: 1]',
    false,
  ]),
  'a re-read loop with calls in between, longer than the window': Array.from({ length: 90 }, (_, i) =>
    i % 3 === 0
      ? ['read_file', '{"path":"settings.py"}', 'DEBUG = False\nHOST = "x"', false]
      : ['bash', JSON.stringify({ command: `grep -rn k${i} src/` }), `src/a.py:${i}: k${i}`, false],
  ),
  'restores, patches and clicks are never re-reads': [
    ...[
      '{"command":"cd /testbed && cp astroid/modutils.py.bak astroid/modutils.py"}',
      '{"command":"git checkout -- django/x.py"}',
      '{"command":"git diff > fix.patch"}',
    ].flatMap((write) =>
      Array.from({ length: 4 }, (_, i) => [
        ['bash', write, '', false],
        ['bash', `{"command":"python repro.py --case ${i}"}`, 'ok', false],
      ]).flat(),
    ),
    ...Array.from({ length: 4 }, (_, i) => [
      ['browser_click', '{"ref":"e12"}', 'clicked', false],
      ['browser_navigate', `{"url":"http://shop/item/${i}"}`, 'page', false],
    ]).flat(),
    ...Array(4)
      .fill([
        ['browser_navigate', '{"url":"http://shop/list"}', 'list', false],
        ['browser_navigate_back', '{}', 'home', false],
      ])
      .flat(),
  ],
  'polling a quiet running job, then an ended one': [
    ...Array(9).fill(['BashOutput', '{"bash_id":"b1"}', '<status>running</status>\n<timestamp>x</timestamp>', false]),
    ...Array(4).fill(['BashOutput', '{"bash_id":"b1"}', '<status>completed</status>\n<exit_code>0</exit_code>', false]),
    ...Array(9)
      .fill([
        ['bash', '{"command":"sleep 30"}', '', false],
        ['bash', '{"command":"tail -5 /tmp/train.log"}', 'epoch 3', false],
      ])
      .flat(),
    ...Array(10).fill(['bash', '{"command":"curl -s http://localhost:8000/healthz"}', 'starting', false]),
  ],
  'searches that found nothing, and a grep that failed for real': [
    ...[
      'Exit code 1',
      '\n[Command finished with exit code 1]',
      'No matches found',
      '<returncode>1</returncode>\n<output>\n</output>\n[exit code: 1]',
    ].flatMap((out) => ['alpha', 'beta', 'gamma', 'delta'].map((w) => ['Bash', `{"command":"grep -rn ${w} src/"}`, out, true])),
    ...['a', 'b', 'c'].map((f) => [
      'bash',
      `{"command":"grep x ${f}.txt"}`,
      `grep: cannot open ${f}.txt (No such file or directory)\n[exit code: 2]`,
      false,
    ]),
  ],
  'edits rejected in words': [
    ...[0, 1, 2].map((i) => [
      'str_replace_editor',
      `{"command":"str_replace","path":"a.py","old_str":"x${i}","new_str":"y"}`,
      `No replacement was performed, old_str \`x${i}\` did not appear verbatim in a.py.`,
      false,
    ]),
    ...[0, 1, 2].map((i) => [
      'bash',
      JSON.stringify({ command: `edit 10:1${i}\n    return x\nend_of_edit` }),
      'Your proposed edit has introduced new syntax error(s). Please read this error message carefully and then retry editing the file.\n\nERRORS:\n- E999 IndentationError: unexpected indent',
      false,
    ]),
    ...[0, 1, 2].map((i) => ['Edit', `{"file_path":"a.py","old_string":"q${i}"}`, 'Error: String to replace not found in file.', false]),
  ],
  'shell lines the model parses: wrappers, bash -c, heredocs, redirects, subcommands': [
    'sudo -u root timeout 60 env A=1 pytest -q',
    "bash -lc 'cd /x && python -m pytest tests/ 2>&1 | tail -20'",
    "cat > /tmp/x.py << 'EOF'\nimport os\nprint(1)\nEOF\npython /tmp/x.py",
    'uv run --frozen pytest -x',
    'npm run test:unit',
    'git -C repo checkout -- a.py',
    'sed -i.bak s/a/b/ f.txt',
    'tail -f /var/log/app.log',
    'curl -o out.bin https://x/y',
    'make -j4 check',
    'python3.11 -m unittest discover',
    "echo 'unclosed",
    'ls $(pwd) | grep -c "x y" ; wc -l < f.txt >> out.txt',
  ].flatMap((command) => Array(4).fill(['bash', JSON.stringify({ command }), 'same output\n[exit code: 1]', false])),
  'the same click with only looks between is a redo; going back is no loop': [
    ...[0, 1, 2, 3].flatMap((i) => [
      ['browser_click', '{"index":1233}', 'Clicked element 1233', false],
      ['browser_snapshot', '{}', `{"url":"http://x/files","elements":[{"index":${2000 + i * 87}}]}`, false],
    ]),
    ...Array(4).fill(['browser_go_back', '{}', 'Navigated back', false]),
    ...Array(4)
      .fill([
        ['bash', '{"command":"pip install requests"}', 'Requirement already satisfied: requests', false],
        ['bash', '{"command":"python -c \\"import requests\\""}', 'ModuleNotFoundError', false],
      ])
      .flat(),
  ],
  'a 404 flagged by a rule is still soft': [3, 5, 8, 13, 21].map((id) => [
    'Bash',
    `{"command":"curl -s -w 'HTTP %{http_code}' http://h/api/items/${id}"}`,
    `{"error": "not_found", "message": "item ${id} not found"}\n\nHTTP 404\n`,
    false,
  ]),
  'noise normalised: ANSI, CR overdraw, progress, uuid, hex, pid, tmp paths': Array.from({ length: 4 }, (_, i) => [
    'bash',
    '{"command":"./run.sh"}',
    `\x1b[3${i}mFAILED\x1b[0m job ${['0f8fad5b-d9cb-469f-a165-70867728950e', '7c9e6679-7425-40de-944b-e07fc1f90ae7'][i % 2]}\n` +
      `commit ${['a1b2c3d', 'd4e5f60'][i % 2]} pid ${100 + i} at 2026-11-30T08:00:0${i}.037Z\r\n` +
      `[${'#'.repeat(10 + i)}] ${i}0%\rdone\n/tmp/tmp${i}x9abc/out.txt written in ${i}.5 seconds\n[exit code: 1]`,
    false,
  ]),
};

describe('reference loop detectors: the package entry with the native binary hidden', { skip }, () => {
  it('main.js falls back to the reference engine and gives the native alarms on every corpus session', () => {
    const entry = path.join(here, '..', 'main.js');
    const replay = (hidden) => {
      // process.dlopen is how Node loads a .node file: make every attempt fail.
      const script = `
        ${hidden ? "process.dlopen = () => { throw new Error('no native binaries here'); };" : ''}
        process.removeAllListeners('warning');
        const toolguard = require(${JSON.stringify(entry)});
        const { readSession } = await import(${JSON.stringify(path.join(here, '..', 'scripts', 'eval', 'loops.eval.mjs'))});
        const fs = require('node:fs');
        const out = { native: toolguard.native, alarms: {} };
        for (const f of fs.readdirSync(${JSON.stringify(CORPUS)}).filter((f) => f.endsWith('.jsonl')).sort()) {
          const engine = new toolguard.GuardEngine({ loops: {} });
          const alarms = (out.alarms[f] = []);
          for (const ev of readSession(${JSON.stringify(CORPUS)} + '/' + f)) {
            if (ev.type === 'user') { engine.reset('main'); continue; }
            const c = ev.call;
            const content = [{ type: 'text', text: c.rawOutput }];
            if (c.exitCode) content.push({ type: 'text', text: '[exit code: ' + c.exitCode + ']' });
            const v = engine.observe({ agentId: 'main', name: c.tool, argumentsJson: c.argsJson }, { content, isError: c.isError });
            if (v?.loop) alarms.push([c.index, v.loop.summary, v.loop.reminders, v.loop.text]);
          }
        }
        console.log(JSON.stringify(out));
      `;
      const child = spawnSync(
        process.execPath,
        [
          '--input-type=module',
          '-e',
          `import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);\n${script}`,
        ],
        { encoding: 'utf8', maxBuffer: 64 << 20 },
      );
      assert.equal(child.status, 0, child.stderr);
      return JSON.parse(child.stdout);
    };
    const [fallback, addon] = [replay(true), replay(false)];
    assert.equal(fallback.native, false, 'the entry fell back');
    assert.equal(addon.native, true, 'the entry loaded the addon');
    assert.ok(Object.values(addon.alarms).flat().length > 100, 'the corpus raises alarms natively');
    assert.deepEqual(fallback.alarms, addon.alarms);
  });
});

describe("reference loop detectors: the loop tests' scripted sequences, native vs reference", { skip }, () => {
  for (const [name, calls] of Object.entries(SCRIPTED)) {
    it(name, async () => {
      for (const config of [{ loops: {} }, { loops: { deny: 1 } }]) {
        const steps = calls.map(([tool, argumentsJson, text, isError]) => ({
          call: { agentId: 'a', name: tool, argumentsJson },
          result: { content: [{ type: 'text', text }], isError },
          check: true,
        }));
        await same(config, steps, name);
      }
    });
  }
});

describe('loop detectors: a concurrent call raises nothing but enters the window', () => {
  // Five background jobs made in one turn, all failing alike, then the same
  // batch again after their results: alarms only on the second batch's first call.
  const job = (concurrent) => ({
    call: { agentId: 'a', name: 'Bash', argumentsJson: '{"command":"python run_job.py"}', concurrent },
    result: { content: [{ type: 'text', text: "Exit code 1\nModuleNotFoundError: No module named 'jobs'" }], isError: true },
  });
  const batch = [0, 1, 2, 3, 4].map((i) => job(i > 0));
  for (const [which, Engine] of [
    ['reference', Reference],
    ['native', native?.GuardEngine],
  ]) {
    it(`which calls alarm (${which})`, { skip: Engine ? false : skip }, () => {
      const engine = new Engine({ loops: {} });
      const alarmed = [...batch, ...batch].map((s) => engine.observe(s.call, s.result)?.loop !== undefined);
      assert.deepEqual(alarmed, [false, false, false, false, false, true, false, false, false, false]);
      const sequential = new Engine({ loops: {} });
      assert.ok([0, 1, 2, 3, 4].some(() => sequential.observe(job(false).call, job(false).result)?.loop !== undefined));
      assert.throws(() => engine.observe({ ...job(false).call, concurrent: 'yes' }, 'x'), /exec\.concurrent must be a boolean/);
    });
  }
  it('native and reference alike, with deny', { skip }, async () => {
    for (const config of [{ loops: {} }, { loops: { deny: 1 } }]) {
      await same(config, [...batch, ...batch, { ...job(false), check: true }, job(true)], 'concurrent batch');
    }
  });
});

describe('loop detectors on misses from real sessions: both engines alarm', () => {
  for (const [name, m] of Object.entries(WILD_MISSES)) {
    for (const [which, Engine] of [
      ['reference', Reference],
      ['native', native?.GuardEngine],
    ]) {
      it(`${name} (${which})`, { skip: Engine ? false : skip }, () => {
        const engine = new Engine({ loops: {} });
        const kinds = m.calls.map(
          ([tool, argumentsJson, text, isError]) =>
            engine.observe({ agentId: 'a', name: tool, argumentsJson }, { content: [{ type: 'text', text }], isError })?.loop?.kind ?? null,
        );
        assert.equal(
          kinds.findIndex((k) => k !== null),
          m.at,
          JSON.stringify(kinds),
        );
        assert.equal(kinds[m.at], m.kind);
      });
    }
  }
});

describe('reference loop detectors: random call sequences, native vs reference', { skip }, () => {
  const tool = fc.constantFrom(
    'bash',
    'read_file',
    'edit_file',
    'Bash',
    'shell',
    'kubectl_get',
    'BashOutput',
    'str_replace_editor',
    'browser_navigate_back',
    'grep',
    'browser_click',
  );
  const args = fc.constantFrom(
    '{"command":"pytest -q"}',
    '{"command":"pytest -q","description":"again"}',
    '{"path":"a.py"}',
    '{"path":"b.py"}',
    '{"command":"curl http://h/items/7"}',
    '{"command":"grep -rn needle src/"}',
    '{"command":"sleep 5"}',
    '{"command":"git checkout -- a.py"}',
    '{"command":"str_replace","path":"a.py","old_str":"x"}',
    '{"bash_id":"b1"}',
    '',
    '{bad json',
  );
  const text = fc.constantFrom(
    '1 failed in 0.03s\n[exit code: 1]',
    '1 failed in 0.31s\n[exit code: 1]',
    '3 passed in 0.2s',
    'x = 1',
    'x = 2',
    'Edited a.py',
    'HTTP/1.1 404 Not Found\nitem 7 not found',
    'HTTP/1.1 503 Service Unavailable',
    'Exit code: 1\nWall time: 0.2 seconds\nOutput:\nerror: could not compile `x`',
    'Traceback (most recent call last):\n  File "a.py", line 3\nValueError: bad value 12',
    '<status>running</status>',
    '<status>completed</status>\n<exit_code>1</exit_code>',
    'No matches found',
    'Exit code 1',
    '<returncode>1</returncode>\n<output>\n</output>',
    'No replacement was performed, old_str `x` did not appear verbatim in a.py.',
    '',
  );
  const step = fc.oneof(
    {
      weight: 12,
      arbitrary: fc.record({
        agentId: fc.constantFrom('a', 'b'),
        tool,
        args,
        text,
        isError: fc.boolean(),
        value: fc.boolean(),
        // Now and then a parallel call (made before the previous result came back).
        concurrent: fc.constantFrom(undefined, false, false, true),
      }),
    },
    { weight: 1, arbitrary: fc.record({ user: fc.constantFrom('a', 'b') }) },
  );
  const config = fc.record(
    {
      repeat: fc.constantFrom(2, 3, false),
      cycle: fc.constantFrom(2, 3, false),
      maxPeriod: fc.integer({ min: 2, max: 8 }),
      sameError: fc.constantFrom(2, 3),
      softError: fc.constantFrom(2, 4, false),
      reRead: fc.constantFrom(2, 3, false),
      window: fc.integer({ min: 2, max: 12 }),
      deny: fc.constantFrom(1, 2, false),
      resultBlindRepeat: fc.boolean(),
      multipliers: fc.constantFrom({}, { bash: 1.5 }, { '*': 0.5 }),
      poll: fc.constantFrom(2, 3, 8, false),
      pollQuietSeconds: fc.constantFrom(0, 300),
    },
    { requiredKeys: [] },
  );
  it('the same verdicts and refusals, call by call', async () => {
    await fc.assert(
      fc.asyncProperty(config, fc.array(step, { maxLength: 40 }), async (loops, seq) => {
        const steps = seq.map((s) =>
          s.user !== undefined
            ? { user: s.user }
            : {
                call: { agentId: s.agentId, name: s.tool, argumentsJson: s.args, concurrent: s.concurrent },
                // A result as text blocks, or (no text) as a value the detectors read as JSON.
                result:
                  s.value && s.text === ''
                    ? { value: { rows: s.args.length } }
                    : { content: [{ type: 'text', text: s.text }], isError: s.isError },
                check: true,
              },
        );
        await same({ loops, loudFailure: { shellTools: ['bash', 'shell'] } }, steps, JSON.stringify(loops));
      }),
      { numRuns: 300 },
    );
  });
});

describe('reference loop detectors: random result texts, native vs reference', { skip }, () => {
  // Texts built from the pieces the result readers look at (noise the
  // normaliser takes out, error words, HTTP statuses, harness frames,
  // tracebacks, multi-byte and whitespace characters, long lines), three per
  // sequence so that results recur.
  const pieces = [
    'error: x',
    'Error',
    'FAILED',
    'HTTP/1.1 404 Not Found',
    'HTTP 503',
    'rate limit',
    'Too Many Requests',
    '\r',
    '\n',
    '\r\n',
    ' ',
    '\t',
    '\u00a0',
    '\u0085',
    '\ufeff',
    'é',
    '😀',
    '\x1b[31m',
    '\x1b[0m',
    '\x1bX',
    '\x1b]8;;f\x07',
    '\x1b]0;t\x1b\\',
    '\x1b(B',
    '\x1b[?25l',
    '\x1b\u00e9',
    '12:00:01',
    '2026-11-30T08:00:01.037Z',
    '0.35s',
    '37 ms',
    'pid 123',
    'process 77',
    'deadbeef1',
    '0x7ffe',
    '/tmp/tmpab12cd/out',
    '/var/tmp/x9y8z7ab/q',
    '[####=====] 45%',
    'Traceback (most recent call last):',
    '  File "a.py", line 1',
    // Positions a failure's digest masks, and near misses.
    '  File "a.py", line 1046, in f',
    'src/main.rs:12:5',
    ' 12 |     let x',
    '(Foo.java:88)',
    'ratio 3:1',
    'line 7x',
    '0m1.234s',
    '1h2m',
    'ValueError: v 12',
    '^^^^',
    '=====',
    '[exit code: 1]',
    '[exit code: 0]',
    'Exit code: 2',
    'Wall time: 1s',
    'Output:',
    'No matches found',
    'cannot open',
    'not found',
    'x'.repeat(300),
    'ab'.repeat(2100),
    'duration_ms: 0.25',
    'took 3',
    'elapsed 1.5',
    '4fe0e0b2-6b8f-4c8f-9c0e-1b2c3d4e5f60',
    'the "arg" here',
    'item 7',
  ];
  const text = fc.array(fc.constantFrom(...pieces), { maxLength: 30 }).map((a) => a.join(''));
  const step = fc.record({
    args: fc.constantFrom(
      '{"command":"curl http://h/item 7"}',
      '{"command":"curl http://h/item 8"}',
      '{"command":"pytest -q"}',
      '{"command":"cat x"}',
      '{"path":"a"}',
    ),
    tool: fc.constantFrom('bash', 'read_file', 'shell'),
    pick: fc.nat({ max: 2 }),
    isError: fc.boolean(),
  });
  it('the same verdicts, call by call', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(text, { minLength: 3, maxLength: 3 }), fc.array(step, { maxLength: 14 }), async (texts, seq) => {
        const steps = seq.map((s) => ({
          call: { agentId: 'z', name: s.tool, argumentsJson: s.args },
          result: { content: [{ type: 'text', text: texts[s.pick] }], isError: s.isError },
        }));
        await same({ loops: { sameError: 2, softError: 2, reRead: 2, repeat: 2 } }, steps, 'random texts');
      }),
      { numRuns: 500 },
    );
  });
});

describe('reference shell model: random command lines, native vs reference', { skip }, () => {
  // What a call does (its effect, whether it names a path) decides which
  // detector may fire: a re-read needs a read, a redo a pathless write, a
  // poll a wait. Each random line is run between distinct reads, with the
  // same result, so a different effect shows as a different alarm.
  const piece = fc.constantFrom(
    'cat',
    'sed',
    '-n',
    "'1,5p'",
    '-i',
    'grep',
    '-rn',
    'x',
    'src/',
    'tail',
    '-f',
    'log.txt',
    'curl',
    '-o',
    'out.bin',
    'http://localhost:8000/health',
    'https://x/api',
    'git',
    'checkout',
    '--',
    'a.py',
    'status',
    'diff',
    'pip',
    'install',
    'requests',
    'npm',
    'run',
    'test',
    'make',
    'check',
    'python',
    'python3.11',
    '-m',
    'pytest',
    '-c',
    '"import x"',
    'bash',
    '-lc',
    'sudo',
    'timeout',
    '60',
    'env',
    'A=1',
    'uv',
    'sleep',
    '5',
    'echo',
    'done',
    'ls',
    'kubectl',
    'get',
    'pods',
    'cp',
    'a',
    'b',
    'tee',
    'f.txt',
    './run.sh',
    '|',
    '||',
    '&&',
    ';',
    '&',
    '>',
    '>>',
    '2>&1',
    '<',
    '<<EOF',
    '\nbody\nEOF\n',
    '$(pwd)',
    '"a b"',
    "'q",
    '(',
    ')',
    '{',
    '}',
    '#',
    '\\',
  );
  const line = fc.array(piece, { minLength: 1, maxLength: 9 }).map((words) => words.join(' '));
  it('the same alarms for every pattern a command line can take part in', async () => {
    await fc.assert(
      fc.asyncProperty(line, fc.constantFrom('bash', 'shell', 'exec_command'), fc.boolean(), async (command, tool, failing) => {
        const args = tool === 'exec_command' ? JSON.stringify({ cmd: command }) : JSON.stringify({ command });
        const out = failing ? 'same text\n[exit code: 1]' : 'same text';
        const steps = [];
        for (let i = 0; i < 5; i += 1) {
          steps.push({ call: { agentId: 'a', name: tool, argumentsJson: args }, result: out, check: true });
          steps.push({
            call: { agentId: 'a', name: 'read_file', argumentsJson: JSON.stringify({ path: `f${i}.py` }) },
            result: `x = ${i}`,
            check: true,
          });
        }
        for (let i = 0; i < 4; i += 1) steps.push({ call: { agentId: 'a', name: tool, argumentsJson: args }, result: out, check: true });
        await same({ loops: { deny: 2, poll: 3 } }, steps, command);
      }),
      { numRuns: 400 },
    );
  });
});

describe('reference loop detectors: observeCall is the chain half only, as natively', { skip }, () => {
  it('observeCall and observeCallValue leave the loop window alone; observe after them sees the same window', async () => {
    const mod = await import('../dist/reference/index.mjs');
    for (const loops of [{}, { resultBlindRepeat: true }]) {
      const ours = new Reference({ loops });
      const theirs = new native.GuardEngine({ loops });
      const exec = { agentId: 'a', name: 'bash', argumentsJson: PYTEST };
      const steps = [];
      for (let i = 0; i < 4; i += 1) {
        steps.push([mod.observeCall(ours.callHandle, 'a', 'bash', PYTEST), native.observeCall(theirs.callHandle, 'a', 'bash', PYTEST)]);
        steps.push([
          mod.observeCallValue(ours.callHandle, 'a', 'bash', { command: 'pytest -q' }),
          native.observeCallValue(theirs.callHandle, 'a', 'bash', { command: 'pytest -q' }),
        ]);
        steps.push([ours.observe(exec, '1 failed\n[exit code: 1]'), theirs.observe(exec, '1 failed\n[exit code: 1]')]);
        steps.push([ours.chainState('a')?.loops !== undefined, theirs.chainState('a')?.loops !== undefined]);
      }
      for (const [i, [a, b]] of steps.entries()) assert.deepEqual(plain(a), plain(b), `${JSON.stringify(loops)} step ${i}`);
    }
  });
});

describe("reference command-aware scan: the agent's own scripts, native vs reference", { skip }, () => {
  it('a script written (by a redirect, an editor, a copy) then run: the same verdicts', async () => {
    const traceback =
      'Traceback (most recent call last):\n  File "/testbed/repro.py", line 3, in <module>\n    f()\nValueError: bad value\n';
    const writes = [
      "cat > /testbed/repro.py << 'EOF'\nf()\nEOF",
      'cp /testbed/base.py /testbed/repro.py 2>&1',
      'cp /testbed/base.py /testbed/repro.py 2>/dev/null',
      'echo x >> repro.py',
      'python gen.py > repro.py 2>&1',
    ];
    for (const write of writes) {
      for (const run of ['cd /testbed && python repro.py', 'python /testbed/repro.py', 'python other.py']) {
        const steps = [
          { call: { agentId: 'a', name: 'bash', argumentsJson: JSON.stringify({ command: write }) }, result: '' },
          { call: { agentId: 'a', name: 'bash', argumentsJson: JSON.stringify({ command: run }) }, result: traceback },
        ];
        await same({ loops: {} }, steps, `${write} / ${run}`);
      }
    }
    const viaEditor = [
      {
        call: {
          agentId: 'a',
          name: 'str_replace_editor',
          argumentsJson: '{"command":"create","path":"/testbed/repro_issue.py","file_text":"x"}',
        },
        result: 'File created',
      },
      { call: { agentId: 'a', name: 'bash', argumentsJson: '{"command":"cd /testbed && python repro_issue.py"}' }, result: traceback },
      { user: 'a' },
      { call: { agentId: 'a', name: 'bash', argumentsJson: '{"command":"python /testbed/repro_issue.py"}' }, result: traceback },
      { forget: 'a' },
      { call: { agentId: 'a', name: 'bash', argumentsJson: '{"command":"python /testbed/repro_issue.py"}' }, result: traceback },
    ];
    await same({}, viaEditor, 'editor');
  });
});

describe('reference loop detectors: the loops config, native vs reference', { skip }, () => {
  const BAD = [
    { poll: 1 },
    { poll: true },
    { pollQuietSeconds: -1 },
    { pollQuietSeconds: 86_401 },
    { pollQuietSeconds: false },
    'yes',
    7,
    [],
    { reread: 3 },
    { repeat: 1 },
    { repeat: true },
    { repeat: null },
    { cycle: 2.5 },
    { window: 1 },
    { window: 257 },
    { window: false },
    { maxPeriod: 9 },
    { transientMultiplier: 0 },
    { sameError: 1e10 },
    { softError: -0 },
    { reRead: Number.NaN },
    { deny: 0 },
    { deny: 'always' },
    { resultBlindRepeat: 'yes' },
    { ignoreArguments: ['Bash'] },
    { ignoreArguments: { Bash: 'description' } },
    { ignoreArguments: { Bash: [1] } },
    { exempt: 'x' },
    { exempt: [null] },
    { mutatingTools: {} },
    { multipliers: [] },
    { multipliers: { x: 0 } },
    { multipliers: { x: 101 } },
    { multipliers: { x: '2' } },
    { multipliers: { x: Infinity } },
    { window: 1, repeat: 1 },
  ];
  it('every bad value: the same message and code', () => {
    for (const loops of BAD) {
      const ours = attempt(() => new Reference({ loops }));
      const theirs = attempt(() => new native.GuardEngine({ loops }));
      assert.ok(theirs.error, `native refuses ${JSON.stringify(loops)}`);
      assert.deepEqual(ours, theirs, String(JSON.stringify(loops)));
    }
  });
  it('every config error carries the native message, code and path (structured errors)', () => {
    const deep = {};
    let at = deep;
    for (let i = 0; i < 40; i += 1) at = at.x = {};
    for (const config of [
      { repeat: { thresholds: [] } },
      { repeat: { thresholds: [2, 2] } },
      { repeat: { argumentsPreviewChars: 0 } },
      { repeat: { include: [1] } },
      { repeatt: {} },
      { loudFailure: { rules: [{ id: 'x', pattern: 'a', flags: 'g', action: 'error', message: 'm' }] } },
      {
        loudFailure: {
          rules: [
            { id: 'ok', pattern: 'a', action: 'error', message: 'm' },
            { id: 'y', pattern: 'b', action: 'nope', message: 'm' },
          ],
        },
      },
      { loudFailure: { rules: [{ id: '', pattern: 'a', action: 'error', message: 'm' }] } },
      { loudFailure: { rules: [{ id: 'z', pattern: 'a', action: 'error', message: 'm', extra: 1 }] } },
      { loudFailure: { shellTools: 'bash' } },
      { loops: { ignoreArguments: { 'a.b': [3] } } },
      { loops: { multipliers: { 'k.x': -1 } } },
      deep,
    ]) {
      const theirs = attempt(() => new native.GuardEngine(config));
      assert.ok(theirs.error, JSON.stringify(config).slice(0, 80));
      assert.deepEqual(
        attempt(() => new Reference(config)),
        theirs,
        JSON.stringify(config).slice(0, 80),
      );
    }
  });
  it('a loops error comes after a repeat error, as natively', () => {
    const config = { repeat: { thresholds: [] }, loops: { window: 1 } };
    assert.deepEqual(
      attempt(() => new Reference(config)),
      attempt(() => new native.GuardEngine(config)),
    );
  });
  it('good values load alike, and false/null/true switch as natively', async () => {
    for (const loops of [
      true,
      false,
      null,
      undefined,
      {},
      { repeat: false, cycle: false, sameError: false, softError: false, reRead: false },
      { deny: true },
      { deny: false },
      { window: 256, maxPeriod: 8, transientMultiplier: 100 },
    ]) {
      const steps = Array(5).fill({
        call: { agentId: 'a', name: 'bash', argumentsJson: PYTEST },
        result: 'same\n[exit code: 1]',
        check: true,
      });
      await same({ loops }, steps, String(JSON.stringify(loops)));
    }
  });
  it('check validates its input as natively', () => {
    for (const exec of [
      null,
      'x',
      {},
      { name: 1 },
      { name: 'bash', agentId: 3, argumentsJson: '' },
      { name: 'bash' },
      { name: 'bash', arguments: {}, argumentsJson: '{}' },
    ]) {
      for (const loops of [undefined, {}]) {
        assert.deepEqual(
          attempt(() => new Reference({ loops }).check(exec)),
          attempt(() => new native.GuardEngine({ loops }).check(exec)),
          JSON.stringify(exec),
        );
      }
    }
  });
});

describe('reference shell model: effects', () => {
  it('every case of crates/toolguard-core/src/shell/cases.tsv gets the native effect', () => {
    const cases = readFileSync(path.join(here, '..', 'crates', 'toolguard-core', 'src', 'shell', 'cases.tsv'), 'utf8')
      .split('\n')
      .filter((line) => line.trim() !== '' && !line.startsWith('#'))
      .map((line) => line.split('\t'));
    assert.ok(cases.length > 50);
    const wrong = cases
      .map(([effect, , command]) => [
        effect,
        callEffect('bash', JSON.stringify({ command: command.replaceAll('\\n', '\n') })) ?? 'none',
        command,
      ])
      .filter(([want, got]) => want !== got);
    assert.deepEqual(wrong, []);
  });
  it('tools that are not shells, by name and arguments', () => {
    const table = [
      ['read_file', '{"path":"a"}', 'read'],
      ['mcp__fs__Read_File', '{}', 'read'],
      ['str_replace_editor', '{"command":"view","path":"a"}', 'read'],
      ['str_replace_editor', '{"command":"str_replace"}', 'write'],
      ['str_replace_editor', '{}', undefined],
      ['str_replace_editor', '{"command":1,"action":"view"}', undefined],
      ['text_editor', '{"action":"view"}', 'read'],
      ['browser_navigate_back', '{}', 'navigate'],
      ['browser_click', '{}', 'write'],
      ['browser_wait_for', '{}', 'wait'],
      ['BashOutput', '{"bash_id":"b"}', 'wait'],
      ['job_output', '{"job_id":"j"}', 'wait'],
      ['write_stdin', '{"session_id":1,"chars":""}', 'wait'],
      ['Grep', '{}', 'search'],
      ['WebFetch', '{}', 'network'],
      ['Edit', '{}', 'write'],
      ['something_else', '{}', undefined],
      ['shell', '{"command":["bash","-lc","pytest -q"]}', 'test'],
      ['shell', '{"command":["git","checkout","--","a b.py"]}', 'write'],
      ['exec_command', '{"cmd":"sleep 10"}', 'wait'],
      ['bash', 'not json at all', undefined],
      ['bash', '', undefined],
    ];
    for (const [tool, args, want] of table) assert.equal(callEffect(tool, args), want, `${tool} ${args}`);
  });
});

describe('loop detectors: ignored argument keys', () => {
  // loops.rs `call_digest` wrote the arguments through serde_json (keys in
  // byte order, ryu numbers) only when an ignored key (`description` of
  // Claude Code's Bash) was there to remove: the same command with and
  // without a description then differed when its arguments held keys like
  // "10"/"9" or numbers like 1e21. Both engines now write the canonical form.
  for (const [label, Engine] of [
    ['native', native?.GuardEngine],
    ['reference', Reference],
  ])
    it(`${label}: the same Bash call with and without its description is the same call`, { skip: Engine ? false : skip }, () => {
      for (const rest of ['"env":{"10":1,"9":2}', '"n":1e21', '"x":1.5e-7']) {
        const engine = new Engine({ loops: {} });
        const withDescription = `{"command":"ls",${rest},"description":"list"}`;
        const without = `{"command":"ls",${rest}}`;
        const alarms = [withDescription, without, withDescription].map(
          (a) => engine.observe({ agentId: 'a', name: 'Bash', argumentsJson: a }, 'same')?.loop?.summary,
        );
        assert.deepEqual(alarms, [undefined, undefined, 'Bash: repeat × 3'], rest);
      }
    });
});

describe('reference engine: its data files ship', () => {
  it('the package files list every rules/*.json the reference reads (the same files as the native build embeds)', () => {
    const { files } = require('../package.json');
    for (const data of [
      'rules/builtin.json',
      'rules/programs.json',
      'rules/shell-tools.json',
      'rules/harness-tools.json',
      'rules/loops.json',
    ])
      assert.ok(files.includes(data), data);
  });
});

describe('reference loop detectors: state', () => {
  it('chainState carries the window: a restored engine goes on where the first stopped', () => {
    const call = { agentId: 'a', name: 'bash', argumentsJson: PYTEST };
    const first = new Reference({ loops: { deny: 1 } });
    first.observe(call, '1 failed\n[exit code: 1]');
    first.observe(call, '1 failed\n[exit code: 1]');
    const state = first.chainState('a');
    assert.equal(typeof state.loops, 'string');
    assert.equal(state.digest, undefined, 'no DSH chain with loops on');
    const second = new Reference({ loops: { deny: 1 } });
    second.restoreChain('a', JSON.parse(JSON.stringify(state)));
    const verdict = second.observe(call, '1 failed\n[exit code: 1]');
    assert.equal(verdict.loop.summary, 'bash: repeat × 3');
    assert.deepEqual(verdict.loop.calls, [1, 2, 3]);
    assert.equal(second.chainState('a').loops, first.observe(call, '1 failed\n[exit code: 1]') && first.chainState('a').loops);
    assert.equal(second.check(call).kind, 'repeat', 'the active loop came back too');
    assert.throws(() => second.restoreChain('a', { loops: 'L3.zz.-.-' }), { message: 'toolguard: state.loops is not a saved loop state' });
    // A state of another version (an older toolguard's) starts the agent afresh, as natively.
    second.restoreChain('a', { loops: 'L1.2.-.-' });
    assert.equal(second.chainState('a'), null);
  });
});
