/**
 * The reference twin of the hook library's verdict translation
 * (`toolguard_hook::hook_output_of`, crates/toolguard-hook/src/answer.rs): the
 * in-process Claude Agent SDK adapter answers with it only where no native
 * binary loads. __test__/adapters/hooks.test.mjs holds the two to the same
 * answers.
 */
import { shellText } from './shell-result.mjs';
import type { GuardVerdict } from './types.mjs';

export interface ReferenceHookOutput {
  decision?: 'block';
  reason?: string;
  hookSpecificOutput?: { hookEventName: 'PostToolUse' | 'PostToolUseFailure'; additionalContext: string };
}

export function referenceHookOutput(
  verdict: GuardVerdict,
  scannedValue: unknown,
  host: 'claude-code' | 'codex',
  eventName: 'PostToolUse' | 'PostToolUseFailure',
): ReferenceHookOutput | null {
  // The text the engine scanned, or the shell result value it made the text of.
  const scanned = shellText(scannedValue);
  const out: ReferenceHookOutput = {};
  const failure = verdict.failure;
  if (failure && failure.action === 'error') {
    // Claude Code shows the output right above the reason: drop the failure text's copy of it.
    const copy = scanned === undefined || host === 'codex' ? undefined : `\nOriginal output:\n${scanned}`;
    out.decision = 'block';
    out.reason = copy !== undefined && failure.text.endsWith(copy) ? failure.text.slice(0, -copy.length) : failure.text;
  }
  const notices = [verdict.reminder?.text, verdict.loop?.text, failure?.action === 'context' ? failure.text : undefined].filter(
    (t): t is string => t !== undefined,
  );
  if (notices.length) out.hookSpecificOutput = { hookEventName: eventName, additionalContext: notices.join('\n\n') };
  return out.decision || out.hookSpecificOutput ? out : null;
}
