/**
 * Tool-name wildcards, as the official plugin's `wildcardToRegExp`: anchored,
 * `*` matches any run of characters, every other character (regex
 * metacharacters included) matches itself.
 */
export function wildcardToRegExp(pattern: string): RegExp {
  const escaped = pattern.replace(/[|\\{}()[\]^$+?.]/g, String.raw`\$&`);
  return new RegExp(`^${escaped.replaceAll('*', '.*')}$`);
}

/** Whether `name` matches any of the compiled wildcards. */
export function matchesAny(patterns: readonly RegExp[], name: string): boolean {
  return patterns.some((pattern) => pattern.test(name));
}
