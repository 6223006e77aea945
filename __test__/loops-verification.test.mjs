// Both engines (native and the reference) on the loop detectors' precision
// rules: a change made by any tool — an editor, including SWE-agent's editor
// logged as a command line — makes the next run or read a verification, and
// "the same error" needs calls that failed (a status, or an error line as
// programs print it), not text that mentions errors. The same sequences are
// the Rust tests beside the detectors (crates/toolguard-core/src/loops/:
// entry.rs, re_read.rs, same_error.rs).
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { describe, it } from 'node:test';

import { GuardEngine as Reference } from '../dist/reference/index.mjs';

const require = createRequire(import.meta.url);
let native;
/** @type {string | false} */
let skip = false;
try {
  native = require('../index.js').GuardEngine;
} catch (error) {
  skip = `native addon not loadable: ${error.message.split('\n')[0]}`;
}

const args = (o) => JSON.stringify(o);
const edit = (i) => args({ command: `str_replace_editor str_replace /testbed/src/a.py --old_str 'x = ${i}' --new_str 'x = ${i + 1}'` });
const EDITED =
  "The file /testbed/src/a.py has been edited. Here's the result of running `cat -n` on a snippet of /testbed/src/a.py:\n    40\tx = 2\nReview the changes and make sure they are as expected.";
const READ = args({ command: "sed -n '1,5p' /testbed/src/a.py" });
const REPRO = args({ command: 'python reproduce.py' });
const PASSING = 'Testing error handling...\nResult: 3 issues handled, 0 errors';
const TRACEBACK = 'Traceback (most recent call last):\n  File "reproduce.py", line 3, in <module>\n    f()\nValueError: bad';
const REFUSED = (s) => `<tool_use_error>String to replace not found in file.\nString: ${s}</tool_use_error>`;
const CC_EDIT = (s) => args({ file_path: '/p/C.tsx', old_string: s, new_string: 'z' });
const CANCELLED = '<tool_use_error>Cancelled: parallel tool call Bash(git-ai prompts --since 1d 2>&1) errored</tool_use_error>';
const IMPORT_FAIL =
  "Exit code 1\nTraceback (most recent call last):\n  File \"<string>\", line 1\nImportError: cannot import name 'x' from 'pkg'";
const CC_EDITED = 'The file pkg/__init__.py has been updated successfully.';
const query = (i) =>
  args({ command: `gh api graphql -f query='{ thread${i} }' | python3 -c 'import json,sys; print(json.load(sys.stdin))'` });

const interleave = (a, b) => a.flatMap((x, i) => (b[i] ? [x, b[i]] : [x]));
const edits = [1, 2, 3].map((i) => ['bash', edit(i), EDITED, false]);

/** name → { calls: [tool, argumentsJson, output, isError][], at: index of the first alarm (-1: none), kind } */
const CASES = {
  'reads of a file between SWE-agent editor edits in a bash call': {
    calls: interleave(
      Array.from({ length: 4 }, () => ['bash', READ, 'def f(x):\n    return x', false]),
      edits,
    ),
    at: -1,
  },
  'a passing re-run that mentions errors, after each edit': {
    calls: interleave(
      Array.from({ length: 4 }, () => ['bash', REPRO, PASSING, false]),
      edits,
    ),
    at: -1,
  },
  'the same re-run failing with the same traceback after each edit': {
    calls: interleave(
      Array.from({ length: 4 }, () => ['bash', REPRO, TRACEBACK, false]),
      edits,
    ),
    at: 4,
    kind: 're-read',
  },
  'queries piped through python whose output mentions an error state': {
    calls: [0, 1, 2].map((i) => ['Bash', query(i), 'Thread 43: **List-view empty state still renders alongside the error state.**', false]),
    at: -1,
  },
  'the same pipes when the program fails': {
    calls: [0, 1, 2].map((i) => [
      'Bash',
      query(i),
      'Traceback (most recent call last):\n  File "<string>", line 1\njson.decoder.JSONDecodeError: Expecting value',
      false,
    ]),
    at: 2,
    kind: 'same-error',
  },
  'calls the harness cancelled with a failing sibling': {
    calls: [
      [
        'Bash',
        args({ command: 'git-ai prompts --since 1d 2>&1' }),
        "Exit code 1\nError parsing --since: Invalid --since value: '1d'",
        true,
      ],
      ['Bash', args({ command: 'git notes --ref=ai show 3e2941c' }), CANCELLED, true],
      ['Bash', args({ command: 'ls -la ~/.git-ai/internal/daemon/' }), CANCELLED, true],
      ['Bash', args({ command: 'git-ai help' }), CANCELLED, true],
    ],
    at: -1,
  },
  'an edit refused after the file was rewritten': {
    calls: [
      ['Edit', CC_EDIT('a1'), REFUSED('a1'), true],
      ['Read', args({ file_path: '/p/C.tsx' }), '1→x', false],
      ['Edit', CC_EDIT('a2'), REFUSED('a2'), true],
      ['Write', args({ file_path: '/p/C.tsx', content: 'y' }), 'The file /p/C.tsx has been overwritten successfully.', false],
      ['Bash', args({ command: 'bun test' }), '12 pass\n0 fail', false],
      ['Edit', CC_EDIT('a3'), REFUSED('a3'), true],
    ],
    at: -1,
  },
  'edits refused with only looks between': {
    calls: [
      ['Edit', CC_EDIT('a1'), REFUSED('a1'), true],
      ['Edit', CC_EDIT('a2'), REFUSED('a2'), true],
      ['Read', args({ file_path: '/p/C.tsx' }), '1→x', false],
      ['Edit', CC_EDIT('a3'), REFUSED('a3'), true],
    ],
    at: 3,
    kind: 'same-error',
  },
  'different checks of an import, each after an edit': {
    calls: [
      ['Bash', args({ command: "python -c 'import pkg'" }), IMPORT_FAIL, true],
      ['Edit', args({ file_path: 'pkg/__init__.py', old_string: 'a', new_string: 'b' }), CC_EDITED, false],
      ['Bash', args({ command: 'python repro.py' }), IMPORT_FAIL, true],
      ['Edit', args({ file_path: 'pkg/__init__.py', old_string: 'c', new_string: 'd' }), CC_EDITED, false],
      ['Bash', args({ command: 'python -m pkg' }), IMPORT_FAIL, true],
    ],
    at: -1,
  },
  'the same checks in a row': {
    calls: [
      ['Bash', args({ command: "python -c 'import pkg'" }), IMPORT_FAIL, true],
      ['Bash', args({ command: 'python repro.py' }), IMPORT_FAIL, true],
      ['Bash', args({ command: 'python -m pkg' }), IMPORT_FAIL, true],
    ],
    at: 2,
    kind: 'same-error',
  },
};

describe('loop detectors: verification after any write, failures that failed', () => {
  for (const [name, c] of Object.entries(CASES)) {
    for (const [which, Engine] of [
      ['reference', Reference],
      ['native', native],
    ]) {
      it(`${name} (${which})`, { skip: Engine ? false : skip }, () => {
        const engine = new Engine({ loops: {} });
        const kinds = c.calls.map(
          ([tool, argumentsJson, text, isError]) =>
            engine.observe({ agentId: 'a', name: tool, argumentsJson }, { content: [{ type: 'text', text }], isError })?.loop?.kind ?? null,
        );
        assert.equal(
          kinds.findIndex((k) => k !== null),
          c.at,
          JSON.stringify(kinds),
        );
        if (c.at >= 0) assert.equal(kinds[c.at], c.kind);
      });
    }
  }
});
