// A directory of generated DSH session logs (plain JSONL) for the HTML
// report's browser test and benchmark: main sessions and subagents (header
// `parentSession`), per step an assistant/message with usage and its tool
// calls with results and timestamps; some sessions get a stuck loop (the
// same call 4-9 times) and some a silent failure (a traceback under exit 0).
// Deterministic for a given seed. Not a detector corpus: only its shape matters.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

function rng(seed) {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 4294967296;
  };
}

const TOOLS = ['bash', 'read_file', 'edit', 'grep', 'write_file'];

/**
 * Write `count` sessions under `dir` (one in five a subagent of the
 * previous main session). Returns `{ files, sessions }`.
 */
export function writeSessions(dir, count = 300, seed = 7) {
  const random = rng(seed);
  const pick = (list) => list[Math.floor(random() * list.length)];
  const files = [];
  let lastMain = null;
  let t = 1796000000000;
  for (let n = 0; n < count; n++) {
    const id = `gen-${String(n).padStart(4, '0')}`;
    const sub = n % 5 === 4 && lastMain !== null;
    if (!sub) lastMain = id;
    const lines = [
      JSON.stringify({
        type: 'session',
        version: 0,
        id,
        createdAt: t,
        cwd: '/srv/app',
        ...(sub ? { parentSession: lastMain, origin: 'subagent' } : {}),
        delegationDepth: sub ? 1 : 0,
      }),
    ];
    let seq = 0;
    const ev = (type, data) => lines.push(JSON.stringify({ type, seq: seq++, time: t, data }));
    ev('user/message', { content: [{ type: 'text', text: 'Fix the build.' }], source: { kind: 'user' }, role: 'user', id: `${id}-u` });
    const steps = 15 + Math.floor(random() * 60);
    const loopAt = random() < 0.5 ? Math.floor(random() * steps) : -1;
    const loopLength = 4 + Math.floor(random() * 6);
    const failAt = random() < 0.4 ? Math.floor(random() * steps) : -1;
    let call = 0;
    for (let step = 1; step <= steps; step++) {
      const batch = [];
      if (step === loopAt)
        for (let i = 0; i < loopLength; i++)
          batch.push({ tool: 'bash', args: { command: 'npm test' }, out: '1 failing\n[exit code: 1]', alone: true });
      else if (step === failAt)
        batch.push({
          tool: 'bash',
          args: { command: 'make docs 2>&1 | tail -n 5' },
          out: 'Traceback (most recent call last):\n  File "render.py", line 4, in <module>\nModuleNotFoundError: No module named \'yaml\'',
        });
      else {
        const k = 1 + Math.floor(random() * 2);
        for (let i = 0; i < k; i++) {
          const tool = pick(TOOLS);
          batch.push({
            tool,
            args: tool === 'bash' ? { command: `ls src/m${call + i}` } : { path: `src/m${call + i}.ts` },
            out: `ok ${call + i}`,
          });
        }
      }
      // A loop is one call per model step, as a stuck agent makes them.
      const groups = batch[0]?.alone ? batch.map((b) => [b]) : [batch];
      for (const group of groups) {
        t += 800 + Math.floor(random() * 4000);
        const ids = group.map(() => `${id}-c${++call}`);
        ev('assistant/message', {
          turn: 1,
          step,
          message: {
            role: 'assistant',
            content: group.map((b, i) => ({ type: 'tool-call', id: ids[i], name: b.tool, arguments: JSON.stringify(b.args) })),
          },
          usage: { inputTokens: 2000 + step * 150, outputTokens: 40 + Math.floor(random() * 200), cacheReadTokens: 1000 },
        });
        group.forEach((b, i) => {
          ev('tool/call', { turn: 1, step, callId: ids[i], name: b.tool, arguments: JSON.stringify(b.args) });
        });
        group.forEach((b, i) => {
          t += 50 + Math.floor(random() * 3000);
          ev('tool/result', {
            turn: 1,
            step,
            message: {
              source: { kind: 'tool', callId: ids[i] },
              content: [{ type: 'tool-result', toolCallId: ids[i], content: [{ type: 'text', text: b.out }], isError: false }],
              role: 'user',
              id: `${ids[i]}-r`,
            },
          });
        });
      }
    }
    const folder = join(dir, '--srv-app--', id);
    mkdirSync(folder, { recursive: true });
    const file = join(folder, 'session.jsonl');
    writeFileSync(file, lines.join('\n') + '\n');
    files.push(file);
  }
  return { files, sessions: count };
}
