// The benchmark scenarios. Each one builds its subjects, checks that every
// subject really does the work (the verdicts agree) and hands the subjects to
// the interleaved harness.
import { createRequire } from 'node:module';
import assert from 'node:assert/strict';

import * as official from '@deepseek-ai/dsh-repeat-tool-reminder';
import * as ours from 'toolguard/dsh/repeat-tool-reminder';
import * as combined from 'toolguard/dsh';
import { GuardEngine as ReferenceEngine } from 'toolguard/reference';

import { compare } from './harness.mjs';
import { argumentClasses, buildLog, callPattern, silentFailure2k, sizeLabel, FAILURE_LINE, DOUBLED_CONFIG } from './fixtures.mjs';

const require = createRequire(import.meta.url);
const toolguard = require('toolguard');
// The main entry falls back to the reference engine when the addon cannot
// load; measuring that against the reference would be meaningless.
if (toolguard.native === false) {
  throw new Error('bench: the native addon did not load (see the warning above); build it with `npm run build:native`');
}
const { GuardEngine: NativeEngine } = toolguard;

/** The repeat plugin's config after its schema applied the defaults (the official `apply` expects it resolved). */
export const REPEAT_CONFIG = Object.freeze({ thresholds: [3, 5, 8], include: [], exclude: [], argumentsPreviewChars: 500 });

const ACCEPT = Object.freeze({ kind: 'accept' });
const next = async () => ACCEPT;
const TOOL_RESULT = Object.freeze({ isError: false, value: null, content: [{ type: 'text', text: 'ok' }] });

/**
 * Apply a plugin to a minimal context stand-in and return its
 * `tools/post-execute` listener. `on` is all the official plugin touches;
 * ours also warns through `ctx.logger` when the engine throws (it must not
 * here, so a warning fails the run).
 */
export function postExecuteListener(plugin) {
  const { ctx, listeners } = pluginContext();
  plugin.apply(ctx, { ...REPEAT_CONFIG, thresholds: [...REPEAT_CONFIG.thresholds] });
  const listener = listeners['tools/post-execute'];
  assert.equal(typeof listener, 'function', 'plugin registered no tools/post-execute listener');
  return listener;
}

/**
 * The subjects of the DSH listener group, per argument class: each plugin's
 * listener and the 64 calls of {@link callPattern} (also driven by
 * benchmark/instructions.mjs, `dsh-<id>-<subject>`; `only`: that id alone).
 */
export function* dshListeners(only) {
  const pattern = callPattern();
  const ids = ['bash-100B', 'edit-4KB', 'write-64KB', 'object-5000'];
  // A generator: each class's arguments and plugins are built when its turn comes.
  for (const [k, cls] of argumentClasses().entries()) {
    if (only !== undefined && ids[k] !== only) continue;
    const distinct = Math.max(...pattern) + 1;
    const args = Array.from({ length: distinct }, (_, i) => cls.make(i));
    const bytes = JSON.stringify(args[0]).length;
    // One agent object per subject: chains are keyed by the live agent.
    const execsFor = (agent) => pattern.map((idx, i) => ({ name: cls.tool, arguments: args[idx], agent, callId: `call-${i}` }));
    const subjects = [
      { subject: 'toolguard', listener: postExecuteListener(ours), execs: execsFor({ id: 'a-ours' }), result: TOOL_RESULT, next },
      { subject: 'official', listener: postExecuteListener(official), execs: execsFor({ id: 'a-official' }), result: TOOL_RESULT, next },
    ];
    yield { id: ids[k], cls, bytes, subjects };
  }
}

/**
 * DSH listener cost per call: our drop-in vs the official plugin, on the same
 * call sequence (see `callPattern`: period 64, 3 repeats, one reminder).
 */
export async function dshScenarios(plan, log) {
  const out = [];
  for (const { cls, bytes, subjects } of dshListeners()) {
    // Both must remind exactly once per period, with the same text.
    const texts = [];
    for (const s of subjects) {
      const reminders = [];
      for (let i = 0; i < s.execs.length; i++) {
        const decision = await s.listener(s.execs[i], TOOL_RESULT, next);
        for (const c of decision.additionalContexts ?? []) reminders.push(c.content[0].text);
      }
      assert.equal(reminders.length, 1, `${s.subject}: expected one reminder per period, got ${reminders.length}`);
      texts.push(reminders[0]);
    }
    assert.equal(texts[0], texts[1], 'the two plugins disagree on the reminder');
    const name = `${cls.name} (${sizeLabel(bytes)} JSON)`;
    log(`dsh: ${name}`);
    const results = await compare(
      subjects.map((s) => ({
        subject: s.subject,
        async: true,
        op: (i) => s.listener(s.execs[i % 64], TOOL_RESULT, next),
      })),
      plan,
    );
    for (const r of results) out.push({ group: 'dsh-listener', name, ...r, bytes });
  }
  return out;
}

/** A DSH plugin context that records listeners and fails on a warning. */
function pluginContext() {
  const listeners = {};
  const ctx = {
    on(event, listener) {
      listeners[event] = listener;
      return () => delete listeners[event];
    },
    logger: {
      warn(message) {
        throw new Error(`plugin warned during the benchmark: ${message}`);
      },
    },
  };
  return { ctx, listeners };
}

/** The combined plugin's `tools/post-execute` listener with `config`. */
export function combinedListener(config) {
  const { ctx, listeners } = pluginContext();
  combined.apply(ctx, combined.Config(config));
  return listeners['tools/post-execute'];
}

/** Calls of the loop scenarios: `[name, make(i)]`, each a 64-call pattern in which nothing loops. */
export const LOOP_CASES = (() => {
  const shell = (i, bytes) => ({
    name: 'bash',
    arguments: { command: `pytest -q tests/test_${i}.py` },
    result: {
      isError: false,
      value: null,
      content: [
        {
          type: 'text',
          text: `${`tests/test_${i}.py::test_case PASSED in 0.0${i % 10}s\n`.repeat(Math.ceil(bytes / 40)).slice(0, bytes)}\n[exit code: 0]`,
        },
      ],
    },
  });
  const read = (i) => ({
    name: 'read_file',
    arguments: { path: `src/module_${i}.py` },
    result: {
      isError: false,
      value: null,
      content: [
        {
          type: 'text',
          text: Array.from({ length: 60 }, (_, l) => `${String(l + 1).padStart(6)}\tdef f_${i}_${l}(x): return x + ${l}`).join('\n'),
        },
      ],
    },
  });
  const edit = (i) => ({
    name: 'edit_file',
    arguments: { path: `src/module_${i}.py`, old_string: `return x + ${i}`, new_string: `return x - ${i}` },
    result: { isError: false, value: null, content: [{ type: 'text', text: `Edited src/module_${i}.py: 1 replacement` }] },
  });
  // The same test command after each edit, its output changing (one failure
  // fewer each run): the call recurs, so its result is normalised every time.
  const retest = (i) => {
    const failing = 64 - (i % 64);
    const lines = Array.from({ length: failing }, (_, k) => `FAILED tests/test_m.py::test_case_${k} - assert ${k + 1} == ${k}`);
    return {
      name: 'bash',
      arguments: { command: 'pytest -q tests' },
      result: {
        isError: false,
        value: null,
        content: [
          {
            type: 'text',
            text: `${'.'.repeat(104 - failing)}${'F'.repeat(failing)}\n${lines.join('\n')}\n${failing} failed, ${104 - failing} passed in 0.${(i * 7) % 100}s\n[exit code: 1]`,
          },
        ],
      },
    };
  };
  /** @type {Array<[string, (i: number) => {name: string, arguments: Record<string, string>, result: object}]>} */
  const cases = [
    ['bash, ~200 B output', (i) => shell(i, 200)],
    ['bash, 4 KB output', (i) => shell(i, 4096)],
    ['read_file, ~2 KB', read],
    ['session mix (bash, read, edit)', (i) => [shell(i, 600), read(i), edit(i)][i % 3]],
    ['edit, then the same failing tests again (~3 KB, changing)', (i) => (i % 2 ? retest(i >> 1) : edit(i >> 1))],
  ];
  return cases;
})();

/**
 * What the loop detectors cost: the combined `toolguard/dsh` listener with
 * loops on (the default) vs `loops: false`, on the same calls and results. A
 * session-like mix: shell calls with ~200 B and 4 KB outputs, file reads of
 * ~2 KB, an edit; edits each followed by the same failing test run, whose
 * output changes (the recurring call whose result is normalised every time);
 * a 64-call pattern in which nothing loops (so both subjects produce no
 * notice and the cost is the detectors' bookkeeping alone).
 * Target: loops on ≤ 1.2× loops off per call.
 */
export async function loopScenarios(plan, log) {
  const out = [];
  for (const [name, make] of LOOP_CASES) {
    const calls = Array.from({ length: 64 }, (_, i) => make(i));
    const subjects = [
      { subject: 'toolguard', listener: combinedListener({}), agent: { id: 'a-on' } },
      { subject: 'loops-off', listener: combinedListener({ loops: false }), agent: { id: 'a-off' } },
    ];
    for (const s of subjects) {
      for (const c of calls) {
        const decision = await s.listener({ name: c.name, arguments: c.arguments, agent: s.agent }, c.result, next);
        assert.equal(decision.additionalContexts, undefined, `${s.subject}: no call of the pattern loops (${name})`);
      }
    }
    log(`loops: ${name}`);
    const results = await compare(
      subjects.map((s) => ({
        subject: s.subject,
        async: true,
        op: (i) => {
          const c = calls[i % 64];
          return s.listener({ name: c.name, arguments: c.arguments, agent: s.agent }, c.result, next);
        },
      })),
      plan,
    );
    for (const r of results) out.push({ group: 'loops', name, ...r });
  }
  return out;
}

/**
 * The loop detectors in the full engine, native vs the reference engine
 * (the fallback where no binary loads), both with `loops: {}`: the 64-call
 * patterns of {@link LOOP_CASES}, in which nothing loops, and a stuck agent
 * (the same failing test run again and again: an alarm at every call). Both
 * engines must give the same verdicts on the pattern before they are timed.
 * Rows go to the `engine` group (native vs reference), named `loops on: …`.
 */
export async function engineLoopScenarios(plan, log) {
  const out = [];
  const stuck = () => ({
    name: 'bash',
    arguments: { command: 'pytest -q tests' },
    result: {
      isError: false,
      value: null,
      content: [{ type: 'text', text: 'FAILED tests/test_m.py::test_a - assert 2 == 1\n1 failed, 40 passed in 0.31s\n[exit code: 1]' }],
    },
  });
  /** @type {typeof LOOP_CASES} */
  const cases = [...LOOP_CASES, ['stuck: the same failing tests every call (an alarm each time)', stuck]];
  for (const [name, make] of cases) {
    const calls = Array.from({ length: 64 }, (_, i) => make(i));
    const execs = calls.map((c) => ({ agentId: 'agent-1', name: c.name, argumentsJson: JSON.stringify(c.arguments) }));
    const engines = [
      { subject: 'toolguard', engine: new NativeEngine({ loops: {} }) },
      { subject: 'reference', engine: new ReferenceEngine({ loops: {} }) },
    ];
    const verdicts = engines.map(({ engine }) => calls.map((c, i) => JSON.stringify(engine.observe(execs[i], c.result))));
    assert.deepEqual(verdicts[1], verdicts[0], `loops on, ${name}: native and reference verdicts differ`);
    log(`engine: loops on, ${name}`);
    const results = await compare(
      engines.map(({ subject, engine }) => ({
        subject,
        op: (i) => engine.observe(execs[i % 64], calls[i % 64].result),
      })),
      plan,
    );
    for (const r of results) out.push({ group: 'engine', name: `loops on: ${name}`, ...r });
  }
  return out;
}

/** Shell commands the engine scenarios rotate through (distinct: no chain reaches a reminder). */
const COMMANDS = ['make -j2', 'cargo build --release', 'npm run build', 'ninja -C build', 'make test', 'go build ./...', 'pytest -q'].map(
  (command) => JSON.stringify({ command, timeout: 600000 }),
);

/** Expected verdict shape, so a silently broken subject cannot look fast. */
function checkVerdict(verdict, failLast, lineCount, subject, doubled = false) {
  if (!failLast) {
    assert.equal(verdict, null, `${subject}: expected no verdict on the benign log`);
    return;
  }
  assert.ok(verdict?.failure, `${subject}: expected a failure verdict`);
  assert.deepEqual(
    verdict.failure.rules.map((r) => [r.id, r.line, r.excerpt]),
    // make's own `make: *** … Error 1` is also a program's message (program-message);
    // the doubled table holds a user copy of each built-in rule.
    (doubled ? ['make-error', 'program-message', 'user-make-error', 'user-program-message'] : ['make-error', 'program-message']).map(
      (id) => [id, lineCount, FAILURE_LINE],
    ),
    `${subject}: wrong rule hits`,
  );
}

export const ENGINE_SIZES = [200, 10 << 10, 100 << 10, 1 << 20, 10 << 20];

/**
 * Full engine per call: native `GuardEngine` vs the reference engine, one
 * `bash` result of build-log text, built-in rules, no match / a match in the
 * last line (the error verdict then carries the whole output back).
 */
export async function engineScenarios(plan, log, sizes = ENGINE_SIZES) {
  const out = [];
  const throughput = [];
  const largest = sizes[sizes.length - 1];
  // The built-in table at every size; the table doubled by user rules at the largest.
  const cases = [...sizes.map((bytes) => ({ bytes, doubled: false })), { bytes: largest, doubled: true }];
  for (const { bytes, doubled } of cases) {
    for (const failLast of [false, true]) {
      const text = buildLog(bytes, { failLast });
      const realBytes = Buffer.byteLength(text);
      const lineCount = text.split('\n').length;
      const result = { isError: false, content: [{ type: 'text', text }] };
      const config = doubled ? DOUBLED_CONFIG : undefined;
      const engines = [
        { subject: 'toolguard', engine: new NativeEngine(config) },
        { subject: 'reference', engine: new ReferenceEngine(config) },
      ];
      for (const { subject, engine } of engines) {
        checkVerdict(
          engine.observe({ agentId: 'agent-1', name: 'bash', argumentsJson: COMMANDS[0] }, result),
          failLast,
          lineCount,
          subject,
          doubled,
        );
      }
      const table = doubled ? `, table doubled by user rules (${DOUBLED_CONFIG.loudFailure.rules.length * 2} rules)` : '';
      const name = `shell output ${sizeLabel(bytes)}, ${failLast ? 'match in last line' : 'no match'}${table}`;
      log(`engine: ${name}`);
      const results = await compare(
        engines.map(({ subject, engine }) => ({
          subject,
          op: (i) => engine.observe({ agentId: 'agent-1', name: 'bash', argumentsJson: COMMANDS[i % COMMANDS.length] }, result),
        })),
        plan,
      );
      for (const r of results) {
        out.push({ group: 'engine', name, ...r, bytes: realBytes });
        if (!failLast && bytes === largest) {
          const rules = doubled ? 'table doubled by user rules' : 'built-in rules';
          throughput.push({
            name: `${rules}, ${sizeLabel(bytes)} build log, full observe()`,
            subject: r.subject,
            bytes: realBytes,
            mb_s: realBytes / 1e6 / (r.ns_per_op / 1e9),
            // Filled by a full run when valgrind is installed (scan-instructions.mjs).
            /** @type {number | null} */
            instructions_per_mib: null,
          });
        }
      }
    }
  }
  // The typical silent failure (~2 KB, a failed `cp` in a `;` chain): both
  // engines must report the same rules before they are timed (a table
  // without a rule for it reports none; both still scan the whole text).
  const text = silentFailure2k();
  const result = { isError: false, content: [{ type: 'text', text }] };
  for (const doubled of [false, true]) {
    const config = doubled ? DOUBLED_CONFIG : undefined;
    const engines = [
      { subject: 'toolguard', engine: new NativeEngine(config) },
      { subject: 'reference', engine: new ReferenceEngine(config) },
    ];
    const hits = engines.map(({ engine }) => {
      const v = engine.observe({ agentId: 'agent-1', name: 'bash', argumentsJson: COMMANDS[0] }, result);
      return v?.failure?.rules.map((h) => [h.id, h.line]) ?? null;
    });
    assert.deepEqual(hits[0], hits[1], 'native and reference disagree on the 2 KB silent failure');
    const table = doubled ? `, table doubled by user rules (${DOUBLED_CONFIG.loudFailure.rules.length * 2} rules)` : '';
    const name = `shell output ${sizeLabel(Buffer.byteLength(text))}, typical silent failure${table}`;
    log(`engine: ${name}`);
    const results = await compare(
      engines.map(({ subject, engine }) => ({
        subject,
        op: (i) => engine.observe({ agentId: 'agent-1', name: 'bash', argumentsJson: COMMANDS[i % COMMANDS.length] }, result),
      })),
      plan,
    );
    for (const r of results) out.push({ group: 'engine', name, ...r, bytes: Buffer.byteLength(text) });
  }
  return { scenarios: out, throughput };
}

/**
 * Many agents: `agents` agent ids called round-robin (every call is the next
 * agent's), ~100 B arguments and a 200 B shell result each. All agents exist
 * before timing starts, so the engines work at full size.
 */
export async function agentScenarios(plan, log, agents) {
  const ids = Array.from({ length: agents }, (_, i) => `agent-${i}`);
  const text = buildLog(200);
  const result = { isError: false, content: [{ type: 'text', text }] };
  const engines = [
    { subject: 'toolguard', engine: new NativeEngine() },
    { subject: 'reference', engine: new ReferenceEngine() },
  ];
  for (const { subject, engine } of engines) {
    for (let i = 0; i < agents; i++)
      engine.observe({ agentId: ids[i], name: 'bash', argumentsJson: COMMANDS[i % COMMANDS.length] }, result);
    assert.equal(engine.agentCount, agents, `${subject}: agent count`);
  }
  const name = `${agents.toLocaleString('en-US')} agents round-robin`;
  log(`agents: ${name}`);
  const results = await compare(
    engines.map(({ subject, engine }) => ({
      subject,
      op: (i) => engine.observe({ agentId: ids[i % agents], name: 'bash', argumentsJson: COMMANDS[i % COMMANDS.length] }, result),
    })),
    plan,
  );
  return results.map((r) => ({ group: 'agents', name, ...r }));
}
