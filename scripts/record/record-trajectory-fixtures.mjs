#!/usr/bin/env node
// Record the mini-swe-agent audit fixtures with the REAL package against a
// scripted local OpenAI-compatible model (scripts/record/record-trajectory-fixtures.py
// holds the server and the runs). Installs what it needs in a venv under
// /tmp, at the recorded version:
//
//   node scripts/record/record-trajectory-fixtures.mjs
//
// Writes (replacing) crates/toolguard-audit/tests/fixtures/mini-swe-agent/
// scripted.traj.json (tool-calling agent) and scripted-textbased.traj.json
// (text-action agent), with RECORDED-WITH.txt.
//
// openhands-sdk (PyPI) is not recorded: every release requires Python >= 3.12,
// and the machine these fixtures were made on has 3.11 only. Its fixtures are
// written by hand from the documented shapes (docs/audit-formats.md).
import { execFileSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const MINI_SWE_AGENT = 'mini-swe-agent==2.4.6';
const root = join(dirname(fileURLToPath(import.meta.url)), '../..');
const out = join(root, 'crates/toolguard-audit/tests/fixtures/mini-swe-agent');
const venv = '/tmp/toolguard-record-venv';
if (!existsSync(join(venv, 'bin/python'))) execFileSync('python3', ['-m', 'venv', venv], { stdio: 'inherit' });
execFileSync(join(venv, 'bin/pip'), ['install', '-q', MINI_SWE_AGENT], { stdio: 'inherit' });
execFileSync(join(venv, 'bin/python'), [join(root, 'scripts/record/record-trajectory-fixtures.py'), out], {
  stdio: 'inherit',
  env: { ...process.env, MSWEA_COST_TRACKING: 'ignore_errors' },
});
writeFileSync(
  join(out, 'RECORDED-WITH.txt'),
  `${MINI_SWE_AGENT} (PyPI), Python ${execFileSync(join(venv, 'bin/python'), ['-c', 'import sys; print(sys.version.split()[0])']).toString().trim()}\n`,
);
