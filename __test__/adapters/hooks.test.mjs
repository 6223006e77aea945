// `toolguard hook` as Claude Code / Codex run it: a fresh process per event,
// the documented JSON on stdin, JSON (or nothing) on stdout. Expected verdicts
// come from an in-process GuardEngine fed the same calls, so the test checks
// the hook's translation and its chain persistence, not copied strings.
// `toolguard hook` runs the native executable when one is built (the
// default); native-hook.test.mjs holds it to the Node hook event for event.
import { spawn } from 'node:child_process';
import { chownSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { GuardEngine } from 'toolguard';
import { HOOK_SHELL_TOOLS, hookOutputFor, hostOf, runHook, stateDir, stateFileName } from 'toolguard/hooks';
import { PassThrough, Readable } from 'node:stream';
import { shellText } from '../../dist/reference/shell-result.mjs';
import { referenceHookOutput } from '../../dist/reference/hook-output.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '../..');
// The command users register: `toolguard hook` (bin/toolguard.mjs dispatches it).
const bin = join(root, 'bin/toolguard.mjs');
const scratch = mkdtempSync(join(tmpdir(), 'toolguard-hooks-test-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

let dirs = 0;
const freshDir = () => join(scratch, `state-${++dirs}`);
// DSH's result-blind repeat reminder instead of the loop detectors (on by default).
const DSH_EXACT = { loops: false };
const dshExactFile = join(scratch, 'dsh-exact.json');
writeFileSync(dshExactFile, JSON.stringify(DSH_EXACT));
const dshArgs = ['--config', dshExactFile];

/** Run one hook process; resolves to {code, stdout, stderr, json}. */
function hook(event, { env = {}, args = [] } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, 'hook', ...args], { env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr, json: stdout.trim() ? JSON.parse(stdout) : null }));
    child.stdin.end(typeof event === 'string' ? event : JSON.stringify(event));
  });
}

// Claude Code's documented PostToolUse input for its Bash tool.
const bash = (session, command, stdout = 'ok\n', extra = {}) => ({
  session_id: session,
  transcript_path: '/home/u/.claude/projects/p/s.jsonl',
  cwd: '/work',
  permission_mode: 'default',
  hook_event_name: 'PostToolUse',
  tool_name: 'Bash',
  tool_input: { command, description: 'run it' },
  tool_response: { stdout, stderr: '', interrupted: false, isImage: false },
  tool_use_id: 'toolu_01',
  ...extra,
});
const prompt = (session) => ({ session_id: session, hook_event_name: 'UserPromptSubmit', prompt: 'try again', cwd: '/work' });

/** What the hook must print for this sequence of calls, computed with the engine in-process. */
function expected(events, config = {}) {
  const engine = GuardEngine.withLoopsByDefault(config);
  return events.map((e) => {
    if (e.hook_event_name === 'UserPromptSubmit') {
      engine.reset('a');
      return null;
    }
    const text = shellText(e.tool_response);
    const verdict = engine.observe({ agentId: 'a', name: e.tool_name, arguments: e.tool_input }, { text, value: e.tool_response });
    return hookOutputFor(verdict, text, hostOf(e));
  });
}

async function runAll(events, opts) {
  const outs = [];
  for (const e of events) {
    const r = await hook(e, opts);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stderr, '');
    outs.push(r.json);
  }
  return outs;
}

describe('toolguard hook (child process)', () => {
  it('replays the hook events a real Claude Code 2.1.332 session sent (recorded by e2e/claude-code.mjs)', async () => {
    const events = readFileSync(join(root, '__test__/adapters/fixtures/claude-code-2.1.332.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    assert.deepEqual(
      events.map((e) => e.hook_event_name),
      ['UserPromptSubmit', 'PostToolUse', 'PostToolUse', 'PostToolUse', 'PostToolUse', 'SessionEnd'],
    );
    const dir = freshDir();
    const outs = await runAll(events, { env: { TOOLGUARD_STATE_DIR: dir } });
    assert.deepEqual(outs.slice(0, 5), expected(events.slice(0, 5)));
    assert.deepEqual(outs.map((o) => (o ? (o.decision ?? 'context') : '.')).join(' '), '. . . context block .');
    // Claude Code strips the trailing newline of stdout; the excerpt and line still match.
    assert.match(outs[4].reason, /^\[loud-failure\] Bash reported no error but its output shows it failed:\n- python-traceback \(line 1\)/);
    assert.equal(readdirSync(dir).filter((f) => f.endsWith('.json')).length, 0, 'SessionEnd removed the state');
  });

  it('replays the hook events a real Codex 0.171.0 session sent: exit code from the transcript, full text for a block', async () => {
    const fixtures = join(root, '__test__/adapters/fixtures');
    const transcript = join(fixtures, 'codex-0.171.0.transcript.jsonl');
    const events = readFileSync(join(fixtures, 'codex-0.171.0.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l.replace('{{transcript}}', transcript)));
    assert.deepEqual(
      events.map((e) => e.hook_event_name),
      ['UserPromptSubmit', 'PostToolUse', 'PostToolUse', 'PostToolUse', 'PostToolUse', 'PostToolUse'],
    );
    assert.ok(
      events.every((e) => typeof e.turn_id === 'string'),
      'Codex sends turn_id',
    );
    const outs = await runAll(events, { env: { TOOLGUARD_STATE_DIR: freshDir() } });
    assert.deepEqual(outs.map((o) => (o ? (o.decision ?? 'context') : '.')).join(' '), '. . . context block .');
    // Codex replaces a blocked output with the reason: the reason keeps the output.
    const out = events[4].tool_response;
    const failure = GuardEngine.withLoopsByDefault().observe({ name: 'Bash', argumentsJson: '{}' }, { text: out }).failure.text;
    assert.equal(outs[4].reason, failure);
    assert.ok(failure.endsWith(`Original output:\n${out}`));
    // The last call printed the same traceback but exited 3 (only the transcript says so): silent.
    assert.equal(events[5].tool_response, out);
    assert.equal(outs[5], null);
    // Without the transcript the hook cannot know the exit code: the output still
    // shows a failure, but the reason must not claim the command exited 0.
    const [blind] = await runAll([{ ...events[5], transcript_path: join(fixtures, 'missing.jsonl'), session_id: 'codex-blind' }], {
      env: { TOOLGUARD_STATE_DIR: freshDir() },
    });
    assert.equal(blind.decision, 'block');
    assert.doesNotMatch(blind.reason, /exited 0/);
    assert.match(blind.reason, /^\[loud-failure\] Bash reported no error but its output shows it failed:\n- /);
    assert.equal(blind.reason, failure);
  });

  it('persists the repeat chain across processes: reminders at 3, 5 and 8, silent after', async () => {
    const events = Array.from({ length: 9 }, () => bash('s-repeat', 'npm test'));
    const env = { TOOLGUARD_STATE_DIR: freshDir() };
    const outs = await runAll(events, { env, args: dshArgs });
    assert.deepEqual(outs, expected(events, DSH_EXACT));
    assert.deepEqual(outs.map((o) => (o ? 'x' : '.')).join(''), '..x.x..x.');
    assert.match(
      outs[4].hookSpecificOutput.additionalContext,
      /^Repeated tool call detected:\n- tool: Bash\n- consecutive_calls: 5\n- arguments: \{"command":"npm test","description":"run it"\}/,
    );
    assert.equal(outs[2].hookSpecificOutput.hookEventName, 'PostToolUse');
    assert.equal(outs[2].decision, undefined);
  });

  it('a different call restarts the count; key order of the arguments does not matter', async () => {
    const a = bash('s-mix', 'ls');
    const b = bash('s-mix', 'pwd');
    const a2 = { ...a, tool_input: { description: 'run it', command: 'ls' } };
    const events = [a, a2, b, a, a2, a];
    const outs = await runAll(events, { env: { TOOLGUARD_STATE_DIR: freshDir() }, args: dshArgs });
    assert.deepEqual(outs, expected(events, DSH_EXACT));
    assert.deepEqual(outs.map(Boolean), [false, false, false, false, false, true]);
  });

  it('UserPromptSubmit resets the session chain; other sessions and subagents keep theirs', async () => {
    const env = { TOOLGUARD_STATE_DIR: freshDir() };
    const call = bash('s-reset', 'make');
    await runAll([call, call], { env });
    // Another session and a subagent of this one, interleaved: their own chains.
    await runAll([bash('s-other', 'make'), { ...call, agent_id: 'sub-1' }], { env });
    assert.deepEqual(await runAll([prompt('s-reset')], { env }), [null]);
    const outs = await runAll([call, call], { env });
    assert.deepEqual(outs, [null, null], 'the prompt reset the chain, so the 4th call is only the 2nd');
    const third = await runAll([call], { env });
    assert.equal(third[0].hookSpecificOutput.additionalContext, expected([call, call, call])[2].hookSpecificOutput.additionalContext);
    // The subagent chain was not reset and is at 1: two more calls reach 3.
    const sub = await runAll(
      [
        { ...call, agent_id: 'sub-1' },
        { ...call, agent_id: 'sub-1' },
      ],
      { env },
    );
    assert.equal(sub[0], null);
    assert.ok(sub[1]?.hookSpecificOutput, 'subagent chain reached its 3rd call');
  });

  it('an error rule blocks with the failure header and the original output; Bash is a shell tool', async () => {
    assert.ok(
      HOOK_SHELL_TOOLS.some((tool) => tool.toLowerCase() === 'bash'),
      'shell tools are compared without case',
    );
    const out = 'Running tests\nTraceback (most recent call last):\n  File "t.py", line 3, in <module>\n    main()\nKeyError: \'x\'\n';
    const events = [bash('s-err', 'python t.py | tail -n 20', out)];
    const [got] = await runAll(events, { env: { TOOLGUARD_STATE_DIR: freshDir() } });
    assert.deepEqual(got, expected(events)[0]);
    assert.equal(got.decision, 'block');
    assert.ok(got.reason.startsWith('[loud-failure] Bash reported no error but its output shows it failed:\n'), got.reason);
    // The model sees the tool output right above the reason: the reason is the
    // engine's failure text without its verbatim copy of the output.
    const failure = GuardEngine.withLoopsByDefault().observe({ name: 'Bash', argumentsJson: '{}' }, { text: out }).failure.text;
    assert.equal(`${got.reason}\nOriginal output:\n${out}`, failure);
    assert.doesNotMatch(got.reason, /Original output/);
    assert.equal(got.hookSpecificOutput, undefined);
  });

  it('a script the agent wrote in an earlier event (another process) is its own: its traceback is context, not a block, also after the user spoke', async () => {
    const env = { TOOLGUARD_STATE_DIR: freshDir() };
    const out = 'Traceback (most recent call last):\n  File "/work/repro.py", line 3, in <module>\n    f()\nValueError: bad value\n';
    const run = bash('s-own', 'python3 repro.py 2>&1 | tail -5', out);
    const write = {
      ...bash('s-own', ''),
      tool_name: 'Write',
      tool_input: { file_path: '/work/repro.py', content: 'from m import f\nf()\n' },
      tool_response: { type: 'create', filePath: '/work/repro.py' },
    };
    const [before] = await runAll([{ ...run, session_id: 's-other' }], { env });
    assert.equal(before.decision, 'block', 'a script the agent did not write: the hidden traceback is an error');
    const outs = await runAll([write, run, prompt('s-own'), run], { env });
    for (const o of [outs[1], outs[3]]) {
      assert.equal(o.decision, undefined, JSON.stringify(o));
      assert.match(o.hookSpecificOutput.additionalContext, /python-traceback/);
    }
  });

  it("the reference twin of the hook library's verdict translation answers as the library does", () => {
    const engine = GuardEngine.withLoopsByDefault({ loops: false });
    const traceback = 'Traceback (most recent call last):\n  File "t.py", line 3, in <module>\nKeyError: 1\n';
    const panic = "thread 'main' panicked at src/main.rs:2:5:\nboom\n";
    /** @type {Array<[import('toolguard').GuardVerdict | null, string]>} */
    const cases = [
      ['python t.py | tail', traceback],
      ['cargo run', panic],
      ['cargo run', panic],
      ['cargo run', panic],
      ['ls', 'a\n'],
    ].map(([command, text]) => [engine.observe({ agentId: 'a', name: 'Bash', arguments: { command } }, { text }), text]);
    assert.ok(cases.some(([v]) => v?.failure?.action === 'error'));
    assert.ok(cases.some(([v]) => v?.failure?.action === 'context' && v.reminder));
    let compared = 0;
    for (const [verdict, text] of cases) {
      if (!verdict) continue;
      for (const host of /** @type {const} */ (['claude-code', 'codex'])) {
        for (const event of /** @type {const} */ (['PostToolUse', 'PostToolUseFailure'])) {
          for (const scanned of [text, undefined]) {
            assert.deepEqual(referenceHookOutput(verdict, scanned, host, event), hookOutputFor(verdict, scanned, host, event));
            compared++;
          }
        }
      }
    }
    assert.ok(compared >= 24, `${compared}`);
    assert.equal(hookOutputFor(null), null);
  });

  it('a context rule and a reminder share additionalContext (reminder first), no decision', async () => {
    const panic = "running 1 test\nthread 'main' panicked at src/main.rs:2:5:\nboom\nnote: run with `RUST_BACKTRACE=1`\n";
    // Unpiped: behind `| head` the hidden status makes the panic an error.
    const call = bash('s-ctx', 'cargo run', panic);
    const events = [call, call, call];
    const outs = await runAll(events, { env: { TOOLGUARD_STATE_DIR: freshDir() }, args: dshArgs });
    assert.deepEqual(outs, expected(events, DSH_EXACT));
    assert.equal(outs[0].decision, undefined);
    assert.match(outs[0].hookSpecificOutput.additionalContext, /^\[loud-failure\] Bash output may show a silent failure:\n- rust-panic/);
    const parts = outs[2].hookSpecificOutput.additionalContext.split('\n\n');
    assert.ok(parts[0].startsWith('You are repeating'), 'reminder first');
    assert.ok(parts[1].startsWith('[loud-failure]'), 'notice after');
  });

  it('stderr is scanned in the DSH shell format; a non-zero exit code silences success-only rules', async () => {
    const withStderr = bash('s-stderr', 'build.sh', 'done\n');
    withStderr.tool_response.stderr = 'build.sh: line 3: pdflatex: command not found\n';
    const failed = {
      ...withStderr,
      tool_input: { command: 'build.sh --again' },
      tool_response: { ...withStderr.tool_response, exit_code: 1 },
    };
    const events = [withStderr, failed];
    const outs = await runAll(events, { env: { TOOLGUARD_STATE_DIR: freshDir() } });
    assert.deepEqual(outs, expected(events));
    assert.ok(outs[0], 'command not found on stderr is reported');
    assert.match(JSON.stringify(outs[0]), /command not found/);
  });

  it('Codex-style string tool_response and a user config (--config): custom shell tool and thresholds', async () => {
    const cfgFile = join(scratch, 'cfg.json');
    const config = { repeat: { thresholds: [2] }, loudFailure: { shellTools: ['exec_*'] }, loops: false };
    writeFileSync(cfgFile, JSON.stringify(config));
    const codex = {
      session_id: 'codex-1',
      turn_id: 't1',
      transcript_path: null,
      cwd: '/work',
      hook_event_name: 'PostToolUse',
      model: 'gpt-5',
      tool_name: 'exec_command',
      tool_input: { cmd: 'cargo build' },
      tool_response: 'Compiling x\nerror[E0425]: cannot find value `y` in this scope\n',
    };
    const events = [codex, codex];
    const outs = await runAll(events, { env: { TOOLGUARD_STATE_DIR: freshDir() }, args: ['--config', cfgFile] });
    // No transcript: the exit code is unknown, and the engine's header claims none.
    assert.deepEqual(outs, expected(events, config));
    assert.match(outs[0].reason, /^\[loud-failure\] exec_command reported no error but its output shows it failed:/);
    assert.ok(outs[1].hookSpecificOutput.additionalContext.startsWith('You are repeating'), 'threshold 2 from the config');
  });

  it('calls outside repeat.include are transparent to the chain', async () => {
    const cfgFile = join(scratch, 'include.json');
    const config = { repeat: { include: ['Bash'] } };
    writeFileSync(cfgFile, JSON.stringify(config));
    const read = {
      ...bash('s-inc', 'x'),
      tool_name: 'Read',
      tool_input: { file_path: '/a' },
      tool_response: { type: 'text', file: { content: 'a' } },
    };
    const call = bash('s-inc', 'make');
    const events = [call, read, call, read, call];
    const outs = await runAll(events, { env: { TOOLGUARD_STATE_DIR: freshDir() }, args: [`--config=${cfgFile}`] });
    assert.deepEqual(outs, expected(events, config));
    assert.ok(outs[4]?.hookSpecificOutput, 'the third Bash call is the third in the chain');
  });

  it('loop detectors by default: the window persists across processes, the alarm recurs at every call', async () => {
    const env = { TOOLGUARD_STATE_DIR: freshDir() };
    const out = 'searched 12 files in 0.31s: no match\n';
    // Claude Code rewrites the Bash description on every call: compared without it.
    // The timing differs from the second call on (a first occurrence compares raw).
    const events = ['Run the tests', 'Re-run the tests', 'Check again', 'One more time'].map((d, i) =>
      bash('s-loops', 'rg legacy_mean', out.replace('0.31', `0.3${Math.max(i, 1)}`), {
        tool_input: { command: 'rg legacy_mean', description: d },
      }),
    );
    const outs = await runAll(events, { env });
    assert.deepEqual(outs, expected(events));
    assert.deepEqual(outs.map((o) => (o ? 'x' : '.')).join(''), '..xx');
    assert.match(
      outs[2].hookSpecificOutput.additionalContext,
      /^\[toolguard\] Loop detected: Bash was called 3 times in a row .*\(calls #1, #2, #3\)/,
    );
    assert.match(outs[3].hookSpecificOutput.additionalContext, /4 times in a row/);
    // Polling with a changing result: no alarm.
    const polls = Array.from({ length: 6 }, (_, i) => bash('s-poll', 'kubectl get pods', `web-1  ${i}/3 Ready`));
    assert.deepEqual(await runAll(polls, { env }), Array(6).fill(null));
  });

  it('a quiet poll is judged by wall time too: nine quick BashOutput polls are waiting, not a loop', async () => {
    // The hook stamps each call with the time (kept in the state file), so the
    // poll rule's pollQuietSeconds (300) applies as in the audit's logs; before,
    // a live host judged polls by count alone and the 8th was "stuck".
    const env = { TOOLGUARD_STATE_DIR: freshDir() };
    const polls = Array.from({ length: 9 }, () => ({
      ...bash('s-quiet', 'x'),
      tool_name: 'BashOutput',
      tool_input: { bash_id: 'b1' },
      tool_response: { stdout: '', stderr: '', status: 'running' },
    }));
    assert.notEqual(expected(polls)[7], null, 'without times the count alone decides');
    assert.deepEqual(await runAll(polls, { env }), Array(9).fill(null));
  });

  it('a state file written before the loop window existed still restores', async () => {
    const dir = freshDir();
    const env = { TOOLGUARD_STATE_DIR: dir };
    const call = bash('s-old', 'make');
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    writeFileSync(join(dir, stateFileName('s-old')), JSON.stringify({ v: 1, kind: 'engine', chain: { digest: '0'.repeat(32), count: 2 } }));
    const [first] = await runAll([call], { env, args: dshArgs });
    assert.equal(first, null, 'another digest: the chain restarts, no error');
    assert.deepEqual(await runAll([call], { env }), [null], 'loops on with an old file: restored, no error');
  });

  it('PreToolUse with loops.deny: denies (permissionDecision "deny") a call that would continue a reminded loop, across processes', async () => {
    const env = { TOOLGUARD_STATE_DIR: freshDir() };
    const cfgFile = join(scratch, 'deny.json');
    writeFileSync(cfgFile, JSON.stringify({ loops: { deny: 2 } }));
    const args = ['--config', cfgFile];
    const post = bash('s-deny', 'grep -rn legacy_mean src/', '');
    const pre = { ...post, hook_event_name: 'PreToolUse', tool_response: undefined };
    const seen = [];
    for (let i = 0; i < 4; i++) {
      const [decision] = await runAll([pre], { env, args });
      seen.push(decision ? 'deny' : 'allow');
      if (!decision) await runAll([post], { env, args });
    }
    assert.deepEqual(seen, ['allow', 'allow', 'allow', 'allow'], 'reminders at calls 3 and 4, no deny before two');
    // Two reminders given (calls 3 and 4): the 5th is refused, and stays refused (a deny resets nothing).
    const [denied] = await runAll([pre], { env, args });
    assert.equal(denied.hookSpecificOutput.hookEventName, 'PreToolUse');
    assert.equal(denied.hookSpecificOutput.permissionDecision, 'deny');
    assert.match(
      denied.hookSpecificOutput.permissionDecisionReason,
      /^\[toolguard\] Call refused: it would continue a repeat loop \(since call #1\) that has already had 2 reminders/,
    );
    const [again] = await runAll([pre], { env, args });
    assert.equal(again.hookSpecificOutput.permissionDecision, 'deny');
    // Another call is allowed; without loops.deny nothing is ever refused.
    assert.deepEqual(await runAll([{ ...pre, tool_input: { command: 'ls' } }], { env, args }), [null]);
    assert.deepEqual(await runAll([pre], { env }), [null]);
  });

  it('parallel hook processes of one session lose no update', async () => {
    const env = { TOOLGUARD_STATE_DIR: freshDir() };
    const call = bash('s-par', 'curl -s localhost');
    const outs = (await Promise.all(Array.from({ length: 7 }, () => hook(call, { env, args: dshArgs })))).map((r) => {
      assert.equal(r.code, 0, r.stderr);
      return r.json;
    });
    const texts = outs.filter(Boolean).map((o) => o.hookSpecificOutput.additionalContext);
    const want = expected(
      Array.from({ length: 8 }, () => call),
      DSH_EXACT,
    );
    // Runs 3 and 5 each produced their reminder exactly once, in some process.
    assert.deepEqual(texts.sort(), [want[2], want[4]].map((o) => o.hookSpecificOutput.additionalContext).sort());
    const [eighth] = await runAll([call], { env, args: dshArgs });
    assert.deepEqual(eighth, want[7], 'all 7 parallel updates were kept: the next call is the 8th');
  });

  it('breaks a stale lock left by a crashed process', async () => {
    const dir = freshDir();
    const env = { TOOLGUARD_STATE_DIR: dir };
    const call = bash('s-stale', 'true');
    await runAll([call], { env });
    const [state] = readdirSync(dir).filter((f) => f.endsWith('.json'));
    const lock = join(dir, `${state}.lock`);
    writeFileSync(lock, '');
    const old = (Date.now() - 60_000) / 1000;
    utimesSync(lock, old, old);
    const outs = await runAll([call, call], { env });
    assert.deepEqual(outs, expected([call, call, call]).slice(1));
    assert.equal(existsSync(lock), false);
  });

  it('removes state files untouched for longer than the TTL, keeps fresh ones', async () => {
    const dir = freshDir();
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const stale = join(dir, '0123456789abcdef0123456789abcdef.json');
    const fresh = join(dir, 'fedcba9876543210fedcba9876543210.json');
    writeFileSync(stale, '{"v":1,"kind":"replay","key":"x","count":1}');
    writeFileSync(fresh, '{"v":1,"kind":"replay","key":"y","count":1}');
    const eightDays = (Date.now() - 8 * 86_400_000) / 1000;
    utimesSync(stale, eightDays, eightDays);
    await runAll([prompt('s-sweep')], { env: { TOOLGUARD_STATE_DIR: dir } });
    assert.equal(existsSync(stale), false);
    assert.equal(existsSync(fresh), true);
  });

  it('SessionEnd deletes the session state', async () => {
    const dir = freshDir();
    const env = { TOOLGUARD_STATE_DIR: dir };
    await runAll([bash('s-end', 'x')], { env });
    assert.equal(readdirSync(dir).filter((f) => f.endsWith('.json')).length, 1);
    await runAll([{ session_id: 's-end', hook_event_name: 'SessionEnd', reason: 'exit' }], { env });
    assert.equal(readdirSync(dir).filter((f) => f.endsWith('.json')).length, 0);
  });

  it("SessionEnd also deletes the state of the session's subagents (long ids too), not other sessions'", async () => {
    const dir = freshDir();
    const env = { TOOLGUARD_STATE_DIR: dir };
    const long = 'a'.repeat(150);
    await runAll(
      [
        bash('s-tree', 'x'),
        bash('s-tree', 'x', 'ok\n', { agent_id: 'sub-1' }),
        bash('s-tree', 'x', 'ok\n', { agent_id: long }),
        bash('s-tree-2', 'x'),
        bash('s-tree-2', 'x', 'ok\n', { agent_id: 'sub-1' }),
      ],
      { env },
    );
    const states = () =>
      readdirSync(dir)
        .filter((f) => f.endsWith('.json'))
        .sort();
    assert.equal(states().length, 5);
    await runAll([{ session_id: 's-tree', hook_event_name: 'SessionEnd', reason: 'exit' }], { env });
    assert.deepEqual(states(), [stateFileName('s-tree-2'), stateFileName('s-tree-2\0sub-1')].sort());
  });

  it('a YAML config (flow style, as in the README) via --config and TOOLGUARD_CONFIG; errors name file and line', async () => {
    const yaml = join(scratch, 'guard.yaml');
    writeFileSync(yaml, '# hook config\nloops: false\nrepeat: { thresholds: [2] }\nloudFailure:\n  shellTools: [Bash]\n');
    const events = [bash('s-yaml', 'ls'), bash('s-yaml', 'ls')];
    const want = expected(events, { loops: false, repeat: { thresholds: [2] }, loudFailure: { shellTools: ['Bash'] } });
    assert.ok(want[1]);
    assert.deepEqual(await runAll(events, { env: { TOOLGUARD_STATE_DIR: freshDir() }, args: ['--config', yaml] }), want);
    assert.deepEqual(await runAll(events, { env: { TOOLGUARD_STATE_DIR: freshDir(), TOOLGUARD_CONFIG: yaml } }), want);
    const bad = join(scratch, 'bad.yaml');
    writeFileSync(bad, 'repeat:\n  thresholds: [3]\n  treshold: 4\n');
    const r = await hook(bash('s-yaml-bad', 'x'), { env: { TOOLGUARD_STATE_DIR: freshDir() }, args: ['--config', bad] });
    assert.equal(r.code, 1);
    assert.match(r.stderr, /bad\.yaml:3: toolguard: unknown key config\.repeat\.treshold/);
  });

  it('never hangs: a state directory that cannot be created (/proc) fails open at once', {
    skip: process.platform !== 'linux' && 'needs /proc',
  }, async () => {
    const started = Date.now();
    const r = await hook(bash('s-proc', 'x'), { env: { TOOLGUARD_STATE_DIR: '/proc/toolguard-test/state' } });
    assert.equal(r.code, 1);
    assert.match(r.stderr, /^toolguard hook: cannot create the state directory \/proc\/toolguard-test\/state: .*passed through unchanged/);
    assert.ok(Date.now() - started < 4000, `took ${Date.now() - started} ms`);
  });

  it('never hangs: stdin left open past TOOLGUARD_HOOK_TIMEOUT_MS fails open', async () => {
    const started = Date.now();
    const r = await new Promise((resolve) => {
      const child = spawn(process.execPath, [bin, 'hook'], {
        env: { ...process.env, TOOLGUARD_STATE_DIR: freshDir(), TOOLGUARD_HOOK_TIMEOUT_MS: '300' },
        stdio: ['pipe', 'pipe', 'pipe'],
      });
      let stderr = '';
      child.stderr.on('data', (d) => (stderr += d));
      child.stdin.write('{"session_id":'); // and never closed
      child.on('close', (code) => resolve({ code, stderr }));
    });
    assert.equal(r.code, 1);
    assert.match(r.stderr, /^toolguard hook: gave up after 300 ms \(TOOLGUARD_HOOK_TIMEOUT_MS\)/);
    assert.ok(Date.now() - started < 10_000);
  });

  it('a state directory of another user: the error says what to do, and does not say "set" a variable that is set', {
    skip: process.getuid?.() !== 0 && 'needs root to chown',
  }, async () => {
    const dir = freshDir();
    mkdirSync(dir);
    chownSync(dir, 4242, 4242);
    const r = await hook(bash('s-owner', 'x'), { env: { TOOLGUARD_STATE_DIR: dir } });
    assert.equal(r.code, 1);
    assert.match(r.stderr, /belongs to uid 4242, not to this user \(uid 0\); point TOOLGUARD_STATE_DIR at a directory of your own/);
    assert.doesNotMatch(r.stderr, /set TOOLGUARD_STATE_DIR/);
  });

  it('documented state directory: TOOLGUARD_STATE_DIR, else $XDG_STATE_HOME/toolguard, else tmpdir/toolguard-<uid>', async () => {
    assert.equal(stateDir({ TOOLGUARD_STATE_DIR: '/x/y', XDG_STATE_HOME: '/s' }), '/x/y');
    assert.equal(stateDir({ XDG_STATE_HOME: '/s' }), '/s/toolguard');
    assert.equal(stateDir({}), join(tmpdir(), `toolguard-${process.getuid()}`));
    const xdg = join(scratch, 'xdg');
    const env = { TOOLGUARD_STATE_DIR: '', XDG_STATE_HOME: xdg };
    await runAll([bash('s-xdg', 'x')], { env });
    assert.equal(readdirSync(join(xdg, 'toolguard')).filter((f) => f.endsWith('.json')).length, 1);
  });

  it('runHook in-process with streams (how another CLI embeds it)', async () => {
    const out = new PassThrough();
    const err = new PassThrough();
    const env = { TOOLGUARD_STATE_DIR: freshDir() };
    const call = bash('s-stream', 'ls');
    for (let i = 0; i < 3; i++) {
      assert.equal(await runHook([], Readable.from([JSON.stringify(call)]), out, err, env), 0);
    }
    out.end();
    const lines = (await out.toArray()).join('').trim().split('\n');
    assert.deepEqual(
      lines.map((l) => JSON.parse(l)),
      [expected([call, call, call])[2]],
    );
    assert.equal(await runHook(['--bogus'], Readable.from(['{}']), out, err, env), 1);
    err.end();
    assert.match((await err.toArray()).join(''), /unknown option --bogus/);
  });

  it('state file names: reversible for normal ids (no two sessions share a file), hashed when too long', () => {
    assert.notEqual(stateFileName('a/b'), stateFileName('a_b'));
    assert.match(stateFileName('0b6c3a7e-1f7d-4c55-9a53-2f7f5b7d9e11'), /^s-[A-Za-z0-9_-]+\.json$/);
    assert.match(stateFileName('x'.repeat(500)), /^h-[0-9a-f]{16}-500\.json$/);
    assert.notEqual(stateFileName('x'.repeat(500)), stateFileName(`${'x'.repeat(499)}y`));
  });

  it('fails open: bad input is a non-blocking error (exit 1, stderr, no decision)', async () => {
    const env = { TOOLGUARD_STATE_DIR: freshDir() };
    for (const input of ['not json', '{}', JSON.stringify({ hook_event_name: 'PostToolUse' })]) {
      const r = await hook(input, { env });
      assert.equal(r.code, 1);
      assert.equal(r.stdout, '');
      assert.match(r.stderr, /^toolguard hook: .*passed through unchanged/);
    }
    const cfgFile = join(scratch, 'bad.json');
    writeFileSync(cfgFile, JSON.stringify({ repeat: { thresholds: [1] } }));
    const r = await hook(bash('s-bad', 'x'), { env, args: ['--config', cfgFile] });
    assert.equal(r.code, 1);
    assert.match(r.stderr, /repeat-tool-reminder: invalid threshold 1/);
    // Events the guard does not use are accepted silently.
    const other = await hook({ session_id: 's', hook_event_name: 'Stop' }, { env });
    assert.deepEqual([other.code, other.stdout, other.stderr], [0, '', '']);
  });
});
