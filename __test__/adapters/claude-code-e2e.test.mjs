// The real Claude Code CLI (the binary the @anthropic-ai/claude-agent-sdk
// devDependency ships for this platform) running `toolguard hook` against a
// scripted local model: e2e/claude-code.mjs. Among its checks: five
// identical failing test runs (non-zero exit, which Claude Code sends as
// PostToolUseFailure) draw a loop alarm that reaches the model. Skipped,
// with the reason, where the binary is absent.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { it } from 'node:test';
import assert from 'node:assert/strict';

const root = join(dirname(fileURLToPath(import.meta.url)), '../..');
const platform = `${process.platform}-${process.arch}`;
const claude = join(
  root,
  'node_modules/@anthropic-ai',
  `claude-agent-sdk-${platform}`,
  process.platform === 'win32' ? 'claude.exe' : 'claude',
);
const skip =
  !existsSync(claude) &&
  `no Claude Code binary for ${platform} at ${claude} (the @anthropic-ai/claude-agent-sdk devDependency's platform package)`;
if (skip) console.log(`# skipped: ${skip}`);

it('toolguard hook inside the real Claude Code CLI: loop alarms (also on failing runs) and the failure header reach the model', {
  skip,
}, () => {
  const run = spawnSync(process.execPath, [join(root, '__test__/adapters/e2e/claude-code.mjs'), claude], {
    encoding: 'utf8',
    timeout: 120_000,
  });
  assert.equal(run.status, 0, `${run.stdout}${run.stderr}`);
  assert.match(run.stdout, /^PASS: Claude Code /m);
});

it('exact mode inside the real Claude Code CLI: a stage that failed behind | tail reaches the model with its status; outputs and exit statuses unchanged', {
  skip,
}, () => {
  const run = spawnSync(process.execPath, [join(root, '__test__/adapters/e2e/claude-code-exact.mjs'), claude], {
    encoding: 'utf8',
    timeout: 240_000,
  });
  assert.equal(run.status, 0, `${run.stdout}${run.stderr}`);
  assert.match(run.stdout, /^PASS: Claude Code exact mode/m);
});
