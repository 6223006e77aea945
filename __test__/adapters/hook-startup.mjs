// Start-up time of `toolguard hook` (not a test: timings are noisy on shared
// machines). Median of N full PostToolUse invocations, each a fresh process.
// usage: node __test__/adapters/hook-startup.mjs [runs=20] [entry=bin/toolguard.mjs]
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const runs = Number(process.argv[2] ?? 20);
const entry = process.argv[3] ?? 'bin/toolguard.mjs';
const dir = mkdtempSync(join(tmpdir(), 'toolguard-bench-'));
const event = (i) =>
  JSON.stringify({
    hook_event_name: 'PostToolUse',
    session_id: 'bench',
    tool_name: 'Bash',
    tool_input: { command: `make -j${i % 3}` },
    tool_response: { stdout: 'gcc -c a.c\ngcc -o a a.o\n', stderr: '', interrupted: false },
  });
const times = [];
for (let i = 0; i < runs; i++) {
  const start = process.hrtime.bigint();
  const r = spawnSync(process.execPath, entry.endsWith('toolguard.mjs') ? [entry, 'hook'] : [entry], { input: event(i), env: { ...process.env, TOOLGUARD_STATE_DIR: dir } });
  times.push(Number(process.hrtime.bigint() - start) / 1e6);
  if (r.status !== 0) throw new Error(`hook exited ${r.status}: ${r.stderr}`);
}
const bare = [];
for (let i = 0; i < runs; i++) {
  const start = process.hrtime.bigint();
  spawnSync(process.execPath, ['-e', '0']);
  bare.push(Number(process.hrtime.bigint() - start) / 1e6);
}
rmSync(dir, { recursive: true, force: true });
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
console.log(`node ${process.version}: hook median ${median(times).toFixed(1)} ms over ${runs} runs (bare \`node -e 0\`: ${median(bare).toFixed(1)} ms)`);
