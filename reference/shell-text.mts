/**
 * The reference twin of the hook library's shell output text
 * (`toolguard_hook::shell_text_of`, crates/toolguard-hook/src/lib.rs): the
 * adapters' `shellText` reads an output object with it only where no native
 * binary loads. __test__/adapters/hooks.test.mjs holds the two to the same
 * texts.
 */
export function referenceShellText(output: object): string | undefined {
  const o = output as Record<string, unknown>;
  const stdout = typeof o.stdout === 'string' ? o.stdout : undefined;
  const stderr = typeof o.stderr === 'string' ? o.stderr : undefined;
  let text: string | undefined;
  if (stdout !== undefined || stderr !== undefined) {
    text = stdout ?? '';
    if (stderr) text += `${text && !text.endsWith('\n') ? '\n' : ''}[stderr]\n${stderr}`;
    if (!text) text = '(no output)';
  } else if (typeof o.output === 'string') {
    text = o.output;
  } else if (Array.isArray(o.content)) {
    const blocks = (o.content as unknown[]).filter(
      (b): b is { type: 'text'; text: string } =>
        !!b && typeof b === 'object' && (b as { type?: unknown }).type === 'text' && typeof (b as { text?: unknown }).text === 'string',
    );
    if (blocks.length) text = blocks.map((b) => b.text).join('\n');
  }
  if (text === undefined) return undefined;
  const code = typeof o.exitCode === 'number' ? o.exitCode : typeof o.exit_code === 'number' ? o.exit_code : undefined;
  if (code !== undefined && code !== 0) text += `${text.endsWith('\n') ? '' : '\n'}[exit code: ${code}]`;
  return text;
}
