// The little projects the corpus sessions work on. Each session gets a fresh
// copy under /tmp/toolguard-loop-corpus/<session>/; nothing here is recorded
// as a tool call.

export const statskit = {
  'statskit/__init__.py': 'from .core import mean, median, mode, variance\n',
  'statskit/core.py': `"""Small descriptive statistics helpers."""


def mean(xs):
    return sum(xs) / len(xs)


def median(xs):
    s = sorted(xs)
    n = len(s)
    mid = n // 2
    if n % 2 == 1:
        return s[mid]
    return s[mid]


def mode(xs):
    counts = {}
    for x in xs:
        counts[x] = counts.get(x, 0) + 1
    return max(counts, key=counts.get)


def variance(xs):
    m = mean(xs)
    return sum((x - m) ** 2 for x in xs) / len(xs)
`,
  'tests/test_core.py': `from statskit import mean, median, mode, variance


def test_mean():
    assert mean([1, 2, 3, 4]) == 2.5


def test_median_odd():
    assert median([5, 1, 3]) == 3


def test_median_even():
    assert median([4, 1, 3, 2]) == 2.5


def test_mode_tie_takes_smallest():
    assert mode([3, 1, 1, 3]) == 1


def test_variance_is_sample_variance():
    assert variance([2, 4, 4, 4, 5, 5, 7, 9]) == 32 / 7
`,
};

/** The three real fixes for statskit, as (old, new) edit pairs. */
export const statskitFixes = {
  median: ['    return s[mid]\n\n\ndef mode', '    return (s[mid - 1] + s[mid]) / 2\n\n\ndef mode'],
  mode: ['    return max(counts, key=counts.get)', '    top = max(counts.values())\n    return min(x for x in counts if counts[x] == top)'],
  variance: ['for x in xs) / len(xs)', 'for x in xs) / (len(xs) - 1)'],
};

export const slugkit = {
  'package.json':
    JSON.stringify(
      { name: 'slugkit', version: '1.0.0', type: 'module', scripts: { test: 'node --test', build: 'node build.mjs' } },
      null,
      2,
    ) + '\n',
  'src/slug.js': `export function slugify(s) {
  return s.toLowerCase().replace(/ /g, '-');
}

export function truncate(s, n) {
  return s.length > n ? s.slice(0, n) + '...' : s;
}

export function titleCase(s) {
  return s.split(' ').map((w) => w[0].toUpperCase() + w.slice(1)).join(' ');
}
`,
  'test/slug.test.js': `import { test } from 'node:test';
import assert from 'node:assert/strict';
import { slugify, truncate, titleCase } from '../src/slug.js';

test('slugify drops punctuation and collapses spaces', () => {
  assert.equal(slugify('Hello,  World!'), 'hello-world');
});

test('truncate keeps the total length at n', () => {
  assert.equal(truncate('abcdefgh', 6), 'abc...');
});

test('titleCase accepts an empty string', () => {
  assert.equal(titleCase(''), '');
});
`,
  'build.mjs': `import { readFileSync, writeFileSync } from 'node:fs';
import { marked } from 'marked';

writeFileSync('dist/README.html', marked(readFileSync('README.md', 'utf8')));
console.log('built dist/README.html');
`,
  'README.md': '# slugkit\n\nTiny string helpers.\n',
};

export const slugkitFixes = {
  slugify: ["  return s.toLowerCase().replace(/ /g, '-');", "  return s.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');"],
  truncate: ["  return s.length > n ? s.slice(0, n) + '...' : s;", "  return s.length > n ? s.slice(0, n - 3) + '...' : s;"],
  titleCase: ['w[0].toUpperCase() + w.slice(1)', 'w.charAt(0).toUpperCase() + w.slice(1)'],
};

/** A crate whose compile error is in lib.rs; main.rs is where the agent keeps editing. */
export const ringbufBroken = {
  'Cargo.toml': '[package]\nname = "ringbuf"\nversion = "0.1.0"\nedition = "2021"\n\n[dependencies]\n',
  'src/lib.rs': `pub struct Ring {
    buf: Vec<i32>,
    cap: u32,
    head: usize,
}

impl Ring {
    pub fn new(cap: u32) -> Self {
        Ring { buf: Vec::new(), cap, head: 0 }
    }

    pub fn capacity(&self) -> usize {
        self.cap
    }

    pub fn push(&mut self, v: i32) {
        if self.buf.len() < self.cap as usize {
            self.buf.push(v);
        } else {
            self.buf[self.head] = v;
            self.head = (self.head + 1) % self.buf.len();
        }
    }

    pub fn items(&self) -> Vec<i32> {
        let mut out = self.buf[self.head..].to_vec();
        out.extend_from_slice(&self.buf[..self.head]);
        out
    }
}
`,
  'src/main.rs': `use ringbuf::Ring;

fn main() {
    let mut ring = Ring::new(3);
    for v in 1..=5 {
        ring.push(v);
    }
    println!("capacity {}", ring.capacity());
    println!("items {:?}", ring.items());
}
`,
};

/** The ring buffer (usize capacity) that the next two crates start from, and its `push`. */
const ringPush = `    pub fn push(&mut self, v: i32) {
        if self.buf.len() < self.cap {
            self.buf.push(v);
        } else {
            self.buf[self.head] = v;
            self.head = (self.head + 1) % self.cap;
        }
    }
`;
const ringUsize = `pub struct Ring {
    buf: Vec<i32>,
    cap: usize,
    head: usize,
}

impl Ring {
    pub fn new(cap: usize) -> Self {
        Ring { buf: Vec::with_capacity(cap), cap, head: 0 }
    }
`;

/** A crate with three different compile errors, fixed one at a time. */
export const ringbufThreeErrors = {
  'Cargo.toml': ringbufBroken['Cargo.toml'],
  'src/lib.rs': `${ringUsize}
    pub fn capacity(&self) -> u32 {
        self.cap
    }

${ringPush}
    pub fn newest(&self) -> Option<i32> {
        self.buf.get(newest_index).copied()
    }

    pub fn total(&self) -> i64 {
        self.buf.iter().sum_all()
    }
}
`,
};

export const ringbufThreeFixes = [
  ['    pub fn capacity(&self) -> u32 {', '    pub fn capacity(&self) -> usize {'],
  [
    '        self.buf.get(newest_index).copied()',
    '        let newest_index = (self.head + self.buf.len() - 1) % self.buf.len().max(1);\n        self.buf.get(newest_index).copied()',
  ],
  ['        self.buf.iter().sum_all()', '        self.buf.iter().map(|&v| v as i64).sum()'],
];

/** A crate that compiles, with three failing unit tests. */
export const ringbufTests = {
  'Cargo.toml': ringbufBroken['Cargo.toml'],
  'src/lib.rs': `${ringUsize}
    pub fn len(&self) -> usize {
        self.cap
    }

    pub fn is_full(&self) -> bool {
        self.buf.len() > self.cap
    }

${ringPush}
    pub fn items(&self) -> Vec<i32> {
        self.buf.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::Ring;

    #[test]
    fn len_counts_pushed_items() {
        let mut r = Ring::new(4);
        r.push(1);
        assert_eq!(r.len(), 1);
    }

    #[test]
    fn items_are_oldest_first() {
        let mut r = Ring::new(3);
        for v in 1..=4 {
            r.push(v);
        }
        assert_eq!(r.items(), vec![2, 3, 4]);
    }

    #[test]
    fn full_after_cap_pushes() {
        let mut r = Ring::new(2);
        r.push(1);
        r.push(2);
        assert!(r.is_full());
    }
}
`,
};

export const ringbufFixes = {
  len: ['    pub fn len(&self) -> usize {\n        self.cap\n    }', '    pub fn len(&self) -> usize {\n        self.buf.len()\n    }'],
  items: [
    '        self.buf.clone()',
    '        let mut out = self.buf[self.head..].to_vec();\n        out.extend_from_slice(&self.buf[..self.head]);\n        out',
  ],
  full: ['self.buf.len() > self.cap', 'self.buf.len() == self.cap'],
};

/** A local HTTP API on 127.0.0.1 with a few behaviours, selected by argv. */
export const apiServer = {
  'api.py': `import http.server, json, sys, time, uuid

port, mode = int(sys.argv[1]), sys.argv[2]
start = time.time()
hits = {"n": 0}
ISSUES = {"7": "Crash on empty input", "12": "Slow CSV export", "31": "Typo in --help"}
ITEMS = {"3": "bolt", "5": "nut", "8": "washer", "13": "bracket"}


class Handler(http.server.BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def send(self, code, obj, headers=None):
        body = (json.dumps(obj) + "\\n").encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("X-Request-Id", str(uuid.uuid4()))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        path = self.path
        if mode in ("404", "404q"):
            if path == "/api/issues":
                return self.send(200, {"issues": [{"id": int(k), "title": v} for k, v in ISSUES.items()]})
            if path.startswith("/api/issues/"):
                iid = path.rsplit("/", 1)[1]
                if iid in ISSUES:
                    return self.send(200, {"id": int(iid), "title": ISSUES[iid], "state": "open"})
                if mode == "404":
                    return self.send(404, {"error": "not_found", "message": f"Issue {iid} does not exist"})
                return self.send(404, {"error": "not_found", "message": "issue not found"})
            return self.send(404, {"error": "no_route"})
        if mode == "429":
            hits["n"] += 1
            if hits["n"] <= 3:
                return self.send(429, {"error": "rate_limited", "message": "Too many requests; retry after 1 second"}, {"Retry-After": "1"})
            return self.send(200, {"report": "weekly", "rows": 42, "generated": time.strftime("%Y-%m-%dT%H:%M:%S")})
        if mode == "health":
            loaded = min(5, int((time.time() - start) / 0.8))
            if loaded < 5:
                return self.send(503, {"status": "starting", "loaded_modules": loaded, "total_modules": 5})
            return self.send(200, {"status": "ok", "loaded_modules": 5, "total_modules": 5})
        if mode == "500":
            return self.send(500, {"error": "internal", "message": "sync failed: database is locked"})
        if mode == "items":
            if path == "/api/items":
                return self.send(200, {"items": sorted(int(i) for i in ITEMS)})
            iid = path.rsplit("/", 1)[1]
            if iid in ITEMS:
                return self.send(200, {"id": int(iid), "name": ITEMS[iid]})
            return self.send(404, {"error": "not_found", "message": f"item {iid} not found"})
        self.send(404, {"error": "no_route"})

    def do_DELETE(self):
        iid = self.path.rsplit("/", 1)[1]
        if mode == "items" and iid in ITEMS:
            del ITEMS[iid]
            self.send_response(204)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        self.send(404, {"error": "not_found", "message": f"item {iid} not found"})


server = http.server.ThreadingHTTPServer(("127.0.0.1", port), Handler)
print("listening on", port, flush=True)
server.serve_forever()
`,
};

/** kubectl-like CLI: a real script whose output follows the clock. */
export const kubectl = {
  kubectl: `#!/usr/bin/env python3
import json, sys, time

state = json.load(open(".cluster/state.json"))
el = time.time() - state["start"]
args = sys.argv[1:]
if args[:2] != ["get", "pods"]:
    print(f"error: unknown command {' '.join(args)!r} for kubectl", file=sys.stderr)
    sys.exit(1)
pods = ["web-7d9c5b8f6-2xkqp", "web-7d9c5b8f6-9hzr4", "worker-5f7b9c6d4-lm3xd"]
print(f"{'NAME':<26}{'READY':<8}{'STATUS':<20}{'RESTARTS':<10}AGE")
for i, name in enumerate(pods):
    age = f"{int(el) + 4}s"
    restarts = "0"
    if state["mode"] == "rollout":
        t0 = 1.6 * i
        if el < t0 + 1.6:
            ready, status = "0/1", "Pending"
        elif el < t0 + 3.2:
            ready, status = "0/1", "ContainerCreating"
        else:
            ready, status = "1/1", "Running"
    else:
        if name.startswith("worker"):
            n = int(el / 1.5)
            ready, status, restarts = "0/1", ("CrashLoopBackOff" if n % 2 == 0 else "Error"), str(n + 3)
        else:
            ready, status = "1/1", "Running"
    print(f"{name:<26}{ready:<8}{status:<20}{restarts:<10}{age}")
`,
};

export const trainJob = {
  'train.py': `import json, sys, time

epochs = int(sys.argv[1]) if len(sys.argv) > 1 else 8
loss = 2.31
for e in range(1, epochs + 1):
    time.sleep(0.7)
    loss *= 0.82
    print(f"epoch {e}/{epochs}  loss={loss:.4f}  lr=0.001", flush=True)
json.dump({"epochs": epochs, "final_loss": round(loss, 4)}, open("metrics.json", "w"))
print("done: wrote metrics.json", flush=True)
`,
};

export const migrateJob = {
  'migrate.sh': `#!/usr/bin/env bash
tables=(users orders order_items products invoices payments audit_log sessions)
for i in "\${!tables[@]}"; do
  sleep 0.8
  echo "migrating \${tables[$i]} ($((i + 1))/\${#tables[@]}) ... ok"
done
echo "migration complete: \${#tables[@]} tables"
`,
};

export const pdbPrograms = {
  'walk.py': `def total(items):
    acc = 0
    for i, x in enumerate(items):
        if x % 3 == 0:
            acc += x * 2
        else:
            acc += x
    return acc


result = total([1, 3, 4, 6, 7])
print("total", result)
`,
  'spin.py': `import time


def wait_ready(flags):
    while not flags.get("ready"):
        time.sleep(0)
    return True


flags = {}
wait_ready(flags)
print("ready")
`,
};

export const gdbProgram = {
  'sum.c': `#include <stdio.h>

static int weight(int x) {
    return x % 2 == 0 ? x * 3 : x;
}

int main(void) {
    int values[] = {4, 7, 10, 13, 16};
    int total = 0;
    for (int i = 0; i < 5; i++) {
        total += weight(values[i]);
    }
    printf("total=%d\\n", total);
    return total > 100;
}
`,
  Makefile: 'sum: sum.c\n\tgcc -g -O0 -o sum sum.c\n',
};

/** A C program with a compile error, built with make. */
export const cBroken = {
  'src/main.c': `#include <stdio.h>
#include "config.h"

int main(void) {
    struct config cfg = load_config("app.conf");
    printf("port=%d\\n", cfg.port);
    return 0;
}
`,
  'src/config.h': `struct config {
    int port;
    const char *host;
};

struct config load_config(const char *path);
`,
  'src/config.c': `#include "config.h"

struct config load_config(const char *path) {
    struct config c = { .port = 8080, .hostname = "localhost" };
    (void)path;
    return c;
}
`,
  Makefile: 'app: src/main.c src/config.c\n\tgcc -Wall -o app src/main.c src/config.c\n',
};

export function bigLog(lines = 1000) {
  const out = [];
  const levels = ['INFO', 'INFO', 'INFO', 'DEBUG', 'WARN'];
  for (let i = 1; i <= lines; i++) {
    const lvl = i % 173 === 0 ? 'ERROR' : levels[i % levels.length];
    const ms = (i * 37) % 900;
    out.push(
      `2026-11-30T08:${String(Math.floor(i / 60) % 60).padStart(2, '0')}:${String(i % 60).padStart(2, '0')}.${String(ms).padStart(3, '0')}Z ${lvl} worker-${i % 4} request ${1000 + i} handled in ${ms}ms`,
    );
  }
  return out.join('\n') + '\n';
}
