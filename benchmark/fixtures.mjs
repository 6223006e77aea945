// Deterministic, realistic inputs for the benchmarks: build-log text of a
// given size and tool-call arguments of the sizes the issue names. Seeded, so
// every run (and every machine) measures the same bytes.
import { readFileSync } from 'node:fs';

/** mulberry32: small, fast, seedable; quality is irrelevant here. */
export function rng(seed) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  next.int = (n) => Math.floor(next() * n);
  next.pick = (list) => list[next.int(list.length)];
  return next;
}

const MODULES = ['net', 'http', 'parser', 'codec', 'storage', 'auth', 'cache', 'sched', 'ui', 'cli', 'proto', 'index'];
const FILES = ['main', 'client', 'server', 'buffer', 'reader', 'writer', 'token', 'lexer', 'pool', 'config', 'util', 'errors'];
const CRATES = ['serde', 'tokio', 'regex', 'memchr', 'libc', 'syn', 'quote', 'proc-macro2', 'hashbrown', 'bytes', 'mio', 'itoa'];
const VARS = ['len', 'buf', 'ctx', 'idx', 'state', 'flags', 'tmp', 'node', 'next', 'count'];

/**
 * One line of a busy CI/build log (make + gcc + cmake + cargo + npm + test
 * runners), benign on purpose: warnings, progress, passing tests, and
 * lookalikes of failure lines that the built-in rules must not flag
 * (`test error_handling ... ok`, `warning:` diagnostics, `0 failed`).
 * About 1 line in 40 carries a non-ASCII mark (`✔`, `→`), as node's test
 * runner and many CLIs print, so the text is not pure ASCII.
 */
function logLine(r) {
  const mod = r.pick(MODULES);
  const file = r.pick(FILES);
  const v = `${1 + r.int(3)}.${r.int(40)}.${r.int(20)}`;
  switch (r.int(20)) {
    case 0:
      return `   Compiling ${r.pick(CRATES)} v${v}`;
    case 1:
      return `gcc -O2 -g -Wall -Wextra -fPIC -Iinclude -I/usr/include/openssl -DNDEBUG -c src/${mod}/${file}.c -o build/${mod}/${file}.o`;
    case 2:
      return `src/${mod}/${file}.c:${1 + r.int(900)}:${1 + r.int(60)}: warning: unused variable '${r.pick(VARS)}' [-Wunused-variable]`;
    case 3:
      return `  ${String(1 + r.int(900)).padStart(4)} |     size_t ${r.pick(VARS)} = ${mod}_${file}_read(${r.pick(VARS)}, ${r.int(4096)});`;
    case 4:
      return `make[${1 + r.int(3)}]: Entering directory '/home/ci/work/build/src/${mod}'`;
    case 5:
      return `[ ${String(r.int(100)).padStart(2)}%] Building C object src/${mod}/CMakeFiles/${mod}.dir/${file}.c.o`;
    case 6:
      return `[ ${String(r.int(100)).padStart(2)}%] Linking C static library lib${mod}.a`;
    case 7:
      return `npm warn deprecated ${r.pick(FILES)}-${r.pick(MODULES)}@${v}: This package is no longer supported.`;
    case 8:
      return `test ${mod}::${file}::tests::${r.pick(['parses', 'rejects', 'roundtrips', 'error_handling', 'retries'])}_${r.pick(VARS)} ... ok`;
    case 9:
      return `    Checking ${r.pick(CRATES)} v${v}`;
    case 10:
      return `  Downloaded ${r.pick(CRATES)} v${v}`;
    case 11:
      return `ok ${1 + r.int(500)} - ${mod} ${file} handles ${r.pick(VARS)} overflow`;
    case 12:
      return r.int(2) === 0
        ? `\u2714 ${mod}/${file} reports errors for bad input (${(r() * 40).toFixed(3)}ms)`
        : `  \u2192 ${mod}/${file}.ts (${r.int(400)} kB)`;
    case 13:
      return `PASS src/${mod}/${file}.test.ts (${(r() * 4).toFixed(2)} s)`;
    case 14:
      return `make[${1 + r.int(3)}]: Leaving directory '/home/ci/work/build/src/${mod}'`;
    case 15:
      return `warning: field \`${r.pick(VARS)}\` is never read`;
    case 16:
      return `   --> src/${mod}/${file}.rs:${1 + r.int(900)}:${1 + r.int(60)}`;
    case 17:
      return `test result: ok. ${r.int(300)} passed; 0 failed; ${r.int(3)} ignored; 0 measured; 0 filtered out; finished in ${(r() * 9).toFixed(2)}s`;
    case 18:
      return '';
    default:
      return `cc -shared -o build/lib${mod}.so build/${mod}/${file}.o build/${mod}/util.o -lpthread -lm -ldl`;
  }
}

/** The last line of the "match" variant: GNU make's fatal error, flagged by the built-in `make-error` rule. */
export const FAILURE_LINE = 'make: *** [Makefile:214: build/src/server/server.o] Error 1';

const logCache = new Map();

/**
 * Build-log text of about `bytes` UTF-8 bytes (whole lines, never more than
 * `bytes`). With `failLast`, the last line is {@link FAILURE_LINE} (the
 * silent failure a scan must find at the very end), same total size.
 */
export function buildLog(bytes, { failLast = false, seed = 42 } = {}) {
  const cacheKey = `${bytes}:${failLast}:${seed}`;
  const cached = logCache.get(cacheKey);
  if (cached !== undefined) return cached;
  const r = rng(seed);
  const lines = [];
  const budget = failLast ? bytes - Buffer.byteLength(FAILURE_LINE) - 1 : bytes;
  let size = 0;
  for (;;) {
    const line = logLine(r);
    const add = Buffer.byteLength(line) + (lines.length > 0 ? 1 : 0);
    if (size + add > budget) break;
    lines.push(line);
    size += add;
  }
  if (failLast) lines.push(FAILURE_LINE);
  const text = lines.join('\n');
  logCache.set(cacheKey, text);
  return text;
}

/** Realistic TypeScript-ish source code (quotes, backslashes, tabs, newlines: JSON has to escape them). */
export function sourceCode(bytes, seed = 7) {
  const r = rng(seed);
  const out = [];
  let size = 0;
  let n = 0;
  while (size < bytes) {
    const mod = r.pick(MODULES);
    const file = r.pick(FILES);
    const v = r.pick(VARS);
    const chunk = [
      `/** Reads the ${mod} ${file} header; see "docs/${mod}.md". */`,
      `export async function ${mod}${file[0].toUpperCase()}${file.slice(1)}${n++}(${v}: Buffer, opts = {}) {`,
      `\tconst re = /^(?:[a-z]+)\\s*=\\s*"([^"]*)"$/m;`,
      `\tif (!${v}.length) throw new Error(\`empty ${file}: \${JSON.stringify(opts)}\`);`,
      `\tconst line = ${v}.toString('utf8').split('\\n')[${r.int(40)}] ?? '';`,
      `\treturn { ${v}, path: 'C:\\\\build\\\\${mod}\\\\${file}.o', match: re.exec(line)?.[1] };`,
      `}`,
      ``,
    ].join('\n');
    out.push(chunk);
    size += chunk.length + 1;
  }
  return out.join('\n').slice(0, bytes);
}

/** A JSON tree of exactly `nodes` values (objects, arrays, leaves), keys in unsorted order. */
export function nestedValue(nodes, seed = 11) {
  const r = rng(seed);
  let left = nodes - 1; // the root
  const keyWords = ['zeta', 'alpha', 'mode', 'id', 'retries', 'beta', 'name', 'enabled', 'path', 'limits', 'tags', 'kind'];
  const leaf = () => {
    switch (r.int(4)) {
      case 0:
        return r.int(100000);
      case 1:
        return r.int(2) === 0;
      case 2:
        return `${r.pick(MODULES)}-${r.pick(FILES)}`;
      default:
        return r() * 1000;
    }
  };
  const build = (depth) => {
    const isArray = r.int(3) === 0;
    const node = isArray ? [] : {};
    const width = 2 + r.int(6);
    for (let i = 0; i < width && left > 0; i++) {
      left--;
      const child = depth < 6 && r.int(3) === 0 ? build(depth + 1) : leaf();
      if (isArray) node.push(child);
      else node[`${r.pick(keyWords)}_${r.int(1000)}`] = child;
    }
    return node;
  };
  const root = { version: 3 };
  left--;
  let i = 0;
  while (left > 0) {
    const key = `section_${(i++ * 7919) % 100003}`;
    left--;
    root[key] = build(0);
  }
  return root;
}

/** Count the values in a JSON tree (root included). */
export function countNodes(value) {
  if (value === null || typeof value !== 'object') return 1;
  let n = 1;
  for (const child of Array.isArray(value) ? value : Object.values(value)) n += countNodes(child);
  return n;
}

/**
 * The argument classes of the DSH scenario. `make(i)` returns distinct
 * arguments for call `i` (the model varies a path, a line, a value).
 * Arguments are re-parsed from JSON, as the agent loop hands them over.
 */
export function argumentClasses() {
  // Trim the code so the whole argument JSON (escapes included) is close to the nominal size.
  const fit = (code, jsonBytes) => code.slice(0, code.length - (JSON.stringify(code).length - jsonBytes));
  const code2k = fit(sourceCode(2200, 3), 1980);
  const code64k = fit(sourceCode(70 * 1024, 5), 64 * 1024 - 60);
  const tree = nestedValue(5000);
  const reparse = (value) => JSON.parse(JSON.stringify(value));
  return [
    {
      name: '~100 B bash',
      tool: 'bash',
      make: (i) => reparse({ command: `ls -la src/components/${MODULES[i % 12]}${i}`, timeout: 120000, description: 'List sources' }),
    },
    {
      name: '4 KB edit',
      tool: 'edit',
      make: (i) =>
        reparse({ file_path: `src/${MODULES[i % 12]}/${FILES[i % 12]}.ts`, old_string: code2k, new_string: `// rev ${i}\n${code2k}` }),
    },
    {
      name: '64 KB write',
      tool: 'write',
      make: (i) => reparse({ file_path: `src/generated/${FILES[i % 12]}${i}.ts`, content: `// build ${i}\n${code64k}` }),
    },
    {
      name: '5,000-node object',
      tool: 'apply_config',
      make: (i) => reparse({ path: 'config/app.json', value: { ...tree, version: i } }),
    },
  ];
}

/**
 * The call pattern both DSH plugins see, period 64: mostly distinct calls,
 * with one immediate repeat (call 10 = call 9) and one run of three (calls
 * 30, 31 = call 29), so each period has 3 repeats and one reminder (count 3).
 * Returns, for each of the 64 positions, which distinct argument index it uses.
 */
export function callPattern() {
  const pattern = [];
  let distinct = 0;
  for (let i = 0; i < 64; i++) {
    if (i === 10 || i === 30 || i === 31) pattern.push(pattern[i - 1]);
    else pattern.push(distinct++);
  }
  return pattern;
}

/** Human size label (binary units, as the sizes are built). */
export function sizeLabel(bytes) {
  if (bytes >= 1 << 20) return `${Math.round(bytes / (1 << 20))} MB`;
  if (bytes >= 1 << 10) return `${Math.round(bytes / (1 << 10))} KB`;
  return `${bytes} B`;
}

/**
 * A typical silent failure, ~2 KB: `npm run build; cp dist/app.js /srv/www/`
 * — a build that printed its usual progress, then a `cp` in the `;` chain that
 * failed, so the command as a whole exited 0 (as DSH's bash tool renders it:
 * stdout, then the `[stderr]` block).
 */
export function silentFailure2k() {
  const r = rng(11);
  const lines = ['', '> app@1.4.2 build', '> tsc -p . && node scripts/bundle.mjs', ''];
  let size = lines.join('\n').length;
  const tail = "[stderr]\nnpm warn config production Use `--omit=dev` instead.\ncp: cannot stat 'dist/app.js': No such file or directory";
  while (size < 2048 - tail.length - 90) {
    const line = logLine(r);
    lines.push(line);
    size += line.length + 1;
  }
  return [...lines, 'bundle: wrote dist/app.min.js (212.4 kB) in 1.84 s', tail].join('\n');
}

/**
 * The built-in table doubled by user rules: every built-in again under a new
 * id (same pattern, flags, veto), so the table holds twice the rules and every
 * verified line costs twice (the Rust scan bench's `doubled_user_rules`).
 * The hook bench writes it to a config file.
 */
export const DOUBLED_CONFIG = Object.freeze({
  loudFailure: {
    rules: JSON.parse(readFileSync(new URL('../rules/builtin.json', import.meta.url), 'utf8')).map((r) => ({ ...r, id: `user-${r.id}` })),
  },
});
