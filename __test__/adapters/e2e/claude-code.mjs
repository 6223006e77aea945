// End-to-end check of `toolguard hook` inside the real Claude Code CLI.
// Not part of `npm test`. Point it at a Claude Code binary: the devDependency
// @anthropic-ai/claude-agent-sdk ships one (0.3.333: Claude Code 2.1.333, in
// $PWD/node_modules/@anthropic-ai/claude-agent-sdk-linux-x64/claude; PASS with it), or install a
// given version anywhere:
//
//   npm install --prefix /tmp/cc @anthropic-ai/claude-code@2.1.332
//   node __test__/adapters/e2e/claude-code.mjs /tmp/cc/node_modules/@anthropic-ai/claude-code-linux-x64/claude
//
// A local mock of the Anthropic Messages API scripts the model: three
// identical Bash calls, one whose output is a Python traceback (exit 0), the
// same with exit 3, then a final answer. Claude Code runs the commands and the hooks; the
// script then reads the requests the model received and checks that the
// reminder (3rd call) and the failure header (4th call) reached the model,
// and it saves the hook payloads Claude Code sent (for the fixture
// `__test__/adapters/fixtures/claude-code-<version>.jsonl`). Exit 0 = pass.
import { spawnSync } from 'node:child_process';
import { createServer } from 'node:http';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import assert from 'node:assert/strict';
import { GuardEngine } from 'toolguard';

const claude = process.argv[2];
if (!claude) {
  console.error('usage: node __test__/adapters/e2e/claude-code.mjs <path to the claude binary>');
  process.exit(2);
}
const root = join(dirname(fileURLToPath(import.meta.url)), '../../..');
const work = mkdtempSync(join(tmpdir(), 'toolguard-cc-e2e-'));
const home = join(work, 'home');
const cwd = join(work, 'project');
mkdirSync(home);
mkdirSync(cwd);
const payloads = join(work, 'payloads.jsonl');

const traceback = `printf 'Traceback (most recent call last):\\n  File "x.py", line 1\\nValueError: bad\\n'`;
const script = ['echo hi', 'echo hi', 'echo hi', traceback, `${traceback}; exit 3`];
const requests = [];

function sse(res, content, stop) {
  const events = [{ type: 'message_start', message: { id: `msg_${requests.length}`, type: 'message', role: 'assistant', model: 'claude-sonnet-4-5', content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 10, output_tokens: 1 } } }];
  content.forEach((block, index) => {
    const start = block.type === 'tool_use' ? { ...block, input: {} } : { type: 'text', text: '' };
    const delta = block.type === 'tool_use' ? { type: 'input_json_delta', partial_json: JSON.stringify(block.input) } : { type: 'text_delta', text: block.text };
    events.push({ type: 'content_block_start', index, content_block: start }, { type: 'content_block_delta', index, delta }, { type: 'content_block_stop', index });
  });
  events.push({ type: 'message_delta', delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: 5 } }, { type: 'message_stop' });
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  for (const e of events) res.write(`event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`);
  res.end();
}

const server = createServer((req, res) => {
  let body = '';
  req.on('data', (d) => (body += d));
  req.on('end', () => {
    if (!req.url.startsWith('/v1/messages') || req.url.includes('count_tokens')) {
      res.writeHead(200, { 'content-type': 'application/json' });
      return res.end(JSON.stringify({ input_tokens: 10 }));
    }
    const b = JSON.parse(body);
    requests.push(b);
    // The main loop is the request that offers the Bash tool; side requests get a short text.
    const main = (b.tools ?? []).some((t) => t.name === 'Bash');
    const done = b.messages.flatMap((m) => (Array.isArray(m.content) ? m.content : [])).filter((c) => c.type === 'tool_result').length;
    let content = [{ type: 'text', text: main ? 'done' : 'ok' }];
    let stop = 'end_turn';
    if (main && done < script.length) {
      content = [{ type: 'tool_use', id: `toolu_${done + 1}`, name: 'Bash', input: { command: script[done], description: 'step' } }];
      stop = 'tool_use';
    }
    if (b.stream) return sse(res, content, stop);
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ id: 'msg', type: 'message', role: 'assistant', model: b.model, content, stop_reason: stop, stop_sequence: null, usage: { input_tokens: 10, output_tokens: 5 } }));
  });
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const port = server.address().port;

const hook = `tee -a ${payloads} | ${process.execPath} ${join(root, 'bin/toolguard.mjs')} hook`;
const settings = join(work, 'settings.json');
writeFileSync(
  settings,
  JSON.stringify({
    permissions: { allow: ['Bash'] },
    hooks: {
      PostToolUse: [{ matcher: '*', hooks: [{ type: 'command', command: hook }] }],
      UserPromptSubmit: [{ hooks: [{ type: 'command', command: hook }] }],
      SessionEnd: [{ hooks: [{ type: 'command', command: hook }] }],
    },
  }),
);

const version = spawnSync(claude, ['--version'], { encoding: 'utf8', env: { ...process.env, HOME: home } }).stdout.trim();
const run = await new Promise((resolve) => {
  // Async spawn: the mock server answers on this event loop.
  import('node:child_process').then(({ spawn }) => {
    const child = spawn(claude, ['-p', 'go', '--settings', settings, '--model', 'claude-sonnet-4-5'], {
      cwd,
      env: {
        ...process.env,
        HOME: home,
        ANTHROPIC_BASE_URL: `http://127.0.0.1:${port}`,
        ANTHROPIC_API_KEY: 'sk-test',
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
        DISABLE_AUTOUPDATER: '1',
        TOOLGUARD_STATE_DIR: join(work, 'state'),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    child.on('close', (code) => resolve({ code, out }));
  });
});
server.close();

const results = requests
  .filter((b) => (b.tools ?? []).some((t) => t.name === 'Bash'))
  .map((b) => b.messages.at(-1).content)
  .filter((c) => Array.isArray(c) && c[0]?.type === 'tool_result')
  .map((c) => (typeof c[0].content === 'string' ? c[0].content : JSON.stringify(c[0].content)));
const engine = new GuardEngine();
const reminder = [1, 2, 3].map(() => engine.observe({ agentId: 'a', name: 'Bash', arguments: { command: 'echo hi', description: 'step' } })?.reminder?.text)[2];

try {
  assert.equal(run.code, 0, run.out);
  assert.equal(results.length, 5, `the model saw 5 tool results (got ${results.length})`);
  assert.ok(!results[1].includes('You are repeating'), 'no reminder on the 2nd call');
  assert.ok(results[2].includes(reminder), 'the reminder reached the model with the 3rd result');
  assert.ok(results[3].includes('[loud-failure] Bash exited 0 but its output shows it failed:\n- python-traceback (line 1)'), 'the failure header reached the model');
  assert.ok(!results[3].includes('Original output:'), 'the output is not repeated in the reason');
  assert.ok(!results[4].includes('loud-failure'), 'a non-zero exit is left to Claude Code');
} catch (error) {
  console.error(`FAIL (Claude Code ${version}): ${error.message}\nwork dir: ${work}`);
  process.exit(1);
}
const fixture = readFileSync(payloads, 'utf8');
console.log(`PASS: Claude Code ${version} — reminder and failure header reached the model; hook payloads in ${payloads} (${fixture.trim().split('\n').length} events)`);
