// What `npm pack` puts in the main package: the generated binding files,
// the compiled TypeScript, every data table the code reads at run time
// (rules/*.json, the JS fallback included), the samples the main job audits,
// the CHANGELOG (what changed, read where the package is installed);
// never tests, corpora, Rust sources or build output (the native binary
// travels in the platform package).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

test('npm pack ships the generated files and every rules table, and no test data, sources or build output', {
  skip: !existsSync(join(root, 'dist')) && 'not built (no dist/): run npm run build',
}, () => {
  const run = spawnSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: root, encoding: 'utf8' });
  assert.equal(run.status, 0, run.stderr);
  const files = JSON.parse(run.stdout)[0].files.map((f) => f.path);
  const shipped = new Set(files);
  const tables = readdirSync(join(root, 'rules'))
    .filter((f) => f.endsWith('.json'))
    .map((f) => `rules/${f}`);
  for (const file of [
    'index.js',
    'index.d.ts',
    'main.js',
    'main.d.ts',
    'dist/reference/index.mjs',
    'dist/ts/cli/config.mjs',
    'CHANGELOG.md',
    ...tables,
  ])
    assert.ok(shipped.has(file), `${file} is not shipped`);
  // Every entry point the package declares (the adapters among them) is in the tarball.
  const { exports } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  const targets = Object.values(exports).flatMap((target) => (typeof target === 'string' ? [target] : Object.values(target)));
  assert.ok(targets.includes('./dist/ts/adapters/opencode.mjs') && targets.includes('./dist/ts/adapters/mastra.d.mts'));
  assert.deepEqual(
    targets.map((t) => t.slice(2)).filter((t) => !shipped.has(t)),
    [],
    'an export whose file is not shipped',
  );
  assert.ok(
    files.some((f) => f.startsWith('samples/')),
    'the bundled sample the main job audits',
  );
  // The examples that ship: docs/dsh.md and docs/adapters.md run them from node_modules.
  assert.ok(shipped.has('examples/dsh-agent/agent.mjs'), 'the DSH example agent');
  assert.ok(shipped.has('examples/opencode/plugin-check.mjs'), 'the OpenCode plugin check');
  assert.ok(shipped.has('examples/ai-sdk/agent.mjs'), 'the AI SDK example agent');
  const unwanted = files.filter(
    (f) =>
      /^(__test__|corpus|crates|src|fuzz|scripts|target|node_modules|npm)\//.test(f) ||
      (f.startsWith('examples/') &&
        !f.startsWith('examples/dsh-agent/') &&
        !f.startsWith('examples/opencode/') &&
        !f.startsWith('examples/ai-sdk/')) ||
      /\.(node|rs|tgz)$/.test(f) ||
      /(^|\/)fixtures\//.test(f),
  );
  assert.deepEqual(unwanted, []);
});
