/**
 * toolguard for OpenCode (`opencode-ai`): a server plugin. OpenCode loads
 * every function a plugin module exports, so this module exports one, as
 * its default:
 *
 * ```js
 * // .opencode/plugins/toolguard.js (or ~/.config/opencode/plugins/)
 * export { default } from 'toolguard/opencode';
 * ```
 *
 * - `tool.execute.after`: the call and its output advance the session's
 *   loop window; the output of a shell tool (OpenCode's `bash`) is scanned,
 *   with the exit status OpenCode records in the call's metadata (`exit`).
 *   A loop alarm, repeat reminder or `context` notice is appended to the
 *   output the model reads; an `error` rule replaces the output with the
 *   failure text (the header, then the original output).
 * - `tool.execute.before`: with `loops.deny` in the config, a call that would
 *   go on with a loop already alarmed that many times is refused: the
 *   plugin throws, and OpenCode hands the model the reason as the call's
 *   error. With `exactMode` a shell command that is not refused is
 *   rewritten in place (docs/exact-mode.md).
 * - `message.part.updated` (event), a call whose tool threw (no
 *   `tool.execute.after` for it): the failed call advances the chain, so
 *   `loops.deny` refuses the next call of a failing loop.
 * - `chat.message`: the user spoke; the session's chain starts over and the
 *   words go to the engine (`noteUserText`).
 * - `session.deleted` (event): the session's chain is freed.
 *
 * One chain per OpenCode session (a subagent's task runs in a session of its
 * own). Options: the second entry of the config's `plugin` tuple,
 * `["file:///…/toolguard.js", { "engine": { … } }]`, or in code,
 * `(input) => toolguard(input, { engine })`. A bad config throws when
 * OpenCode loads the plugin. At run time the plugin fails open.
 * @module toolguard/opencode
 */
import type { Hooks, Plugin, PluginInput } from '@opencode-ai/plugin';
import {
  type AdapterOptions,
  ASYNC_SCAN_THRESHOLD,
  CallBatches,
  ExactCalls,
  type GuardVerdict,
  ModelResponses,
  type ToolResult,
  appendNotices,
  argumentsJson,
  contentText,
  createEngine,
  errorOf,
  failOpen,
  loopNotices,
  noticesOf,
  outputSize,
} from './common.mjs';

const ADAPTER = 'toolguard/opencode';

/** The plugin's options (the `plugin` tuple's second entry in `opencode.json`). */
export type OpenCodeGuardOptions = AdapterOptions;

/** What `tool.execute.after` may change of a call's result. */
export interface OpenCodeToolOutput {
  title: string;
  output: string;
  // biome-ignore lint/suspicious/noExplicitAny: OpenCode types the metadata as any
  metadata: any;
}

// Module-private: OpenCode calls every function a plugin module exports as a plugin.

/**
 * A tool result as the engine reads it: the output as a shell result, with
 * the exit status from a call's metadata (`bash`), so the engine adds a
 * non-zero one as `[exit code: N]` and `when: success` rules stay silent on
 * output that already shows failure, as for DSH results. A recorded 0 goes
 * to the engine as the `[exit code: 0]` marker, so the failure header says
 * `exited 0` (docs/engine.md) rather than `reported no error`: OpenCode did
 * report the status. The marker goes to the engine only; the model reads
 * OpenCode's output.
 */
function resultOf(output: Pick<OpenCodeToolOutput, 'output' | 'metadata'>): ToolResult {
  const exit = exitOf(output);
  const shown = typeof output.output === 'string' ? output.output : '';
  if (exit === 0) return { text: `${shown}${zeroMarker(shown)}` };
  return { shell: { output: shown, exitCode: exit } };
}

/** The exit status OpenCode records in the call's metadata (`bash`), if any. */
function exitOf(output: Pick<OpenCodeToolOutput, 'metadata'>): unknown {
  return output.metadata && typeof output.metadata === 'object' ? (output.metadata as { exit?: unknown }).exit : undefined;
}

/** The marker of a recorded exit 0 (docs/engine.md): for the engine, not in what the model reads. */
const EXIT_ZERO = '[exit code: 0]';

/** What `resultOf` appends to `text` for a recorded exit 0: the marker on a line of its own. */
function zeroMarker(text: string): string {
  return `${text && !text.endsWith('\n') ? '\n' : ''}${EXIT_ZERO}`;
}

/**
 * The result the model reads, with a verdict folded in: an `error` rule's
 * failure text (with a due alarm after it) in place of the output, else
 * the output with the alarm and a `context` notice appended.
 */
function foldVerdict(output: string, verdict: GuardVerdict, marker: string): string {
  let error = errorOf(verdict);
  // The failure text quotes the scanned text as its original output: without the marker the plugin added.
  if (error !== undefined && marker && error.endsWith(marker)) error = error.slice(0, -marker.length);
  if (error !== undefined) return appendNotices(error, loopNotices(verdict));
  return appendNotices(output, noticesOf(verdict));
}

/** The toolguard plugin: `(input, options) => hooks`, one engine per plugin instance. */
const toolguard: Plugin = async (_input: PluginInput, options?: Record<string, unknown>): Promise<Hooks> => {
  const engine = createEngine(options as OpenCodeGuardOptions | undefined);
  const exact = new ExactCalls(ADAPTER);
  // OpenCode runs the calls of one response concurrently: each is announced
  // (tool.execute.before) before the first result comes back.
  const batches = new CallBatches();
  const responses = new ModelResponses();
  // Calls this plugin refused (their error is the refusal: not a call that ran).
  const refused = new Set<string>();
  // Failed calls already observed (OpenCode may publish a part more than once).
  const failed = new Set<string>();
  const remember = (set: Set<string>, id: string) => {
    set.add(id);
    if (set.size > 1024) set.delete(set.values().next().value!);
  };

  return {
    'tool.execute.before': async (input, output) => {
      let reason: string | undefined;
      try {
        const args = argumentsJson(output.args ?? {});
        reason = engine.check({ agentId: input.sessionID, name: input.tool, argumentsJson: args })?.reason;
        if (reason === undefined) {
          batches.start(input.sessionID, input.callID);
          // Exact mode: OpenCode runs the arguments object the hook leaves.
          const rewritten = exact.start(engine, input.callID, input.tool, args);
          if (rewritten !== null && output.args && typeof output.args === 'object') Object.assign(output.args, JSON.parse(rewritten));
        }
      } catch (error) {
        failOpen(ADAPTER, error);
      }
      // OpenCode hands the model a thrown error's message as the call's result.
      if (reason !== undefined) {
        remember(refused, input.callID);
        throw new Error(reason);
      }
    },

    'tool.execute.after': async (input, output) => {
      try {
        const rewritten = exact.take(input.callID);
        const exec = {
          agentId: input.sessionID,
          name: input.tool,
          argumentsJson: rewritten?.argumentsJson ?? argumentsJson(input.args ?? {}),
          exitStatusFile: rewritten?.exitStatusFile,
          // After the first call of a batch to come back, the others were issued before its result came back.
          concurrent: responses.concurrent(input.sessionID, batches.take(input.callID)),
        };
        const result = resultOf(output);
        const verdict =
          outputSize(output.output) >= ASYNC_SCAN_THRESHOLD ? await engine.observeAsync(exec, result) : engine.observe(exec, result);
        const shown = typeof output.output === 'string' ? output.output : '';
        if (verdict) output.output = foldVerdict(shown, verdict, exitOf(output) === 0 ? zeroMarker(shown) : '');
      } catch (error) {
        failOpen(ADAPTER, error);
      }
    },

    'chat.message': async (input, output) => {
      try {
        // A message of synthetic parts only (OpenCode's own "continue" after a
        // compaction) is not the user speaking.
        const typed = output.parts.filter((part) => part.type === 'text' && !part.synthetic);
        if (typed.length === 0) return;
        engine.reset(input.sessionID);
        // The errors the user quotes are the reported bug (docs/shell-model.md).
        const text = contentText(typed);
        if (text) engine.noteUserText(input.sessionID, text);
      } catch (error) {
        failOpen(ADAPTER, error);
      }
    },

    event: async ({ event }) => {
      try {
        if (event.type === 'session.deleted') {
          const id = event.properties.info.id;
          batches.forget(id);
          responses.forget(id);
          engine.forget(id);
          return;
        }
        // A call whose tool threw (an edit whose old text is not there, a read
        // of a missing file) gets no tool.execute.after: its error part is
        // where it shows. It advances the chain, so loops.deny refuses the
        // next call of a failing loop; the error the model reads is
        // OpenCode's, already written.
        if (event.type !== 'message.part.updated') return;
        const part = event.properties.part;
        if (part.type !== 'tool' || part.state.status !== 'error') return;
        if (refused.has(part.callID) || failed.has(part.callID)) return;
        remember(failed, part.callID);
        const rewritten = exact.take(part.callID);
        engine.observe(
          {
            agentId: part.sessionID,
            name: part.tool,
            argumentsJson: rewritten?.argumentsJson ?? argumentsJson(part.state.input ?? {}),
            exitStatusFile: rewritten?.exitStatusFile,
            concurrent: responses.concurrent(part.sessionID, batches.take(part.callID)),
          },
          { isError: true, text: part.state.error },
        );
      } catch (error) {
        failOpen(ADAPTER, error);
      }
    },
  };
};

export default toolguard;
