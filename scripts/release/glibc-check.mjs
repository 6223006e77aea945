#!/usr/bin/env node
// Which glibc symbol versions a Linux binary requires, read from its ELF
// version-needed section (.gnu.version_r) with binutils' readelf. A binary
// loads on a glibc older than one of these only to fail with "version
// `GLIBC_2.xx' not found", so the portable linux-*-gnu builds must stay at
// or below the baseline they were linked for (2.17, as napi-rs packages do).
//
//   node scripts/release/glibc-check.mjs [--max 2.17] FILE.node...
//
// Prints each file's highest required version; exits 1 when one is above
// --max, 2 when a file cannot be read as ELF.
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const GLIBC_BASELINE = '2.17';

/** Compare dotted versions numerically: '2.3.4' < '2.14'. */
export function compareVersions(a, b) {
  const x = a.split('.').map(Number);
  const y = b.split('.').map(Number);
  for (let i = 0; i < Math.max(x.length, y.length); i++) {
    const d = (x[i] ?? 0) - (y[i] ?? 0);
    if (d) return Math.sign(d);
  }
  return 0;
}

/** The GLIBC_x.y versions `file` requires, sorted ascending (without the prefix). */
export function glibcVersionsNeeded(file) {
  let text;
  try {
    text = execFileSync('readelf', ['--version-info', '--wide', file], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (error) {
    const why = error.code === 'ENOENT' ? 'readelf is not on PATH (Debian package binutils)' : String(error.stderr || error.message).trim();
    throw new Error(`glibc-check: cannot read the ELF version sections of ${file}: ${why}`);
  }
  // Only the "needs" section: a version *defined* by the file is no requirement.
  const needs = text.split(/\n(?=Version \w+ section)/).filter((s) => s.startsWith("Version needs section '.gnu.version_r'"));
  const versions = new Set();
  for (const section of needs) {
    for (const m of section.matchAll(/Name: GLIBC_([0-9][0-9.]*)\b/g)) versions.add(m[1]);
  }
  return [...versions].sort(compareVersions);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  let max = GLIBC_BASELINE;
  const files = [];
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--max') max = args[++i];
    else files.push(args[i]);
  }
  if (!files.length || !/^\d+(\.\d+)+$/.test(max ?? '')) {
    console.error('usage: node scripts/release/glibc-check.mjs [--max 2.17] FILE...');
    process.exit(2);
  }
  let bad = 0;
  for (const file of files) {
    let versions;
    try {
      versions = glibcVersionsNeeded(file);
    } catch (error) {
      console.error(error.message);
      process.exit(2);
    }
    const over = versions.filter((v) => compareVersions(v, max) > 0);
    const top = versions.at(-1) ?? 'none';
    if (over.length) {
      bad += 1;
      console.log(`${file}: requires GLIBC_${top} > GLIBC_${max} (above the baseline: ${over.map((v) => `GLIBC_${v}`).join(', ')})`);
    } else {
      console.log(`${file}: highest glibc symbol version GLIBC_${top} <= GLIBC_${max}`);
    }
  }
  process.exit(bad ? 1 : 0);
}
