// Exact mode end to end in the real Claude Code CLI (docs/exact-mode.md).
// `npm test` runs it (__test__/adapters/claude-code-e2e.test.mjs); by hand:
//
//   node __test__/adapters/e2e/claude-code-exact.mjs node_modules/@anthropic-ai/claude-agent-sdk-linux-x64/claude
//
// A local mock of the Anthropic Messages API scripts the model: a Python
// program that exits 3 behind `| tail -1` (the pipeline exits 0), a `cd`
// that must persist to the next call, a `pwd`, and a heredoc. The session
// runs twice, with `toolguard hook --config` saying `exactMode: true` and
// without it. Checks: with exact mode the PreToolUse hook rewrote the
// command (Claude Code ran the rewritten input), the failed stage with its
// real status reached the model, and the side files are gone; every
// result's own output, and every call's exit status (Claude Code's event:
// PostToolUse or PostToolUseFailure, and its tool_response) are the same as
// without exact mode. Exit 0 = pass.
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import assert from 'node:assert/strict';
import { bashScript, messagesServer, runChild, toolResultTurns } from '../../support/mock-wire.mjs';

const claude = process.argv[2];
if (!claude) {
  console.error('usage: node __test__/adapters/e2e/claude-code-exact.mjs <path to the claude binary>');
  process.exit(2);
}
const root = join(dirname(fileURLToPath(import.meta.url)), '../../..');
const failing = `python3 -c 'import sys; print("boom"); sys.exit(3)' | tail -1`;
const script = [failing, 'mkdir -p sub && cd sub', 'pwd', "cat <<'EOF'\nhere $HOME\nEOF"];

/** One scripted session; `exact`: the hook's config turns exact mode on. */
async function session(exact) {
  const work = mkdtempSync(join(tmpdir(), `toolguard-cc-exact-${exact ? 'on' : 'off'}-`));
  const home = join(work, 'home');
  const cwd = join(work, 'project');
  const state = join(work, 'state');
  mkdirSync(home);
  mkdirSync(cwd);
  const payloads = join(work, 'payloads.jsonl');
  const config = join(work, 'toolguard.json');
  writeFileSync(config, JSON.stringify(exact ? { exactMode: true } : {}));
  const { server, requests } = await messagesServer(bashScript(script));
  const hook = `tee -a ${payloads} | ${process.execPath} ${join(root, 'bin/toolguard.mjs')} hook --config ${config}`;
  const settings = join(work, 'settings.json');
  const entry = [{ matcher: '*', hooks: [{ type: 'command', command: hook }] }];
  writeFileSync(
    settings,
    JSON.stringify({ permissions: { allow: ['Bash'] }, hooks: { PreToolUse: entry, PostToolUse: entry, PostToolUseFailure: entry } }),
  );
  const run = await runChild(claude, ['-p', 'go', '--settings', settings, '--model', 'claude-sonnet-4-5'], {
    cwd,
    env: {
      ...process.env,
      HOME: home,
      SHELL: '/bin/bash',
      ANTHROPIC_BASE_URL: `http://127.0.0.1:${server.address().port}`,
      ANTHROPIC_API_KEY: 'sk-test',
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      DISABLE_AUTOUPDATER: '1',
      TOOLGUARD_STATE_DIR: state,
    },
  });
  server.close();
  const turns = toolResultTurns(requests);
  const events = readFileSync(payloads, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  const after = events.filter((e) => e.hook_event_name.startsWith('PostToolUse'));
  return {
    work,
    run,
    // Everything the model got with each result.
    received: turns.map((c) => JSON.stringify(c)),
    // The tool's own output as Claude Code captured it, and how the call
    // ended; the session's directory made comparable. (`noOutputExpected` is
    // Claude Code's guess from the command's text, which the rewrite
    // lengthens: not the output, so left out.)
    outcomes: after.map((e) => {
      const { noOutputExpected, ...response } = e.tool_response ?? {};
      return JSON.parse(JSON.stringify({ event: e.hook_event_name, response, error: e.error }).replaceAll(work, '<work>'));
    }),
    commands: after.map((e) => e.tool_input?.command),
    sideFiles: readdirSync(state).filter((f) => f.startsWith('ps-')),
  };
}

const on = await session(true);
const off = await session(false);
try {
  for (const s of [on, off]) assert.equal(s.run.code, 0, s.run.out);
  assert.equal(on.received.length, script.length, 'every call came back to the model');
  assert.ok(
    on.commands[0].startsWith(`${failing}\n__tg_rc=`),
    `Claude Code ran the rewritten command (got ${JSON.stringify(on.commands[0])})`,
  );
  assert.equal(off.commands[0], failing, 'without exact mode the command is not rewritten');
  // The command's own output and exit status are unchanged.
  assert.deepEqual(on.outcomes, off.outcomes, 'same output and status with and without exact mode');
  assert.equal(on.outcomes[0].event, 'PostToolUse', 'the pipeline still exits 0');
  assert.match(JSON.stringify(on.outcomes[0].response), /boom/);
  assert.match(JSON.stringify(on.outcomes[2].response), /\/sub\b/, 'a cd persists to the next call');
  // The failed stage with its real status reached the model (only with exact mode).
  const named = 'stage-exit-status (line 1): python3 (stage 1 of 2) exited 3';
  assert.ok(on.received[0].includes(named), `the failed stage reached the model: ${on.received[0]}`);
  assert.ok(!off.received[0].includes('stage-exit-status'), 'without exact mode the status is unknown');
  for (let i = 1; i < script.length; i += 1) {
    assert.equal(
      on.received[i].replaceAll(on.work, '<work>'),
      off.received[i].replaceAll(off.work, '<work>'),
      `call ${i + 1} reached the model unchanged`,
    );
  }
  assert.deepEqual(on.sideFiles, [], 'the side files were read and deleted');
} catch (error) {
  console.error(`FAIL: ${error.message}\nwork dirs: ${on.work} ${off.work}`);
  process.exit(1);
}
console.log(
  'PASS: Claude Code exact mode — the stage that failed behind | tail reached the model with its status; outputs and exit statuses unchanged',
);
