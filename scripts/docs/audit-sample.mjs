#!/usr/bin/env node
// "What the main job prints" (docs/audit.md, linked from the README's quick
// start): `toolguard audit` on the bundled sample, run as a new user runs it
// (a home with no Claude Code or Codex history, no colours).
// __test__/readme.test.mjs fails when the page's copy is stale; refresh it
// with: node scripts/docs/audit-sample.mjs --write
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
const BEGIN = '<!-- audit-sample:begin -->';
const END = '<!-- audit-sample:end -->';
/** The page that shows the sample. */
export const SAMPLE_PAGE = 'docs/audit.md';

/** What `toolguard audit` prints on stdout with no path, in a home without agent histories. */
export function auditSample() {
  const home = mkdtempSync(join(tmpdir(), 'toolguard-home-'));
  try {
    const env = { ...process.env, NO_COLOR: '1', HOME: home, USERPROFILE: home };
    for (const key of ['FORCE_COLOR', 'CLAUDE_CONFIG_DIR', 'CODEX_HOME']) delete env[key];
    const run = spawnSync(process.execPath, ['bin/toolguard.mjs', 'audit'], { cwd: root, encoding: 'utf8', env });
    return run.stdout.replace(/\\/g, '/');
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

/** The output shown between the markers of `readme`. */
export function sampleIn(readme) {
  const block = readme.slice(readme.indexOf(BEGIN), readme.indexOf(END));
  return /```\n([\s\S]*?)```/.exec(block)?.[1];
}

/** `readme` with the output between the markers replaced by `output`. */
export function withSample(readme, output) {
  const start = readme.indexOf(BEGIN);
  const end = readme.indexOf(END);
  if (start < 0 || end < start) throw new Error(`${SAMPLE_PAGE} lacks the ${BEGIN} … ${END} markers`);
  const block = readme.slice(start, end);
  return readme.slice(0, start) + block.replace(/```\n[\s\S]*?```/, () => `\`\`\`\n${output}\`\`\``) + readme.slice(end);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const output = auditSample();
  if (process.argv.includes('--write')) {
    const path = join(root, SAMPLE_PAGE);
    writeFileSync(path, withSample(readFileSync(path, 'utf8'), output));
  } else {
    process.stdout.write(output);
  }
}
