// Memory per agent, measured in a fresh process per subject so one subject's
// heap and allocator state cannot leak into another's numbers. The runner
// spawns it as `node --expose-gc benchmark/memory.mjs <subject> <args> <agents>`
// and reads one JSON line from stdout.
//
// Method: build the subject and everything the calls need (argument text,
// agent objects) first, collect garbage, take heap/RSS, make one call per
// agent, collect again, take heap/RSS again; report the deltas per agent.
// Argument text is shared by all agents, so whatever a subject keeps per
// agent is its own copy (the official plugin and the reference keep the
// canonical key; the native engine keeps a 16-byte digest).
import { createRequire } from 'node:module';

import * as official from '@deepseek-ai/dsh-repeat-tool-reminder';
import * as ours from 'toolguard/dsh/repeat-tool-reminder';
import { GuardEngine as ReferenceEngine } from 'toolguard/reference';

import { argumentClasses } from './fixtures.mjs';
import { postExecuteListener } from './scenarios.mjs';

const require = createRequire(import.meta.url);
const toolguard = require('toolguard');
if (toolguard.native === false) throw new Error('bench: the native addon did not load; build it with `npm run build:native`');
const { GuardEngine: NativeEngine } = toolguard;

const [subject, argsKind, agentsText] = process.argv.slice(2);
const agents = Number(agentsText);
if (typeof globalThis.gc !== 'function') throw new Error('run with --expose-gc');
if (!Number.isInteger(agents) || agents < 1) throw new Error(`bad agent count ${agentsText}`);

const classes = argumentClasses();
const cls = argsKind === '64k' ? classes.find((c) => c.name.startsWith('64 KB')) : classes[0];
const args = cls.make(1);
const argumentsJson = JSON.stringify(args);

async function settle() {
  // Two passes plus a turn: FinalizationRegistry and weak cells settle late.
  globalThis.gc();
  await new Promise((resolve) => setImmediate(resolve));
  globalThis.gc();
}

function sample() {
  const m = process.memoryUsage();
  return { heap: m.heapUsed, rss: m.rss, external: m.external };
}

let call;
let keep;
switch (subject) {
  case 'engine-toolguard':
  case 'engine-reference': {
    const engine = subject === 'engine-toolguard' ? new NativeEngine() : new ReferenceEngine();
    const ids = Array.from({ length: agents }, (_, i) => `agent-${i}`);
    keep = { engine, ids };
    call = (i) => engine.observe({ agentId: ids[i], name: cls.tool, argumentsJson }, undefined);
    // Warm the engine's one-off allocations (reused canonical buffer, JIT) on an agent that is then forgotten.
    engine.observe({ agentId: 'warm', name: cls.tool, argumentsJson }, undefined);
    engine.forget('warm');
    break;
  }
  case 'dsh-toolguard':
  case 'dsh-official': {
    const listener = postExecuteListener(subject === 'dsh-toolguard' ? ours : official);
    const agentObjects = Array.from({ length: agents }, (_, i) => ({ id: i }));
    keep = { listener, agentObjects };
    const result = { isError: false, value: null, content: [] };
    const accept = async () => ({ kind: 'accept' });
    call = (i) => listener({ name: cls.tool, arguments: args, agent: agentObjects[i], callId: 'c' }, result, accept);
    await listener({ name: cls.tool, arguments: args, agent: { id: 'warm' }, callId: 'c' }, result, accept);
    break;
  }
  default:
    throw new Error(`unknown subject ${subject}`);
}

await settle();
const before = sample();
for (let i = 0; i < agents; i++) await call(i);
await settle();
const after = sample();
if (keep.engine) {
  const count = keep.engine.agentCount;
  // 'warm' was forgotten, so the live count is exactly the agents made here.
  if (count !== agents) throw new Error(`${subject}: agentCount ${count}, expected ${agents}`);
}

process.stdout.write(
  `${JSON.stringify({
    subject,
    args: argsKind,
    args_bytes: argumentsJson.length,
    agents,
    heap_bytes_per_agent: (after.heap - before.heap) / agents,
    rss_bytes_per_agent: (after.rss - before.rss) / agents,
    external_bytes_per_agent: (after.external - before.external) / agents,
    kept: Object.keys(keep).length,
  })}\n`,
);
