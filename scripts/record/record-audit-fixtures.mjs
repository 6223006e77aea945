#!/usr/bin/env node
// Record the Claude Code and Codex audit fixtures with the REAL CLIs against a
// local scripted model server (as __test__/adapters/e2e/*.mjs do, without the
// hooks: the transcripts are what a user who never installed toolguard has on
// disk). The CLIs are large native packages, so they are not devDependencies:
//
//   npm install --prefix /tmp/rd-cc @anthropic-ai/claude-code@2.1.332
//   npm install --prefix /tmp/rd-cx @openai/codex@0.171.0
//   node scripts/record/record-audit-fixtures.mjs \
//     --claude /tmp/rd-cc/node_modules/@anthropic-ai/claude-code-linux-x64/claude \
//     --codex /tmp/rd-cx/node_modules/@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex
//
// Writes (replacing what was there) __test__/audit/fixtures/claude-code/ and
// __test__/audit/fixtures/codex/, each with RECORDED-WITH.txt naming the CLI version.
//
// The scripted session, in both CLIs: `echo hi` three times (a loop), a Python
// traceback printed by a command that exits 0 (a silent failure), the same
// with `exit 3` (a failure the model already saw), a subagent in Claude Code
// that repeats `ls` three times, two calls in one model message (`echo one`,
// `echo two`). Then a second prompt in the same session (`--resume`) runs
// `echo two` twice: a reminder would mean the prompt did not reset the chain.
import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { listen, runChild, writeMessage, writeResponse } from '../../__test__/support/mock-wire.mjs';

const { values: bin } = parseArgs({ options: { claude: { type: 'string' }, codex: { type: 'string' } } });
if (!bin.claude && !bin.codex) {
  console.error('usage: node scripts/record/record-audit-fixtures.mjs [--claude PATH] [--codex PATH]');
  process.exit(2);
}
const root = join(dirname(fileURLToPath(import.meta.url)), '../..');
const fixtures = join(root, '__test__/audit/fixtures');
const traceback = `printf 'Traceback (most recent call last):\\n  File "x.py", line 1\\nValueError: bad\\n'`;
/** Each step: the commands the model asks for in one message. */
/** `TASK`: Claude Code starts its subagent there (Codex skips the step). */
const TASK = '<task>';
const MAIN = [['echo hi'], ['echo hi'], ['echo hi'], [traceback], [`${traceback}; exit 3`], [TASK], ['echo one', 'echo two']];
const SUB = [['ls'], ['ls'], ['ls']];
/** Twice what the first prompt ended with: a third time only if the prompt did not start a new chain. */
const SECOND = [['echo two'], ['echo two']];

function filesUnder(dir) {
  const out = [];
  for (const e of readdirSync(dir, { withFileTypes: true, recursive: true }))
    if (e.isFile()) out.push(join(e.parentPath ?? e.path, e.name));
  return out;
}

async function recordClaude(claude) {
  const work = mkdtempSync(join(tmpdir(), 'toolguard-rec-cc-'));
  const config = join(work, 'claude-config');
  const cwd = join(work, 'project');
  mkdirSync(config);
  mkdirSync(cwd);
  let message = 0;
  const server = await listen((req, res, body) => {
    if (!req.url.startsWith('/v1/messages') || req.url.includes('count_tokens')) {
      res.writeHead(200, { 'content-type': 'application/json' });
      return res.end(JSON.stringify({ input_tokens: 10 }));
    }
    const b = JSON.parse(body);
    const names = (b.tools ?? []).map((t) => t.name);
    const task = names.find((n) => n === 'Task' || n === 'Agent');
    const text = JSON.stringify(b.messages);
    const results = b.messages.flatMap((m) => (Array.isArray(m.content) ? m.content : [])).filter((c) => c.type === 'tool_result').length;
    /** @type {Array<{ type: string } & Record<string, unknown>>} Messages API content blocks: text or tool_use */
    let content = [{ type: 'text', text: 'done' }];
    const first = b.messages[0]?.content;
    const sub = JSON.stringify(first ?? '').includes('List the files three times.');
    if (names.includes('Bash') && task && !sub) {
      // The main loop: first prompt, then the resumed one.
      const second = text.includes('"again"');
      const steps = second ? SECOND : MAIN;
      const prior = second ? results - countCalls(MAIN) : results;
      let seen = 0;
      for (const [i, step] of steps.entries()) {
        if (prior === seen)
          content = step.map((command, j) =>
            command === TASK
              ? {
                  type: 'tool_use',
                  id: 'toolu_task',
                  name: task,
                  input: {
                    description: 'list files',
                    prompt: 'List the files three times.',
                    subagent_type: 'general-purpose',
                    run_in_background: false,
                  },
                }
              : { type: 'tool_use', id: `toolu_${second ? 'b' : 'a'}${i}_${j}`, name: 'Bash', input: { command, description: 'step' } },
          );
        seen += step.length;
      }
    } else if (names.includes('Bash') && sub) {
      if (results < SUB.length)
        content = [{ type: 'tool_use', id: `toolu_sub${results}`, name: 'Bash', input: { command: SUB[results][0], description: 'list' } }];
    } else if (!b.stream) {
      content = [{ type: 'text', text: 'ok' }];
    }
    const stop = content[0].type === 'tool_use' ? 'tool_use' : 'end_turn';
    message++;
    writeMessage(res, { id: `msg_${message}`, model: b.model, content, stop, stream: b.stream });
  });
  const env = {
    ...process.env,
    HOME: work,
    CLAUDE_CONFIG_DIR: config,
    ANTHROPIC_BASE_URL: `http://127.0.0.1:${server.address().port}`,
    ANTHROPIC_API_KEY: 'sk-test',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_AUTOUPDATER: '1',
  };
  const settings = join(work, 'settings.json');
  writeFileSync(settings, JSON.stringify({ permissions: { allow: ['Bash', 'Task', 'Agent'] } }));
  const version = (await runChild(claude, ['--version'], { cwd, env })).out.trim();
  const first = await runChild(claude, ['-p', 'go', '--settings', settings, '--model', 'claude-sonnet-4-5', '--output-format', 'json'], {
    cwd,
    env,
  });
  if (first.code !== 0) throw new Error(`claude: ${first.out}`);
  const session = JSON.parse(first.out.trim().split('\n').at(-1)).session_id;
  const second = await runChild(claude, ['-p', 'again', '--resume', session, '--settings', settings, '--model', 'claude-sonnet-4-5'], {
    cwd,
    env,
  });
  if (second.code !== 0) throw new Error(`claude --resume: ${second.out}`);
  server.close();
  const projects = join(config, 'projects');
  const out = join(fixtures, 'claude-code');
  rmSync(out, { recursive: true, force: true });
  cpSync(projects, out, { recursive: true });
  console.log(
    `Claude Code ${version}:`,
    filesUnder(out)
      .map((f) => relative(root, f))
      .join(', '),
  );
  writeFileSync(join(out, 'RECORDED-WITH.txt'), `@anthropic-ai/claude-code ${version} (scripts/record/record-audit-fixtures.mjs)\n`);
}

function countCalls(steps) {
  return steps.reduce((n, s) => n + s.length, 0);
}

async function recordCodex(codex) {
  const work = mkdtempSync(join(tmpdir(), 'toolguard-rec-codex-'));
  const codexHome = join(work, '.codex');
  const cwd = join(work, 'project');
  mkdirSync(codexHome, { recursive: true });
  mkdirSync(cwd);
  let responses = 0;
  const server = await listen((req, res, body) => {
    if (req.method !== 'POST' || !req.url.includes('/responses')) {
      res.writeHead(404);
      return res.end('{}');
    }
    const b = JSON.parse(body);
    responses++;
    const input = b.input ?? [];
    const done = input.filter((i) => i.type === 'function_call_output' || i.type === 'custom_tool_call_output').length;
    const second = JSON.stringify(input).includes('"again"');
    const names = (b.tools ?? []).map((t) => t.name);
    const shell = names.includes('exec_command') ? 'exec_command' : names.includes('shell_command') ? 'shell_command' : 'shell';
    const args = (cmd) =>
      shell === 'exec_command' ? { cmd } : shell === 'shell_command' ? { command: cmd } : { command: ['bash', '-lc', cmd] };
    const patch = (b.tools ?? []).find((t) => t.name === 'apply_patch');
    const steps = (second ? SECOND : MAIN).filter((step) => step[0] !== TASK);
    const prior = second ? done - countCalls(MAIN.filter((step) => step[0] !== TASK)) - (patch ? 1 : 0) : done;
    let items = null;
    let seen = 0;
    for (const [i, step] of steps.entries()) {
      if (prior === seen)
        items = step.map((cmd, j) => ({
          type: 'function_call',
          id: `fc_${responses}_${j}`,
          call_id: `call_${second ? 'b' : 'a'}${i}_${j}`,
          name: shell,
          arguments: JSON.stringify(args(cmd)),
          status: 'completed',
        }));
      seen += step.length;
    }
    if (!items && !second && patch && prior === seen) {
      const text = '*** Begin Patch\n*** Add File: notes.txt\n+hello\n*** End Patch\n';
      items = [
        patch.type === 'custom'
          ? {
              type: 'custom_tool_call',
              id: `ctc_${responses}`,
              call_id: 'call_patch',
              name: 'apply_patch',
              input: text,
              status: 'completed',
            }
          : {
              type: 'function_call',
              id: `fc_${responses}`,
              call_id: 'call_patch',
              name: 'apply_patch',
              arguments: JSON.stringify({ input: text }),
              status: 'completed',
            },
      ];
    }
    items ??= [
      {
        type: 'message',
        id: `msg_${responses}`,
        role: 'assistant',
        status: 'completed',
        content: [{ type: 'output_text', text: 'done', annotations: [] }],
      },
    ];
    writeResponse(res, { id: `resp_${responses}`, items });
  });
  writeFileSync(
    join(codexHome, 'config.toml'),
    [
      'model = "gpt-5.1-codex"',
      'model_provider = "mock"',
      '[model_providers.mock]',
      'name = "mock"',
      `base_url = "http://127.0.0.1:${server.address().port}/v1"`,
      'wire_api = "responses"',
      'env_key = "MOCK_API_KEY"',
      '',
    ].join('\n'),
  );
  const env = { ...process.env, HOME: work, CODEX_HOME: codexHome, MOCK_API_KEY: 'x' };
  const version = (await runChild(codex, ['--version'], { cwd, env })).out.trim().split('\n').at(-1);
  const first = await runChild(codex, ['exec', '--skip-git-repo-check', '--dangerously-bypass-approvals-and-sandbox', '--json', 'go'], {
    cwd,
    env,
  });
  if (first.code !== 0) throw new Error(`codex: ${first.out}`);
  const thread = first.out
    .split('\n')
    .filter((l) => l.includes('thread.started'))
    .map((l) => JSON.parse(l).thread_id)[0];
  const second = await runChild(
    codex,
    ['exec', '--skip-git-repo-check', '--dangerously-bypass-approvals-and-sandbox', 'resume', thread, 'again'],
    { cwd, env },
  );
  if (second.code !== 0) throw new Error(`codex resume: ${second.out}`);
  server.close();
  const out = join(fixtures, 'codex');
  rmSync(out, { recursive: true, force: true });
  cpSync(join(codexHome, 'sessions'), join(out, 'sessions'), { recursive: true });
  console.log(
    `${version}:`,
    filesUnder(out)
      .map((f) => relative(root, f))
      .join(', '),
  );
  writeFileSync(join(out, 'RECORDED-WITH.txt'), `@openai/codex ${version} (scripts/record/record-audit-fixtures.mjs)\n`);
}

if (bin.claude) await recordClaude(bin.claude);
if (bin.codex) await recordCodex(bin.codex);
