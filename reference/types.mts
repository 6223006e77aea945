/**
 * Public types of the toolguard engine: the configuration, a silent-failure
 * rule, the two inputs of `observe` and its verdict. The native `GuardEngine`
 * and the pure-TypeScript reference engine share them, and the DSH plugins and
 * adapters build on them, so they describe the contract rather than either
 * implementation.
 * @module toolguard/reference/types
 */

/** What a matching rule does: block the result, add a notice, or nothing (the rule is disabled). */
export type RuleAction = 'error' | 'context' | 'off';

/**
 * When a rule may fire: `success` rules stay silent when the output already
 * shows failure (a non-zero exit marker and the like, which the model sees
 * anyway); `always` rules fire regardless.
 */
export type RuleWhen = 'success' | 'always';

/** One silent-failure rule, as written in a config or in `rules/builtin.json`. */
export interface Rule {
  /** Unique id; a user rule with a built-in's id replaces that built-in in place. */
  id: string;
  /** JavaScript regular-expression source, without slashes. */
  pattern: string;
  /** A subset of `imsu`; the stateful flags `g` and `y` are rejected. Default `''`. */
  flags?: string;
  action: RuleAction;
  /** Default `'success'`. */
  when?: RuleWhen;
  /** One line, shown to the model next to the matching line. */
  message: string;
  /** Why the rule is high precision (documentation only). */
  reason?: string;
  /**
   * A veto (same dialect and flags as `pattern`): a match is passed over when
   * this matches in its window, the lines it touches plus 2 lines before and
   * after; the rule reports its first match not vetoed (at most 64 examined).
   */
  unless?: string;
}

/** A row of `rules/builtin.json`: a complete rule plus why it is high precision (for the README). */
export interface BuiltinRule extends Required<Omit<Rule, 'unless'>> {
  reason: string;
  unless?: string;
}

/** Repeat-call reminder configuration (parity with `dsh-repeat-tool-reminder`). */
export interface RepeatOptions {
  /** Run lengths that produce a reminder; sorted at load, the lowest is the gentle tier. Default `[3, 5, 8]`. */
  thresholds?: number[];
  /** Tool-name wildcards (`*` = any run) that take part in chains; empty = all tools. Default `[]`. */
  include?: string[];
  /** Tool-name wildcards that never take part. Default `[]`. */
  exclude?: string[];
  /** UTF-16 code units of canonical arguments quoted in the detailed reminder. Default `500`. */
  argumentsPreviewChars?: number;
}

/** Silent-failure detector configuration. */
export interface LoudFailureOptions {
  /** User rules, merged with the built-in table by id. Default `[]`. */
  rules?: Rule[];
  /** Tool-name wildcards whose results are scanned, compared without case. Default: the list in `rules/shell-tools.json` (bash, Bash, shell, exec_command, execute_bash, run, pwsh, job_output, …). */
  shellTools?: string[];
  /** Also scan `JSON.stringify(value)` of a successful result. Default `false`. */
  scanValue?: boolean;
}

/**
 * Options of the result-aware loop detectors (docs/loops.md "Loop detection").
 * A threshold is an integer >= 2, or `false` to switch that detector off.
 */
export interface LoopsOptions {
  /** Calls kept per agent, as digests (default 30, at most 256). */
  window?: number;
  /** The same call with the same outcome this many times in a row (default 3). */
  repeat?: number | false;
  /** Rounds begun of a repeated block of calls (default 3). */
  cycle?: number | false;
  /** Longest block a cycle may have, 2 to 8 (default 4). */
  maxPeriod?: number;
  /** Consecutive failures of one tool with the same error, new arguments each time (default 3). */
  sameError?: number | false;
  /** The same, when the failure shows only as an HTTP 4xx/5xx status (default 4). */
  softError?: number | false;
  /** The same call and result within the window, other calls in between (default 3). */
  reRead?: number | false;
  /** Thresholds × this for rate limits and 503s (default 2). */
  transientMultiplier?: number;
  /** Polls of a running job that show nothing new, in a row, before it is a loop (default 8). */
  poll?: number | false;
  /** …over at least this many seconds where the calls have times (default 300; 0: the count alone). */
  pollQuietSeconds?: number;
  /** `check` refuses a call continuing a loop reminded this many times (`true`: 2; default false: never). */
  deny?: number | boolean;
  /** Keep the result-blind DSH repeat reminder too (default false). */
  resultBlindRepeat?: boolean;
  /** Argument keys left out of the comparison, per tool pattern (default `{ Bash: ['description'] }`). */
  ignoreArguments?: Record<string, string[]>;
  /** Tools that never take part (`*` wildcards). */
  exempt?: string[];
  /** Threshold multipliers per tool pattern (`{ 'kubectl*': 2 }`). */
  multipliers?: Record<string, number>;
  /** Tools whose success edits files (a re-read after one is a check, not a loop). */
  mutatingTools?: string[];
}

/** `new GuardEngine(config)`; every field is optional. */
export interface GuardConfig {
  repeat?: RepeatOptions;
  loudFailure?: LoudFailureOptions;
  /** Loop detectors over calls and their results; off unless given (`true` or options). */
  loops?: boolean | LoopsOptions;
  /** Exact mode (docs/exact-mode.md); the reference engine accepts the key and records nothing. */
  exactMode?: boolean;
}

/** The tool call being observed. Exactly one of `arguments` / `argumentsJson` is required. */
export interface ToolExecution {
  /** The calling agent; absent for calls made outside any agent, which take part in no chain. */
  agentId?: string;
  /** Tool name. */
  name: string;
  /** The parsed arguments; the engine keys them by `JSON.stringify`, so they must be serializable. */
  arguments?: unknown;
  /** The arguments' JSON text: empty means `{}`, malformed text counts as that raw string (as in DSH). */
  argumentsJson?: string;
  /** Exact mode: the side file `exactCall` named (the native engine reads and deletes it; the reference ignores it). */
  exitStatusFile?: string;
  /**
   * The call was made before the previous call's result came back (one of
   * several parallel calls of a model turn): the loop detectors record it but
   * raise no alarm on it. A host that cannot tell leaves it out (false).
   */
  concurrent?: boolean;
}

/** A content block of a DSH tool result; only `{type: 'text', text}` blocks are scanned. */
export interface ContentBlock {
  type: string;
  text?: string;
}

/**
 * The tool's result. The output is `text` (when given) followed by the text
 * blocks of `content`, joined with "\n". Read only for scanned tools.
 */
export interface ToolResult {
  /** Error results are never scanned. */
  isError?: boolean;
  /** DSH content blocks; a text block's `text` must be a string when present. */
  content?: ContentBlock[];
  /** The output as one plain string (or a part before the blocks). */
  text?: string;
  /** A successful canonical value; scanned (as JSON) only with `loudFailure.scanValue`. */
  value?: unknown /**
   * A shell tool's output as the host gives it (a string, `{stdout, stderr,
   * exitCode}`, `{output, exit_code}`, `{content}`): the engine makes its
   * text in the DSH shell result format, `[exit code: N]` for a non-zero exit.
   */;
  shell?: unknown;
}

/** The repeat-call reminder for this call. */
export interface ReminderVerdict {
  tool: string;
  /** Consecutive identical calls, this one included. */
  count: number;
  /** The exact DSH reminder text. */
  text: string;
  /** `<tool> × <count>`, the DSH notice summary. */
  summary: string;
}

/** One rule that matched, at its first match. */
export interface RuleHit {
  id: string;
  message: string;
  /** 1-based line number of the match start in the scanned text. */
  line: number;
  /** The matching line, trimmed, cut to 200 characters plus `…`. */
  excerpt: string;
}

/** The silent-failure verdict for this call. */
export interface FailureVerdict {
  /** `error` when any matching rule is an error rule: the harness blocks the result with `text`. */
  action: 'error' | 'context';
  /** `<tool>: <id1>, <id2>`. */
  summary: string;
  /** The block feedback (`error`) or the notice (`context`). */
  text: string;
  /** Matching rules in table order. */
  rules: RuleHit[];
}

/** A loop detector's alarm (`loops` on): raised again at every call the loop goes on. */
export interface LoopVerdict {
  kind: 'repeat' | 'cycle' | 'same-error' | 're-read' | 'redo';
  tool: string;
  count: number;
  period: number;
  /** The loop's latest calls by ordinal (1-based since the last user prompt), oldest first (at most 12). */
  calls: Array<number>;
  /** The loop's first call (ordinal): where this episode began, the same on every alarm of one loop. */
  first: number;
  /** The loop's latest call (ordinal): this one. */
  last: number;
  evidence: string;
  text: string;
  summary: string;
  reminders: number;
}

/** `check` refused the call: it would continue a loop already reminded `loops.deny` times. */
export interface LoopDenyVerdict {
  kind: 'repeat' | 'cycle' | 'same-error' | 're-read' | 'redo';
  count: number;
  reminders: number;
  /** Shown to the model instead of the call's result. */
  reason: string;
}

/** What the guard has to say about one call; `observe` returns `null` instead of an empty verdict. */
export interface GuardVerdict {
  reminder?: ReminderVerdict;
  loop?: LoopVerdict;
  failure?: FailureVerdict;
}

/** One agent's saved chain: a 32-hex-digit key digest (engine-specific) and the run length. */
export interface ChainState {
  digest?: string;
  count?: number;
  /** The loop detectors' window (opaque, engine-specific digests). */
  loops?: string;
}

/** The engine surface shared by the native and the reference implementation. */
export interface GuardEngineLike {
  observe(exec: ToolExecution, result?: ToolResult | string): GuardVerdict | null;
  /** `observe` whose scan may run off the JavaScript thread; input errors still throw synchronously. */
  observeAsync(exec: ToolExecution, result?: ToolResult | string): Promise<GuardVerdict | null>;
  reset(agentId: string): void;
  /** The user said `text` to that agent: errors it quotes are the reported bug (docs/shell-model.md). */
  noteUserText(agentId: string, text: string): void;
  forget(agentId: string): void;
  /** The agent's chain, to carry it across processes with `restoreChain`. */
  chainState(agentId: string): ChainState | null;
  restoreChain(agentId: string, state: ChainState): void;
  /** Number of agents with live chain state. */
  readonly agentCount: number;
  /** Whether the loop detectors run (`loops` on in the config). */
  readonly loopsOn: boolean;
  /** Whether `check` may refuse a call (`loops.deny` set): a host installs its pre-call refusal only then. */
  readonly deniesLoops: boolean;
}
