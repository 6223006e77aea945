// Instructions per MiB of the full `observe()` of build-log text (the
// scan target, ≤ 10 M instructions a MiB, stated in instructions because
// the wall clock of the shared machines says little). Counted by callgrind
// (valgrind) inside the native calls of a Node process that observes the
// same 1 MiB log `few` and then `many` times: the difference over the extra
// observes is one observe() in steady state (the first one's lazy builds
// fall in both). Node's own symbol names the calls, so the stripped release
// addon serves.
//
//   node benchmark/scan-instructions.mjs            # a JSON object per table
//   node benchmark/scan-instructions.mjs --fail-last   # the log's last line a failure (make's `Error 1`)
//   node benchmark/scan-instructions.mjs --child builtin|doubled N [last]   (internal)
//
// Without valgrind on PATH it prints `null` rows (the bench then shows no
// instruction column); it never fails the benchmark for that.
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { buildLog, DOUBLED_CONFIG } from './fixtures.mjs';

const MIB = 1 << 20;
const here = fileURLToPath(import.meta.url);

if (process.argv[2] === '--child') {
  const require = createRequire(import.meta.url);
  const { GuardEngine } = require('../index.js');
  const engine = new GuardEngine(process.argv[3] === 'doubled' ? DOUBLED_CONFIG : undefined);
  const result = { isError: false, content: [{ type: 'text', text: buildLog(MIB, { failLast: process.argv[5] === 'last' }) }] };
  for (let i = 0; i < Number(process.argv[4]); i++) {
    engine.observe({ agentId: 'a', name: 'bash', argumentsJson: `{"command":"make -j${i}"}` }, result);
  }
  process.exit(0);
}

/** Instructions callgrind counts for one child run, or null without valgrind. */
function count(table, n, failLast) {
  // Only inside native calls from JavaScript (Node's N-API callback
  // wrapper): the garbage collector and the JIT between calls vary by
  // millions of instructions from run to run; the engine's work does not.
  const args = ['--tool=callgrind', '--callgrind-out-file=/dev/null', '--toggle-collect=*FunctionCallbackWrapper::Invoke*'];
  const r = spawnSync('valgrind', [...args, process.execPath, here, '--child', table, String(n), failLast ? 'last' : 'none'], {
    encoding: 'utf8',
    maxBuffer: 1 << 24,
  });
  if (r.error || r.status !== 0) return null;
  const m = /refs:\s*([\d,]+)/.exec(r.stderr);
  return m ? Number(m[1].replaceAll(',', '')) : null;
}

/** Steady-state instructions per MiB of one observe(), per table. */
export function scanInstructions({ few = 2, many = 4, failLast = false } = {}) {
  return ['builtin', 'doubled'].map((table) => {
    const a = count(table, few, failLast);
    const b = a === null ? null : count(table, many, failLast);
    const bytes = Buffer.byteLength(buildLog(MIB));
    const per = a === null || b === null ? null : ((b - a) / (many - few)) * (MIB / bytes);
    return { table, instructions_per_mib: per };
  });
}

if (process.argv[1] === here && process.argv[2] !== '--child') {
  console.log(JSON.stringify(scanInstructions({ failLast: process.argv.includes('--fail-last') })));
}
