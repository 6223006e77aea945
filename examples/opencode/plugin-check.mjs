// See toolguard/opencode work without a model or the OpenCode CLI: this
// script calls the plugin's hooks as OpenCode calls them for a scripted run
// (a bash call repeated three times, then a Python traceback behind `| tail`
// that exits 0) and prints what the model would read after each call.
//
//   node node_modules/toolguard/examples/opencode/plugin-check.mjs
//
// The same module is what `.opencode/plugins/toolguard.js` re-exports
// (docs/adapters.md, OpenCode).
import toolguard from 'toolguard/opencode';

const hooks = await toolguard(/** @type {any} */ ({}));
const sessionID = 'ses_example';

/** The scripted calls: the command, and the output and exit status OpenCode would record. */
/** @type {[command: string, output: string, exit: number][]} */
const script = [
  ['cat missing.txt', 'cat: missing.txt: No such file or directory\n', 1],
  ['cat missing.txt', 'cat: missing.txt: No such file or directory\n', 1],
  ['cat missing.txt', 'cat: missing.txt: No such file or directory\n', 1],
  [
    'python3 migrate.py 2>&1 | tail -3',
    '  File "migrate.py", line 2, in <module>\n    import yaml\nModuleNotFoundError: No module named \'yaml\'\n',
    0,
  ],
];

let n = 0;
for (const [command, output, exit] of script) {
  const callID = `call_${++n}`;
  const args = { command, description: 'step' };
  await hooks['tool.execute.before']({ tool: 'bash', sessionID, callID }, { args });
  const result = { title: command, output, metadata: { output, exit } };
  await hooks['tool.execute.after']({ tool: 'bash', sessionID, callID, args }, result);
  console.log(`--- call ${n}: ${command} (exit ${exit}); the model reads:\n${result.output.trimEnd()}\n`);
}
