#!/usr/bin/env node
// Lists REPETITION stretches of ../shared/wild for a human to label as stuck
// episodes or benign repetition (corpus/wild-labels/loops.json). Broad on
// purpose and independent of toolguard's detectors: a stretch is any run of
// calls in which one call shape (tool + arguments, whitespace-normalised), or
// one output text, or one error line comes back at least 3 times with at most
// GAP other calls between occurrences. Each stretch is printed call by call
// (ordinal, tool, short arguments, status, first output line) so the reader
// can judge whether the agent made progress.
//
//   TOOLGUARD_WILD=… node scripts/eval/wild/loops-candidates.mjs [--file=SUBSTR] [--gap=N] [--min=N]
import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';

import { readWild, wildPresent, WILD } from './calls.mjs';

const h = (s) => createHash('sha1').update(s).digest('hex').slice(0, 10);
const norm = (s) => String(s).replace(/\s+/g, ' ').trim();

const ACK =
  /has been updated|Todos have been modified|File created successfully|Applied \d+ edits?|File updated\. Please review|The file .* has been (edited|created)|successfully (edited|created|wrote)/i;

export function shapeOf(c) {
  return h(`${c.tool}\u0000${norm(c.command ?? JSON.stringify(c.args ?? {}))}`);
}
/** The last error-looking line of an output, digits blanked (so "line 12" and "line 13" match). */
export function errorLine(c) {
  const lines = String(c.output)
    .split('\n')
    .filter((l) => /error|fail|not found|no such|cannot|invalid|denied|exception/i.test(l));
  return lines.length
    ? norm(lines[lines.length - 1])
        .replace(/\d+/g, 'N')
        .slice(0, 200)
    : null;
}

/** Stretches of one session: [{ from, to, why }] on ordinals, merged when they overlap. */
export function stretches(calls, { gap = 3, min = 3 } = {}) {
  /** @type {Array<[string, (c: any) => string | null]>} `c`: a call of readWildFile */
  const keys = [
    ['same call', shapeOf],
    // an acknowledgement ("has been updated", "Todos have been modified") repeats on every write: not a sign
    ['same output', (c) => (String(c.output).trim() && !ACK.test(c.output) ? h(norm(c.output)) : null)],
    ['same error', errorLine],
  ];
  const found = [];
  for (const [why, key] of keys) {
    const runs = new Map();
    for (const c of calls) {
      const k = key(c);
      if (!k) continue;
      const r = runs.get(k);
      if (r && c.ordinal - r.last <= gap + 1) {
        r.last = c.ordinal;
        r.n++;
      } else {
        if (r && r.n >= min) found.push({ from: r.first, to: r.last, why, n: r.n });
        runs.set(k, { first: c.ordinal, last: c.ordinal, n: 1 });
      }
    }
    for (const r of runs.values()) if (r.n >= min) found.push({ from: r.first, to: r.last, why, n: r.n });
  }
  found.sort((a, b) => a.from - b.from);
  const merged = [];
  for (const s of found) {
    const m = merged[merged.length - 1];
    if (m && s.from <= m.to + 1) {
      m.to = Math.max(m.to, s.to);
      m.why.add(`${s.why}×${s.n}`);
    } else merged.push({ from: s.from, to: s.to, why: new Set([`${s.why}×${s.n}`]) });
  }
  return merged.map((m) => ({ ...m, why: [...m.why].join(', ') }));
}

function short(c) {
  const a = c.command ?? JSON.stringify(c.args ?? {});
  return norm(a).slice(0, 110);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (!wildPresent()) {
    console.log(`wild loops candidates: ${WILD} is absent; nothing to list`);
    process.exit(0);
  }
  const arg = (n) => process.argv.find((a) => a.startsWith(`--${n}=`))?.slice(n.length + 3);
  const only = arg('file');
  const opts = { gap: Number(arg('gap') ?? 3), min: Number(arg('min') ?? 3) };
  let n = 0;
  for (const s of readWild()) {
    if (only && !s.file.includes(only)) continue;
    for (const st of stretches(s.calls, opts)) {
      n++;
      console.log(`## ${s.file} s${s.session} #${st.from}-#${st.to} (${st.why})`);
      for (const c of s.calls.slice(Math.max(0, st.from - 2), Math.min(s.calls.length, st.to + 1))) {
        const first = norm(
          String(c.output)
            .split('\n')
            .find((l) => l.trim() && !/^<\/?(returncode|output)/.test(l)) ?? '',
        ).slice(0, 90);
        console.log(
          `  ${String(c.ordinal).padStart(4)} ${c.tool.slice(0, 14).padEnd(14)} ${c.exitCode ?? (c.isError ? 'E' : '-')} ${short(c)} → ${first}`,
        );
      }
    }
  }
  console.log(`\n${n} stretches`);
}
