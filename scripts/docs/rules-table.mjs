#!/usr/bin/env node
// Prints the built-in rule table of docs/rules.md from rules/builtin.json (the
// one source of the table). __test__/readme.test.mjs fails when the page's
// copy is stale; refresh it with: node scripts/docs/rules-table.mjs --write
import { readFileSync, writeFileSync } from 'node:fs';

const root = new URL('../..', import.meta.url);
const rules = JSON.parse(readFileSync(new URL('rules/builtin.json', root), 'utf8'));
const cell = (s) => String(s).replaceAll('|', '\\|').replaceAll('\n', ' ');

export function rulesTable() {
  const rows = rules.map((r) => `| \`${r.id}\` | ${r.action} | ${r.when} | ${cell(r.message)} | ${cell(r.reason)} |`);
  return ['| id | action | when | message (shown to the model) | why it is high precision |', '|---|---|---|---|---|', ...rows].join('\n');
}

/** The page that holds the table. */
export const RULES_PAGE = 'docs/rules.md';

const BEGIN = '<!-- rules-table:begin -->';
const END = '<!-- rules-table:end -->';

export function readmeWithTable(readme) {
  const start = readme.indexOf(BEGIN);
  const end = readme.indexOf(END);
  if (start < 0 || end < start) throw new Error(`docs/rules.md lacks the ${BEGIN} … ${END} markers`);
  return `${readme.slice(0, start + BEGIN.length)}\n${rulesTable()}\n${readme.slice(end)}`;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  if (process.argv.includes('--write')) {
    const path = new URL(RULES_PAGE, root);
    writeFileSync(path, readmeWithTable(readFileSync(path, 'utf8')));
  } else {
    console.log(rulesTable());
  }
}
