// toolguard/claude-agent-sdk and parallel calls, in the
// real Agent SDK: Claude Code runs the read-only Bash calls of one model
// response in parallel (every PreToolUse before the first result), so the
// calls after the first to come back are `exec.concurrent` and nine
// identical ones draw no loop alarm; the same nine, one per response, do.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { query } from '@anthropic-ai/claude-agent-sdk';
import { toolguardHooks } from 'toolguard/claude-agent-sdk';
import { messagesServer } from '../support/mock-wire.mjs';
import { toolResults } from '../support/scripted-model.mjs';

const scratch = mkdtempSync(join(tmpdir(), 'toolguard-agent-sdk-parallel-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

/** Nine `cat a.txt` calls: all in one response (`parallel`), or one per response. What the model was sent of each. */
async function nineReads(parallel) {
  const home = mkdtempSync(join(scratch, 'home-'));
  const cwd = join(home, 'project');
  mkdirSync(cwd);
  writeFileSync(join(cwd, 'a.txt'), 'x = 1\n');
  const call = (i) => ({ id: `toolu_${i}`, name: 'Bash', input: { command: 'cat a.txt', description: 'read' } });
  const { server, requests } = await messagesServer(
    (body) => {
      const done = body.messages.flatMap((m) => (Array.isArray(m.content) ? m.content : [])).filter((c) => c.type === 'tool_result').length;
      if (parallel) return done === 0 ? Array.from({ length: 9 }, (_, i) => call(i + 1)) : undefined;
      return done < 9 ? call(done + 1) : undefined;
    },
    { model: 'claude-sonnet-4-5', stream: true },
  );
  let stderr = '';
  try {
    for await (const message of query({
      prompt: 'go',
      options: {
        cwd,
        model: 'claude-sonnet-4-5',
        allowedTools: ['Bash'],
        permissionMode: 'default',
        settingSources: [],
        hooks: toolguardHooks(),
        stderr: (d) => (stderr += d),
        env: {
          ...process.env,
          HOME: home,
          CLAUDE_CONFIG_DIR: join(home, '.claude'),
          ANTHROPIC_BASE_URL: `http://127.0.0.1:${server.address().port}`,
          ANTHROPIC_API_KEY: 'sk-test',
          CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
          DISABLE_AUTOUPDATER: '1',
        },
      },
    })) {
      if (message.type === 'result') break;
    }
  } finally {
    server.close();
  }
  const results = toolResults(requests);
  assert.equal(results.length, 9, stderr);
  return results;
}

const alarms = (results) => results.filter((r) => /Loop detected/.test(r.text)).length;

describe('toolguard/claude-agent-sdk: parallel calls', () => {
  it('nine identical calls of one response raise no loop alarm; the same nine one after another do', async () => {
    assert.equal(alarms(await nineReads(true)), 0);
    assert.ok(alarms(await nineReads(false)) > 0);
  });
});
