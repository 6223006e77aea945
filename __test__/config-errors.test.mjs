// A bad key in a config is data, the same wherever it is found: the engine,
// the CLI's config loader (and `check-config`, `mcp`), the hook (both
// shells) and every adapter give the same message, `code` and `path`
// Nothing here reads a message to find the key.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { GuardEngine } from 'toolguard';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const bin = join(root, 'bin/toolguard.mjs');
const scratch = mkdtempSync(join(tmpdir(), 'toolguard-config-errors-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

const bad = { repeat: { thresholds: [3], treshold: 2 } };
const code = 'TOOLGUARD_UNKNOWN_KEY';
const path = ['repeat', 'treshold'];
// The keys the section accepts, as data beside the message (the core's list).
const expected = ['thresholds', 'include', 'exclude', 'argumentsPreviewChars'];
const message = 'toolguard: unknown key config.repeat.treshold (expected one of: thresholds, include, exclude, argumentsPreviewChars)';
const file = join(scratch, 'bad.yaml');
writeFileSync(file, '# a typo on line 4\nrepeat:\n  thresholds: [3]\n  treshold: 2\n');
const located = `${file}:4: ${message}`;

/** The error `build` throws, which must be the engine's: same message, code, path and accepted keys. */
function assertEngineError(build, what) {
  assert.throws(build, (/** @type {Error & { code?: string, path?: unknown, expected?: unknown }} */ error) => {
    assert.equal(error.message, message, what);
    assert.equal(error.code, code, what);
    assert.deepEqual(error.path, path, what);
    assert.deepEqual(error.expected, expected, what);
    return true;
  });
}

describe('a bad key in a config: the same message, code and path on every path', () => {
  it('the engine (GuardEngine) and the Auditor', async () => {
    assertEngineError(() => new GuardEngine(bad), 'GuardEngine');
    const { Auditor } = await import('toolguard');
    assertEngineError(() => new Auditor(JSON.stringify(bad)), 'Auditor');
    // Arrays and rules are paths too.
    // @ts-expect-error a number where a tool name belongs: the error under test
    assert.throws(() => new GuardEngine({ loops: { exempt: ['a', 3] } }), { code: 'TOOLGUARD_WRONG_TYPE', path: ['loops', 'exempt', 1] });
    const rule = (id, pattern) => ({ id, pattern, action: /** @type {const} */ ('error'), message: 'm' });
    assert.throws(() => new GuardEngine({ loudFailure: { rules: [rule('a', 'x'), rule('b', '(')] } }), {
      code: 'TOOLGUARD_BAD_RULE',
      path: ['loudFailure', 'rules', 1],
    });
  });

  it('the CLI config loader: the error carries the file and line as data, and check-config prints them', async () => {
    const { readConfig, ConfigError } = await import('../dist/ts/cli/config.mjs');
    assert.throws(
      () => readConfig(file),
      (error) => {
        assert.ok(error instanceof ConfigError);
        assert.deepEqual(
          [error.message, error.code, error.path, error.expected, error.file, error.line],
          [located, code, path, expected, file, 4],
        );
        return true;
      },
    );
    const run = spawnSync(process.execPath, [bin, 'check-config', file], { encoding: 'utf8' });
    assert.equal(run.status, 2, 'a bad config exits 2, as audit, scan and mcp do');
    assert.equal(run.stderr, `toolguard check-config: ${located}\n`);
    const json = join(scratch, 'bad.json');
    writeFileSync(json, '{\n  "repeat": {\n    "thresholds": [3,]\n  }\n}\n');
    assert.throws(() => readConfig(json), { code: 'TOOLGUARD_CONFIG_SYNTAX', line: 3, path: [] });
  });

  it('the hook, through the native executable and through Node', () => {
    const event = JSON.stringify({
      session_id: 's',
      hook_event_name: 'PostToolUse',
      tool_name: 'Bash',
      tool_input: { command: 'ls' },
      tool_response: { stdout: 'ok', stderr: '' },
    });
    for (const native of ['1', '0']) {
      const run = spawnSync(process.execPath, [bin, 'hook', '--config', file], {
        input: event,
        encoding: 'utf8',
        env: { ...process.env, TOOLGUARD_NATIVE_HOOK: native, TOOLGUARD_STATE_DIR: join(scratch, 'state') },
      });
      assert.equal(run.status, 1, native);
      assert.equal(run.stderr, `toolguard hook: ${located} (tool result passed through unchanged)\n`, `TOOLGUARD_NATIVE_HOOK=${native}`);
    }
  });

  it('the MCP proxy', () => {
    const run = spawnSync(process.execPath, [bin, 'mcp', '--config', file, '--', process.execPath, '-e', ''], { encoding: 'utf8' });
    assert.equal(run.status, 2);
    assert.ok(run.stderr.startsWith(`toolguard mcp: ${located}\n`), run.stderr);
  });

  it('every adapter', async () => {
    const { guardTools } = await import('toolguard/ai-sdk');
    assertEngineError(() => guardTools({}, { engine: bad }), 'ai-sdk');
    const { toolguardHooks } = await import('toolguard/claude-agent-sdk');
    assertEngineError(() => toolguardHooks({ engine: bad }), 'claude-agent-sdk');
    const { toolguardMiddleware } = await import('toolguard/langchain');
    assertEngineError(() => toolguardMiddleware({ engine: bad }), 'langchain');
    const { toolguardGuardrail } = await import('toolguard/openai-agents');
    assertEngineError(() => toolguardGuardrail({ engine: bad }), 'openai-agents');
    const { toolguard } = await import('toolguard/pi');
    // The two methods of pi's ExtensionAPI the extension calls while it starts.
    const pi = /** @type {import('@mariozechner/pi-coding-agent').ExtensionAPI} */ (
      /** @type {unknown} */ ({ on() {}, registerMessageRenderer() {} })
    );
    assertEngineError(() => toolguard({ engine: bad })(pi), 'pi');
  });
});

describe('without the native binary (the pure-TypeScript fallback)', () => {
  // Every native addon load blocked, as on a platform with no prebuilt binary.
  const fallback = (body) => {
    const script = `process.dlopen = () => { throw new Error('no binary for this platform') };
      process.on('warning', () => {});
      ${body}`;
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd: root, encoding: 'utf8' });
    assert.equal(run.status, 0, run.stderr);
    return JSON.parse(run.stdout);
  };

  it('JSON configs load and are checked by the reference engine; YAML ones are refused with the reason (one YAML parser, in Rust)', () => {
    const json = join(scratch, 'ok.json');
    writeFileSync(json, '{"repeat": {"thresholds": [2]}}');
    const out = fallback(`
      const { readConfig } = await import('./dist/ts/cli/config.mjs');
      const ok = readConfig(${JSON.stringify(json)}).config;
      let yaml;
      try { readConfig(${JSON.stringify(file)}); } catch (e) { yaml = { message: e.message, code: e.code, file: e.file }; }
      console.log(JSON.stringify({ ok, yaml }));`);
    assert.deepEqual(out.ok, { repeat: { thresholds: [2] } });
    assert.equal(out.yaml.code, 'TOOLGUARD_CONFIG_SYNTAX');
    assert.equal(out.yaml.file, file);
    assert.match(out.yaml.message, /YAML configs need the native binary/);
  });

  it('an oversized config is refused as the native loader refuses it (one limit, rules/limits.json), and a byte order mark is skipped', () => {
    // Before: the fallback read the whole file (`check-config /dev/zero` grew
    // without bound) and JSON.parse failed on a BOM the Rust loader skips.
    const { configFileBytes } = JSON.parse(readFileSync(join(root, 'rules/limits.json'), 'utf8'));
    const big = join(scratch, 'big.json');
    writeFileSync(big, `{${' '.repeat(configFileBytes)}}`);
    const bom = join(scratch, 'bom.json');
    writeFileSync(bom, '\uFEFF{"repeat": {"thresholds": [2]}}');
    const inputs = JSON.stringify({ big, bom, zero: process.platform === 'win32' ? null : '/dev/zero' });
    const load = `
      const { readConfig } = await import('./dist/ts/cli/config.mjs');
      const { big, bom, zero } = ${inputs};
      const refused = (file) => { try { readConfig(file); return null; } catch (e) { return { message: e.message, code: e.code, path: e.path, file: e.file }; } };
      console.log(JSON.stringify({ big: refused(big), zero: zero && refused(zero), bom: readConfig(bom).config }));`;
    const out = fallback(load);
    const native = spawnSync(process.execPath, ['--input-type=module', '-e', load], { cwd: root, encoding: 'utf8' });
    assert.equal(native.status, 0, native.stderr);
    const expected = {
      message: `config ${big} is larger than ${configFileBytes} bytes`,
      code: 'TOOLGUARD_CONFIG_TOO_LARGE',
      path: [],
      file: big,
    };
    assert.deepEqual(out.big, expected);
    assert.deepEqual(out.bom, { repeat: { thresholds: [2] } });
    if (out.zero) assert.equal(out.zero.code, 'TOOLGUARD_CONFIG_TOO_LARGE');
    // The native loader says the same, as data.
    assert.deepEqual(JSON.parse(native.stdout), out);
  });

  it('toolguard hook fails open with one line saying it needs the native binary', () => {
    const out = fallback(`
      const { runHook } = await import('./dist/ts/adapters/hooks.mjs');
      const { Readable, PassThrough } = await import('node:stream');
      const err = new PassThrough();
      const code = await runHook([], Readable.from(['{}']), new PassThrough(), err, {});
      err.end();
      console.log(JSON.stringify({ code, stderr: (await err.toArray()).join('') }));`);
    assert.equal(out.code, 1);
    assert.match(
      out.stderr,
      /^toolguard hook: the hook needs the native binary, which could not be loaded on .* \(tool result passed through unchanged\)\n$/,
    );
  });
});
