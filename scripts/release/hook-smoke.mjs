#!/usr/bin/env node
// The release workflow's check of a downloaded native hook executable on its
// own OS and CPU: `toolguard hook` finds it, and it answers a PostToolUse
// event whose output hides a traceback behind exit 0 with a block.
//
//   node scripts/release/hook-smoke.mjs
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
const exe = join(root, process.platform === 'win32' ? 'toolguard-hook.exe' : 'toolguard-hook');
// Artifact downloads drop the executable bit.
if (process.platform !== 'win32') chmodSync(exe, 0o755);
const fail = (why) => {
  console.error(`hook-smoke: ${why}`);
  process.exit(1);
};
const found = spawnSync(process.execPath, [join(root, 'bin/toolguard.mjs'), 'hook', '--native-path'], {
  encoding: 'utf8',
  env: { ...process.env, TOOLGUARD_NATIVE_HOOK: '' },
});
if (found.stdout.trim() !== exe) fail(`toolguard hook --native-path printed ${JSON.stringify(found.stdout)} ${found.stderr}, not ${exe}`);
const state = mkdtempSync(join(tmpdir(), 'toolguard-hook-smoke-'));
const event = {
  session_id: 'smoke',
  hook_event_name: 'PostToolUse',
  tool_name: 'Bash',
  tool_input: { command: 'make docs 2>&1 | tail -n 3' },
  tool_response: { stdout: 'Traceback (most recent call last):\n  File "docs.py", line 3, in <module>\nKeyError: 1\n', stderr: '' },
};
const run = spawnSync(exe, [], { input: JSON.stringify(event), encoding: 'utf8', env: { ...process.env, TOOLGUARD_STATE_DIR: state } });
rmSync(state, { recursive: true, force: true });
if (run.status !== 0) fail(`exited ${run.status ?? run.error}: ${run.stderr}`);
let answer;
try {
  answer = JSON.parse(run.stdout);
} catch {
  fail(`printed no JSON: ${JSON.stringify(run.stdout)}`);
}
if (answer.decision !== 'block' || !/python-traceback/.test(answer.reason)) fail(`unexpected answer ${run.stdout}`);
console.log(`hook-smoke: ${exe} blocks a hidden traceback`);
