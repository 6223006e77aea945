// toolguard/opencode's hooks called as OpenCode calls them (input, output
// objects it then reads back), for what the CLI test does not script:
// parallel calls, synthetic messages, exact mode, a bad config, fail-open.
// The real CLI runs in opencode.test.mjs.
import { spawnSync } from 'node:child_process';
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import toolguard from 'toolguard/opencode';

const input = /** @type {any} */ ({});
const session = 'ses_1';
let ids = 0;

/**
 * One call through the hooks: before, then `run(args)` for the output (a bash-like tool), then after.
 * @param {any} hooks
 * @param {{ command: string, description: string }} args
 * @param {(args: any) => { output: string, exit: number | null }} [run]
 */
async function call(hooks, args, run = () => ({ output: 'hi\n', exit: 0 })) {
  const callID = `call_${++ids}`;
  const before = { args: { ...args } };
  await hooks['tool.execute.before']({ tool: 'bash', sessionID: session, callID }, before);
  return {
    callID,
    ran: before.args,
    finish: async () => {
      const { output, exit } = run(before.args);
      const after = { title: args.command, output, metadata: { output, exit } };
      await hooks['tool.execute.after']({ tool: 'bash', sessionID: session, callID, args }, after);
      return after.output;
    },
  };
}

const sequential = async (hooks, n, args) => {
  const out = [];
  for (let i = 0; i < n; i++) out.push(await (await call(hooks, args)).finish());
  return out;
};

describe('toolguard/opencode hooks', () => {
  it('calls announced before the first result comes back are parallel: no alarm; the same calls one after another draw it', async () => {
    const hooks = await toolguard(input);
    const args = { command: 'cat a.py', description: 'read' };
    const batch = [];
    for (let i = 0; i < 4; i++) batch.push(await call(hooks, args));
    const parallel = [];
    for (const c of batch) parallel.push(await c.finish());
    assert.deepEqual(parallel, ['hi\n', 'hi\n', 'hi\n', 'hi\n']);

    const fresh = await toolguard(input);
    const one = await sequential(fresh, 3, args);
    // OpenCode's output ends in a newline: one blank line, then the notice.
    assert.match(one[2], /^hi\n\n\[toolguard\] Loop detected: bash was called 3 times in a row/);
  });

  it("OpenCode's synthetic user message does not start the window over; a typed one does", async () => {
    const hooks = await toolguard(input);
    const args = { command: 'false', description: 'x' };
    const message = (parts) => hooks['chat.message']({ sessionID: session }, { message: /** @type {any} */ ({}), parts });
    await sequential(hooks, 2, args);
    await message([{ type: 'text', text: 'Continue', synthetic: true }]);
    assert.match((await sequential(hooks, 1, args))[0], /\[toolguard\] Loop detected/, 'the window went on');
    await message([{ type: 'text', text: 'try again' }]);
    assert.deepEqual(await sequential(hooks, 2, args), ['hi\n', 'hi\n'], 'the window started over');
  });

  it('exact mode: before rewrites the bash command in place; after reads the failed stage behind | tail', async () => {
    const hooks = await toolguard(input, { engine: { exactMode: true } });
    const failing = `python3 -c 'import sys; print("boom"); sys.exit(3)' | tail -1`;
    const bash = (args) => {
      const r = spawnSync('bash', ['-c', args.command], { encoding: 'utf8' });
      return { output: r.stdout + r.stderr, exit: r.status };
    };
    const c = await call(hooks, { command: failing, description: 'x' }, bash);
    assert.ok(c.ran.command.startsWith(`${failing}\n__tg_rc=`), 'OpenCode runs the rewritten command');
    const seen = await c.finish();
    assert.match(seen, /^\[loud-failure\] /);
    assert.match(seen, /stage-exit-status \(line 1\): python3 \(stage 1 of 2\) exited 3/);
    assert.match(seen, /boom\n/);
  });

  it('a call whose tool threw (its error part, no after hook) advances the chain: loops.deny refuses the next; a part published again counts once', async () => {
    // Hand-made event objects carry only what the plugin reads.
    const hooks = /** @type {any} */ (await toolguard(input, { engine: { loops: { deny: 1 } } }));
    const args = { filePath: 'missing.txt' };
    const publish = (callID, error) =>
      hooks.event({
        event: {
          type: 'message.part.updated',
          properties: { part: { type: 'tool', sessionID: session, callID, tool: 'read', state: { status: 'error', input: args, error } } },
        },
      });
    const fail = async (callID) => {
      await hooks['tool.execute.before']({ tool: 'read', sessionID: session, callID }, { args: { ...args } });
      await publish(callID, 'File not found: missing.txt');
    };
    await fail('r1');
    await fail('r2');
    // OpenCode may publish a part again: it is the same call.
    await publish('r2', 'File not found: missing.txt');
    await fail('r3');
    const refusal = await hooks['tool.execute.before']({ tool: 'read', sessionID: session, callID: 'r4' }, { args: { ...args } }).then(
      () => assert.fail('r4 ran'),
      (error) => error.message,
    );
    assert.match(refusal, /^\[toolguard\] Call refused: /);
    // OpenCode publishes the refusal as the call's error; the loop is still refused.
    await publish('r4', refusal);
    await assert.rejects(() => fail('r5'), /^Error: \[toolguard\] Call refused: /);

    // One failed call published three times is one call: the next is not refused.
    const twice = /** @type {any} */ (await toolguard(input, { engine: { loops: { deny: 1 } } }));
    const before = { args: { ...args } };
    await twice['tool.execute.before']({ tool: 'read', sessionID: session, callID: 'x1' }, before);
    for (let i = 0; i < 3; i++)
      await twice.event({
        event: {
          type: 'message.part.updated',
          properties: {
            part: { type: 'tool', sessionID: session, callID: 'x1', tool: 'read', state: { status: 'error', input: args, error: 'no' } },
          },
        },
      });
    await twice['tool.execute.before']({ tool: 'read', sessionID: session, callID: 'x2' }, { args: { ...args } });
  });

  it('the exit status OpenCode records reaches the engine: exit 0 says "exited 0", no status says "reported no error"', async () => {
    const failing =
      'Traceback (most recent call last):\n  File "m.py", line 1, in <module>\nModuleNotFoundError: No module named \'yaml_nope\'\n';
    const read = async (exit) => {
      const hooks = await toolguard(input);
      return (
        await call(hooks, { command: 'python3 m.py 2>&1 | tail -3', description: 'run' }, () => ({ output: failing, exit }))
      ).finish();
    };
    const zero = await read(0);
    assert.match(zero, /^\[loud-failure\] bash exited 0 but its output shows it failed:/);
    // The marker is for the engine: the original output the model reads is OpenCode's.
    assert.ok(zero.endsWith(`Original output:\n${failing}`), zero);
    assert.match(await read(null), /^\[loud-failure\] bash reported no error but its output shows it failed:/);
  });

  it('a bad config fails the plugin when OpenCode loads it, naming the key', async () => {
    await assert.rejects(
      () => toolguard(input, { engine: { loops: { repaet: 3 } } }),
      (error) => {
        assert.deepEqual(/** @type {any} */ (error).path, ['loops', 'repaet']);
        return true;
      },
    );
  });

  it('fails open: an engine failure leaves the output as it was and warns', async () => {
    const hooks = await toolguard(input);
    const warnings = [];
    const onWarning = (w) => warnings.push(w);
    process.on('warning', onWarning);
    try {
      const after = { title: 't', output: 'hi\n', metadata: {} };
      // Arguments that cannot be serialized make the engine call throw.
      const args = { big: 1n };
      await hooks['tool.execute.before']({ tool: 'bash', sessionID: session, callID: 'x' }, { args });
      await hooks['tool.execute.after']({ tool: 'bash', sessionID: session, callID: 'x', args }, after);
      assert.equal(after.output, 'hi\n');
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.off('warning', onWarning);
    }
    assert.ok(warnings.some((w) => w.name === 'ToolguardWarning' && /toolguard\/opencode: guard engine failed/.test(w.message)));
  });
});
