// `toolguard mcp` where the optional peer dependency @modelcontextprotocol/sdk
// is not installed (a new user's first try): --help and usage errors still
// answer, and only a real run asks for the SDK. The SDK is hidden from the
// child process by a module resolve hook (it is a dev dependency here).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { scratchCli } from '../support/cli.mjs';

const { cli } = scratchCli('toolguard-mcp-no-sdk-');
const HIDE_SDK = `
export async function resolve(specifier, context, next) {
  if (specifier.startsWith('@modelcontextprotocol/sdk')) {
    const error = new Error('Cannot find package ' + specifier);
    error.code = 'ERR_MODULE_NOT_FOUND';
    throw error;
  }
  return next(specifier, context);
}`;
const REGISTER = `import { register } from 'node:module'; register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(HIDE_SDK)}`)});`;
const node = ['--import', `data:text/javascript,${encodeURIComponent(REGISTER)}`];

test('mcp --help prints the usage, and names the SDK to install, without the SDK', () => {
  for (const args of [
    ['mcp', '--help'],
    ['help', 'mcp'],
  ]) {
    const run = cli(args, { node });
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /^usage: toolguard mcp /);
    assert.match(run.stdout, /npm install @modelcontextprotocol\/sdk@\^1\.32\.2/);
  }
});

test('mcp without the SDK: a usage error is a usage error, a run asks for the SDK (exit 2 both)', () => {
  const usage = cli(['mcp'], { node });
  assert.equal(usage.code, 2);
  assert.match(usage.stderr, /no server command given/);
  const run = cli(['mcp', '--', 'true'], { node, input: '' });
  assert.equal(run.code, 2);
  assert.match(run.stderr, /needs the package @modelcontextprotocol\/sdk.*not installed/);
  assert.match(run.stderr, /npm install @modelcontextprotocol\/sdk@\^1\.32\.2/);
});
