// `toolguard mcp` behind a real MCP client: Claude Code (the binary the Claude
// Agent SDK ships, driven through the SDK) starts the proxy from an
// `mcpServers` entry, exactly as a user's config would, with the real
// `@modelcontextprotocol/server-everything` behind it. A scripted model calls
// its `echo` tool; the test reads what the model was sent next.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { GuardEngine } from 'toolguard';
import { runSession } from '../support/scripted-model.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '../..');
const EVERYTHING = join(root, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
const scratch = mkdtempSync(join(tmpdir(), 'toolguard-mcp-cc-test-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

const traceback = '\nTraceback (most recent call last):\n  File "app.py", line 3, in <module>\nValueError: bad input';
const ECHO = 'mcp__everything__echo';

describe('toolguard mcp as an mcpServers entry of Claude Code', () => {
  let session;
  before(async () => {
    const config = join(scratch, 'guard.json');
    writeFileSync(config, JSON.stringify({ loudFailure: { shellTools: ['echo'] } }));
    const echo = (message) => ({ name: ECHO, input: { message } });
    session = await runSession([[echo('hi'), echo('hi'), echo('hi'), echo(traceback)]], scratch, {
      mcpServers: {
        everything: {
          type: 'stdio',
          command: process.execPath,
          args: [join(root, 'bin/toolguard.mjs'), 'mcp', '--config', config, '--', process.execPath, EVERYTHING],
        },
      },
      allowedTools: [ECHO],
    });
  });

  it('the model reads the loop alarm at the 3rd identical call, and a scanned failure as an error with the header', () => {
    assert.equal(session.results.length, 4, `the model saw 4 tool results (got ${session.results.length})\n${session.stderr}`);
    // The proxy runs the loop detectors by default, as every product does.
    const engine = new GuardEngine({ loudFailure: { shellTools: ['echo'] }, loops: {} });
    const verdicts = ['hi', 'hi', 'hi', traceback].map((message) =>
      engine.observe({ agentId: 'a', name: 'echo', arguments: { message } }, { content: [{ type: 'text', text: `Echo: ${message}` }] }),
    );
    const [first, second, third, failed] = session.results;
    for (const r of [first, second]) {
      assert.match(r.text, /^Echo: hi/);
      assert.ok(!r.text.includes(verdicts[2].loop.text));
    }
    assert.ok(third.text.includes(verdicts[2].loop.text), third.text);
    assert.equal(failed.isError, true, 'Claude Code passes isError on to the model');
    assert.ok(failed.text.startsWith(verdicts[3].failure.text), failed.text);
  });
});
