/**
 * toolguard for the Claude Agent SDK (`@anthropic-ai/claude-agent-sdk`):
 * in-process hook callbacks for `query({ options: { hooks } })`. The same
 * verdicts and the same answers as the `toolguard hook` command, without a
 * process per call and without state files: the engine lives in your process.
 *
 * - `PostToolUse`: the call advances its chain and the output of a shell
 *   tool is scanned. A reminder or `context` notice goes to
 *   `hookSpecificOutput.additionalContext`; an `error` rule answers
 *   `decision: "block"` with the failure header as `reason` (Claude Code keeps
 *   the output and shows the reason after it).
 * - `PostToolUseFailure` (a tool that failed, e.g. a non-zero exit): the call
 *   still advances its chain — repeating a failing call is the loop to catch —
 *   and a due reminder goes to `additionalContext`; it is not scanned.
 * - `PreToolUse` (with `loops.deny` in the config): a call that would go on
 *   with a loop already alarmed that many times is refused
 *   (`permissionDecision: "deny"` and the reason), as the hook command does.
 *   With `exactMode` (docs/exact-mode.md) a shell command that is not
 *   refused is rewritten (`updatedInput`) to record each pipeline stage's
 *   exit status; the post-call events read it, so a stage that failed
 *   behind `| tail` is known, and model the agent's own command.
 * - `UserPromptSubmit`: the user spoke, the session's chain starts over.
 * - `SubagentStop` / `SessionEnd`: that chain's state is freed.
 *
 * Parallel calls: Claude Code announces a response's read-only calls
 * (`PreToolUse`) before the first result comes back; of such a batch, the
 * calls after the first result are `exec.concurrent` (no loop alarm on them).
 *
 * Chains: one per session, and one per subagent (`agent_id`). Fails open: if
 * the engine throws, the hook answers nothing and emits a warning.
 * @module toolguard/claude-agent-sdk
 */
import type { HookCallback, HookCallbackMatcher, HookEvent, HookInput, HookJSONOutput } from '@anthropic-ai/claude-agent-sdk';
import {
  type AdapterOptions,
  ASYNC_SCAN_THRESHOLD,
  CallBatches,
  ExactCalls,
  ModelResponses,
  argumentsJson,
  createEngine,
  failOpen,
  outputSize,
  resultOf,
} from './common.mjs';
import { hookOutputFor } from './hooks.mjs';

const ADAPTER = 'toolguard/claude-agent-sdk';

/** The chain of a hook event: its session, or its subagent within the session. */
export function chainOf(input: Pick<HookInput, 'session_id' | 'agent_id'>): string {
  return input.agent_id ? `${input.session_id}\0${input.agent_id}` : input.session_id;
}

/** What `toolguardHooks` returns: the `hooks` option of `query()`, ready to spread or merge. */
export type ToolguardHooks = Partial<Record<HookEvent, HookCallbackMatcher[]>>;

/**
 * Hook callbacks guarding every tool call of the sessions they are given to
 * (one engine, built from `options.engine` with `shellTools` defaulting to
 * the core's list, `Bash` among them, as for `toolguard hook`; a bad config throws here).
 *
 * ```ts
 * for await (const message of query({ prompt, options: { hooks: toolguardHooks() } })) …
 * ```
 */
export function toolguardHooks(options: AdapterOptions = {}): ToolguardHooks {
  const engine = createEngine(options);
  const none: HookJSONOutput = {};
  const exact = new ExactCalls(ADAPTER);
  // Claude Code runs a response's read-only calls in parallel: every
  // PreToolUse comes before the first post event.
  const batches = new CallBatches();
  const responses = new ModelResponses();

  /**
   * A hook callback that fails open: `answer` for `event` (any event when
   * undefined); another event, no answer (`null`, `undefined`), or a throw
   * (warned) answers nothing.
   */
  function hook<E extends HookEvent | undefined>(
    event: E,
    answer: (
      input: E extends HookEvent ? Extract<HookInput, { hook_event_name: E }> : HookInput,
    ) => Promise<HookJSONOutput | null | undefined>,
  ): HookCallback {
    return async (input) => {
      if (event !== undefined && input.hook_event_name !== event) return none;
      try {
        return (await answer(input as Parameters<typeof answer>[0])) ?? none;
      } catch (error) {
        failOpen(ADAPTER, error);
        return none;
      }
    };
  }

  /** The call as the engine sees it: the agent's own arguments, and exact mode's side file when the call was rewritten. */
  function execOf(input: { tool_name: string; tool_input: unknown; tool_use_id: string } & Parameters<typeof chainOf>[0]) {
    const rewritten = exact.take(input.tool_use_id);
    const agentId = chainOf(input);
    return {
      agentId,
      name: input.tool_name,
      argumentsJson: rewritten?.argumentsJson ?? argumentsJson(input.tool_input ?? {}),
      exitStatusFile: rewritten?.exitStatusFile,
      // After the first call of a batch to come back, the others were issued before its result came back.
      concurrent: responses.concurrent(agentId, batches.take(input.tool_use_id)),
    };
  }

  const postToolUse = hook('PostToolUse', async (input) => {
    const result = resultOf(input.tool_response);
    const exec = execOf(input);
    const verdict =
      outputSize(input.tool_response) >= ASYNC_SCAN_THRESHOLD ? await engine.observeAsync(exec, result) : engine.observe(exec, result);
    return hookOutputFor(verdict, input.tool_response, 'claude-code');
  });

  // The engine decides (`check`); without `loops.deny` it refuses nothing.
  // A refusal wins; else, in exact mode, the rewritten command (as the hook
  // command answers: no permissionDecision, the permission rules apply as before).
  const preToolUse = hook('PreToolUse', async (input) => {
    const args = argumentsJson(input.tool_input ?? {});
    const refused = engine.check({ agentId: chainOf(input), name: input.tool_name, argumentsJson: args });
    if (refused) {
      return {
        hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: refused.reason },
      };
    }
    batches.start(chainOf(input), input.tool_use_id);
    const rewritten = exact.start(engine, input.tool_use_id, input.tool_name, args);
    if (rewritten === null) return undefined;
    return { hookSpecificOutput: { hookEventName: 'PreToolUse', updatedInput: JSON.parse(rewritten) } };
  });

  const postToolUseFailure = hook('PostToolUseFailure', async (input) => {
    // Not scanned: nothing to block, only notices (the side file is still read and deleted).
    const verdict = engine.observe(execOf(input), { isError: true });
    return hookOutputFor(verdict, undefined, 'claude-code', 'PostToolUseFailure');
  });

  const userPromptSubmit = hook(undefined, async (input) => {
    engine.reset(chainOf(input));
    // The errors the prompt quotes are the reported bug (docs/shell-model.md).
    const prompt = (input as { prompt?: unknown }).prompt;
    if (typeof prompt === 'string') engine.noteUserText(chainOf(input), prompt);
    return undefined;
  });

  const forget = hook(undefined, async (input) => {
    batches.forget(chainOf(input));
    responses.forget(chainOf(input));
    engine.forget(chainOf(input));
    return undefined;
  });

  return {
    PreToolUse: [{ hooks: [preToolUse] }],
    PostToolUse: [{ hooks: [postToolUse] }],
    PostToolUseFailure: [{ hooks: [postToolUseFailure] }],
    UserPromptSubmit: [{ hooks: [userPromptSubmit] }],
    SubagentStop: [{ hooks: [forget] }],
    SessionEnd: [{ hooks: [forget] }],
  };
}
