// Held-out silent-failure set #2: tools and failure modes in NEITHER
// corpus/silent NOR the first held-out set (scripts/record/silent-corpus/heldout-cases.mjs),
// recorded outside the repo by REALLY running each command; nobody tunes on it
// (it is the lead's final, honest measurement). Tools to install: the header of
// heldout2-files.mjs.
//   node scripts/record/record-silent-corpus.mjs --cases=scripts/record/silent-corpus/heldout2-cases.mjs \
//     --files=scripts/record/silent-corpus/heldout2-files.mjs --scratch=/work/heldout2/scratch --out=/work/heldout2/corpus
// Same format as scripts/record/silent-corpus/cases.mjs: [family, id, meaning, command, note];
// meaning ('fail' | 'ok') is the human judgement written BEFORE recording.
const serve = (port) => `python3 -m http.server ${port} -d www >/dev/null 2>&1 & srv=$!; sleep 1;`;
export const cases = [
  // ---------------- Tcl ----------------
  ['tcl', 'unset-var-chain', 'fail', 'tclsh tcl/bad.tcl; echo "report generated"', 'can\'t read "outdir": no such variable, script stops half way'],
  ['tcl', 'catch-ok', 'ok', 'tclsh tcl/ok.tcl', 'caught open error, rebuilt index, 0 errors'],
  ['tcl', 'unset-var-shown', 'fail', 'tclsh tcl/bad.tcl', 'Tcl error with exit 1 shown'],
  // ---------------- gnuplot ----------------
  ['gnuplot', 'missing-data-chain', 'fail', 'gnuplot plot/missing.gp; echo "chart rendered"', 'data file missing, no plot'],
  ['gnuplot', 'undefined-func-tail', 'fail', 'gnuplot plot/undef.gp 2>&1 | tail -n 3', 'undefined function, no plot'],
  // ---------------- datamash ----------------
  ['datamash', 'invalid-numeric-chain', 'fail', 'datamash -t, -H sum 2 < data/sales.csv; echo "totals computed"', 'invalid numeric value N/A, no total'],
  ['datamash', 'zero-sums-ok', 'ok', 'datamash -t, -H sum 2 sum 3 < data/runs.csv', 'sum(errors)=0 sum(failures)=0'],
  ['datamash', 'invalid-numeric-shown', 'fail', 'datamash -t, -H sum 2 < data/sales.csv', 'datamash error with exit 1'],
  // ---------------- units ----------------
  ['units', 'conformability-chain', 'fail', 'units -t "3 meters" "seconds"; echo converted', 'conformability error, nothing converted'],
  ['units', 'convert-ok', 'ok', 'units -t "100 km/hour" "m/s"', 'plain conversion'],
  // ---------------- cppcheck ----------------
  ['cppcheck', 'errors-exit0', 'fail', 'cppcheck --quiet c/leak.c', 'cppcheck reports error: array index out of bounds / leak, exits 0 by default'],
  ['cppcheck', 'errors-chain', 'fail', 'cppcheck --enable=warning c/leak.c; echo "static analysis done"', 'cppcheck errors then echo'],
  ['cppcheck', 'clean-ok', 'ok', 'cppcheck --enable=warning c/clean.c', 'Checking c/clean.c ... no findings'],
  ['cppcheck', 'help-ok', 'ok', 'cppcheck --help | grep -i -m5 "error"', 'help text lines about --error-exitcode etc.'],
  ['cppcheck', 'errors-shown', 'fail', 'cppcheck --error-exitcode=2 --quiet c/leak.c', 'findings with exit 2 shown'],
  // ---------------- clang-tidy ----------------
  ['clang-tidy', 'compile-error-tail', 'fail', 'clang-tidy c/broken.c -- 2>&1 | tail -n 3', 'compiler error, tidy could not analyse'],
  ['clang-tidy', 'warnings-as-errors-chain', 'fail', 'clang-tidy -checks="-*,clang-analyzer-*" -warnings-as-errors="*" c/uninit.c --; echo "tidy clean"', 'uninitialized value returned, reported as error'],
  ['clang-tidy', 'style-warning-ok', 'ok', 'clang-tidy -checks="-*,readability-braces-around-statements" c/style.c --', 'style-only warnings, N warnings generated'],
  // ---------------- dynamic linking ----------------
  ['dynlink', 'ldd-not-found', 'fail', 'ldd bin/app', 'libh2foo.so => not found: the binary cannot start, ldd exits 0'],
  ['dynlink', 'run-missing-lib-chain', 'fail', './bin/app; echo "smoke test passed"', 'error while loading shared libraries, exit 127 hidden'],
  ['dynlink', 'readelf-needed-ok', 'ok', 'readelf -d bin/okapp | grep NEEDED', 'NEEDED libc.so.6'],
  // ---------------- binutils ----------------
  ['binutils', 'objdump-not-object-chain', 'fail', 'objdump -d data/rows.csv | head -n 5; echo disassembled', 'file format not recognized'],
  ['binutils', 'strip-missing-chain', 'fail', 'strip -o /tmp/h2-app-stripped bin/app-release; echo stripped', 'strip: no such file'],
  ['binutils', 'nm-symbols-ok', 'ok', 'nm bin/okapp | grep " T "', 'symbols report_error / handle_failure'],
  // ---------------- patchelf ----------------
  ['patchelf', 'not-elf-chain', 'fail', 'patchelf --set-rpath "\\$ORIGIN/lib" data/rows.csv; echo patched', 'not an ELF executable'],
  ['patchelf', 'print-needed-ok', 'ok', 'patchelf --print-needed bin/app', 'prints libh2foo.so, libc.so.6'],
  // ---------------- age ----------------
  ['age', 'wrong-key-chain', 'fail', 'age -d -i keys/other.txt -o /tmp/h2-rows.csv data/secret.age; echo decrypted', 'no identity matched, nothing decrypted'],
  ['age', 'decrypt-ok', 'ok', 'age -d -i keys/me.txt data/secret.age', 'decrypted CSV quoting failed/Error rows'],
  ['age', 'wrong-key-shown', 'fail', 'age -d -i keys/other.txt data/secret.age', 'age error with exit 1'],
  // ---------------- certtool (gnutls) ----------------
  ['certtool', 'not-cert-chain', 'fail', 'certtool --certificate-info --infile data/rows.csv; echo "cert inspected"', 'import error: not a certificate'],
  ['certtool', 'verify-unknown-issuer-tail', 'fail', 'certtool --verify --load-ca-certificate data/ca2.pem --infile data/cert.pem 2>&1 | tail -n 2', 'chain not verified: issuer unknown'],
  ['certtool', 'info-ok', 'ok', 'certtool --certificate-info --infile data/cert.pem | head -n 12', 'certificate details'],
  // ---------------- PNG / JPEG / GIF tools ----------------
  ['pngcheck', 'truncated-chain', 'fail', 'pngcheck img/trunc.png; echo "images checked"', 'truncated PNG reported as error'],
  ['pngcheck', 'ok', 'ok', 'pngcheck -v img/good.png', 'No errors detected'],
  ['pngcheck', 'truncated-shown', 'fail', 'pngcheck img/trunc.png', 'pngcheck error with exit code'],
  ['optipng', 'truncated-tail', 'fail', 'optipng -o2 -out /tmp/h2-trunc.png img/trunc.png 2>&1 | tail -n 2', 'optipng cannot read truncated PNG'],
  ['optipng', 'ok', 'ok', 'optipng -o1 -out /tmp/h2-opt.png img/good.png', 'optimisation report'],
  ['jpegoptim', 'not-jpeg-chain', 'fail', 'jpegoptim --dest=/tmp img/fake.jpg; echo optimized', 'not a JPEG, nothing optimised'],
  ['jpegoptim', 'ok', 'ok', 'mkdir -p /tmp/h2-jpg && jpegoptim --dest=/tmp/h2-jpg img/good.jpg', 'optimised or skipped summary'],
  ['gifsicle', 'not-gif-chain', 'fail', 'gifsicle -O2 img/fake.gif -o /tmp/h2-out.gif; echo optimized', 'file not in GIF format'],
  ['gifsicle', 'info-ok', 'ok', 'gifsicle --info img/good.gif', 'GIF info'],
  // ---------------- bmake ----------------
  ['bmake', 'compile-fail-chain', 'fail', 'cd bmk && bmake; echo built', 'cc error, *** Error code, Stop'],
  ['bmake', 'ignore-errors-flag', 'fail', 'cd bmk && bmake -i', 'bmake -i: compile error ignored, app never built'],
  ['bmake', 'ignored-optional-ok', 'ok', 'cd bmkok && bmake', 'optional cache test fails (ignored), build complete'],
  // ---------------- ant ----------------
  ['ant', 'compile-fail-tail', 'fail', 'ant -f ant/build.xml 2>&1 | tail -n 5', 'javac error, BUILD FAILED'],
  ['ant', 'exec-ignored-ok', 'ok', 'ant -f antok/build.xml', 'optional exec Result: 1 ignored, BUILD SUCCESSFUL'],
  ['ant', 'compile-fail-shown', 'fail', 'ant -q -f ant/build.xml', 'BUILD FAILED with exit 1'],
  // ---------------- Erlang ----------------
  ['erlang', 'escript-badmatch-chain', 'fail', 'escript erl/crash.escript; echo "config loaded"', 'badmatch {error,enoent}, config never loaded'],
  ['erlang', 'spawned-crash', 'fail', 'escript erl/spawn.escript', 'worker process crashed (error report), script still exits 0'],
  ['erlang', 'caught-badarg-ok', 'ok', 'escript erl/catch.escript', 'bad port caught, default used'],
  ['erlang', 'erlc-warning-ok', 'ok', 'mkdir -p /tmp/h2-beam && erlc -o /tmp/h2-beam erl/warn.erl', 'Warning: variable Unused is unused; compiled'],
  ['erlang', 'erlc-syntax-chain', 'fail', 'mkdir -p /tmp/h2-beam && erlc -o /tmp/h2-beam erl/bad.erl; echo compiled', 'syntax error, no beam'],
  ['erlang', 'escript-shown', 'fail', 'escript erl/crash.escript', 'escript exception with non-zero exit'],
  // ---------------- Django ----------------
  ['django', 'check-ok', 'ok', 'cd dj && python3 manage.py check', 'System check identified no issues (0 silenced)'],
  ['django', 'migrate-ok', 'ok', 'cd dj && python3 manage.py migrate', 'Applying ... OK lines'],
  ['django', 'help-check-ok', 'ok', 'cd dj && python3 manage.py help check | head -n 20', 'help text of check (--fail-level ERROR ...)'],
  // ---------------- sqlite-utils ----------------
  ['sqlite-utils', 'bad-json-chain', 'fail', 'sqlite-utils insert /tmp/h2-u.db jobs data/jobs-bad.json; echo imported', 'invalid JSON, nothing inserted'],
  ['sqlite-utils', 'query-failed-rows-ok', 'ok', 'sqlite-utils insert /tmp/h2-u2.db jobs data/jobs.json --pk id && sqlite-utils query /tmp/h2-u2.db "select * from jobs where status = \'failed\'"', 'rows with Error messages as data'],
  ['sqlite-utils', 'no-table-head', 'fail', 'sqlite-utils query /tmp/h2-u3.db "select * from jobs" 2>&1 | head -n 3', 'no such table: jobs'],
  // ---------------- csvkit ----------------
  ['csvkit', 'csvcut-bad-column-chain', 'fail', 'csvcut -c total data/rows.csv > /tmp/h2-cut.csv; echo extracted', 'column total is invalid, empty output'],
  ['csvkit', 'csvlook-ragged-head', 'fail', 'csvlook data/ragged.csv | head -n 5', 'ragged row error'],
  ['csvkit', 'csvstat-ok', 'ok', 'csvstat -c status data/rows.csv', 'stats listing the failed value'],
  ['csvkit', 'csvsql-ok', 'ok', 'csvsql --query "select status, count(*) as n from rows group by status" data/rows.csv', 'failed,1 ok,2'],
  // ---------------- httpie ----------------
  ['httpie', 'refused-chain', 'fail', 'http --timeout 3 :18739/health; echo "health check sent"', 'connection refused'],
  // ---------------- mkdocs ----------------
  ['mkdocs', 'broken-link-warning-ok', 'ok', 'cd mk && mkdocs build -d /tmp/h2-site', 'WARNING about a missing link target, site built'],
  ['mkdocs', 'strict-tail', 'fail', 'cd mk && mkdocs build --strict -d /tmp/h2-site2 2>&1 | tail -n 2', 'aborted in strict mode'],
  ['mkdocs', 'bad-theme-chain', 'fail', 'cd mkbad && mkdocs build -d /tmp/h2-site3; echo "docs built"', 'unrecognised theme, aborted'],
  // ---------------- sphinx ----------------
  ['sphinx', 'toctree-warning-ok', 'ok', 'sphinx-build -q -b html sph /tmp/h2-sph', 'WARNING: toctree references a missing document, built'],
  ['sphinx', 'warning-as-error-tail', 'fail', 'sphinx-build -q -W -b html sph /tmp/h2-sph-w 2>&1 | tail -n 3', 'warning treated as error, build stopped'],
  ['sphinx', 'conf-error-chain', 'fail', 'sphinx-build -q -b html sphbad /tmp/h2-sphbad; echo "docs built"', 'conf.py import error, no build'],
  ['sphinx', 'clean-build-ok', 'ok', 'sphinx-build -b html sphok /tmp/h2-sphok', 'verbose success log ending in build succeeded'],
  ['sphinx', 'warning-as-error-shown', 'fail', 'sphinx-build -q -W -b html sph /tmp/h2-sph-w2', 'warning as error with exit 1'],
  // ---------------- check-jsonschema ----------------
  ['check-jsonschema', 'invalid-chain', 'fail', 'check-jsonschema --schemafile data/schema.json data/cfg-bad.json; echo validated', 'port is not an integer'],
  ['check-jsonschema', 'ok', 'ok', 'check-jsonschema --schemafile data/schema.json data/cfg.json', 'ok -- validation done'],
  // ---------------- alembic ----------------
  ['alembic', 'upgrade-ok', 'ok', 'cd almok && alembic upgrade head', 'INFO lines: running upgrade -> a1, create job_errors'],
  ['alembic', 'upgrade-fail-tail', 'fail', 'cd albad && alembic upgrade head 2>&1 | tail -n 3; echo "schema migrated"', 'OperationalError no such table, migration b2 not applied'],
  // ---------------- sqlfluff ----------------
  ['sqlfluff', 'lint-violations-chain', 'fail', 'sqlfluff lint --dialect ansi sql/bad.sql; echo "sql linted"', 'lint violations'],
  ['sqlfluff', 'lint-ok', 'ok', 'sqlfluff lint --dialect ansi sql/good.sql', 'All Finished'],
  ['sqlfluff', 'parse-error-tail', 'fail', 'sqlfluff parse --dialect ansi sql/broken.sql 2>&1 | tail -n 4', 'unparsable SQL'],
  // ---------------- twine ----------------
  ['twine', 'check-ok', 'ok', 'twine check twok/dist/*', 'PASSED'],
  // ---------------- ansible ----------------
  ['ansible', 'syntax-check-chain', 'fail', 'ansible-playbook -i localhost, ans/bad.yml --syntax-check; echo "syntax ok"', 'unknown module copyy'],
  ['ansible', 'task-failed-tail', 'fail', 'ansible-playbook -i localhost, -c local ans/fail.yml | tail -n 4', 'copy task failed, recap failed=1'],
  ['ansible', 'task-failed-shown', 'fail', 'ansible-playbook -i localhost, -c local ans/fail.yml', 'fatal with exit 2 shown'],
  // ---------------- webpack ----------------
  ['webpack', 'module-not-found-tail', 'fail', 'cd wp && webpack 2>&1 | tail -n 4', 'Module not found, compiled with 1 error'],
  ['webpack', 'module-not-found-shown', 'fail', 'cd wp && webpack --stats errors-only', 'error with exit 1 shown'],
  // ---------------- postcss / svgo / html-minifier ----------------
  ['postcss', 'no-plugins-ok', 'ok', 'postcss css/good.css -o /tmp/h2-good.css && cat /tmp/h2-good.css', 'no-plugin warning, css copied with .error rules'],
  ['svgo', 'parse-error-chain', 'fail', 'svgo img/bad.svg -o /tmp/h2-bad.svg; echo optimized', 'SVG parse error'],
  ['svgo', 'ok', 'ok', 'svgo img/good.svg -o /tmp/h2-good.svg', 'Done in N ms, size saving'],
  ['html-minifier', 'parse-error-chain', 'fail', 'html-minifier-terser --collapse-whitespace web/bad.html -o /tmp/h2-min.html; echo minified', 'Parse Error, no output'],
  ['html-minifier', 'ok', 'ok', 'html-minifier-terser --collapse-whitespace web/good.html', 'minified html with error-banner class'],
  // ---------------- concurrently / npm-run-all ----------------
  ['concurrently', 'success-first-hides', 'fail', 'concurrently --success first -n build,migrate "node -e \\"setTimeout(() => console.log(\'built 12 modules\'), 100)\\"" "node -e \\"setTimeout(() => { console.error(\'migrate: relation users does not exist\'); process.exit(1) }, 600)\\""', 'migrate failed, --success first exits 0'],
  ['concurrently', 'kill-others-ok', 'ok', 'concurrently -k --success first -n server,test "node -e \\"setInterval(() => {}, 1000)\\"" "node -e \\"setTimeout(() => console.log(\'3 passing, 0 failing\'), 300)\\""', 'tests passed, server killed by SIGTERM as intended'],
  ['concurrently', 'failed-child-shown', 'fail', 'concurrently -n build,migrate "node -e \\"console.log(\'built\')\\"" "node -e \\"console.error(\'migrate failed\'); process.exit(1)\\""', 'one child failed, exit 1'],
  ['npm-run-all', 'continue-on-error-tail', 'fail', 'cd nra && npm-run-all --continue-on-error lint build 2>&1 | tail -n 6', 'lint failed, build ran, summary error hidden by tail'],
  // ---------------- JS test runners ----------------
  ['jasmine', 'fail-chain', 'fail', 'jasmine js/jas/fail.spec.js; echo "specs done"', '1 failure'],
  ['jasmine', 'ok', 'ok', 'jasmine js/jas/ok.spec.js', 'expected throw, 0 failures'],
  ['jasmine', 'fail-shown', 'fail', 'jasmine js/jas/fail.spec.js', '1 failure with exit 3'],
  ['qunit', 'fail-tail', 'fail', 'qunit js/qunit/fail.test.js 2>&1 | tail -n 5', 'not ok in TAP'],
  ['qunit', 'ok', 'ok', 'qunit js/qunit/ok.test.js', 'throws assertion passes'],
  // ---------------- logrotate ----------------
  ['logrotate', 'bad-option-chain', 'fail', 'logrotate -s /tmp/h2-lr.state lr/bad.conf; echo "logs rotated"', 'unknown option rotat, nothing rotated'],
  ['logrotate', 'debug-missingok-ok', 'ok', 'logrotate -d -s /tmp/h2-lr.state lr/ok.conf', 'debug dry run, absent log skipped (missingok)'],
  // ---------------- iproute2 ----------------
  ['iproute2', 'missing-dev-chain', 'fail', 'ip link set dev h2eth9 up; echo "interface up"', 'Cannot find device'],
  ['iproute2', 'stats-ok', 'ok', 'ip -s link show lo', 'RX/TX errors 0 dropped 0 counters'],
  // ---------------- more hard negatives / cases ----------------
  ['tcl', 'catch-demo-ok', 'ok', 'echo \'puts [catch {error "disk full"} msg]; puts "caught: $msg"\' | tclsh', 'demonstrates catching an error: prints 1 and caught: disk full'],
  ['strace', 'enoent-probes-ok', 'ok', 'strace -e trace=openat,access cat data/rows.csv 2>&1 | head -n 12', 'library probes with ENOENT, cat succeeds'],
  ['ansible', 'doc-fail-module-ok', 'ok', 'ansible-doc ansible.builtin.fail | head -n 15', 'documentation of the fail module'],
  ['django', 'test-expected-error-ok', 'ok', 'cd dj && python3 manage.py test shop', 'test logs an expected error, OK'],
  ['csvkit', 'csvgrep-failed-ok', 'ok', 'csvgrep -c status -m failed data/rows.csv', 'selects the failed row (data)'],
  ['webpack', 'help-ok', 'ok', 'webpack --help | grep -i -m4 "fail\\|error"', 'help text lines mentioning bail/fail'],
  // ---------------- replacements, written after the first recording for cases that did not do what was intended ----------------
  ['django', 'check-fk-error-chain', 'fail', 'cd dj && DJANGO_SETTINGS_MODULE=site_cfg.settings_bad python3 manage.py check; echo "checks done"', 'fields.E300: FK to a model that does not exist'],
  ['django', 'check-fk-error-shown', 'fail', 'cd dj && DJANGO_SETTINGS_MODULE=site_cfg.settings_bad python3 manage.py check', 'SystemCheckError with exit 1'],
  ['django', 'makemigrations-app-check-chain', 'fail', 'cd dj && DJANGO_SETTINGS_MODULE=site_cfg.settings_pending python3 manage.py makemigrations --check --dry-run billing; echo "migrations up to date"', 'missing migration for billing'],
  ['httpie', 'not-found-exit0-stdin', 'fail', `${serve(18741)} http --ignore-stdin --print=hb :18741/config/app.json; kill $srv`, 'HTTP 404, httpie exits 0 without --check-status'],
  ['httpie', 'get-ok-stdin', 'ok', `${serve(18742)} http --ignore-stdin --print=b :18742/status.json; kill $srv`, 'JSON body with errors: 0'],
  ['httpie', 'not-found-shown-stdin', 'fail', `${serve(18743)} http --ignore-stdin --check-status --print=h :18743/config/app.json; rc=$?; kill $srv; exit $rc`, '404 with --check-status, exit 4'],
  ['httpie', 'offline-request-ok-stdin', 'ok', 'http --ignore-stdin --offline POST example.org/jobs status=failed error="timeout after 30s"', 'prints the request it would send'],
  ['ansible', 'ignore-errors-interp-ok', 'ok', 'ansible-playbook -i localhost, -c local -e ansible_python_interpreter="$(python3 -c "import sys; print(sys.executable)")" ans/ignore.yml', 'ls fails, ...ignoring, recap failed=0 ignored=1'],
  ['ansible', 'adhoc-failed-interp-chain', 'fail', 'ansible localhost -i localhost, -c local -e ansible_python_interpreter="$(python3 -c "import sys; print(sys.executable)")" -m command -a "ls /nonexistent/releases"; echo "releases listed"', 'FAILED rc=2 hidden by echo'],
  ['twine', 'check-rst-fail-head', 'fail', 'twine check twbad/dist/* 2>&1 | head -n 4', 'FAILED, long_description has syntax errors'],
  ['webpack', 'mode-warning-ok', 'ok', 'cd wpmode && webpack', 'WARNING: mode option not set, compiled with 1 warning'],
  ['uvu', 'fail-tail-linked', 'fail', 'uvu js/uvu-fail 2>&1 | tail -n 6', 'one assertion failed'],
  ['uvu', 'ok-linked', 'ok', 'uvu js/uvu-ok', 'tests about errors all pass'],
  ['gdb', 'info-functions-named-ok', 'ok', 'gdb -batch -ex "info functions report_error" -ex "info functions handle_failure" bin/okapp', 'symbol listing report_error / handle_failure'],
];

