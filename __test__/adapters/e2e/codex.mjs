// End-to-end check of `toolguard hook` inside the real Codex CLI.
// Not part of `npm test` (Codex is a large native binary, not a devDependency):
//
//   npm install --prefix /tmp/cx @openai/codex@0.171.0
//   node __test__/adapters/e2e/codex.mjs /tmp/cx/node_modules/@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex
//
// A local mock of the Responses API scripts the model: three identical shell
// calls, one whose output is a Python traceback with exit 0, one with the
// same traceback and exit 3, then a final answer. Codex runs them and the
// hooks (trusted the way its `/hooks` review does: the hashes `hooks/list`
// reports, written to `hooks.state`). The script then checks what the model
// received: the loop alarm (a developer message after the 3rd call), the full
// failure text in place of the exit-0 output (Codex replaces a blocked
// output), and the exit-3 output left alone (the exit code came from the
// transcript). Exit 0 = pass; the hook payloads are saved for the fixture.
import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import assert from 'node:assert/strict';
import { GuardEngine } from 'toolguard';
import { listen, runChild, writeResponse } from '../../support/mock-wire.mjs';
import { replayPostToolUse } from './replay.mjs';

const codex = process.argv[2];
if (!codex) {
  console.error('usage: node __test__/adapters/e2e/codex.mjs <path to the codex binary>');
  process.exit(2);
}
const root = join(dirname(fileURLToPath(import.meta.url)), '../../..');
const work = mkdtempSync(join(tmpdir(), 'toolguard-codex-e2e-'));
const home = join(work, 'home');
const codexHome = join(home, '.codex');
const cwd = join(work, 'project');
mkdirSync(codexHome, { recursive: true });
mkdirSync(cwd);
const payloads = join(work, 'payloads.jsonl');

const traceback = `printf 'Traceback (most recent call last):\\n  File "x.py", line 1\\nValueError: bad\\n'`;
const script = ['echo hi', 'echo hi', 'echo hi', traceback, `${traceback}; exit 3`];
const requests = [];

const server = await listen((req, res, body) => {
  if (req.method !== 'POST' || !req.url.includes('/responses')) {
    res.writeHead(404);
    return res.end('{}');
  }
  const b = JSON.parse(body);
  requests.push(b);
  const done = (b.input ?? []).filter((i) => i.type === 'function_call_output').length;
  const names = (b.tools ?? []).map((t) => t.name);
  const shell = names.includes('exec_command') ? 'exec_command' : 'shell';
  const args = (cmd) => (shell === 'exec_command' ? { cmd } : { command: ['bash', '-lc', cmd] });
  const item =
    done < script.length
      ? {
          type: 'function_call',
          id: `fc_${requests.length}`,
          call_id: `call_${done + 1}`,
          name: shell,
          arguments: JSON.stringify(args(script[done])),
          status: 'completed',
        }
      : {
          type: 'message',
          id: `msg_${requests.length}`,
          role: 'assistant',
          status: 'completed',
          content: [{ type: 'output_text', text: 'done', annotations: [] }],
        };
  writeResponse(res, { id: `resp_${requests.length}`, items: [item] });
});
const port = server.address().port;

// The registered command records each payload (one line each) and hands it to `toolguard hook`.
const recorder = join(work, 'record.mjs');
writeFileSync(
  recorder,
  [
    "import { appendFileSync, readFileSync } from 'node:fs';",
    "import { spawnSync } from 'node:child_process';",
    "const input = readFileSync(0, 'utf8');",
    `appendFileSync(${JSON.stringify(payloads)}, input.trim() + '\\n');`,
    `const r = spawnSync(process.execPath, [${JSON.stringify(join(root, 'bin/toolguard.mjs'))}, 'hook'], { input, stdio: ['pipe', 'inherit', 'inherit'] });`,
    'process.exitCode = r.status ?? 1;',
    '',
  ].join('\n'),
);
const command = `${process.execPath} ${recorder}`;
writeFileSync(
  join(codexHome, 'hooks.json'),
  JSON.stringify({
    hooks: {
      PostToolUse: [{ matcher: '*', hooks: [{ type: 'command', command }] }],
      UserPromptSubmit: [{ hooks: [{ type: 'command', command }] }],
    },
  }),
);
const config = [
  'model = "gpt-5.1-codex"',
  'model_provider = "mock"',
  '[model_providers.mock]',
  'name = "mock"',
  `base_url = "http://127.0.0.1:${port}/v1"`,
  'wire_api = "responses"',
  'env_key = "MOCK_API_KEY"',
  '',
].join('\n');
writeFileSync(join(codexHome, 'config.toml'), config);
const env = { ...process.env, HOME: home, CODEX_HOME: codexHome, MOCK_API_KEY: 'x', TOOLGUARD_STATE_DIR: join(work, 'state') };

const run = (args, input) => runChild(codex, args, { cwd, env }, input);

// Trust the hooks as the /hooks review does: record the hashes Codex computes.
const listed = await run(
  ['app-server'],
  [
    JSON.stringify({ id: 1, method: 'initialize', params: { clientInfo: { name: 'e2e', title: 'e2e', version: '1' } } }),
    JSON.stringify({ method: 'initialized' }),
    JSON.stringify({ id: 2, method: 'hooks/list', params: { cwds: [cwd] } }),
    '',
  ].join('\n'),
);
const hooks = listed.out
  .split('\n')
  .filter((l) => l.includes('"id":2'))
  .map((l) => JSON.parse(l).result.data[0].hooks)[0];
assert.ok(hooks?.length === 2, `hooks/list: ${listed.out.slice(0, 500)}`);
appendFileSync(
  join(codexHome, 'config.toml'),
  hooks.map((h) => `[hooks.state.${JSON.stringify(h.key)}]\ntrusted_hash = ${JSON.stringify(h.currentHash)}\n`).join('\n'),
);

const version = (await run(['--version'])).out.trim().split('\n').at(-1);
const result = await run(['exec', '--skip-git-repo-check', '--dangerously-bypass-approvals-and-sandbox', 'go']);
server.close();

const outputs = requests
  .at(-1)
  .input.filter((i) => i.type === 'function_call_output')
  .map((i) => i.output);
const last = JSON.stringify(requests[3]?.input ?? []);
const said = replayPostToolUse(root, payloads, join(work, 'replay-state'));
const loopAlarm = said[2]?.hookSpecificOutput?.additionalContext ?? '';
const failure = new GuardEngine({ loudFailure: { shellTools: ['Bash'] } }).observe(
  { name: 'Bash', argumentsJson: '{}' },
  { text: 'Traceback (most recent call last):\n  File "x.py", line 1\nValueError: bad\n' },
).failure.text;

try {
  assert.equal(result.code, 0, result.out);
  assert.equal(outputs.length, 5, `the model saw 5 tool outputs (got ${outputs.length})`);
  assert.equal(said[1], null, 'the hook says nothing on the 2nd call');
  assert.match(
    loopAlarm,
    /^\[toolguard\] Loop detected: Bash was called 3 times in a row/,
    'the hook raises a repeat alarm on the 3rd call',
  );
  assert.ok(!JSON.stringify(requests[2]?.input ?? []).includes('[toolguard]'), 'no alarm after the 2nd call');
  assert.ok(last.includes(JSON.stringify(loopAlarm).slice(1, -1)), 'the loop alarm reached the model after the 3rd call');
  assert.equal(outputs[3], failure, 'the exit-0 traceback output was replaced by the whole failure text');
  assert.match(outputs[4], /Process exited with code 3/, 'the exit-3 output is left alone');
  assert.doesNotMatch(outputs[4], /loud-failure/);
} catch (error) {
  console.error(`FAIL (${version}): ${error.message}\nwork dir: ${work}`);
  process.exit(1);
}
console.log(
  `PASS: ${version} — loop alarm, replaced exit-0 failure and untouched exit-3 output as expected; hook payloads in ${payloads} (${readFileSync(payloads, 'utf8').trim().split('\n').length} events)`,
);
