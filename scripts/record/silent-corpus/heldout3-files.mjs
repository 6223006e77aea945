// Work files of held-out silent-failure set #3 (path → content), written into
// the scratch work directory before recording; `setup` runs there afterwards
// (repositories, archives, a busy port); `path` goes first on PATH.
// Nobody tunes on this set: it is measured once before and once after the
// loops/shell work (issue 22 item 6).
//
// The tools (root, registries only), installed once before recording:
//   apt-get install zsh fish xmlstarlet tidy nasm bison flex lzip brotli dos2unix miller xsltproc \
//     protobuf-compiler moreutils parallel expect mercurial subversion quilt socat busybox
//   python3 -m pip install behave nose2 bandit pyflakes pycodestyle vulture flask gunicorn uvicorn \
//     fastapi invoke robotframework coverage
//   npm install --prefix $HELDOUT3_TOOLS ava tape jsonlint http-server tsx @biomejs/biome c8 pyright
const TOOLS = process.env.HELDOUT3_TOOLS ?? '/work/heldout3/tools';
export const path = [`${TOOLS}/node_modules/.bin`];

export const files = {
  // ---------- data ----------
  'data/jobs.csv': 'id,level,msg\n1,INFO,started\n2,ERROR,upload failed: timeout\n3,INFO,retry ok\n',
  'data/ragged.csv': 'id,name\n1,alpha\n2,beta,extra,cols\n3,gamma\n',
  'data/ok.json': '{"errors": [], "failed": 0, "status": "ok"}\n',
  'data/bad.json': '{"name": "api", "retries": 3,, "timeout": 10}\n',
  'data/crlf.txt': 'line one\r\nline two\r\n',
  // ---------- XML / HTML ----------
  'xml/bad.xml': '<config>\n  <server port="80">\n  <name>api</name>\n</config>\n',
  'xml/ok.xml': '<log>\n  <entry level="error">disk full on /var</entry>\n  <entry level="info">rotated</entry>\n</log>\n',
  'xml/list.xsl':
    '<xsl:stylesheet version="1.0" xmlns:xsl="http://www.w3.org/1999/XSL/Transform">\n<xsl:template match="/"><xsl:for-each select="//entry"><xsl:value-of select="@level"/>: <xsl:value-of select="."/><xsl:text>&#10;</xsl:text></xsl:for-each></xsl:template>\n</xsl:stylesheet>\n',
  'xml/bad.xsl':
    '<xsl:stylesheet version="1.0" xmlns:xsl="http://www.w3.org/1999/XSL/Transform">\n<xsl:template match="/"><xsl:value-of select="count(//entry"/></xsl:template>\n</xsl:stylesheet>\n',
  'html/bad.html':
    '<!DOCTYPE html>\n<html><head><title>t</title></head>\n<body><div><p>unclosed <b>bold</div>\n<table><tr><td>x</table>\n<chart-widget data="q3"></chart-widget>\n</body></html>\n',
  'html/ok.html':
    '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>Errors</title></head>\n<body><p class="error">Error: upload failed (shown to users)</p></body></html>\n',
  // ---------- assembler / parser generators / protobuf ----------
  'asm/bad.asm': 'section .text\nglobal _start\n_start:\n    mov rax, 60\n    movx rdi, 0\n    syscall\n',
  'asm/ok.asm':
    'section .data\nmsg db "error count: 0", 10\nsection .text\nglobal _start\n_start:\n    mov rax, 60\n    xor rdi, rdi\n    syscall\n',
  'asm/warn.asm': 'section .text\nglobal _start\n_start:\n    mov eax, 60\n    mov al, 300\n    syscall\n',
  'parser/bad.y': "%token NUM\n%%\nexpr: expr '+' NUM\n    | NUM\n    | undefined_rule\n    ;\n%%\n",
  'parser/conflict.y': "%token NUM\n%%\nexpr: expr '+' expr\n    | NUM\n    ;\n%%\n",
  'lexer/bad.l': '%%\n[0-9]+   { return NUM; \n%%\n',
  'proto/bad.proto': 'syntax = "proto3";\nmessage Job {\n  string id = 1;\n  Status status = 2;\n}\n',
  'proto/ok.proto':
    'syntax = "proto3";\nenum ErrorCode {\n  ERROR_NONE = 0;\n  ERROR_FAILED = 1;\n}\nmessage Job {\n  string id = 1;\n  ErrorCode error = 2;\n}\n',
  // ---------- Python: BDD, tests, linters, servers, tasks ----------
  'bdd/features/upload.feature':
    'Feature: upload\n  Scenario: upload a file\n    Given a file of 10 bytes\n    When I upload it\n    Then the server stores 10 bytes\n\n  Scenario: reject empty\n    Given a file of 0 bytes\n    When I upload it\n    Then the upload is rejected\n',
  'bdd/features/steps/steps.py':
    'from behave import given, when, then\n\n@given("a file of {n:d} bytes")\ndef g(ctx, n):\n    ctx.n = n\n\n@when("I upload it")\ndef w(ctx):\n    ctx.stored = ctx.n // 2\n\n@then("the server stores {n:d} bytes")\ndef t(ctx, n):\n    assert ctx.stored == n, f"stored {ctx.stored} bytes, expected {n}"\n\n@then("the upload is rejected")\ndef r(ctx):\n    assert ctx.stored == 0\n',
  'bddok/features/errors.feature':
    'Feature: error reporting\n  Scenario: no errors on a clean run\n    Given a clean run\n    Then the error count is 0\n',
  'bddok/features/steps/steps.py':
    'from behave import given, then\n\n@given("a clean run")\ndef g(ctx):\n    ctx.errors = []\n\n@then("the error count is 0")\ndef t(ctx):\n    assert len(ctx.errors) == 0\n',
  'nose/test_calc.py':
    'import unittest\n\nclass T(unittest.TestCase):\n    def test_add(self):\n        self.assertEqual(1 + 1, 2)\n    def test_div(self):\n        self.assertEqual(7 // 2, 4)\n',
  'noseok/test_errors.py':
    'import unittest\n\nclass TestErrorHandling(unittest.TestCase):\n    def test_raises_value_error(self):\n        with self.assertRaises(ValueError):\n            int("x")\n',
  'robot/suite.robot':
    '*** Test Cases ***\nAddition Works\n    Should Be Equal As Integers    ${2}    ${2}\nDivision Works\n    Should Be Equal As Integers    ${3}    ${4}\n',
  'robotok/suite.robot':
    '*** Test Cases ***\nError Is Raised For Bad Input\n    Run Keyword And Expect Error    *    Fail    bad input\nCount Is Zero\n    Should Be Equal As Integers    ${0}    ${0}\n',
  'py/vuln.py': 'import subprocess\n\ndef run(cmd):\n    return subprocess.call(cmd, shell=True)\n\npassword = "hunter2"\n',
  'py/clean.py': 'def add(a, b):\n    """Add two numbers."""\n    return a + b\n',
  'py/unused.py': 'import os\nimport sys\n\n\ndef helper():\n    return 1\n\n\ndef main():\n    print(undefined_name)\n',
  'py/style.py': 'def f( a,b ):\n    x=1\n    return a+b+x\n',
  'py/typed.py': 'def count(xs: list[int]) -> int:\n    return len(xs)\n\ncount("abc")\nresult: str = count([1])\n',
  'py/typed_ok.py': 'def error_count(errors: list[str]) -> int:\n    return len(errors)\n\nprint(error_count([]))\n',
  'py/crash.py': 'import json\nprint("loading config")\ncfg = json.loads("{\\"a\\": }")\nprint(cfg)\n',
  'py/report.py': 'errors = []\nfor i in range(3):\n    pass\nprint(f"processed 3 items, {len(errors)} errors")\n',
  'web/app.py':
    'from flask import Flask, jsonify\napp = Flask(__name__)\n\n@app.get("/api/items/<int:i>")\ndef item(i):\n    if i > 3:\n        return jsonify(error=f"item {i} not found"), 404\n    return jsonify(id=i, status="ok")\n\n@app.get("/api/health")\ndef health():\n    return jsonify(status="ok", errors=0, failed_jobs=[])\n\n@app.post("/api/jobs")\ndef jobs():\n    raise RuntimeError("queue unavailable")\n',
  'web/broken.py': 'from flask import Flask\nimport flask_missing_ext\napp = Flask(__name__)\n',
  'web/api.py':
    'from fastapi import FastAPI, HTTPException\napp = FastAPI()\n\n@app.get("/v1/users/{uid}")\ndef user(uid: int):\n    if uid != 1:\n        raise HTTPException(status_code=404, detail="User not found")\n    return {"id": 1, "name": "ada", "last_error": None}\n',
  'tasks/tasks.py':
    'from invoke import task\n\n@task\ndef build(c):\n    c.run("python3 -c \\"import sys; sys.stderr.write(\'build: missing src/main.c\\\\n\'); sys.exit(2)\\"")\n\n@task\ndef check_errors(c):\n    """Check the error budget."""\n    c.run("echo error budget: 0 of 5 used")\n',
  // ---------- JavaScript / TypeScript ----------
  'js/package.json': '{"name": "h3js", "version": "1.0.0", "type": "module", "private": true}\n',
  'js/test/math.test.js':
    'import test from "ava";\ntest("adds", (t) => { t.is(1 + 1, 2); });\ntest("divides", (t) => { t.is(7 / 2, 3); });\n',
  'jsok/package.json': '{"name": "h3jsok", "version": "1.0.0", "type": "module", "private": true}\n',
  'jsok/test/errors.test.js':
    'import test from "ava";\ntest("throws on bad input", (t) => { t.throws(() => { throw new TypeError("bad input"); }, { instanceOf: TypeError }); });\n',
  'tape/fail.cjs':
    'const test = require("tape");\ntest("parse", (t) => { t.equal(parseInt("08", 10), 8); t.equal(Number("1,5"), 1.5); t.end(); });\n',
  'tape/ok.cjs':
    'const test = require("tape");\ntest("error path", (t) => { t.throws(() => JSON.parse("{"), SyntaxError, "invalid JSON throws SyntaxError"); t.end(); });\n',
  'ts/crash.ts':
    'interface Cfg { db?: { url: string } }\nconst cfg: Cfg = JSON.parse("{}");\nconsole.log("connecting");\nconsole.log(cfg.db!.url.length);\n',
  'ts/probe.ts':
    'try {\n  JSON.parse("{bad");\n} catch (e) {\n  console.log("expected failure caught:", (e as Error).name);\n}\nconsole.log("parser rejects invalid input: ok");\n',
  'ts/crash.js': 'const rows = undefined;\nconsole.log("rows:", rows.length);\n',
  'lint/bad.js': 'let unused = 1;\nif (x == null) { debugger; }\n',
  'lint/ok.js': 'export function errorCount(errors) {\n  return errors.length;\n}\n',
  // ---------- shells ----------
  'sh/deploy.fish': 'function deploy\n    if test -z "$TARGET"\n        echo "deploying to default"\n    echo done\nend\n',
  'sh/probe.fish': 'if not test -e config.toml\n    echo "config.toml missing, using defaults"\nend\necho "port 8080"\n',
  // ---------- web root ----------
  'www/index.html': '<h1>ok</h1>\n',
  // ---------- quilt project without a series ----------
  'qproj/src.c': 'int main(void){return 0;}\n',
};

export const setup = `
TOOLS=${TOOLS}
set -e
printf 'caf\\xe9\\n' > data/latin1.txt
# the JS test files import their runners from the tools directory
for d in js jsok tape; do ln -sfn ${TOOLS}/node_modules $d/node_modules; done
printf 'not brotli data at all' > data/corrupt.br
printf 'hello world\\n' > data/hello.txt && brotli -q 5 -o data/hello.txt.br data/hello.txt
printf 'LZIP\\x01garbage-garbage-garbage' > data/bad.lz
printf 'payload\\n' | lzip > data/good.lz
printf '\\x00\\x01binary\\x00' > data/blob.bin
gzip -c data/hello.txt > data/a.gz && printf 'not gzip' > data/b.gz
hg init hgrepo && (cd hgrepo && echo 'fix crash: TypeError in parser' > NOTES && hg add -q NOTES && hg commit -q -u r -m 'fix crash: TypeError in parser (issue 12)')
svnadmin create svnrepo && svn checkout -q file://$PWD/svnrepo svnwc && (cd svnwc && echo x > f && svn add -q f && svn commit -q -m 'handle failed uploads: retry on error')
`;
