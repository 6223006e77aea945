#!/usr/bin/env node
// The sources table of the real-session corpus (docs/evaluation.md, "The
// real-session corpus"), generated from corpus/wild-sources/*.json: one row
// per source repository, held-out sources first, then the totals.
//
//   node scripts/eval/corpus/table.mjs            print the table
//   node scripts/eval/corpus/table.mjs --write    refresh it between the markers in docs/evaluation.md
//     --sources DIR   also read provenance files from DIR (another branch's, before it is merged)
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { loadSources, SOURCES_DIR } from './restore.mjs';

const repo = join(dirname(fileURLToPath(import.meta.url)), '../../..');
export const DOC = join(repo, 'docs/evaluation.md');
export const BEGIN = '<!-- corpus-sources:begin (node scripts/eval/corpus/table.mjs --write) -->';
export const END = '<!-- corpus-sources:end -->';

const sum = (files, key) => files.reduce((n, f) => n + (f[key] ?? 0), 0);
const cell = (text) => String(text).replaceAll('|', '\\|');

/** One row's figures for a source. */
export function row(s) {
  const models = [
    ...new Set(
      s.files
        .flatMap((f) => String(f.model ?? '').split(','))
        .map((m) => m.trim())
        .filter(Boolean),
    ),
  ];
  return {
    source: s.source,
    repo: s.repo,
    harness: s.harness,
    models: (models.length ? models : (s.models ?? [])).join(', '),
    sessions: sum(s.files, 'sessions'),
    calls: sum(s.files, 'calls'),
    shell: sum(s.files, 'shell'),
    split: s.split,
  };
}

/** The markdown table for these sources. */
export function table(sources) {
  const rows = sources.map(row).sort((a, b) => (a.split === b.split ? a.source.localeCompare(b.source) : a.split === 'heldout' ? -1 : 1));
  const lines = [
    '| source | repository | harness | models | sessions | calls | shell calls | split |',
    '|---|---|---|---|---:|---:|---:|---|',
    ...rows.map(
      (r) =>
        `| \`${r.source}\` | ${cell(r.repo)} | ${cell(r.harness)} | ${cell(r.models)} | ${r.sessions} | ${r.calls} | ${r.shell} | ${r.split} |`,
    ),
  ];
  for (const split of ['heldout', 'tuning']) {
    const part = rows.filter((r) => r.split === split);
    if (!part.length) continue;
    const repos = new Set(part.map((r) => r.repo)).size;
    const harnesses = new Set(part.map((r) => r.harness)).size;
    lines.push(
      `| **${split}** | ${repos} repositories | ${harnesses} harnesses | | ${sum(part, 'sessions')} | ${sum(part, 'calls')} | ${sum(part, 'shell')} | |`,
    );
  }
  const repos = new Set(rows.map((r) => r.repo)).size;
  const harnesses = new Set(rows.map((r) => r.harness)).size;
  lines.push(
    `| **all** | ${repos} repositories | ${harnesses} harnesses | | ${sum(rows, 'sessions')} | ${sum(rows, 'calls')} | ${sum(rows, 'shell')} | |`,
  );
  return `${lines.join('\n')}\n`;
}

/** `doc` with the text between the markers replaced by `body`. */
export function replaceBetween(doc, body) {
  const a = doc.indexOf(BEGIN);
  const b = doc.indexOf(END);
  if (a < 0 || b < a) throw new Error(`docs/evaluation.md has no "${BEGIN}" … "${END}" markers`);
  return `${doc.slice(0, a + BEGIN.length)}\n${body}${doc.slice(b)}`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const argv = process.argv.slice(2);
  const dirs = [SOURCES_DIR];
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--sources') dirs.push(argv[++i]);
    else if (argv[i] !== '--write') {
      console.error(`table: unknown argument ${argv[i]}`);
      process.exit(2);
    }
  }
  const text = table(loadSources(dirs));
  if (argv.includes('--write')) {
    writeFileSync(DOC, replaceBetween(readFileSync(DOC, 'utf8'), text));
    console.log(`table: docs/evaluation.md refreshed (${text.split('\n').length - 1} lines)`);
  } else process.stdout.write(text);
}
