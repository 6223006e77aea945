// Instruction counts of the engine's hot paths, for before/after comparisons
// on a loaded machine (callgrind counts instructions, not seconds: the same
// binary and inputs give the same count whatever else runs).
//
//   valgrind --tool=callgrind --callgrind-out-file=/dev/null \
//     node benchmark/instructions.mjs <scenario> [addon.node]
//
// Runs the scenario 2,000 times (`--calls=N`) after a warm-up; compare the totals of two
// addons (give a path to load another build through NAPI_RS_NATIVE_LIBRARY_PATH)
// against the warm-up-only run (`<scenario> --warmup-only`) to subtract start-up.
// `loops-<case>-on|off`: the combined DSH listener of the `loops` bench group
// (cases bash-200B, bash-4KB, read-2KB, mix, retest), loops on vs `loops: false`;
// the JavaScript around the engine call is the same for both, so counting
// only inside the engine call compares them well:
//   valgrind --tool=callgrind --toggle-collect='*observe_c_callback*' …
// `dsh-<case>-toolguard|official`: the `dsh-listener` bench group's
// `tools/post-execute` listener (cases bash-100B, edit-4KB, write-64KB,
// object-5000), our repeat plugin vs the official one, on the bench's
// 64-call pattern; count the whole process (JavaScript included) and
// subtract the `--warmup-only` run of the same scenario.
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const [scenario, addon] = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const warmupOnly = process.argv.includes('--warmup-only');
// `--calls=N`: timed calls (default 2,000); more of them make a cheap call's
// count stand out of the start-up's run-to-run variation.
const timedCalls = Number(process.argv.find((a) => a.startsWith('--calls='))?.slice('--calls='.length) ?? 2000);
if (addon) process.env.NAPI_RS_NATIVE_LIBRARY_PATH = addon;
const { GuardEngine, observeCall } = require('../index.js');

const engine = new GuardEngine();
const small = '{"command":"pytest -q tests/test_render.py","timeout":120}';
const tail = 'Traceback (most recent call last):\n  File "x.py", line 1\nKeyError: 1';
const out200 = `collected 3 items\n\ntests/test_a.py ...${'.'.repeat(80)}\n`;
const out100k = 'compiling module ok\n'.repeat(5000);
const out64k = out100k.slice(0, 65536);
const scenarios = {
  'observeCall-100B': (i) => observeCall(engine.callHandle, `a${i % 7}`, 'bash', small),
  'observe-200B-no-match': (i) => engine.observe({ agentId: 'a', name: 'bash', argumentsJson: `{"i":${i}}` }, { text: out200 }),
  'observe-200B-match': (i) => engine.observe({ agentId: 'a', name: 'bash', argumentsJson: `{"i":${i}}` }, { text: out200 + tail }),
  'observe-100KB-no-match': (i) => engine.observe({ agentId: 'a', name: 'bash', argumentsJson: `{"i":${i}}` }, { text: out100k }),
  // An adapter's shell result: the engine makes its text (streams, exit marker) in the call.
  'observe-shell-64KB': (i) =>
    engine.observe(
      { agentId: 'a', name: 'bash', argumentsJson: `{"i":${i}}` },
      { shell: { stdout: out64k, stderr: 'warning: x', exitCode: 1 } },
    ),
};
if (scenario?.startsWith('loops-')) {
  // Imported only here: it loads the DSH plugins, whose start-up the other
  // scenarios' warm-up-only baseline should not carry.
  const { LOOP_CASES, combinedListener } = await import('./scenarios.mjs');
  const ids = ['bash-200B', 'bash-4KB', 'read-2KB', 'mix', 'retest'];
  ids.forEach((id, k) => {
    const calls = Array.from({ length: 64 }, (_, i) => LOOP_CASES[k][1](i));
    for (const on of [true, false]) {
      if (scenario !== `loops-${id}-${on ? 'on' : 'off'}`) continue;
      const listener = combinedListener(on ? {} : { loops: false });
      const agent = { id: 'a' };
      const next = async () => ({ kind: 'accept' });
      scenarios[`loops-${id}-${on ? 'on' : 'off'}`] = (i) => {
        const c = calls[i % 64];
        return listener({ name: c.name, arguments: c.arguments, agent }, c.result, next);
      };
    }
  });
}
if (scenario?.startsWith('dsh-')) {
  const { dshListeners } = await import('./scenarios.mjs');
  for (const { id, subjects } of dshListeners(scenario.replace(/^dsh-|-(toolguard|official)$/g, ''))) {
    for (const s of subjects) {
      scenarios[`dsh-${id}-${s.subject}`] = (i) => s.listener(s.execs[i % 64], s.result, s.next);
    }
  }
}
const run = scenarios[scenario];
if (!run) {
  console.error(`scenarios: ${Object.keys(scenarios).join(', ')} (and loops-<case>-on|off, dsh-<case>-toolguard|official)`);
  process.exit(2);
}
for (let i = 0; i < 200; i++) await run(i);
if (!warmupOnly) for (let i = 0; i < timedCalls; i++) await run(i);
