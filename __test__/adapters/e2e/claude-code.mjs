// End-to-end check of `toolguard hook` inside the real Claude Code CLI.
// `npm test` runs it (__test__/adapters/claude-code-e2e.test.mjs) with the
// binary the devDependency ships. Point it at a Claude Code binary: the devDependency
// @anthropic-ai/claude-agent-sdk ships one (0.3.333: Claude Code 2.1.333, in
// $PWD/node_modules/@anthropic-ai/claude-agent-sdk-linux-x64/claude; PASS with it), or install a
// given version anywhere:
//
//   npm install --prefix /tmp/cc @anthropic-ai/claude-code@2.1.332
//   node __test__/adapters/e2e/claude-code.mjs /tmp/cc/node_modules/@anthropic-ai/claude-code-linux-x64/claude
//
// A local mock of the Anthropic Messages API scripts the model: three
// identical Bash calls, one whose output is a Python traceback (exit 0), the
// same with exit 3, five identical failing test runs (exit 1: Claude Code
// sends those as PostToolUseFailure, never PostToolUse), then a final
// answer. Claude Code runs the commands and the hooks; the script then reads
// the requests the model received and checks that the loop alarm (3rd
// call), the failure header (4th call) and a loop alarm on the failing test
// runs (from the 3rd of them) reached the model,
// and it saves the hook payloads Claude Code sent (for the fixture
// `__test__/adapters/fixtures/claude-code-<version>.jsonl`). Exit 0 = pass.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import assert from 'node:assert/strict';
import { bashScript, messagesServer, runChild, toolResultTurns } from '../../support/mock-wire.mjs';
import { replayPostToolUse } from './replay.mjs';

const claude = process.argv[2];
if (!claude) {
  console.error('usage: node __test__/adapters/e2e/claude-code.mjs <path to the claude binary>');
  process.exit(2);
}
const root = join(dirname(fileURLToPath(import.meta.url)), '../../..');
const work = mkdtempSync(join(tmpdir(), 'toolguard-cc-e2e-'));
const home = join(work, 'home');
const cwd = join(work, 'project');
mkdirSync(home);
mkdirSync(cwd);
const payloads = join(work, 'payloads.jsonl');

const traceback = `printf 'Traceback (most recent call last):\\n  File "x.py", line 1\\nValueError: bad\\n'`;
// A pytest-like run that fails: the loop users report most, run again and again.
const failingTests = `printf 'F\\n=== FAILURES ===\\nE   assert 1 == 2\\n1 failed in 0.01s\\n'; exit 1`;
const script = ['echo hi', 'echo hi', 'echo hi', traceback, `${traceback}; exit 3`, ...Array(5).fill(failingTests)];
const { server, requests } = await messagesServer(bashScript(script));
const port = server.address().port;

const hook = `tee -a ${payloads} | ${process.execPath} ${join(root, 'bin/toolguard.mjs')} hook`;
const settings = join(work, 'settings.json');
writeFileSync(
  settings,
  JSON.stringify({
    permissions: { allow: ['Bash'] },
    hooks: {
      PostToolUse: [{ matcher: '*', hooks: [{ type: 'command', command: hook }] }],
      PostToolUseFailure: [{ matcher: '*', hooks: [{ type: 'command', command: hook }] }],
      UserPromptSubmit: [{ hooks: [{ type: 'command', command: hook }] }],
      SessionEnd: [{ hooks: [{ type: 'command', command: hook }] }],
    },
  }),
);

const version = spawnSync(claude, ['--version'], { encoding: 'utf8', env: { ...process.env, HOME: home } }).stdout.trim();
const run = await runChild(claude, ['-p', 'go', '--settings', settings, '--model', 'claude-sonnet-4-5'], {
  cwd,
  env: {
    ...process.env,
    HOME: home,
    ANTHROPIC_BASE_URL: `http://127.0.0.1:${port}`,
    ANTHROPIC_API_KEY: 'sk-test',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_AUTOUPDATER: '1',
    TOOLGUARD_STATE_DIR: join(work, 'state'),
  },
});
server.close();

const turns = toolResultTurns(requests);
const results = turns.map((c) => (typeof c[0].content === 'string' ? c[0].content : JSON.stringify(c[0].content)));
// Everything the model got with each result (hook context may come as a block of its own).
const received = turns.map((c) => JSON.stringify(c));
const said = replayPostToolUse(root, payloads, join(work, 'replay-state'), ['PostToolUse', 'PostToolUseFailure']);
const loopAlarm = said[2]?.hookSpecificOutput?.additionalContext ?? '';
const events = readFileSync(payloads, 'utf8')
  .trim()
  .split('\n')
  .map((l) => JSON.parse(l).hook_event_name);
// The failure events: the exit-3 traceback, then the five test runs.
const failureSaid = said.slice(4);
const failureAlarm = failureSaid[3]?.hookSpecificOutput?.additionalContext ?? '';

try {
  assert.equal(run.code, 0, run.out);
  assert.equal(results.length, script.length, `the model saw ${script.length} tool results (got ${results.length})`);
  assert.deepEqual(
    events.filter((e) => e.startsWith('PostToolUse')),
    [...Array(4).fill('PostToolUse'), ...Array(6).fill('PostToolUseFailure')],
    'a non-zero exit comes as PostToolUseFailure',
  );
  assert.equal(said[1], null, 'the hook says nothing on the 2nd call');
  assert.match(
    loopAlarm,
    /^\[toolguard\] Loop detected: Bash was called 3 times in a row/,
    'the hook raises a repeat alarm on the 3rd call',
  );
  assert.ok(!results[1].includes('[toolguard]'), 'no alarm on the 2nd call');
  assert.ok(results[2].includes(loopAlarm), 'the loop alarm reached the model with the 3rd result');
  assert.ok(
    results[3].includes('[loud-failure] Bash reported no error but its output shows it failed:\n- python-traceback (line 1)'),
    'the failure header reached the model',
  );
  assert.ok(!results[3].includes('Original output:'), 'the output is not repeated in the reason');
  assert.ok(!results[4].includes('loud-failure'), 'a non-zero exit is left to Claude Code');
  assert.deepEqual(failureSaid.slice(0, 3), [null, null, null], 'no alarm before the third identical failing run');
  assert.equal(failureSaid[3]?.hookSpecificOutput?.hookEventName, 'PostToolUseFailure');
  assert.match(
    failureAlarm,
    /^\[toolguard\] Loop detected: Bash was called 3 times in a row/,
    'the hook raises a repeat alarm on the 3rd failing run',
  );
  assert.ok(!received[6].includes('[toolguard]'), 'no alarm with the 2nd failing run');
  assert.ok(received[7].includes(JSON.stringify(failureAlarm).slice(1, -1)), 'the loop alarm on the failing runs reached the model');
} catch (error) {
  console.error(`FAIL (Claude Code ${version}): ${error.message}\nwork dir: ${work}`);
  process.exit(1);
}
const fixture = readFileSync(payloads, 'utf8');
console.log(
  `PASS: Claude Code ${version} — loop alarms (also on failing runs, PostToolUseFailure) and failure header reached the model; hook payloads in ${payloads} (${fixture.trim().split('\n').length} events)`,
);
