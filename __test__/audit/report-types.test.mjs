// The `--json` document is written by Rust (crates/toolguard-audit, serde
// structs in their declared key order) and typed in TypeScript
// (ts/cli/audit/types.mts `AuditDocument`). No key list is kept by hand: this test
// audits every recorded fixture and the sample, then type-checks the real
// document as a fresh object literal of type `AuditDocument`, so a key Rust
// writes that the types lack (excess property), or one the types require that
// Rust does not write, fails the compile.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { strictDiagnostics } from '../support/typecheck.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '../..');

test('the --json document Rust writes is exactly the AuditDocument type', () => {
  const dir = mkdtempSync(join(tmpdir(), 'toolguard-report-types-'));
  const malformed = join(dir, 'malformed.jsonl');
  writeFileSync(malformed, '{"tool":"bash","arguments":{"command":"ls"},"output":"x"}\n{not json\n');
  const inputs = [
    join(root, 'samples/dsh'),
    join(root, '__test__/audit/fixtures'),
    join(root, 'crates/toolguard-audit/tests/fixtures'),
    malformed,
  ];
  // Loop detectors on (the default: `loops`) and off (DSH's `reminders`).
  const dshExact = ['--config', join(root, '__test__/audit/dsh-exact.json')];
  const docs = [[], dshExact].map((config) => {
    const run = spawnSync(process.execPath, [join(root, 'bin/toolguard.mjs'), 'audit', '--json', ...config, ...inputs], {
      encoding: 'utf8',
      maxBuffer: 1 << 28,
    });
    assert.ok(run.status === 0 || run.status === 1, run.stderr);
    return run.stdout;
  });
  const parsed = docs.map((d) => JSON.parse(d));
  // Every kind of entry is present, so every nested type is checked.
  for (const kind of ['reminders', 'loops', 'failures', 'errors']) {
    assert.ok(
      parsed.some((doc) => doc.sessions.some((s) => s[kind].length > 0)),
      `no session has ${kind}`,
    );
  }
  const file = join(dir, 'check.mts');
  const types = join(root, 'ts/cli/audit/types.mjs').replace(/\\/g, '/');
  writeFileSync(
    file,
    `import type { AuditDocument } from ${JSON.stringify(types)};\n${docs.map((d, i) => `export const doc${i}: AuditDocument = ${d};`).join('\n')}\n`,
  );
  const errors = strictDiagnostics([file], { types: ['node'], skipLibCheck: true })
    .filter((d) => d.file?.fileName === file)
    .map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
  assert.deepEqual(errors, []);
});
