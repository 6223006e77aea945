// The package's types: the native binding's (index.d.ts, generated) as the
// entry exports them (main.js). Listed, not `export *`, so that a name the
// entry does not export (`__napiBindingTarget`) is not promised.
import type * as Binding from './index';

export type {
  ChainState,
  ContentBlock,
  ExactCall,
  FailureVerdict,
  GuardConfig,
  GuardVerdict,
  LoopDenyVerdict,
  LoopsOptions,
  LoopVerdict,
  LoudFailureOptions,
  ReminderVerdict,
  RepeatOptions,
  Rule,
  RuleHit,
  ToolResult,
} from './index';
export { canonicalize, observeCall, observeCallValue } from './index';

/** A tool call: `name`, optional `agentId`, and exactly one of `argumentsJson` (the raw JSON text: the fast path) and `arguments` (a value, serialized with `JSON.stringify`). */
export type ToolExecution =
  | { agentId?: string; name: string; argumentsJson: string; arguments?: never; exitStatusFile?: string; concurrent?: boolean }
  | { agentId?: string; name: string; arguments: unknown; argumentsJson?: never; exitStatusFile?: string; concurrent?: boolean };

/** The guard engine: per-agent repeat chains and silent-failure rules (see index.d.ts for each member). */
export declare class GuardEngine extends Binding.GuardEngine {
  observe(exec: ToolExecution, result?: Binding.ToolResult | string): Binding.GuardVerdict | null;
  observeAsync(exec: ToolExecution, result?: Binding.ToolResult | string): Promise<Binding.GuardVerdict | null>;
  exactCall(exec: ToolExecution): Binding.ExactCall | null;
}

/**
 * Replays recorded sessions through the guard engine (the `toolguard audit`
 * CLI). Needs the native binary: without it (`native` is false) the
 * constructor throws an `Error` saying so.
 */
export declare const Auditor: typeof Binding.Auditor;
export type Auditor = Binding.Auditor;
/** The log format of a file by its content (what `--format auto` reads it as), or null (none known, or no native binary). */
export declare const detectLogFormat: typeof Binding.detectLogFormat;
export declare const logFormats: typeof Binding.logFormats;

/** Whether the native engine is in use (false: the pure-TypeScript reference fallback). */
export declare const native: boolean;
