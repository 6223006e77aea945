// Held-out silent-failure set #3: tools in NONE of corpus/silent, heldout-cases.mjs
// and heldout2-cases.mjs, recorded outside the repo by REALLY running each
// command; nobody tunes on it. It is measured once before the loops/shell work
// of issues 21/22 and once after (the lead's measurement). Tools to install:
// the header of heldout3-files.mjs.
//   node scripts/record/record-silent-corpus.mjs --cases=scripts/record/silent-corpus/heldout3-cases.mjs \
//     --files=scripts/record/silent-corpus/heldout3-files.mjs --scratch=/work/heldout3/scratch --out=/work/heldout3/corpus
//   node scripts/eval/silent.eval.mjs --corpus /work/heldout3/corpus
// Same format as scripts/record/silent-corpus/cases.mjs: [family, id, meaning, command, note];
// meaning ('fail' | 'ok') is the human judgement of what the command did,
// written BEFORE recording (the recorder turns a 'fail' whose exit status was
// non-zero into a shown failure).
const bg = (cmd, port) => `${cmd} >/tmp/h3-srv-${port}.log 2>&1 & srv=$!; for i in $(seq 30); do curl -s -o /dev/null 127.0.0.1:${port} && break; sleep 0.3; done;`;
const end = ' kill $srv 2>/dev/null; wait $srv 2>/dev/null; true';
export const cases = [
  // ---------------- zsh / fish / busybox (a shell's own `prog: message`) ----------------
  ['zsh', 'bg-missing-logdir', 'fail', `zsh -c 'sleep 1 > logs/worker.log 2>&1 & echo "Started worker"'`, 'log directory missing: the job never started, "Started" printed anyway'],
  ['zsh', 'cd-missing-chain', 'fail', `zsh -c 'cd build/out; ls'`, 'cd failed, ls listed the wrong directory'],
  ['zsh', 'glob-nomatch-chain', 'fail', `zsh -c 'rm reports/*.tmp; echo cleaned'`, 'zsh: no matches found, nothing removed'],
  ['zsh', 'ok', 'ok', `zsh -c 'for f in data/*.csv; do echo "checked $f: 0 errors"; done'`, 'plain loop output mentioning errors'],
  ['fish', 'syntax-chain', 'fail', 'fish sh/deploy.fish; echo "deploy finished"', 'fish: Missing end, script never ran'],
  ['fish', 'probe-ok', 'ok', 'fish sh/probe.fish', 'deliberate existence probe, prints "missing, using defaults"'],
  ['busybox', 'wget-404-chain', 'fail', `${bg('python3 -m http.server 8931 -d www', 8931)} busybox wget -q -O /tmp/h3-page.html http://127.0.0.1:8931/report.html; echo fetched;${end}`, 'server returned error: HTTP 404, nothing fetched'],
  ['busybox', 'unzip-missing-chain', 'fail', 'busybox unzip -o dist/site.zip -d /tmp/h3-site; echo unpacked', 'archive missing, nothing unpacked'],
  ['busybox', 'wget-ok', 'ok', `${bg('python3 -m http.server 8932 -d www', 8932)} busybox wget -q -O - http://127.0.0.1:8932/index.html;${end}`, 'page fetched'],
  // ---------------- XML / HTML ----------------
  ['xmlstarlet', 'val-chain', 'fail', 'xmlstarlet val -e xml/bad.xml; echo "config validated"', 'XML not well-formed'],
  ['xmlstarlet', 'sel-bad-tail', 'fail', 'xmlstarlet sel -t -v "//server/@port" xml/bad.xml 2>&1 | tail -n 3', 'parse error, no value selected'],
  ['xmlstarlet', 'sel-errors-ok', 'ok', `xmlstarlet sel -t -m '//entry[@level="error"]' -v . -n xml/ok.xml`, 'prints the stored error entries: the data asked for'],
  ['xsltproc', 'bad-xsl-chain', 'fail', 'xsltproc xml/bad.xsl xml/ok.xml > /tmp/h3-out.txt; echo "report written"', 'stylesheet does not compile, report empty'],
  ['xsltproc', 'ok', 'ok', 'xsltproc xml/list.xsl xml/ok.xml', 'lists log entries, one is "error: disk full"'],
  ['tidy', 'errors-tail', 'fail', 'tidy -q -e html/bad.html 2>&1 | tail -n 3', 'tidy reports errors (exit 2), hidden by tail'],
  ['tidy', 'errors-or-true', 'fail', 'tidy -q -o /tmp/h3-clean.html html/bad.html || true', 'malformed HTML, tidy errors'],
  ['tidy', 'ok', 'ok', 'tidy -q html/ok.html | grep -i error', 'clean page whose text is an error message'],
  // ---------------- assembler / parser generators / protobuf ----------------
  ['nasm', 'bad-chain', 'fail', 'nasm -f elf64 asm/bad.asm -o /tmp/h3-bad.o; echo assembled', 'parser: instruction expected, no object file'],
  ['nasm', 'warn-ok', 'ok', 'nasm -f elf64 asm/warn.asm -o /tmp/h3-warn.o && echo assembled', 'warning: byte data exceeds bounds, object written'],
  ['nasm', 'ok', 'ok', 'nasm -f elf64 asm/ok.asm -o /tmp/h3-ok.o && ls -l /tmp/h3-ok.o | wc -l', 'assembled'],
  ['bison', 'undefined-tail', 'fail', 'bison -o /tmp/h3-p.c parser/bad.y 2>&1 | tail -n 4', 'symbol used but not defined, no parser'],
  ['bison', 'conflict-ok', 'ok', 'bison -o /tmp/h3-c.c parser/conflict.y && echo generated', 'shift/reduce conflict warning, parser generated'],
  ['flex', 'bad-chain', 'fail', 'flex -o /tmp/h3-lex.c lexer/bad.l; echo "scanner generated"', 'unbalanced braces / premature EOF'],
  ['protoc', 'undefined-type-chain', 'fail', 'mkdir -p /tmp/h3-pb && protoc --python_out=/tmp/h3-pb proto/bad.proto; echo "stubs generated"', '"Status" is not defined'],
  ['protoc', 'ok', 'ok', 'mkdir -p /tmp/h3-pb && protoc --python_out=/tmp/h3-pb proto/ok.proto && ls /tmp/h3-pb/proto/ && echo "ErrorCode compiled"', 'enum ErrorCode compiled'],
  // ---------------- archives / encodings ----------------
  ['brotli', 'corrupt-chain', 'fail', 'brotli -d -f data/corrupt.br -o /tmp/h3-out.txt; echo decompressed', 'corrupt input'],
  ['brotli', 'ok', 'ok', 'brotli -d -c data/hello.txt.br', 'hello world'],
  ['lzip', 'bad-tail', 'fail', 'lzip -t data/bad.lz 2>&1 | tail -n 1', 'bad/truncated member, integrity test fails'],
  ['lzip', 'ok', 'ok', 'lzip -tv data/good.lz', 'ok'],
  ['dos2unix', 'missing-chain', 'fail', 'dos2unix data/crlf-missing.txt; echo converted', 'no such file, nothing converted'],
  ['dos2unix', 'binary-skip', 'fail', 'dos2unix data/blob.bin; echo converted', 'binary file skipped, not converted'],
  ['dos2unix', 'ok', 'ok', 'dos2unix -n data/crlf.txt /tmp/h3-lf.txt', 'converting file … to file …'],
  ['moreutils', 'isutf8-chain', 'fail', 'isutf8 data/latin1.txt; echo "encoding checked"', 'invalid UTF-8 found'],
  ['moreutils', 'errno-ok', 'ok', 'errno ENOENT; errno EACCES', 'looks up error names: the answer is the content'],
  ['moreutils', 'chronic-fail-chain', 'fail', `chronic sh -c 'echo "step 1"; echo "error: fixture db missing" >&2; exit 3'; echo "tests quiet"`, 'chronic shows output only because the command failed'],
  ['moreutils', 'chronic-ok', 'ok', `chronic sh -c 'echo "verbose progress"; exit 0' && echo "0 errors"`, 'quiet success'],
  ['parallel', 'one-fails-tail', 'fail', 'parallel gzip -t ::: data/a.gz data/b.gz 2>&1 | tail -n 2', 'one archive not in gzip format, exit status hidden'],
  ['parallel', 'ok', 'ok', 'parallel echo "job {}: 0 failures" ::: 1 2', 'jobs ran'],
  // ---------------- data ----------------
  ['miller', 'ragged-chain', 'fail', 'mlr --icsv --ojson cat data/ragged.csv; echo converted', 'header/data length mismatch'],
  ['miller', 'filter-errors-ok', 'ok', `mlr --icsv --opprint filter '$level == "ERROR"' data/jobs.csv`, 'selects the ERROR rows that were asked for'],
  ['jsonlint', 'bad-chain', 'fail', 'jsonlint -q data/bad.json; echo "config valid"', 'parse error on line 1'],
  ['jsonlint', 'ok', 'ok', 'jsonlint data/ok.json', 'valid JSON with errors/failed keys'],
  // ---------------- VCS / patches ----------------
  ['hg', 'push-no-default-chain', 'fail', 'cd hgrepo && hg push; echo pushed', 'abort: default repository not configured'],
  ['hg', 'log-ok', 'ok', 'cd hgrepo && hg log --template "{desc}\\n"', 'commit message mentions a crash and TypeError'],
  ['svn', 'unreachable-tail', 'fail', 'svn info http://127.0.0.1:1/repo 2>&1 | tail -n 2', 'E170013 unable to connect'],
  ['svn', 'update-missing-wc', 'fail', 'svn update nowc; echo updated', 'not a working copy, skipped'],
  ['svn', 'log-ok', 'ok', 'svn log file://$PWD/svnrepo | grep -i -B2 error', 'commit message about errors'],
  ['quilt', 'no-series-chain', 'fail', 'cd qproj && quilt push -a; echo "patches applied"', 'no series file, no patch applied'],
  // ---------------- network tools ----------------
  ['socat', 'refused-chain', 'fail', 'echo ping | socat - TCP:127.0.0.1:1; echo sent', 'connection refused'],
  ['socat', 'ok', 'ok', `${bg('python3 -m http.server 8933 -d www', 8933)} printf 'GET /index.html HTTP/1.0\\r\\n\\r\\n' | socat - TCP:127.0.0.1:8933 | head -n 1;${end}`, 'HTTP/1.0 200 OK'],
  ['expect', 'spawn-missing-chain', 'fail', `expect -c 'spawn ./deploy.sh; expect eof'; echo "deploy driven"`, "couldn't execute ./deploy.sh"],
  ['expect', 'timeout-silent', 'fail', `expect -c 'set timeout 1; spawn sh -c "sleep 3"; expect "Password:" { send "x\\r" } timeout { puts "login prompt never appeared" }'`, 'expect timed out, prompt never answered; exits 0'],
  ['expect', 'ok', 'ok', `expect -c 'spawn sh -c "echo Error count: 0"; expect "count: 0"; puts "\\nchecked"'`, 'matched the expected line'],
  // ---------------- Python test runners / linters ----------------
  ['behave', 'fail-tail', 'fail', 'cd bdd && behave --no-color 2>&1 | tail -n 5', '1 scenario failed, exit hidden by tail'],
  ['behave', 'fail-or-true', 'fail', 'cd bdd && behave --no-color -f progress || true', 'failing scenario'],
  ['behave', 'ok', 'ok', 'cd bddok && behave --no-color', 'passing feature about error counts'],
  ['nose2', 'fail-tail', 'fail', 'nose2 -s nose 2>&1 | tail -n 3', 'FAILED (failures=1) behind tail'],
  ['nose2', 'ok', 'ok', 'nose2 -v -s noseok 2>&1', 'test_raises_value_error ... ok'],
  ['robot', 'fail-tail', 'fail', 'robot --output NONE --report NONE --log NONE robot/ | tail -n 4', '2 tests, 1 passed, 1 failed'],
  ['robot', 'ok', 'ok', 'robot --output NONE --report NONE --log NONE robotok/', 'passing suite with an expected-error keyword'],
  ['bandit', 'findings-chain', 'fail', 'bandit -q py/vuln.py; echo "security scan done"', 'shell=True and hard-coded password findings'],
  ['bandit', 'ok', 'ok', 'bandit -q py/clean.py && echo "no issues"', 'clean'],
  ['pyflakes', 'head', 'fail', 'pyflakes py/unused.py | head -n 5', 'unused imports and undefined name'],
  ['pycodestyle', 'or-true', 'fail', 'pycodestyle py/style.py || true', 'E201/E231/E225 style errors'],
  ['vulture', 'chain', 'fail', 'vulture py/unused.py; echo "dead code check done"', 'unused imports and function found'],
  ['coverage', 'crash-chain', 'fail', 'coverage run py/crash.py; echo "coverage collected"', 'JSONDecodeError traceback, nothing measured'],
  ['coverage', 'ok', 'ok', 'coverage run py/report.py && coverage report | tail -n 1', 'processed 3 items, 0 errors; TOTAL 100%'],
  ['pyright', 'errors-tail', 'fail', 'pyright py/typed.py | tail -n 2', 'type errors, exit hidden by tail'],
  ['pyright', 'ok', 'ok', 'pyright py/typed_ok.py', '0 errors, 0 warnings'],
  // ---------------- Python servers and tasks ----------------
  ['flask', 'api-404', 'fail', `${bg('flask --app web/app run --port 8934', 8934)} curl -s 127.0.0.1:8934/api/items/9;${end}`, 'API answered {"error": "item 9 not found"} with 404, curl exit 0'],
  ['flask', 'api-500', 'fail', `${bg('flask --app web/app run --port 8935', 8935)} curl -s -X POST 127.0.0.1:8935/api/jobs | head -n 3;${end}`, '500 Internal Server Error page, job not created'],
  ['flask', 'health-ok', 'ok', `${bg('flask --app web/app run --port 8936', 8936)} curl -s 127.0.0.1:8936/api/health;${end}`, 'status ok, errors 0, failed_jobs []'],
  ['flask', 'import-error-bg', 'fail', `(flask --app web/broken run --port 8937 > /tmp/h3-flask.log 2>&1 &); sleep 3; echo "server started"; cat /tmp/h3-flask.log`, 'server never started: import error'],
  ['gunicorn', 'port-busy-tail', 'fail', `${bg('python3 -m http.server 8938 -d www', 8938)} timeout 20 gunicorn --chdir web -b 127.0.0.1:8938 app:app 2>&1 | tail -n 3;${end}`, 'Connection in use, cannot bind'],
  ['gunicorn', 'boot-fail-tail', 'fail', 'timeout 20 gunicorn --chdir web -b 127.0.0.1:8939 broken:app 2>&1 | tail -n 3', 'worker failed to boot: ModuleNotFoundError'],
  ['uvicorn', 'port-busy-chain', 'fail', `${bg('python3 -m http.server 8940 -d www', 8940)} timeout 20 uvicorn --app-dir web api:app --port 8940; echo "api up";${end}`, 'address already in use'],
  ['uvicorn', 'api-404', 'fail', `${bg('uvicorn --app-dir web api:app --port 8941', 8941)} curl -s 127.0.0.1:8941/v1/users/7;${end}`, '{"detail":"User not found"}'],
  ['uvicorn', 'ok', 'ok', `${bg('uvicorn --app-dir web api:app --port 8942', 8942)} curl -s 127.0.0.1:8942/v1/users/1;${end}`, 'user with last_error null'],
  ['invoke', 'task-fail-chain', 'fail', 'invoke -r tasks build; echo "build step done"', 'build: missing src/main.c, task failed'],
  ['invoke', 'list-ok', 'ok', 'invoke -r tasks --list && invoke -r tasks check-errors', 'task named check-errors, error budget 0 of 5 used'],
  // ---------------- JavaScript / TypeScript ----------------
  ['ava', 'fail-tail', 'fail', 'cd js && ava 2>&1 | tail -n 4', '1 test failed behind tail'],
  ['ava', 'ok', 'ok', 'cd jsok && ava 2>&1', 'throws-on-bad-input passes'],
  ['tape', 'fail-tail', 'fail', 'tape tape/fail.cjs | tail -n 4', '# fail 1'],
  ['tape', 'ok', 'ok', 'tape tape/ok.cjs', 'invalid JSON throws SyntaxError: ok'],
  ['tsx', 'crash-chain', 'fail', 'tsx ts/crash.ts; echo "script ran"', 'TypeError: cannot read properties of undefined'],
  ['tsx', 'probe-ok', 'ok', 'tsx ts/probe.ts', 'deliberate probe: expected failure caught'],
  ['c8', 'crash-chain', 'fail', 'c8 --reporter=text-summary node ts/crash.js; echo "coverage ok"', 'TypeError, then a coverage summary'],
  ['biome', 'lint-or-true', 'fail', 'biome lint lint/bad.js || true', 'lint errors found'],
  ['biome', 'ok', 'ok', 'biome lint lint/ok.js', 'Checked 1 file, no fixes'],
  ['http-server', 'missing-404', 'fail', `${bg('http-server www -p 8943 -s', 8943)} curl -s -o /dev/null -w "%{http_code}\\n" 127.0.0.1:8943/app.js;${end}`, '404: the asset was never built'],
  ['http-server', 'ok', 'ok', `${bg('http-server www -p 8944 -s', 8944)} curl -s 127.0.0.1:8944/index.html;${end}`, 'page served'],
];
