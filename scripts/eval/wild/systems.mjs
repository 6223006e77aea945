// The systems scored on ../shared/wild: every re-stated peer of
// scripts/eval/baselines/ (fed the calls that calls.mjs reads, as
// loops.eval.mjs feeds them its corpus), toolguard's engine fed the same calls,
// and the `toolguard audit --json` CLI on the wild files themselves (its own
// readers: a file it cannot read yet is reported as "no reader yet").
//
// Each run returns { name, note, covered: Set<sessionKey>, alarms: [{ key,
// ordinal, kind, text }], flags: [{ key, ordinal, rule }] } (flags: the
// silent-failure verdicts; only toolguard has them).
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

import * as cline from '../baselines/cline.mjs';
import * as dsh from '../baselines/dsh-official.mjs';
import * as gemini from '../baselines/gemini-cli.mjs';
import * as goose from '../baselines/goose.mjs';
import * as openclaw from '../baselines/openclaw.mjs';
import * as openhandsV1 from '../baselines/openhands-v1.mjs';
import * as openhands from '../baselines/openhands.mjs';
import * as roo from '../baselines/roo-code.mjs';
import { sessionKey } from './score.mjs';

const repo = join(dirname(fileURLToPath(import.meta.url)), '../../..');
const require = createRequire(import.meta.url);

export const PEERS = [dsh, cline, openhands, openhandsV1, gemini, roo, goose, openclaw];

/** A wild call as the baselines see it (loops.eval.mjs's toCall shape). */
export function toBaselineCall(c) {
  const rawOutput = String(c.output ?? '');
  const exitCode = Number.isInteger(c.exitCode) ? c.exitCode : null;
  const args = c.args && typeof c.args === 'object' ? c.args : { value: c.args };
  return {
    index: c.ordinal - 1,
    tool: c.tool,
    args,
    argsJson: JSON.stringify(args),
    rawOutput,
    output: exitCode ? `${rawOutput}\n[exit code: ${exitCode}]` : rawOutput,
    exitCode,
    isError: c.isError === true,
    callId: c.callId,
  };
}

/** One peer over every session. */
export async function runPeer(peer, sessions) {
  const alarms = [];
  for (const s of sessions) {
    const key = sessionKey(s.file, s.session);
    const detector = peer.create();
    for (const c of s.calls) {
      if (c.userBefore) await detector.user();
      for (const a of await detector.observe(toBaselineCall(c)))
        alarms.push({ key, ordinal: c.ordinal, kind: a.level ?? null, text: a.reason ?? '' });
    }
  }
  return { name: peer.name, note: peer.note, covered: new Set(sessions.map((s) => sessionKey(s.file, s.session))), alarms, flags: [] };
}

/** Every shell tool name of the wild formats (for the engine row with them added). */
export const WILD_SHELL_TOOLS = ['bash', 'Bash', 'execute_bash', 'exec_command', 'shell', 'run', 'pwsh', 'job_output', 'BashOutput'];

/**
 * toolguard's engine (the package root: native addon, else the reference
 * engine) fed the same calls: loop detectors on, as every toolguard product
 * runs them; a verdict's `loop`, else its `reminder`, is an alarm; its
 * `failure` is a silent-failure flag.
 */
/**
 * @param {Array<object>} sessions
 * @param {{ config?: object, name?: string, note?: string }} [options] `config`: a GuardEngine config
 */
export function runEngine(sessions, { config = { loops: {} }, name = 'toolguard engine', note } = {}) {
  const { GuardEngine } = require(join(repo, 'main.js'));
  const alarms = [];
  const flags = [];
  for (const s of sessions) {
    const key = sessionKey(s.file, s.session);
    const engine = new GuardEngine(config);
    const agentId = 'main';
    for (const c of s.calls) {
      if (c.userBefore) engine.reset(agentId);
      // What a live host hands the engine: the output and status as the
      // environment returned them (not the harness's template for the model,
      // calls.mjs `hostOutput`), and whether the call was made before the
      // previous result came back (`concurrent`), as the audit readers do.
      const b = toBaselineCall(c.hostOutput === undefined ? c : { ...c, output: c.hostOutput, exitCode: c.hostExitCode });
      const content = [{ type: 'text', text: b.rawOutput }];
      if (b.exitCode) content.push({ type: 'text', text: `[exit code: ${b.exitCode}]` });
      const call = { agentId, name: c.tool, argumentsJson: b.argsJson, concurrent: c.concurrent === true };
      const v = engine.observe(call, { content, isError: b.isError });
      const alarm = v?.loop ?? v?.reminder;
      if (alarm) alarms.push({ key, ordinal: c.ordinal, kind: v.loop ? alarm.kind : 'reminder', text: alarm.text ?? alarm.summary ?? '' });
      if (v?.failure)
        flags.push({ key, ordinal: c.ordinal, rule: v.failure.rules?.map((r) => r.id).join(',') ?? '', action: v.failure.action });
    }
  }
  return {
    name,
    note:
      note ??
      'the engine fed the calls this eval reads from each format (default config, loops on); measures the detectors apart from the readers',
    covered: new Set(sessions.map((s) => sessionKey(s.file, s.session))),
    alarms,
    flags,
  };
}

/**
 * `toolguard audit --json` on every wild file at once, with its defaults.
 * A report with calls is read (its session index: `session`, else 0); a call
 * is named by the finding's `ordinal` when the report has it, else by its
 * `callId` looked up in this eval's reading of the file.
 */
export function runAudit(sessions, wildDir, manifest) {
  const files = manifest.map((e) => join(wildDir, e.file));
  let doc;
  try {
    const out = execFileSync(process.execPath, [join(repo, 'bin/toolguard.mjs'), 'audit', '--json', '--fail-on', 'none', ...files], {
      cwd: repo,
      encoding: 'utf8',
      maxBuffer: 512 << 20,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    doc = JSON.parse(out);
  } catch (e) {
    // A build whose audit reads none of these files (a format it has no reader
    // for) exits 2: every file is unread, which the row reports; anything else
    // is a real failure.
    if (e?.status !== 2 || !/nothing was audited/.test(String(e.stderr))) throw e;
    doc = { sessions: [] };
  }
  const byKey = new Map(sessions.map((s) => [sessionKey(s.file, s.session), s]));
  const covered = new Set();
  const partial = [];
  const alarms = [];
  const flags = [];
  const readFiles = new Set();
  for (const r of doc.sessions) {
    if (!(r.calls > 0)) continue;
    const file = relative(resolve(wildDir), resolve(repo, r.file)).split('\\').join('/');
    const key = sessionKey(file, Number.isInteger(r.session) ? r.session : 0);
    const ours = byKey.get(key);
    if (!ours) continue;
    readFiles.add(file);
    covered.add(key);
    if (r.calls !== ours.calls.length) partial.push(`${file}#${key.split('#').pop()}: ${r.calls} of ${ours.calls.length} calls`);
    const byId = new Map(ours.calls.filter((c) => c.callId).map((c) => [c.callId, c.ordinal]));
    const ordinalOf = (e) => (Number.isInteger(e.ordinal) ? e.ordinal : byId.get(e.callId));
    for (const e of r.loops ?? []) {
      const o = ordinalOf(e);
      if (o) alarms.push({ key, ordinal: o, kind: e.kind, text: e.text ?? e.summary ?? '' });
    }
    if (!(r.loops ?? []).length)
      for (const e of r.reminders ?? []) {
        const o = ordinalOf(e);
        if (o) alarms.push({ key, ordinal: o, kind: 'reminder', text: e.text ?? '' });
      }
    for (const e of r.failures ?? []) {
      const o = ordinalOf(e);
      if (o) flags.push({ key, ordinal: o, rule: e.ruleId, action: e.verdict });
    }
  }
  const unread = manifest.filter((e) => !readFiles.has(e.file));
  return {
    name: 'toolguard audit',
    note: 'the `toolguard audit --json` CLI on the wild files with its defaults and its own readers',
    covered,
    alarms,
    flags,
    partial,
    unread,
  };
}
