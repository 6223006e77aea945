// Reads the real sessions of ../shared/wild/ (never copied into the repo) into
// one call list per session, each call named {file, session, ordinal, callId}
// (docs/evaluation.md says how). Used by the labelling helpers
// (candidates.mjs, loops-candidates.mjs) and by scripts/eval/wild.eval.mjs to
// feed the re-stated peers; counts are checked against manifest.json's `calls`.
//
// A call: { file, session, ordinal, callId, tool, args, command, output,
//           exitCode, isError, ts, userBefore }
//   command: the shell command line when the call ran one, else null;
//   exitCode: the status the log recorded (null when the format has none);
//   isError: the harness's own error flag; ts: epoch ms when the log has one;
//   userBefore: a user prompt came since the previous call (Claude Code, OpenHands V1);
//   concurrent: made before the previous call's result came back (Claude Code's
//     parallel blocks, OpenHands V1's actions of one model response), as the
//     audit readers mark it and a live host knows it;
//   hostOutput / hostExitCode (mini-swe-agent v2 only): the output and status
//     as its environment returns them (`extra.raw_output`, `extra.returncode`),
//     before the harness wraps them in `<returncode>…<output>…` for the model:
//     what a live adapter and the audit reader give the engine.
/**
 * What a reader returns for one call (readWildFile adds file, session, ordinal).
 * @typedef {{callId: string | null, tool: string, args: object, command: string | null, output: string,
 *   exitCode: number | null, isError: boolean, ts: number | null, resultTs?: number | null, userBefore?: boolean,
 *   concurrent?: boolean, hostOutput?: string, hostExitCode?: number | null}} ReadCall
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = join(dirname(fileURLToPath(import.meta.url)), '../../..');
/** ../shared/wild relative to the repo root (a fresh clone has none). */
export const WILD = process.env.TOOLGUARD_WILD ?? join(repo, '../shared/wild');
export const wildPresent = (dir = WILD) => existsSync(join(dir, 'manifest.json'));

// biome-ignore lint/suspicious/noControlCharactersInRegex: ESC starts the ANSI sequences this strips
const ANSI = /\x1b\[[0-9;?]*[a-zA-Z]|\x1b[()][0-9A-B]|\r/g;

/**
 * Commands a terminal log shows killed at the harness's timeout: the manifest
 * counts `<returncode>` blocks only, and each of these is a call too (its
 * message at a line start, after the terminal's escapes).
 * @param {string} text
 */
export function killedAtTimeout(text) {
  return text.replace(ANSI, '').split('\nThe last command <command>').length - 1;
}
const tsOf = (s) => {
  const t = Date.parse(s);
  return Number.isFinite(t) ? t : null;
};

function parseArgs(a) {
  if (a && typeof a === 'object') return a;
  try {
    return JSON.parse(a);
  } catch {
    return { raw: String(a ?? '') };
  }
}

const textOf = (content) => {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return content == null ? '' : JSON.stringify(content);
  return content.map((b) => (b?.type === 'text' ? b.text : b?.type === 'image' ? '[image]' : typeof b === 'string' ? b : '')).join('\n');
};

// ---------- Claude Code: JSONL and the Markdown export share message shapes ----------
function claudeMessages(messages) {
  const calls = [];
  const byId = new Map();
  const answered = new Set(); // call ids whose result came back
  let prompted = false; // a user prompt came since the last call (detectors that reset on one need it)
  for (const { role, content, ts } of messages) {
    if (
      role === 'user' &&
      (typeof content === 'string' ||
        (Array.isArray(content) && content.some((b) => b?.type === 'text') && !content.some((b) => b?.type === 'tool_result')))
    )
      prompted = true;
    if (!Array.isArray(content)) continue;
    for (const b of content) {
      if (role === 'assistant' && b?.type === 'tool_use') {
        if (byId.has(b.id)) continue; // a streamed message repeats its blocks
        const args = b.input ?? {};
        const previous = calls[calls.length - 1];
        const c = {
          callId: b.id,
          tool: b.name,
          args,
          command: b.name === 'Bash' ? String(args.command ?? '') : null,
          output: '',
          exitCode: null,
          isError: false,
          ts,
          resultTs: null,
          userBefore: prompted,
          concurrent: previous !== undefined && !answered.has(previous.callId),
        };
        prompted = false;
        byId.set(b.id, c);
        calls.push(c);
      } else if (b?.type === 'tool_result' && byId.has(b.tool_use_id)) {
        const c = byId.get(b.tool_use_id);
        answered.add(b.tool_use_id);
        c.output = textOf(b.content);
        c.isError = b.is_error === true;
        c.resultTs = ts;
      }
    }
  }
  return calls;
}

function claudeJsonl(text) {
  const messages = [];
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    let o;
    try {
      o = JSON.parse(line);
    } catch {
      continue;
    }
    const m = o.message;
    if (!m || !o.type || (o.type !== 'assistant' && o.type !== 'user')) continue;
    messages.push({ role: m.role ?? o.type, content: m.content, ts: tsOf(o.timestamp) });
  }
  return [claudeMessages(messages)];
}

function claudeMarkdown(text) {
  const messages = [];
  for (const block of text.split(/\n---\n/)) {
    const m = /^\s*### (User|Assistant)\n> ([^\n]*)\n\n(\[.*\])\s*$/s.exec(block);
    if (!m) continue;
    let content;
    try {
      content = JSON.parse(m[3]);
    } catch {
      continue;
    }
    messages.push({ role: m[1].toLowerCase(), content, ts: tsOf(m[2]) });
  }
  return [claudeMessages(messages)];
}

// ---------- mini-swe-agent v2 trajectories ----------
function miniSweV2(text) {
  const o = JSON.parse(text);
  const calls = [];
  const byId = new Map();
  for (const m of o.messages ?? []) {
    if (m.role === 'assistant') {
      for (const tc of m.tool_calls ?? []) {
        const args = parseArgs(tc.function?.arguments);
        const c = {
          callId: tc.id,
          tool: tc.function?.name ?? 'bash',
          args,
          command: String(args.command ?? args.raw ?? ''),
          output: '',
          exitCode: null,
          isError: false,
          ts: m.extra?.timestamp ? m.extra.timestamp * 1000 : null,
        };
        byId.set(tc.id, c);
        calls.push(c);
      }
    } else if (m.role === 'tool' && byId.has(m.tool_call_id)) {
      const c = byId.get(m.tool_call_id);
      c.output = textOf(m.content);
      const rc = m.extra?.returncode ?? /<returncode>(-?\d+)<\/returncode>/.exec(c.output)?.[1];
      c.exitCode = rc == null || rc === '' ? null : Number(rc);
      // The environment could not run or finish it (a timeout): the harness's own error.
      c.isError = Boolean(m.extra?.exception_info);
      if (typeof m.extra?.raw_output === 'string') {
        const exception = m.extra.exception_info ? String(m.extra.exception_info) : '';
        c.hostOutput = exception ? `${m.extra.raw_output.replace(/([^\n])$/, '$1\n')}${exception}` : m.extra.raw_output;
        c.hostExitCode = Number.isInteger(m.extra.returncode) ? m.extra.returncode : c.exitCode;
      }
      c.resultTs = m.extra?.timestamp ? m.extra.timestamp * 1000 : null;
    }
  }
  return [calls];
}

// ---------- mini-swe-agent 1.x text-action form ----------
// One fenced ```bash block per assistant turn, as the harness's regex finds it
// (none, or several, is a format error, no action), answered by the next `user` message holding
// `<returncode>`, or by the harness's timeout message (a failed call with no
// status), as crates/toolguard-audit/src/mini_swe.rs reads it.
const tagText = (text, name) => {
  const start = text.indexOf(`<${name}>`);
  const end = text.lastIndexOf(`</${name}>`);
  return start < 0 || end < start + name.length + 2 ? null : text.slice(start + name.length + 2, end);
};

/** The output of a templated observation (`<output>`, or head, elided count and tail). */
function templatedOutput(content) {
  let text = '';
  const exception = tagText(content, 'exception');
  if (exception != null) text += `${exception.replace(/^\n+|\n+$/g, '')}\n`;
  const output = tagText(content, 'output');
  const head = tagText(content, 'output_head');
  const tail = tagText(content, 'output_tail');
  if (output != null) text += output.replace(/^\n/, '');
  else if (head != null && tail != null) {
    text += head.replace(/^\n/, '');
    if (!text.endsWith('\n')) text += '\n';
    text += `[… ${(tagText(content, 'elided_chars') ?? '').trim()} …]\n${tail.replace(/^\n/, '')}`;
  } else if (tagText(content, 'returncode') == null) text += content;
  return text;
}

// mini-swe-agent's `action_regex` (the closing fence starts a line, indented or not): exactly one match, stripped.
function bashAction(text) {
  const blocks = [...text.matchAll(/```(?:bash|sh|mswea_bash_command)\s*\n([\s\S]*?)\n\s*```/g)];
  return blocks.length === 1 ? blocks[0][1].trim() : null;
}

const MINI_TIMEOUT = /^\s*The last command <command>[\s\S]*?<\/command>\s+timed\s+out\s+and\s+has\s+been\s+killed\./;

function miniSweV1(text) {
  const o = JSON.parse(text);
  const calls = [];
  let waiting = null;
  for (const m of o.messages ?? []) {
    const content = textOf(m.content);
    if (m.role === 'assistant') {
      const command = bashAction(content);
      if (command == null) continue;
      waiting = { callId: null, tool: 'bash', args: { command }, command, output: '', exitCode: null, isError: false, ts: null };
      calls.push(waiting);
    } else if (m.role === 'user' && waiting && MINI_TIMEOUT.test(content)) {
      const end = content.indexOf('</output>');
      waiting.output = (end < 0 ? content : content.slice(0, end + '</output>'.length)).trim();
      waiting.isError = true;
      waiting = null;
    } else if ((m.role === 'user' || m.role === 'tool') && waiting && content.includes('<returncode>')) {
      const rc = tagText(content, 'returncode')?.trim();
      waiting.exitCode = rc && /^-?\d+$/.test(rc) ? Number(rc) : null;
      waiting.output = templatedOutput(content);
      waiting.isError = content.trimStart().startsWith('<exception>');
      waiting = null;
    }
  }
  return [calls];
}

// ---------- OpenHands V0 LLM completion log (llm_completions/*.json) ----------
// The run so far is `fncall_messages` (OpenAI tool calls and `tool` results),
// the model's last answer `fncall_response` (its calls never answered). Every
// tool call but `finish` is a call; the shell's exit code is the harness's
// trailer, taken off the output; a command that did not finish is a failed
// call keeping the harness's message; another tool's `ERROR:` result is a
// failed call. As crates/toolguard-audit/src/openhands_llm.rs reads it.
const OH_TRAILER =
  /^\[(?:The command completed with exit code (-?\d+)\.|Command finished with exit code (-?\d+)|Current working directory: [^\n]*|Python interpreter: [^\n]*)\]$/;
const OH_UNFINISHED =
  /^\[(?:The command has no new output after|The command timed out after|Command timed out|Your command .* is NOT executed)/m;

function ohLlmShell(c, text) {
  const lines = text.split('\n');
  let code = null;
  for (
    let m = OH_TRAILER.exec(lines.at(-1)?.replace(/\r$/, '') ?? '');
    m && lines.length;
    m = OH_TRAILER.exec(lines.at(-1)?.replace(/\r$/, '') ?? '')
  ) {
    if (code == null && (m[1] ?? m[2]) != null) code = Number(m[1] ?? m[2]);
    lines.pop();
  }
  if (code === -1 || OH_UNFINISHED.test(text)) {
    c.output = text;
    c.isError = true;
    return;
  }
  c.output = lines.join('\n');
  c.exitCode = code;
}

function ohLlmLog(text) {
  const o = JSON.parse(text);
  const messages = o.fncall_messages ?? o.messages ?? [];
  const calls = [];
  const byId = new Map();
  const push = (m) => {
    for (const tc of m.tool_calls ?? []) {
      if (tc.function?.name === 'finish') continue;
      const args = parseArgs(tc.function?.arguments);
      const c = {
        callId: tc.id ?? null,
        tool: tc.function?.name ?? '',
        args,
        command: tc.function?.name === 'execute_bash' ? String(args.command ?? '') : null,
        output: '',
        exitCode: null,
        isError: false,
        ts: null,
      };
      if (tc.id) byId.set(tc.id, c);
      calls.push(c);
    }
  };
  for (const m of messages) {
    if (m.role === 'assistant') push(m);
    else if (m.role === 'tool' && byId.has(m.tool_call_id)) {
      const c = byId.get(m.tool_call_id);
      byId.delete(m.tool_call_id);
      const out = textOf(m.content);
      if (c.tool === 'execute_bash') ohLlmShell(c, out);
      else {
        c.output = out;
        c.isError = out.trimStart().startsWith('ERROR:');
      }
    }
  }
  const last = (o.fncall_response ?? o.response)?.choices?.[0]?.message;
  if (last) push(last);
  return [calls];
}

// ---------- classic SWE-agent ----------
// The harness's word that it stopped (0.x: a last line `EXECUTION TIMED OUT`…;
// 1.x: "The command '…' was cancelled because it took more than N seconds.") or
// could not run the command: a failed call, as crates/toolguard-audit/src/swe_agent.rs reads it.
const harnessStopped = (o) =>
  /^(EXECUTION TIMED OUT|COMMAND FAILED TO EXECUTE\.|BROKEN PIPE ERROR\.|EXECUTION FAILED OR COMMAND MALFORMED)/.test(
    o.trimEnd().split('\n').pop() ?? '',
  ) ||
  (o.startsWith("The command '") && o.includes("' was cancelled because it took more than "));
function sweClassic(text) {
  const o = JSON.parse(text);
  return [
    (o.trajectory ?? []).map((s) => {
      const action = String(s.action ?? '').replace(/\n$/, '');
      return {
        callId: null,
        tool: action.split(/\s/)[0] || 'action',
        args: { command: action },
        command: action,
        output: String(s.observation ?? ''),
        exitCode: null,
        isError: harnessStopped(String(s.observation ?? '')),
        ts: null,
      };
    }),
  ];
}

// ---------- OpenHands V1 SDK events (one session per line) ----------
// OpenHands exit code -1: the command did not finish (its timeout, or no new
// output for a while); a failed call whose output ends with the harness's
// message to the model (metadata.suffix), as openhands_v1.rs reads it.
const withSuffix = (output, rc, metadata) => {
  const suffix = rc === -1 ? String(metadata?.suffix ?? '').trim() : '';
  if (!suffix || output.includes(suffix)) return output;
  return output && !output.endsWith('\n') ? `${output}\n${suffix}` : `${output}${suffix}`;
};

function ohV1(text) {
  const sessions = [];
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    const o = JSON.parse(line);
    const calls = [];
    const byId = new Map();
    let prompted = false;
    let lastResponse = null; // actions of one model response are parallel calls
    for (const e of o.history ?? []) {
      if (e.kind === 'MessageEvent' && e.source === 'user') prompted = true;
      if (e.kind === 'ActionEvent') {
        const response = e.llm_response_id ?? null;
        const concurrent = response !== null && response === lastResponse;
        lastResponse = response;
        const args = parseArgs(e.tool_call?.arguments ?? e.action ?? {});
        const cmd = e.action?.kind === 'ExecuteBashAction' ? String(e.action.command ?? '') : null;
        const c = {
          callId: e.tool_call_id ?? e.id,
          tool: e.tool_name,
          args,
          command: cmd,
          output: '',
          exitCode: null,
          isError: false,
          ts: tsOf(e.timestamp),
          id: e.id,
          userBefore: prompted,
          concurrent,
        };
        prompted = false;
        byId.set(e.id, c);
        if (e.tool_call_id) byId.set(e.tool_call_id, c);
        calls.push(c);
      } else if (e.kind === 'ObservationEvent' || e.kind === 'AgentErrorEvent' || e.kind === 'UserRejectObservation') {
        const c = byId.get(e.action_id) ?? byId.get(e.tool_call_id);
        if (!c) continue;
        const ob = e.observation ?? {};
        c.output = String(ob.output ?? textOf(ob.content) ?? e.error ?? '').replace(ANSI, '');
        if (e.kind === 'AgentErrorEvent') {
          c.output = String(e.error ?? '');
          c.isError = true;
        }
        const rc = ob.metadata?.exit_code ?? ob.exit_code;
        c.exitCode = Number.isInteger(rc) && rc !== -1 ? rc : null;
        c.isError = c.isError || ob.error === true || rc === -1 || ob.timeout === true;
        c.output = withSuffix(c.output, rc, ob.metadata);
        c.resultTs = tsOf(e.timestamp);
      }
    }
    sessions.push(calls);
  }
  return sessions;
}

// ---------- OpenHands V0 resolver output (one run per line) ----------
// Not calls, as openhands_v0.rs counts them (a `think` is a call there: the model's own tool).
const V0_SKIP = new Set(['message', 'finish', 'change_agent_state', 'recall', 'system', 'null']);
function ohV0Resolver(text) {
  const sessions = [];
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    const o = JSON.parse(line);
    const calls = [];
    let last = null;
    for (const e of o.history ?? []) {
      if (e.action && !V0_SKIP.has(e.action)) {
        const args = { ...e };
        delete args.thought;
        last = {
          callId: null,
          tool: e.action,
          args,
          command: e.action === 'run' ? String(e.command ?? '') : null,
          output: '',
          exitCode: null,
          isError: false,
          ts: null,
        };
        calls.push(last);
      } else if (e.observation && last) {
        last.output = String(e.content ?? '');
        // Older outputs carry `exit_code` flat, later ones in `metadata` (as openhands_v0.rs reads both).
        const rc = e.exit_code ?? e.metadata?.exit_code ?? e.extras?.metadata?.exit_code;
        last.exitCode = Number.isInteger(rc) && rc !== -1 ? rc : null;
        last.isError = e.observation === 'error' || rc === -1;
        last = null;
      }
    }
    sessions.push(calls);
  }
  return sessions;
}

// ---------- OpenHands V0 event stream ----------
function ohV0Stream(text) {
  const events = JSON.parse(text);
  const calls = [];
  const byId = new Map();
  for (const e of events) {
    if (e.action && e.source === 'agent' && !V0_SKIP.has(e.action)) {
      const c = {
        callId: e.tool_call_metadata?.tool_call_id ?? null,
        tool: e.tool_call_metadata?.function_name ?? e.action,
        args: e.args ?? {},
        command: e.action === 'run' ? String(e.args?.command ?? '') : null,
        output: '',
        exitCode: null,
        isError: false,
        ts: tsOf(e.timestamp),
      };
      byId.set(e.id, c);
      calls.push(c);
    } else if (e.observation && byId.has(e.cause)) {
      const c = byId.get(e.cause);
      c.output = String(e.content ?? '');
      const rc = e.extras?.metadata?.exit_code;
      c.exitCode = Number.isInteger(rc) && rc !== -1 ? rc : null;
      c.isError = e.observation === 'error' || rc === -1;
      c.output = withSuffix(c.output, rc, e.extras?.metadata);
      c.resultTs = tsOf(e.timestamp);
    }
  }
  return [calls];
}

// ---------- mini-swe-agent terminal log (tmux capture) ----------
// A call is a `<returncode>` observation, or the harness's timeout message
// (mini-swe-agent 1.x `timeout_template`: "The last command <command>…</command>
// timed out and has been killed." then `<output>`, the line possibly wrapped by
// the terminal): a failed call (isError, no status), its output that message,
// as crates/toolguard-audit/src/mini_log.rs reads it.
function miniSweTerminal(text) {
  const t = text.replace(ANSI, '');
  const calls = [];
  // at a line start only: LiteLLM's rich tracebacks echo earlier observations as
  // `'text': '<returncode>0</returncode>…'` inside their frames, and those are no calls
  const re =
    /^<returncode>(-?\d+)<\/returncode>|^The last command <command>[\s\S]*?<\/command>\s+timed\s+out\s+and\s+has\s+been\s+killed\./gm;
  let m;
  let prev = 0;
  for (m = re.exec(t); m; m = re.exec(t)) {
    const before = t.slice(prev, m.index);
    const fences = [...before.matchAll(/```(?:bash|sh)?\n([\s\S]*?)\n```/g)];
    const command = fences.length ? fences[fences.length - 1][1] : '';
    if (m[1] === undefined) {
      const close = t.indexOf('</output>', re.lastIndex);
      const end = close < 0 ? t.length : close + '</output>'.length;
      const output = t.slice(m.index, end).trim();
      calls.push({ callId: null, tool: 'bash', args: { command }, command, output, exitCode: null, isError: true, ts: null });
      prev = end;
      re.lastIndex = prev;
      continue;
    }
    const rest = t.slice(re.lastIndex);
    const om = /^\s*<output>\n?([\s\S]*?)<\/output>/.exec(rest) ?? /^\s*<output>\n?([\s\S]*?)\n─/.exec(rest);
    const output = om ? om[1] : '';
    calls.push({ callId: null, tool: 'bash', args: { command }, command, output, exitCode: Number(m[1]), isError: false, ts: null });
    prev = re.lastIndex + (om ? om[0].length : 0);
    re.lastIndex = prev;
  }
  return [calls];
}

// ---------- Codex `exec` text log ----------
function codexText(text) {
  const lines = text.replace(ANSI, '').split('\n');
  const TS = /^\[(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)\] /;
  const calls = [];
  /** @type {ReadCall | null} */
  let cur = null; // the call whose start we saw and whose end we wait for
  /** @type {ReadCall | null} */
  let collecting = null; // the call whose output lines follow
  const ENDED = / (succeeded|exited (-?\d+)) in \d+ms:$/;
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i];
    const ts = TS.exec(l);
    if (ts) {
      collecting = null;
      const at = tsOf(ts[1] + 'Z');
      const body = l.slice(ts[0].length);
      /** A call starts at this line. */
      const begin = (tool, args, command) => {
        cur = { callId: null, tool, args, command, output: '', exitCode: null, isError: false, ts: at };
        calls.push(cur);
      };
      /** The current call ended with `status` (an ENDED match); its output lines follow. */
      const finish = (status) => {
        cur.exitCode = status[1] === 'succeeded' ? 0 : Number(status[2]);
        cur.resultTs = at;
        collecting = cur;
        cur = null;
      };
      if (body.startsWith('exec ')) {
        // the command may span lines up to " in <cwd>"
        let cmd = body.slice(5);
        let j = i;
        while (!/ in \/\S*$/.test(cmd) && j + 1 < lines.length && !TS.test(lines[j + 1])) cmd += '\n' + lines[++j];
        cmd = cmd.replace(/ in \/\S*$/, '');
        // every `exec` ran through the shell, update_plan included (it exits -1: no such program)
        begin('exec_command', { command: cmd }, cmd);
        i = j;
        continue;
      }
      if (body.startsWith('apply_patch auto_approved')) {
        let patch = '';
        let j = i;
        while (j + 1 < lines.length && !TS.test(lines[j + 1])) patch += lines[++j] + '\n';
        begin('apply_patch', { patch }, null);
        i = j;
        continue;
      }
      const end = ENDED.exec(body);
      if (end && cur) {
        finish(end);
        continue;
      }
      if (!end && cur) {
        // a multi-line command echoed again: its status line is a later, untimestamped line
        let j = i;
        while (j + 1 < lines.length && !TS.test(lines[j + 1])) {
          const e = ENDED.exec(lines[++j]);
          if (!e) continue;
          finish(e);
          i = j;
          break;
        }
      }
      continue;
    }
    if (collecting) collecting.output += (collecting.output ? '\n' : '') + l;
  }
  for (const c of calls) c.output = c.output.replace(/\n+$/, '');
  return [calls];
}

/** @type {Array<[string, (text: string) => ReadCall[][]]>} */
const READERS = [
  ['claude-code-jsonl', claudeJsonl],
  ['claude-code-session-export-md', claudeMarkdown],
  ['mini-swe-agent-traj-v2', miniSweV2],
  ['mini-swe-agent-traj-v1', miniSweV1],
  ['swe-agent-traj', sweClassic],
  ['openhands-v1-sdk-events', ohV1],
  ['openhands-v0-resolver-output', ohV0Resolver],
  ['openhands-v0-event-stream', ohV0Stream],
  ['openhands-v0-llm-completions', ohLlmLog],
  ['mini-swe-agent terminal log', miniSweTerminal],
  ['codex-exec-text-log', codexText],
];

/** The manifest's entries: { file, format (short), calls, … }. */
export function manifest(dir = WILD) {
  return JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')).map((e) => {
    const r = READERS.find(([name]) => e.format.startsWith(name));
    return { ...e, kind: r ? r[0] : e.format };
  });
}

/** One wild file → its sessions, each a list of named calls. */
export function readWildFile(entry, dir = WILD) {
  const r = READERS.find(([name]) => name === entry.kind);
  if (!r) throw new Error(`wild: no reader for format ${entry.format} (${entry.file})`);
  const sessions = r[1](readFileSync(join(dir, entry.file), 'utf8'));
  return sessions.map((calls, session) => calls.map((c, i) => ({ file: entry.file, session, ordinal: i + 1, ...c })));
}

/** Every session of every wild file: [{ file, session, kind, calls }]. */
export function readWild(dir = WILD) {
  const out = [];
  for (const e of manifest(dir)) {
    readWildFile(e, dir).forEach((calls, session) => {
      out.push({ file: e.file, session, kind: e.kind, calls });
    });
  }
  return out;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (!wildPresent()) {
    console.log(`wild: ${WILD} is absent; nothing to read`);
    process.exit(0);
  }
  let bad = 0;
  for (const e of manifest()) {
    const sessions = readWildFile(e);
    const n = sessions.reduce((a, s) => a + s.length, 0);
    const sh = sessions.reduce((a, s) => a + s.filter((c) => c.command !== null).length, 0);
    // The manifest counts a terminal log's `<returncode>` blocks; a command the
    // harness killed at its timeout has only its timeout message, and is a call too.
    const killed = e.kind === 'mini-swe-agent terminal log' ? killedAtTimeout(readFileSync(join(WILD, e.file), 'utf8')) : 0;
    const ok = n === e.calls + killed;
    if (!ok) bad++;
    if (!ok || process.argv.includes('-v'))
      console.log(
        `${ok ? 'ok ' : 'BAD'} ${e.file}: ${n} calls (manifest ${e.calls}${killed ? ` + ${killed} killed at a timeout` : ''}), shell ${sh} (manifest ${e.bash})`,
      );
  }
  console.log(bad ? `${bad} files disagree with the manifest` : 'every file agrees with the manifest');
}
