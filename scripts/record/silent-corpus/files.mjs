// Source files the corpus commands run on, written into the work directory
// before recording (path → content). Small, each made to produce one real
// behaviour: a crash, a recovered error, a warnings-only build, a failing test.
export const files = {
  // ---------- look-alikes of the HTML error page, child exit status and failure-line signals ----------
  'site/docs.html': `<!doctype html>\n<html lang="en">\n<head><title>Handling 404 errors in Flask</title></head>\n<body>\n<h1>Custom error pages</h1>\n<p>Return your own page when a route is not found: register a handler for 404 Not Found.</p>\n</body>\n</html>\n`,
  'site/404.html': `<!doctype html>\n<html><head><title>404 Not Found</title></head><body><h1>Not Found</h1></body></html>\n`,
  'site/index.html': `<!doctype html>\n<html><head><title>Status board</title></head><body><h1>All systems operational</h1><p>Last incident: 500 Internal Server Error on the API, resolved.</p></body></html>\n`,
  'jobs/run_jobs.py': `import subprocess, sys\nfailed = 0\nfor name, code in [("lint", "pass"), ("test", "import sys; sys.exit(3)"), ("docs", "pass")]:\n    r = subprocess.run([sys.executable, "-c", code])\n    print(f"job {name} finished with exit code {r.returncode}")\n    failed += r.returncode != 0\nprint(f"{failed} of 3 jobs failed")\n`,
  'jobs/run_ok.py': `import subprocess, sys\nfor name in ["lint", "test", "docs"]:\n    r = subprocess.run([sys.executable, "-c", "pass"])\n    print(f"job {name} finished with exit code {r.returncode}")\nprint("exits with code 1 when a job fails; none did")\n`,
  'jobs/check_call.py': `import subprocess\ntry:\n    subprocess.run(["sh", "-c", "exit 2"], check=True)\nexcept subprocess.CalledProcessError as e:\n    print(f"warning: {e}")\nprint("report written")\n`,
  'jobs/upload.sh': `#!/bin/sh\nfor f in a.txt b.txt; do\n  if [ -e "/nonexistent/$f" ]; then echo "uploaded $f"; else echo "Upload of $f skipped"; fi\ndone\necho "Upload failed: 2 of 2 files missing"\n`,
  'jobs/verify.sh': `#!/bin/sh\necho "Verifying 3 uploads"\nfor f in a b c; do echo "  $f: ok"; done\necho "None failed."\n`,
  'jobs/build.sh': `#!/bin/sh\necho "Compiling 4 modules"\necho "module core: ok"\necho "module ui: syntax error at ui.js:3"\necho "Build failed."\nexit 0\n`,
  // ---------- Python ----------
  'py/crash.py': `import json\n\ndef load(text):\n    return json.loads(text)\n\nprint("loading config")\nprint(load(""))\n`,
  'py/keyerror.py': `def lookup(d, k):\n    return d[k]\n\ndef main():\n    cfg = {"name": "site"}\n    print("building", cfg["name"])\n    print(lookup(cfg, "toc"))\n\nmain()\n`,
  'py/typeerror.py': `items = [1, 2, "3"]\nprint("summing", len(items), "items")\nprint(sum(items))\n`,
  'py/attr.py': `class Report:\n    pass\n\nr = Report()\nprint("rendering")\nr.render()\n`,
  'py/chained.py': `import json\ntry:\n    json.loads("{bad")\nexcept ValueError as e:\n    raise RuntimeError("config is invalid") from e\n`,
  'py/syntax.py': `def f(:\n    return 1\n`,
  'py/indent.py': `def f():\nreturn 1\n`,
  'py/sysexit.py': `import sys\nprint("checking")\nsys.exit("error: config file missing")\n`,
  'py/fnf.py': `with open("data/missing.csv") as f:\n    print(f.read())\n`,
  'py/perm.py': `open("/proc/1/mem", "rb").read(1)\n`,
  'py/recursion.py': `def f(n):\n    return f(n + 1)\nf(0)\n`,
  'py/zerodiv.py': `rows = 0\ntotal = 10\nprint("avg:", total / rows)\n`,
  'py/assert.py': `def check(x):\n    assert x > 0, f"expected positive, got {x}"\ncheck(1)\ncheck(-2)\n`,
  'py/importerr.py': `from json import loads, dumpz\n`,
  'py/logged_retry.py': `import logging\nimport time\nlogging.basicConfig()\nattempts = 0\n\ndef fetch():\n    global attempts\n    attempts += 1\n    if attempts == 1:\n        raise ConnectionError("temporary failure, connection reset")\n    return "42 rows"\n\nfor i in range(3):\n    try:\n        print("result:", fetch())\n        break\n    except ConnectionError:\n        logging.exception("attempt %d failed, retrying", i + 1)\n`,
  'py/logged_retry_fmt.py': `import logging\nlogging.basicConfig(format="%(asctime)s %(levelname)s %(name)s: %(message)s", datefmt="%H:%M:%S", level=logging.INFO)\nlog = logging.getLogger("sync")\nfor attempt in range(1, 4):\n    try:\n        if attempt < 2:\n            raise TimeoutError("upstream did not answer in 5s")\n        log.info("sync done on attempt %d: 120 files", attempt)\n        break\n    except TimeoutError:\n        log.exception("attempt %d failed", attempt)\n`,
  'py/handled.py': `import json\nfor text in ['{"a": 1}', '{bad', '{"b": 2}']:\n    try:\n        print("parsed", json.loads(text))\n    except json.JSONDecodeError as e:\n        print(f"warning: skipping invalid record: {e}")\nprint("done: 2 records, 1 skipped")\n`,
  'py/print_exc_continue.py': `import traceback\ndef risky():\n    raise ValueError("optional plugin not configured")\ntry:\n    risky()\nexcept ValueError:\n    print("optional plugin failed to load; continuing without it")\nprint("server ready on :8080")\n`,
  'py/warn.py': `import warnings\nwarnings.warn("the 'foo' option is deprecated", DeprecationWarning, stacklevel=1)\nwarnings.warn("results may be approximate", UserWarning)\nprint("computed 10 values")\n`,
  'py/errors_words.py': `print("Error handling tests: 12 passed")\nprint("errors: 0")\nprint("Failed login attempts in log: 0")\nprint("exception_count=0 warning_count=2")\n`,
  'py/uncaught_thread.py': `import threading\ndef work():\n    raise RuntimeError("worker crashed")\nt = threading.Thread(target=work)\nt.start(); t.join()\nprint("main finished")\n`,
  'py/kbint.py': `raise KeyboardInterrupt\n`,
  'py/custom_exc.py': `class ConfigError(Exception):\n    pass\n\ndef load():\n    raise ConfigError("missing key 'output_dir' in site.toml")\n\nload()\n`,
  'py/subprocess_fail.py': `import subprocess\nsubprocess.run(["false"], check=True)\n`,
  'py/unicode.py': `data = b"\\xff\\xfe bad"\nprint(data.decode("utf-8"))\n`,
  'py/exit0_after_error.py': `import sys\ntry:\n    import yaml_config_loader\nexcept ImportError as e:\n    print(f"ERROR: {e}", file=sys.stderr)\n    print("nothing was generated", file=sys.stderr)\n`,
  'py/tests/test_ok.py': `def test_error_message_is_formatted():\n    assert "Error: x".startswith("Error")\n\ndef test_failed_count_zero():\n    assert 0 == 0\n\ndef test_raises():\n    import pytest\n    with pytest.raises(ZeroDivisionError):\n        1 / 0\n`,
  'py/tests/test_fail.py': `def add(a, b):\n    return a - b\n\ndef test_add():\n    assert add(2, 2) == 4\n\ndef test_ok():\n    assert True\n`,
  'py/tests/test_err.py': `import pytest\n\n@pytest.fixture\ndef db():\n    raise RuntimeError("cannot connect to test database")\n\ndef test_query(db):\n    assert db\n`,
  'py/tests/test_collect.py': `import not_installed_module_xyz\n\ndef test_x():\n    pass\n`,
  'py/ut/test_ut_ok.py': `import unittest\nclass T(unittest.TestCase):\n    def test_error_path(self):\n        with self.assertRaises(ValueError):\n            int("x")\n    def test_ok(self):\n        self.assertEqual(1, 1)\nif __name__ == "__main__":\n    unittest.main()\n`,
  'py/ut/test_ut_fail.py': `import unittest\nclass T(unittest.TestCase):\n    def test_sum(self):\n        self.assertEqual(sum([1, 2]), 4)\n    def test_ok(self):\n        self.assertTrue(True)\nif __name__ == "__main__":\n    unittest.main()\n`,
  'py/ut/test_ut_error.py': `import unittest\nclass T(unittest.TestCase):\n    def test_lookup(self):\n        {}["missing"]\nif __name__ == "__main__":\n    unittest.main()\n`,
  'py/lint_me.py': `import os, sys\ndef f( x ):\n  return x+1\n`,
  // ---------- Node / JS ----------
  'js/crash.js': `const cfg = require('./cfg.json');\nconsole.log('building', cfg.name);\nconsole.log(cfg.pages.map((p) => p.title).join(','));\n`,
  'js/cfg.json': `{"name": "site"}\n`,
  'js/throw.js': `function parse(s) {\n  if (!s.includes('=')) throw new SyntaxError('bad line: ' + s);\n}\nconsole.log('parsing');\nparse('a=1');\nparse('oops');\n`,
  'js/reject.mjs': `console.log('fetching');\nawait Promise.reject(new Error('ECONNREFUSED 127.0.0.1:5432'));\n`,
  'js/unhandled.js': `setTimeout(() => { Promise.reject(new Error('job queue unavailable')); }, 1);\nconsole.log('started');\n`,
  'js/missing.js': `const lib = require('left-pad-not-installed');\nconsole.log(lib('x', 3));\n`,
  'js/esm_missing.mjs': `import { x } from './nope.mjs';\nconsole.log(x);\n`,
  'js/syntax.js': `function f( {\n  return 1;\n}\n`,
  'js/recovered.js': `async function fetchWithRetry() {\n  for (let i = 1; i <= 3; i++) {\n    try {\n      if (i === 1) throw new Error('socket hang up');\n      return 'ok';\n    } catch (e) {\n      console.error(\`attempt \${i} failed:\`, e.message, '- retrying');\n    }\n  }\n}\nfetchWithRetry().then((r) => console.log('result:', r));\n`,
  'js/logged_stack.js': `try {\n  JSON.parse('{bad');\n} catch (e) {\n  console.warn('config.local.json is invalid, using defaults');\n  console.warn(e.stack.split('\\n').slice(0, 2).join('\\n'));\n}\nconsole.log('server listening on 3000');\n`,
  'js/retry_stack.js': `let n = 0;\nfunction call() { if (++n === 1) throw new Error('ETIMEDOUT'); return 'ok'; }\nfor (;;) {\n  try { console.log('result:', call()); break; }\n  catch (e) { console.error('request failed, retrying:', e); }\n}\n`,
  'js/words.js': `console.log('Tests: 0 failed, 14 passed');\nconsole.log('errors: 0, warnings: 3');\nconsole.log('TypeError handling: ok');\nconsole.log('Build succeeded with 0 errors');\n`,
  'js/exitcode.js': `console.error('Error: output directory not writable');\nprocess.exitCode = 0;\n`,
  'js/deprecation.js': `const { Buffer } = require('buffer');\nnew Buffer(4);\nconsole.log('wrote 4 bytes');\n`,
  'js/test/ok.test.js': `const test = require('node:test');\nconst assert = require('node:assert');\ntest('handles error input', () => { assert.throws(() => JSON.parse('{')); });\ntest('adds', () => assert.equal(1 + 1, 2));\n`,
  'js/test/fail.test.js': `const test = require('node:test');\nconst assert = require('node:assert');\ntest('adds', () => assert.equal(1 + 1, 3));\ntest('ok', () => assert.ok(true));\n`,
  'js/jest/sum.test.js': `test('adds', () => { expect(1 + 2).toBe(3); });\ntest('error path throws', () => { expect(() => { throw new Error('x'); }).toThrow('x'); });\n`,
  'js/jestfail/sum.test.js': `test('adds', () => { expect(1 + 2).toBe(4); });\ntest('ok', () => { expect(true).toBe(true); });\n`,
  'js/vitest/sum.test.mjs': `import { test, expect } from 'vitest';\ntest('adds', () => { expect(1 + 2).toBe(3); });\ntest('rejects errors', async () => { await expect(Promise.reject(new Error('boom'))).rejects.toThrow('boom'); });\n`,
  'js/vitestfail/sum.test.mjs': `import { test, expect } from 'vitest';\ntest('adds', () => { expect(1 + 2).toBe(4); });\ntest('ok', () => { expect(1).toBe(1); });\n`,
  'js/mocha/ok.spec.js': `const assert = require('assert');\ndescribe('errors', () => { it('reports 0 failed jobs', () => assert.equal(0, 0)); });\n`,
  'js/mochafail/fail.spec.js': `const assert = require('assert');\ndescribe('math', () => { it('adds', () => assert.equal(1 + 1, 3)); it('ok', () => {}); });\n`,
  'ts/bad.ts': `const n: number = "three";\nfunction f(x: string) { return x.toFixed(2); }\n`,
  'ts/good.ts': `export const errors: string[] = [];\nexport function fail(msg: string): never { throw new Error(msg); }\n`,
  'ts/tsconfig.json': `{"compilerOptions": {"strict": true, "noEmit": true}, "files": ["bad.ts"]}\n`,
  'esb/bad.js': `export const x = {\n  a: 1,\n  b: 2\n;\n`,
  'esb/good.js': `export const msg = "Error: not really";\nconsole.log(msg);\n`,
  'esb/warn.js': `let x = 1;\nif (typeof x === 'undefinedd') console.log(x);\nif (x == -0) console.log('zero');\n`,
  'lint/bad.js': `const unused = 1;\nfunction f() { return undefinedVar + 1 }\n`,
  'lint/good.js': `const errors = [];\nvoid errors;\n`,
  'lint/eslint.config.mjs': `export default [{ rules: { 'no-unused-vars': 'error', 'no-undef': 'error' }, languageOptions: { sourceType: 'script' } }];\n`,
  // ---------- C / C++ ----------
  'c/bad.c': `#include <stdio.h>\nint main(void) {\n    int x = 1\n    printf("%d\\n", x);\n    return y;\n}\n`,
  'c/warn.c': `#include <stdio.h>\nint main(void) {\n    int unused;\n    char buf[4];\n    sprintf(buf, "%d", 1);\n    printf("ok\\n");\n    return 0;\n}\n`,
  'c/good.c': `#include <stdio.h>\nint main(void) { puts("error count: 0"); return 0; }\n`,
  'c/segv.c': `#include <stdio.h>\nint main(void) { int *p = 0; puts("starting"); fflush(stdout); return *p; }\n`,
  'c/abort.c': `#include <assert.h>\n#include <stdio.h>\nint main(void) { int n = 0; puts("checking"); fflush(stdout); assert(n > 0); return 0; }\n`,
  'c/asan.c': `#include <stdlib.h>\n#include <stdio.h>\nint main(void) { int *a = malloc(4 * sizeof(int)); a[4] = 1; printf("%d\\n", a[0]); free(a); return 0; }\n`,
  'c/uaf.c': `#include <stdlib.h>\n#include <stdio.h>\nint main(void) { char *s = malloc(8); free(s); s[0] = 'x'; puts("done"); return 0; }\n`,
  'c/ubsan.c': `#include <stdio.h>\n#include <limits.h>\nint main(void) { int x = INT_MAX; x += 1; printf("%d\\n", x); int a[2] = {0}; int i = 2; printf("%d\\n", a[i]); return 0; }\n`,
  'c/leak.c': `#include <stdlib.h>\n#include <stdio.h>\nint main(void) { char *p = malloc(64); p[0] = 0; puts("done"); return 0; }\n`,
  'c/invalid_read.c': `#include <stdlib.h>\n#include <stdio.h>\nint main(void) { int *p = malloc(2 * sizeof(int)); p[0] = 1; printf("%d\\n", p[2]); free(p); return 0; }\n`,
  'c/clean.c': `#include <stdlib.h>\n#include <stdio.h>\nint main(void) { char *p = malloc(8); p[0] = 'a'; free(p); puts("error_handler registered; 0 leaks expected"); return 0; }\n`,
  'c/undef.c': `void helper(void);\nint main(void) { helper(); return 0; }\n`,
  'c/missing_inc.c': `#include "config.h"\nint main(void) { return 0; }\n`,
  'c/bad.cpp': `#include <vector>\nint main() { std::vector<int> v; v.push_back("x"); return 0; }\n`,
  'c/throw.cpp': `#include <stdexcept>\n#include <cstdio>\nint main() { std::puts("loading"); std::fflush(stdout); throw std::runtime_error("config parse failed"); }\n`,
  'c/perror.c': `#include <stdio.h>\nint main(void) { FILE *f = fopen("settings.ini", "r"); if (!f) { perror("settings.ini"); } puts("continuing with defaults"); return 0; }\n`,
  'make/Makefile': `all: build\nbuild:\n\tgcc -c ../c/bad.c -o /tmp/silent-corpus-bad.o\n\t@echo build finished\nwarn:\n\tgcc -Wall -c ../c/warn.c -o /tmp/silent-corpus-warn.o\n\t@echo built with warnings\nignored:\n\t-rm nonexistent-file\n\t@echo continuing\nclean:\n\t@echo cleaning; rm -f /tmp/silent-corpus-*.o\ntest:\n\t@echo "running tests"; exit 2\n`,
  'make/Makefile.sep': `all:\n    echo spaces-not-tabs\n`,
  'cmake/bad/CMakeLists.txt': `cmake_minimum_required(VERSION 3.10)\nproject(demo C)\nfind_package(NotARealPackage REQUIRED)\nadd_executable(demo main.c)\n`,
  'cmake/bad/main.c': `int main(void) { return 0; }\n`,
  'cmake/ok/CMakeLists.txt': `cmake_minimum_required(VERSION 3.10)\nproject(demo C)\nenable_testing()\nadd_executable(demo main.c)\nadd_test(NAME passes COMMAND demo)\nadd_test(NAME fails COMMAND false)\n`,
  'cmake/ok/main.c': `#include <stdio.h>\nint main(void) { puts("errors: 0"); return 0; }\n`,
  'cmake/warn/CMakeLists.txt': `cmake_minimum_required(VERSION 3.10)\nproject(demo C)\nmessage(WARNING "optional dependency zlib not found, disabling compression")\nadd_executable(demo main.c)\nenable_testing()\nadd_test(NAME passes COMMAND demo)\n`,
  'cmake/warn/main.c': `int main(void) { return 0; }\n`,
  // ---------- Go ----------
  'go/go.mod': `module example.com/demo\n\ngo 1.19\n`,
  'go/panic/main.go': `package main\n\nimport "fmt"\n\nfunc main() {\n\tfmt.Println("starting")\n\tvar m map[string]int\n\tm["a"] = 1\n}\n`,
  'go/index/main.go': `package main\n\nimport "fmt"\n\nfunc main() {\n\ts := []int{1, 2}\n\ti := 5\n\tfmt.Println(s[i])\n}\n`,
  'go/fatal/main.go': `package main\n\nimport "log"\n\nfunc main() {\n\tlog.SetFlags(0)\n\tlog.Fatal("open config.yaml: no such file or directory")\n}\n`,
  'go/builderr/main.go': `package main\n\nimport "fmt"\n\nfunc main() {\n\tx := 1\n\tfmt.Println(y)\n}\n`,
  'go/ok/main.go': `package main\n\nimport (\n\t"errors"\n\t"fmt"\n)\n\nfunc main() {\n\terr := errors.New("transient")\n\tfor i := 1; i <= 2; i++ {\n\t\tif i == 1 {\n\t\t\tfmt.Printf("attempt %d: error: %v (retrying)\\n", i, err)\n\t\t\tcontinue\n\t\t}\n\t\tfmt.Println("attempt 2: ok")\n\t}\n}\n`,
  'go/calc/calc.go': `package calc\n\nfunc Add(a, b int) int { return a + b }\nfunc Sub(a, b int) int { return a + b }\n`,
  'go/calc/calc_test.go': `package calc\n\nimport "testing"\n\nfunc TestAdd(t *testing.T) {\n\tif Add(1, 2) != 3 {\n\t\tt.Fatal("add")\n\t}\n}\nfunc TestSub(t *testing.T) {\n\tif got := Sub(3, 1); got != 2 {\n\t\tt.Errorf("Sub(3, 1) = %d, want 2", got)\n\t}\n}\n`,
  'go/okpkg/ok.go': `package okpkg\n\nfunc ErrorCount() int { return 0 }\n`,
  'go/okpkg/ok_test.go': `package okpkg\n\nimport "testing"\n\nfunc TestErrorCount(t *testing.T) {\n\tif ErrorCount() != 0 {\n\t\tt.Fatal("x")\n\t}\n\tt.Log("error path exercised: FAIL strings in logs are fine")\n}\n`,
  'go/vet/main.go': `package main\n\nimport "fmt"\n\nfunc main() {\n\tfmt.Printf("%d\\n", "x")\n}\n`,
  // ---------- Rust ----------
  'rs/panic/Cargo.toml': `[package]\nname = "panicdemo"\nversion = "0.1.0"\nedition = "2021"\n`,
  'rs/panic/src/main.rs': `fn main() {\n    println!("reading config");\n    let v: Vec<u32> = Vec::new();\n    let port: u32 = std::env::var("PORT").unwrap_or_default().parse().unwrap();\n    println!("{} {}", v.len(), port);\n}\n`,
  'rs/builderr/Cargo.toml': `[package]\nname = "builderr"\nversion = "0.1.0"\nedition = "2021"\n`,
  'rs/builderr/src/main.rs': `fn main() {\n    let x: i32 = "five";\n    println!("{}", x);\n}\n`,
  'rs/warn/Cargo.toml': `[package]\nname = "warndemo"\nversion = "0.1.0"\nedition = "2021"\n`,
  'rs/warn/src/main.rs': `fn main() {\n    let unused = 1;\n    println!("error_count = 0");\n}\n`,
  'rs/tests/Cargo.toml': `[package]\nname = "testsdemo"\nversion = "0.1.0"\nedition = "2021"\n`,
  'rs/tests/src/lib.rs': `pub fn add(a: i32, b: i32) -> i32 { a - b }\n\n#[cfg(test)]\nmod tests {\n    use super::*;\n    #[test]\n    fn adds() { assert_eq!(add(2, 2), 4); }\n    #[test]\n    fn error_path() { assert!("x".parse::<i32>().is_err()); }\n}\n`,
  'rs/testsok/Cargo.toml': `[package]\nname = "testsok"\nversion = "0.1.0"\nedition = "2021"\n`,
  'rs/testsok/src/lib.rs': `pub fn parse(s: &str) -> Result<i32, String> { s.parse().map_err(|e| format!("error: {e}")) }\n\n#[cfg(test)]\nmod tests {\n    use super::*;\n    #[test]\n    fn error_is_reported() { assert!(parse("x").unwrap_err().starts_with("error:")); }\n    #[test]\n    #[should_panic(expected = "boom")]\n    fn panics() { panic!("boom"); }\n}\n`,
  // ---------- Java ----------
  'java/Bad.java': `public class Bad {\n    public static void main(String[] args) {\n        int x = "one";\n        System.out.println(x)\n    }\n}\n`,
  'java/Crash.java': `public class Crash {\n    static int parse(String s) { return Integer.parseInt(s); }\n    public static void main(String[] args) {\n        System.out.println("parsing port");\n        System.out.println(parse("80a"));\n    }\n}\n`,
  'java/Npe.java': `public class Npe {\n    public static void main(String[] args) {\n        String name = System.getenv("NOT_SET_ANYWHERE");\n        System.out.println("len " + name.length());\n    }\n}\n`,
  'java/Caused.java': `public class Caused {\n    public static void main(String[] args) {\n        try { Integer.parseInt("x"); }\n        catch (NumberFormatException e) { throw new IllegalStateException("bad settings", e); }\n    }\n}\n`,
  'java/Recovered.java': `public class Recovered {\n    public static void main(String[] args) {\n        for (int i = 1; i <= 2; i++) {\n            try {\n                if (i == 1) throw new java.io.IOException("connection reset");\n                System.out.println("attempt " + i + ": ok, 10 rows");\n            } catch (java.io.IOException e) {\n                System.out.println("attempt " + i + " failed: " + e + " (retrying)");\n            }\n        }\n    }\n}\n`,
  'java/Warn.java': `import java.util.*;\npublic class Warn {\n    public static void main(String[] args) {\n        List l = new ArrayList();\n        l.add("x");\n        System.out.println("errors=0 size=" + l.size());\n    }\n}\n`,
  // ---------- Ruby / PHP / Perl / Lua ----------
  'rb/crash.rb': `def load(path)\n  File.read(path)\nend\nputs "loading"\nputs load("missing.yml")\n`,
  'rb/nomethod.rb': `cfg = nil\nputs "start"\nputs cfg.fetch(:name)\n`,
  'rb/raise.rb': `class ConfigError < StandardError; end\ndef check\n  raise ConfigError, "output_dir is not set"\nend\ncheck\n`,
  'rb/syntax.rb': `def f(\n  puts 1\nend end\n`,
  'rb/rescued.rb': `begin\n  Integer("x")\nrescue ArgumentError => e\n  warn "invalid input (#{e.message}), using 0"\nend\nputs "total: 0"\n`,
  'rb/spec/ok_spec.rb': `RSpec.describe "errors" do\n  it "raises on bad input" do\n    expect { Integer("x") }.to raise_error(ArgumentError)\n  end\nend\n`,
  'rb/spec/fail_spec.rb': `RSpec.describe "math" do\n  it "adds" do\n    expect(1 + 1).to eq(3)\n  end\n  it "ok" do\n    expect(1).to eq(1)\n  end\nend\n`,
  'php/crash.php': `<?php\necho "start\\n";\nfunction load($p) { throw new RuntimeException("cannot load $p"); }\nload("config.php");\n`,
  'php/fatal.php': `<?php\necho "start\\n";\nundefined_function_xyz();\n`,
  'php/warn.php': `<?php\n$a = [];\necho $a["missing"] ?? "default", "\\n";\n$f = @file_get_contents("nope.txt");\necho $f === false ? "using defaults\\n" : $f;\n`,
  'php/notice.php': `<?php\n$x = [];\necho $x["k"];\necho "done\\n";\n`,
  'php/syntax.php': `<?php\nfunction f( {\n  return 1;\n}\n`,
  'php/tests/OkTest.php': `<?php\nuse PHPUnit\\Framework\\TestCase;\nclass OkTest extends TestCase {\n  public function testErrorIsThrown(): void { $this->expectException(Exception::class); throw new Exception("x"); }\n  public function testOk(): void { $this->assertSame(1, 1); }\n}\n`,
  'php/failtests/FailTest.php': `<?php\nuse PHPUnit\\Framework\\TestCase;\nclass FailTest extends TestCase {\n  public function testAdd(): void { $this->assertSame(3, 1 + 1); }\n  public function testOk(): void { $this->assertTrue(true); }\n}\n`,
  'pl/die.pl': `use strict; use warnings;\nprint "reading\\n";\nopen(my $fh, '<', 'missing.txt') or die "Cannot open missing.txt: $!\\n";\n`,
  'pl/die_line.pl': `use strict;\nmy $n = 0;\nprint "dividing\\n";\nprint 10 / $n, "\\n";\n`,
  'pl/warn.pl': `use strict; use warnings;\nmy $x;\nprint "value: ", (defined $x ? $x : 'none'), "\\n";\nwarn "note: using default value\\n";\nprint "done\\n";\n`,
  'pl/undef.pl': `use strict; use warnings;\nmy $x;\nprint "value: $x\\n";\n`,
  'pl/syntax.pl': `use strict;\nmy $x = ;\n`,
  'pl/t/ok.t': `use Test::More tests => 2;\nok(1, 'error path handled');\nis(1+1, 2, 'adds');\n`,
  'pl/t/fail.t': `use Test::More tests => 2;\nok(1, 'first');\nis(1+1, 3, 'adds');\n`,
  'lua/err.lua': `local cfg = nil\nprint("start")\nprint(cfg.name)\n`,
  'lua/error_call.lua': `local function load(p) error("cannot load " .. p) end\nload("init.lua")\n`,
  'lua/pcall.lua': `local ok, err = pcall(function() error("transient") end)\nprint("first try ok?", ok)\nprint("retry ok")\n`,
  // ---------- shell ----------
  'sh/syntax.sh': `#!/bin/bash\necho "step 1"\nif [ -f x ]; then\n  echo yes\nfi fi\necho "step 2"\n`,
  'sh/unexpected.sh': `#!/bin/bash\necho start\nfor f in *.txt do\n  echo $f\ndone\n`,
  'sh/eof.sh': `#!/bin/bash\necho "building"\nif true; then\n  echo "never closed"\n`,
  'sh/unbound.sh': `#!/bin/bash\nset -u\necho "deploying to $TARGET_HOST"\n`,
  'sh/badsubst.sh': `#!/bin/sh\nname=abc\necho "\${name:0:2}"\necho "\${name^^}"\n`,
  'sh/noexec.sh': `#!/bin/bash\necho "I am not executable"\n`,
  'sh/badinterp.sh': `#!/usr/bin/env pythonx\nprint(1)\n`,
  'sh/ok.sh': `#!/bin/bash\nset -euo pipefail\necho "checking for errors..."\necho "0 errors found"\n`,
  'sh/lint.sh': `#!/bin/bash\nfiles=$(ls *.txt)\nfor f in $files; do\n  cat $f\ndone\necho $undefined_var\n`,
  'sh/test.bats': `@test "adds" {\n  result="$((1 + 1))"\n  [ "$result" -eq 3 ]\n}\n@test "ok" {\n  true\n}\n`,
  'sh/ok.bats': `@test "error message printed" {\n  run echo "Error: none"\n  [ "$status" -eq 0 ]\n}\n`,
  // ---------- data tools ----------
  'data/good.json': `{"name": "site", "pages": [{"title": "Home"}], "errors": [], "status": "failed-jobs: 0"}\n`,
  'data/bad.json': `{"name": "site", "pages": [}\n`,
  'data/good.xml': `<config><error-page>/err.html</error-page><retries>3</retries></config>\n`,
  'data/bad.xml': `<config><name>site</config>\n`,
  'data/good.yaml': `name: site\non_error: retry\nerrors: []\n`,
  'data/bad.yaml': `name: site\n  pages: [a, b\nkey: : x\n`,
  'data/rows.csv': `id,status,message\n1,ok,\n2,failed,"Error: timeout"\n3,ok,\n`,
  'data/schema.sql': `CREATE TABLE users(id INTEGER PRIMARY KEY, name TEXT NOT NULL);\nINSERT INTO users(name) VALUES ('ann'), ('bob');\n`,
  'data/bad.sql': `INSERT INTO users(name) VALUES ('cy');\nSELECT count(*) FROM orders;\nSELECT count(*) FROM users;\n`,
  'data/errors.log': `2024-05-01 10:00:01 INFO  worker started\n2024-05-01 10:00:02 ERROR job 17 failed: timeout (will retry)\n2024-05-01 10:00:05 INFO  job 17 succeeded on retry\n2024-05-01 10:00:09 WARN  disk 81% full\n`,
  'docs/TROUBLESHOOTING.md': `# Troubleshooting\n\nIf the build prints\n\n    make: *** [Makefile:12: all] Error 1\n\ncheck the compiler output above it. A missing dependency looks like:\n\n\`\`\`\nModuleNotFoundError: No module named 'yaml'\n\`\`\`\n\nInstall it with \`pip install pyyaml\`. If you see \`Segmentation fault\`, rebuild with \`-g\`.\nA \`fatal: not a git repository\` message means you ran the script outside the checkout.\n`,
  'docs/CHANGELOG.md': `## 2.1.0\n- Fixed: "Permission denied" when the cache dir is read-only\n- Fixed: crash with \`TypeError: Cannot read properties of undefined\`\n- pytest summary no longer says "1 failed" for skipped tests\n- The error: prefix is now printed in red\n`,
  'docs/report.md': `# Report\n\nResults ≥ 95% and arrows → everywhere.\n\n![chart](missing-chart.png)\n\nSee [the appendix](#appendix).\n`,
  'docs/ok.md': `# Title\n\nPlain text with *emphasis*. Error rates fell to 0.\n`,
  'docs/bad.tex': `\\documentclass{article}\n\\begin{document}\nHello \\undefinedmacro{} world.\n\\end{document}\n`,
  'docs/ok.tex': `\\documentclass{article}\n\\begin{document}\nNo errors here; the error bars are fine.\n\\end{document}\n`,
  'docs/warn.tex': `\\documentclass{article}\n\\begin{document}\nSee Section~\\ref{sec:missing}.\n\\end{document}\n`,
  'git-readme.txt': `notes\n`,
  'py/print_exc_retry.py': `import traceback\nfor attempt in (1, 2):\n    try:\n        if attempt == 1:\n            raise OSError("[Errno 104] Connection reset by peer")\n        print("attempt 2: uploaded 3 files")\n        break\n    except OSError:\n        print("attempt 1 failed, retrying in 1s:")\n        traceback.print_exc()\n`,
  'py/log_warning_exc.py': `import logging\nlogging.basicConfig(format="%(levelname)s %(name)s: %(message)s")\nlog = logging.getLogger("cache")\ntry:\n    open("/nonexistent/cache.db")\nexcept OSError as e:\n    log.warning("cache unavailable (%s); continuing without cache", e)\nprint("rendered 12 pages")\n`,
  'rb/retry.rb': `attempts = 0\nbegin\n  attempts += 1\n  raise IOError, "connection reset" if attempts == 1\n  puts "fetched on attempt #{attempts}"\nrescue IOError => e\n  warn "attempt #{attempts} failed: #{e.message} (#{e.class}), retrying"\n  retry\nend\n`,
  'docs/FAQ.txt': `Q: The build prints "error: could not compile". What now?\nA: Scroll up to the first error[E0308] line.\n\nQ: pytest says "1 failed, 2 passed in 0.12s".\nA: Run it with -x to stop at the first failure.\n\nQ: I get "Error: Cannot find module 'x'".\nA: Run npm install.\n\nQ: What does "Segmentation fault (core dumped)" mean?\nA: The program crashed.\n`,
  'docs/runbook.md': `## When deploys fail\n\nTypical messages:\n\n- \`npm ERR! code ELIFECYCLE\`\n- \`E: Unable to locate package\`\n- \`curl: (7) Failed to connect\`\n- \`psql: error: connection to server\`\n- \`fatal: Authentication failed\`\n\nNone of these are retried automatically.\n`,
  'data/app.log': `[2024-05-01 10:00:00] INFO  boot\n[2024-05-01 10:00:01] WARN  retrying connection to db (attempt 1/3): Connection refused\n[2024-05-01 10:00:03] INFO  connected to db\n[2024-05-01 10:00:04] ERROR request 8812 failed: 404 Not Found /favicon.ico\n[2024-05-01 10:00:05] INFO  200 GET /\n`,
  // The runtime's own benign noise and passing suites that log errors (corroboration round).
  'noise/gen.py': `for i in range(100000):\n    print(i)\n`,
  'noise/tmpexit.py': `import os\nimport tempfile\n\nf = tempfile.NamedTemporaryFile(suffix=".csv")\nf.write(b"a,b\\n1,2\\n")\nos.unlink(f.name)\nprint("converted 12 files")\n`,
  'noise/tmpexit_fail.py': `import os\nimport tempfile\n\nf = tempfile.NamedTemporaryFile(suffix=".csv")\nos.unlink(f.name)\nprint("converted 11 files")\nrows = {"a": 1}\nprint(rows["row 7"])\n`,
  'noise/unclosed.py': `def count(path):\n    return sum(1 for _ in open(path))\n\n\nprint("lines:", count(__file__))\n`,
  'noise/test_logged.py': `import unittest\n\n\ndef process(items, log=print):\n    done = []\n    for i, item in enumerate(items, 1):\n        if item is None:\n            log(f"error: Item {i} failed")\n            continue\n        done.append(item)\n    return done\n\n\nclass ProcessTest(unittest.TestCase):\n    def test_skips_a_failed_item(self):\n        self.assertEqual(process([1, 2, None, 4]), [1, 2, 4])\n\n\nif __name__ == "__main__":\n    unittest.main()\n`,
  'noise/test_logged_fail.py': `import unittest\n\n\ndef process(items, log=print):\n    done = []\n    for i, item in enumerate(items, 1):\n        if item is None:\n            log(f"error: Item {i} failed")\n            continue\n        done.append(item)\n    return done\n\n\nclass ProcessTest(unittest.TestCase):\n    def test_keeps_order(self):\n        self.assertEqual(process([1, None, 2]), [2, 1])\n\n\nif __name__ == "__main__":\n    unittest.main()\n`,
  'site/health.json': `{"status":"ok","info":{"database":{"status":"up"}},"error":{},"details":{"database":{"status":"up"}}}\n`,
  'site/health-down.json': `{"status":"error","info":{},"error":{"database":{"status":"down","message":"connect ECONNREFUSED 127.0.0.1:5432"}},"details":{"database":{"status":"down","message":"connect ECONNREFUSED 127.0.0.1:5432"}}}\n`,
};
// jest needs a config (or package.json) to find its root.
files['js/jest/jest.config.js'] = 'module.exports = {};\n';
files['js/jestfail/jest.config.js'] = 'module.exports = {};\n';

// ---------- recovered retries, expected errors printed by passing tests,
// lint/type checkers, more build and data tools (precision round) ----------
Object.assign(files, {
  // A real refused connection (nothing listens on port 9), a retry that then works.
  'retry/py_excinfo.py': `import logging, socket
logging.basicConfig(format="%(levelname)s:%(name)s:%(message)s")
log = logging.getLogger("upload")

def connect(port):
    return socket.create_connection(("127.0.0.1", port), timeout=2)

srv = socket.create_server(("127.0.0.1", 0))
ports = [9, srv.getsockname()[1]]
for attempt in (1, 2, 3):
    try:
        connect(ports[min(attempt - 1, 1)]).close()
        print(f"uploaded 3 files (attempt {attempt})")
        break
    except OSError:
        log.warning("upload failed (attempt %d of 3), will retry", attempt, exc_info=True)
`,
  'retry/py_print_exc_after.py': `import sys, time, traceback
def read_config(path):
    with open(path) as f:
        return f.read()
paths = ["/tmp/silent-corpus/work/retry/config.local.ini", "/tmp/silent-corpus/work/retry/config.ini"]
for p in paths:
    try:
        text = read_config(p)
        print(f"loaded {p}: {len(text)} bytes")
        break
    except FileNotFoundError:
        traceback.print_exc()
        print(f"{p} is missing, trying the next config", file=sys.stderr)
`,
  'retry/config.ini': `[app]\nport = 8080\n`,
  'retry/py_tenacity_ok.py': `import logging, sys
from tenacity import retry, stop_after_attempt, wait_fixed, before_sleep_log
logging.basicConfig(stream=sys.stderr, level=logging.INFO)
log = logging.getLogger("fetch")
calls = 0

@retry(stop=stop_after_attempt(3), wait=wait_fixed(0.1), before_sleep=before_sleep_log(log, logging.WARNING, exc_info=True))
def fetch():
    global calls
    calls += 1
    if calls == 1:
        raise ConnectionResetError(104, "Connection reset by peer")
    return {"items": 3}

print("fetched", fetch())
`,
  'retry/py_tenacity_exhausted.py': `import logging, socket, sys
from tenacity import retry, stop_after_attempt, wait_fixed, before_sleep_log
logging.basicConfig(stream=sys.stderr, level=logging.INFO)
log = logging.getLogger("fetch")

@retry(stop=stop_after_attempt(3), wait=wait_fixed(0.1), before_sleep=before_sleep_log(log, logging.WARNING))
def fetch():
    socket.create_connection(("127.0.0.1", 9), timeout=2)

fetch()
print("fetched")
`,
  'retry/py_manual_exhausted.py': `import logging, socket
logging.basicConfig(format="%(asctime)s %(levelname)s %(message)s", datefmt="%H:%M:%S")
for attempt in range(1, 4):
    try:
        socket.create_connection(("127.0.0.1", 9), timeout=2)
        break
    except ConnectionRefusedError as e:
        if attempt == 3:
            raise
        logging.warning("attempt %d failed: %s; retrying", attempt, e)
print("connected")
`,
  'retry/py_unittest_logs/test_loader.py': `import json, logging, unittest
log = logging.getLogger("loader")

def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except FileNotFoundError:
        log.exception("config %s not found, using the defaults", path)
        return {}

class LoaderTest(unittest.TestCase):
    def test_missing_file_gives_defaults(self):
        self.assertEqual(load("/nonexistent/config.json"), {})

if __name__ == "__main__":
    logging.basicConfig()
    unittest.main()
`,
  'retry/py_unittest_logs/test_parse.py': `import logging, unittest
log = logging.getLogger("parse")

def parse_port(text):
    try:
        return int(text)
    except ValueError:
        log.exception("bad port %r", text)
        return None

class ParseTest(unittest.TestCase):
    def test_bad_port_is_none(self):
        self.assertIsNone(parse_port("80a"))

if __name__ == "__main__":
    logging.basicConfig()
    unittest.main()
`,
  'retry/node_retry.js': `const net = require('node:net');
const server = net.createServer((s) => s.end('ok'));
function connect(port) {
  return new Promise((resolve, reject) => {
    const s = net.connect(port, '127.0.0.1', () => { s.end(); resolve(); });
    s.on('error', reject);
  });
}
server.listen(0, '127.0.0.1', async () => {
  const ports = [9, server.address().port];
  for (let attempt = 1; attempt <= 3; attempt++) {
    try {
      await connect(ports[Math.min(attempt - 1, 1)]);
      console.log(\`fetched 3 items (attempt \${attempt})\`);
      break;
    } catch (err) {
      console.error(err);
      console.error(\`attempt \${attempt} failed, retrying in 100ms\`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  server.close();
});
`,
  'retry/node_unhandled_after_retry.js': `const net = require('node:net');
function connect() {
  return new Promise((resolve, reject) => {
    const s = net.connect(9, '127.0.0.1', resolve);
    s.on('error', reject);
  });
}
(async () => {
  for (let attempt = 1; attempt <= 3; attempt++) {
    try { await connect(); return; } catch (err) {
      if (attempt === 3) throw err;
      console.error(\`attempt \${attempt} failed (\${err.code}), retrying\`);
    }
  }
})();
`,
  'retry/Retry.java': `import java.net.*;
import java.util.logging.*;
public class Retry {
  public static void main(String[] args) throws Exception {
    Logger log = Logger.getLogger("fetch");
    try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      int[] ports = {9, server.getLocalPort()};
      for (int attempt = 1; attempt <= 3; attempt++) {
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), ports[Math.min(attempt - 1, 1)])) {
          System.out.println("connected on attempt " + attempt);
          break;
        } catch (ConnectException e) {
          log.log(Level.WARNING, "attempt " + attempt + " failed, retrying", e);
        }
      }
    }
  }
}
`,
  'retry/retry.rb': `require "socket"
server = TCPServer.new("127.0.0.1", 0)
ports = [9, server.addr[1]]
attempt = 0
begin
  attempt += 1
  TCPSocket.new("127.0.0.1", ports[[attempt - 1, 1].min]).close
  puts "connected on attempt #{attempt}"
rescue SystemCallError => e
  warn e.full_message(highlight: false)
  warn "retrying (attempt #{attempt + 1} of 3)"
  retry if attempt < 3
end
`,
  'retry/retry.go': `package main

import (
	"log"
	"net"
	"time"
)

func main() {
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	defer ln.Close()
	addrs := []string{"127.0.0.1:9", ln.Addr().String()}
	for attempt := 1; attempt <= 3; attempt++ {
		c, err := net.Dial("tcp", addrs[min(attempt-1, 1)])
		if err != nil {
			log.Printf("attempt %d: %v; retrying in 50ms", attempt, err)
			time.Sleep(50 * time.Millisecond)
			continue
		}
		c.Close()
		log.Printf("connected on attempt %d", attempt)
		return
	}
}

func min(a, b int) int {
	if a < b {
		return a
	}
	return b
}
`,
  // Passing tests that print the errors they check for.
  'expect/test_expected_errors.py': `import traceback, pytest

def parse(s):
    return int(s)

def test_bad_input_is_rejected(capsys):
    with pytest.raises(ValueError):
        parse("x1")
    try:
        parse("x2")
    except ValueError:
        traceback.print_exc()
    print("error: invalid literal handled as expected")
`,
  'expect/expected.test.js': `const test = require('node:test');
const assert = require('node:assert');
test('rejects a bad config', () => {
  const err = new TypeError('config.port must be a number');
  console.error(err);
  assert.throws(() => { throw err; }, TypeError);
});
`,
  'expect/jest/expected.test.js': `test('logs and rejects a bad config', () => {
  const err = new Error('ENOENT: no such file or directory, open config.json');
  console.error(err);
  expect(() => { throw err; }).toThrow('ENOENT');
});
`,
  'expect/jest/jest.config.js': 'module.exports = {};\n',
  'expect/gotest/go.mod': 'module example.com/expect\n\ngo 1.19\n',
  'expect/gotest/open_test.go': `package expect

import (
	"os"
	"testing"
)

func TestMissingFileError(t *testing.T) {
	_, err := os.Open("missing.txt")
	if err == nil {
		t.Fatal("expected an error")
	}
	t.Logf("got expected error: %v", err)
}
`,
  'expect/rstest/Cargo.toml': '[package]\nname = "rstest_expect"\nversion = "0.1.0"\nedition = "2021"\n',
  'expect/rstest/src/lib.rs': `pub fn parse(s: &str) -> Result<u32, std::num::ParseIntError> { s.parse() }

#[cfg(test)]
mod tests {
    #[test]
    fn rejects_letters() {
        let err = super::parse("12a").unwrap_err();
        eprintln!("Error: {err}");
        assert_eq!(err.to_string(), "invalid digit found in string");
    }
}
`,
  // Python checkers.
  'chk/bad_types.py': `def greet(name: str) -> str:\n    return "hi " + name\n\ngreet(3)\ncount: int = "three"\n`,
  'chk/good_types.py': `def greet(name: str) -> str:\n    return "hi " + name\n\nprint(greet("error handler"))\n`,
  'chk/unformatted.py': `x = {  'a':1,'b':2 }\ndef f( y ):\n  return y\n`,
  'chk/broken.py': `def f(:\n    pass\n`,
  'chk/lint.py': `import os, sys\n\ndef f(x):\n    return undefined_name + x\n`,
  'chk/clean.py': `"""A clean module."""\n\n\ndef errors_count() -> int:\n    """Return zero."""\n    return 0\n`,
  // ESLint with warnings only.
  'lintwarn/eslint.config.mjs': `export default [{ rules: { 'no-unused-vars': 'warn', 'no-console': 'warn' }, languageOptions: { sourceType: 'script', globals: { console: 'readonly' } } }];\n`,
  'lintwarn/app.js': `const unused = 1;\nconsole.log('error handler ready');\n`,
  // Build tools.
  'ninja/ok/build.ninja': `rule echo\n  command = echo "building $out (0 errors)" > $out\nbuild out.txt: echo\n`,
  'ninja/bad/build.ninja': `rule cc\n  command = gcc -c $in -o $out\nbuild bad.o: cc ../../c/bad.c\n`,
  'autoconf/configure.ac': `AC_INIT([demo], [1.0])\nAC_PROG_CC\nAC_CHECK_LIB([nosuchlib_toolguard], [nosuch_fn], [], [AC_MSG_ERROR([libnosuchlib_toolguard not found; install it first])])\nAC_OUTPUT\n`,
  'meson/bad/meson.build': `project('demo', 'c')\ndep = dependency('nosuchdep-toolguard')\nexecutable('demo', 'main.c', dependencies: dep)\n`,
  'meson/bad/main.c': `int main(void) { return 0; }\n`,
  'meson/ok/meson.build': `project('demo', 'c')\nexecutable('demo', 'main.c')\n`,
  'meson/ok/main.c': `int main(void) { return 0; }\n`,
  'tcl/err.tcl': `proc load {path} {\n  set f [open $path]\n  return [read $f]\n}\nputs "loading"\nputs [load /nonexistent/settings.tcl]\n`,
  'tcl/catch.tcl': `if {[catch {open /nonexistent/settings.tcl} msg]} {\n  puts "optional settings missing ($msg), using the defaults"\n}\nputs "ready"\n`,
  'docs/DEPLOY.md': `# Deploying

Run \`./deploy.sh\`. Typical failures and what they mean:

\`\`\`
$ ./deploy.sh
./deploy.sh: line 12: kubectl: command not found
\`\`\`

Install kubectl first. If Python dependencies are missing you will see:

\`\`\`text
Traceback (most recent call last):
  File "deploy/render.py", line 3, in <module>
    import jinja2
ModuleNotFoundError: No module named 'jinja2'
\`\`\`

and a broken lockfile shows as

\`\`\`console
npm ERR! code ERESOLVE
npm ERR! ERESOLVE unable to resolve dependency tree
\`\`\`

A refused database connection:

\`\`\`
psql: error: connection to server at "127.0.0.1", port 5432 failed: Connection refused
\`\`\`
`,
});

// ---------- second batch (recorded and measured before any rule change) ----------
Object.assign(files, {
  // urllib3's own Retry: a server that comes up 0.3 s after the first attempt.
  'retry2/urllib3_retry.py': `import http.server, logging, threading, time
import requests
from requests.adapters import HTTPAdapter
from urllib3.util.retry import Retry
logging.basicConfig(level=logging.WARNING)

class Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *a):
        pass

srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Quiet)
port = srv.server_address[1]
srv.server_close()
def late_start():
    time.sleep(0.3)
    s = http.server.ThreadingHTTPServer(("127.0.0.1", port), Quiet)
    threading.Thread(target=s.serve_forever, daemon=True).start()
threading.Thread(target=late_start, daemon=True).start()

session = requests.Session()
session.mount("http://", HTTPAdapter(max_retries=Retry(total=5, backoff_factor=0.2)))
r = session.get(f"http://127.0.0.1:{port}/", timeout=2)
print("status", r.status_code, "bytes", len(r.content))
`,
  'retry2/requests_down.py': `import requests
try:
    requests.get("http://127.0.0.1:9/health", timeout=2)
    print("healthy")
except requests.ConnectionError as e:
    print(f"health check failed: {e}")
print("report written")
`,
  'retry2/retry.php': `<?php
$attempt = 0;
while (true) {
    $attempt++;
    try {
        if ($attempt === 1) { throw new RuntimeException("connection reset by peer"); }
        echo "uploaded on attempt $attempt\\n";
        break;
    } catch (RuntimeException $e) {
        error_log((string)$e);
        error_log("attempt $attempt failed, retrying");
    }
}
`,
  'retry2/retry.pl': `use strict; use warnings;
for my $attempt (1 .. 3) {
    my $ok = eval { die "connect: Connection refused\\n" if $attempt == 1; 1 };
    if ($ok) { print "synced on attempt $attempt\\n"; last; }
    warn "attempt $attempt failed: $@";
    warn "retrying in 1s\\n";
}
`,
  'retry2/warn_retry.js': `let calls = 0;
function fetchConfig() {
  if (++calls === 1) throw new Error('socket hang up');
  return { keys: 4 };
}
for (let i = 1; i <= 3; i++) {
  try {
    const cfg = fetchConfig();
    console.log('config loaded:', cfg.keys, 'keys');
    break;
  } catch (err) {
    console.warn(\`Retrying request (\${i}/3) after error:\`, err);
  }
}
`,
});
