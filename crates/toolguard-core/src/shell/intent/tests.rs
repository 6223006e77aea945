//! Tests of the intent reading: whose script ran, what a fallback means,
//! a displayed log against a failure of the call itself.

use crate::config::Config;
use crate::engine::{Call, Engine, FailureAction, Output};

/// The action of the verdict on `output` of a `bash` call running `command` (after `before`).
fn action(before: &[&str], command: &str, output: &str) -> Option<FailureAction> {
    crate::shell::tests::bash_failure(before, command, output, None).map(|f| f.action)
}

const TRACEBACK: &str = "Traceback (most recent call last):\n  File \"/testbed/reproduce.py\", line 3, in <module>\n    f()\nValueError: bad value\n";

#[test]
fn the_agents_own_reproduction_script_is_context() {
    let write = "cat > /testbed/reproduce.py << 'EOF'\nfrom m import f\nf()\nEOF";
    assert_eq!(
        action(&[write], "cd /testbed && python reproduce.py", TRACEBACK),
        Some(FailureAction::Context)
    );
    // Written through an editor tool call.
    let mut engine = Engine::new(&Config::default()).unwrap();
    let create = r#"{"command":"create","path":"/testbed/repro_issue.py","file_text":"x"}"#;
    engine.advance(&Call {
        agent_id: Some("a"),
        name: "str_replace_editor",
        arguments_json: create,
    });
    let run = r#"{"command":"python /testbed/repro_issue.py"}"#;
    let out = Output {
        texts: vec![TRACEBACK],
        ..Output::default()
    };
    let v = engine.observe(
        &Call {
            agent_id: Some("a"),
            name: "bash",
            arguments_json: run,
        },
        Some(&out),
    );
    assert_eq!(
        v.and_then(|v| v.failure).map(|f| f.action),
        Some(FailureAction::Context)
    );
    // A script the agent did not write: still an error.
    assert_eq!(
        action(&[], "cd /testbed && python reproduce.py", TRACEBACK),
        Some(FailureAction::Error)
    );
    // Another agent's script is not this agent's.
    assert_eq!(
        action(&["echo x > other.py"], "python reproduce.py", TRACEBACK),
        Some(FailureAction::Error)
    );
}

#[test]
fn a_script_created_with_swe_agents_shell_editor_is_its_own() {
    // SWE-agent 1.x runs its editor in the shell: the step's action is
    // `str_replace_editor create <path> --file_text '…'`. Not read as a
    // write before, so the reproduction's traceback was an error.
    let create =
        "str_replace_editor create /testbed/reproduce.py --file_text 'from m import f\nf()\n'";
    assert_eq!(
        action(&[create], "python /testbed/reproduce.py", TRACEBACK),
        Some(FailureAction::Context)
    );
    let edit =
        "str_replace_editor str_replace /testbed/reproduce.py --old_str 'f()' --new_str 'f(1)'";
    assert_eq!(
        action(&[edit], "cd /testbed && python reproduce.py", TRACEBACK),
        Some(FailureAction::Context)
    );
    // Viewing a file is no write.
    let view = "str_replace_editor view /testbed/reproduce.py";
    assert_eq!(
        action(&[view], "python /testbed/reproduce.py", TRACEBACK),
        Some(FailureAction::Error)
    );
}

#[test]
fn an_own_script_that_cannot_run_its_own_code_is_an_error() {
    let write = "cat > /testbed/check_fix.py << 'EOF'\nprint(Path('x'))\nEOF";
    let broken = [
        "Traceback (most recent call last):\n  File \"/testbed/check_fix.py\", line 1, in <module>\nNameError: name 'Path' is not defined\n",
        "Traceback (most recent call last):\n  File \"/testbed/check_fix.py\", line 1, in <module>\nImportError: cannot import name 'helper' from 'pkg.mod'\n",
        "Traceback (most recent call last):\n  File \"/testbed/check_fix.py\", line 4, in <module>\nTypeError: Parser.parse() takes 2 positional arguments but 3 were given\n",
        "Traceback (most recent call last):\n  File \"/testbed/check_fix.py\", line 4, in <module>\nAttributeError: module 'numpy' has no attribute 'product'\n",
    ];
    for out in broken {
        assert_eq!(
            action(&[write], "cd /testbed && python check_fix.py", out),
            Some(FailureAction::Error),
            "{out}"
        );
    }
    // The behaviour it reproduces (an exception of the code under test) stays context.
    assert_eq!(
        action(&[write], "cd /testbed && python check_fix.py", TRACEBACK),
        Some(FailureAction::Context)
    );
    // A try/except probe whose own code breaks is no answer either.
    let probe = "python -c \"try:\n    import pkg\nexcept OSError as e:\n    print('Error:', e)\"";
    let out = "Traceback (most recent call last):\n  File \"<string>\", line 2, in <module>\nModuleNotFoundError: No module named 'pkg'\n";
    assert_eq!(action(&[], probe, out), Some(FailureAction::Error));
}

/// [`action`] after the user said `user` (the task text).
fn told(user: &str, before: &[&str], command: &str, output: &str) -> Option<FailureAction> {
    let mut engine = Engine::new(&Config::default()).unwrap();
    engine.note_user_text("a", user);
    let args = |c: &str| serde_json::json!({ "command": c }).to_string();
    let observe = |engine: &mut Engine, c: &str, text: &str| {
        let a = args(c);
        let out = Output {
            texts: vec![text],
            ..Output::default()
        };
        let call = Call {
            agent_id: Some("a"),
            name: "bash",
            arguments_json: &a,
        };
        engine.observe(&call, Some(&out))
    };
    for b in before {
        observe(&mut engine, b, "");
    }
    observe(&mut engine, command, output)
        .and_then(|v| v.failure)
        .map(|f| f.action)
}

const ISSUE: &str = "Combining sequences fails:\n\n```\nRuntimeError: Dropped elements in sequence 3 at /tmp/x.py\n```\nExpected no error.";

#[test]
fn a_reproduction_of_the_reported_error_is_context() {
    let write = "cat > /testbed/repro.py << 'EOF'\nf()\nEOF";
    let out = "Traceback (most recent call last):\n  File \"/testbed/repro.py\", line 1\nRuntimeError: Dropped elements in sequence 7 at /testbed/s.py\n";
    // Not written by the agent (or judged broken): the user's own error
    // reproduced is still the bug they reported.
    assert_eq!(
        told(ISSUE, &[], "python repro.py", out),
        Some(FailureAction::Context)
    );
    assert_eq!(
        action(&[], "python repro.py", out),
        Some(FailureAction::Error)
    );
    assert_eq!(
        told(ISSUE, &[write], "cd /testbed && python repro.py", out),
        Some(FailureAction::Context)
    );
    // A test runner's verdict stays the check's result.
    let pytest = "E   RuntimeError: Dropped elements in sequence 3\n1 failed, 3 passed in 0.2s\n";
    assert_eq!(
        told(ISSUE, &[], "pytest tests/ 2>&1 | tail -5", pytest),
        Some(FailureAction::Error)
    );
}

#[test]
fn an_unreported_error_from_an_own_script_is_an_error() {
    let write = "cat > /testbed/repro.py << 'EOF'\nf()\nEOF";
    // `traceback.print_exc()` then its own `Error:` line, as the wild ones do.
    let tb =
        "Traceback (most recent call last):\n  File \"/testbed/repro.py\", line 5, in <module>\n";
    let caught = format!("{tb}AttributeError: 'Q' object has no attribute 'as_sql'\nError: 'Q' object has no attribute 'as_sql'\n");
    let caught = caught.as_str();
    assert_eq!(
        told(ISSUE, &[write], "cd /testbed && python repro.py", caught),
        Some(FailureAction::Error)
    );
    // Its message may be another exception line; its type is then that one.
    let nested =
        format!("{tb}KeyError: 'missing'\nError: KeyError: 'missing' was not in the mapping\n");
    let nested = nested.as_str();
    assert_eq!(
        told(ISSUE, &[write], "cd /testbed && python repro.py", nested),
        Some(FailureAction::Error)
    );
    // An uncaught traceback the script did not report on itself: as
    // before (reproductions raise on purpose), and so is an empty `Error:`.
    assert_eq!(
        told(ISSUE, &[write], "cd /testbed && python repro.py", TRACEBACK),
        Some(FailureAction::Context)
    );
    assert_eq!(
        told(
            ISSUE,
            &[write],
            "cd /testbed && python repro.py",
            "Error: \n"
        ),
        None
    );
    // The user's error, caught and printed by the script: reproduced.
    let reproduced = format!("{tb}RuntimeError: Dropped elements in sequence 1 at /t/a.py\nError: RuntimeError: Dropped elements in sequence 1 at /t/a.py\n");
    let reproduced = reproduced.as_str();
    assert_eq!(
        told(
            ISSUE,
            &[write],
            "cd /testbed && python repro.py",
            reproduced
        ),
        Some(FailureAction::Context)
    );
    // Without a noted user message: as before (the script's run is meant).
    assert_eq!(
        action(&[write], "cd /testbed && python repro.py", TRACEBACK),
        Some(FailureAction::Context)
    );
    // A probe's answer and a displayed log are not the script failing.
    let probe = "python -c \"try:\n    open('x')\nexcept OSError as e:\n    print('Error:', e)\"";
    assert_eq!(
        told(
            ISSUE,
            &[],
            probe,
            "Error: [Errno 2] No such file or directory: 'x'\n"
        ),
        Some(FailureAction::Context)
    );
    assert_eq!(
        told(ISSUE, &[], "cat app.log", "ValueError: bad value\n"),
        Some(FailureAction::Context)
    );
}

#[test]
fn what_the_user_reported_is_bounded() {
    let mut reports = super::SessionReports::default();
    let long = format!("ValueError: {}", "word ".repeat(1000));
    for k in 0..1000u32 {
        // A distinct word per k (digits would be masked alike).
        let word: String = k
            .to_string()
            .bytes()
            .map(|b| (b - b'0' + b'a') as char)
            .collect();
        reports.note(&format!("KeyError: {word}\nplain line\n{long}"));
    }
    let lines: Vec<&str> = reports.lines().collect();
    assert_eq!(lines.len(), super::SessionReports::CAP);
    assert!(lines.iter().all(|l| l.len() <= super::SessionReports::LINE));
    assert_eq!(
        super::SessionReports::from_lines(lines.iter().copied()),
        reports
    );
    // Numbers and paths masked: the same error at another line or file.
    assert!(reports.names("ValueError", "word word"));
    let mut r = super::SessionReports::default();
    r.note(ISSUE);
    assert!(r.names("RuntimeError", "Dropped elements in sequence 12 at /a/b.py"));
    assert!(!r.names("RuntimeError", "Kept elements"));
    assert!(!r.names("ValueError", "Dropped elements"));
}

#[test]
fn a_script_created_with_swe_agents_create_command_is_the_agents_own() {
    let mut engine = Engine::new(&Config::default()).unwrap();
    engine.advance(&Call {
        agent_id: Some("a"),
        name: "create",
        arguments_json: r#"{"command":"create reproduce_bug.py"}"#,
    });
    let out = Output {
        texts: vec![TRACEBACK],
        ..Output::default()
    };
    let v = engine.observe(
        &Call {
            agent_id: Some("a"),
            name: "bash",
            arguments_json: r#"{"command":"python reproduce_bug.py"}"#,
        },
        Some(&out),
    );
    assert_eq!(
        v.and_then(|v| v.failure).map(|f| f.action),
        Some(FailureAction::Context)
    );
    // The same steps as a SWE-agent trajectory records them: bash calls.
    assert_eq!(
        action(
            &["create reproduce_bug.py"],
            "python reproduce_bug.py",
            TRACEBACK
        ),
        Some(FailureAction::Context)
    );
}

#[test]
fn a_caught_error_of_the_scripts_own_code_is_an_error() {
    // Caught and printed by the script: no traceback, no other rule.
    let write = "cat > /testbed/test_fix.py << 'EOF'\ntry:\n    f()\nexcept Exception as e:\n    print('Error:', e)\nEOF";
    let out = "Testing modpath_from_file:\n   Error: name 'modpath_from_file_with_callback' is not defined\n";
    assert_eq!(
        action(&[write], "cd /testbed && python test_fix.py", out),
        Some(FailureAction::Error)
    );
    let out = "Error: GreedyUntil.greedy_match() takes from 5 to 6 positional arguments but 7 were given\n";
    assert_eq!(
        action(&[], "python debug_match.py", out),
        Some(FailureAction::Error)
    );
    // pytest's `E   ` line of a conftest that cannot import.
    let out = "ImportError while loading conftest '/p/tests/conftest.py'.\ntests/conftest.py:9: in <module>\n    from app.schemas import X\nE   ModuleNotFoundError: No module named 'app'\n";
    assert_eq!(
        action(&[], "uv run pytest tests/ -v 2>&1 | tail -40", out),
        Some(FailureAction::Error)
    );
    // The same message quoted in a displayed file, or in prose a
    // converter printed, is content.
    let doc =
        "A missing dependency looks like:\n\n    ModuleNotFoundError: No module named 'yaml'\n";
    assert_eq!(action(&[], "pandoc docs/T.md -t plain", doc), None);
    let log = "NameError: name 'x' is not defined\n";
    assert_eq!(
        action(&[], "cat app.log", log),
        Some(FailureAction::Context)
    );
}

#[test]
fn a_count_of_failed_tests_from_an_own_script_is_an_error() {
    let write = "cat > /testbed/final_test.py << 'EOF'\nprint('x')\nEOF";
    let out = "Test 7: NaN bounds\n  \u{2717} FAILED: len() of unsized object\nResults: 7/8 tests passed\n\u{2717} 1 tests failed.\n";
    assert_eq!(
        action(&[write], "cd /testbed && python final_test.py", out),
        Some(FailureAction::Error)
    );
    // One case's mark alone, from a script that shows cases on purpose: context.
    let out = "Test 2: merge(['a'], ['b'])\n  \u{2717} FAIL\n";
    assert_eq!(
        action(&[write], "cd /testbed && python final_test.py", out),
        Some(FailureAction::Context)
    );
}

#[test]
fn a_missing_command_the_probe_did_not_ask_about_is_an_error() {
    // A tool a probe's subprocess lacked.
    let probe = "python3 -c \"\nimport os\ntry:\n    os.popen('ps aux')\nexcept OSError as e:\n    print(e)\n\"";
    assert_eq!(
        action(&[], probe, "/bin/sh: 1: ps: not found\n"),
        Some(FailureAction::Error)
    );
    // The probe's own tool is missing: it could not ask its question.
    let cmd = "pkill -f 'python -m notebook' || echo \"No existing notebook process found\"";
    let out = "/bin/sh: 1: pkill: not found\nNo existing notebook process found\n";
    assert_eq!(action(&[], cmd, out), Some(FailureAction::Error));
    // A probe that asked whether the command exists: its answer.
    let cmd = "node --version || echo \"node is not installed\"";
    let out = "bash: node: command not found\nnode is not installed\n";
    assert_eq!(action(&[], cmd, out), Some(FailureAction::Context));
    let cmd = "type rg || echo none";
    let out = "bash: type: rg: not found\nnone\n";
    assert_ne!(action(&[], cmd, out), Some(FailureAction::Error));
}

#[test]
fn an_http_error_from_inline_client_code_is_an_error() {
    let cmd = "python -c \"\nfrom fastapi.testclient import TestClient\nfrom app.main import app\nr = TestClient(app).get('/session/1')\nprint(f'Status: {r.status_code}')\nprint(f'Body: {r.text}')\n\"";
    let out = "Status: 500\nBody: {\"detail\":\"Failed to load session context\"}\n";
    assert_eq!(action(&[], cmd, out), Some(FailureAction::Error));
    // The same lines from code that talks to no HTTP client are its text.
    let cmd = "python -c \"print('Status: 500')\"";
    assert_eq!(action(&[], cmd, "Status: 500\n"), None);
}

#[test]
fn curl_of_a_bare_not_found_body_and_zsh_builtin_errors() {
    assert_eq!(
        action(
            &[],
            "curl -s http://localhost:8000/openapi.json | head -100",
            "Not found"
        ),
        Some(FailureAction::Error)
    );
    // The same word in a file shown is content.
    assert_eq!(action(&[], "cat notes.txt", "Not found\n"), None);
    let cmd =
        "source .venv/bin/activate && uvicorn app:app & sleep 3; curl -s localhost:8000/health";
    let out = "OK\n(eval):source:1: no such file or directory: .venv/bin/activate\n";
    assert_eq!(action(&[], cmd, out), Some(FailureAction::Error));
}

#[test]
fn a_test_runners_verdict_from_an_own_script_is_an_error() {
    let write = "cat > /testbed/run_tests.py << 'EOF'\nimport unittest\nEOF";
    let out = "Ran 3 tests in 0.004s\n\nFAILED (failures=1)\n";
    assert_eq!(
        action(
            &[write],
            "cd /testbed && python run_tests.py 2>&1 | tail -50",
            out
        ),
        Some(FailureAction::Error)
    );
    // The same lines in a displayed log are its content.
    assert_eq!(
        action(&[], "cat test-output.log", out),
        Some(FailureAction::Context)
    );
}

#[test]
fn a_validation_list_from_curl_is_an_error() {
    let v = "{\n    \"detail\": [\n        {\n            \"type\": \"missing\",\n            \"msg\": \"Field required\"\n        }\n    ]\n}\n";
    assert_eq!(
        action(
            &[],
            "curl -s -X POST http://localhost:8081/q | python3 -m json.tool",
            v
        ),
        Some(FailureAction::Error)
    );
    // The same JSON in a file the agent reads is content.
    assert_eq!(action(&[], "cat fixtures/422.json", v), None);
}

#[test]
fn a_fallback_that_did_not_run_is_no_probe() {
    // Each is no probe's answer (once read as one: `context`).
    // The API's error body: json.tool succeeded, the fallback never ran.
    let curl = "curl -s \"http://localhost:8081/graph/stats\" | python3 -m json.tool 2>/dev/null || echo \"No stats endpoint\"";
    let body = "{\n    \"detail\": \"Not Found\"\n}\n";
    assert_eq!(action(&[], curl, body), Some(FailureAction::Error));
    // A server started in the background never started (zsh could not
    // source its venv); the health check's fallback never ran.
    let start = "cd app && source .venv/bin/activate && uvicorn main:app --port 8000 2>&1 &\nsleep 3\ncurl -s http://localhost:8000/health 2>&1 || echo \"Backend not ready yet\"";
    let out = "OK\n(eval):source:1: no such file or directory: .venv/bin/activate\n";
    assert_eq!(action(&[], start, out), Some(FailureAction::Error));
    // The fallback ran: the probe's answer, as before.
    assert_eq!(
        action(
            &[],
            curl,
            "{\n    \"detail\": \"Not Found\"\n}\nNo stats endpoint\n"
        ),
        Some(FailureAction::Context)
    );
    // A message with an expansion may print differently: still a probe.
    let expanded = "curl -s \"$URL\" | python3 -m json.tool || echo \"no answer from $URL\"";
    assert_eq!(action(&[], expanded, body), Some(FailureAction::Context));
    // A lookup before the fallback, or try/except code: still a probe.
    let lookup = "ls logs/x.log || echo \"no log yet\"";
    assert_eq!(
        action(
            &[],
            lookup,
            "ls: cannot access 'logs/x.log': No such file or directory\n"
        ),
        Some(FailureAction::Context)
    );
    let tried = "python -c \"import os\ntry:\n    os.stat('cfg.yaml')\nexcept OSError as e:\n    print('Error:', e)\" || echo \"python missing\"";
    assert_eq!(
        action(
            &[],
            tried,
            "Error: [Errno 2] No such file or directory: 'cfg.yaml'\n"
        ),
        Some(FailureAction::Context)
    );
}

#[test]
fn an_html_error_page_from_the_network_is_an_error() {
    // Once missed: no rule read an error page.
    let page = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n  <title>SearXNG</title>\n</head>\n<body>\n  <main>\n    <h1>Page not found</h1>\n    <p>Go to <a href=\"/\">search page</a>.</p>\n  </main>\n</body>\n</html>\n";
    assert_eq!(
        action(&[], "sleep 3 && curl -s http://localhost:8080/health", page),
        Some(FailureAction::Error)
    );
    let nginx = "<html>\n<head><title>502 Bad Gateway</title></head>\n<body>\n<center><h1>502 Bad Gateway</h1></center>\n</body>\n</html>\n";
    assert_eq!(
        action(&[], "curl -s localhost:8080/api", nginx),
        Some(FailureAction::Error)
    );
    // A displayed HTML file is content, and a page about errors is no error page.
    assert_eq!(action(&[], "cat public/404.html", nginx), None);
    let docs = "<html><head><title>Handling 404 errors in Flask</title></head>\n<body><h1>Top 500 Python packages</h1></body></html>\n";
    assert_eq!(action(&[], "curl -s https://example.org/docs", docs), None);
}

#[test]
fn a_program_that_ran_names_its_own_failure() {
    // Once missed: `file format not recognized` was not one
    // of program-message's texts; any error-lexicon word counts now.
    let out = "objdump: site/docs.html: file format not recognized\ndisassembled\n";
    assert_eq!(
        action(
            &[],
            "objdump -d site/docs.html 2>&1 | head -n 5; echo disassembled",
            out
        ),
        Some(FailureAction::Error)
    );
    // The same line when objdump did not run (a displayed log), or a
    // warning of a program that ran: no failure.
    assert_eq!(action(&[], "cat build.log", out), None);
    assert_eq!(
        action(
            &[],
            "ld -o app main.o",
            "ld: warning: object file was built for a newer version\n"
        ),
        None
    );
}

#[test]
fn a_child_process_that_failed_and_a_failure_line_behind_a_hidden_status() {
    // Both once missed.
    let jobs = "job lint finished with exit code 0\njob test finished with exit code 3\n1 of 3 jobs failed\n";
    assert_eq!(
        action(&[], "python3 jobs/run_jobs.py | tail -n 4", jobs),
        Some(FailureAction::Error)
    );
    // A caught CalledProcessError reported as a warning is not one.
    let warned = "warning: Command '['sh', '-c', 'exit 2']' returned non-zero exit status 2.\nreport written\n";
    assert_eq!(action(&[], "python3 jobs/check_call.py", warned), None);
    // `Build failed.` is context on a plain run and an error when the
    // command hid the status; `None failed.` is neither.
    let build = "module ui: syntax error at ui.js:3\nBuild failed.\n";
    assert_eq!(
        action(&[], "sh jobs/build.sh", build),
        Some(FailureAction::Context)
    );
    assert_eq!(
        action(&[], "sh jobs/build.sh 2>&1 | tail -n 2", build),
        Some(FailureAction::Error)
    );
    assert_eq!(
        action(
            &[],
            "sh jobs/verify.sh | tail -n 3",
            "  c: ok\nNone failed.\n"
        ),
        None
    );
}

#[test]
fn a_caught_missing_attribute_under_a_label_is_an_error() {
    // Once missed (`caught-attribute-error`): the script caught
    // the AttributeError of its own call and printed it under a label.
    let out = "Test 1: MIGRATE=False, SERIALIZE=True\n  \u{2713} Passed\n\nTest 2: MIGRATE=False, SERIALIZE=False\n  \u{2717} Failed: AttributeError: 'NoneType' object has no attribute 'DATABASES'\n\nAll tests completed!\n";
    assert_eq!(
        action(&[], "python test_edge_cases.py", out),
        Some(FailureAction::Error)
    );
    // Not a `brokenScript` rule: from the agent's own script it is
    // excused unless the user's messages say otherwise, and a
    // displayed log does not count.
    let write = "cat > simple_test.py << 'EOF'\nprint(1)\nEOF";
    let caught = "Trying to compile ExpressionWrapper(Q(pk__in=[])):\nError: 'Q' object has no attribute 'as_sql'\n";
    assert_eq!(
        action(&[write], "python simple_test.py", caught),
        Some(FailureAction::Context)
    );
    assert_eq!(action(&[], "cat run.log", caught), None);
}

#[test]
fn a_fallback_that_says_the_command_failed_is_not_a_probe() {
    let out = "Traceback (most recent call last):\n  File \"<frozen runpy>\", line 198, in _run_module_as_main\nModuleNotFoundError: No module named 'notebook'\nConfig generation failed, continuing...\n";
    let cmd =
        "python -m notebook --generate-config || echo \"Config generation failed, continuing...\"";
    assert_eq!(action(&[], cmd, out), Some(FailureAction::Error));
    // The fallback did not print: the command before it reported
    // success, so the error it printed is no asked-for negative answer
    // (an unanswered fallback is no probe).
    let quiet = "Traceback (most recent call last):\n  File \"x.py\", line 1, in <module>\nValueError: bad value\n";
    assert_eq!(action(&[], cmd, quiet), Some(FailureAction::Error));
    // A lookup's negative answer is what was asked.
    let which = "which jupyter || echo \"jupyter lookup failed\"";
    assert_eq!(
        action(&[], which, "jupyter lookup failed\nTraceback (most recent call last):\n  File \"x\", line 1\nValueError: v\n"),
        Some(FailureAction::Context)
    );
    // A fallback that states a fact, not a failure, keeps the probe reading.
    let git = "git status 2>&1 || echo \"Not a git repo\"";
    assert_eq!(
        action(&[], git, "fatal: not a git repository (or any of the parent directories): .git\nNot a git repo\n"),
        Some(FailureAction::Context)
    );
}

#[test]
fn a_displayed_log_is_context() {
    assert_eq!(
        action(&[], "cat server.log", TRACEBACK),
        Some(FailureAction::Context)
    );
    assert_eq!(
        action(&[], "tail -n 50 /var/log/app.log", TRACEBACK),
        Some(FailureAction::Context)
    );
    // After a quiet wait (it prints nothing).
    assert_eq!(
        action(&[], "sleep 3 && cat jupyter.log", TRACEBACK),
        Some(FailureAction::Context)
    );
    // The display program's own error is its failure.
    assert_eq!(
        action(
            &[],
            "cat missing.log 2>&1 | head",
            "cat: missing.log: No such file or directory"
        ),
        Some(FailureAction::Error)
    );
}

#[test]
fn a_display_that_names_no_file_keeps_its_own_errors() {
    let out =
        "fatal: ambiguous argument 'src/x.py': unknown revision or path not in the working tree.\n";
    assert_eq!(
        action(&[], "git diff HEAD~1 src/x.py | grep -A5 main", out),
        Some(FailureAction::Error)
    );
}

#[test]
fn a_try_except_probe_is_context() {
    let probe = "python -c \"import os\ntry:\n    os.stat('cfg.yaml')\nexcept OSError as e:\n    print('Error:', e)\"";
    let out = "Error: [Errno 2] No such file or directory: 'cfg.yaml'\n";
    assert_eq!(action(&[], probe, out), Some(FailureAction::Context));
    assert_eq!(
        action(&[], "python check.py", out),
        Some(FailureAction::Error)
    );
}

#[test]
fn a_missing_log_directory_behind_a_background_job_is_an_error() {
    let cmd = "nohup python server.py > logs/x.log 2>&1 & echo Started";
    let out = "(eval):1: no such file or directory: logs/x.log\nStarted\n";
    assert_eq!(action(&[], cmd, out), Some(FailureAction::Error));
}

#[test]
fn unzip_cannot_find_is_the_programs_error() {
    let out = "unzip:  cannot find or open build/release.zip, build/release.zip.zip or build/release.zip.ZIP.\n";
    assert_eq!(
        action(&[], "cd build && unzip release.zip; ls", out),
        Some(FailureAction::Error)
    );
    // The same line in a log the agent displays is content: at most context.
    assert_eq!(
        action(&[], "cat deploy.log", out),
        Some(FailureAction::Context)
    );
}

#[test]
fn an_empty_error_member_of_a_health_answer_is_no_error() {
    // NestJS terminus answers a healthy check with `"error": {}`: an
    // error before (http-error-body read any `"error": {`).
    let health = "{\"status\":\"ok\",\"info\":{\"database\":{\"status\":\"up\"}},\"error\":{},\"details\":{\"database\":{\"status\":\"up\"}}}";
    assert_eq!(
        action(&[], "curl -s http://localhost:3000/health", health),
        None
    );
    let pretty =
        "{\n  \"status\": \"ok\",\n  \"error\": {},\n  \"errors\": [],\n  \"detail\": null\n}\n";
    assert_eq!(
        action(
            &[],
            "curl -s localhost:3000/health | python3 -m json.tool",
            pretty
        ),
        None
    );
    // An error member with content still is one.
    let failed =
        "{\n  \"error\": {\n    \"code\": 503,\n    \"message\": \"database down\"\n  }\n}\n";
    assert_eq!(
        action(&[], "curl -s localhost:3000/health", failed),
        Some(FailureAction::Error)
    );
}

#[test]
fn an_api_error_body_from_curl_is_an_error() {
    let out = "{\"detail\":\"Not Found\"}";
    assert_eq!(
        action(&[], "curl -s http://localhost:8000/api/items/9", out),
        Some(FailureAction::Error)
    );
    assert_eq!(
        action(
            &[],
            "curl -s -X POST https://api.example.com/v1/login -d @body.json",
            "{\"code\":-1,\"msg\":\"Auth failed\"}"
        ),
        Some(FailureAction::Error)
    );
    // Not from the network: the same JSON is content.
    assert_eq!(action(&[], "cat fixtures/not_found.json", out), None);
    // Without a command it scans as before (no such rule then).
    let engine = Engine::new(&Config::default()).unwrap();
    let output = Output {
        texts: vec![out],
        ..Output::default()
    };
    assert!(engine.scan("bash", &output).is_none());
}

#[test]
fn installer_noise_on_a_successful_install_is_not_a_failure() {
    let out = "Setting up nginx (1.24.0-2) ...\ninvoke-rc.d: could not determine current runlevel\ninvoke-rc.d: policy-rc.d denied execution of start.\nProcessing triggers for man-db (2.12.0-4) ...\n";
    assert_eq!(action(&[], "apt-get install -y nginx", out), None);
    // A real error among the noise still counts.
    let bad = format!("{out}dpkg: error processing package nginx (--configure):\n");
    assert_eq!(
        action(&[], "apt-get install -y nginx", &bad),
        Some(FailureAction::Error)
    );
}

#[test]
fn a_context_rule_behind_a_hidden_status_is_an_error() {
    let panic =
        "thread 'main' panicked at src/main.rs:2:5:\nboom\nnote: run with `RUST_BACKTRACE=1`\n";
    assert_eq!(
        action(&[], "cargo run", panic),
        Some(FailureAction::Context)
    );
    assert_eq!(
        action(&[], "cargo run 2>&1 | tail -5", panic),
        Some(FailureAction::Error)
    );
    assert_eq!(
        action(&[], "cargo run || true", panic),
        Some(FailureAction::Error)
    );
}

#[test]
fn only_a_redirect_to_a_file_is_modelled_for_writes() {
    assert!(super::writes_a_file("cat > f.py << EOF"));
    assert!(super::writes_a_file("echo x >>notes.txt"));
    assert!(!super::writes_a_file("python x.py 2>&1 | tail"));
    assert!(!super::writes_a_file("grep -r x . 2>/dev/null"));
    assert!(!super::writes_a_file("echo done >&2"));
}

#[test]
fn shell_tool_names_are_compared_without_case() {
    let engine = Engine::new(&Config::default()).unwrap();
    for name in [
        "Bash",
        "bash",
        "BASH",
        "execute_bash",
        "exec_command",
        "shell",
        "run",
        "pwsh",
        "job_output",
    ] {
        assert!(engine.scans(name), "{name}");
    }
    assert!(!engine.scans("Read"));
}
