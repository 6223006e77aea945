// Every pointer to a README or docs section in shipped text (CLI strings,
// the HTML report, config schemas, the docs themselves) names a heading that
// exists: a section moved to docs/ must not leave users sent to nothing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

function files(dir, keep) {
  const out = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...files(path, keep));
    else if (keep(name)) out.push(path);
  }
  return out;
}

const sources = [
  ...['ts', 'reference', 'src', 'rules', 'bin'].flatMap((d) => files(join(root, d), (n) => /\.(mts|ts|rs|json|mjs|js)$/.test(n))),
  ...readdirSync(join(root, 'crates')).flatMap((c) => files(join(root, 'crates', c, 'src'), (n) => n.endsWith('.rs'))),
  join(root, 'README.md'),
  join(root, 'index.d.ts'),
  join(root, 'main.d.ts'),
  join(root, 'ARCHITECTURE.md'),
  ...files(join(root, 'docs'), (n) => n.endsWith('.md')),
];

/** The headings of a Markdown file, as written and as GitHub's anchors. */
function headings(file) {
  const text = readFileSync(file, 'utf8').replace(/```[\s\S]*?```/g, '');
  const titles = [...text.matchAll(/^#{1,6} +(.+?) *$/gm)].map((m) => m[1]);
  // A paragraph's bold label (`**Parallel calls.** …`) is a section too, for a pointer by name.
  const labels = [...text.matchAll(/^(?:- )?\*\*([^*\n]+?)\.\*\*/gm)].map((m) => m[1]);
  const slug = (t) =>
    t
      .toLowerCase()
      .replace(/[^\p{L}\p{N} _-]/gu, '')
      .replace(/ /g, '-');
  return { titles: new Set([...titles, ...labels]), anchors: new Set(titles.map(slug)) };
}

test('every README/docs section named in shipped text exists', () => {
  const missing = [];
  let checked = 0;
  for (const source of sources) {
    const text = readFileSync(source, 'utf8');
    const here = relative(root, source);
    // `README "Waste"`, `docs/loops.md, "Parallel calls"`
    // (In JSON the quotes are escaped: rules/builtin.json's reasons.)
    for (const m of text.replaceAll('\\"', '"').matchAll(/\b(README(?:\.md)?|docs\/[a-z0-9-]+\.md),? "([^"\n]{2,80})"/g)) {
      const file = join(root, m[1].startsWith('README') ? 'README.md' : m[1]);
      checked++;
      if (!existsSync(file) || !headings(file).titles.has(m[2])) missing.push(`${here}: ${m[0]}`);
    }
    // Markdown links with an anchor: `](audit.md#waste)`
    if (source.endsWith('.md'))
      for (const m of text.matchAll(/\]\(((?:docs\/)?[a-z0-9-]+\.md)#([^)\s]+)\)/gi)) {
        const file = join(dirname(source), m[1]);
        checked++;
        if (!existsSync(file) || !headings(file).anchors.has(m[2])) missing.push(`${here}: ${m[0]}`);
      }
  }
  assert.ok(checked > 5, `only ${checked} pointers found: the patterns no longer match the text`);
  assert.deepEqual(missing, []);
});
