#!/usr/bin/env node
// Record the trajectory fixtures with the REAL packages against a scripted
// local OpenAI-compatible model (scripts/record/record-trajectory-fixtures.py
// holds the server and the runs). Not run in CI.
//
// mini-swe-agent (installs it in a venv under /tmp, at the recorded version):
//
//   node scripts/record/record-trajectory-fixtures.mjs
//
// Writes (replacing) crates/toolguard-audit/tests/fixtures/mini-swe-agent/
// scripted.traj.json (tool-calling agent) and scripted-textbased.traj.json
// (text-action agent), with RECORDED-WITH.txt.
//
// OpenHands SDK: every openhands-sdk release requires Python >= 3.12. On a
// machine with an older Python (Debian 12 has 3.11), record inside a Debian
// trixie root (Python 3.13), made once, as root, outside the repository:
//
//   apt-get install debootstrap
//   debootstrap --variant=minbase --include=python3,python3-venv,ca-certificates,tmux \
//     trixie /work/openhands-root http://deb.debian.org/debian
//   cp /etc/resolv.conf /work/openhands-root/etc/
//   # Behind a TLS-intercepting proxy only: trust its CA inside the root too.
//   cp /usr/local/share/ca-certificates/*.crt /work/openhands-root/usr/local/share/ca-certificates/
//   chroot /work/openhands-root update-ca-certificates
//   # The terminal tool runs tmux, which needs /dev/pts.
//   mount --bind /proc /work/openhands-root/proc
//   mount --bind /dev /work/openhands-root/dev
//   mount --bind /dev/pts /work/openhands-root/dev/pts
//   node scripts/record/record-trajectory-fixtures.mjs --openhands /work/openhands-root
//
// The host's own packages are untouched (no trixie in its apt sources). The
// --openhands pass installs openhands-sdk and openhands-tools (the versions
// below) in a venv inside the root, copies the .py there, runs it with
// chroot (the scripted server listens on 127.0.0.1: same network), and
// writes (replacing) crates/toolguard-audit/tests/fixtures/openhands-sdk/
// {normal,stuck,silent,followup,toolerror}/: each the SDK's persisted conversation folder
// (base_state.json and events/event-NNNNN-<id>.json, as the SDK wrote them),
// with RECORDED-WITH.txt. Undo: umount the three mounts, rm -rf the root.
import { execFileSync } from 'node:child_process';
import { copyFileSync, cpSync, existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const MINI_SWE_AGENT = 'mini-swe-agent==2.4.6';
const OPENHANDS = ['openhands-sdk==1.58.2', 'openhands-tools==1.58.2'];
const root = join(dirname(fileURLToPath(import.meta.url)), '../..');
const recorder = join(root, 'scripts/record/record-trajectory-fixtures.py');
const fixtures = join(root, 'crates/toolguard-audit/tests/fixtures');

if (process.argv[2] === '--openhands') recordOpenHands(process.argv[3]);
else recordMiniSweAgent();

function recordMiniSweAgent() {
  const out = join(fixtures, 'mini-swe-agent');
  const venv = '/tmp/toolguard-record-venv';
  if (!existsSync(join(venv, 'bin/python'))) execFileSync('python3', ['-m', 'venv', venv], { stdio: 'inherit' });
  execFileSync(join(venv, 'bin/pip'), ['install', '-q', MINI_SWE_AGENT], { stdio: 'inherit' });
  execFileSync(join(venv, 'bin/python'), [recorder, out], {
    stdio: 'inherit',
    env: { ...process.env, MSWEA_COST_TRACKING: 'ignore_errors' },
  });
  writeFileSync(
    join(out, 'RECORDED-WITH.txt'),
    `${MINI_SWE_AGENT} (PyPI), Python ${execFileSync(join(venv, 'bin/python'), ['-c', 'import sys; print(sys.version.split()[0])']).toString().trim()}\n`,
  );
}

function recordOpenHands(chrootDir) {
  if (!chrootDir || !existsSync(join(chrootDir, 'usr/bin/python3'))) {
    console.error('usage: record-trajectory-fixtures.mjs --openhands ROOT (a Debian trixie root: see the header of this file)');
    process.exit(2);
  }
  if (!existsSync(join(chrootDir, 'dev/pts/ptmx')) || !existsSync(join(chrootDir, 'proc/self'))) {
    console.error(`${chrootDir}: mount /proc, /dev and /dev/pts into it first (see the header of this file)`);
    process.exit(2);
  }
  const inRoot = (args, options = {}) => execFileSync('chroot', [chrootDir, ...args], { stdio: 'inherit', ...options });
  const venv = '/opt/toolguard-openhands';
  if (!existsSync(join(chrootDir, venv, 'bin/python'))) inRoot(['python3', '-m', 'venv', venv]);
  inRoot([`${venv}/bin/pip`, 'install', '-q', ...OPENHANDS]);
  const work = join(chrootDir, 'tmp/toolguard-record');
  rmSync(work, { recursive: true, force: true });
  mkdirSync(join(work, 'out'), { recursive: true });
  copyFileSync(recorder, join(work, 'record.py'));
  inRoot([`${venv}/bin/python`, '/tmp/toolguard-record/record.py', '--openhands', '/tmp/toolguard-record/out'], {
    cwd: '/',
  });
  const out = join(fixtures, 'openhands-sdk');
  rmSync(out, { recursive: true, force: true });
  cpSync(join(work, 'out'), out, { recursive: true });
  const python = execFileSync('chroot', [chrootDir, `${venv}/bin/python`, '-c', 'import sys; print(sys.version.split()[0])'])
    .toString()
    .trim();
  writeFileSync(join(out, 'RECORDED-WITH.txt'), `${OPENHANDS.join(', ')} (PyPI), Python ${python} (Debian trixie chroot)\n`);
}
