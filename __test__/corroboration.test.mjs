// Corroboration, the runtime's own noise and partial results (docs/shell-model.md): the
// native engine and its reference twin give the same action on each case.
// The Rust tests beside the code (shell/corroboration.rs,
// shell/runtime_noise.rs, shell/intent.rs) cover each rule in detail.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { GuardEngine } from 'toolguard';
import { GuardEngine as ReferenceEngine } from '../dist/reference/index.mjs';

const bash = (command) => ({ agentId: 'a', name: 'bash', arguments: { command } });
const text = (t) => ({ content: [{ type: 'text', text: t }] });

const passingSuite = 'src/a.test.ts:\nerror: Item 3 failed\n(pass) retries a failed item\n\n 12 pass\n 0 fail\n';
const brokenPipe =
  "0\n1\n2\n[stderr]\nTraceback (most recent call last):\n  File \"/w/gen.py\", line 3, in <module>\n    print(i)\nBrokenPipeError: [Errno 32] Broken pipe\nException ignored in: <_io.TextIOWrapper name='<stdout>' mode='w' encoding='utf-8'>\nBrokenPipeError: [Errno 32] Broken pipe\n";
const exitReport =
  'converted 12 files\n[stderr]\nException ignored in: <function _TemporaryFileCloser.__del__ at 0x7f3a2c1d0e00>\nTraceback (most recent call last):\n  File "/usr/lib/python3.11/tempfile.py", line 450, in __del__\n    self.close()\nFileNotFoundError: [Errno 2] No such file or directory: \'/tmp/tmpab12cd\'\n';
const health = '{"status":"ok","info":{"database":{"status":"up"}},"error":{},"details":{"database":{"status":"up"}}}';
const tb = 'Traceback (most recent call last):\n  File "app.py", line 3, in load\n    open(p)\nKeyError: \'cfg\'\n';

const codexHeader = (status) => `Chunk ID: 0c2b72\nWall time: 1.0017 seconds\n${status}\nOriginal token count: 22\nOutput:\n`;

/** [what, command, output, expected action or undefined] */
const cases = [
  ['a lexicon line with the status shown and 0', 'bun run test 2>&1', 'error: Item 3 failed\n', 'context'],
  ['the same line behind a filter', 'bun run test 2>&1 | tail -20', 'error: Item 3 failed\n', 'error'],
  ['the same line with a passing summary', 'bun run test 2>&1', passingSuite, undefined],
  ['the same line behind a filter, with a passing summary', 'bun run test 2>&1 | tail -20', passingSuite, undefined],
  ['a program-specific signal', 'rg foo src', 'bash: line 1: rg: command not found\n', 'error'],
  ['an OS error under a label', 'python check.py', "Error: [Errno 2] No such file or directory: 'cfg.yaml'\n", 'error'],
  ['a traceback that ends the output', 'python app.py', `loading\n${tb}`, 'error'],
  ['a broken pipe under head', 'python3 gen.py | head -n 3', brokenPipe, undefined],
  ['a broken pipe under tail', 'python3 gen.py | tail -n 3', brokenPipe, 'error'],
  [
    'a write error of GNU find under head',
    'find /testbed -type f -name "*.py" | head -20',
    '/testbed/a.py\n/testbed/b.py\nfind: write error\n',
    undefined,
  ],
  ['an interpreter-exit report', 'python3 convert.py 2>&1 | tail -5', exitReport, undefined],
  ['an empty error member of a health answer', 'curl -s http://localhost:3000/health', health, undefined],
  ['an error member with content', 'curl -s http://localhost:3000/health', '{"error": {"code": 503}}', 'error'],
  // Codex's exec_command/write_stdin: a chunk taken while the process still runs is no finished result.
  ['a chunk of a command still running', 'python app.py', `${codexHeader('Process running with session ID 5')}loading\n${tb}`, undefined],
  ['the same chunk once the process ended', 'python app.py', `${codexHeader('Process exited with code 0')}loading\n${tb}`, 'error'],
];

/** @type {Array<[string, new () => import('toolguard').GuardEngine]>} */
const engines = [
  ['native', GuardEngine],
  ['reference', ReferenceEngine],
];
for (const [label, Engine] of engines) {
  describe(`corroboration and runtime noise (${label})`, () => {
    for (const [what, command, output, expected] of cases) {
      it(`${what}: ${expected ?? 'no verdict'}`, () => {
        const engine = new Engine();
        assert.equal(engine.observe(bash(command), text(output))?.failure?.action, expected);
      });
    }
    it("a script created with SWE-agent's shell editor is the agent's own", () => {
      const engine = new Engine();
      engine.observe(
        bash("str_replace_editor create /testbed/reproduce.py --file_text 'from m import f\nf()\n'"),
        text('File created successfully'),
      );
      const run = engine.observe(bash('python /testbed/reproduce.py'), text(`${tb}`));
      assert.equal(run?.failure?.action, 'context');
    });
  });
}
