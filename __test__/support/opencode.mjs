// The real OpenCode CLI (the binary the opencode-ai devDependency ships in its
// platform package) against a scripted local model: an OpenAI-compatible
// Chat Completions server. OpenCode runs the scripted tool calls for real; the
// requests it sends next show what the model was given.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { listen, runChild, writeChatCompletion } from './mock-wire.mjs';

const root = join(import.meta.dirname, '../..');
const VERSION = JSON.parse(
  spawnSync(process.execPath, ['-p', "JSON.stringify(require('./package.json').devDependencies['opencode-ai'])"], {
    cwd: root,
    encoding: 'utf8',
  }).stdout,
);

/**
 * The OpenCode binary of this platform (`opencode-<os>-<arch>[-baseline][-musl]`,
 * the optional dependencies of `opencode-ai`, tried in the order its own
 * installer tries them), or `{ skip }` saying why there is none that runs.
 */
export function openCodeBinary() {
  const os = { win32: 'windows' }[process.platform] ?? process.platform;
  const base = `opencode-${os}-${process.arch}`;
  const exe = process.platform === 'win32' ? 'opencode.exe' : 'opencode';
  const tried = [];
  for (const name of [base, `${base}-baseline`, `${base}-musl`, `${base}-baseline-musl`]) {
    const bin = join(root, 'node_modules', name, 'bin', exe);
    if (!existsSync(bin)) continue;
    // The AVX2 build dies at once on a CPU without it: the baseline build is next.
    const run = spawnSync(bin, ['--version'], { encoding: 'utf8', timeout: 120_000 });
    if (run.status === 0 && run.stdout.trim() === VERSION) return { bin, version: VERSION };
    tried.push(`${name}: ${run.error?.message ?? `exit ${run.status ?? run.signal}: ${(run.stderr || run.stdout).trim().slice(0, 200)}`}`);
  }
  return {
    skip: tried.length
      ? `no OpenCode ${VERSION} binary runs on ${process.platform}-${process.arch} (${tried.join('; ')})`
      : `no OpenCode binary for ${process.platform}-${process.arch} under node_modules/${base}* (the opencode-ai devDependency's platform package)`,
  };
}

/**
 * The scripted model. `turns[i]` is the script of the user message `turn i`:
 * a list of steps, each a call — a bash command, or `{name, input}` for
 * another tool — or a list of them (parallel calls of one response). The main loop is the request that offers OpenCode's `bash`
 * tool; it gets the script's next step until the script is done, then the
 * text `done`. Side requests (the session title) get a short text.
 * `requests`: the main loop's request bodies, in order.
 */
export async function scriptedChatModel(turns) {
  const requests = [];
  const server = await listen((req, res, body) => {
    if (req.method !== 'POST' || !req.url.includes('/chat/completions')) {
      res.writeHead(404, { 'content-type': 'application/json' });
      return res.end('{}');
    }
    const b = JSON.parse(body);
    const main = (b.tools ?? []).some((t) => t.function?.name === 'bash');
    if (!main) return writeChatCompletion(res, { id: 'title', model: b.model, text: 'a title' });
    requests.push(b);
    // Where the conversation is: which user turn, and how many model steps since it began.
    let turn = -1;
    let steps = 0;
    for (const m of b.messages) {
      const text = typeof m.content === 'string' ? m.content : (m.content ?? []).map((p) => p.text ?? '').join('');
      // `opencode run` quotes a message argument that holds a space.
      const asked = m.role === 'user' ? /^"?turn (\d+)"?$/.exec(text.trim()) : null;
      if (asked) {
        turn = Number(asked[1]);
        steps = 0;
      } else if (m.role === 'assistant' && m.tool_calls?.length) steps++;
    }
    const step = (turns[turn] ?? [])[steps];
    const calls =
      step === undefined
        ? undefined
        : (Array.isArray(step) ? step : [step]).map((command, i) => ({
            id: `call_${turn}_${steps + 1}${Array.isArray(step) ? `_${i + 1}` : ''}`,
            ...(typeof command === 'string' ? { name: 'bash', input: { command, description: 'step' } } : command),
          }));
    writeChatCompletion(res, { id: `chatcmpl_${requests.length}`, model: b.model, calls, text: 'done' });
  });
  return { server, requests };
}

/** Each tool result the model was sent (the `tool` messages), by call id, in order. */
export function toolResults(requests) {
  const seen = new Map();
  for (const b of requests)
    for (const m of b.messages) {
      if (m.role !== 'tool') continue;
      const text = typeof m.content === 'string' ? m.content : m.content.map((p) => p.text ?? '').join('');
      seen.set(m.tool_call_id, { id: m.tool_call_id, text });
    }
  return [...seen.values()];
}

/**
 * A project and a home for OpenCode in `scratch`: `node_modules/toolguard`
 * (this repository), `opencode.json` with the scripted model as its provider
 * and `config(projectDir)` merged in, and `files` (path → text) written. OpenCode installs
 * `@opencode-ai/plugin` into each config folder at start-up unless a lock file
 * already lists it: the test's folders say it is there, so nothing is fetched.
 * @param {string} scratch
 * @param {number} port
 * @param {{ config?: (cwd: string) => object, files?: Record<string, string> }} [options]
 */
export function openCodeProject(scratch, port, { config = () => ({}), files = {} } = {}) {
  const work = mkdtempSync(join(scratch, 'opencode-'));
  const home = join(work, 'home');
  const cwd = join(work, 'project');
  mkdirSync(join(cwd, 'node_modules'), { recursive: true });
  symlinkSync(root, join(cwd, 'node_modules', 'toolguard'), 'dir');
  for (const dir of [join(cwd, '.opencode'), join(home, '.config', 'opencode')]) {
    mkdirSync(join(dir, 'node_modules'), { recursive: true });
    const dependencies = { '@opencode-ai/plugin': VERSION };
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ dependencies }));
    writeFileSync(join(dir, 'package-lock.json'), JSON.stringify({ lockfileVersion: 3, packages: { '': { dependencies } } }));
  }
  const provider = {
    npm: '@ai-sdk/openai-compatible',
    name: 'scripted',
    options: { baseURL: `http://127.0.0.1:${port}/v1`, apiKey: 'sk-test' },
    models: { m: { name: 'm', tool_call: true } },
  };
  writeFileSync(
    join(cwd, 'opencode.json'),
    JSON.stringify({
      $schema: 'https://opencode.ai/config.json',
      provider: { scripted: provider },
      model: 'scripted/m',
      small_model: 'scripted/m',
      autoupdate: false,
      share: 'disabled',
      ...config(cwd),
    }),
  );
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(cwd, path, '..'), { recursive: true });
    writeFileSync(join(cwd, path), text);
  }
  const env = {
    ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('OPENCODE'))),
    HOME: home,
    // OpenCode takes the project folder from $PWD when it is set (the parent's, else).
    PWD: cwd,
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_DATA_HOME: join(home, '.local', 'share'),
    XDG_CACHE_HOME: join(home, '.cache'),
    XDG_STATE_HOME: join(home, '.local', 'state'),
    // Nothing from the network: no model catalogue, no update check, no default (npm) plugins, no LSP.
    OPENCODE_DISABLE_MODELS_FETCH: '1',
    OPENCODE_DISABLE_AUTOUPDATE: '1',
    OPENCODE_DISABLE_DEFAULT_PLUGINS: '1',
    OPENCODE_DISABLE_LSP_DOWNLOAD: '1',
  };
  return { cwd, env };
}

/** How long one OpenCode step may take on a loaded 2-core machine before the test gives up. */
const DEADLINE_MS = 300_000;

/** `opencode run "turn 0"`: one user message, one process (killed past the deadline). Resolves to {code, out}. */
export function openCodeRun(bin, project) {
  return runChild(bin, ['run', 'turn 0'], { cwd: project.cwd, env: project.env, timeout: DEADLINE_MS });
}

/**
 * `opencode serve` in the project, then one session through its HTTP API, one
 * user message per turn (`turn 0`, `turn 1`, …), each sent when the previous
 * one's answer is complete: several user turns in one OpenCode process.
 */
export async function openCodeServe(bin, project, turns) {
  const child = spawn(bin, ['serve', '--port', '0'], { cwd: project.cwd, env: project.env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  try {
    const url = await new Promise((resolve, reject) => {
      const seen = (d) => {
        out += d;
        const m = /listening on (http:\/\/[^\s]+)/.exec(out);
        if (m) resolve(m[1]);
      };
      child.stdout.on('data', seen);
      child.stderr.on('data', seen);
      child.on('close', (code) => reject(new Error(`opencode serve exited with ${code}: ${out}`)));
      setTimeout(() => reject(new Error(`opencode serve did not listen within ${DEADLINE_MS} ms: ${out}`)), DEADLINE_MS).unref();
    });
    const post = async (path, body) => {
      const res = await fetch(`${url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(DEADLINE_MS),
      });
      if (!res.ok) throw new Error(`POST ${path}: ${res.status} ${await res.text()}`);
      return res.json();
    };
    const session = await post('/session', {});
    for (let i = 0; i < turns; i++) await post(`/session/${session.id}/message`, { parts: [{ type: 'text', text: `turn ${i}` }] });
    return { out };
  } finally {
    child.kill();
  }
}
