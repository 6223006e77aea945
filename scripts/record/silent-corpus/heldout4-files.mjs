// Work files of held-out silent-failure set #4 (path → content), written into
// the scratch work directory before recording; `setup` runs there afterwards
// (repositories, media, archives, databases, projects); `path` goes first on PATH.
// Nobody tunes on this set: it is measured once before and once after the
// issue-22 work (the lead's measurement), and its tools are in none of
// corpus/silent, heldout-, heldout2- or heldout3-cases.json.
//
// The tools (root, registries only), installed once before recording:
//   apt-get install fossil cvs rcs rclone aria2 w3m nginx-light guile-3.0 gforth gfortran tcc elixir \
//     hunspell hunspell-en-us lzop pigz cabextract mupdf-tools flac lame webp mediainfo graphicsmagick \
//     zopfli libjpeg-turbo-progs lua-busted shunit2 composer cpanminus luarocks lua-check gron jo \
//     etcd-client gh brz ed
//   python3 -m venv $HELDOUT4_TOOLS/../venv && $HELDOUT4_TOOLS/../venv/bin/pip install uv tox nox doit \
//     waitress hypercorn codespell cpplint 'httpx[cli]' litecli s3cmd jc pydocstyle green
//   mkdir $HELDOUT4_TOOLS/../bin && for t in uv tox nox doit waitress-serve hypercorn codespell cpplint httpx \
//     litecli s3cmd jc pydocstyle green; do ln -s ../venv/bin/$t $HELDOUT4_TOOLS/../bin/; done
//   (only these commands go on PATH, not the venv's python: brz embeds the system python)
//   npm install --prefix $HELDOUT4_TOOLS pnpm yarn json-server serve jshint tap @cucumber/cucumber cspell
const TOOLS = process.env.HELDOUT4_TOOLS ?? '/work/heldout4/tools';
export const path = [`${TOOLS}/node_modules/.bin`, `${TOOLS}/../bin`];

export const files = {
  // ---------- interpreters / compilers ----------
  'scm/report.scm':
    '(define (total xs) (apply + xs))\n(display "jobs: ")\n(display (total (list 1 2 3)))\n(newline)\n(display (average (list 1 2 3)))\n(newline)\n',
  'scm/ok.scm': '(display "retries: 0, failed jobs: 0")\n(newline)\n',
  'fs/calc.fs': ': square ( n -- n*n ) dup * ;\n5 square . cr\n7 cube . cr\n',
  'f/solver.f90':
    'program solver\n  implicit none\n  real :: x\n  x = 2.0\n  if (x > 1.0 then\n    print *, "big"\n  end if\nend program solver\n',
  'f/ok.f90':
    'program ok\n  implicit none\n  real :: err\n  err = 0.0\n  print *, "residual error:", err, " (converged)"\nend program ok\n',
  'c/main.c':
    '#include <stdio.h>\nint parse_config(const char *p);\nint main(void) {\n  printf("loading\\n");\n  return parse_config("app.ini");\n}\n',
  'c/ok.c': '#include <stdio.h>\nint main(void) {\n  printf("checked 12 records: 0 errors, 0 failures\\n");\n  return 0;\n}\n',
  'ex/job.exs':
    'defmodule Job do\n  def run(%{"id" => id}), do: IO.puts("ran #{id}")\nend\nIO.puts("starting job")\nJob.run(%{"name" => "nightly"})\n',
  'ex/calc_test.exs':
    'ExUnit.start()\ndefmodule CalcTest do\n  use ExUnit.Case\n  test "add" do\n    assert 1 + 1 == 2\n  end\n  test "div" do\n    assert div(7, 2) == 4\n  end\nend\n',
  'ex/ok_test.exs':
    'ExUnit.start()\ndefmodule ErrTest do\n  use ExUnit.Case\n  test "raises on bad input" do\n    assert_raise ArgumentError, fn -> String.to_integer("x") end\n  end\nend\n',
  // ---------- text / docs ----------
  'docs/notes.txt': 'The deploymnet failed twice becuase the cache was stale.\nWe recieved no further errors.\n',
  'docs/guide.md': '# Guide\n\nThe servce restarts automaticaly when the healthcheck fails.\n',
  'docs/ok.md': '# Errors\n\nWhen an upload fails, the client shows an error and retries.\n',
  'config/app.ini': '[server]\nport=8080\nretries=3\n',
  'html/errors.html': '<html><body><h1>Error codes</h1><p>E1: upload failed. E2: timeout.</p></body></html>\n',
  // ---------- data ----------
  'data/bad.json': '{"status": "ok", "items": [1, 2,, 3]}\n',
  'data/ok.json': '{"status": "ok", "errors": [], "failed": 0}\n',
  'data/a.txt': 'alpha\n',
  'data/b.txt': 'beta\n',
  // ---------- Lua ----------
  'lua/spec/calc_spec.lua':
    'describe("calc", function()\n  it("adds", function() assert.are.equal(2, 1 + 1) end)\n  it("divides", function() assert.are.equal(4, math.floor(7 / 2)) end)\nend)\n',
  'luaok/spec/err_spec.lua':
    'describe("errors", function()\n  it("raises on nil", function() assert.has_error(function() error("bad input") end) end)\nend)\n',
  'lua/src/util.lua': 'local unused = 1\nfunction helper(x)\n  return x + undefined_var\nend\nreturn helper\n',
  'luaok/src/util.lua': 'local M = {}\nfunction M.double(x)\n  return x * 2\nend\nreturn M\n',
  // ---------- shell tests ----------
  'sh/test_deploy.sh':
    '#!/bin/bash\ntestPort() { assertEquals "port" "8080" "8081"; }\ntestName() { assertEquals "name" "api" "api"; }\n. shunit2\n',
  'sh/test_ok.sh': '#!/bin/bash\ntestErrorCount() { assertEquals "errors" 0 0; }\n. shunit2\n',
  // ---------- PHP / Perl / Lua package managers ----------
  'php/app/composer.json': '{\n  "name": "acme/app",\n  "require": {\n    "monolog/monolog": "^3.0"\n  },\n}\n',
  'php/okapp/composer.json':
    '{\n  "name": "acme/okapp",\n  "description": "error reporting helpers",\n  "license": "MIT",\n  "require": {}\n}\n',
  'php/deps/composer.json': '{\n  "name": "acme/deps",\n  "license": "MIT",\n  "require": {\n    "monolog/monolog": "^3.0"\n  }\n}\n',
  // ---------- Python tools ----------
  'py/requirements.txt': 'requests>=2.0\nflask==2.*,<\n',
  'py/tox.ini':
    '[tox]\nenv_list = lint\nskipsdist = true\n\n[testenv:lint]\nskip_install = true\ncommands = python -c "import sys; print(\'lint: 3 problems in app.py\'); sys.exit(3)"\n\n[testenv:ok]\nskip_install = true\ncommands = python -c "print(\'error handling tests: 4 passed\')"\n',
  'py/noxfile.py':
    'import nox\n\n@nox.session(python=False)\ndef tests(session):\n    session.run("python3", "-c", "import json; json.loads(\'{bad\')")\n\n@nox.session(python=False)\ndef ok(session):\n    session.run("python3", "-c", "print(\'0 failed\')")\n',
  'py/dodo.py':
    'def task_build():\n    return {"actions": ["python3 -c \\"import sys; sys.stderr.write(\'build: missing src/main.c\\\\n\'); sys.exit(1)\\""], "verbosity": 2}\n\ndef task_docs():\n    return {"actions": ["echo docs built"], "verbosity": 2}\n',
  'py/app.py': 'def load(path):\n    with open(path) as f:\n        return f.read()\n',
  'py/style.py': 'def load(path):\n    return open(path).read()\n\nclass loader:\n    def run(self):\n        pass\n',
  'py/web.py':
    'import json\n\ndef app(environ, start_response):\n    path = environ.get("PATH_INFO", "/")\n    if path == "/health":\n        body, status = {"status": "ok", "errors": 0, "failed_jobs": []}, "200 OK"\n    elif path == "/api/report":\n        body, status = {"error": "report generation failed", "code": "E_REPORT"}, "500 Internal Server Error"\n    elif path.startswith("/api/users/"):\n        body, status = {"detail": "Not Found"}, "404 Not Found"\n    elif path == "/dashboard":\n        start_response("500 Internal Server Error", [("Content-Type", "text/html")])\n        return [b"<html><body><h1>Internal Server Error</h1><p>The server encountered an unexpected condition.</p></body></html>"]\n    elif path == "/api/login":\n        body, status = {"code": -1, "msg": "Auth failed"}, "200 OK"\n    else:\n        body, status = {"detail": "Not Found"}, "404 Not Found"\n    start_response(status, [("Content-Type", "application/json")])\n    return [json.dumps(body).encode()]\n',
  'py/asgi.py':
    'async def app(scope, receive, send):\n    if scope["type"] != "http":\n        return\n    await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"text/plain")]})\n    await send({"type": "http.response.body", "body": b"ok"})\n',
  'py/tests_green/test_calc.py':
    'import unittest\n\nclass T(unittest.TestCase):\n    def test_add(self):\n        self.assertEqual(1 + 1, 2)\n    def test_div(self):\n        self.assertEqual(7 // 2, 4)\n',
  'py/tests_greenok/test_err.py':
    'import unittest\n\nclass TestErrors(unittest.TestCase):\n    def test_raises(self):\n        with self.assertRaises(ValueError):\n            int("x")\n',
  'py/doc.py': 'def load(path):\n    return path\n\n\nclass Loader:\n    def run(self):\n        return 1\n',
  'py/docok.py': '"""Error helpers."""\n\n\ndef fail_count():\n    """Return the number of failed jobs."""\n    return 0\n',
  'cpp/main.cc': '#include <stdio.h>\nint main(){ int x=1; if(x) printf("hi\\n"); return 0; }\n',
  // ---------- HTTP ----------
  'db/db.json': '{\n  "jobs": [{"id": 1, "status": "failed", "error": "timeout"}],\n  "users": [{"id": 1, "name": "ada"}]\n}\n',
  'site/index.html': '<html><body>error dashboard</body></html>\n',
  'nginx/bad.conf': 'events {}\nhttp {\n  server {\n    listen 127.0.0.1:8799\n    location / { root /tmp; }\n  }\n}\n',
  'nginx/ok.conf':
    'pid /tmp/h4-nginx.pid;\nerror_log /tmp/h4-nginx-error.log;\nevents {}\nhttp {\n  access_log off;\n  server {\n    listen 127.0.0.1:8798;\n    location / { root /tmp; }\n  }\n}\n',
  // ---------- JS ----------
  'js/package.json':
    '{\n  "name": "jsapp",\n  "version": "1.0.0",\n  "private": true,\n  "scripts": {\n    "build": "node -e \\"require(\'./src/missing-entry.js\')\\"",\n    "lint": "node -e \\"console.log(\'lint: 0 errors, 0 warnings\')\\""\n  }\n}\n',
  'js/app.js': 'function load(p) {\n  var x = 1\n  if (p == null) return\n  return p + x\n}\n',
  'jsok/app.js': '/* exported load */\nfunction load(p) {\n  "use strict";\n  return p;\n}\n',
  'tapt/fail.test.js':
    "const t = require('tap');\nt.test('math', (t) => {\n  t.equal(1 + 1, 2);\n  t.equal(Math.floor(7 / 2), 4, 'divides');\n  t.end();\n});\n",
  'tapt/ok.test.js':
    "const t = require('tap');\nt.test('errors', (t) => {\n  t.throws(() => { throw new Error('bad'); });\n  t.end();\n});\n",
  'cuke/features/upload.feature':
    'Feature: upload\n  Scenario: store a file\n    Given a file of 10 bytes\n    When I upload it\n    Then the server stores 10 bytes\n',
  'cuke/features/steps.js':
    "const { Given, When, Then } = require('@cucumber/cucumber');\nconst assert = require('node:assert');\nGiven('a file of {int} bytes', function (n) { this.n = n; });\nWhen('I upload it', function () { this.stored = Math.floor(this.n / 2); });\nThen('the server stores {int} bytes', function (n) { assert.strictEqual(this.stored, n); });\n",
  'cukeok/features/errors.feature': 'Feature: errors\n  Scenario: clean run\n    Given a clean run\n    Then the error count is 0\n',
  'cukeok/features/steps.js':
    "const { Given, Then } = require('@cucumber/cucumber');\nconst assert = require('node:assert');\nGiven('a clean run', function () { this.errors = []; });\nThen('the error count is {int}', function (n) { assert.strictEqual(this.errors.length, n); });\n",
};

export const setup = `
TOOLS=${TOOLS}
set -e
mkdir -p out logs build archive audio img pdf video notes mirror secrets
for d in js tapt cuke cukeok; do ln -sfn ${TOOLS}/node_modules $d/node_modules; done
cp data/a.txt data/b.txt mirror/
# archives and media: one good, one broken of each
printf 'not an lzop file' > archive/data.lzo
printf 'payload\\n' > archive/good.txt && lzop -q -o archive/good.lzo archive/good.txt
printf 'line 1\\nline 2\\n' > logs/plain.log && gzip -c logs/plain.log > logs/good.gz
gzip -c logs/plain.log | head -c 20 > logs/app.log.gz
printf 'MSCF-but-not-really' > archive/setup.cab
printf '%%PDF-1.4\\n1 0 obj\\n<< /Type /Catalog /Pages 2 0 R >>\\nendobj\\ntrailer\\n' > pdf/broken.pdf
printf '%%%%MediaBox 0 0 200 100\\n%%%%Font F1 Helvetica\\nBT /F1 12 Tf 10 50 Td (Error log summary) Tj ET\\n' > pdf/page.txt && mutool create -o pdf/good.pdf pdf/page.txt
python3 -c "import wave,math,struct; w=wave.open('audio/tone.wav','wb'); w.setnchannels(1); w.setsampwidth(2); w.setframerate(8000); w.writeframes(b''.join(struct.pack('<h', int(8000*math.sin(i/8000*2*math.pi*440))) for i in range(4000))); w.close()"
flac -s -f -o audio/good.flac audio/tone.wav
printf 'RIFF this is not audio' > audio/take1.flac
printf 'just some text, not audio\\n' > audio/notwav.txt
printf '\\x89PNG\\r\\n\\x1a\\ntruncated' > img/logo.png
gm convert -size 16x16 xc:red img/good.png
gm convert -size 16x16 xc:blue img/good.jpg
printf 'JFIF? no' > img/photo.jpg
# version control
(mkdir -p fossilrepo && cd fossilrepo && export USER=root && fossil init ../repo.fossil >/dev/null && fossil open ../repo.fossil >/dev/null && echo x > README && fossil add README >/dev/null && fossil commit -m 'fix failed upload retry (error 502)' >/dev/null)
printf 'plan v1\\n' > notes/plan.txt && (cd notes && ci -q -i -t-'plan' -m'first' -u plan.txt < /dev/null)
# databases
python3 -c "import sqlite3; c=sqlite3.connect('db/app.db'); c.execute('create table jobs(id, status, error)'); c.execute(\\"insert into jobs values (1,'failed','timeout'),(2,'ok',null)\\"); c.commit()"
`;
