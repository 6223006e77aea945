// The two shells of the hook library (crates/toolguard-hook): the native
// executable (built by `npm run build:hook` beside the .node addon) and the
// Node `toolguard hook` path (ts/adapters/hooks.mts through the addon). They
// run the same Rust code, so this is a smoke test of what each shell adds —
// reading stdin, the deadline, the exit code, the command line, finding the
// executable — over a corpus of hook events that must give byte-identical
// stdout, stderr, exit codes and state files. What the hook decides is
// tested in hooks.test.mjs and in the library's own tests.
import { spawn, spawnSync } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';

const root = join(dirname(fileURLToPath(import.meta.url)), '../..');
const bin = join(root, 'bin/toolguard.mjs');
const native = join(root, process.platform === 'win32' ? 'toolguard-hook.exe' : 'toolguard-hook');
const fixtures = join(root, '__test__/adapters/fixtures');
const scratch = mkdtempSync(join(tmpdir(), 'toolguard-native-hook-'));
after(() => rmSync(scratch, { recursive: true, force: true }));
let dirs = 0;
const freshDir = () => join(scratch, `state-${++dirs}`);
const loopsOff = join(scratch, 'loops-off.json');
writeFileSync(loopsOff, '{"loops": false}');

/** One hook process: `node` (the Node hook) or `native`. Resolves to {code, stdout, stderr}. */
function hook(kind, event, { env = {}, args = [], stdinOpen = false } = {}) {
  return new Promise((resolve, reject) => {
    const [cmd, argv] = kind === 'node' ? [process.execPath, [bin, 'hook', ...args]] : [native, args];
    const child = spawn(cmd, argv, {
      env: { ...process.env, TOOLGUARD_NATIVE_HOOK: '0', ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    // Not a speed check: a hook that never ends is the defect.
    const hang = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('error', reject);
    // A hook that fails on its command line exits without reading stdin.
    child.stdin.on('error', () => {});
    child.on('close', (code, signal) => {
      clearTimeout(hang);
      resolve({ code, signal, stdout, stderr });
    });
    if (stdinOpen) child.stdin.write(event);
    else child.stdin.end(typeof event === 'string' ? event : JSON.stringify(event));
  });
}

/** The state directory's files and their bytes (the sweep marker aside). */
function stateOf(dir) {
  if (!existsSync(dir)) return {};
  return Object.fromEntries(
    readdirSync(dir)
      .filter((f) => f !== '.swept')
      .sort()
      // Each loop-window entry keeps its call's wall time (the hook stamps it): the shells write it alike, at other moments.
      .map((f) => [
        f,
        readFileSync(join(dir, f), 'utf8').replace(/([0-9a-f]{97,98}:[0-9a-f]+:)[0-9a-f]+(:[0-9a-f]{1,2}:[01])/g, '$1<time>$2'),
      ]),
  );
}

/** Run `events` in order, each by the runner `pick(i)` gives, in one state directory. */
async function session(events, pick, opts = {}) {
  const dir = opts.dir ?? freshDir();
  const out = [];
  for (const [i, event] of events.entries()) {
    const r = await hook(pick(i), event, { ...opts, env: { TOOLGUARD_STATE_DIR: dir, ...opts.env } });
    out.push({ code: r.code, stdout: r.stdout, stderr: r.stderr });
  }
  return { out, state: stateOf(dir) };
}

/** Node alone, native alone, and the two taking turns (each starting) must print the same and leave the same files. */
async function parityIn(events, opts) {
  const node = await session(events, () => 'node', opts);
  const nat = await session(events, () => 'native', opts);
  const turns = await session(events, (i) => (i % 2 ? 'native' : 'node'), opts);
  const strip = (s) => s.out.map(({ code, stdout }) => ({ code, stdout }));
  assert.deepEqual(strip(nat), strip(node), 'native hook = Node hook');
  assert.deepEqual(strip(turns), strip(node), 'Node and native taking turns = Node alone');
  assert.deepEqual(turns.state, node.state, 'taking turns leaves the same files');
  if (opts.nativeFirst) {
    const other = await session(events, (i) => (i % 2 ? 'node' : 'native'), opts);
    assert.deepEqual(strip(other), strip(node), 'native and Node taking turns = Node alone');
  }
  assert.deepEqual(nat.state, node.state, 'same state files');
  for (const { code, stderr } of [...node.out, ...nat.out]) if (code === 0) assert.equal(stderr, '');
  return node.out;
}

/**
 * Parity with the hook's default config (the loop detectors) and with
 * `loops: false` (DSH's result-blind repeat reminder), unless the test gives
 * its own config. Resolves to the Node hook's outputs with `loops: false`
 * (`.loops`: with the detectors).
 * @returns {Promise<Awaited<ReturnType<typeof parityIn>> & { loops?: Awaited<ReturnType<typeof parityIn>> }>}
 */
async function assertParity(events, opts = {}) {
  const ownConfig = opts.args?.some((a) => a.startsWith('--config')) || opts.env?.TOOLGUARD_CONFIG !== undefined;
  if (ownConfig) return parityIn(events, opts);
  /** @type {Awaited<ReturnType<typeof parityIn>> & { loops?: Awaited<ReturnType<typeof parityIn>> }} */
  const blind = await parityIn(events, { ...opts, env: { TOOLGUARD_CONFIG: loopsOff, ...opts.env } });
  blind.loops = await parityIn(events, opts);
  return blind;
}

const bash = (session, command, stdout = 'ok\n', extra = {}) => ({
  session_id: session,
  transcript_path: '/home/u/.claude/projects/p/s.jsonl',
  cwd: '/work',
  hook_event_name: 'PostToolUse',
  tool_name: 'Bash',
  tool_input: { command, description: 'run it' },
  tool_response: { stdout, stderr: '', interrupted: false, isImage: false },
  tool_use_id: 'toolu_01',
  ...extra,
});
const prompt = (session) => ({ session_id: session, hook_event_name: 'UserPromptSubmit', prompt: 'again' });
const traceback = 'Running\nTraceback (most recent call last):\n  File "t.py", line 3, in <module>\nKeyError: 1\n';

describe('native hook executable', () => {
  it('is built beside the addon by npm run build', () => {
    assert.ok(existsSync(native), `${native} missing: run npm run build:hook`);
    assert.ok(statSync(native).mode & 0o100, 'executable');
  });

  it('replays the recorded Claude Code and Codex sessions the same in both shells', async () => {
    const claude = readFileSync(join(fixtures, 'claude-code-2.1.332.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const outs = await assertParity(claude);
    assert.equal(outs.map((o) => (o.stdout ? (JSON.parse(o.stdout).decision ?? 'context') : '.')).join(' '), '. . . context block .');
    const transcript = join(fixtures, 'codex-0.171.0.transcript.jsonl');
    const codex = readFileSync(join(fixtures, 'codex-0.171.0.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l.replace('{{transcript}}', transcript)));
    const codexOuts = await assertParity(codex);
    assert.equal(codexOuts[5].stdout, '', 'exit code 3 read from the transcript');
  });

  it('repeat reminders at 3, 5 and 8; key order; a prompt resets; subagents keep their own chains', async () => {
    const call = bash('p-rep', 'npm test');
    const outs = await assertParity(Array.from({ length: 9 }, () => call));
    assert.equal(outs.map((o) => (o.stdout ? 'x' : '.')).join(''), '..x.x..x.');
    const a = bash('p-mix', 'ls');
    const a2 = { ...a, tool_input: { description: 'run it', command: 'ls' } };
    await assertParity([a, a2, bash('p-mix', 'pwd'), a, a2, a]);
    const c = bash('p-reset', 'make');
    const sub = { ...c, agent_id: 'sub-1' };
    await assertParity([c, c, sub, prompt('p-reset'), c, sub, c, c, sub, { session_id: 'p-reset', hook_event_name: 'SessionEnd' }]);
  });

  it("SessionEnd removes the session's subagent chains, hashed (long ids) or not, and no other session's", async () => {
    const long = 's'.repeat(300);
    const sub = (session, agent) => ({ ...bash(session, 'make'), agent_id: agent });
    const end = (session, agent) => ({
      session_id: session,
      hook_event_name: 'SessionEnd',
      reason: 'exit',
      ...(agent ? { agent_id: agent } : {}),
    });
    const events = [
      bash('p-end', 'make'),
      sub('p-end', 'a'),
      sub('p-end', 'b'.repeat(200)),
      sub('p-end-2', 'a'),
      sub('p-end-2', 'b'.repeat(200)),
      bash(long, 'make'),
      sub(long, 'a'),
      sub(`${long}x`, 'a'),
      end('p-end', 'a'),
      end('p-end'),
      end(long),
    ];
    const node = await assertParity(events);
    assert.equal(node.length, events.length);
    const dir = freshDir();
    await session(events, (i) => (i % 2 ? 'node' : 'native'), { dir });
    const left = Object.keys(stateOf(dir));
    assert.equal(left.length, 3, `p-end-2's two subagents and ${long.length + 1}-char session's one: ${left}`);
    assert.ok(
      left.some((f) => /^h-[0-9a-f]{16}-[0-9a-f]{16}-\d+\.json$/.test(f)),
      'a hashed subagent name',
    );
  });

  it('error and context rules, stderr and exit codes, error responses', async () => {
    const panic = "thread 'main' panicked at src/main.rs:2:5:\nboom\n";
    const withStderr = bash('p-rules', 'build.sh');
    withStderr.tool_response.stderr = 'build.sh: line 3: pdflatex: command not found\n';
    await assertParity([
      bash('p-rules', 'python t.py', traceback),
      bash('p-rules', 'cargo run', panic),
      bash('p-rules', 'cargo run', panic),
      bash('p-rules', 'cargo run', panic),
      withStderr,
      { ...withStderr, tool_response: { ...withStderr.tool_response, exit_code: 1 } },
      { ...bash('p-rules', 'x', traceback), tool_response: { stdout: traceback, stderr: '', exitCode: 2.5 } },
      { ...bash('p-rules', 'y'), tool_response: { is_error: true, stdout: traceback } },
      { ...bash('p-rules', 'z'), tool_name: 'mcp__x', tool_response: { content: [{ type: 'text', text: traceback }] } },
      {
        ...bash('p-rules', 'z'),
        tool_response: { content: [{ type: 'text', text: 'a' }, { type: 'image' }, { type: 'text', text: traceback }] },
      },
      { ...bash('p-rules', 'w'), tool_response: { output: traceback } },
      { ...bash('p-rules', 'w'), tool_response: [traceback] },
      { ...bash('p-rules', 'w'), tool_response: null },
    ]);
  });

  it('odd identities and arguments: strings, numbers, none, lone surrogates, long ids', async () => {
    const events = [
      { ...bash('p-odd', ''), tool_input: 'ls -la' },
      { ...bash('p-odd', ''), tool_input: null },
      { ...bash('p-odd', ''), tool_input: 12.5 },
      { ...bash('p-odd', ''), tool_name: 7 },
      { ...bash('p-odd', 'x'), agent_id: 5 },
      bash('s'.repeat(300), 'x'),
      { ...bash('p-odd', 'x'), agent_id: 'a'.repeat(200) },
      bash('sessión ☃ 😀', 'x'),
    ];
    await assertParity(events);
    // Raw JSON text: JSON.stringify cannot write a lone surrogate escape from a test value.
    const lone = (command) => JSON.stringify(bash('p-lone', 'PLACEHOLDER')).replace('PLACEHOLDER', command);
    await assertParity([lone('a\\ud83d'), lone('a\\ud83d'), lone('a\\ud83d'), lone('a\\ude00b')]);
  });

  it('PostToolUseFailure: five identical failing calls draw a loop alarm for the failure event', async () => {
    const failed = (session) => ({
      session_id: session,
      hook_event_name: 'PostToolUseFailure',
      tool_name: 'Bash',
      tool_input: { command: 'pytest -x', description: 'run tests' },
      tool_use_id: 'toolu_f',
      error: 'Exit code 1\nFAILED test_x.py::test_a',
    });
    const outs = (await assertParity(Array.from({ length: 5 }, () => failed('p-fail')))).loops;
    const said = outs.map((o) => (o.stdout ? JSON.parse(o.stdout).hookSpecificOutput : undefined));
    assert.deepEqual(
      said.map((h) => h?.hookEventName ?? '.'),
      ['.', '.', 'PostToolUseFailure', 'PostToolUseFailure', 'PostToolUseFailure'],
    );
    assert.match(said[2].additionalContext, /^\[toolguard\] Loop detected: Bash was called 3 times in a row/);
  });

  it('user configs: JSON, thresholds, shell tools, include, scanValue; the YAML form gives the same answers', async () => {
    const cfg = (name, config) => {
      const file = join(scratch, name);
      writeFileSync(file, JSON.stringify({ loops: false, ...config }));
      return file;
    };
    const codex = {
      session_id: 'p-codex',
      turn_id: 't1',
      transcript_path: null,
      hook_event_name: 'PostToolUse',
      tool_name: 'exec_command',
      tool_input: { cmd: 'cargo build' },
      tool_response: 'error[E0425]: cannot find value `y` in this scope\n',
    };
    const custom = cfg('custom.json', { repeat: { thresholds: [2] }, loudFailure: { shellTools: ['exec_*'] } });
    await assertParity([codex, codex, codex], { args: ['--config', custom] });
    const include = cfg('include.json', { repeat: { include: ['Bash'] } });
    const read = {
      ...bash('p-inc', 'x'),
      tool_name: 'Read',
      tool_input: { file_path: '/a' },
      tool_response: { type: 'text', file: { content: 'a' } },
    };
    const make = bash('p-inc', 'make');
    await assertParity([make, read, make, read, make], { args: [`--config=${include}`] });
    const scan = cfg('scan.json', { loudFailure: { scanValue: true, shellTools: ['Bash', 'fetch'] } });
    const fetch = {
      ...bash('p-scan', 'x'),
      tool_name: 'fetch',
      tool_response: { 2: 'x', body: 'write failed: ENOSPC: no space left on device, write', a: 1.5 },
    };
    const yamlFile = join(scratch, 'scan.yaml');
    writeFileSync(
      yamlFile,
      '# the same config as scan.json\nloops: false\nloudFailure:\n  scanValue: true\n  shellTools:\n    - Bash\n    - fetch\n',
    );
    const outs = await assertParity([fetch, bash('p-scan', 'x', traceback)], { env: { TOOLGUARD_CONFIG: scan } });
    assert.match(outs[0].stdout, /no-space-left/, 'found in the value JSON (scanValue)');
    const fromYaml = await session([fetch, bash('p-scan', 'x', traceback)], () => 'native', { args: ['--config', yamlFile] });
    assert.deepEqual(
      fromYaml.out.map((o) => o.stdout),
      outs.map((o) => o.stdout),
    );
  });

  it("keeps state members it does not know (a newer hook's)", async () => {
    const dir = freshDir();
    const call = bash('p-keep', 'make');
    await session([call], () => 'node', { dir });
    const [file] = Object.keys(stateOf(dir));
    const saved = JSON.parse(readFileSync(join(dir, file), 'utf8'));
    writeFileSync(join(dir, file), JSON.stringify({ ...saved, window: [1, 2], chain: { ...saved.chain, extra: 'x' } }));
    const { out } = await session([call, call], (i) => (i ? 'node' : 'native'), { dir });
    assert.match(out[1].stdout, /\[toolguard\] Loop detected: Bash was called 3 times/, 'third call, three processes, two shells');
    const kept = JSON.parse(readFileSync(join(dir, file), 'utf8'));
    assert.deepEqual([kept.window, kept.chain.extra], [[1, 2], 'x']);
  });

  it('fails open the same in both shells on bad input; unknown events are silent', async () => {
    for (const input of [
      'not json',
      '{}',
      '[1]',
      'null',
      JSON.stringify({ hook_event_name: 'PostToolUse' }),
      JSON.stringify({ session_id: '', hook_event_name: 'PostToolUse' }),
    ]) {
      const [n, r] = await Promise.all(['node', 'native'].map((k) => hook(k, input, { env: { TOOLGUARD_STATE_DIR: freshDir() } })));
      assert.deepEqual([r.code, r.stdout], [1, ''], input);
      assert.deepEqual([n.code, n.stdout], [1, ''], input);
      assert.match(r.stderr, /^toolguard hook: .* \(tool result passed through unchanged\)\n$/);
    }
    await assertParity([
      { session_id: 's', hook_event_name: 'Stop' },
      { session_id: 's', hook_event_name: 'PreToolUse', tool_name: 'Bash' },
    ]);
    const help = await hook('native', '', { args: ['--help'] });
    assert.equal(help.code, 0);
    assert.match(help.stdout, /^usage: toolguard hook/);
    // The one other thing `toolguard hook` does is listed in its help.
    assert.match(help.stdout, /toolguard hook --native-path/);
  });

  it('an event without hook_event_name is said on stderr, and the call goes on (exit 0, nothing on stdout)', async () => {
    const event = JSON.stringify({
      session_id: 's',
      tool_name: 'Bash',
      tool_input: {},
      tool_response: 'Traceback (most recent call last):',
    });
    for (const shell of ['native', 'node']) {
      const r = await hook(shell, event);
      assert.deepEqual([r.code, r.stdout], [0, ''], shell);
      assert.match(r.stderr, /^toolguard hook: the event has no hook_event_name: nothing was guarded/, shell);
    }
  });

  it('reads its command line the same in both shells (positionals allowed, the same errors)', async () => {
    const stop = { session_id: 's', hook_event_name: 'Stop' };
    const argvs = [
      ['--bogus'],
      ['--bogus=1'],
      ['--config'],
      ['--config', '--help'],
      ['--help=1'],
      ['-hx'],
      ['--bogus', '--help'],
      ['-h', 'extra'],
      ['-hh'],
      ['extra'],
      ['--', '--bogus'],
      ['-'],
      ['--config='],
    ];
    for (const args of argvs) {
      const [n, r] = await Promise.all(['node', 'native'].map((k) => hook(k, stop, { args, env: { TOOLGUARD_STATE_DIR: freshDir() } })));
      assert.equal(r.code, n.code, args.join(' '));
      assert.equal(r.stderr, n.stderr, args.join(' '));
      if (n.code === 0 && n.stdout) assert.match(r.stdout, /^usage: toolguard hook/, args.join(' '));
      else assert.equal(r.stdout, n.stdout, args.join(' '));
    }
    const bogus = await hook('native', '{}', { args: ['--bogus'] });
    assert.equal(
      bogus.stderr,
      'toolguard hook: unknown option --bogus (usage: toolguard hook [--config <file.json|file.yaml>]) (tool result passed through unchanged)\n',
    );
  });

  it('a bad config fails open with one stderr line naming the file (and line)', async () => {
    const env = { TOOLGUARD_STATE_DIR: freshDir() };
    const call = bash('p-badcfg', 'x');
    const write = (name, text) => {
      const file = join(scratch, name);
      writeFileSync(file, text);
      return file;
    };
    const rule = (id, pattern) => `{"id": "${id}", "pattern": ${JSON.stringify(pattern)}, "action": "error", "message": "m"}`;
    // Both shells print the same line, byte for byte.
    /** @type {[string, RegExp, string?][]} */
    const cases = [
      [
        write('t1.json', '{"repeat": {"thresholds": [1]}}'),
        /t1\.json:1: repeat-tool-reminder: invalid threshold 1 — every threshold must be an integer >= 2/,
        'same',
      ],
      [write('t2.json', '{\n  "repeat": {\n    "thresholds": [3,]\n}}'), /t2\.json:3: not valid JSON: /],
      [write('t3.yaml', 'repeat:\n  thresholds: [3\n'), /t3\.yaml:\d+: not valid YAML: /],
      [write('t4.yml', 'repeats:\n  thresholds: [3]\n'), /t4\.yml:1: toolguard: unknown key config\.repeats/, 'same'],
      [write('t5.yaml', '- a\n- b\n'), /t5\.yaml: a config is a mapping/, 'same'],
      [write('t6.json', `{"loudFailure": {"rules": [${rule('mine', '(')}]}}`), /t6\.json:1: loud-failure: rule mine: /, 'same'],
      [join(scratch, 'absent.json'), /cannot read config .*absent\.json/],
      // The line of the key an engine error names, in JSON (tabs, several keys: the first in the file's order) and YAML.
      [
        write('t7.json', '{\n  "repeat": {\n    "thresholds": [3],\n    "treshold": 2\n  }\n}'),
        /t7\.json:4: toolguard: unknown key config\.repeat\.treshold/,
        'same',
      ],
      [write('t8.json', '{"zeta": 1, "alpha": 2}'), /t8\.json:1: toolguard: unknown key config\.zeta /, 'same'],
      [
        write('t9.json', `{\n\t"loudFailure": {\n\t\t"rules": [\n\t\t\t${rule('ok', 'x')},\n\t\t\t${rule('bad', '(')}\n\t\t]\n\t}\n}`),
        /t9\.json:5: loud-failure: rule bad: /,
        'same',
      ],
      [
        write('t10.yaml', '# limits\nrepeat:\n  argumentsPreviewChars: 0\n'),
        /t10\.yaml:3: repeat-tool-reminder: invalid argumentsPreviewChars 0/,
        'same',
      ],
      [
        write('t11.yaml', 'repeat:\n  thresholds:\n    - 3\n    - 3\n'),
        /t11\.yaml:2: repeat-tool-reminder: `thresholds` must not contain duplicates/,
        'same',
      ],
      [
        write(
          't12.yaml',
          'loudFailure:\n  rules:\n    - id: a\n      pattern: x\n      action: error\n      message: m\n    - id: b\n      pattern: 5\n',
        ),
        /t12\.yaml:7: loud-failure: rule b: `pattern` must be a string/,
        'same',
      ],
      [write('t13', '  {"repeat": {"include": "Bash"}}'), /t13:1: toolguard: config\.repeat\.include must be an array of strings/, 'same'],
      [write('t14.json', '{"repeat": {"include": ["a\\ud800"], "x": 1}}'), /t14\.json:1: toolguard: unknown key config\.repeat\.x/, 'same'],
      [write('t15.json', '{"2": 1, "1": 2}'), /t15\.json:1: toolguard: unknown key config\.2 /, 'same'],
    ];
    for (const [file, want] of cases) {
      const [r, n] = await Promise.all(['native', 'node'].map((k) => hook(k, call, { env, args: ['--config', file] })));
      assert.equal(r.code, 1, file);
      assert.equal(r.stdout, '');
      assert.equal(r.stderr.split('\n').length, 2, 'one line');
      assert.match(r.stderr, /^toolguard hook: /);
      assert.match(r.stderr, want);
      assert.match(r.stderr, /\(tool result passed through unchanged\)\n$/);
      assert.equal(n.code, 1, file);
      assert.equal(r.stderr, n.stderr, file);
    }
    // A bad user rule fails every call, also of a tool that is never scanned
    // (the hook skips compiling the built-in rules only for such tools).
    const read = { ...call, tool_name: 'Read', tool_input: { file_path: '/a' }, tool_response: { type: 'text' } };
    const [badNode, badNative] = await Promise.all(['node', 'native'].map((k) => hook(k, read, { env, args: ['--config', cases[5][0]] })));
    assert.deepEqual([badNative.code, badNode.code], [1, 1]);
    assert.match(badNative.stderr, cases[5][1]);
    // An empty or all-comment config is no config.
    const empty = await hook('native', call, { env, args: ['--config', write('empty.yaml', '# nothing yet\n')] });
    assert.deepEqual([empty.code, empty.stderr], [0, '']);
  });

  it('has a deadline in both shells: stdin held open, a held lock, a state directory under /proc', async () => {
    for (const kind of ['native', 'node']) {
      const held = await hook(kind, '{"session_id":', { stdinOpen: true, env: { TOOLGUARD_HOOK_TIMEOUT_MS: '300' } });
      assert.equal(held.code, 1, kind);
      assert.equal(
        held.stderr,
        'toolguard hook: gave up after 300 ms (TOOLGUARD_HOOK_TIMEOUT_MS) (tool result passed through unchanged)\n',
        kind,
      );
    }
    const dir = freshDir();
    const call = bash('p-lock', 'x');
    await hook('native', call, { env: { TOOLGUARD_STATE_DIR: dir } });
    const [file] = Object.keys(stateOf(dir));
    writeFileSync(join(dir, `${file}.lock`), ''); // fresh: not stale, never released
    const locked = await hook('native', call, { env: { TOOLGUARD_STATE_DIR: dir, TOOLGUARD_HOOK_TIMEOUT_MS: '400' } });
    assert.equal(locked.code, 1);
    assert.match(locked.stderr, /^toolguard hook: (timed out waiting for .*\.lock|gave up after 400 ms)/);
    assert.ok(existsSync(join(dir, `${file}.lock`)), "another process's lock is left alone");
    if (process.platform === 'linux') {
      const proc = await hook('native', call, { env: { TOOLGUARD_STATE_DIR: '/proc/toolguard' } });
      assert.equal(proc.code, 1);
      assert.match(proc.stderr, /^toolguard hook: .*\/proc\/toolguard/);
    }
  });

  it('loop detectors: repeat, cycle, same error, re-read, value results; prompts reset; subagents apart', async () => {
    const read = (session, path, content) => ({
      session_id: session,
      hook_event_name: 'PostToolUse',
      tool_name: 'Read',
      tool_input: { file_path: path },
      tool_response: { type: 'text', file: { filePath: path, content, numLines: 1 } },
      tool_use_id: 'toolu_r',
    });
    const failing = (session, command) => ({
      ...bash(session, command),
      tool_response: { stdout: '', stderr: 'Error: ENOENT: no such file or directory\n', exit_code: 1 },
    });
    const p = 'p-loops';
    const events = [
      // The same call, the same result: repeat alarms from the third on.
      ...Array.from({ length: 5 }, () => bash(p, 'npm test', '1 failing\n')),
      // The description is ignored for Bash (Claude Code rewrites it).
      { ...bash(p, 'npm test', '1 failing\n'), tool_input: { command: 'npm test', description: 'again' } },
      prompt(p),
      // A cycle of two calls whose results never change.
      ...Array.from({ length: 4 }, () => [bash(p, 'git status', 'clean\n'), bash(p, 'git diff', '')]).flat(),
      // The same error for new arguments.
      ...['a', 'b', 'c', 'd'].map((f) => failing(p, `cat ${f}.txt`)),
      // Re-reads of unchanged content, a change, then more.
      ...Array.from({ length: 4 }, () => read(p, '/w/a.ts', 'export const a = 1;\n')),
      read(p, '/w/a.ts', 'export const a = 2;\n'),
      read(p, '/w/a.ts', 'export const a = 2;\n'),
      // Results with no shell text: the value JSON is the result.
      ...Array.from({ length: 4 }, () => ({
        ...bash(p, 'x'),
        tool_name: 'mcp__db__query',
        tool_input: { q: 1 },
        tool_response: [{ rows: 0 }],
      })),
      // A subagent's loop is its own.
      ...Array.from({ length: 3 }, () => ({ ...bash(p, 'ls'), agent_id: 'sub' })),
      { session_id: p, hook_event_name: 'SessionEnd' },
    ];
    const outs = (await assertParity(events, { nativeFirst: true })).loops;
    const said = outs.map((o) => (o.stdout ? (JSON.parse(o.stdout).hookSpecificOutput?.additionalContext ?? '') : ''));
    assert.match(said[2], /^\[toolguard\] Loop detected: Bash was called 3 times in a row/);
    assert.ok(
      said.slice(7, 15).some((t) => /cycle|alternat|round/i.test(t)),
      `a cycle alarm: ${said.slice(7, 15)}`,
    );
    assert.ok(
      said.slice(15, 19).some((t) => t !== ''),
      'a same-error alarm',
    );
    assert.ok(
      said.slice(19, 23).some((t) => t !== ''),
      'a re-read alarm',
    );
    assert.ok(
      said.slice(25, 29).some((t) => t !== ''),
      'a repeat alarm on value results',
    );
    assert.deepEqual(said.slice(29, 32), ['', '', said[31]], 'the subagent starts its own window');
  });

  it('additionalContext holds the reminder, the loop alarm and a context notice, in that order', async () => {
    const panic = "thread 'main' panicked at src/main.rs:2:5:\nboom\n";
    const both = join(scratch, 'both.json');
    writeFileSync(both, JSON.stringify({ loops: { resultBlindRepeat: true } }));
    const outs = await assertParity(
      Array.from({ length: 4 }, () => bash('p-order', 'cargo run', panic)),
      { env: { TOOLGUARD_CONFIG: both } },
    );
    const context = JSON.parse(outs[2].stdout).hookSpecificOutput.additionalContext;
    const parts = context.split('\n\n');
    assert.ok(parts[0].startsWith('You are repeating the exact same tool call'), parts[0]);
    const loop = parts.findIndex((t) => t.startsWith('[toolguard] Loop detected'));
    const notice = parts.findIndex((t) => t.startsWith('[loud-failure] Bash output may show a silent failure'));
    assert.ok(loop > 0 && notice > loop, context);
  });

  it('PreToolUse with loops.deny refuses a call that continues a reminded loop, in both shells', async () => {
    const deny = join(scratch, 'deny.yaml');
    writeFileSync(deny, 'loops:\n  deny: 1\n');
    const pre = (session, command) => ({
      session_id: session,
      hook_event_name: 'PreToolUse',
      tool_name: 'Bash',
      tool_input: { command, description: 'run it' },
      tool_use_id: 'toolu_p',
    });
    const p = 'p-deny';
    const call = bash(p, 'npm test', '1 failing\n');
    const events = [
      pre(p, 'npm test'), // no state yet: allowed
      call,
      call,
      pre(p, 'npm test'),
      call, // the third call raises the first alarm
      pre(p, 'npm test'), // continues a loop reminded once: refused
      pre(p, 'npm run lint'), // another call: allowed
      call,
      pre(p, 'npm test'), // the host ran the refused call anyway: silent, and the loop still refused
      prompt(p),
      pre(p, 'npm test'),
    ];
    const outs = await assertParity(events, { env: { TOOLGUARD_CONFIG: deny }, nativeFirst: true });
    const decisions = outs.map((o) => (o.stdout ? JSON.parse(o.stdout).hookSpecificOutput : undefined));
    assert.deepEqual(
      decisions.map((d) => d?.permissionDecision ?? d?.hookEventName ?? '.'),
      ['.', '.', '.', '.', 'PostToolUse', 'deny', '.', '.', 'deny', '.', '.'],
    );
    assert.match(decisions[5].permissionDecisionReason, /^\[toolguard\] Call refused: it would continue a repeat loop/);
    // Without loops.deny (the default, or deny: false) PreToolUse says nothing and reads no state.
    const off = join(scratch, 'deny-off.json');
    writeFileSync(off, '{"loops": {"deny": false}}');
    for (const env of [{}, { TOOLGUARD_CONFIG: off }]) {
      const quiet = await assertParity([call, call, call, pre(p, 'npm test')], { env: { TOOLGUARD_CONFIG: off, ...env } });
      assert.equal(quiet[3].stdout, '');
    }
    // A bad config with deny set fails open, like every other event.
    const bad = join(scratch, 'deny-bad.json');
    writeFileSync(bad, '{"loops": {"deny": 1, "windw": 3}}');
    const [n, r] = await Promise.all(
      ['node', 'native'].map((k) => hook(k, pre(p, 'x'), { env: { TOOLGUARD_STATE_DIR: freshDir(), TOOLGUARD_CONFIG: bad } })),
    );
    assert.deepEqual([r.code, r.stdout, r.stderr], [n.code, n.stdout, n.stderr]);
    assert.equal(r.code, 1);
  });

  it('toolguard hook runs the native executable by default; TOOLGUARD_NATIVE_HOOK=0 keeps the Node hook; none found: the Node hook', async () => {
    // A native-only answer: its usage line names the executable.
    const viaBin = (env) =>
      new Promise((resolve) => {
        const child = spawn(process.execPath, [bin, 'hook', '--help'], { env: { ...process.env, ...env } });
        let out = '';
        child.stdout.on('data', (d) => (out += d));
        child.on('close', (code) => resolve({ code, out }));
      });
    for (const chosen of [undefined, '', '1', native]) {
      const env = { ...process.env };
      if (chosen === undefined) delete env.TOOLGUARD_NATIVE_HOOK;
      else env.TOOLGUARD_NATIVE_HOOK = chosen;
      const r = await new Promise((resolve) => {
        const child = spawn(process.execPath, [bin, 'hook', '--help'], { env });
        let out = '';
        child.stdout.on('data', (d) => (out += d));
        child.on('close', (code) => resolve({ code, out }));
      });
      assert.equal(r.code, 0);
      assert.match(r.out, /native executable toolguard-hook/, `TOOLGUARD_NATIVE_HOOK=${chosen}`);
    }
    const forced = await viaBin({ TOOLGUARD_NATIVE_HOOK: '0' });
    assert.equal(forced.code, 0);
    assert.doesNotMatch(forced.out, /native executable/, 'TOOLGUARD_NATIVE_HOOK=0 keeps the Node hook');
    assert.match(forced.out, /^usage: toolguard hook/);
    // An executable that cannot start (stdin still unread): the Node hook answers the event.
    const missing = await hook('node', bash('p-missing', 'x', traceback), {
      env: { TOOLGUARD_NATIVE_HOOK: join(scratch, 'no-such-hook'), TOOLGUARD_STATE_DIR: freshDir() },
    });
    assert.equal(missing.code, 0, missing.stderr);
    assert.equal(JSON.parse(missing.stdout).decision, 'block');
    // The launcher finds the executable in the platform package when the package root has none.
    const pkg = join(scratch, 'install');
    const platform = join(
      pkg,
      'node_modules',
      `toolguard-${process.platform}-${process.arch}${process.platform === 'linux' ? '-gnu' : process.platform === 'win32' ? '-msvc' : ''}`,
    );
    mkdirSync(join(pkg, 'node_modules/toolguard/bin'), { recursive: true });
    mkdirSync(platform, { recursive: true });
    writeFileSync(join(platform, 'package.json'), '{"name": "platform"}');
    copyFileSync(native, join(platform, basename(native)));
    chmodSync(join(platform, basename(native)), 0o755);
    const launcher = join(pkg, 'node_modules/toolguard/bin/toolguard.mjs');
    copyFileSync(bin, launcher);
    mkdirSync(join(pkg, 'node_modules/toolguard/dist/ts/cli'), { recursive: true });
    writeFileSync(join(pkg, 'node_modules/toolguard/dist/ts/cli/main.mjs'), '');
    const found = spawnSync(process.execPath, [launcher, 'hook', '--native-path'], {
      encoding: 'utf8',
      env: { ...process.env, TOOLGUARD_NATIVE_HOOK: '' },
    });
    assert.equal(found.stdout.trim(), join(platform, basename(native)));
  });
});
