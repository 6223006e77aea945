// The audit's formats are one list, the audit crate's (`Format::NAMES`): the
// addon hands it out and the CLI checks `--format` against it, so a reader
// added in Rust is offered by the CLI with no second list to update.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { logFormats } from 'toolguard';

const bin = fileURLToPath(new URL('../../bin/toolguard.mjs', import.meta.url));

test("--format is checked against the addon's list of log formats", () => {
  const formats = logFormats();
  assert.equal(formats[0], 'auto');
  for (const name of ['dsh', 'claude-code', 'codex', 'openhands-v0', 'mini-swe-agent-log']) assert.ok(formats.includes(name), name);
  const run = spawnSync(process.execPath, [bin, 'audit', '--format', 'xml', '-'], { encoding: 'utf8', input: '' });
  assert.equal(run.status, 2, run.stderr);
  assert.ok(run.stderr.includes(`--format must be one of ${formats.join(', ')} (got "xml")`), run.stderr);
});
