// Work files of the held-out silent-failure set (path → content), written into
// the scratch work directory before recording; `setup` runs there afterwards
// (git repos, generated PDFs, keys); `path` goes first on PATH.
//
// The tools (root, registries only), installed once before recording:
//   apt-get install rsync poppler-utils qpdf graphviz sox libimage-exiftool-perl librsvg2-bin p7zip-full \
//     dnsutils netcat-openbsd redis-tools cron meson ninja-build scons autoconf automake lz4 cpio
//     (plus the corpus recorder's --install set: gcc, clang, ruby, php-cli, lua5.4, yq, git, openssl…)
//   python3 -m pip install ruff mypy flake8 pylint black isort duckdb pandas
//   npm install --prefix $HELDOUT_TOOLS sass less rollup @babel/core @babel/cli terser stylelint \
//     stylelint-config-standard markdownlint-cli htmlhint ts-node typescript@5 ajv-cli
const TOOLS = process.env.HELDOUT_TOOLS ?? '/work/heldout/tools';
export const path = [`${TOOLS}/node_modules/.bin`];

export const files = {
  // ---------- data ----------
  'data/rows.csv': 'id,status,message\n1,ok,imported\n2,failed,Error: timeout\n3,ok,imported\n',
  'data/ragged.csv': 'id,name\n1,alpha\n2,beta,extra,cols\n3,gamma\n',
  'data/a.txt': 'b 2\na 1\nc 3\n',
  'data/b.txt': 'a x\nb y\nc z\n',
  'data/notes.md':
    '# Incident notes\n\nThe deploy printed `Error: EACCES: permission denied` and `FAILED: build.ninja`.\nWe fixed it; the last run reported 0 errors.\n',
  'data/cfg.json': '{"name": "site", "port": 8080}\n',
  'data/cfg-bad.json': '{"name": "site", "port": "eighty"}\n',
  'data/schema.json':
    '{"type": "object", "properties": {"name": {"type": "string"}, "port": {"type": "integer"}}, "required": ["name", "port"]}\n',
  'data/b64.txt': 'this is !!! not base64 ***\n',
  'data/errors.log':
    '2024-05-01 12:00:01 ERROR worker-3 failed to connect: Connection refused\n2024-05-01 12:00:04 WARN retrying in 3s\n2024-05-01 12:00:07 INFO connected\n',
  'data/app.cron': '61 * * * * /usr/local/bin/backup.sh\n',
  'data/ok.cron':
    '# nightly backup; errors go to /var/log/backup-errors.log\n15 2 * * * /usr/local/bin/backup.sh 2>> /var/log/backup-errors.log\n',
  // ---------- Python lint targets ----------
  'py/lint_bad.py': 'import os\nimport sys\n\n\ndef area(r: float) -> int:\n    return 3.14 * r * r\n\n\nprint(area("2"))\n',
  'py/lint_good.py':
    '"""Error reporting helpers (no errors here)."""\n\n\ndef describe(errors: list[str]) -> str:\n    """Summarise a list of error messages."""\n    if not errors:\n        return "0 errors"\n    return f"{len(errors)} errors: " + "; ".join(errors)\n\n\nprint(describe([]))\n',
  'py/ugly.py': 'x = {  "errors":0,"warnings" : 2 }\nprint( x )\n',
  'py/unsorted.py': 'import sys\nimport os\n\nprint(os.sep, sys.platform)\n',
  'py/async_exc.py':
    'import asyncio\n\nasync def sync_users():\n    raise ConnectionError("LDAP server unreachable")\n\nasync def main():\n    asyncio.get_running_loop().create_task(sync_users())\n    await asyncio.sleep(0.1)\n    print("sync scheduled")\n\nasyncio.run(main())\n',
  'py/pool_exc.py':
    'from concurrent.futures import ThreadPoolExecutor\n\ndef resize(name):\n    if name == "b.png":\n        raise OSError(f"cannot identify image file {name!r}")\n    return name\n\nwith ThreadPoolExecutor() as ex:\n    futures = [ex.submit(resize, n) for n in ["a.png", "b.png", "c.png"]]\nprint("resized", sum(1 for f in futures if not f.exception()), "of 3")\nfor f in futures:\n    print(f.result())\n',
  'py/atexit_err.py':
    'import atexit\n\ndef flush():\n    raise IOError("could not flush metrics buffer to /var/run/metrics.sock")\n\natexit.register(flush)\nprint("report written")\n',
  'py/del_err.py':
    'class Conn:\n    def __del__(self):\n        raise RuntimeError("connection pool closed twice")\n\nc = Conn()\ndel c\nprint("done: 12 rows exported")\n',
  'py/pandas_warn.py':
    'import warnings\nimport pandas as pd\ndf = pd.DataFrame({"a": [1, 2, 3], "b": [4, 5, 6]})\nsub = df[df.a > 1]\nsub["c"] = sub.b * 2\nprint(sub.to_string())\n',
  'py/logging_ok.py':
    'import logging\nlogging.basicConfig(level=logging.DEBUG, format="%(levelname)s:%(name)s:%(message)s")\nlog = logging.getLogger("etl")\nlog.debug("error budget: 0 of 5 used")\nlog.warning("column \\"legacy_id\\" is deprecated and ignored")\nlog.info("loaded 3 rows, 0 errors")\n',
  // ---------- Go / Rust formatting ----------
  'go/bad/main.go': 'package main\n\nimport "fmt"\n\nfunc main() {\n\tfmt.Println("hi"\n}\n',
  'go/ugly/main.go': 'package main\nimport "fmt"\nfunc main() {\nfmt.Println("errors: 0")\n}\n',
  'rs/ugly.rs': 'fn main(){let errors=0;println!("errors: {}",errors);}\n',
  'rs/good.rs': 'fn main() {\n    let errors = 0;\n    println!("errors: {}", errors);\n}\n',
  'rs/lints/Cargo.toml': '[package]\nname = "lints"\nversion = "0.1.0"\nedition = "2021"\n\n[dependencies]\n',
  'rs/lints/src/main.rs':
    'fn main() {\n    let v = vec![1, 2, 3];\n    let n = v.len() == 0;\n    let x = 5;\n    let y = x * 1;\n    println!("{} {}", n, y);\n}\n',
  // ---------- web tooling ----------
  'web/bad.scss': '$primary: #333;\n.btn { color: $primry; }\n',
  'web/warn.scss': '@import "partial";\n.box { width: 100px / 3; color: darken(#336699, 10%); }\n',
  'web/_partial.scss': '.error-banner { color: red; }\n',
  'web/bad.less': '@base: 10px;\n.box { padding: @bse; }\n',
  'web/good.less': '@err: #c00;\n.error { color: @err; }\n.warning { color: darken(@err, 10%); }\n',
  'web/syntax.js': 'export function load(cfg) {\n  return cfg.items.map((x) => x.id;\n}\n',
  'web/main.js': "import { greet } from './lib.js';\nconsole.log(greet('errors: 0'));\n",
  'web/lib.js': "export const greet = (s) => `hello ${s}`;\nexport const unused = () => 'Error handling';\n",
  'web/uses-missing.js': "import { parse } from './parser.js';\nconsole.log(parse('x'));\n",
  'web/bad.css': 'a { colr: red; }\n.b { color: #ff; }\n',
  'web/good.css': '.error {\n  color: red;\n}\n',
  'web/.stylelintrc.json': '{"extends": "stylelint-config-standard"}\n',
  'web/bad.md': '#Title\nSome text\n* item\n+ other\n',
  'web/good.md': '# Errors\n\nThis page lists common errors and how to fix them.\n',
  'web/bad.html': '<html><head></head><body><div id="a"><div id="a"><img src="x.png"></body></html>\n',
  'web/good.html':
    '<!DOCTYPE html>\n<html lang="en">\n<head><title>Error page</title></head>\n<body><p>Something failed? See the FAQ.</p></body>\n</html>\n',
  'web/bad.ts': 'const port: number = "8080";\nconsole.log("listening on", port);\n',
  'web/fetch.mjs':
    "const r = await fetch('http://127.0.0.1:9/api/health').catch((e) => { console.error('health check failed:', e.cause?.code ?? e.message); return null; });\nconsole.log('status:', r ? r.status : 'unknown');\n",
  'web/fetch_throw.mjs': "console.log('checking api');\nconst r = await fetch('http://127.0.0.1:9/api/health');\nconsole.log(r.status);\n",
  'web/worker_err.js':
    "const { Worker } = require('node:worker_threads');\nconst w = new Worker(\"throw new Error('image decoder crashed')\", { eval: true });\nw.on('error', (e) => console.error('worker error:', e.message));\nw.on('exit', () => console.log('all jobs finished'));\n",
  'web/emit_warn.js':
    "process.emitWarning('the callback form of connect() is deprecated', 'DeprecationWarning', 'DEP_APP_01');\nconsole.log('connected to 3 replicas');\n",
  // ---------- build systems ----------
  'meson/bad/meson.build': "project('demo', 'c')\ndep = dependency('libfoo-toolguard')\nexecutable('demo', 'main.c', dependencies: dep)\n",
  'meson/bad/main.c': 'int main(void) { return 0; }\n',
  'meson/ok/meson.build':
    "project('demo', 'c', version: '0.1')\nwarning('option \"legacy_errors\" is deprecated')\nexecutable('demo', 'main.c')\n",
  'meson/ok/main.c': '#include <stdio.h>\nint main(void) { puts("errors: 0"); return 0; }\n',
  'meson/cerr/meson.build': "project('demo', 'c')\nexecutable('demo', 'main.c')\n",
  'meson/cerr/main.c': 'int main(void) { return undefined_symbol; }\n',
  'scons/bad/SConstruct': "Program('hello', ['hello.c'])\n",
  'scons/bad/hello.c': '#include <stdio.h>\nint main(void) { printf("hi\\n") return 0; }\n',
  'scons/ok/SConstruct': "Program('hello', ['hello.c'])\n",
  'scons/ok/hello.c': '#include <stdio.h>\nint main(void) { printf("no errors\\n"); return 0; }\n',
  'ac/bad/configure.ac':
    'AC_INIT([demo], [0.1])\nAC_PROG_CC\nAC_CHECK_LIB([foo_toolguard], [foo_init], [], [AC_MSG_ERROR([libfoo_toolguard is required to build demo])])\nAC_OUTPUT\n',
  'ac/ok/configure.ac':
    'AC_INIT([demo], [0.1])\nAC_PROG_CC\nAC_CHECK_HEADERS([nonexistent_toolguard.h stdio.h])\nAC_CONFIG_FILES([Makefile])\nAC_OUTPUT\n',
  'ac/ok/Makefile.in': 'all:\n\t@echo built\n',
  // ---------- documents / media ----------
  'doc/bad.dot': 'digraph G {\n  a -> b\n  b -> ;\n}\n',
  'doc/warn.dot': 'digraph G {\n  a [shape=circl];\n  a -> b;\n}\n',
  'doc/good.dot': 'digraph G { error -> retry -> ok; }\n',
  'doc/bad.svg': '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="10" height="10"</svg>\n',
  'doc/good.svg': '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="10" height="10" fill="red"/></svg>\n',
  'doc/fake.pdf': 'this is not really a PDF\n',
  // ---------- C (sanitizers) ----------
  'c/race.c':
    '#include <pthread.h>\n#include <stdio.h>\nint counter;\nvoid *inc(void *a) { for (int i = 0; i < 1000; i++) counter++; return a; }\nint main(void) { pthread_t t1, t2; pthread_create(&t1, 0, inc, 0); pthread_create(&t2, 0, inc, 0); pthread_join(t1, 0); pthread_join(t2, 0); printf("counter=%d\\n", counter); return 0; }\n',
  'c/uninit.c': '#include <stdio.h>\nint main(int argc, char **argv) { int x[4]; if (x[argc]) puts("yes"); else puts("no"); return 0; }\n',
  'c/ok.c':
    '#include <stdio.h>\nint main(void) { fprintf(stderr, "warning: config not found, using defaults\\n"); puts("processed 10 records, 0 errors"); return 0; }\n',
  // ---------- Ruby minitest ----------
  'rb/test_fail.rb':
    'require "minitest/autorun"\nclass TestCalc < Minitest::Test\n  def test_add\n    assert_equal 5, 2 + 2\n  end\n  def test_ok\n    assert true\n  end\nend\n',
  'rb/test_ok.rb':
    'require "minitest/autorun"\nclass TestErrors < Minitest::Test\n  def test_raises\n    assert_raises(ZeroDivisionError) { 1 / 0 }\n  end\n  def test_message\n    assert_equal "Error: x", "Error: x"\n  end\nend\n',
  'rb/test_error.rb': 'require "minitest/autorun"\nclass TestDb < Minitest::Test\n  def test_query\n    nil.fetch(:rows)\n  end\nend\n',
  // ---------- PHP ----------
  'php/bad.php': '<?php\nfunction f() {\n  echo "x"\n}\n',
  'php/warn.php':
    '<?php\n$a = [];\necho $a["missing"] ?? "default", "\\n";\necho @file_get_contents("/nonexistent") === false ? "optional file absent, skipped\\n" : "";\necho "rendered 3 pages\\n";\n',
  'php/notice.php': '<?php\n$rows = null;\nforeach ($rows as $r) { echo $r; }\necho "exported 0 rows\\n";\n',
  // ---------- Perl Test::More run directly ----------
  't/basic.t': 'use strict;\nuse warnings;\nuse Test::More tests => 2;\nis(1 + 1, 2, "adds");\nis(lc("ERROR"), "Error", "lowercases");\n',
  't/ok.t':
    'use strict;\nuse warnings;\nuse Test::More tests => 2;\nok(!eval { die "boom\\n"; 1 }, "die is caught");\nlike("Error: x", qr/^Error/, "error prefix kept");\n',
  // ---------- misc ----------
  'py2/broken.py': 'def load(:\n    pass\n',
  'py2/fine.py': 'print("fine")\n',
  'cfg/bad.yaml': 'name: site\n  port: 80\n - x\n',
  'cfg/good.yaml': 'name: site\nerrors:\n  retry: 3\n  fail_fast: false\n',
  'reports/junit.xml':
    '<?xml version="1.0"?>\n<testsuite name="api" tests="12" failures="0" errors="0" skipped="1">\n  <testcase name="test_error_response_is_json"/>\n  <testcase name="test_failed_login_is_logged"><skipped message="needs ldap"/></testcase>\n</testsuite>\n',
  'npmproj/package.json': '{"name": "npmproj", "version": "1.0.0", "scripts": {"test": "echo \\"Error: no test specified\\" && exit 1"}}\n',
  // ---------- Lua ----------
  'lua/err.lua': 'local cfg = nil\nprint("loading")\nprint(cfg.name)\n',
};

// Generated inputs (need the installed tools): a PDF, an encrypted file,
// a self-signed certificate, checksums with one mismatch, git repositories
// with diverged branches.
export const setup = `
set -e
# outputs of an earlier recording (created directory lines, existing files) would change what commands print
rm -rf /tmp/heldout-*
cp data/rows.csv data/rows-copy.csv
sha256sum data/rows.csv data/a.txt data/b.txt > data/sums.sha256
sha256sum data/rows.csv data/b.txt > data/ok.sha256
printf 'z 9\\n' >> data/a.txt
dot -Tpdf doc/good.dot -o doc/good.pdf
head -c 200 doc/good.pdf > doc/trunc.pdf
openssl enc -aes-256-cbc -pbkdf2 -pass pass:right -in data/rows.csv -out data/rows.enc
openssl req -x509 -newkey rsa:2048 -nodes -keyout data/key.pem -out data/cert.pem -days 1 -subj /CN=test.local 2>/dev/null
7z a -bd data/good.7z data/rows.csv > /dev/null
head -c 100 data/good.7z > data/trunc.7z
lz4 -q data/rows.csv data/rows.lz4
tar cf data/docs.tar data/notes.md && head -c 700 data/docs.tar > data/trunc.tar
ruby -e 'print "x"' >/dev/null
for r in repo rebase stash cherry; do
  rm -rf ../$r && mkdir ../$r && cd ../$r && git init -q -b main && git config user.email r@example.com && git config user.name r
  printf 'port = 80\\nlog = errors.log\\n' > app.conf && git add . && git commit -qm "initial config; log errors to errors.log"
  git checkout -qb feature && printf 'port = 8080\\nlog = errors.log\\n' > app.conf && git commit -qam "feature: port 8080"
  git checkout -q main && printf 'port = 9090\\nlog = errors.log\\n' > app.conf && git commit -qam "main: port 9090"
  cd ../work
done
cd ../stash && printf 'port = 7070\\nlog = errors.log\\n' > app.conf && git stash -q && git checkout -q feature && cd ../work
rm -rf ../bare.git && git init -q --bare ../bare.git
printf 'data/notes.md\\n' | cpio -o --quiet > data/notes.cpio && head -c 100 data/notes.cpio > data/trunc.cpio
# node resolves stylelint's shared config from the work directory up
ln -sfn ${TOOLS}/node_modules node_modules
`;
