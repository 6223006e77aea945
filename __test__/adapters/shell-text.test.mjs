// The adapters' shell result text, on the inputs where the adapters', the
// hook's and the audit's copies once differed; the same cases hold the core's
// `shell_result` (crates/toolguard-core/src/shell_result.rs) that the hook and
// the audit call.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { shellText } from '../../dist/ts/adapters/common.mjs';

test('shell text: the cases the core decides the same way', () => {
  const cases = [
    [{ output: 'x', exitCode: null, exit_code: 1 }, 'x\n[exit code: 1]'],
    [{ output: '', exitCode: 1 }, '[exit code: 1]'],
    [{ output: 'x', exitCode: 1.5 }, 'x\n[exit code: 1.5]'],
    [{ output: 'x\n[timed out after 5s]', exitCode: 124 }, 'x\n[timed out after 5s]'],
    [{ output: 'x\n', exitCode: -9 }, 'x\n[exit code: -9]'],
    [{ stdout: 'a', stderr: 'b', exit_code: 2 }, 'a\n[stderr]\nb\n[exit code: 2]'],
    [{ stdout: '', stderr: '' }, '(no output)'],
    [{ output: 'o\n', exitCode: 0, exit_code: 3 }, 'o\n'],
    [{ content: [{ type: 'image' }] }, undefined],
  ];
  for (const [value, text] of cases) assert.equal(shellText(value), text, JSON.stringify(value));
});
