// The options of the release build scripts (build-hook.mjs, build-portable.mjs):
// `--target TRIPLE` and `--output-dir DIR`, read once, with node:util's parser.
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';

/**
 * `--target` and `--output-dir` (resolved) of `script`'s command line;
 * anything else prints the usage line and exits 2.
 * @param {string} script the script's name, for the message (`build-hook`)
 * @param {string[]} [args]
 * @returns {{ target: string | undefined, outputDir: string | undefined }}
 */
export function targetArgs(script, args = process.argv.slice(2)) {
  try {
    const { values } = parseArgs({ args, options: { target: { type: 'string' }, 'output-dir': { type: 'string' } } });
    const outputDir = values['output-dir'];
    return { target: values.target, outputDir: outputDir === undefined ? undefined : resolve(outputDir) };
  } catch (error) {
    console.error(`${script}: ${error.message}\nusage: node scripts/release/${script}.mjs [--target TRIPLE] [--output-dir DIR]`);
    process.exit(2);
  }
}
