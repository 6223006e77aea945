// toolguard/opencode inside the real OpenCode CLI (the binary of OpenCode's
// npm platform package, installed on first use by support/opencode.mjs) against a scripted local Chat Completions
// model: OpenCode runs the scripted bash calls for real, and the test reads
// what the model is sent next. The expected texts come from an engine fed
// the same calls (what the plugin hands it: the output, and the exit status
// OpenCode records). Skipped, with the reason, where no binary runs.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { GuardEngine } from 'toolguard';
import { appendNotices, errorOf, loopNotices, noticesOf } from '../../dist/ts/adapters/common.mjs';
import { shellText } from '../../dist/reference/shell-result.mjs';
import { openCodeBinary, openCodeProject, openCodeRun, openCodeServe, scriptedChatModel, toolResults } from '../support/opencode.mjs';

const opencode = openCodeBinary();
const skip = opencode.skip ?? false;
if (skip) console.log(`# skipped: ${skip}`);
const scratch = mkdtempSync(join(tmpdir(), 'toolguard-opencode-'));

const args = (command) => JSON.stringify({ command, description: 'step' });
/** What the model reads of a result with a verdict, as the plugin folds it (one blank line before a notice). */
const append = (text, notices) => (notices.length === 0 ? text : appendNotices(text.replace(/\n+$/, ''), notices));
/** The failure text without the `[exit code: 0]` marker the plugin adds for the engine only. */
const unmarked = (error, raw, exitCode) => {
  const marker = `${raw && !raw.endsWith('\n') ? '\n' : ''}[exit code: 0]`;
  return exitCode === 0 && error.endsWith(marker) ? error.slice(0, -marker.length) : error;
};
const folded = (raw, verdict, exitCode) =>
  !verdict
    ? raw
    : errorOf(verdict) !== undefined
      ? append(unmarked(errorOf(verdict), raw, exitCode), loopNotices(verdict))
      : append(raw, noticesOf(verdict));
/** The text the plugin hands the engine: OpenCode's recorded exit 0 as the `[exit code: 0]` marker too. */
const engineText = (raw, exitCode) => {
  const text = shellText({ output: raw, exitCode });
  return exitCode === 0 ? `${text}${text && !text.endsWith('\n') ? '\n' : ''}[exit code: 0]` : text;
};

const missing = 'cat missing.txt';
const traceback = `printf 'Traceback (most recent call last):\\n  File "x.py", line 1\\nValueError: bad\\n'`;
const tracebackOut = 'Traceback (most recent call last):\n  File "x.py", line 1\nValueError: bad\n';

describe('toolguard/opencode in the real OpenCode CLI', { skip, timeout: 900_000 }, () => {
  it('a failing bash call repeated across messages gets the loop alarm in the result the model reads; a silent failure is replaced by the failure text; a new user message starts the window over', async () => {
    const turns = [
      [missing, missing, missing, traceback, `${traceback}; exit 3`],
      [missing, missing, missing],
    ];
    const { server, requests } = await scriptedChatModel(turns);
    const project = openCodeProject(scratch, server.address().port, {
      // The documented install: a local plugin file re-exporting the plugin.
      files: { '.opencode/plugins/toolguard.js': "export { default } from 'toolguard/opencode';\n" },
    });
    let run;
    try {
      run = await openCodeServe(opencode.bin, project, turns.length);
    } finally {
      server.close();
    }
    const results = toolResults(requests).map((r) => r.text);
    assert.equal(results.length, 8, `8 tool results reached the model:\n${run.out}`);
    const missingOut = results[0];
    assert.match(missingOut, /missing\.txt/);

    // The same calls, as the plugin hands them to the engine.
    const engine = new GuardEngine({ loops: {} });
    /** @type {Array<[string, string, number]>} */
    const calls = [
      [missing, missingOut, 1],
      [missing, missingOut, 1],
      [missing, missingOut, 1],
      [traceback, tracebackOut, 0],
      [`${traceback}; exit 3`, tracebackOut, 3],
    ];
    const observe = (agentId, [command, raw, exitCode]) =>
      folded(raw, engine.observe({ agentId, name: 'bash', argumentsJson: args(command) }, { text: engineText(raw, exitCode) }), exitCode);
    const expected = calls.map((c) => observe('s', c));
    engine.reset('s');
    expected.push(...calls.slice(0, 3).map((c) => observe('s', c)));
    assert.deepEqual(results, expected);

    assert.ok(!results[1].includes('[toolguard]'), 'no alarm on the 2nd call');
    assert.match(results[2], /\n\n\[toolguard\] Loop detected: bash was called 3 times in a row/, 'the alarm after the 3rd call');
    assert.ok(results[2].startsWith(missingOut.replace(/\n+$/, '')), 'the output stays, the alarm follows it');
    assert.match(
      results[3],
      /^\[loud-failure\] bash exited 0 but its output shows it failed:/,
      'exit 0 (recorded by OpenCode) with a traceback: the failure text',
    );
    assert.equal(results[4], tracebackOut, 'exit 3 (from OpenCode metadata): the output shows its failure, left alone');
    assert.ok(!results[5].includes('[toolguard]') && !results[6].includes('[toolguard]'), 'the new user message started the window over');
    assert.match(results[7], /\[toolguard\] Loop detected: bash was called 3 times in a row/);

    // Without the user's message the window would go on: the reset is what kept turn 1 quiet.
    const control = new GuardEngine({ loops: {} });
    const quiet = [...calls, ...calls.slice(0, 2)].map(([command, raw, exitCode]) =>
      control.observe({ agentId: 's', name: 'bash', argumentsJson: args(command) }, { text: engineText(raw, exitCode) }),
    );
    assert.ok(
      quiet.slice(5).some((v) => v?.loop || v?.reminder),
      'without a reset, turn 1 would have drawn an alarm early',
    );
  });

  it('loops.deny (plugin options in opencode.json): the call that would go on with a reminded loop is refused, never run, and the model reads the reason; also when the tool throws', async () => {
    const command = `echo ran >> runs.txt; ${missing}`;
    // OpenCode's read throws on a missing file: no tool.execute.after, only its error part.
    const read = { name: 'read', input: { filePath: 'missing.txt' } };
    const { server, requests } = await scriptedChatModel([[command, command, command, command, read, read, read, read]]);
    // A plugin file outside .opencode/plugins/, named in opencode.json with its options.
    const project = openCodeProject(scratch, server.address().port, {
      files: { 'toolguard-plugin.js': "export { default } from 'toolguard/opencode';\n" },
      config: (cwd) => ({ plugin: [[`file://${join(cwd, 'toolguard-plugin.js')}`, { engine: { loops: { deny: 1 } } }]] }),
    });
    let run;
    try {
      run = await openCodeRun(opencode.bin, project);
    } finally {
      server.close();
    }
    assert.equal(run.code, 0, run.out);
    const results = toolResults(requests).map((r) => r.text);
    assert.equal(results.length, 8, run.out);

    const engine = new GuardEngine({ loops: { deny: 1 } });
    const exec = { agentId: 's', name: 'bash', argumentsJson: args(command) };
    for (let i = 0; i < 3; i++) engine.observe(exec, { text: shellText({ output: results[0], exitCode: 1 }) });
    const refused = engine.check(exec);
    assert.ok(refused, 'the engine refuses the 4th call');
    assert.match(results[2], /\[toolguard\] Loop detected/);
    assert.equal(results[3], refused.reason, 'the model reads the refusal');
    assert.equal(readFileSync(join(project.cwd, 'runs.txt'), 'utf8'), 'ran\n'.repeat(3), 'the refused call never ran');

    // The failing reads: three errors from OpenCode, then the refusal.
    assert.ok(
      results.slice(4, 7).every((text) => text === results[4] && !text.includes('[toolguard]')),
      results[4],
    );
    assert.match(results[7], /^\[toolguard\] Call refused: /);
    assert.notEqual(results[7], results[4]);
  });
});
