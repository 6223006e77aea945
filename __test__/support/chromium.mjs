// Headless Chromium for the browser tests: Debian's `chromium` package,
// installed here when missing (CI runs as root on Debian), driven with
// playwright-core (no browser download: the system binary is used).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const CHROMIUM = '/usr/bin/chromium';

const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** The Chromium binary, installed with apt-get when missing; throws saying what to do otherwise. */
export function ensureChromium() {
  if (existsSync(CHROMIUM)) return CHROMIUM;
  if (process.getuid?.() !== 0) {
    throw new Error(
      `${CHROMIUM} is missing and this is not root: install Debian's chromium package (apt-get update && apt-get install -y chromium)`,
    );
  }
  // Progress goes to stderr: stdout carries the test runner's report.
  const run = (args) => spawnSync('apt-get', args, { stdio: ['ignore', 2, 2], env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
  const update = run(['update']);
  const install = update.status === 0 ? run(['install', '-y', 'chromium']) : update;
  if (install.status !== 0 || !existsSync(CHROMIUM)) {
    throw new Error(`could not install chromium with apt-get (exit ${install.status}${install.error ? `: ${install.error.message}` : ''})`);
  }
  return CHROMIUM;
}

/** A fresh browser context (its own --user-data-dir, removed on close). */
export async function launchBrowser(viewport = { width: 1280, height: 900 }) {
  const { chromium } = await import('playwright-core');
  const profile = mkdtempSync(join(tmpdir(), 'toolguard-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: ensureChromium(),
    headless: true,
    args: FLAGS,
    viewport,
  });
  return {
    context,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
