// docs/adapters.md's sample hook event, run through `toolguard hook` as the
// docs say to, must give the answer the docs show (so the sample cannot go stale).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '../..');
const doc = readFileSync(join(root, 'docs/adapters.md'), 'utf8');

/** The fenced block right after `<!-- hook-sample:NAME -->`. */
function block(name) {
  const m = doc.match(new RegExp(`<!-- hook-sample:${name} -->\\n\`\`\`\\w*\\n([\\s\\S]*?)\\n\`\`\`\\n`));
  assert.ok(m, `docs/adapters.md has a hook-sample:${name} block`);
  return m[1];
}

test("docs/adapters.md's sample hook event gets the documented answer", () => {
  const command = block('event');
  const event = command.match(/^TOOLGUARD_STATE_DIR=\$\(mktemp -d\) npx toolguard hook <<'EOF'\n(.*)\nEOF$/);
  assert.ok(event, `the sample is one event in a here-document: ${command}`);
  const input = JSON.parse(event[1]);
  for (const key of ['session_id', 'hook_event_name', 'tool_name', 'tool_input', 'tool_response']) assert.ok(key in input, key);
  const expected = block('answer');
  // Both shells of the hook: the Node path and the native executable the launcher runs.
  for (const native of ['0', undefined]) {
    /** @type {Record<string, string | undefined>} */
    const env = { ...process.env, TOOLGUARD_STATE_DIR: mkdtempSync(join(tmpdir(), 'toolguard-hook-sample-')) };
    if (native === undefined) delete env.TOOLGUARD_NATIVE_HOOK;
    else env.TOOLGUARD_NATIVE_HOOK = native;
    const run = spawnSync(process.execPath, [join(root, 'bin/toolguard.mjs'), 'hook'], { input: event[1], encoding: 'utf8', env });
    assert.equal(run.status, 0, run.stderr);
    assert.equal(run.stdout.trim(), expected, `TOOLGUARD_NATIVE_HOOK=${native}`);
  }
});
