#!/usr/bin/env node
// Throughput of `toolguard audit` (target: >= 50 MB/s of log).
//
//   node benchmark/audit.mjs [--mb 200] [--runs 3] [--quick|--smoke] [--keep] [--json]
//
// --quick: 50 MB, 2 runs; --smoke: 5 MB, 1 run (npm run bench passes them).
// --json prints one object; `throughput_mb_s` is the plain log's wall MB/s
// (what benchmark/index.mjs reports), `throughput_mb_per_cpu_s` its MB per
// CPU second (steadier on a shared machine).
// Generates a DSH session log of about --mb megabytes in the OS temp dir
// (never committed), shaped like a real one (see __test__/audit/fixtures:
// per step a request, streamed assistant chunks, packed chunk rows, tool
// calls with shell output, loops and silent failures), then times
// `Auditor.auditFile` on it: plain JSONL, and zstd frames when this Node has
// zlib zstd (Node >= 22.15; on Node 20 the zstd case is skipped). Reports the
// best of --runs runs in MB/s of file bytes (and of decoded JSONL for zstd).
// Standalone: needs only the built addon (npm run build).
import { createRequire } from 'node:module';
import { closeSync, mkdtempSync, openSync, rmSync, statSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as zlib from 'node:zlib';

const require = createRequire(import.meta.url);
const { Auditor } = require('../index.js');

const args = process.argv.slice(2);
const opt = (name, fallback) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? Number(args[i + 1]) : fallback;
};
const mode = args.includes('--smoke') ? 'smoke' : args.includes('--quick') ? 'quick' : 'full';
const targetMb = opt('mb', { full: 200, quick: 50, smoke: 5 }[mode]);
const runs = opt('runs', { full: 3, quick: 2, smoke: 1 }[mode]);
const keep = args.includes('--keep');
const asJson = args.includes('--json');

const OUTPUTS = [
  (i) => `src/file${i}.ts\nsrc/index.ts\nsrc/util/${i % 17}.ts\n`.repeat(4),
  (i) => `> build\n> tsc -p .\n\n` + `  compiled module ${i}\n`.repeat(40),
  (i) =>
    `============ test session starts ============\ncollected ${i % 90} items\n\n` +
    'tests/test_mod.py ....................      [100%]\n'.repeat(10) +
    `\n===== ${i % 90} passed in 1.${i % 10}s =====`,
  (i) =>
    `Traceback (most recent call last):\n  File "/srv/app/main.py", line ${i % 300}, in <module>\n    run()\nValueError: bad input ${i}`,
  (i) => `${'x'.repeat(60)}\n`.repeat(120) + `[exit code: ${i % 3}]`,
  (i) => `cat: notes${i}.txt: No such file or directory\n[exit code: 1]`,
];

/** One DSH step: ~20 lines, as the recorder writes them. */
function* step(n, state) {
  const t = 1796000000000 + n * 7;
  const ev = (type, data, extra = '') => `{"type":"${type}","seq":${state.seq++},"time":${t}${extra},"data":${data}}`;
  const turn = 1 + Math.floor(n / 40);
  yield ev('step/start', `{"turn":${turn},"step":${n}}`);
  if (n % 40 === 0) {
    yield ev(
      'user/message',
      `{"content":[{"type":"text","text":"Please continue with task ${n}."}],"source":{"kind":"user"},"role":"user","id":"u-${n}"}`,
      '',
    );
  }
  for (let k = 0; k < 4; k++)
    yield ev('assistant/chunk', `{"turn":${turn},"step":${n},"chunk":{"type":"text-delta","index":0,"text":"word${k} "}}`);
  yield `{"type":"text-chunks","seq0":${state.seq},"time0":${t},"data":{"turn":${turn},"step":${n},"index":0,"dt":[0,0,0,0],"texts":["Let ","me ","check ","this ","now."]}}`;
  state.seq += 5;
  // Every 10th step repeats the previous command (a loop); others vary.
  const command = n % 10 < 4 ? 'pytest -q tests/test_render.py' : `ls -la src/dir${n % 50}`;
  const args = JSON.stringify(JSON.stringify({ command, timeout: 120000 }));
  const callId = `call_${n}`;
  yield `{"type":"tool-call-chunks","seq0":${state.seq},"time0":${t},"data":{"turn":${turn},"step":${n},"index":1,"dt":[0,0],"id":"${callId}","name":"bash","args":["{\\"comm","and\\":\\"..","\\"}"]}}`;
  state.seq += 3;
  yield ev(
    'assistant/message',
    `{"turn":${turn},"step":${n},"message":{"role":"assistant","id":"a-${n}","content":[{"type":"text","text":"Let me check this now."},{"type":"tool-call","id":"${callId}","name":"bash","arguments":${args}}],"source":{"kind":"model","provider":"mock","model":"mock"}},"usage":{"inputTokens":1200,"outputTokens":40}}`,
    ',"sourceEventSeqs":[1,2,3],"surfaceOp":"append"',
  );
  yield ev('tool/call', `{"turn":${turn},"step":${n},"callId":"${callId}","name":"bash","arguments":${args}}`);
  const output = JSON.stringify(OUTPUTS[n % OUTPUTS.length](n));
  yield ev(
    'tool/result',
    `{"turn":${turn},"step":${n},"message":{"source":{"kind":"tool","callId":"${callId}"},"content":[{"type":"tool-result","toolCallId":"${callId}","content":[{"type":"text","text":${output}}],"isError":false}],"role":"user","id":"r-${n}"}}`,
    ',"sourceEventSeqs":[9],"surfaceOp":"append"',
  );
  yield ev('step/end', `{"turn":${turn},"step":${n}}`);
}

function generate(dir, bytesWanted) {
  const plain = join(dir, 'session.jsonl');
  const packed = join(dir, 'session.jsonl.zstd');
  // zstd came to node:zlib in Node 22.15, after the @types/node (20) this package pins.
  const { zstdCompressSync } = /** @type {{ zstdCompressSync?: (data: Buffer) => Buffer }} */ (/** @type {unknown} */ (zlib));
  const canZstd = typeof zstdCompressSync === 'function';
  const fdPlain = openSync(plain, 'w');
  const fdPacked = canZstd ? openSync(packed, 'w') : undefined;
  const header = '{"type":"session","version":0,"id":"bench","createdAt":1796000000000,"cwd":"/srv/app","delegationDepth":0}\n';
  writeSync(fdPlain, header);
  if (canZstd) writeSync(fdPacked, zstdCompressSync(Buffer.from(header)));
  const state = { seq: 0 };
  let written = header.length;
  let n = 0;
  while (written < bytesWanted) {
    // One append batch = a few steps = one zstd frame, as DSH writes them.
    let batch = '';
    for (let s = 0; s < 8; s++) for (const line of step(n++, state)) batch += line + '\n';
    const buf = Buffer.from(batch);
    writeSync(fdPlain, buf);
    if (canZstd) writeSync(fdPacked, zstdCompressSync(buf));
    written += buf.length;
  }
  closeSync(fdPlain);
  if (canZstd) closeSync(fdPacked);
  return { plain, packed: canZstd ? packed : undefined, steps: n };
}

/**
 * Best wall time and best CPU time (user + system) of `runs` audits. The
 * audit is single-threaded and synchronous, so CPU time is its work even
 * when other processes share the machine; wall time is what a user waits.
 */
function time(path) {
  const auditor = new Auditor();
  let best = Infinity;
  let bestCpu = Infinity;
  let report;
  for (let r = 0; r < runs; r++) {
    const start = process.hrtime.bigint();
    const cpu = process.cpuUsage();
    report = JSON.parse(auditor.auditFile(path, 'dsh'));
    const used = process.cpuUsage(cpu);
    best = Math.min(best, Number(process.hrtime.bigint() - start) / 1e9);
    bestCpu = Math.min(bestCpu, (used.user + used.system) / 1e6);
  }
  if (report.errorCount > 0) throw new Error(`benchmark log has input errors: ${JSON.stringify(report.errors.slice(0, 3))}`);
  return { seconds: best, cpuSeconds: bestCpu, report };
}

const dir = mkdtempSync(join(tmpdir(), 'toolguard-audit-bench-'));
try {
  const genStart = Date.now();
  const { plain, packed, steps } = generate(dir, targetMb * 1e6);
  const genSeconds = (Date.now() - genStart) / 1000;
  const results = [];
  for (const [label, path] of [
    ['plain', plain],
    ['zstd', packed],
  ]) {
    if (!path) {
      results.push({ label, skipped: 'this Node has no zlib zstd to write the log (use Node >= 22.15)' });
      continue;
    }
    const bytes = statSync(path).size;
    const { seconds, cpuSeconds, report } = time(path);
    results.push({
      label,
      fileMB: +(bytes / 1e6).toFixed(1),
      decodedMB: +(report.decodedBytes / 1e6).toFixed(1),
      seconds: +seconds.toFixed(3),
      cpuSeconds: +cpuSeconds.toFixed(3),
      fileMBps: +(bytes / 1e6 / seconds).toFixed(1),
      decodedMBps: +(report.decodedBytes / 1e6 / seconds).toFixed(1),
      decodedMBperCpuSecond: +(report.decodedBytes / 1e6 / cpuSeconds).toFixed(1),
      calls: report.calls,
      reminders: report.reminders.length,
      failures: report.failures.length,
    });
  }
  if (asJson) {
    const plainResult = results.find((r) => r.label === 'plain');
    const doc = {
      command: `node benchmark/audit.mjs --json${mode === 'full' ? '' : ` --${mode}`}`,
      node: process.version,
      mode,
      steps,
      generateSeconds: genSeconds,
      runs,
      throughput_mb_s: plainResult.fileMBps,
      throughput_mb_per_cpu_s: plainResult.decodedMBperCpuSecond,
      results,
    };
    process.stdout.write(JSON.stringify(doc, null, 2) + '\n');
  } else {
    console.log(`audit throughput: ${steps} steps generated in ${genSeconds.toFixed(1)} s, best of ${runs} runs (${process.version})`);
    for (const r of results) {
      if (r.skipped) console.log(`  ${r.label.padEnd(5)} skipped: ${r.skipped}`);
      else
        console.log(
          `  ${r.label.padEnd(5)} ${String(r.fileMB).padStart(7)} MB file, ${String(r.decodedMB).padStart(7)} MB JSONL in ${r.seconds.toFixed(2)} s (${r.cpuSeconds.toFixed(2)} s CPU): ${r.fileMBps} MB/s of file, ${r.decodedMBps} MB/s of JSONL, ${r.decodedMBperCpuSecond} MB of JSONL per CPU second (${r.calls} calls, ${r.reminders} reminders, ${r.failures} failures)`,
        );
    }
  }
} finally {
  if (keep) console.error(`kept ${dir}`);
  else rmSync(dir, { recursive: true, force: true });
}
