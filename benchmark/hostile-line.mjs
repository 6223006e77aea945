#!/usr/bin/env node
// Peak memory of `toolguard audit` on a hostile log: a small
// zstd file that decodes to one huge line. Before the line limit, a 48 KB file
// decoding to one 1.5 GB line took 3.4 GB; now memory is bounded by
// --max-line-bytes (default 256 MiB) plus the zstd window.
//
// Needs Node >= 22.15 (node:zlib's zstd) to WRITE the file:
//   node scripts/test/node22.mjs benchmark/hostile-line.mjs [--gb 1.5] [--limit 268435456] [--json]
// The audit itself runs in a child process (the package's Auditor), which
// reports its own peak RSS (process.resourceUsage().maxRSS).
import { spawnSync } from 'node:child_process';
import { createWriteStream, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import { parseArgs } from 'node:util';
import * as zlib from 'node:zlib';

const { values } = parseArgs({ options: { gb: { type: 'string', default: '1.5' }, limit: { type: 'string' }, json: { type: 'boolean' } } });
// zstd came to node:zlib in Node 22.15, after the @types/node (20) this package pins.
const { createZstdCompress, constants } =
  /** @type {{ createZstdCompress?: (o: object) => import('node:stream').Transform, constants: Record<string, number> }} */ (
    /** @type {unknown} */ (zlib)
  );
if (!createZstdCompress) {
  console.error('needs Node >= 22.15 (node:zlib zstd) to write the hostile file');
  process.exit(2);
}
const bytes = Math.round(Number(values.gb) * 2 ** 30);
const dir = mkdtempSync(join(tmpdir(), 'toolguard-hostile-'));
const file = join(dir, 'hostile.jsonl.zstd');
const chunk = Buffer.alloc(1 << 20, 'a');
const after = Buffer.from('"}\n{"tool":"bash","arguments":{"command":"ls"},"output":"x"}\n');
async function* body() {
  yield Buffer.from('{"tool":"bash","output":"');
  for (let left = bytes; left > 0; left -= chunk.length) yield left >= chunk.length ? chunk : chunk.subarray(0, left);
  yield after;
}
await pipeline(Readable.from(body()), createZstdCompress({ params: { [constants.ZSTD_c_compressionLevel]: 19 } }), createWriteStream(file));

const child = `
  const { Auditor } = await import(${JSON.stringify(new URL('../index.js', import.meta.url).href)}).then((m) => m.default ?? m);
  const options = ${values.limit ? `JSON.stringify({ maxLineBytes: ${Number(values.limit)} })` : 'undefined'};
  const started = process.hrtime.bigint();
  const report = JSON.parse(new Auditor(undefined, options).auditFile(${JSON.stringify(file)}));
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  console.log(JSON.stringify({ maxRssMb: Math.round(process.resourceUsage().maxRSS / 1024), seconds, errors: report.errors, calls: report.calls }));
`;
const compressedKb = Math.round(statSync(file).size / 1024);
const run = spawnSync(process.execPath, ['--input-type=module', '-e', child], { encoding: 'utf8' });
rmSync(dir, { recursive: true, force: true });
if (run.status !== 0) {
  console.error(run.stderr);
  process.exit(1);
}
const result = { compressedKb, lineGb: Number(values.gb), ...JSON.parse(run.stdout) };
if (values.json) console.log(JSON.stringify(result));
else
  console.log(
    `hostile zstd log (${compressedKb} KB), one ${values.gb} GB line: peak RSS ${result.maxRssMb} MB, ${result.seconds.toFixed(1)} s, ${result.calls} call(s) audited, error: ${result.errors[0]?.message}`,
  );
