#!/usr/bin/env node
// Record the Gemini CLI audit fixtures with the REAL CLI against a local
// scripted model that speaks the Gemini API (`GOOGLE_GEMINI_BASE_URL`).
// Gemini CLI is a large package, so it is not a devDependency:
//
//   npm install --prefix /tmp/rd-gem --ignore-scripts @google/gemini-cli@0.61.0
//   node scripts/record/record-gemini-fixtures.mjs /tmp/rd-gem/node_modules/.bin/gemini
//
// Each scenario is one `gemini -p … --approval-mode yolo` in a fresh project
// (HOME points into a temporary directory, so the user's own Gemini CLI
// data is untouched); the session the CLI recorded
// (~/.gemini/tmp/<project>/chats/session-*.jsonl) is the fixture, byte for
// byte. Writes (replacing) crates/toolguard-audit/tests/fixtures/gemini-cli/
// <scenario>.jsonl and RECORDED-WITH.txt. Not run in CI.
import { execFileSync, spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const gemini = process.argv[2];
if (!gemini) {
  console.error('usage: node scripts/record/record-gemini-fixtures.mjs PATH-TO-gemini');
  process.exit(2);
}
const root = join(dirname(fileURLToPath(import.meta.url)), '../..');
const out = join(root, 'crates/toolguard-audit/tests/fixtures/gemini-cli');

/** Each scenario: the tool calls the model asks for, one model turn each. */
const SCENARIOS = {
  // Two commands that work, a file read, then the answer.
  normal: [
    [['run_shell_command', { command: 'echo hello', description: 'Say hello' }]],
    [['run_shell_command', { command: 'ls', description: 'List files' }]],
    [['read_file', { file_path: 'notes.txt' }]],
  ],
  // A failure hidden by a pipe: the command exits 0, its output is a traceback line.
  silent: [[['run_shell_command', { command: "python3 -c 'import nope' 2>&1 | tail -1" }]]],
  // The same failing command four times.
  stuck: [
    [['run_shell_command', { command: 'ls /nonexistent-dir' }]],
    [['run_shell_command', { command: 'ls /nonexistent-dir' }]],
    [['run_shell_command', { command: 'ls /nonexistent-dir' }]],
    [['run_shell_command', { command: 'ls /nonexistent-dir' }]],
  ],
  // A tool error (a file that does not exist), then two calls in one turn.
  toolerror: [
    [['read_file', { file_path: 'missing.txt' }]],
    [
      ['run_shell_command', { command: 'cat notes.txt' }],
      ['run_shell_command', { command: 'exit 3' }],
    ],
  ],
};

let scenario = 'normal';
const requests = [];

function sse(res, responses) {
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  for (const r of responses) res.write(`data: ${JSON.stringify(r)}\r\n\r\n`);
  res.end();
}

const usage = { promptTokenCount: 100, candidatesTokenCount: 10, totalTokenCount: 110 };
const reply = (parts) => ({
  candidates: [{ content: { role: 'model', parts }, finishReason: 'STOP', index: 0 }],
  usageMetadata: usage,
  modelVersion: 'gemini-2.5-flash',
});

function answer(req, res, body) {
  const b = JSON.parse(body || '{}');
  requests.push({ url: req.url, tools: Boolean(b.tools?.length) });
  const stream = req.url.includes(':streamGenerateContent');
  if (req.url.includes(':countTokens')) {
    res.writeHead(200, { 'content-type': 'application/json' });
    return res.end(JSON.stringify({ totalTokens: 100 }));
  }
  // The CLI's own side requests (routing, next speaker, titles): no tools.
  if (!b.tools?.length) {
    const schema = b.generationConfig?.responseJsonSchema ?? b.generationConfig?.responseSchema;
    const text = schema ? JSON.stringify({ reasoning: 'scripted', next_speaker: 'user', model_choice: 'flash' }) : `${scenario} run`;
    const r = reply([{ text }]);
    if (stream) return sse(res, [r]);
    res.writeHead(200, { 'content-type': 'application/json' });
    return res.end(JSON.stringify(r));
  }
  const turns = (b.contents ?? []).filter((c) => c.role === 'model' && c.parts?.some((p) => p.functionCall)).length;
  const steps = SCENARIOS[scenario];
  const parts = turns >= steps.length ? [{ text: 'Done.' }] : steps[turns].map(([name, args]) => ({ functionCall: { name, args } }));
  if (stream) return sse(res, [reply(parts)]);
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify(reply(parts)));
}

const server = createServer((req, res) => {
  let body = '';
  req.on('data', (d) => {
    body += d;
  });
  req.on('end', () => {
    if (req.method === 'POST') return answer(req, res, body);
    res.writeHead(404).end();
  });
});
await new Promise((r) => server.listen(0, '127.0.0.1', () => r(undefined)));
const port = /** @type {import('node:net').AddressInfo} */ (server.address()).port;

const home = mkdtempSync(join(tmpdir(), 'toolguard-rec-gem-'));
mkdirSync(join(home, '.gemini'));
writeFileSync(
  join(home, '.gemini/settings.json'),
  JSON.stringify({
    security: { auth: { selectedType: 'gemini-api-key' } },
    general: { disableAutoUpdate: true },
    privacy: { usageStatisticsEnabled: false },
    telemetry: { enabled: false },
  }),
);
const env = {
  ...process.env,
  HOME: home,
  GEMINI_API_KEY: 'scripted',
  GOOGLE_GEMINI_BASE_URL: `http://127.0.0.1:${port}`,
  GEMINI_CLI_NO_RELAUNCH: 'true',
  NO_COLOR: '1',
  GEMINI_CLI_TRUST_WORKSPACE: 'true',
};

function run(args, cwd) {
  return new Promise((resolve, reject) => {
    const child = spawn(gemini, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
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
      else reject(new Error(`gemini exited ${code}: ${stderr.slice(-3000)}`));
    });
  });
}

function sessionsUnder(dir) {
  const found = [];
  for (const e of readdirSync(dir, { withFileTypes: true, recursive: true }))
    if (e.isFile() && /^session-.*\.jsonl?$/.test(e.name) && (e.parentPath ?? e.path).endsWith('chats'))
      found.push(join(e.parentPath ?? e.path, e.name));
  return found;
}

mkdirSync(out, { recursive: true });
const version = execFileSync(gemini, ['--version'], { env, encoding: 'utf8' }).trim();
for (const name of Object.keys(SCENARIOS)) {
  scenario = name;
  const project = join(home, `project-${name}`);
  mkdirSync(project);
  writeFileSync(join(project, 'notes.txt'), 'first line\nsecond line\n');
  const before = new Set(sessionsUnder(join(home, '.gemini')));
  await run(['-m', 'gemini-2.5-flash', '--approval-mode', 'yolo', '-p', `Scripted scenario: ${name}.`], project);
  const made = sessionsUnder(join(home, '.gemini')).filter((f) => !before.has(f));
  if (made.length !== 1) throw new Error(`${name}: expected one new session file, found ${made.length}`);
  copyFileSync(made[0], join(out, `${name}.jsonl`));
  console.log(`${name}: ${made[0]}`);
}
writeFileSync(
  join(out, 'RECORDED-WITH.txt'),
  `@google/gemini-cli@${version} (npm), \`gemini -p … --approval-mode yolo\`, against the scripted model of scripts/record/record-gemini-fixtures.mjs\n`,
);
console.log(JSON.stringify(requests.map((r) => r.url)));
server.close();
