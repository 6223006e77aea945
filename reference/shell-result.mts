/**
 * Twin of the core's `shell_result.rs`: a shell tool's result value (a
 * `ToolResult`'s `shell`) as the text the engine reads, in the DSH shell
 * result format. The native engine makes it in Rust in the same call; this
 * copy is the reference engine's own, because the reference engine must
 * stand alone as the fallback where the addon cannot load (ARCHITECTURE.md).
 * corpus/cases/shell-result.json holds both to the same texts.
 * @module
 */
import { showsFailure } from './markers.mjs';

/**
 * The text of a shell result value: a string as is; a `{stdout, stderr}`
 * object as stdout, then `[stderr]\n<stderr>` when stderr is non-empty
 * (`(no output)` when both are empty); else `output`; else the `content`
 * text blocks joined by newlines; then `[exit code: N]` for a non-zero
 * `exitCode` (else `exit_code`) unless the text already shows failure.
 * Anything else: undefined.
 */
export function shellText(output: unknown): string | undefined {
  if (typeof output === 'string') return output;
  if (output === null || typeof output !== 'object') return undefined;
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
  if (code !== undefined && code !== 0 && !showsFailure(text)) text += `${text && !text.endsWith('\n') ? '\n' : ''}[exit code: ${code}]`;
  return text;
}
