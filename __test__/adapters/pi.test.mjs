// toolguard/pi inside a real pi agent session (@mariozechner/pi-coding-agent):
// pi's own faux model provider scripts the tool calls, pi's real `bash` tool
// runs them, and the extension is loaded through pi's resource loader. The
// test reads what the model is sent next, so it checks what the model sees.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  AuthStorage,
  createAgentSession,
  DefaultResourceLoader,
  ModelRegistry,
  SessionManager,
  SettingsManager,
} from '@mariozechner/pi-coding-agent';
import { fauxAssistantMessage, fauxText, fauxToolCall, registerFauxProvider } from '@mariozechner/pi-ai';
import { GuardEngine } from 'toolguard';
import { PI_MESSAGE_TYPE, patchFor, toolguard } from 'toolguard/pi';

const scratch = mkdtempSync(join(tmpdir(), 'toolguard-pi-test-'));
after(() => rmSync(scratch, { recursive: true, force: true }));
const faux = registerFauxProvider();
after(() => faux.unregister());

/** A headless pi session with the toolguard extension and only the bash tool. */
async function piSession(extension = toolguard()) {
  return piSessionWith([extension]);
}

/** A headless pi session with these extensions (in load order) and only the bash tool. */
async function piSessionWith(extensions) {
  const dir = mkdtempSync(join(scratch, 's-'));
  const authStorage = AuthStorage.inMemory();
  authStorage.setRuntimeApiKey(faux.getModel().provider, 'test');
  const settingsManager = SettingsManager.inMemory();
  const resourceLoader = new DefaultResourceLoader({
    cwd: dir,
    agentDir: dir,
    settingsManager,
    extensionFactories: extensions,
    noSkills: true,
    noPromptTemplates: true,
    noThemes: true,
    noContextFiles: true,
  });
  await resourceLoader.reload();
  const { session } = await createAgentSession({
    cwd: dir,
    agentDir: dir,
    authStorage,
    modelRegistry: ModelRegistry.inMemory(authStorage),
    model: faux.getModel(),
    sessionManager: SessionManager.inMemory(dir),
    settingsManager,
    resourceLoader,
    tools: ['bash'],
  });
  return session;
}

/** Script one user turn: the model calls bash with each command, then answers. Returns the tool results. */
async function turn(session, commands) {
  faux.setResponses([
    ...commands.map((command) => fauxAssistantMessage(fauxToolCall('bash', { command }))),
    fauxAssistantMessage(fauxText('done')),
  ]);
  const before = session.messages.length;
  await session.prompt('go');
  return session.messages.slice(before).filter((m) => m.role === 'toolResult');
}

const texts = (result) => result.content.map((b) => b.text);

describe('toolguard/pi in a real pi session', () => {
  it('appends the loop alarm to the third identical bash call with the same result, as the engine words it', async () => {
    const session = await piSession();
    const results = await turn(session, ['echo hi', 'echo hi', 'echo hi']);
    const engine = new GuardEngine({ loops: {} });
    const reminders = results.map(
      () => engine.observe({ agentId: 'x', name: 'bash', arguments: { command: 'echo hi' } }, { text: 'hi\n' })?.loop?.text,
    );
    assert.deepEqual(results.map(texts), [['hi\n'], ['hi\n'], ['hi\n', reminders[2]]]);
    assert.ok(reminders[2].startsWith('[toolguard] Loop detected: bash was called 3 times in a row'));
    // Polling with a changing result draws nothing (DSH's result-blind repeat would remind).
    const polls = await turn(session, ['date +%N', 'date +%N', 'date +%N', 'date +%N']);
    assert.deepEqual(
      polls.map((r) => r.content.length),
      [1, 1, 1, 1],
    );
    assert.deepEqual(
      results.map((r) => r.isError),
      [false, false, false],
    );
  });

  it('a new user prompt resets the chain (pi input event)', async () => {
    const session = await piSession();
    await turn(session, ['ls', 'ls']);
    const [third] = await turn(session, ['ls']);
    assert.equal(third.content.length, 1, 'the third ls is the first after the prompt: no reminder');
    const more = await turn(session, ['ls', 'ls', 'ls']);
    assert.equal(more[2].content.length, 2, 'the chain still counts within a turn');
  });

  it('an error rule turns a bash exit-0 result into isError with the failure header', async () => {
    const session = await piSession();
    const command = `printf 'step 1\\nTraceback (most recent call last):\\n  File "x.py", line 2, in <module>\\nValueError: bad\\n'`;
    const [result] = await turn(session, [command]);
    assert.equal(result.isError, true);
    assert.equal(result.content.length, 1);
    const text = result.content[0].text;
    const original = text.slice(text.indexOf('Original output:\n') + 'Original output:\n'.length);
    assert.ok(original.startsWith('step 1\nTraceback (most recent call last):'), original);
    const verdict = new GuardEngine().observe({ name: 'bash', argumentsJson: '{}' }, { content: [{ type: 'text', text: original }] });
    assert.equal(text, verdict.failure.text);
    assert.match(text, /^\[loud-failure\] bash reported no error but its output shows it failed:\n- python-traceback \(line 2\)/);
  });

  it('a non-zero exit (pi reports isError) is left to pi: not scanned, not rewritten', async () => {
    const session = await piSession();
    const [result] = await turn(session, [`echo 'Traceback (most recent call last):'; exit 3`]);
    assert.equal(result.isError, true);
    assert.doesNotMatch(result.content[0].text, /loud-failure/);
    assert.match(result.content[0].text, /exited with code 3/);
  });

  it('uses the engine config given to toolguard(): custom thresholds', async () => {
    const session = await piSession(toolguard({ engine: { repeat: { thresholds: [2] }, loops: false } }));
    const results = await turn(session, ['pwd', 'pwd']);
    assert.equal(results[1].content.length, 2);
    assert.throws(
      () => toolguard({ engine: { repeat: { thresholds: [] } } })(/** @type {any} a fake ExtensionAPI */ ({ on() {} })),
      /repeat-tool-reminder: `thresholds` must not be empty/,
    );
  });

  it('notices: "message" steers the reminder in as a pi custom message, which the model gets as a user message after the tool result', async () => {
    const session = await piSession(toolguard({ notices: 'message', engine: { loops: false } }));
    const contexts = [];
    const step = (command) => (context) => {
      contexts.push(structuredClone(context.messages));
      return fauxAssistantMessage(command ? fauxToolCall('bash', { command }) : fauxText('done'));
    };
    faux.setResponses([step('echo hi'), step('echo hi'), step('echo hi'), step()]);
    await session.prompt('go');
    const last = contexts.at(-1).slice(-2);
    const engine = new GuardEngine();
    const texts = [1, 2, 3].map(() => engine.observe({ agentId: 'x', name: 'bash', arguments: { command: 'echo hi' } })?.reminder?.text);
    assert.equal(last[0].role, 'toolResult');
    assert.deepEqual(last[0].content, [{ type: 'text', text: 'hi\n' }], 'the result itself is untouched');
    assert.equal(last[1].role, 'user');
    assert.deepEqual(last[1].content, [{ type: 'text', text: texts[2] }]);
    const custom = session.messages.filter((m) => m.role === 'custom');
    assert.deepEqual(
      custom.map((m) => [m.customType, /** @type {{ summary: string }} */ (m.details).summary]),
      [[PI_MESSAGE_TYPE, 'bash × 3']],
    );
  });

  it('notices: "message" with the loop detectors (the default) steers the loop alarm in too', async () => {
    const session = await piSession(toolguard({ notices: 'message' }));
    const contexts = [];
    const step = (command) => (context) => {
      contexts.push(structuredClone(context.messages));
      return fauxAssistantMessage(command ? fauxToolCall('bash', { command }) : fauxText('done'));
    };
    faux.setResponses([step('echo hi'), step('echo hi'), step('echo hi'), step()]);
    await session.prompt('go');
    const last = contexts.at(-1).slice(-2);
    assert.equal(last[1].role, 'user');
    assert.match(last[1].content[0].text, /^\[toolguard\] Loop detected: bash was called 3 times in a row/);
  });

  it('patchFor: an error keeps image blocks and puts the reminder after the failure', () => {
    const image = /** @type {const} */ ({ type: 'image', data: 'AAAA', mimeType: 'image/png' });
    /** @type {import('toolguard').GuardVerdict} */
    const verdict = {
      reminder: { tool: 'bash', count: 3, text: 'R', summary: 'bash × 3' },
      failure: { action: 'error', summary: 's', text: 'F', rules: [] },
    };
    assert.deepEqual(patchFor({ content: [{ type: 'text', text: 'out' }, image], isError: false }, verdict), {
      content: [{ type: 'text', text: 'F' }, image, { type: 'text', text: 'R' }],
      isError: true,
    });
    // Already an error: only the reminder is added.
    assert.deepEqual(patchFor({ content: [{ type: 'text', text: 'out' }], isError: true }, verdict), {
      content: [
        { type: 'text', text: 'out' },
        { type: 'text', text: 'R' },
      ],
    });
  });
});

describe('toolguard/pi exact mode', () => {
  it("a stage that failed behind | tail is an error with its real status; the command's output and exit status are unchanged", async () => {
    const failing = `python3 -c 'import sys; print("boom"); sys.exit(3)' | tail -1`;
    // What pi's own bash tool ran (seen by an extension loaded after toolguard's,
    // which patches the input) and returned (seen by one loaded before it, which patches the result).
    const ran = [];
    const command = (pi) => {
      pi.on('tool_call', (event) => {
        ran.push({ command: event.input.command });
      });
    };
    const result = (pi) => {
      pi.on('tool_result', (event) => {
        ran.at(-1).result = { text: texts(event), isError: event.isError };
      });
    };
    const onSession = await piSessionWith([result, toolguard({ engine: { exactMode: true } }), command]);
    const on = { seen: await turn(onSession, [failing, 'echo ok | cat']), ran: ran.splice(0) };
    const offSession = await piSessionWith([result, toolguard({ engine: {} }), command]);
    const off = { seen: await turn(offSession, [failing, 'echo ok | cat']), ran: ran.splice(0) };
    assert.ok(on.ran[0].command.startsWith(`${failing}\n__tg_rc=`), `pi ran the rewritten command: ${on.ran[0].command}`);
    assert.equal(off.ran[0].command, failing);
    assert.deepEqual(
      on.ran.map((r) => r.result),
      off.ran.map((r) => r.result),
      "the command's own output and exit status are unchanged",
    );
    assert.deepEqual(on.ran[0].result, { text: ['boom\n'], isError: false });
    assert.equal(on.seen[0].isError, true);
    assert.match(texts(on.seen[0])[0], /stage-exit-status \(line 1\): python3 \(stage 1 of 2\) exited 3/);
    assert.deepEqual(texts(off.seen[0]), ['boom\n']);
    assert.deepEqual(texts(on.seen[1]), texts(off.seen[1]), 'a passing pipeline reaches the model unchanged');
  });
});

// What the user reported, and the tool calls of one assistant message.
describe('toolguard/pi: the user text and parallel calls', () => {
  it('a reproduction of the error the user quoted is context; the same output without the quote is an error', async () => {
    // Exit 0: the script prints the traceback it caught (pi reports a non-zero exit as an error itself).
    const script = join(scratch, 'repro.py');
    writeFileSync(
      script,
      'import sys, traceback\ntry:\n    raise RuntimeError("Dropped elements in sequence 9 at /w/a.py")\nexcept RuntimeError:\n    traceback.print_exc(file=sys.stdout)\n',
    );
    const run = async (prompt) => {
      const session = await piSession();
      faux.setResponses([
        fauxAssistantMessage(fauxToolCall('bash', { command: `python3 ${script}` })),
        fauxAssistantMessage(fauxText('done')),
      ]);
      const before = session.messages.length;
      await session.prompt(prompt);
      return session.messages.slice(before).filter((m) => m.role === 'toolResult')[0];
    };
    const plain = await run('please look at the combiner');
    assert.equal(plain.isError, true, texts(plain).join('\n'));
    assert.match(texts(plain)[0], /^\[loud-failure\] bash reported no error but its output shows it failed/);
    const told = await run('Combining fails with\nRuntimeError: Dropped elements in sequence 3 at /tmp/x.py\nplease fix');
    assert.equal(told.isError, false, texts(told).join('\n'));
    assert.match(texts(told).at(-1), /^\[loud-failure\] bash output may show/);
  });

  it('nine identical calls of one assistant message raise no loop alarm; the same nine one after another do', async () => {
    const alarms = (results) => results.flatMap(texts).filter((t) => /Loop detected/.test(t)).length;
    const parallel = await piSession();
    faux.setResponses([
      fauxAssistantMessage(Array.from({ length: 9 }, () => fauxToolCall('bash', { command: 'echo hi' }))),
      fauxAssistantMessage(fauxText('done')),
    ]);
    await parallel.prompt('go');
    const results = parallel.messages.filter((m) => m.role === 'toolResult');
    assert.equal(results.length, 9);
    assert.equal(alarms(results), 0);
    const serial = await piSession();
    assert.ok(
      alarms(
        await turn(
          serial,
          Array.from({ length: 9 }, () => 'echo hi'),
        ),
      ) > 0,
    );
  });
});
