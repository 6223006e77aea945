#!/usr/bin/env node
// Lists the silent-failure CANDIDATES of ../shared/wild for a human to label:
// every shell call whose recorded status is 0 or unknown (no error flag) and
// whose output has any error-looking word. The filter is deliberately broad
// and knows nothing of toolguard's rule table, so the labels in
// corpus/wild-labels/silent.json are not shaped by what toolguard detects.
//
//   TOOLGUARD_WILD=/path/to/wild node scripts/eval/wild/candidates.mjs [--json] [--file=SUBSTR] [--context=N]
//
// Prints, per candidate: its name (file, session, ordinal, callId), the
// command's first lines, and the output lines that matched (with N lines of
// context, default 1), compactly, so batches can be read and labelled.
import { fileURLToPath } from 'node:url';

import { readWild, wildPresent, WILD } from './calls.mjs';

/** Any error-looking word or shape (broad on purpose). */
export const ERRORISH =
  /error|fail|fatal|exception|traceback|panic|abort|denied|not found|no such|cannot|can't|could not|couldn't|unable|invalid|refused|timed? ?out|segmentation|killed|unrecognized|unknown (option|command)|usage:|warning:|\bE\d{3,}\b|\b[45]\d\d\b (?:not found|error|forbidden|unauthorized|bad request|internal)|"detail"|missing|undefined|✗|✘|❌/i;

export function isCandidate(call) {
  if (call.command === null) return false;
  if (call.isError) return false;
  if (call.exitCode !== null && call.exitCode !== 0) return false;
  return ERRORISH.test(call.output);
}

export function candidates(dir = WILD) {
  const out = [];
  for (const s of readWild(dir)) for (const c of s.calls) if (isCandidate(c)) out.push(c);
  return out;
}

function show(c, context) {
  const lines = c.output.split('\n');
  const keep = new Set();
  lines.forEach((l, i) => {
    if (ERRORISH.test(l)) for (let k = Math.max(0, i - context); k <= Math.min(lines.length - 1, i + context); k++) keep.add(k);
  });
  const idx = [...keep].sort((a, b) => a - b);
  const shown = [];
  let last = -2;
  for (const i of idx.slice(0, 14)) {
    if (i !== last + 1) shown.push('      …');
    shown.push(`      ${lines[i].slice(0, 220)}`);
    last = i;
  }
  if (idx.length > 14) shown.push(`      … (${idx.length - 14} more matched lines)`);
  const cmd = c.command
    .split('\n')
    .slice(0, 3)
    .map((l) => l.slice(0, 240))
    .join('\n    > ');
  return `## ${c.file} s${c.session} #${c.ordinal} ${c.callId ?? ''} exit=${c.exitCode ?? '?'} lines=${lines.length}\n    $ ${cmd}\n${shown.join('\n')}`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (!wildPresent()) {
    console.log(`wild candidates: ${WILD} is absent; nothing to list`);
    process.exit(0);
  }
  const arg = (n) => process.argv.find((a) => a.startsWith(`--${n}=`))?.slice(n.length + 3);
  const only = arg('file');
  const context = Number(arg('context') ?? 1);
  const list = candidates().filter((c) => !only || c.file.includes(only));
  if (process.argv.includes('--json')) {
    console.log(
      JSON.stringify(
        list.map(({ file, session, ordinal, callId, command, exitCode }) => ({
          file,
          session,
          ordinal,
          callId,
          command: command.split('\n')[0].slice(0, 200),
          exitCode,
        })),
      ),
    );
  } else {
    for (const c of list) console.log(show(c, context));
    console.log(`\n${list.length} candidates`);
  }
}
