#!/usr/bin/env node
// Record the silent-failure corpus (corpus/silent/) by REALLY running each
// command of scripts/record/silent-corpus/cases.json with bash, in a scratch work
// directory holding scripts/record/silent-corpus/files.mjs, and rendering the result
// as DSH's bash tool shows it (see renderShellResult below).
//
//   node scripts/record/record-silent-corpus.mjs --install      # apt/pip/npm installs first (root, registries)
//   node scripts/record/record-silent-corpus.mjs [--only=family,family] [--list] [--cases=FILE --out=DIR]
//        [--files=FILE] [--scratch=DIR]
//
// --files=FILE replaces the work directory's files (files.mjs and the extras
// below) with FILE's `files` export and runs its optional `setup` export (a
// bash script) in the work directory first and puts its optional `path`
// export (directories) first on PATH; --scratch=DIR records somewhere
// else than /tmp/silent-corpus, so a held-out recording never wipes the
// scratch of a corpus recording running at the same time.
//
// The label comes from the case's meaning (a human judgement written next to
// the command) and the real exit code, never from what a detector says.
// Outputs differ a little between runs (timings, versions); that is expected.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

import { files as corpusFiles } from './silent-corpus/files.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '../..');
const argOf = (name) => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
// --cases=FILE --out=DIR record another case list (e.g. a held-out set kept outside the repo).
// A case list is data ({ about, cases: [{ family, id, meaning, command, note }] }).
const casesFile = argOf('cases') ? resolve(argOf('cases')) : join(dirname(fileURLToPath(import.meta.url)), 'silent-corpus/cases.json');
const { cases } = JSON.parse(readFileSync(casesFile, 'utf8'));
const OUT = argOf('out') ? resolve(argOf('out')) : join(root, 'corpus/silent');
const own = argOf('files') ? await import(pathToFileURL(resolve(argOf('files'))).href) : null;
const files = own ? own.files : corpusFiles;
const SCRATCH = argOf('scratch') ? resolve(argOf('scratch')) : '/tmp/silent-corpus';
const WORK = join(SCRATCH, 'work');
// The npm tools stay in the default scratch: one install serves every recording.
const TOOLS = '/tmp/silent-corpus/tools/js';

const APT = [
  'pandoc',
  'ruby',
  'ruby-rspec',
  'php-cli',
  'phpunit',
  'golang-go',
  'cmake',
  'shellcheck',
  'libxml2-utils',
  'lua5.4',
  'm4',
  'mariadb-client',
  'postgresql-client',
  'clang',
  'yamllint',
  'ffmpeg',
  'ghostscript',
  'bats',
  'texlive-latex-base',
  'sqlite3',
  'imagemagick',
  'valgrind',
  'jq',
  'zstd',
  'xz-utils',
  'bzip2',
  'zip',
  'unzip',
  'patch',
  'bc',
  'git',
  'curl',
  'wget',
  'gcc',
  'g++',
  'make',
  'default-jdk-headless',
  'maven',
  'docker.io',
  'openssh-client',
  'gnupg',
  'redis-tools',
  'rsync',
  'ninja-build',
  'pkg-config',
  'autoconf',
  'meson',
  'poppler-utils',
  'qpdf',
  'sox',
  'tcl',
  'p7zip-full',
  'man-db',
  'xxd',
];
const PIP = ['pytest', 'tenacity', 'requests', 'mypy', 'ruff', 'flake8', 'black', 'pylint'];
const NPM = ['jest@29', 'vitest@2', 'mocha@10', 'typescript@5', 'esbuild@0.23', 'eslint@9', 'prettier@3'];

const args = process.argv.slice(2);
const only = args
  .find((a) => a.startsWith('--only='))
  ?.slice(7)
  .split(',');

function sh(cmd, opts = {}) {
  const r = spawnSync('bash', ['-c', cmd], { stdio: 'inherit', ...opts });
  if (r.status !== 0) throw new Error(`record-silent-corpus: setup step failed (${r.status}): ${cmd}`);
}

if (args.includes('--list')) {
  for (const { family, id, meaning, command } of cases) console.log(`${family}/${id}\t${meaning}\t${command}`);
  process.exit(0);
}

if (args.includes('--install')) {
  sh(`apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends ${APT.join(' ')}`);
  sh(`python3 -m pip install -q --disable-pip-version-check ${PIP.join(' ')}`);
}
// The npm tools live outside the repo so the recording never touches its lockfile.
if (!existsSync(join(TOOLS, 'node_modules/.bin/jest'))) {
  mkdirSync(TOOLS, { recursive: true });
  writeFileSync(join(TOOLS, 'package.json'), '{"name":"silent-corpus-tools","version":"1.0.0","private":true}\n');
  sh(`npm install --no-audit --no-fund ${NPM.join(' ')}`, { cwd: TOOLS });
}

// ---------- scratch work directory ----------
rmSync(SCRATCH + '/out', { recursive: true, force: true });
rmSync(WORK, { recursive: true, force: true });
for (const [path, content] of Object.entries(files)) {
  mkdirSync(dirname(join(WORK, path)), { recursive: true });
  writeFileSync(join(WORK, path), content);
}
const extra = {
  'py/tests/test_xfail.py':
    'import pytest\n\n@pytest.mark.xfail(reason="known bug #12")\ndef test_known_failure():\n    assert 1 == 2\n\ndef test_ok():\n    assert True\n',
  'pkg-broken/setup.py':
    'from setuptools import setup\nraise RuntimeError("this package needs libfoo-dev (pkg-config libfoo not found)")\nsetup(name="broken", version="0.1")\n',
  '../npmproj/package.json':
    JSON.stringify(
      {
        name: 'npmproj',
        version: '1.0.0',
        private: true,
        scripts: {
          fails: 'node -e "console.error(\'build: cannot find src/index.ts\'); process.exit(1)"',
          ok: 'node -e "console.log(\'lint: 0 errors, 0 warnings\')"',
          warns: "node -e \"console.warn('warning: option --legacy is deprecated'); console.log('built 3 files')\"",
        },
      },
      null,
      2,
    ) + '\n',
  '../viteproj/index.html': '<!doctype html><script type="module" src="/main.js"></script>\n',
  '../viteproj/main.js': "import { render } from './render-missing.js';\nrender();\n",
  '../viteok/index.html': '<!doctype html><script type="module" src="/main.js"></script>\n',
  '../viteok/main.js': "console.log('Error boundary installed');\n",
  '../repo/notes.txt': 'notes\n',
  '../repo/src.txt': 'if (fatal) { log("fatal: disk") }\n',
};
if (own) {
  if (own.setup) sh(own.setup, { cwd: WORK });
} else {
  for (const [path, content] of Object.entries(extra)) {
    mkdirSync(dirname(join(WORK, path)), { recursive: true });
    writeFileSync(join(WORK, path), content);
  }
  sh(`cd ${SCRATCH}/repo && rm -rf .git && git init -q -b main && git config user.email r@example.com && git config user.name r &&
    git add . && git commit -qm "fix error handling in the loader" &&
    git checkout -qb feature && echo "feature" > notes.txt && git commit -qam "handle failed jobs" &&
    git checkout -q main && echo "main" > notes.txt && git commit -qam "log fatal errors" && git status --short`);
}

const env = {
  ...process.env,
  PATH: [...(own?.path ?? []), join(TOOLS, 'node_modules/.bin'), process.env.PATH].join(':'),
  LANG: 'C.UTF-8',
  LC_ALL: 'C.UTF-8',
  TERM: 'dumb',
  NO_COLOR: '1',
  FORCE_COLOR: '0',
  CI: '1',
  CARGO_TERM_COLOR: 'never',
  GOFLAGS: '-mod=mod',
  GOTOOLCHAIN: 'local',
  PIP_NO_COLOR: '1',
  CARGO_TARGET_DIR: join(SCRATCH, 'cargo-target'),
};

// ---------- DSH's bash tool rendering ----------
// stdout, then `[stderr]\n<stderr>` when stderr is non-empty, `(no output)`
// when both are empty, then the markers, the exit marker last; a clean exit
// 0 has no marker (shared/spec/guard-semantics.md; src/markers.rs reads them).
const MAX_STREAM = 6000;
function clip(text) {
  if (text.length <= MAX_STREAM) return { text, cut: 0 };
  // Keep the head and the tail (where summaries and tracebacks live).
  const lines = text.split('\n');
  let head = [],
    tail = [],
    h = 0,
    t = 0;
  for (const l of lines) {
    if (h + l.length > 2000 || head.length >= 40) break;
    head.push(l);
    h += l.length + 1;
  }
  for (let i = lines.length - 1; i >= head.length; i--) {
    if (t + lines[i].length > 3500 || tail.length >= 80) break;
    tail.unshift(lines[i]);
    t += lines[i].length + 1;
  }
  const cut = lines.length - head.length - tail.length;
  return { text: [...head, `[… corpus: ${cut} lines cut …]`, ...tail].join('\n'), cut };
}
export function renderShellResult({ stdout, stderr, exitCode, signal, timedOutMs }) {
  const parts = [];
  const out = stdout.replace(/\n$/, '');
  const err = stderr.replace(/\n$/, '');
  if (out) parts.push(out);
  if (err) parts.push(`[stderr]\n${err}`);
  if (!parts.length) parts.push('(no output)');
  if (timedOutMs) parts.push(`[timed out after ${timedOutMs}ms]`);
  else if (signal) parts.push(`[killed by signal: ${signal}]`);
  else if (exitCode !== 0) parts.push(`[exit code: ${exitCode}]`);
  return parts.join('\n');
}

// ---------- record ----------
const TIMEOUT = 180_000;
const byFamily = new Map();
const seen = new Set();
for (const { family, id, meaning, command, note } of cases) {
  const key = `${family}/${id}`;
  if (seen.has(key)) throw new Error(`duplicate case ${key}`);
  seen.add(key);
  if (only && !only.includes(family)) continue;
  const r = spawnSync('bash', ['-c', command], { cwd: WORK, env, encoding: 'utf8', timeout: TIMEOUT, maxBuffer: 64 << 20 });
  const so = clip(r.stdout ?? ''),
    se = clip(r.stderr ?? '');
  const timedOut = /** @type {NodeJS.ErrnoException | undefined} */ (r.error)?.code === 'ETIMEDOUT';
  const exitCode = r.status ?? -1;
  const output = renderShellResult({
    stdout: so.text,
    stderr: se.text,
    exitCode,
    signal: timedOut ? null : r.signal,
    timedOutMs: timedOut ? TIMEOUT : 0,
  });
  const failed = timedOut || r.signal || exitCode !== 0;
  const label = meaning === 'ok' ? 'benign' : failed ? 'shown-failure' : 'silent-failure';
  const entry = { id: key, family, label, command, note, exit: timedOut ? 'timeout' : (r.signal ?? exitCode), output };
  if (so.cut || se.cut) entry.truncated = `${so.cut + se.cut} lines cut from the middle`;
  if (!byFamily.has(family)) byFamily.set(family, []);
  byFamily.get(family).push(entry);
  process.stderr.write(`${label.padEnd(15)} ${key}\n`);
}

mkdirSync(OUT, { recursive: true });
if (!only) for (const f of readdirSync(OUT)) if (f.endsWith('.jsonl')) rmSync(join(OUT, f));
for (const [family, entries] of byFamily) {
  writeFileSync(join(OUT, `${family}.jsonl`), entries.map((e) => JSON.stringify(e)).join('\n') + '\n');
}
const all = [...byFamily.values()].flat();
const count = (l) => all.filter((e) => e.label === l).length;
console.log(
  `recorded ${all.length} outputs in ${byFamily.size} families: ${count('silent-failure')} silent failures, ` +
    `${count('benign')} benign, ${count('shown-failure')} shown failures → ${OUT}`,
);
