// Work files of held-out silent-failure set #2 (path → content), written into
// the scratch work directory before recording; `setup` runs there afterwards
// (built binaries, keys, images, packages, migrations); `path` goes first on PATH.
// Nobody tunes on this set: it is for the lead's final measurement.
//
// The tools (root, registries only), installed once before recording:
//   apt-get install gnuplot-nox datamash units cppcheck clang-tidy patchelf age gnutls-bin optipng \
//     pngcheck jpegoptim gifsicle bmake logrotate tcl ltrace ant erlang-nox
//     (plus gcc, binutils, imagemagick, default-jdk-headless, iproute2 from the corpus recorder's --install set)
//   python3 -m pip install django sqlite-utils csvkit httpie mkdocs sphinx jsonschema alembic sqlfluff \
//     twine build ansible-core check-jsonschema
//   npm install --prefix $HELDOUT2_TOOLS webpack@5 webpack-cli@5 postcss postcss-cli svgo \
//     html-minifier-terser concurrently npm-run-all uvu jasmine qunit
const TOOLS = process.env.HELDOUT2_TOOLS ?? '/work/heldout2/tools';
export const path = [`${TOOLS}/node_modules/.bin`];

export const files = {
  // ---------- data ----------
  'data/rows.csv': 'id,status,message\n1,ok,imported\n2,failed,Error: timeout\n3,ok,imported\n',
  'data/ragged.csv': 'id,name\n1,alpha\n2,beta,extra,cols\n3,gamma\n',
  'data/sales.csv': 'region,amount\nnorth,10\nsouth,N/A\neast,5\n',
  'data/runs.csv': 'run,errors,failures\n1,0,0\n2,0,0\n3,0,0\n',
  'data/jobs.json':
    '[{"id": 1, "status": "ok", "message": ""}, {"id": 2, "status": "failed", "message": "Error: connection reset by peer"}]\n',
  'data/jobs-bad.json': '[{"id": 1, "status": "ok"}, {"id": 2, "status": "failed",]\n',
  'data/cfg.json': '{"name": "site", "port": 8080}\n',
  'data/cfg-bad.json': '{"name": "site", "port": "eighty"}\n',
  'data/schema.json':
    '{"type": "object", "properties": {"name": {"type": "string"}, "port": {"type": "integer"}}, "required": ["name", "port"]}\n',
  // ---------- Tcl ----------
  'tcl/bad.tcl':
    'set total 0\nforeach f {a.csv b.csv} { incr total }\nputs "processing $total files"\nputs "output dir: $outdir"\nputs "done"\n',
  'tcl/ok.tcl':
    'if {[catch {open /nonexistent/cache.db r} err]} {\n    puts "cache unavailable ($err), rebuilding index"\n}\nputs "indexed 12 documents, 0 errors"\n',
  // ---------- gnuplot ----------
  'plot/missing.gp': 'set terminal dumb 60 15\nplot "data/latency.dat" using 1:2 with lines\n',
  'plot/undef.gp': 'set terminal dumb 60 15\nplot f(x) title "model"\n',
  'plot/warn.gp': 'set terminal dumb 60 15\nset xrange [1:1]\nplot x title "errors per hour"\n',
  // ---------- C: static analysis, binaries ----------
  'c/leak.c': '#include <stdlib.h>\nint main(void) {\n  char *p = malloc(10);\n  int a[4];\n  a[4] = 1;\n  return a[0] + (p == 0);\n}\n',
  'c/clean.c':
    '#include <stdio.h>\nstatic const char *describe(int errors) { return errors ? "failed" : "ok"; }\nint main(void) { printf("errors: %s\\n", describe(0)); return 0; }\n',
  'c/style.c':
    '#include <stdio.h>\nint main(int argc, char **argv) {\n  if (argc > 1) printf("%s\\n", argv[1]);\n  else printf("no error\\n");\n  return 0;\n}\n',
  'c/broken.c': 'int main(void) { return undeclared_value; }\n',
  'c/uninit.c': 'int f(int c) {\n  int x;\n  if (c) x = 1;\n  return x + 1;\n}\nint main(void) { return f(0); }\n',
  'c/foo.c': 'int foo_errors(void) { return 0; }\n',
  'c/usefoo.c': '#include <stdio.h>\nint foo_errors(void);\nint main(void) { printf("errors: %d\\n", foo_errors()); return 0; }\n',
  'c/okapp.c':
    '#include <stdio.h>\nvoid report_error(const char *m) { fprintf(stderr, "error: %s\\n", m); }\nvoid handle_failure(int c) { if (c) report_error("failed"); }\nint main(void) { handle_failure(0); puts("ok"); return 0; }\n',
  // ---------- bmake ----------
  'bmk/Makefile': 'all: app\n\napp: app.c\n\tcc -o app app.c\n\t@echo "linked app"\n',
  'bmk/app.c': 'int main(void) { return missing_symbol_count; }\n',
  'bmkok/Makefile': 'all:\n\t-test -f .cache/deps.stamp && echo "using cached deps"\n\t@echo "build complete: 0 errors"\n',
  // ---------- ant ----------
  'ant/build.xml':
    '<project name="demo" default="build">\n  <target name="build">\n    <mkdir dir="/tmp/h2-ant/classes"/>\n    <javac srcdir="src" destdir="/tmp/h2-ant/classes" includeantruntime="false"/>\n  </target>\n</project>\n',
  'ant/src/Main.java':
    'public class Main {\n  public static void main(String[] a) {\n    int n = "three";\n    System.out.println(n);\n  }\n}\n',
  'antok/build.xml':
    '<project name="demo" default="build">\n  <target name="build">\n    <exec executable="test" failonerror="false">\n      <arg line="-d /nonexistent/cache"/>\n    </exec>\n    <mkdir dir="/tmp/h2-antok/classes"/>\n    <javac srcdir="src" destdir="/tmp/h2-antok/classes" includeantruntime="false"/>\n    <echo message="compiled; error handler tests are in ErrorTest"/>\n  </target>\n</project>\n',
  'antok/src/Main.java': 'public class Main {\n  public static void main(String[] a) {\n    System.out.println("0 errors");\n  }\n}\n',
  // ---------- Erlang ----------
  'erl/crash.escript':
    '#!/usr/bin/env escript\nmain(_) ->\n    {ok, Cfg} = file:consult("/nonexistent/app.config"),\n    io:format("~p~n", [Cfg]).\n',
  'erl/spawn.escript':
    '#!/usr/bin/env escript\nmain(_) ->\n    spawn(fun() -> 1 = length([a, b]) end),\n    timer:sleep(300),\n    io:format("all workers started~n").\n',
  'erl/catch.escript':
    '#!/usr/bin/env escript\nmain(_) ->\n    Port = try list_to_integer("80x")\n           catch error:badarg -> io:format("bad port value \\"80x\\", using default 8080~n"), 8080\n           end,\n    io:format("listening on ~p~n", [Port]).\n',
  'erl/warn.erl': '-module(warn).\n-export([f/1]).\nf(X) ->\n    Unused = 1,\n    X.\n',
  'erl/bad.erl': '-module(bad).\n-export([f/1]).\nf(X) ->\n    X +.\n',
  // ---------- Django ----------
  'dj/manage.py':
    'import os\nimport sys\n\nif __name__ == "__main__":\n    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "site_cfg.settings")\n    from django.core.management import execute_from_command_line\n    execute_from_command_line(sys.argv)\n',
  'dj/site_cfg/__init__.py': '',
  'dj/site_cfg/settings.py':
    'SECRET_KEY = "test-only"\nDEBUG = True\nUSE_TZ = True\nDEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"\nINSTALLED_APPS = ["django.contrib.contenttypes", "django.contrib.auth", "shop"]\nDATABASES = {"default": {"ENGINE": "django.db.backends.sqlite3", "NAME": "/tmp/h2-dj.sqlite3"}}\n',
  'dj/site_cfg/settings_bad.py': 'from .settings import *\nINSTALLED_APPS = INSTALLED_APPS + ["badshop"]\n',
  'dj/site_cfg/settings_pending.py':
    'from .settings import *\nINSTALLED_APPS = INSTALLED_APPS + ["billing"]\nDATABASES = {"default": {"ENGINE": "django.db.backends.sqlite3", "NAME": "/tmp/h2-dj-pending.sqlite3"}}\n',
  'dj/shop/__init__.py': '',
  'dj/shop/models.py':
    'from django.db import models\n\n\nclass Order(models.Model):\n    status = models.CharField(max_length=20, default="pending")\n',
  'dj/shop/migrations/__init__.py': '',
  'dj/shop/migrations/0001_initial.py':
    'from django.db import migrations, models\n\n\nclass Migration(migrations.Migration):\n    initial = True\n    dependencies = []\n    operations = [\n        migrations.CreateModel(\n            name="Order",\n            fields=[\n                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),\n                ("status", models.CharField(default="pending", max_length=20)),\n            ],\n        ),\n    ]\n',
  'dj/shop/tests.py':
    'import logging\n\nfrom django.test import SimpleTestCase\n\n\nclass PaymentTests(SimpleTestCase):\n    def test_declined_card_is_logged(self):\n        # the error below is the expected behaviour under test\n        logging.getLogger("shop").error("payment failed: card declined (order 42)")\n        self.assertTrue(True)\n',
  'dj/badshop/__init__.py': '',
  'dj/badshop/models.py':
    'from django.db import models\n\n\nclass Refund(models.Model):\n    reason = models.CharField(max_length=200)\n    order = models.ForeignKey("shop.Invoice", on_delete=models.CASCADE)\n',
  'dj/billing/__init__.py': '',
  'dj/billing/models.py': 'from django.db import models\n\n\nclass Invoice(models.Model):\n    total = models.IntegerField(default=0)\n',
  // ---------- httpie ----------
  'www/status.json': '{"errors": 0, "failed_jobs": [], "last_error": null}\n',
  // ---------- mkdocs ----------
  'mk/mkdocs.yml': 'site_name: Demo\nnav:\n  - Home: index.md\n',
  'mk/docs/index.md': '# Demo\n\nTroubleshooting: see [errors](errors.md) for the list of error codes.\n',
  'mkbad/mkdocs.yml': 'site_name: Demo\ntheme:\n  name: readthedocs-dark-nonexistent\n',
  'mkbad/docs/index.md': '# Demo\n',
  // ---------- sphinx ----------
  'sph/conf.py': 'project = "demo"\nextensions = []\n',
  'sph/index.rst': 'Demo\n====\n\nError handling is described in the guide.\n\n.. toctree::\n\n   guide\n   missing-page\n',
  'sph/guide.rst': 'Guide\n=====\n\nA failed job is retried three times.\n',
  'sphbad/conf.py': 'project = "demo"\nimport sphinx_theme_nonexistent_h2\nhtml_theme = "nonexistent"\n',
  'sphbad/index.rst': 'Demo\n====\n',
  'sphok/conf.py': 'project = "demo"\nextensions = []\n',
  'sphok/index.rst': 'Demo\n====\n\nThis page documents error codes: ``E001`` (failed to connect) and ``E002`` (timeout).\n',
  // ---------- alembic versions (copied into two alembic envs by setup) ----------
  'alv/a1_create_errors.py':
    'from alembic import op\nimport sqlalchemy as sa\n\nrevision = "a1"\ndown_revision = None\nbranch_labels = None\ndepends_on = None\n\n\ndef upgrade():\n    op.create_table("job_errors", sa.Column("id", sa.Integer, primary_key=True), sa.Column("message", sa.String(200)))\n\n\ndef downgrade():\n    op.drop_table("job_errors")\n',
  'alv/b2_bad.py':
    'from alembic import op\n\nrevision = "b2"\ndown_revision = "a1"\nbranch_labels = None\ndepends_on = None\n\n\ndef upgrade():\n    op.execute("ALTER TABLE missing_jobs ADD COLUMN retries INTEGER")\n\n\ndef downgrade():\n    pass\n',
  // ---------- sqlfluff ----------
  'sql/bad.sql': 'select id,Name from users where x=1\n',
  'sql/good.sql': 'SELECT\n    id,\n    error_count\nFROM jobs\nWHERE error_count = 0\n',
  'sql/broken.sql': 'SELEC id FRM jobs WHERE\n',
  // ---------- twine (packages built by setup) ----------
  'twbad/pyproject.toml':
    '[build-system]\nrequires = ["setuptools"]\nbuild-backend = "setuptools.build_meta"\n\n[project]\nname = "h2bad"\nversion = "0.1.0"\nreadme = "README.rst"\n',
  'twbad/README.rst':
    'h2bad\n=====\n\n.. code-block:: python\n   :bogus-option: yes\n\n   print(1)\n\n`unclosed link <http://example.com\n',
  'twbad/h2bad.py': 'x = 1\n',
  'twok/pyproject.toml':
    '[build-system]\nrequires = ["setuptools"]\nbuild-backend = "setuptools.build_meta"\n\n[project]\nname = "h2ok"\nversion = "0.1.0"\nreadme = "README.md"\n',
  'twok/README.md': '# h2ok\n\nRaises `ValueError` on bad input; errors are logged.\n',
  'twok/h2ok.py': 'x = 1\n',
  // ---------- ansible ----------
  'ans/bad.yml':
    '- hosts: all\n  gather_facts: false\n  tasks:\n    - name: copy config\n      copyy:\n        src: app.conf\n        dest: /tmp/h2-app.conf\n',
  'ans/ignore.yml':
    '- hosts: all\n  gather_facts: false\n  tasks:\n    - name: check optional cache dir\n      command: ls /nonexistent/cache\n      ignore_errors: true\n    - name: report\n      debug:\n        msg: continuing without cache\n',
  'ans/fail.yml':
    '- hosts: all\n  gather_facts: false\n  tasks:\n    - name: install config\n      copy:\n        src: /nonexistent/app.conf\n        dest: /tmp/h2-app.conf\n    - name: restart\n      debug:\n        msg: restarted\n',
  // ---------- webpack ----------
  'wp/webpack.config.js':
    'module.exports = { mode: "production", entry: "./src/index.js", output: { path: "/tmp/h2-wp", filename: "main.js" } };\n',
  'wp/src/index.js': 'import { render } from "./render-missing.js";\nrender();\n',
  'wpmode/webpack.config.js': 'module.exports = { entry: "./src/index.js", output: { path: "/tmp/h2-wpmode", filename: "main.js" } };\n',
  'wpmode/src/index.js':
    'export function reportError(e) { console.error("request failed:", e.message); }\nreportError(new Error("none"));\n',
  // ---------- postcss / svgo / html-minifier ----------
  'css/good.css': '.error { color: red; }\n.failed-banner { border: 1px solid red; }\n',
  'img/bad.svg': '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="10" height="10"</svg>\n',
  'img/good.svg':
    '<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10">\n  <!-- error icon -->\n  <rect width="10" height="10" fill="#ff0000"/>\n</svg>\n',
  'img/fake.jpg': 'this is not a JPEG\n',
  'img/fake.gif': 'this is not a GIF\n',
  'web/bad.html': '<!doctype html>\n<html><body>\n<div class="error"<p>Failed to load</p></div>\n</body></html>\n',
  'web/good.html':
    '<!doctype html>\n<html>\n  <body>\n    <div class="error-banner" hidden>  Failed to load data  </div>\n  </body>\n</html>\n',
  // ---------- JS test runners, task runners ----------
  'nra/package.json':
    JSON.stringify(
      {
        name: 'nra',
        version: '1.0.0',
        private: true,
        scripts: {
          lint: 'node -e "console.error(\'src/app.js: 2 errors (no-undef)\'); process.exit(1)"',
          build: 'node -e "console.log(\'built 12 modules\')"',
        },
      },
      null,
      2,
    ) + '\n',
  'js/uvu-fail/parse.test.js':
    'const { test } = require("uvu");\nconst assert = require("uvu/assert");\n\ntest("parses port", () => {\n  assert.is(Number("8080"), 8080);\n});\n\ntest("parses host", () => {\n  assert.is("localhost".toUpperCase(), "localhost");\n});\n\ntest.run();\n',
  'js/uvu-ok/errors.test.js':
    'const { test } = require("uvu");\nconst assert = require("uvu/assert");\n\ntest("throws on invalid input", () => {\n  assert.throws(() => JSON.parse("{"));\n});\n\ntest("error message is kept", () => {\n  assert.is(new Error("failed").message, "failed");\n});\n\ntest.run();\n',
  'js/jas/fail.spec.js':
    'describe("cart", () => {\n  it("sums prices", () => {\n    expect(1 + 2).toBe(4);\n  });\n  it("is empty at start", () => {\n    expect([].length).toBe(0);\n  });\n});\n',
  'js/jas/ok.spec.js':
    'describe("parser", () => {\n  it("throws a SyntaxError on bad input", () => {\n    expect(() => JSON.parse("{")).toThrowError(SyntaxError);\n  });\n  it("reports 0 errors on good input", () => {\n    expect(JSON.parse("{\\"errors\\":0}").errors).toBe(0);\n  });\n});\n',
  'js/qunit/fail.test.js':
    'QUnit.module("dates");\nQUnit.test("formats ISO dates", (assert) => {\n  assert.equal(new Date(0).toISOString().slice(0, 4), "1971");\n});\nQUnit.test("year ok", (assert) => {\n  assert.ok(true);\n});\n',
  'js/qunit/ok.test.js':
    'QUnit.module("errors");\nQUnit.test("throws on missing config", (assert) => {\n  assert.throws(() => { throw new Error("config missing"); }, /config missing/);\n});\n',
  // ---------- logrotate ----------
  'lr/bad.conf': '/tmp/h2-logs/*.log {\n    rotat 5\n    weekly\n}\n',
  'lr/ok.conf': '/tmp/h2-logs/app.log {\n    rotate 3\n    weekly\n    missingok\n}\n/tmp/h2-logs/absent.log {\n    missingok\n}\n',
};

// Generated inputs (need the installed tools): binaries, a missing shared
// library, age keys, certificates, images, alembic environments, sdists.
export const setup = `
set -e
# outputs of an earlier recording would change what commands print
rm -rf /tmp/h2-*
mkdir -p bin /tmp/h2-logs && echo "started" > /tmp/h2-logs/app.log
gcc -shared -fPIC -o bin/libh2foo.so c/foo.c && gcc c/usefoo.c -Lbin -lh2foo -o bin/app && rm bin/libh2foo.so
gcc -o bin/okapp c/okapp.c
mkdir -p keys && age-keygen -o keys/me.txt 2>/dev/null && age-keygen -o keys/other.txt 2>/dev/null
age -r "$(age-keygen -y keys/me.txt)" -o data/secret.age data/rows.csv
certtool --generate-privkey --outfile data/key.pem 2>/dev/null
printf 'cn = test.local\\nexpiration_days = 30\\nca\\ncert_signing_key\\n' > data/cert.tmpl
certtool --generate-self-signed --load-privkey data/key.pem --template data/cert.tmpl --outfile data/cert.pem 2>/dev/null
certtool --generate-privkey --outfile data/key2.pem 2>/dev/null
certtool --generate-self-signed --load-privkey data/key2.pem --template data/cert.tmpl --outfile data/ca2.pem 2>/dev/null
convert -size 16x16 xc:red img/good.png && head -c 60 img/good.png > img/trunc.png
convert -size 16x16 xc:blue img/good.jpg && convert -size 16x16 xc:green img/good.gif
for d in almok albad; do
  mkdir -p $d && (cd $d && alembic -q init migrations >/dev/null && sed -i "s#^sqlalchemy.url = .*#sqlalchemy.url = sqlite:////tmp/h2-$d.db#" alembic.ini)
  cp alv/a1_create_errors.py $d/migrations/versions/
done
cp alv/b2_bad.py albad/migrations/versions/
(cd twbad && python3 -m build -q --no-isolation --sdist -o dist >/dev/null 2>&1)
ln -sfn ${TOOLS}/node_modules node_modules
(cd twok && python3 -m build -q --no-isolation --sdist -o dist >/dev/null 2>&1)
`;
