#!/usr/bin/env node
// Record the labelled loop corpus (corpus/loops/*.jsonl) by REALLY running
// every tool call of a scripted "agent" in little projects under
// /tmp/toolguard-loop-corpus/ (Python, Node, Rust and C projects, local HTTP
// servers on 127.0.0.1, background jobs, pdb and gdb sessions). Each call is
// written with the output it produced, in toolguard's generic trace format.
//
//   node scripts/record/record-loop-corpus.mjs            # all sessions
//   node scripts/record/record-loop-corpus.mjs name ...   # only these
//
// Needs python3 (a venv with pytest is created under /tmp), cargo, gcc, gdb,
// node. The labels (corpus/loops/labels.json) are written by hand from what
// each recorded session means; re-recording keeps the call sequence, so the
// labels stay valid, but check the outputs still mean what the labels say.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { Recorder, ROOT } from './loop-corpus/recorder.mjs';
import * as F from './loop-corpus/fixtures.mjs';

const repo = join(dirname(fileURLToPath(import.meta.url)), '../..');
const OUT = join(repo, 'corpus/loops');
const PYTEST = 'python -m pytest -q';

const scenarios = [];
const S = (name, style, run) => scenarios.push({ name, style, run });

/** The fixes of a fixture's table, by name, in order. */
const pick = (table, ...names) => names.map((name) => table[name]);

/** The edit-and-check rhythm: each `[old, new]` edit of `file`, then `check` run again. */
function editThenCheck(a, file, edits, check) {
  for (const [o, n] of edits) {
    a.editFile(file, o, n);
    a.sh(check);
  }
}

// ───────────────────────── stuck: identical repeat ─────────────────────────

S('repeat-pytest-dsh', 'dsh', async (a) => {
  a.files(F.statskit);
  for (let i = 0; i < 6; i++) a.sh(PYTEST);
  a.readFile('statskit/core.py');
});

S('repeat-grep-claude', 'claude', async (a) => {
  a.files({ ...F.statskit, 'statskit/units.py': 'def parse_seconds(text):\n    return float(text.rstrip("s"))\n' });
  a.readFile('statskit/units.py');
  for (let i = 0; i < 30; i++) a.sh('grep -rn "parse_duration" statskit/ tests/');
});

S('repeat-curl500-long-codex', 'codex', async (a, port) => {
  a.files(F.apiServer);
  await a.daemon(`python3 api.py ${port} 500`, /listening/);
  for (let i = 0; i < 100; i++) a.execCommand(`curl -s -w '\\nHTTP %{http_code}\\n' http://127.0.0.1:${port}/api/sync`);
});

S('repeat-cargo-test-claude', 'claude', async (a) => {
  a.files(F.ringbufTests);
  a.setup('cargo build -q --tests 2>&1');
  for (let i = 0; i < 7; i++) a.sh('cargo test 2>&1 | tail -n 25');
});

S('poll-crashloop-claude', 'claude', async (a) => {
  a.files(F.kubectl);
  a.setup(`chmod +x kubectl && mkdir -p .cluster && echo '{"start": '$(date +%s.%N)', "mode": "crashloop"}' > .cluster/state.json`);
  for (let i = 0; i < 12; i++) {
    a.sh('./kubectl get pods -n demo');
    await a.wait(1100);
  }
});

// ───────────────────────── stuck: cycles ─────────────────────────

const BAD_MEDIAN = [
  '    if n % 2 == 0:\n        return (s[mid] + s[mid + 1]) / 2',
  '    if n % 2 == 0:\n        return (s[mid - 1] + s[mid]) / 2',
];

S('cycle2-editfail-test-dsh', 'dsh', async (a) => {
  a.files(F.statskit);
  a.sh(PYTEST);
  a.readFile('statskit/core.py');
  for (let i = 0; i < 6; i++) {
    a.editFile('statskit/core.py', ...BAD_MEDIAN);
    a.sh(PYTEST);
  }
});

S('cycle2-read-test-claude', 'claude', async (a) => {
  a.files(F.statskit);
  for (let i = 0; i < 6; i++) {
    a.readFile('statskit/core.py');
    a.sh(`${PYTEST} tests/test_core.py::test_median_even`);
  }
});

S('cycle2-cat-make-codex', 'codex', async (a) => {
  a.files(F.cBroken);
  for (let i = 0; i < 6; i++) {
    a.sh('cat src/config.h');
    a.sh('make');
  }
});

S('cycle2-long-dsh', 'dsh', async (a) => {
  a.files(F.statskit);
  for (let i = 0; i < 50; i++) {
    a.editFile('statskit/core.py', ...BAD_MEDIAN);
    a.sh(`${PYTEST} -x`);
  }
});

S('cycle3-read-edit-test-dsh', 'dsh', async (a) => {
  a.files(F.statskit);
  for (let i = 0; i < 6; i++) {
    a.readFile('statskit/core.py');
    a.editFile('statskit/core.py', ...BAD_MEDIAN);
    a.sh(PYTEST);
  }
});

S('cycle3-read-edit-test-claude', 'claude', async (a) => {
  a.files(F.slugkit);
  for (let i = 0; i < 5; i++) {
    a.readFile('src/slug.js');
    a.editFile('src/slug.js', "  return s.toLowerCase().replace(/ /g, '-')\n", "  return s.toLowerCase().replace(/\\W+/g, '-')\n");
    a.sh('npm test 2>&1 | tail -n 30');
  }
});

S('cycle3-sed-patch-test-codex', 'codex', async (a) => {
  a.files(F.statskit);
  for (let i = 0; i < 5; i++) {
    a.sh("sed -n '9,16p' statskit/core.py");
    a.editFile('statskit/core.py', '    return s[n // 2]', '    return (s[n // 2 - 1] + s[n // 2]) / 2');
    a.sh(`${PYTEST} tests/test_core.py`);
  }
});

S('cycle4-flipflop-dsh', 'dsh', async (a) => {
  a.files(F.statskit);
  a.sh(PYTEST);
  a.readFile('statskit/core.py');
  const A = '    return s[mid]\n\n\ndef mode';
  const B = '    return s[mid - 1]\n\n\ndef mode';
  for (let i = 0; i < 5; i++) {
    a.editFile('statskit/core.py', A, B);
    a.sh(`${PYTEST} tests/test_core.py::test_median_even`);
    a.editFile('statskit/core.py', B, A);
    a.sh(`${PYTEST} tests/test_core.py::test_median_even`);
  }
});

S('cycle4-read-patch-make-grep-codex', 'codex', async (a) => {
  a.files(F.cBroken);
  for (let i = 0; i < 5; i++) {
    a.sh("sed -n '1,10p' src/config.c");
    a.editFile(
      'src/config.c',
      '    struct config c = { .port = 8080, .host_name = "localhost" };',
      '    struct config c = { .port = 8080, .host = "localhost" };',
    );
    a.sh('make');
    a.sh('grep -n "host" src/*.h');
  }
});

S('cycle-pdb-spin-codex', 'codex', async (a) => {
  a.files(F.pdbPrograms);
  const P = /\(Pdb\) $/;
  const job = await a.interactive('python3 -m pdb spin.py', P);
  for (const k of ['n', 'n', 'n', 's']) await a.stdin(job, `${k}\n`, { prompt: P });
  for (let i = 0; i < 20; i++) await a.stdin(job, 'n\n', { prompt: P });
});

// ───────────────────────── stuck: same error, new arguments ─────────────────────────

S('same-error-404-dsh', 'dsh', async (a, port) => {
  a.files(F.apiServer);
  await a.daemon(`python3 api.py ${port} 404`, /listening/);
  for (const id of [101, 102, 1001, 100, 99, 1]) a.sh(`curl -s -w '\\nHTTP %{http_code}\\n' http://127.0.0.1:${port}/api/issues/${id}`);
  a.sh(`curl -s http://127.0.0.1:${port}/api/issues`);
  a.sh(`curl -s http://127.0.0.1:${port}/api/issues/7`);
});

S('same-error-404-claude', 'claude', async (a, port) => {
  a.files(F.apiServer);
  await a.daemon(`python3 api.py ${port} 404q`, /listening/);
  for (const id of ['ISSUE-101', '101', 'issue-101', '0101', 'ISS-101', '%23101'])
    a.sh(`curl -s -i http://127.0.0.1:${port}/api/issues/${id}`);
  a.sh(`curl -s http://127.0.0.1:${port}/api/issues`);
});

S('same-error-module-codex', 'codex', async (a) => {
  a.files({ 'app.py': 'import ruamel.yaml\n\nprint(ruamel.yaml.YAML().load(open("config.yaml")))\n', 'config.yaml': 'port: 8080\n' });
  for (const cmd of [
    'python3 app.py',
    'python app.py',
    'python3 -B app.py',
    'PYTHONPATH=. python3 app.py',
    'python3 -m app',
    'python3 -I app.py',
  ])
    a.sh(cmd);
  a.sh('python3 -c "import sys; print(sys.path)"');
});

S('same-error-pip-dsh', 'dsh', async (a) => {
  a.files({ 'app.py': 'import ruamel.yaml\n' });
  a.sh('python app.py');
  for (const cmd of [
    'pip install --no-index ruamel.yaml',
    'pip install --no-index ruamel-yaml',
    'python -m pip install --no-index ruamel.yaml==0.18.6',
    'pip install --no-index --find-links vendor/ ruamel.yaml',
    'pip install --no-index -U ruamel.yaml',
    'pip3 install --no-index --user ruamel.yaml',
  ])
    a.sh(cmd);
  a.sh('ls vendor/ 2>&1; pip download --help | head -n 3');
});

S('same-error-rust-untouched-claude', 'claude', async (a) => {
  a.files(F.ringbufBroken);
  a.sh('cargo build 2>&1');
  a.readFile('src/main.rs');
  const edits = [
    ['    let mut ring = Ring::new(3);', '    let mut ring: Ring = Ring::new(3);'],
    ['    println!("capacity {}", ring.capacity());', '    let cap: usize = ring.capacity();\n    println!("capacity {}", cap);'],
    ['    for v in 1..=5 {', '    for v in 1..=5i32 {'],
    ['    println!("items {:?}", ring.items());', '    let items = ring.items();\n    println!("items {:?}", items);'],
    ['use ringbuf::Ring;', 'use ringbuf::Ring as RingBuffer;\nuse ringbuf::Ring;'],
  ];
  editThenCheck(a, 'src/main.rs', edits, 'cargo build 2>&1');
});

S('same-error-node-module-codex', 'codex', async (a) => {
  a.files(F.slugkit);
  a.setup('mkdir -p dist');
  for (const cmd of [
    'node build.mjs',
    'npm run build',
    'node ./build.mjs',
    'NODE_PATH=./node_modules node build.mjs',
    'node --preserve-symlinks build.mjs',
    'node --trace-warnings build.mjs',
  ])
    a.sh(cmd);
  a.sh('cat package.json');
});

// ───────────────────────── stuck: re-reads and paging ─────────────────────────

S('reread-unchanged-dsh', 'dsh', async (a) => {
  a.files({ 'config.yaml': 'server:\n  port: 8080\n  host: 0.0.0.0\nlogging:\n  level: info\n' });
  a.files({
    'yaml_lite.py':
      'def load(text):\n    out, cur = {}, None\n    for line in text.splitlines():\n        if not line.startswith(" "):\n            cur = out.setdefault(line.rstrip(":"), {})\n        else:\n            k, v = line.strip().split(": ")\n            cur[k] = v\n    return out\n',
    'app.py': 'import yaml_lite\n\ncfg = yaml_lite.load(open("config.yaml").read())\nprint("db:", cfg["database"]["url"])\n',
  });
  const between = [
    'python3 app.py',
    'grep -n database app.py',
    'ls -la',
    'python3 -c "import yaml_lite; print(yaml_lite.load(open(\'config.yaml\').read()))"',
    'git status 2>&1 | head -n 3',
    'grep -rn "database" . --include=*.py',
    'cat yaml_lite.py | head -n 5',
    'python3 app.py 2>&1 | tail -n 1',
  ];
  for (const cmd of between) {
    a.readFile('config.yaml');
    a.sh(cmd);
  }
});

S('reread-long-claude', 'claude', async (a) => {
  a.files({
    'src/settings.py': 'TIMEOUT = 30\nRETRIES = 3\nBACKOFF = 1.5\nENDPOINT = "https://api.internal/v2"\n',
    'src/client.py':
      'from settings import TIMEOUT, RETRIES\n\n\ndef fetch(url):\n    raise TimeoutError(f"timed out after {TIMEOUT}s x {RETRIES}")\n',
  });
  const others = [
    'grep -rn TIMEOUT src/',
    'grep -rn RETRIES src/',
    'cd src && python3 -c "import client; client.fetch(1)" 2>&1 | tail -n 1',
    'wc -l src/*.py',
    'grep -rn ENDPOINT src/',
    'ls src/',
    'cd src && python3 -c "import settings; print(settings.BACKOFF)"',
    'grep -rn "def fetch" src/',
    'head -n 3 src/client.py',
    'cd src && python3 -c "import settings; print(settings.TIMEOUT * settings.RETRIES)"',
    'grep -c "" src/settings.py',
    'grep -rn import src/',
  ];
  let k = 0;
  for (let i = 0; i < 25; i++) {
    a.readFile('src/settings.py');
    for (let j = 0; j < 3; j++) a.sh(others[k++ % others.length]);
  }
});

S('paging-again-dsh', 'dsh', async (a) => {
  a.files({ 'app.log': F.bigLog(1000) });
  const pass = () => {
    for (let off = 0; off < 1000; off += 200) a.readFile('app.log', { offset: off, limit: 200 });
  };
  pass();
  a.sh('grep -c ERROR app.log');
  pass();
  a.sh('wc -l app.log');
  pass();
  a.sh('tail -n 2 app.log');
  pass();
});

S('paging-same-range-claude', 'claude', async (a) => {
  a.files({ 'app.log': F.bigLog(1000) });
  const cmds = [
    'grep -n ERROR app.log',
    'grep -c WARN app.log',
    'grep -n "request 1346" app.log',
    'awk \'$3=="ERROR"\' app.log | wc -l',
    'grep -n "worker-2" app.log | tail -n 3',
    'sed -n 346p app.log',
  ];
  for (const cmd of cmds) {
    a.readFile('app.log', { offset: 301, limit: 100 });
    a.sh(cmd);
  }
});

S('user-reset-dsh', 'dsh', async (a) => {
  a.files({
    ...F.statskit,
    'tests/test_io.py':
      'from statskit.io import read_csv\n\n\ndef test_read_csv(tmp_path):\n    p = tmp_path / "x.csv"\n    p.write_text("1\\n2\\n")\n    assert read_csv(p) == [1.0, 2.0]\n',
  });
  for (let i = 0; i < 3; i++) a.sh(`${PYTEST} tests/test_io.py`);
  a.user();
  a.files({ 'statskit/io.py': 'def read_csv(path):\n    return [float(x) for x in open(path).read().split()]\n' });
  a.sh(`${PYTEST} tests/test_io.py`);
  a.sh('git status --short 2>&1 || ls statskit');
});

// ───────────────────────── traps: legitimate repetition ─────────────────────────

S('poll-job-output-dsh', 'dsh', async (a) => {
  a.files(F.trainJob);
  const job = await a.background('python3 train.py 8');
  for (let i = 0; i < 8 && job.exit === null; i++) await a.poll(job, 1000);
  if (job.exit === null) await a.poll(job, 1500);
  a.sh('cat metrics.json');
});

S('poll-bashoutput-claude', 'claude', async (a) => {
  a.files(F.migrateJob);
  const job = await a.background('bash migrate.sh', 'Run the database migration in the background');
  for (let i = 0; i < 9 && job.exit === null; i++) await a.poll(job, 1000);
  if (job.exit === null) await a.poll(job, 1500);
});

S('poll-write-stdin-codex', 'codex', async (a) => {
  a.files(F.trainJob);
  const job = await a.background('python3 train.py 10');
  for (let i = 0; i < 10 && job.exit === null; i++) await a.poll(job, 1000);
  a.sh('cat metrics.json');
});

S('poll-rollout-dsh', 'dsh', async (a) => {
  a.files(F.kubectl);
  a.setup(`chmod +x kubectl && mkdir -p .cluster && echo '{"start": '$(date +%s.%N)', "mode": "rollout"}' > .cluster/state.json`);
  for (let i = 0; i < 12; i++) {
    const r = a.sh('./kubectl get pods -n demo');
    if (!/Pending|ContainerCreating/.test(r.output)) break;
    await a.wait(900);
  }
});

S('poll-health-claude', 'claude', async (a, port) => {
  a.files(F.apiServer);
  await a.daemon(`python3 api.py ${port} health`, /listening/);
  for (let i = 0; i < 10; i++) {
    const r = a.sh(`curl -s http://127.0.0.1:${port}/healthz`);
    if (r.output.includes('"ok"')) break;
    await a.wait(850);
  }
});

S('retest-after-edit-dsh', 'dsh', async (a) => {
  a.files(F.statskit);
  a.sh(PYTEST);
  a.readFile('statskit/core.py');
  editThenCheck(a, 'statskit/core.py', pick(F.statskitFixes, 'median', 'mode', 'variance'), PYTEST);
});

S('retest-after-edit-claude', 'claude', async (a) => {
  a.files(F.slugkit);
  a.sh('npm test 2>&1 | tail -n 40');
  a.readFile('src/slug.js');
  editThenCheck(a, 'src/slug.js', pick(F.slugkitFixes, 'slugify', 'truncate', 'titleCase'), 'npm test 2>&1 | tail -n 40');
});

S('retest-after-edit-codex', 'codex', async (a) => {
  a.files(F.ringbufTests);
  a.setup('cargo build -q --tests 2>&1');
  a.sh('cargo test 2>&1 | tail -n 30');
  editThenCheck(a, 'src/lib.rs', pick(F.ringbufFixes, 'len', 'items', 'full'), 'cargo test 2>&1 | tail -n 30');
});

S('reread-after-edit-dsh', 'dsh', async (a) => {
  a.files({ 'config.toml': '[server]\nport = 8080\nworkers = 2\n\n[cache]\nttl = 60\n' });
  a.readFile('config.toml');
  a.editFile('config.toml', 'port = 8080', 'port = 9090');
  a.readFile('config.toml');
  a.editFile('config.toml', 'workers = 2', 'workers = 4');
  a.readFile('config.toml');
  a.editFile('config.toml', 'ttl = 60', 'ttl = 300');
  a.readFile('config.toml');
});

S('reread-after-edit-claude', 'claude', async (a) => {
  a.files(F.slugkit);
  a.readFile('src/slug.js');
  a.editFile('src/slug.js', ...F.slugkitFixes.slugify);
  a.readFile('src/slug.js');
  a.editFile('src/slug.js', ...F.slugkitFixes.truncate);
  a.readFile('src/slug.js');
  a.editFile('src/slug.js', ...F.slugkitFixes.titleCase);
  a.readFile('src/slug.js');
  a.sh('npm test 2>&1 | tail -n 12');
});

S('debug-pdb-codex', 'codex', async (a) => {
  a.files(F.pdbPrograms);
  const P = /\(Pdb\) $/;
  const job = await a.interactive('python3 -m pdb walk.py', P);
  // n to the call, s into total(), then through the loop watching acc and x.
  const keys = [
    'n',
    's',
    'n',
    'n',
    'n',
    'n',
    'p acc',
    'n',
    'n',
    'n',
    'n',
    'p acc, x',
    'n',
    'n',
    'n',
    'n',
    'p acc, x',
    'n',
    'n',
    'n',
    'n',
    'n',
    'p acc',
    'c',
  ];
  for (const k of keys) await a.stdin(job, `${k}\n`, { prompt: P });
});

S('debug-gdb-codex', 'codex', async (a) => {
  a.files(F.gdbProgram);
  a.setup('make -s');
  const P = /\(gdb\) $/;
  const job = await a.interactive('gdb -q -nx ./sum', P);
  const keys = [
    'break main',
    'run',
    'next',
    'next',
    'next',
    'next',
    'step',
    'next',
    'next',
    'next',
    'print total',
    'next',
    'next',
    'next',
    'print total',
    'next',
    'next',
    'next',
    'info locals',
    'continue',
  ];
  for (const k of keys) await a.stdin(job, `${k}\n`, { prompt: P });
});

S('retry-429-codex', 'codex', async (a, port) => {
  a.files(F.apiServer);
  await a.daemon(`python3 api.py ${port} 429`, /listening/);
  for (let i = 0; i < 4; i++) {
    a.sh(`curl -s -w '\\nHTTP %{http_code}\\n' http://127.0.0.1:${port}/api/report`);
    await a.wait(1200);
  }
  a.sh(`curl -s http://127.0.0.1:${port}/api/report | python3 -m json.tool`);
});

S('retry-429-backoff-dsh', 'dsh', async (a, port) => {
  a.files(F.apiServer);
  await a.daemon(`python3 api.py ${port} 429`, /listening/);
  a.sh(`curl -s -w '\\nHTTP %{http_code}\\n' http://127.0.0.1:${port}/api/report`);
  for (const s of [1, 2, 4]) a.sh(`sleep ${s} && curl -s -w '\\nHTTP %{http_code}\\n' http://127.0.0.1:${port}/api/report`);
});

S('refactor-typehints-dsh', 'dsh', async (a) => {
  const mods = {};
  const tests = ['import importlib\n'];
  for (let m = 1; m <= 16; m++) {
    const id = String(m).padStart(2, '0');
    mods[`inventory/m${id}.py`] =
      `"""Inventory rules, part ${m}."""\n\n\ndef restock_${id}(count, minimum):\n    return max(0, minimum - count)\n\n\ndef price_${id}(base, qty):\n    return round(base * qty * (1 - 0.0${m % 10}), 2)\n`;
    tests.push(
      `\ndef test_restock_${id}():\n    assert importlib.import_module("inventory.m${id}").restock_${id}(3, 10) == 7\n\n\ndef test_price_${id}():\n    assert importlib.import_module("inventory.m${id}").price_${id}(2.0, 5) == round(10 * (1 - 0.0${m % 10}), 2)\n`,
    );
  }
  a.files({ ...mods, 'inventory/__init__.py': '', 'tests/test_inventory.py': tests.join('') });
  a.sh(PYTEST);
  for (let m = 1; m <= 16; m++) {
    const id = String(m).padStart(2, '0');
    const path = `inventory/m${id}.py`;
    a.readFile(path);
    a.editFile(path, `def restock_${id}(count, minimum):`, `def restock_${id}(count: int, minimum: int) -> int:`);
    a.editFile(path, `def price_${id}(base, qty):`, `def price_${id}(base: float, qty: int) -> float:`);
    if (m % 4 === 0) a.sh(PYTEST);
  }
  a.sh('git diff --stat 2>/dev/null || grep -c "->" inventory/*.py');
});

S('refactor-const-claude', 'claude', async (a) => {
  const files = {};
  const requires = [];
  for (let m = 1; m <= 20; m++) {
    const id = String(m).padStart(2, '0');
    files[`lib/u${id}.js`] =
      `// unit ${m}\nexport function sum${id}(xs) {\n  var total = 0;\n  for (const x of xs) total += x * ${m};\n  return total;\n}\n\nexport function label${id}(name) {\n  var prefix = 'u${id}';\n  return prefix + ':' + name;\n}\n`;
    requires.push(
      `import { sum${id}, label${id} } from '../lib/u${id}.js';\ntest('u${id}', () => { assert.equal(sum${id}([1, 2]), ${3 * m}); assert.equal(label${id}('x'), 'u${id}:x'); });\n`,
    );
  }
  a.files({
    ...files,
    'package.json': JSON.stringify({ name: 'units', type: 'module', scripts: { test: 'node --test' } }) + '\n',
    'test/all.test.js': `import { test } from 'node:test';\nimport assert from 'node:assert/strict';\n${requires.join('')}`,
  });
  for (let m = 1; m <= 20; m++) {
    const id = String(m).padStart(2, '0');
    a.readFile(`lib/u${id}.js`);
    a.editFile(`lib/u${id}.js`, '  var total = 0;', '  let total = 0;');
    a.editFile(`lib/u${id}.js`, `  var prefix = 'u${id}';`, `  const prefix = 'u${id}';`);
    if (m % 5 === 0) a.sh('npm test 2>&1 | tail -n 9');
  }
});

S('paging-once-claude', 'claude', async (a) => {
  a.files({ 'app.log': F.bigLog(1200) });
  a.sh('wc -l app.log');
  for (let off = 1; off <= 1200; off += 200) a.readFile('app.log', { offset: off, limit: 200 });
  a.sh('grep -n ERROR app.log');
});

S('batch-distinct-files-codex', 'codex', async (a) => {
  a.files(F.statskit);
  a.files(F.slugkit);
  const files = [
    'statskit/__init__.py',
    'statskit/core.py',
    'tests/test_core.py',
    'package.json',
    'src/slug.js',
    'test/slug.test.js',
    'build.mjs',
    'README.md',
  ];
  for (const f of files) a.sh(`wc -l ${f}`);
  for (const f of files) a.sh(`head -n 3 ${f}`);
  a.sh(`grep -c "" ${files.join(' ')}`);
});

S('fix-errors-one-by-one-dsh', 'dsh', async (a) => {
  a.files(F.ringbufThreeErrors);
  a.sh('cargo build 2>&1');
  a.readFile('src/lib.rs');
  editThenCheck(a, 'src/lib.rs', F.ringbufThreeFixes, 'cargo build 2>&1');
});

S('verify-deleted-claude', 'claude', async (a, port) => {
  a.files(F.apiServer);
  await a.daemon(`python3 api.py ${port} items`, /listening/);
  for (const id of [3, 5, 8])
    a.sh(`curl -s -X DELETE -w 'HTTP %{http_code}\\n' http://127.0.0.1:${port}/api/items/${id}`, `Delete item ${id}`);
  for (const id of [3, 5, 8])
    a.sh(`curl -s -w '\\nHTTP %{http_code}\\n' http://127.0.0.1:${port}/api/items/${id}`, `Confirm item ${id} is gone`);
  a.sh(`curl -s http://127.0.0.1:${port}/api/items`, 'List the remaining items');
});

S('search-absence-codex', 'codex', async (a) => {
  a.files(F.statskit);
  for (const name of ['legacy_mean', 'old_median', 'mode_v1', 'variance_pop', 'stats_compat']) a.sh(`grep -rn "${name}" statskit/ tests/`);
  a.sh('grep -rn "def " statskit/');
});

S('same-error-edit-claude', 'claude', async (a) => {
  a.files(F.slugkit);
  a.readFile('src/slug.js');
  for (const old of [
    "return s.toLowerCase().replace(/ /g, '-')\n",
    '  return s.toLowerCase().replace(/ /g, "-");',
    "    return s.toLowerCase().replace(/ /g, '-');",
    "  return s.toLowerCase().replace(/\\s/g, '-');",
    "  return s.toLowerCase().replaceAll(' ', '-');",
    "return s.toLowerCase().replace( / /g, '-' );",
  ])
    a.editFile('src/slug.js', old, "  return s.toLowerCase().replace(/[^a-z0-9]+/g, '-');");
  a.sh('git diff --stat', 'Check what changed');
});

S('reread-cat-codex', 'codex', async (a) => {
  a.files({
    'settings.ini': '[db]\nhost = db.internal\nport = 5433\n\n[cache]\nttl = 30\n',
    'connect.py':
      'import configparser, socket\n\ncfg = configparser.ConfigParser()\ncfg.read("settings.ini")\nsocket.create_connection((cfg["db"]["host"], int(cfg["db"]["port"])), timeout=0.5)\n',
  });
  const between = [
    'python3 connect.py 2>&1 | tail -n 1',
    'grep -n port connect.py',
    'getent hosts db.internal || echo no such host',
    "python3 -c \"import configparser as c; p=c.ConfigParser(); p.read('settings.ini'); print(dict(p['db']))\"",
    'ls -la',
    'env | grep -i db_ || echo none',
    'wc -l settings.ini connect.py',
  ];
  for (const cmd of between) {
    a.sh('cat settings.ini');
    a.sh(cmd);
  }
});

S('mixed-refactor-then-stuck-dsh', 'dsh', async (a) => {
  const mods = {};
  for (let m = 1; m <= 5; m++) mods[`inventory/m0${m}.py`] = `def restock_0${m}(count, minimum):\n    return max(0, minimum - count)\n`;
  a.files({
    ...mods,
    'inventory/__init__.py': '',
    'tests/test_inv.py': 'from inventory.m01 import restock_01\n\n\ndef test_restock():\n    assert restock_01(3, 10) == 7\n',
  });
  a.sh(PYTEST);
  for (let m = 1; m <= 4; m++) {
    a.readFile(`inventory/m0${m}.py`);
    a.editFile(`inventory/m0${m}.py`, `def restock_0${m}(count, minimum):`, `def restock_0${m}(count: int, minimum: int) -> int:`);
  }
  a.sh(PYTEST);
  for (let i = 0; i < 5; i++) {
    a.editFile('inventory/m05.py', 'def restock_5(count, minimum):', 'def restock_5(count: int, minimum: int) -> int:');
    a.sh(PYTEST);
  }
});

S('repeat-volatile-claude', 'claude', async (a, port) => {
  a.files(F.apiServer);
  await a.daemon(`python3 api.py ${port} 500`, /listening/);
  for (let i = 0; i < 8; i++) {
    a.sh(`curl -s -i http://127.0.0.1:${port}/api/sync`);
    await a.wait(1100);
  }
});

S('reread-after-sed-dsh', 'dsh', async (a) => {
  a.files({ 'deploy.env': 'REGION=eu-west-1\nREPLICAS=2\nIMAGE_TAG=v1.4.0\n' });
  a.readFile('deploy.env');
  a.sh("sed -i 's/REPLICAS=2/REPLICAS=3/' deploy.env");
  a.readFile('deploy.env');
  a.sh("sed -i 's/IMAGE_TAG=v1.4.0/IMAGE_TAG=v1.4.1/' deploy.env");
  a.readFile('deploy.env');
  a.sh("sed -i 's/eu-west-1/eu-central-1/' deploy.env");
  a.readFile('deploy.env');
});

// ───────────── traps: restoring a file between attempts ─────────────

S('restore-new-approach-dsh', 'dsh', async (a) => {
  a.files(F.statskit);
  a.sh(`${PYTEST} tests/test_core.py::test_median_even`);
  a.sh('cp statskit/core.py statskit/core.py.bak');
  a.editFile('statskit/core.py', '    return s[mid]\n\n\ndef mode', '    return s[mid + 1]\n\n\ndef mode');
  a.sh(`${PYTEST} tests/test_core.py::test_median_even`);
  a.sh('cp statskit/core.py.bak statskit/core.py');
  a.editFile('statskit/core.py', ...F.statskitFixes.median);
  a.sh(`${PYTEST} tests/test_core.py::test_median_even`);
  a.sh('rm statskit/core.py.bak && git status --short');
});

S('restore-debug-rounds-codex', 'codex', async (a) => {
  a.files(F.statskit);
  const test = `${PYTEST} tests/test_core.py::test_median_even -s 2>&1 | tail -n 40`;
  a.sh(test);
  a.sh('cp statskit/core.py statskit/core.py.orig');
  // Each round prints another value on the way to the bug, then puts the file back.
  for (const expr of ['s', 'n', 'mid', 's[mid - 1], s[mid]']) {
    a.sh(`sed -i 's|^    mid = n // 2$|    mid = n // 2\\n    print("DEBUG", ${JSON.stringify(expr)}, ${expr})|' statskit/core.py`);
    a.sh(test);
    a.sh('cp statskit/core.py.orig statskit/core.py');
  }
  a.editFile('statskit/core.py', ...F.statskitFixes.median);
  a.sh(test);
});

// ───────────── the same failure at shifted lines ─────────────

/** A report script whose parse fails on the row `n/a` (a real ValueError). */
const ledger = {
  'ledger.py': [
    'import csv',
    '',
    '',
    'def parse(rows):',
    '    total = 0.0',
    '    for row in rows:',
    "        total += float(row['amount'])",
    '    return total',
    '',
    '',
    'def main():',
    "    with open('ledger.csv') as f:",
    '        rows = list(csv.DictReader(f))',
    "    print('total', parse(rows))",
    '',
    '',
    "if __name__ == '__main__':",
    '    main()',
    '',
  ].join('\n'),
  'ledger.csv': 'date,amount\n2026-01-02,12.50\n2026-01-03,n/a\n2026-01-04,7.25\n',
};

S('shifted-traceback-claude', 'claude', async (a) => {
  a.files(ledger);
  a.sh('python3 ledger.py');
  // Each edit adds lines above the failing one (an import, a docstring, a
  // helper it never calls): the frames move, the ValueError stays.
  a.editFile('ledger.py', 'import csv\n', 'import csv\nimport logging\n');
  a.sh('python3 ledger.py');
  a.editFile('ledger.py', 'def parse(rows):\n', 'def parse(rows):\n    """Sum the amounts of the rows."""\n');
  a.sh('python3 ledger.py');
  a.editFile('ledger.py', 'def parse(rows):\n', 'def clean(value):\n    return value.strip()\n\n\ndef parse(rows):\n');
  a.sh('python3 ledger.py');
  a.editFile('ledger.py', '    total = 0.0\n', "    total = 0.0\n    logging.debug('parsing %d rows', len(rows))\n");
  a.sh('python3 ledger.py');
});

S('shifted-traceback-progress-claude', 'claude', async (a) => {
  // Every bad value fixed in turn, with lines added above the failing one:
  // the message changes each time (progress), then the report runs.
  a.files({ ...ledger, 'ledger.csv': 'date,amount\n2026-01-02,12.50\n2026-01-03,n/a\n2026-01-04,-\n2026-01-05,?\n' });
  a.sh('python3 ledger.py');
  a.editFile('ledger.csv', '2026-01-03,n/a\n', '2026-01-03,0\n');
  a.editFile('ledger.py', 'import csv\n', 'import csv\nimport logging\n');
  a.sh('python3 ledger.py');
  a.editFile('ledger.csv', '2026-01-04,-\n', '2026-01-04,0\n');
  a.editFile('ledger.py', 'def parse(rows):\n', 'def parse(rows):\n    """Sum the amounts of the rows."""\n');
  a.sh('python3 ledger.py');
  a.editFile('ledger.csv', '2026-01-05,?\n', '2026-01-05,1.75\n');
  a.sh('python3 ledger.py');
});

// ───────────────────────── runner ─────────────────────────

function prepare() {
  mkdirSync(ROOT, { recursive: true });
  if (!existsSync(join(ROOT, '.venv/bin/pytest'))) {
    const r = spawnSync('bash', ['-c', `python3 -m venv ${ROOT}/.venv && ${ROOT}/.venv/bin/pip install -q pytest`], { stdio: 'inherit' });
    if (r.status !== 0) throw new Error('could not create the pytest venv');
  }
  mkdirSync(OUT, { recursive: true });
}

const only = new Set(process.argv.slice(2));
prepare();
let port = 18100;
for (const sc of scenarios) {
  port += 1;
  if (only.size && !only.has(sc.name)) continue;
  const rec = new Recorder(sc.name, sc.style);
  rec.setup('git init -q . && git config user.email agent@example.com && git config user.name agent');
  try {
    await sc.run(rec, port);
    if (existsSync(join(rec.dir, '.git'))) rec.setup('true');
  } finally {
    const { file, calls } = rec.finish(OUT);
    console.log(`${sc.name.padEnd(36)} ${sc.style.padEnd(7)} ${String(calls).padStart(4)} calls  ${file}`);
  }
}
