#!/usr/bin/env node
// Sorts the silent-failure candidates (candidates.mjs) into reading buckets so
// a human labels them in batches. It PROPOSES only for shapes whose meaning
// does not depend on detail: a pure read/search/listing command whose output
// has no message from a program that ran (the error words are file content),
// a help page, a test run whose summary says everything passed. Everything
// else is bucketed for reading. These rules are the labeller's, written from
// reading the sessions; they know nothing of toolguard's rule table.
//
//   TOOLGUARD_WILD=… node scripts/eval/wild/triage.mjs [--bucket=NAME] [--lines=N] [--counts]
import { fileURLToPath } from 'node:url';

import { candidates, ERRORISH } from './candidates.mjs';
import { readWild, wildPresent, WILD } from './calls.mjs';

/** The command with leading `cd X &&`/`source …&&` stages and a `(` dropped. */
export function effective(cmd) {
  let c = cmd.trim().replace(/^\(\s*/, '');
  for (;;) {
    const m = /^(cd\s+\S+|source\s+\S+|\.\s+\S+|export\s+\S+|[A-Z_]+=\S+)\s*(&&|;)\s*/.exec(c);
    if (!m) break;
    c = c.slice(m[0].length);
  }
  return c;
}

const READ =
  /^(cat|head|tail|sed\s+-n|nl|grep|egrep|rg|find|ls|tree|wc|awk|git\s+(diff|log|show|status|grep|blame)|diff|less|more|file|stat|du|echo|printf|open|search_file|search_dir|find_file|goto|scroll_(up|down))\b/;
/** A line a program printed about its own failure (not file content). */
const PROGRAM_MSG =
  /^(\S+: )?(.*?: )?(No such file or directory|command not found|Permission denied|not found)\s*$|^(fatal|error|ERROR|Error): |^(grep|sed|cat|head|tail|find|ls|awk|git|bash|sh|zsh|\/bin\/sh|nl|wc|diff|rg)(: |:\d+: )|^Traceback \(most recent call last\)|Binary file .* matches/m;

/** The script a `python x.py` command runs, and whether an earlier call of the session wrote it. */
export function scriptWritten(c, session) {
  const m = /\b(?:python[0-9.]*|uv run python)\s+(?:-\S+\s+)*([\w./-]+\.py)\b/.exec(c.command);
  if (!m) return null;
  const base = m[1].replace(/^.*\//, '');
  for (const p of session) {
    if (p.ordinal >= c.ordinal) break;
    const a = JSON.stringify(p.args ?? {});
    if (!a.includes(base)) continue;
    if (
      /cat\s*>|cat <<|tee |> *\S*\.py|"create"|"command":"create"|file_text|Write|"content"/.test(a) ||
      /^(Write|create|str_replace_editor)$/.test(p.tool)
    )
      return `${base} written at #${p.ordinal}`;
  }
  return `${base} not written in session`;
}

export function bucket(c) {
  const e = effective(c.command);
  const out = c.output;
  const logish = /\.log\b|logs?\//.test(e);
  if (/(^|\s)(--help|-h)(\s|$)|\bhelp\b/.test(e) && !/Traceback/.test(out)) return 'help';
  if (
    READ.test(e) &&
    !/^cat\s*(<<|>)|^echo .*>|^printf .*>/.test(e) &&
    !/\||&&|;|\bpython|\bpytest|\bnpm\b|\bnode\b/.test(e.replace(/\|\s*(head|tail|grep|wc|sort|uniq|cut|nl|sed -n)[^|;&]*/g, '')) &&
    !PROGRAM_MSG.test(out)
  )
    return logish ? 'read-log' : 'read';
  if (/^(python[0-9.]*|uv run python|\.venv\/bin\/python)\b/.test(e)) return /Traceback/.test(out) ? 'python-traceback' : 'python-other';
  if (/pytest|unittest|runtests|tox\b|npm (run )?test|jest|vitest/.test(e)) {
    if (/\b[1-9]\d* (failed|errors?)\b|FAILED|^FAIL|Traceback/m.test(out)) return 'tests-fail-words';
    return 'tests-pass';
  }
  if (/pip\b|uv (pip|add|sync)|apt(-get)?\b|npm (i|install)\b|brew\b/.test(e)) return 'install';
  if (/\bcurl\b|\bwget\b|\bhttp\b/.test(e)) return 'http';
  if (/nohup|&\s*$|&\s*(echo|sleep)|\bsleep\b|\bkill\b|pkill/.test(e)) return 'background';
  if (READ.test(e)) return PROGRAM_MSG.test(out) ? 'read-with-message' : 'read-compound';
  return 'other';
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (!wildPresent()) {
    console.log(`wild triage: ${WILD} is absent`);
    process.exit(0);
  }
  const arg = (n) => process.argv.find((a) => a.startsWith(`--${n}=`))?.slice(n.length + 3);
  const list = candidates();
  const sessions = new Map(readWild().map((s) => [`${s.file}#${s.session}`, s.calls]));
  const by = new Map();
  list.forEach((c, i) => {
    c.index = i;
  });
  for (const c of list) {
    const b = bucket(c);
    if (!by.has(b)) by.set(b, []);
    by.get(b).push(c);
  }
  if (process.argv.includes('--counts')) {
    for (const [b, l] of [...by].sort((x, y) => y[1].length - x[1].length)) console.log(`${String(l.length).padStart(4)} ${b}`);
    process.exit(0);
  }
  const want = arg('bucket');
  const maxLines = Number(arg('lines') ?? 4);
  for (const [b, l] of by) {
    if (want && b !== want) continue;
    for (const c of l) {
      const lines = c.output.split('\n');
      const hits = lines.map((t, i) => [t, i]).filter(([t]) => ERRORISH.test(t));
      const tail = lines.filter((t) => t.trim()).slice(-2);
      console.log(
        `## [${c.index}] ${b} | ${c.file.replace(/^.*\//, '').slice(0, 40)} s${c.session} #${c.ordinal} exit=${c.exitCode ?? '?'} n=${lines.length}`,
      );
      const w = scriptWritten(c, sessions.get(`${c.file}#${c.session}`));
      if (w) console.log(`  [script] ${w}`);
      console.log(`  $ ${c.command.replace(/\s*\n\s*/g, ' ⏎ ').slice(0, 260)}`);
      for (const [t, i] of hits.slice(0, maxLines)) console.log(`  ${String(i).padStart(4)}| ${t.slice(0, 200)}`);
      if (hits.length > maxLines) console.log(`      (+${hits.length - maxLines} more)`);
      console.log(`  tail| ${tail.map((t) => t.slice(0, 150)).join(' ⏎ ')}`);
    }
  }
}
