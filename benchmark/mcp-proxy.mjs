// What `toolguard mcp` adds in front of an MCP server: session start-up
// (spawn to initialized) and the round trip of one tools/call, direct vs
// through the proxy, with the SDK's own Client over stdio and the real
// @modelcontextprotocol/server-everything. Subjects alternate per round;
// medians are printed.
//
//   node benchmark/mcp-proxy.mjs [--rounds 5] [--calls 300] [--kb 1]
//
// --kb: size of the echoed message; the proxy scans it when `echo` is named a
// shell tool (it is here), so the figure includes the scan.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const { values } = parseArgs({
  options: { rounds: { type: 'string', default: '5' }, calls: { type: 'string', default: '300' }, kb: { type: 'string', default: '1' } },
});
const rounds = Number(values.rounds);
const calls = Number(values.calls);
const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const server = [join(root, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js')];
const dir = mkdtempSync(join(tmpdir(), 'toolguard-mcp-bench-'));
const config = join(dir, 'guard.json');
writeFileSync(config, JSON.stringify({ loudFailure: { shellTools: ['echo'] } }));

const subjects = {
  direct: server,
  proxy: [join(root, 'bin/toolguard.mjs'), 'mcp', '--config', config, '--', process.execPath, ...server],
};
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const startup = { direct: [], proxy: [] };
const call = { direct: [], proxy: [] };
// Distinct messages: a repeat run would add reminder blocks, which is not the cost measured here.
const text = (i) => `${i} ${'x'.repeat(Number(values.kb) * 1024)}`;

for (let round = 0; round < rounds; round++) {
  for (const [name, args] of Object.entries(subjects)) {
    const t0 = performance.now();
    const client = new Client({ name: 'bench', version: '1' });
    await client.connect(new StdioClientTransport({ command: process.execPath, args, stderr: 'ignore', env: process.env }));
    startup[name].push(performance.now() - t0);
    for (let i = 0; i < 20; i++) await client.callTool({ name: 'echo', arguments: { message: text(i) } }); // warm-up
    const times = [];
    for (let i = 0; i < calls; i++) {
      const t = performance.now();
      await client.callTool({ name: 'echo', arguments: { message: text(i) } });
      times.push(performance.now() - t);
    }
    call[name].push(median(times));
    await client.close();
  }
  process.stderr.write(`round ${round + 1}/${rounds}\n`);
}
rmSync(dir, { recursive: true, force: true });

const ms = (x) => `${x.toFixed(2)} ms`;
console.log(`Node ${process.version}, ${rounds} rounds, ${calls} calls of ${values.kb} KB each per round (medians)`);
console.log(`| | direct | through toolguard mcp | added |`);
console.log(`| --- | ---: | ---: | ---: |`);
const row = (label, d) =>
  console.log(`| ${label} | ${ms(median(d.direct))} | ${ms(median(d.proxy))} | ${ms(median(d.proxy) - median(d.direct))} |`);
row('session start (spawn → initialized)', startup);
row('tools/call round trip', call);
