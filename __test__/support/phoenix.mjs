// Arize Phoenix (an OpenTelemetry receiver and trace UI, from PyPI) for the
// tests that send spans to a real backend: installed once, pinned, into a
// venv under .tmp/phoenix (so CI needs nothing by hand), started on a free
// loopback port with its data under .tmp, and stopped by the test.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '../..');
/** Pinned: 20.26.1 ships pure-Python wheels for CPython 3.10–3.13. */
export const PHOENIX = 'arize-phoenix==20.26.1';
const home = join(root, '.tmp/phoenix');
const venv = join(root, '.tmp/phoenix-venv');
const marker = join(venv, `installed-${PHOENIX}`);
const bin = join(venv, 'bin');

/** Bounds (ms): the install, Phoenix's start (its migrations take ~1 min on 2 busy cores), a span's arrival. */
export const INSTALL_MS = 15 * 60_000;
export const START_MS = 240_000;
export const ARRIVAL_MS = 60_000;

/** Install Phoenix when missing; a string saying why it cannot be, else undefined. */
export function installPhoenix() {
  if (existsSync(marker)) return undefined;
  const python = process.env.PYTHON || 'python3';
  try {
    mkdirSync(home, { recursive: true });
    if (!existsSync(join(bin, 'python'))) execFileSync(python, ['-m', 'venv', venv], { stdio: 'inherit', timeout: 120_000 });
    execFileSync(
      join(bin, 'python'),
      ['-m', 'pip', 'install', '--quiet', '--disable-pip-version-check', '--root-user-action=ignore', PHOENIX],
      { stdio: ['ignore', 'inherit', 'inherit'], timeout: INSTALL_MS },
    );
  } catch (error) {
    return `could not install ${PHOENIX} from PyPI with ${python} -m venv + pip (${String(error.message).split('\n')[0]})`;
  }
  writeFileSync(marker, '');
  return undefined;
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = /** @type {import('node:net').AddressInfo} */ (server.address());
      server.close(() => resolve(port));
    });
  });
}

/**
 * Start `phoenix serve` and wait (at most {@link START_MS}) until it answers.
 * Resolves to `{ url, stop, log }`; rejects with its output when it exits or times out.
 */
export async function startPhoenix() {
  const [port, grpcPort] = [await freePort(), await freePort()];
  mkdirSync(home, { recursive: true });
  const workingDir = mkdtempSync(join(home, 'run-'));
  const child = spawn(join(bin, 'phoenix'), ['serve'], {
    env: {
      ...process.env,
      PATH: `${bin}:${process.env.PATH}`,
      PHOENIX_WORKING_DIR: workingDir,
      PHOENIX_HOST: '127.0.0.1',
      PHOENIX_PORT: String(port),
      PHOENIX_GRPC_PORT: String(grpcPort),
      PHOENIX_TELEMETRY_ENABLED: 'false',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let log = '';
  child.stdout.on('data', (d) => (log += d));
  child.stderr.on('data', (d) => (log += d));
  let exited = null;
  child.on('exit', (code, signal) => (exited = `exited with ${code ?? signal}`));
  const stop = () => {
    if (exited === null) {
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {}
    }
  };
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + START_MS;
  for (;;) {
    if (exited) throw new Error(`phoenix serve ${exited}:\n${log.slice(-4000)}`);
    if (Date.now() > deadline) {
      stop();
      throw new Error(`phoenix serve did not answer on ${url} within ${START_MS / 1000} s:\n${log.slice(-4000)}`);
    }
    try {
      const res = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(2000) });
      if (res.ok) return { url, stop, log: () => log };
    } catch {}
    await new Promise((r) => setTimeout(r, 1000));
  }
}

/** Poll `GET {url}/v1/projects/default/spans` until `found(spans)` is truthy (at most {@link ARRIVAL_MS}). */
export async function phoenixSpans(url, found) {
  const deadline = Date.now() + ARRIVAL_MS;
  let last;
  for (;;) {
    const res = await fetch(`${url}/v1/projects/default/spans?limit=1000`, { signal: AbortSignal.timeout(10_000) });
    last = res.ok ? (await res.json()).data : `${res.status} ${await res.text()}`;
    if (Array.isArray(last) && found(last)) return last;
    if (Date.now() > deadline) return last;
    await new Promise((r) => setTimeout(r, 1000));
  }
}
