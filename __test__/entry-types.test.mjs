// The package entry's types tell the truth about its runtime: main.js exports
// exactly the values main.d.ts declares, natively and in the reference
// fallback; the call type rejects what the engine rejects; the README's API
// example type-checks against the published types.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { strictDiagnostics } from './support/typecheck.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));

/** The value exports main.d.ts declares (types and interfaces left out). */
function declaredValues() {
  const program = ts.createProgram([join(root, 'main.d.ts')], { strict: true, noEmit: true, types: [] });
  const checker = program.getTypeChecker();
  const module = checker.getSymbolAtLocation(program.getSourceFile(join(root, 'main.d.ts')));
  return checker
    .getExportsOfModule(module)
    .filter((s) => {
      const target = s.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(s) : s;
      return (target.flags & ts.SymbolFlags.Value) !== 0;
    })
    .map((s) => s.name)
    .sort();
}

function runtimeExports(fallback) {
  const script = `${fallback ? "process.dlopen = () => { throw new Error('no binary for this platform') };" : ''}
    process.on('warning', () => {});
    const entry = require('./main.js');
    let auditorError = null;
    try { new entry.Auditor() } catch (e) { auditorError = e.message }
    console.log(JSON.stringify({ names: Object.keys(entry).sort(), kinds: Object.fromEntries(Object.entries(entry).map(([k, v]) => [k, typeof v])), native: entry.native, auditorError }))`;
  const run = spawnSync(process.execPath, ['-e', script], { cwd: root, encoding: 'utf8' });
  assert.equal(run.status, 0, run.stderr);
  return JSON.parse(run.stdout);
}

test('main.js exports exactly the values main.d.ts declares, natively and in the fallback', () => {
  const declared = declaredValues();
  assert.deepEqual(declared, [
    'Auditor',
    'GuardEngine',
    'canonicalize',
    'detectLogFormat',
    'logFormats',
    'native',
    'observeCall',
    'observeCallValue',
  ]);
  for (const fallback of [false, true]) {
    const got = runtimeExports(fallback);
    assert.deepEqual(got.names, declared, fallback ? 'fallback' : 'native');
    assert.equal(got.native, !fallback);
    for (const name of declared) assert.notEqual(got.kinds[name], 'undefined', `${name} (${fallback ? 'fallback' : 'native'})`);
    if (fallback)
      assert.match(
        got.auditorError,
        /^toolguard: auditing needs the native binary, which could not be loaded on \S+ \(no binary for this platform\)$/,
      );
  }
});

test('the fallback warning names the platform and the cause, and does not blame npm', () => {
  const script = `process.dlopen = () => { throw new Error('no binary for this platform') };
    process.on('warning', (w) => console.log(w.code + ': ' + w.message)); require('./main.js');`;
  const run = spawnSync(process.execPath, ['-e', script], { cwd: root, encoding: 'utf8' });
  assert.match(
    run.stdout,
    new RegExp(
      `^TOOLGUARD_FALLBACK: toolguard: no native binary for ${process.platform}-${process.arch} could be loaded \\(no binary for this platform\\); using the pure-TypeScript reference engine`,
    ),
  );
  assert.doesNotMatch(run.stdout, /npm has a bug|optional dependencies/);
});

/**
 * Type-check files (name → source) in a project that has this package
 * installed (node_modules/toolguard → the repository), strictly and with
 * the library check on, as a consumer's tsc would. Returns the errors.
 */
function typeErrors(files) {
  const dir = mkdtempSync(join(tmpdir(), 'toolguard-types-'));
  mkdirSync(join(dir, 'node_modules'));
  symlinkSync(root, join(dir, 'node_modules', 'toolguard'), 'dir');
  const paths = Object.entries(files).map(([name, source]) => {
    writeFileSync(join(dir, name), source);
    return join(dir, name);
  });
  return strictDiagnostics(paths).map(
    (d) => `${d.file ? d.file.fileName.slice(dir.length + 1) : ''}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`,
  );
}

test("exec takes exactly one of arguments and argumentsJson; the README's engine API example type-checks", () => {
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('### The engine'));
  const example = /```ts\n([\s\S]*?)```/.exec(section)[1];
  assert.match(example, /GuardVerdict/, 'the verdict type is named');
  const calls = `import { GuardEngine } from 'toolguard';
const engine = new GuardEngine();
engine.observe({ name: 'bash', argumentsJson: '{}' });
engine.observe({ agentId: 'a', name: 'bash', arguments: { command: 'ls' } });
// The engine throws on these; the types refuse them.
// @ts-expect-error both
engine.observe({ name: 'bash', arguments: {}, argumentsJson: '{}' });
// @ts-expect-error neither
engine.observe({ name: 'bash' });
// @ts-expect-error both
void engine.observeAsync({ name: 'bash', arguments: {}, argumentsJson: '{}' });
`;
  assert.deepEqual(typeErrors({ 'calls.mts': calls, 'readme.mts': `declare const output: string;\n${example}` }), []);
});

test("the OpenCode plugin, the Mastra guard and the AI SDK stop condition type-check against their frameworks' own types", () => {
  const source = `import toolguard from 'toolguard/opencode';
import type { Plugin } from '@opencode-ai/plugin';
import { toolguardMastra, type MastraGuard } from 'toolguard/mastra';
import { guardTools, toolguardStopWhen, type Alarm } from 'toolguard/ai-sdk';
import { stepCountIs, type StopCondition, type ToolSet } from 'ai';
const plugin: Plugin = toolguard;
const configured: Plugin = (input) => toolguard(input, { engine: { loops: { deny: 2 } } });
const guard: MastraGuard = toolguardMastra({ engine: { loops: { deny: 2 } } });
const tools = guardTools({});
const stops: StopCondition<ToolSet>[] = [
  stepCountIs(20),
  toolguardStopWhen(tools, { after: 3, onStop: (alarm: Alarm) => void alarm.count }),
  toolguardStopWhen({ engine: { loops: {} } }),
];
// @ts-expect-error after is a count
toolguardStopWhen({ after: 'twice' });
export { plugin, configured, guard, stops };
`;
  // Third-party declaration files are theirs to check (the frameworks ship types this compiler setup flags).
  const dir = mkdtempSync(join(tmpdir(), 'toolguard-hosts-'));
  mkdirSync(join(dir, 'node_modules'));
  symlinkSync(root, join(dir, 'node_modules', 'toolguard'), 'dir');
  // The frameworks, as the consumer's project has them.
  mkdirSync(join(dir, 'node_modules', '@opencode-ai'));
  for (const name of ['ai', '@opencode-ai/plugin']) symlinkSync(join(root, 'node_modules', name), join(dir, 'node_modules', name), 'dir');
  writeFileSync(join(dir, 'hosts.mts'), source);
  const errors = strictDiagnostics([join(dir, 'hosts.mts')], { skipLibCheck: true }).map(
    (d) => `${d.file ? d.file.fileName : ''}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`,
  );
  assert.deepEqual(errors, []);
});

test("toolguard/otel and the adapters' otel option type-check with @opentelemetry/api's own Tracer", () => {
  const source = `import { trace } from '@opentelemetry/api';
import { GuardEngine } from 'toolguard';
import { OTEL_NAMES, traceEngine, type OtelOption } from 'toolguard/otel';
import { guardTools } from 'toolguard/ai-sdk';
const tracer = trace.getTracer('app');
const engine: GuardEngine = traceEngine(new GuardEngine(), { tracer, captureContent: true });
const option: OtelOption = true;
const tools = guardTools({}, { otel: { tracer } });
const key: 'toolguard.loop.kind' = OTEL_NAMES.loopKind;
// @ts-expect-error captureContent is a boolean
traceEngine(new GuardEngine(), { captureContent: 'yes' });
export { engine, option, tools, key };
`;
  const dir = mkdtempSync(join(tmpdir(), 'toolguard-otel-'));
  mkdirSync(join(dir, 'node_modules', '@opentelemetry'), { recursive: true });
  symlinkSync(root, join(dir, 'node_modules', 'toolguard'), 'dir');
  for (const name of ['ai', '@opentelemetry/api']) symlinkSync(join(root, 'node_modules', name), join(dir, 'node_modules', name), 'dir');
  writeFileSync(join(dir, 'otel.mts'), source);
  const errors = strictDiagnostics([join(dir, 'otel.mts')], { skipLibCheck: true }).map(
    (d) => `${d.file ? d.file.fileName : ''}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`,
  );
  assert.deepEqual(errors, []);
});

test('toolguard/opencode exports one function, the plugin: OpenCode calls every function a plugin module exports', async () => {
  const mod = await import('toolguard/opencode');
  assert.deepEqual(Object.keys(mod), ['default']);
  assert.equal(typeof mod.default, 'function');
});

test('toolguard/dsh and its plugins type-check in a project without @deepseek-ai/cordis or schemastery', () => {
  // The package's type files only, outside this repository's node_modules: the
  // DSH packages cannot be resolved from there.
  const dir = mkdtempSync(join(tmpdir(), 'toolguard-no-dsh-'));
  const pkg = join(dir, 'node_modules', 'toolguard');
  for (const file of ['package.json', 'main.d.ts', 'index.d.ts']) cpSync(join(root, file), join(pkg, file));
  cpSync(join(root, 'dist'), join(pkg, 'dist'), {
    recursive: true,
    filter: (src) => statSync(src).isDirectory() || src.endsWith('.d.mts'),
  });
  const file = join(dir, 'plugins.mts');
  writeFileSync(
    file,
    `import * as both from 'toolguard/dsh';
import * as repeat from 'toolguard/dsh/repeat-tool-reminder';
import * as loud from 'toolguard/dsh/loud-failure';
const plugins = [both, repeat, loud].map((p) => p.name);
const config: both.Config = { repeat: { thresholds: [3, 5, 8], include: [], exclude: [], argumentsPreviewChars: 500 } };
export { plugins, config };
`,
  );
  const errors = strictDiagnostics([file]).map((d) => `${d.file?.fileName ?? ''}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`);
  assert.deepEqual(errors, []);
});

test('an unbuilt copy (a git install whose build did not run) says so, from require() and from the CLI', () => {
  const dir = mkdtempSync(join(tmpdir(), 'toolguard-unbuilt-'));
  for (const file of ['package.json', 'main.js', 'root-cause.js', 'index.js', 'bin/toolguard.mjs'])
    cpSync(join(root, file), join(dir, file));
  const req = spawnSync(process.execPath, ['-e', "process.on('warning', () => {}); require('./main.js')"], { cwd: dir, encoding: 'utf8' });
  assert.notEqual(req.status, 0);
  assert.match(req.stderr, /toolguard: this copy is not built \(no native binary, no dist\/ in .*\): run `npm run build` there/);
  const bin = spawnSync(process.execPath, [join(dir, 'bin/toolguard.mjs'), 'audit'], { cwd: dir, encoding: 'utf8' });
  assert.equal(bin.status, 2);
  assert.match(bin.stderr, /^toolguard: this copy is not built \(dist\/ is missing\): run `npm run build`/);
});
