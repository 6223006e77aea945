#!/usr/bin/env node
// What a hook call costs by the way it is registered in settings.json, in a
// project where toolguard is installed (the README's install route):
// `npx toolguard hook`, `node_modules/.bin/toolguard hook`, and the native
// executable itself (a Bash call whose output is scanned, a Read call that
// is not), against the /bin/true floor. Wall time from spawn to exit of one
// PostToolUse event per process; subjects interleaved per round; medians.
//
//   node benchmark/hook-routes.mjs PROJECT_DIR [ROUNDS=15]
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const [dir, roundsArg = '15'] = process.argv.slice(2);
if (!dir) {
  console.error('usage: node benchmark/hook-routes.mjs PROJECT_DIR [ROUNDS]   (a project with toolguard installed)');
  process.exit(2);
}
const project = resolve(dir);
const native = spawnSync(join(project, 'node_modules/.bin/toolguard'), ['hook', '--native-path'], {
  cwd: project,
  encoding: 'utf8',
}).stdout.trim();
if (!native) {
  console.error(`benchmark: no native hook in ${project} (toolguard hook --native-path printed nothing)`);
  process.exit(2);
}
const event = (tool_name, tool_input, tool_response) =>
  JSON.stringify({ session_id: 'bench', hook_event_name: 'PostToolUse', cwd: project, tool_name, tool_input, tool_response });
const bash = event('Bash', { command: 'make' }, { stdout: 'ok\n', stderr: '', interrupted: false, isImage: false });
const read = event('Read', { file_path: 'x' }, { type: 'text', file: { filePath: 'x', content: 'hi' } });
/** @type {Record<string, [string, string[], string]>} name: command, arguments, stdin */
const subjects = {
  'floor (/bin/true)': ['/bin/true', [], bash],
  'npx toolguard hook (Bash)': ['npx', ['toolguard', 'hook'], bash],
  'node_modules/.bin/toolguard hook (Bash)': [join(project, 'node_modules/.bin/toolguard'), ['hook'], bash],
  'native executable (Bash, scanned)': [native, [], bash],
  'native executable (Read, not scanned)': [native, [], read],
};
const state = mkdtempSync(join(tmpdir(), 'toolguard-hook-routes-'));
const times = Object.fromEntries(Object.keys(subjects).map((name) => [name, []]));
try {
  for (let round = 0; round < Number(roundsArg); round++) {
    for (const [name, [command, args, input]] of Object.entries(subjects)) {
      const start = process.hrtime.bigint();
      const run = spawnSync(command, args, { cwd: project, input, env: { ...process.env, TOOLGUARD_STATE_DIR: state } });
      times[name].push(Number(process.hrtime.bigint() - start) / 1e6);
      if (run.status !== 0) throw new Error(`${name} exited ${run.status}: ${run.stderr}`);
    }
  }
} finally {
  rmSync(state, { recursive: true, force: true });
}
for (const [name, t] of Object.entries(times)) {
  t.sort((a, b) => a - b);
  console.log(`${name.padEnd(40)} ${t[t.length >> 1].toFixed(1).padStart(8)} ms median of ${t.length}`);
}
