#!/usr/bin/env node
// Record the OpenCode audit fixtures with the REAL CLI against a local
// scripted OpenAI-compatible model (chat completions, streamed). OpenCode is a
// large native package, so it is not a devDependency:
//
//   npm install --prefix /tmp/rd-oc opencode-ai@1.2.20
//   node scripts/record/record-opencode-fixtures.mjs /tmp/rd-oc/node_modules/.bin/opencode
//
// Each scenario is one `opencode run` in a fresh project (HOME and the XDG
// folders point into a temporary directory, so the user's own OpenCode data
// is untouched), then `opencode export <session>`: the JSON that command
// prints is the fixture, byte for byte. Writes (replacing)
// crates/toolguard-audit/tests/fixtures/opencode/<scenario>.json and
// RECORDED-WITH.txt. Not run in CI.
//
// The custom provider is loaded from npm (@ai-sdk/openai-compatible) by
// OpenCode itself on its first run; the model server listens on 127.0.0.1.
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const opencode = process.argv[2];
if (!opencode) {
  console.error('usage: node scripts/record/record-opencode-fixtures.mjs PATH-TO-opencode');
  process.exit(2);
}
const root = join(dirname(fileURLToPath(import.meta.url)), '../..');
const out = join(root, 'crates/toolguard-audit/tests/fixtures/opencode');

/** Each scenario: the prompt, then the tool calls the model asks for, one model message each. */
const SCENARIOS = {
  // Two commands that work, a file read, then the answer.
  normal: [
    [['bash', { command: 'echo hello', description: 'Say hello' }]],
    [['bash', { command: 'ls', description: 'List files' }]],
    [['read', { filePath: 'PROJECT/notes.txt' }]],
  ],
  // A failure hidden by a pipe: the command exits 0, its output is a traceback line.
  silent: [[['bash', { command: "python3 -c 'import nope' 2>&1 | tail -1", description: 'Import a module' }]]],
  // The same failing command four times.
  stuck: [
    [['bash', { command: 'ls /nonexistent-dir', description: 'List a folder' }]],
    [['bash', { command: 'ls /nonexistent-dir', description: 'List a folder' }]],
    [['bash', { command: 'ls /nonexistent-dir', description: 'List a folder' }]],
    [['bash', { command: 'ls /nonexistent-dir', description: 'List a folder' }]],
  ],
  // A tool error (a file that does not exist), an edit, then two calls in one message.
  toolerror: [
    [['read', { filePath: 'PROJECT/missing.txt' }]],
    [['edit', { filePath: 'PROJECT/notes.txt', oldString: 'first line', newString: 'first line, edited' }]],
    [
      ['bash', { command: 'cat notes.txt', description: 'Show the file' }],
      ['bash', { command: 'exit 3', description: 'Fail on purpose' }],
    ],
  ],
};

let scenario = 'normal';
let project = '';
let callSeq = 0;

function sse(res, chunks) {
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  for (const c of chunks) res.write(`data: ${JSON.stringify(c)}\n\n`);
  res.end('data: [DONE]\n\n');
}

function chunk(delta, finish = null) {
  return {
    id: 'chatcmpl-scripted',
    object: 'chat.completion.chunk',
    created: 0,
    model: 'scripted-model',
    choices: [{ index: 0, delta, finish_reason: finish }],
  };
}

function answer(res, body) {
  const b = JSON.parse(body);
  const messages = b.messages ?? [];
  // A request without tools is OpenCode's own (the session title): answer in text.
  if (!b.tools?.length) return sse(res, [chunk({ role: 'assistant', content: `${scenario} run` }), chunk({}, 'stop')]);
  const turns = messages.filter((m) => m.role === 'assistant' && m.tool_calls?.length).length;
  const steps = SCENARIOS[scenario];
  if (turns >= steps.length) return sse(res, [chunk({ role: 'assistant', content: 'Done.' }), chunk({}, 'stop')]);
  const calls = steps[turns].map(([name, args], index) => ({
    index,
    id: `call_${++callSeq}`,
    type: 'function',
    function: { name, arguments: JSON.stringify(args).replaceAll('PROJECT', project) },
  }));
  sse(res, [chunk({ role: 'assistant', content: null, tool_calls: calls }), chunk({}, 'tool_calls')]);
}

const server = createServer((req, res) => {
  let body = '';
  req.on('data', (d) => {
    body += d;
  });
  req.on('end', () => {
    if (req.method === 'POST' && req.url.endsWith('/chat/completions')) return answer(res, body);
    res.writeHead(404).end();
  });
});
await new Promise((r) => server.listen(0, '127.0.0.1', () => r(undefined)));
const port = /** @type {import('node:net').AddressInfo} */ (server.address()).port;

const home = mkdtempSync(join(tmpdir(), 'toolguard-rec-oc-'));
const env = {
  ...process.env,
  HOME: home,
  XDG_CONFIG_HOME: join(home, '.config'),
  XDG_DATA_HOME: join(home, '.local/share'),
  XDG_CACHE_HOME: join(home, '.cache'),
  XDG_STATE_HOME: join(home, '.local/state'),
  OPENCODE_DISABLE_AUTOUPDATE: '1',
  OPENCODE_DISABLE_MODELS_FETCH: '1',
};
const config = {
  $schema: 'https://opencode.ai/config.json',
  autoupdate: false,
  share: 'disabled',
  provider: {
    scripted: {
      npm: '@ai-sdk/openai-compatible',
      name: 'Scripted',
      options: { baseURL: `http://127.0.0.1:${port}/v1`, apiKey: 'none' },
      models: { 'scripted-model': { name: 'Scripted model', tool_call: true } },
    },
  },
  model: 'scripted/scripted-model',
  permission: { edit: 'allow', bash: 'allow', webfetch: 'deny' },
};

function run(args, cwd) {
  return new Promise((resolve, reject) => {
    const child = spawn(opencode, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => {
      stdout += d;
    });
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 180_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      if (code === 0) resolve(stdout);
      else reject(new Error(`opencode ${args[0]} exited ${code}: ${stderr.slice(-2000)}`));
    });
  });
}

mkdirSync(out, { recursive: true });
const version = execFileSync(opencode, ['--version'], { env, encoding: 'utf8' }).trim();
for (const name of Object.keys(SCENARIOS)) {
  scenario = name;
  project = join(home, `project-${name}`);
  mkdirSync(project);
  writeFileSync(join(project, 'opencode.json'), JSON.stringify(config, null, 2));
  writeFileSync(join(project, 'notes.txt'), 'first line\nsecond line\n');
  execFileSync('git', ['init', '-q'], { cwd: project });
  const events = await run(['run', '--format', 'json', `Scripted scenario: ${name}.`], project);
  const id = events.match(/"sessionID":"(ses_[^"]+)"/)?.[1];
  if (!id) throw new Error(`no session id in the run output of ${name}: ${events.slice(0, 500)}`);
  const exported = await run(['export', id], project);
  writeFileSync(join(out, `${name}.json`), exported);
  console.log(`${name}: ${id}`);
}
writeFileSync(
  join(out, 'RECORDED-WITH.txt'),
  `opencode-ai@${version} (npm), \`opencode run\` then \`opencode export <session>\`, against the scripted model of scripts/record/record-opencode-fixtures.mjs\n`,
);
server.close();
