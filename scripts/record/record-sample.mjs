#!/usr/bin/env node
// Record the bundled audit sample and the audit test fixtures with a REAL
// headless DSH loop (dsh-agent-loop + dsh-session-persistence-jsonl, which
// registers the dsh-session-persistence service itself), so the
// audit reads exactly what the harness writes: header line, packed chunk rows,
// tool/call + tool/result pairs, plugin notices, a subagent log.
//
// Needs Node >= 22.15 (the JSONL backend compresses with node:zlib's zstd):
//   node scripts/test/node22.mjs scripts/record/record-sample.mjs
// Writes (replacing what was there):
//   samples/dsh/                        zstd (the default encoding) — the bundled sample
//   __test__/audit/fixtures/dsh-zstd/   a copy of that recording (tests must not depend on samples/)
//   __test__/audit/fixtures/dsh-plain/  the same session, compression: 'none'
// The official @deepseek-ai/dsh-repeat-tool-reminder is mounted while recording,
// so the logs also hold the plugin-sourced reminders it injected (which must
// not reset the audit's chain).
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as zlib from 'node:zlib';

import { Context } from '@deepseek-ai/cordis';
import LlmRuntime, { LlmAdapter } from '@deepseek-ai/dsh-llm';
import { CallId } from '@deepseek-ai/dsh-llm/brand';
import SessionStore, { SessionId } from '@deepseek-ai/dsh-session';
import JsonlPersistence from '@deepseek-ai/dsh-session-persistence-jsonl';
import SystemPrompt from '@deepseek-ai/dsh-system-prompt';
import ToolRuntime from '@deepseek-ai/dsh-tools';
import AgentRegistry from '@deepseek-ai/dsh-agent';
import AgentLoop from '@deepseek-ai/dsh-agent-loop';
import * as RepeatToolReminder from '@deepseek-ai/dsh-repeat-tool-reminder';

import { Harness, textTool } from '../../__test__/dsh/kit.mjs';

// `in`: @types/node here predates zstd (Node 22.15), so no property access.
if (!('zstdCompress' in zlib)) {
  console.error('record-sample: this Node has no zstd; run it with: node scripts/test/node22.mjs scripts/record/record-sample.mjs');
  process.exit(2);
}

const root = join(dirname(fileURLToPath(import.meta.url)), '../..');
const CWD = '/home/dev/report-site';
const MAIN = 'sample-main';
const SUB = 'sample-sub';

/**
 * Scripted model that streams like a real provider: text and tool-call
 * arguments arrive in several deltas, so the log gets packed chunk rows
 * (`text-chunks`, `tool-call-chunks`, runs of >= 3 deltas).
 */
class StreamingModel extends LlmAdapter {
  scripts = new Map();
  seq = 0;

  script(sessionId, responses) {
    this.scripts.set(sessionId, [...(this.scripts.get(sessionId) ?? []), ...responses]);
  }

  /**
   * @param {import('@deepseek-ai/dsh-llm/types').GenerateOptions} options
   * @returns {AsyncGenerator<import('@deepseek-ai/dsh-llm/types').StreamChunk>}
   */
  async *stream(options) {
    // A model takes time to answer; with the 5 ms write window this puts each
    // step in its own append batch, i.e. its own zstd frame, as in real logs.
    await new Promise((resolve) => setTimeout(resolve, 20));
    const queue = this.scripts.get(options.sessionId) ?? [];
    const response = queue.shift() ?? { text: 'Done.' };
    if (response.calls) {
      let index = 0;
      for (const call of response.calls) {
        const id = CallId(`call_${String(++this.seq).padStart(2, '0')}`);
        const raw = JSON.stringify(call.args);
        yield { type: 'block-start', index, blockType: 'tool-call' };
        for (const piece of pieces(raw, 3)) {
          yield { type: 'tool-call-delta', index, id, name: call.name, argumentsDelta: piece };
        }
        yield { type: 'block-end', index, block: { type: 'tool-call', id, name: call.name, arguments: raw } };
        index++;
      }
      yield { type: 'usage', usage: { inputTokens: 100, outputTokens: 20 } };
      yield { type: 'finish', reason: { kind: 'tool-calls' } };
      return;
    }
    yield { type: 'block-start', index: 0, blockType: 'text' };
    for (const piece of response.text.split(/(?<= )/)) yield { type: 'text-delta', index: 0, text: piece };
    yield { type: 'block-end', index: 0, block: { type: 'text', text: response.text } };
    yield { type: 'usage', usage: { inputTokens: 100, outputTokens: 10 } };
    yield { type: 'finish', reason: { kind: 'stop' } };
  }
}

/** Split `s` into `n` non-empty parts (fewer when it is shorter). */
function pieces(s, n) {
  const size = Math.ceil(s.length / n);
  const out = [];
  for (let i = 0; i < s.length; i += size) out.push(s.slice(i, i + size));
  return out;
}

// Fake shell transcripts, formatted as DSH's bash tool renders them (stdout,
// `[stderr]` section, exit marker last; a clean exit 0 has no marker).
const SHELL = {
  'pandoc report.md -o report.pdf':
    '[WARNING] Missing character: There is no ≥ (U+2265) (U+2265) in font lmroman10-regular!\n' +
    '[WARNING] Missing character: There is no → (U+2192) (U+2192) in font lmroman10-regular!',
  'make docs 2>&1 | tail -n 5':
    'Traceback (most recent call last):\n' +
    '  File "/home/dev/report-site/tools/render.py", line 4, in <module>\n' +
    '    import yaml\n' +
    "ModuleNotFoundError: No module named 'yaml'\n" +
    'docs: 12 pages written to build/',
  'pytest -q tests/test_render.py':
    'F.                                                                       [100%]\n' +
    "FAILED tests/test_render.py::test_toc - KeyError: 'toc'\n" +
    '1 failed, 1 passed in 0.31s\n' +
    '[exit code: 1]',
  'ls build/': 'index.html\nreport.pdf\nstyle.css',
};

function bash(args) {
  return SHELL[args.command] ?? '(no output)';
}

function readFile(args) {
  // A thrown error becomes an `isError: true` tool result (never scanned).
  if (args.path === 'tests/fixtures.py') throw new Error(`ENOENT: no such file or directory, open '${args.path}'`);
  if (args.path === 'tests/conftest.py') return 'import pytest\n\n@pytest.fixture\ndef toc():\n    return {}\n';
  return `contents of ${args.path}`;
}

async function record(compression) {
  const dir = mkdtempSync(join(tmpdir(), `toolguard-record-${compression}-`));
  const ctx = new Context();
  ctx.plugin(LlmRuntime);
  ctx.plugin(SessionStore);
  ctx.plugin(JsonlPersistence, { root: dir, compression, writeBatchMaxDelayMs: 5 });
  ctx.plugin(SystemPrompt, {});
  ctx.plugin(ToolRuntime, {});
  ctx.plugin(AgentRegistry);
  ctx.plugin(AgentLoop, { agents: [] });
  for (let i = 0; i < 400 && !(ctx.get?.('agentLoop') && ctx.get?.('sessionPersistence')); i++) {
    await new Promise((resolve) => setImmediate(resolve));
  }
  const model = new StreamingModel();
  ctx.llm.registerAdapter(['mock'], model);
  const h = new Harness(ctx, model, []);
  await h.plugin(RepeatToolReminder, {});
  h.tool(textTool('bash', bash));
  h.tool(textTool('read_file', readFile));

  const turn = async (agent, steps, prompt, finalText) => {
    model.script(
      agent.id,
      steps.map((calls) => ({ calls })),
    );
    model.script(agent.id, [{ text: finalText }]);
    const { createUserMessage } = await import('@deepseek-ai/dsh-llm');
    agent.followup(createUserMessage({ content: [{ type: 'text', text: prompt }], source: { kind: 'user' } }));
    await agent.whenIdle();
  };
  const sh = (command) => ({ name: 'bash', args: { command } });
  const pytest = sh('pytest -q tests/test_render.py');

  const main = ctx.agentLoop.create(SessionId(MAIN), { provider: 'mock', model: 'mock' }, { cwd: CWD });
  await turn(
    main,
    [
      [sh('pandoc report.md -o report.pdf')],
      [sh('make docs 2>&1 | tail -n 5'), { name: 'read_file', args: { path: 'tools/render.py' } }],
      [pytest],
      [pytest],
      [pytest],
      [pytest],
      [pytest],
    ],
    'Build the report and make the tests pass.',
    'The report is built and the docs are written, but test_toc still fails.',
  );

  // A subagent session: its own log, its own chain; the header names its parent.
  const sub = ctx.agentLoop.create(
    SessionId(SUB),
    { provider: 'mock', model: 'mock' },
    // Cast: create() is typed `Pick<SessionHeader, 'cwd'>`, but it hands the
    // meta whole to sessions.prepare(), which records these lineage fields
    // (the sample-sub header has them; the audit nests the sub under its parent).
    /** @type {any} */ ({
      cwd: CWD,
      parentSession: SessionId(MAIN),
      origin: 'subagent',
      delegationDepth: 1,
    }),
  );
  const conftest = { name: 'read_file', args: { path: 'tests/conftest.py' } };
  await turn(
    sub,
    [[{ name: 'read_file', args: { path: 'tests/fixtures.py' } }], [conftest], [conftest], [conftest], [sh('ls build/')]],
    'Find where the toc fixture is defined.',
    'The toc fixture is in tests/conftest.py and returns an empty dict.',
  );

  // The user speaks: the main chain starts over, so this pytest counts 1.
  await turn(
    main,
    [[pytest]],
    'The toc fixture returns {}; fix it and run the test once more.',
    'Still failing; the fixture needs a title key.',
  );

  await ctx.fiber.dispose();
  return dir;
}

const targets = {
  zstd: [join(root, 'samples/dsh'), join(root, '__test__/audit/fixtures/dsh-zstd')],
  none: [join(root, '__test__/audit/fixtures/dsh-plain')],
};
for (const [compression, outs] of Object.entries(targets)) {
  const dir = await record(compression);
  for (const out of outs) {
    rmSync(out, { recursive: true, force: true });
    cpSync(dir, out, { recursive: true });
    console.log(`recorded ${compression} → ${out}`);
  }
  rmSync(dir, { recursive: true, force: true });
}
