/**
 * toolguard for the pi coding agent (`@mariozechner/pi-coding-agent`): an
 * extension that hands every `tool_result` to the engine and patches the
 * result with the verdict. One chain per pi session; user input resets it.
 *
 * - reminder / `context` notice: appended to the result as text blocks (the
 *   model reads them with the output, as pi extensions patch results), or
 *   with `notices: 'message'` sent as pi custom messages (`customType:
 *   'toolguard'`), steered in after the step's tool calls — pi's equivalent
 *   of DSH's `additionalContexts`;
 * - `error` rule: the result becomes `isError: true` with the failure header
 *   and the original output.
 *
 * With `engine: { exactMode: true }` (docs/exact-mode.md) the `tool_call`
 * handler rewrites a shell command in place (pi's `event.input` is mutable)
 * to record each pipeline stage's exit status; the `tool_result` handler
 * gives the engine the statuses and the agent's own command.
 * @module toolguard/pi
 */
import type { ExtensionAPI, ExtensionFactory, ToolResultEvent } from '@mariozechner/pi-coding-agent';
import { GuardEngine } from 'toolguard';
import { type AdapterOptions, ExactCalls, type GuardVerdict, ModelResponses, argumentsJson, failOpen, foldIntoBlocks } from './common.mjs';

export interface PiGuardOptions extends AdapterOptions {
  /** Where reminders and notices go: appended to the result (default) or as pi custom messages. */
  notices?: 'append' | 'message';
}

/** The `customType` of the messages sent with `notices: 'message'`. */
export const PI_MESSAGE_TYPE = 'toolguard';

/** The patch a `tool_result` handler returns (pi's `ToolResultEventResult`, which pi does not export). */
export interface ToolResultPatch {
  content?: ToolResultEvent['content'];
  isError?: boolean;
}

/** The result patch pi applies for a verdict (`undefined`: leave the result alone). */
export function patchFor(
  event: Pick<ToolResultEvent, 'content' | 'isError'>,
  verdict: GuardVerdict,
  withNotices = true,
): ToolResultPatch | undefined {
  return foldIntoBlocks(event.content, event.isError, verdict, withNotices) as ToolResultPatch | undefined;
}

/** A pi extension factory guarding every tool call with one engine built from `options`. */
export function toolguard(options: PiGuardOptions = {}): ExtensionFactory {
  const asMessages = options.notices === 'message';
  return (pi: ExtensionAPI) => {
    // Built at load: a bad config fails the extension instead of falling back.
    const engine = GuardEngine.withLoopsByDefault(options.engine);
    const exact = new ExactCalls('toolguard/pi');
    // pi's turn is one assistant message and the tool calls it made: each
    // turn_start opens a new one (numbered here, so a new prompt's turn 0
    // is not the last prompt's).
    const responses = new ModelResponses();
    let turns = 0;
    let turn = 0;

    // Same order as appended notices: the reminder, the loop alarm, then a context failure's notice.
    function send(verdict: GuardVerdict): void {
      const { reminder, loop, failure } = verdict;
      const notes = [reminder, loop, failure?.action === 'context' ? failure : undefined];
      for (const note of notes) {
        if (!note) continue;
        pi.sendMessage(
          { customType: PI_MESSAGE_TYPE, content: note.text, display: true, details: { summary: note.summary } },
          { deliverAs: 'steer' },
        );
      }
    }

    // Exact mode: the engine rewrites the command; pi runs the patched input.
    pi.on('tool_call', (event) => {
      const rewritten = exact.start(engine, event.toolCallId, event.toolName, argumentsJson(event.input));
      if (rewritten !== null) Object.assign(event.input, JSON.parse(rewritten));
      return undefined;
    });

    pi.on('tool_result', (event, ctx) => {
      let verdict: GuardVerdict | null = null;
      try {
        const rewritten = exact.take(event.toolCallId);
        verdict = engine.observe(
          {
            agentId: ctx.sessionManager.getSessionId(),
            name: event.toolName,
            argumentsJson: rewritten?.argumentsJson ?? argumentsJson(event.input),
            exitStatusFile: rewritten?.exitStatusFile,
            // After the first result of a turn to come back, its other calls
            // were issued before that result came back.
            concurrent: responses.concurrent(ctx.sessionManager.getSessionId(), turn),
          },
          { isError: event.isError, content: event.content },
        );
      } catch (error) {
        failOpen('toolguard/pi', error);
      }
      if (!verdict) return undefined;
      if (asMessages) send(verdict);
      return patchFor(event, verdict, !asMessages);
    });

    pi.on('turn_start', () => {
      turn = ++turns;
    });

    // The user spoke (typed, over RPC, or an extension's sendUserMessage): the
    // chain starts over, and the errors the text quotes are the reported bug
    // (a reproduction printing one is context, not error).
    pi.on('input', (event, ctx) => {
      try {
        const id = ctx.sessionManager.getSessionId();
        engine.reset(id);
        if (event.text) engine.noteUserText(id, event.text);
      } catch (error) {
        failOpen('toolguard/pi', error);
      }
      return { action: 'continue' };
    });

    pi.on('session_shutdown', (_event, ctx) => {
      engine.forget(ctx.sessionManager.getSessionId());
    });
  };
}

/** The extension with the default configuration, for pi's extension loader (`export default`). */
const extension: ExtensionFactory = toolguard();
export default extension;
