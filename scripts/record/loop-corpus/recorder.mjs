// The recording half of scripts/record/record-loop-corpus.mjs: a scripted "agent"
// whose every tool call really runs (shell commands, file reads and edits,
// background jobs, interactive debuggers) and is written down with the output
// it really produced, in toolguard's generic trace format (docs/trace-format.md).
//
// Three tool styles, as the agents expose them to the model:
//   dsh     bash {command} · read_file {path, offset?, limit?} · edit_file {path, old_string, new_string}
//           · write_file · job_output {job_id}
//   claude  Bash {command, description} (the description is rewritten on every call)
//           · Read {file_path, offset?, limit?} · Edit · Write · BashOutput {bash_id}
//   codex   shell {command: [bash, -lc, …], workdir, timeout_ms} · exec_command {cmd, …}
//           · write_stdin {session_id, chars, yield_time_ms} · apply_patch {input}
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';

export const ROOT = '/tmp/toolguard-loop-corpus';
/** Outputs longer than this are cut (head + tail), as agent harnesses cut them. */
const MAX_OUTPUT = 8000;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function cap(text) {
  if (text.length <= MAX_OUTPUT) return text;
  const head = text.slice(0, 1500);
  const tail = text.slice(-6000);
  return `${head}\n[… ${text.length - 7500} characters omitted …]\n${tail}`;
}

function catN(lines, first) {
  return lines.map((l, i) => `${String(first + i).padStart(6)}\t${l}`).join('\n');
}

// Claude Code's model writes a fresh `description` for each Bash call; these
// are the kinds of rewordings seen in real transcripts.
const DESCRIBE = [
  (c) => `Run ${c}`,
  (c) => `Re-run ${c} to check the result`,
  (c) => `Check ${c} output again`,
  (c) => `Execute ${c}`,
  (c) => `Verify with ${c}`,
  (c) => `Try ${c} once more`,
  (c) => `Run ${c} to see what fails`,
];

export class Recorder {
  constructor(name, style, { env = {} } = {}) {
    this.name = name;
    this.style = style;
    this.dir = join(ROOT, name);
    rmSync(this.dir, { recursive: true, force: true });
    mkdirSync(this.dir, { recursive: true });
    this.lines = [];
    this.calls = 0;
    this.jobs = new Map();
    this.nextJob = 1;
    this.procs = [];
    this.env = {
      ...process.env,
      PATH: `${ROOT}/.venv/bin:${process.env.HOME}/.cargo/bin:${process.env.PATH}`,
      CARGO_TARGET_DIR: join(this.dir, 'target'),
      NO_COLOR: '1',
      TERM: 'dumb',
      PYTHONDONTWRITEBYTECODE: '1',
      ...env,
    };
  }

  // ---- setup (not recorded: the world before the agent starts) ----
  files(map) {
    for (const [path, text] of Object.entries(map)) {
      const abs = join(this.dir, path);
      mkdirSync(dirname(abs), { recursive: true });
      writeFileSync(abs, text);
    }
  }
  setup(cmd) {
    const r = spawnSync('bash', ['-c', cmd], { cwd: this.dir, env: this.env, encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`${this.name}: setup failed: ${cmd}\n${r.stdout}${r.stderr}`);
    return r.stdout;
  }
  /** A long-running helper process (a local server), not a tool call. */
  async daemon(cmd, readyPattern) {
    const child = spawn('bash', ['-c', cmd], { cwd: this.dir, env: this.env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    this.procs.push(child);
    let text = '';
    child.stdout.on('data', (d) => {
      text += d;
    });
    child.stderr.on('data', (d) => {
      text += d;
    });
    for (let i = 0; i < 100 && !readyPattern.test(text); i++) await sleep(50);
    if (!readyPattern.test(text)) throw new Error(`${this.name}: daemon not ready: ${cmd}\n${text}`);
    return child;
  }
  wait(ms) {
    return sleep(ms);
  }
  read(path) {
    return readFileSync(join(this.dir, path), 'utf8');
  }

  // ---- recording ----
  record(tool, args, result) {
    const line = { callId: `c${String(this.calls).padStart(3, '0')}`, tool, arguments: args, output: cap(result.output) };
    if (result.exitCode !== undefined) line.exitCode = result.exitCode;
    if (result.isError) line.isError = true;
    this.lines.push(line);
    this.calls += 1;
    return result;
  }
  user() {
    this.lines.push({ type: 'user' });
  }

  exec(cmd, timeout = 120_000) {
    const t0 = process.hrtime.bigint();
    const r = spawnSync('bash', ['-c', `{\n${cmd}\n} 2>&1`], {
      cwd: this.dir,
      env: this.env,
      encoding: 'utf8',
      timeout,
      maxBuffer: 64 << 20,
    });
    const secs = Number(process.hrtime.bigint() - t0) / 1e9;
    return { output: r.stdout ?? '', exitCode: r.status ?? 124, secs };
  }

  /** A shell command in the session's tool style. */
  sh(cmd, description) {
    const r = this.exec(cmd);
    if (this.style === 'dsh') return this.record('bash', { command: cmd }, { output: r.output, exitCode: r.exitCode });
    if (this.style === 'claude') {
      const short = cmd
        .split(/\s+/)
        .filter((w) => !/^(\d*[<>|&]|tail|head|-n|\d+$)/.test(w))
        .slice(0, 3)
        .join(' ');
      const desc = description ?? DESCRIBE[this.calls % DESCRIBE.length](short);
      return this.record('Bash', { command: cmd, description: desc }, { output: r.output, exitCode: r.exitCode });
    }
    const out = `Exit code: ${r.exitCode}\nWall time: ${r.secs.toFixed(1)} seconds\nOutput:\n${r.output}`;
    return this.record(
      'shell',
      { command: ['bash', '-lc', cmd], workdir: this.dir, timeout_ms: 120000 },
      { output: out, exitCode: r.exitCode },
    );
  }

  /** Codex's unified exec: a command that finishes within the yield time. */
  execCommand(cmd) {
    const r = this.exec(cmd);
    const out = `Wall time: ${r.secs.toFixed(1)} seconds\nProcess exited with code ${r.exitCode}\nOutput:\n${r.output}`;
    return this.record('exec_command', { cmd, workdir: this.dir, yield_time_ms: 10000 }, { output: out, exitCode: r.exitCode });
  }

  /**
   * Read a file (codex has no read tool: it reads through the shell).
   * @param {string} path
   * @param {{ offset?: number, limit?: number }} [opts]
   */
  readFile(path, { offset, limit } = {}) {
    const abs = join(this.dir, path);
    if (this.style === 'codex') {
      const cmd = offset !== undefined ? `sed -n '${offset},${offset + limit - 1}p' ${path}` : `cat ${path}`;
      return this.sh(cmd);
    }
    const tool = this.style === 'dsh' ? 'read_file' : 'Read';
    const args = this.style === 'dsh' ? { path } : { file_path: abs };
    if (offset !== undefined) {
      args.offset = offset;
      args.limit = limit;
    }
    if (!existsSync(abs)) {
      const output =
        this.style === 'dsh' ? `read_file: ${path}: no such file or directory` : '<tool_use_error>File does not exist.</tool_use_error>';
      return this.record(tool, args, { output, isError: true });
    }
    const all = readFileSync(abs, 'utf8').replace(/\n$/, '').split('\n');
    // DSH counts offset in lines skipped, Claude Code as the first line number.
    const start = offset === undefined ? 0 : this.style === 'dsh' ? offset : offset - 1;
    const slice = limit === undefined ? all.slice(start) : all.slice(start, start + limit);
    let output = catN(slice, start + 1);
    if (this.style === 'dsh' && start + slice.length < all.length)
      output += `\n[lines ${start + 1}-${start + slice.length} of ${all.length}]`;
    return this.record(tool, args, { output });
  }

  editFile(path, oldString, newString) {
    const abs = join(this.dir, path);
    const text = existsSync(abs) ? readFileSync(abs, 'utf8') : null;
    const hits = text === null ? 0 : text.split(oldString).length - 1;
    if (this.style === 'codex') {
      const patch = `*** Begin Patch\n*** Update File: ${path}\n@@\n${oldString
        .split('\n')
        .map((l) => `-${l}`)
        .join('\n')}\n${newString
        .split('\n')
        .map((l) => `+${l}`)
        .join('\n')}\n*** End Patch`;
      if (hits !== 1)
        return this.record(
          'apply_patch',
          { input: patch },
          { output: `apply_patch verification failed: Failed to find expected lines in ${abs}:\n${oldString}`, isError: true },
        );
      writeFileSync(
        abs,
        text.replace(oldString, () => newString),
      );
      return this.record('apply_patch', { input: patch }, { output: `Success. Updated the following files:\nM ${path}\n` });
    }
    const dsh = this.style === 'dsh';
    const tool = dsh ? 'edit_file' : 'Edit';
    const args = dsh
      ? { path, old_string: oldString, new_string: newString }
      : { file_path: abs, old_string: oldString, new_string: newString };
    if (hits === 0) {
      const output = dsh
        ? `edit_file: old_string not found in ${path}`
        : `<tool_use_error>String to replace not found in file.\nString: ${oldString}</tool_use_error>`;
      return this.record(tool, args, { output, isError: true });
    }
    if (hits > 1) {
      const output = dsh
        ? `edit_file: old_string matches ${hits} places in ${path}; give more context`
        : `<tool_use_error>Found ${hits} matches of the string to replace, but replace_all is false.</tool_use_error>`;
      return this.record(tool, args, { output, isError: true });
    }
    const updated = text.replace(oldString, () => newString);
    writeFileSync(abs, updated);
    if (dsh) return this.record(tool, args, { output: `Edited ${path}: 1 replacement` });
    const at = updated.slice(0, updated.indexOf(newString)).split('\n').length;
    const lines = updated.split('\n');
    const from = Math.max(1, at - 3);
    const snippet = catN(lines.slice(from - 1, at + newString.split('\n').length + 2), from);
    return this.record(tool, args, {
      output: `The file ${abs} has been updated. Here's the result of running \`cat -n\` on a snippet of the edited file:\n${snippet}`,
    });
  }

  writeFile(path, content) {
    const abs = join(this.dir, path);
    mkdirSync(dirname(abs), { recursive: true });
    writeFileSync(abs, content);
    if (this.style === 'dsh') return this.record('write_file', { path, content }, { output: `Wrote ${content.length} bytes to ${path}` });
    if (this.style === 'claude')
      return this.record('Write', { file_path: abs, content }, { output: `File created successfully at: ${abs}` });
    const patch = `*** Begin Patch\n*** Add File: ${path}\n${content
      .split('\n')
      .map((l) => `+${l}`)
      .join('\n')}\n*** End Patch`;
    return this.record('apply_patch', { input: patch }, { output: `Success. Updated the following files:\nA ${path}\n` });
  }

  // ---- background jobs and interactive processes ----
  spawnJob(cmd) {
    const child = spawn('bash', ['-c', `exec ${cmd}`], { cwd: this.dir, env: this.env, detached: true, stdio: ['pipe', 'pipe', 'pipe'] });
    const job = { child, text: '', cursor: 0, exit: null, t0: Date.now() };
    child.stdout.on('data', (d) => {
      job.text += d;
    });
    child.stderr.on('data', (d) => {
      job.text += d;
    });
    child.on('exit', (code, signal) => {
      job.exit = code ?? signal;
    });
    this.procs.push(child);
    return job;
  }
  take(job) {
    const out = job.text.slice(job.cursor);
    job.cursor = job.text.length;
    return out;
  }

  /** Start a background command; returns the job handle the later polls name. */
  async background(cmd, description) {
    const job = this.spawnJob(cmd);
    const id = this.nextJob++;
    if (this.style === 'dsh') {
      job.id = `job_${id}`;
      this.jobs.set(job.id, job);
      this.record(
        'bash',
        { command: cmd, run_in_background: true },
        { output: `Started background job ${job.id} (pid ${job.child.pid}). Read its output with job_output.` },
      );
    } else if (this.style === 'claude') {
      job.id = `bash_${id}`;
      this.jobs.set(job.id, job);
      this.record(
        'Bash',
        { command: cmd, description: description ?? `Start ${cmd.split(' ')[0]} in the background`, run_in_background: true },
        { output: `Command running in background with ID: ${job.id}` },
      );
    } else {
      job.id = id;
      this.jobs.set(job.id, job);
      const t0 = Date.now();
      await sleep(500);
      const out = this.take(job);
      this.record(
        'exec_command',
        { cmd, workdir: this.dir, yield_time_ms: 500 },
        {
          output: `Wall time: ${((Date.now() - t0) / 1000).toFixed(1)} seconds\nProcess running with session ID ${job.id}\nOutput:\n${out}`,
        },
      );
    }
    return job;
  }

  /** Poll a background job: job_output / BashOutput / write_stdin with no input. */
  async poll(job, waitMs = 1000) {
    if (this.style === 'codex') return this.stdin(job, '', { waitMs });
    await sleep(waitMs);
    const out = this.take(job);
    const done = job.exit !== null;
    if (this.style === 'dsh') {
      const status = done ? `[status: exited, exit code: ${job.exit}]` : '[status: running]';
      return this.record('job_output', { job_id: job.id }, { output: `${out}${out && !out.endsWith('\n') ? '\n' : ''}${status}` });
    }
    const body = `<status>${done ? 'completed' : 'running'}</status>\n${done ? `\n<exit_code>${job.exit}</exit_code>\n` : ''}\n<stdout>\n${out}</stdout>\n\n<timestamp>${new Date().toISOString()}</timestamp>`;
    return this.record('BashOutput', { bash_id: job.id }, { output: body });
  }

  /**
   * Codex write_stdin: send keys to a running session and read what it printed.
   * @param {any} job
   * @param {string} chars
   * @param {{ waitMs?: number, prompt?: RegExp }} [opts]
   */
  async stdin(job, chars, { waitMs = 1000, prompt } = {}) {
    const t0 = Date.now();
    if (chars) job.child.stdin.write(chars);
    if (prompt) {
      for (let i = 0; i < 60; i++) {
        await sleep(50);
        if (prompt.test(job.text.slice(job.cursor))) break;
      }
    } else {
      await sleep(waitMs);
    }
    const out = this.take(job);
    const state = job.exit !== null ? `Process exited with code ${job.exit}` : `Process running with session ID ${job.id}`;
    return this.record(
      'write_stdin',
      { session_id: job.id, chars, yield_time_ms: prompt ? 1000 : waitMs },
      { output: `Wall time: ${((Date.now() - t0) / 1000).toFixed(1)} seconds\n${state}\nOutput:\n${out}` },
    );
  }

  /** Codex: start an interactive program and wait for its prompt. */
  async interactive(cmd, prompt) {
    const job = this.spawnJob(cmd);
    job.id = this.nextJob++;
    this.jobs.set(job.id, job);
    const t0 = Date.now();
    for (let i = 0; i < 100 && !prompt.test(job.text); i++) await sleep(50);
    const out = this.take(job);
    this.record(
      'exec_command',
      { cmd, workdir: this.dir, yield_time_ms: 1000 },
      { output: `Wall time: ${((Date.now() - t0) / 1000).toFixed(1)} seconds\nProcess running with session ID ${job.id}\nOutput:\n${out}` },
    );
    return job;
  }

  finish(outDir) {
    for (const p of this.procs) {
      try {
        process.kill(-p.pid, 'SIGKILL');
      } catch {
        /* already gone */
      }
    }
    const file = join(outDir, `${this.name}.jsonl`);
    writeFileSync(file, this.lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
    return { file: relative(process.cwd(), file), calls: this.calls };
  }
}
