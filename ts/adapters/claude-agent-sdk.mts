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
 * - `UserPromptSubmit`: the user spoke, the session's chain starts over.
 * - `SubagentStop` / `SessionEnd`: that chain's state is freed.
 *
 * Chains: one per session, and one per subagent (`agent_id`). Fails open: if
 * the engine throws, the hook answers nothing and emits a warning.
 * @module toolguard/claude-agent-sdk
 */
import type { HookCallback, HookCallbackMatcher, HookEvent, HookInput, HookJSONOutput } from '@anthropic-ai/claude-agent-sdk';
import { GuardEngine } from 'toolguard';
import { type AdapterOptions, ASYNC_SCAN_THRESHOLD, argumentsJson, failOpen, noticesOf, resultOf } from './common.mjs';
import { hookEngineConfig, hookOutputFor } from './hooks.mjs';

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
  const engine = new GuardEngine(hookEngineConfig(options.engine));
  const none: HookJSONOutput = {};

  const postToolUse: HookCallback = async (input) => {
    if (input.hook_event_name !== 'PostToolUse') return none;
    try {
      const result = resultOf(input.tool_response);
      const exec = { agentId: chainOf(input), name: input.tool_name, argumentsJson: argumentsJson(input.tool_input ?? {}) };
      const verdict =
        (result.text?.length ?? 0) >= ASYNC_SCAN_THRESHOLD ? await engine.observeAsync(exec, result) : engine.observe(exec, result);
      return hookOutputFor(verdict, result.text, 'claude-code') ?? none;
    } catch (error) {
      failOpen(ADAPTER, error);
      return none;
    }
  };

  // The engine decides (`check`); without `loops.deny` it refuses nothing.
  const preToolUse: HookCallback = async (input) => {
    if (input.hook_event_name !== 'PreToolUse') return none;
    try {
      const refused = engine.check({
        agentId: chainOf(input),
        name: input.tool_name,
        argumentsJson: argumentsJson(input.tool_input ?? {}),
      });
      if (!refused) return none;
      return { hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: refused.reason } };
    } catch (error) {
      failOpen(ADAPTER, error);
      return none;
    }
  };

  const postToolUseFailure: HookCallback = async (input) => {
    if (input.hook_event_name !== 'PostToolUseFailure') return none;
    try {
      const exec = { agentId: chainOf(input), name: input.tool_name, argumentsJson: argumentsJson(input.tool_input ?? {}) };
      const verdict = engine.observe(exec, { isError: true });
      const notices = verdict ? noticesOf(verdict) : [];
      if (notices.length === 0) return none;
      return { hookSpecificOutput: { hookEventName: 'PostToolUseFailure', additionalContext: notices.join('\n\n') } };
    } catch (error) {
      failOpen(ADAPTER, error);
      return none;
    }
  };

  const userPromptSubmit: HookCallback = async (input) => {
    try {
      engine.reset(chainOf(input));
    } catch (error) {
      failOpen(ADAPTER, error);
    }
    return none;
  };

  const forget: HookCallback = async (input) => {
    try {
      engine.forget(chainOf(input));
    } catch (error) {
      failOpen(ADAPTER, error);
    }
    return none;
  };

  return {
    PreToolUse: [{ hooks: [preToolUse] }],
    PostToolUse: [{ hooks: [postToolUse] }],
    PostToolUseFailure: [{ hooks: [postToolUseFailure] }],
    UserPromptSubmit: [{ hooks: [userPromptSubmit] }],
    SubagentStop: [{ hooks: [forget] }],
    SessionEnd: [{ hooks: [forget] }],
  };
}
