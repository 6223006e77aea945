#!/usr/bin/env node
// `npm run pack:local`: one self-contained tarball for the machine it is
// packed on — the package as `npm pack` makes it (dist/, bin/, rules…) plus
// this checkout's own native addon (toolguard.<platform>.node, from
// `npm run build`) and hook executable (toolguard-hook, from
// `npm run build:hook`), both at the package root, where the generated
// index.js and bin/toolguard.mjs look first. A published release carries
// neither: its platform packages do (optionalDependencies).
//
// The tarball's package.json has no `prepare` script: the package is built,
// and npm would otherwise warn on install about a script whose file
// (scripts/release/prepare.mjs) is not even in the tarball.
//
//   node scripts/release/pack-local.mjs [--pack-destination DIR]   (default: the checkout)
//
// Prints the tarball's path on stdout; exit 2 with the reason when the
// checkout is not built.
import { execFileSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The scripts npm runs (or warns about) when a package is installed. */
const INSTALL_SCRIPTS = ['preinstall', 'install', 'postinstall', 'prepare'];

const root = fileURLToPath(new URL('../..', import.meta.url));

function fail(message) {
  process.stderr.write(`pack-local: ${message}\n`);
  process.exit(2);
}

const args = process.argv.slice(2);
let destination = root;
for (let i = 0; i < args.length; i++) {
  if (args[i] === '--pack-destination' && args[i + 1]) destination = resolve(args[++i]);
  else fail(`unknown argument ${args[i]}\nusage: node scripts/release/pack-local.mjs [--pack-destination DIR]`);
}

// As `npm pack` would not: a folder that does not exist yet is made (npm
// would fail after packing, with a stack trace from this script).
try {
  mkdirSync(destination, { recursive: true });
} catch (e) {
  fail(`cannot make the --pack-destination folder ${destination}: ${e.message}`);
}

const addons = readdirSync(root).filter((f) => /^toolguard\..+\.node$/.test(f));
const hook = ['toolguard-hook', 'toolguard-hook.exe'].find((f) => existsSync(join(root, f)));
if (!existsSync(join(root, 'dist/ts/cli/main.mjs'))) fail('dist/ is missing: run `npm run build` first');
if (addons.length !== 1)
  fail(`expected one native addon toolguard.<platform>.node in ${root}, found ${addons.length}: run \`npm run build\` first`);
if (!hook) fail('no toolguard-hook executable beside it: run `npm run build` (or `npm run build:hook`) first');

const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const pack = (cwd, to) =>
  JSON.parse(
    execFileSync(npm, ['pack', '--json', '--ignore-scripts', '--pack-destination', to], {
      cwd,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
      shell: process.platform === 'win32',
    }),
  )[0].filename;

const scratch = mkdtempSync(join(tmpdir(), 'toolguard-pack-'));
try {
  const first = pack(root, scratch);
  const stage = join(scratch, 'package');
  execFileSync('tar', ['-xzf', join(scratch, first), '-C', scratch]);
  for (const file of [addons[0], hook]) copyFileSync(join(root, file), join(stage, file));
  chmodSync(join(stage, hook), 0o755);
  const manifestPath = join(stage, 'package.json');
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8'));
  manifest.files = [...manifest.files, addons[0], hook];
  for (const script of INSTALL_SCRIPTS) delete manifest.scripts?.[script];
  writeFileSync(manifestPath, `${JSON.stringify(manifest, null, 2)}\n`);
  const tarball = join(destination, pack(stage, destination));
  process.stdout.write(`${tarball}\n`);
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
