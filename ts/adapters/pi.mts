/**
 * toolguard for the pi coding agent (`@mariozechner/pi-coding-agent`): an
 * extension that hands every `tool_result` to the engine and patches the
 * result with the verdict. One chain per pi session; user input resets it.
 *
 * - reminder / `context` notice: appended to the result as text blocks (the
 *   model reads them with the output, as pi extensions patch results);
 * - `error` rule: the result becomes `isError: true` with the failure header
 *   and the original output.
 * @module toolguard/pi
 */
import type { ExtensionAPI, ExtensionFactory, ToolResultEvent } from '@mariozechner/pi-coding-agent';
import { GuardEngine } from 'toolguard';
import { type AdapterOptions, type GuardVerdict, argumentsJson, errorOf, failOpen, noticesOf } from './common.mjs';

export type { AdapterOptions };

type Block = ToolResultEvent['content'][number];

/** The patch a `tool_result` handler returns (pi's `ToolResultEventResult`, which pi does not export). */
export interface ToolResultPatch {
  content?: ToolResultEvent['content'];
  isError?: boolean;
}

/** The result patch pi applies for a verdict (`undefined`: leave the result alone). */
export function patchFor(event: Pick<ToolResultEvent, 'content' | 'isError'>, verdict: GuardVerdict): ToolResultPatch | undefined {
  const notices = noticesOf(verdict).map((text): Block => ({ type: 'text', text }));
  const error = event.isError ? undefined : errorOf(verdict);
  if (error !== undefined) {
    // The failure text already carries the original text output; images stay.
    const images = event.content.filter((block) => block.type !== 'text');
    return { content: [{ type: 'text', text: error }, ...images, ...notices], isError: true };
  }
  if (notices.length === 0) return undefined;
  return { content: [...event.content, ...notices] };
}

/** A pi extension factory guarding every tool call with one engine built from `options`. */
export function toolguard(options: AdapterOptions = {}): ExtensionFactory {
  return (pi: ExtensionAPI) => {
    // Built at load: a bad config fails the extension instead of falling back.
    const engine = new GuardEngine(options.engine);

    pi.on('tool_result', (event, ctx) => {
      let verdict: GuardVerdict | null = null;
      try {
        verdict = engine.observe(
          { agentId: ctx.sessionManager.getSessionId(), name: event.toolName, argumentsJson: argumentsJson(event.input) },
          { isError: event.isError, content: event.content },
        );
      } catch (error) {
        failOpen('toolguard/pi', error);
      }
      return verdict ? patchFor(event, verdict) : undefined;
    });

    // The user spoke (typed, over RPC, or an extension's sendUserMessage): the chain starts over.
    pi.on('input', (_event, ctx) => {
      engine.reset(ctx.sessionManager.getSessionId());
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
