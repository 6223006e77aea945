#!/usr/bin/env node
// Print recorded corpus sessions one call a line (index, tool, arguments, the
// start of the output): what a labeller reads before writing labels.json.
//   node scripts/record/loop-corpus/show.mjs corpus/loops/<session>.jsonl [--full]
import { readFileSync } from 'node:fs';

const full = process.argv.includes('--full');
for (const file of process.argv.slice(2).filter((a) => !a.startsWith('--'))) {
  console.log(`== ${file}`);
  let i = 0;
  for (const line of readFileSync(file, 'utf8').split('\n').filter(Boolean)) {
    const ev = JSON.parse(line);
    if (ev.type && ev.type !== 'call') {
      console.log(`     -- ${ev.type}`);
      continue;
    }
    const args = JSON.stringify(ev.arguments).replace(/\s+/g, ' ');
    const out = (ev.output ?? '').replace(/\s+/g, ' ');
    const flag = ev.isError ? ' ERR' : ev.exitCode ? ` exit=${ev.exitCode}` : '';
    console.log(
      `${String(i++).padStart(4)} ${ev.tool}${flag} ${full ? args : args.slice(0, 110)}\n       → ${full ? out : out.slice(0, 160)}`,
    );
  }
}
