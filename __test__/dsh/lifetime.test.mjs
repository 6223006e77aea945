// Engine state follows the Agent object's lifetime: once DSH drops an agent
// and it is garbage collected, the plugin tells the engine to forget it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { boot, textTool } from './kit.mjs';
import { repeatVariants, selected } from './variants.mjs';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc');
const require = createRequire(import.meta.url);

// The variants that keep repeat chains (the loud-failure plugin keeps no agent state).
const ours = selected(repeatVariants).filter((v) => !v.official);

for (const variant of ours) {
  test(`a collected agent is forgotten by the engine — ${variant.label}`, async (t) => {
    const { GuardEngine } = require('toolguard');
    const forgotten = [];
    const reset = [];
    const { forget: originalForget, reset: originalReset } = GuardEngine.prototype;
    GuardEngine.prototype.forget = function forget(id) {
      forgotten.push(id);
      return originalForget.call(this, id);
    };
    GuardEngine.prototype.reset = function resetSpy(id) {
      reset.push(id);
      return originalReset.call(this, id);
    };
    t.after(() => Object.assign(GuardEngine.prototype, { forget: originalForget, reset: originalReset }));

    const module = await variant.load();
    const h = await boot();
    t.after(() => h.dispose());
    h.tool(textTool('probe'));
    await h.plugin(module, variant.wrap({}));
    /** @type {WeakRef<object>} */
    let collected;
    await (async () => {
      const handle = await h.ownedAgent('s1');
      collected = new WeakRef(handle.agent);
      await h.turn(handle.agent, [[{ name: 'probe', args: {} }]]);
      await h.turn(handle.agent, [[{ name: 'probe', args: {} }]]);
      await handle.dispose();
    })();
    // The second prompt reset the agent's engine id; that id must be the one forgotten.
    assert.equal(reset.length, 1);

    // Bounded by attempts, not time: collection needs a few GC cycles and turns.
    for (let i = 0; i < 50 && forgotten.length === 0; i++) {
      gc();
      await new Promise((resolve) => setImmediate(resolve));
    }
    assert.equal(collected.deref(), undefined, 'DSH released the disposed agent');
    assert.deepEqual(forgotten, reset);
  });
}
