use super::*;

/// `cases.tsv`: real one-line commands (from ../shared/wild and corpus/)
/// with the facts the model must give. Each line: effect, facts (space
/// separated; an unlisted fact is not checked), the command line.
/// Facts: `reads=p[@a-b|@first:N|@last:N|@from:N],…` `writes=p,…`
/// `masks=pipeline,fallback,sequence,background|none` `probe` `noprobe`
/// `display` `programs=a,b` `script=p` `answer=1` `reporter=prog`.
const CASES: &str = include_str!("cases.tsv");

/// The engine's failure verdict on `output` of a `bash` call running
/// `command` (after `before`, each with an empty output), with `statuses`:
/// the scanner's (intent.rs) and exact mode's (exact.rs) tests drive it alike.
pub(super) fn bash_failure(
    before: &[&str],
    command: &str,
    output: &str,
    statuses: Option<&crate::shell::exact::ExitStatuses>,
) -> Option<crate::engine::Failure> {
    use crate::engine::{Call, Engine, Output};
    let mut engine = Engine::new(&crate::config::Config::default()).unwrap();
    let args = |c: &str| serde_json::json!({ "command": c }).to_string();
    fn call(arguments_json: &str) -> Call<'_> {
        Call {
            agent_id: Some("a"),
            name: "bash",
            arguments_json,
        }
    }
    for b in before {
        let a = args(b);
        let empty = Output {
            texts: vec![""],
            ..Output::default()
        };
        engine.observe(&call(&a), Some(&empty));
    }
    let a = args(command);
    let out = Output {
        texts: vec![output],
        exit_statuses: statuses,
        ..Output::default()
    };
    engine.observe(&call(&a), Some(&out))?.failure
}

fn range_str(r: &Option<LineRange>) -> String {
    match r {
        None => String::new(),
        Some(LineRange::Lines { start, end }) if *end == u64::MAX => format!("@{start}-$"),
        Some(LineRange::Lines { start, end }) => format!("@{start}-{end}"),
        Some(LineRange::First(n)) => format!("@first:{n}"),
        Some(LineRange::Last(n)) => format!("@last:{n}"),
        Some(LineRange::From(n)) => format!("@from:{n}"),
    }
}

fn mask_str(m: &Mask) -> &'static str {
    match m {
        Mask::Pipeline => "pipeline",
        Mask::Fallback => "fallback",
        Mask::Sequence => "sequence",
        Mask::Background => "background",
    }
}

fn check_case(line_no: usize, effect: &str, facts: &str, command: &str) -> Vec<String> {
    let m = parse(&command.replace("\\n", "\n"));
    let mut errs = Vec::new();
    let mut fail = |what: String| errs.push(format!("cases.tsv:{line_no}: {what}\n    {command}"));
    let got = m.effect.map_or("none", Effect::as_str);
    if got != effect {
        fail(format!("effect {got}, want {effect}"));
    }
    for fact in facts.split_whitespace() {
        let (k, v) = fact.split_once('=').unwrap_or((fact, ""));
        match k {
            "reads" => {
                let got: Vec<String> = m
                    .reads
                    .iter()
                    .map(|r| format!("{}{}", r.path, range_str(&r.range)))
                    .collect();
                if got.join(",") != v {
                    fail(format!("reads {got:?}, want {v}"));
                }
            }
            "writes" => {
                if m.writes.join(",") != v {
                    fail(format!("writes {:?}, want {v}", m.writes));
                }
            }
            "masks" => {
                let got: Vec<&str> = m.masks.iter().map(mask_str).collect();
                let want = if v == "none" {
                    String::new()
                } else {
                    v.to_owned()
                };
                if got.join(",") != want {
                    fail(format!("masks {got:?}, want {v}"));
                }
            }
            "probe" if !m.probe => fail("not a probe".into()),
            "noprobe" if m.probe => fail("a probe".into()),
            "display" if !m.displays_only => fail("not displays_only".into()),
            "nodisplay" if m.displays_only => fail("displays_only".into()),
            "programs" => {
                if m.programs.join(",") != v {
                    fail(format!("programs {:?}, want {v}", m.programs));
                }
            }
            "script" => {
                let got: Vec<&str> = m.scripts().collect();
                if got.join(",") != v {
                    fail(format!("scripts {got:?}, want {v}"));
                }
            }
            "answer" => {
                let want: Vec<i32> = v.split(',').filter_map(|s| s.parse().ok()).collect();
                if m.answer_exits() != want.as_slice() {
                    fail(format!("answer exits {:?}, want {v}", m.answer_exits()));
                }
            }
            "reporter" => {
                let got = m.reporter().map_or("", |c| c.program.as_str());
                if got != v {
                    fail(format!("reporter {got}, want {v}"));
                }
            }
            "probe" | "noprobe" | "display" | "nodisplay" => {}
            other => fail(format!("unknown fact {other}")),
        }
    }
    errs
}

#[test]
fn real_command_lines() {
    let mut errs = Vec::new();
    let mut n = 0;
    for (i, line) in CASES.lines().enumerate() {
        if line.trim().is_empty() || line.starts_with('#') {
            continue;
        }
        let mut parts = line.splitn(3, '\t');
        let (Some(effect), Some(facts), Some(command)) = (parts.next(), parts.next(), parts.next())
        else {
            errs.push(format!(
                "cases.tsv:{}: needs three tab-separated fields",
                i + 1
            ));
            continue;
        };
        n += 1;
        errs.extend(check_case(i + 1, effect, facts, command));
    }
    assert!(n >= 60, "the table has {n} cases");
    assert!(
        errs.is_empty(),
        "{} of {n} cases wrong:\n{}",
        errs.len(),
        errs.join("\n")
    );
}

#[test]
fn table_is_well_formed() {
    let root: Value =
        serde_json::from_str(include_str!("../../../../rules/programs.json")).unwrap();
    let programs = root["programs"].as_object().unwrap();
    for (name, row) in programs {
        if let Some(target) = row.get("alias") {
            assert!(
                programs.contains_key(target.as_str().unwrap()),
                "{name}: alias of an unknown program"
            );
            continue;
        }
        let effect = row["effect"]
            .as_str()
            .unwrap_or_else(|| panic!("{name}: no effect"));
        assert!(
            Effect::parse(effect).is_some(),
            "{name}: unknown effect {effect}"
        );
        for (sub, s) in row
            .get("subcommands")
            .and_then(Value::as_object)
            .into_iter()
            .flatten()
        {
            let e = s["effect"]
                .as_str()
                .unwrap_or_else(|| panic!("{name} {sub}: no effect"));
            assert!(
                Effect::parse(e).is_some(),
                "{name} {sub}: unknown effect {e}"
            );
        }
        for (flag, e) in row
            .get("flags")
            .and_then(Value::as_object)
            .into_iter()
            .flatten()
        {
            assert!(
                Effect::parse(e.as_str().unwrap_or("")).is_some(),
                "{name} {flag}: unknown effect"
            );
        }
        for key in ["paths", "writes"] {
            if let Some(v) = row.get(key) {
                assert!(
                    matches!(
                        v.as_str(),
                        Some("operands" | "after-first" | "last" | "none")
                    ),
                    "{name}: bad {key}"
                );
            }
        }
        assert!(programs::known(name));
    }
    let tools: Value =
        serde_json::from_str(include_str!("../../../../rules/shell-tools.json")).unwrap();
    assert!(tools["shellTools"].as_array().unwrap().len() >= 10);
    assert!(is_shell_tool("Bash") && is_shell_tool("bash") && is_shell_tool("execute_bash"));
    assert!(!is_shell_tool("Read"));
}

#[test]
fn never_panics_on_hostile_input() {
    let mut s = String::new();
    for piece in [
        "'",
        "\"",
        "$(",
        "`",
        "<<",
        "EOF\n",
        "|",
        "||",
        "&",
        "(",
        ")",
        "{",
        "}",
        "\\",
        "2>",
        ";",
        "bash -c '",
        "python -c \"",
    ] {
        s.push_str(piece);
        let _ = parse(&s);
        let _ = parse(piece);
    }
    let long = "a | ".repeat(100_000);
    let m = parse(&long);
    assert!(m.truncated && m.commands.len() <= MAX_COMMANDS);
    let nested = "bash -c \"".repeat(50) + "ls";
    let _ = parse(&nested);
    // Not shell (`a (b)`): the group is not a stage of the words before it.
    assert!(!parse("%(*").masks.contains(&Mask::Pipeline));
    // A bare string or malformed text is not a command.
    assert_eq!(command_of(r#""ls | tail""#), None);
    assert_eq!(command_of("{bad"), None);
    let unicode = "echo é€😀 | grep 'ü' > ñ";
    assert_eq!(parse(unicode).writes, vec!["ñ"]);
    // Cut inside a multi-byte character.
    let cut = "é".repeat(MAX_INPUT);
    assert!(parse(&cut).truncated);
}

#[test]
fn non_shell_tools() {
    let m = classify_call("Read", r#"{"file_path":"/a/b.py","offset":10,"limit":5}"#);
    assert_eq!(m.effect, Some(Effect::Read));
    assert_eq!(
        m.reads,
        vec![PathRead {
            path: "/a/b.py".into(),
            range: Some(LineRange::Lines { start: 10, end: 14 })
        }]
    );
    let m = classify_call(
        "str_replace_editor",
        r#"{"command":"view","path":"/x.py","view_range":[5,-1]}"#,
    );
    assert_eq!(m.effect, Some(Effect::Read));
    assert_eq!(
        m.reads[0].range,
        Some(LineRange::Lines {
            start: 5,
            end: u64::MAX
        })
    );
    let m = classify_call(
        "str_replace_editor",
        r#"{"command":"str_replace","path":"/x.py","old_str":"a","new_str":"b"}"#,
    );
    assert_eq!(
        (m.effect, m.writes.clone()),
        (Some(Effect::Write), vec!["/x.py".to_owned()])
    );
    // SWE-agent's command form names the path after the tool's name.
    let m = classify_call("create", r#"{"command":"create reproduce_bug.py"}"#);
    assert_eq!(
        (m.effect, m.writes.clone()),
        (Some(Effect::Write), vec!["reproduce_bug.py".to_owned()])
    );
    let m = classify_call(
        "edit",
        r#"{"command":"edit 1:1\nimport numpy\nend_of_edit"}"#,
    );
    assert!(m.writes.is_empty(), "{:?}", m.writes);
    let m = classify_call(
        "Edit",
        r#"{"file_path":"src/a.rs","old_string":"x","new_string":"y"}"#,
    );
    assert_eq!(m.effect, Some(Effect::Write));
    let m = classify_call(
        "apply_patch",
        r#"{"input":"*** Begin Patch\n*** Update File: src/a.py\n@@\n-x\n+y\n*** End Patch"}"#,
    );
    assert_eq!(
        (m.effect, m.writes.clone()),
        (Some(Effect::Write), vec!["src/a.py".to_owned()])
    );
    assert_eq!(
        classify_call("mcp__playwright__browser_click", "{}").effect,
        Some(Effect::Write)
    );
    assert_eq!(
        classify_call("browser_navigate", r#"{"url":"x"}"#).effect,
        Some(Effect::Write)
    );
    assert_eq!(
        classify_call("browser_navigate_back", "{}").effect,
        Some(Effect::Navigate)
    );
    assert_eq!(
        classify_call("BashOutput", r#"{"bash_id":"1"}"#).effect,
        Some(Effect::Wait)
    );
    assert_eq!(
        classify_call("Grep", r#"{"pattern":"x"}"#).effect,
        Some(Effect::Search)
    );
    // A to-do list is bookkeeping: no file changes (the harness tool model).
    assert_eq!(classify_call("TodoWrite", "{}").effect, Some(Effect::Other));
    // OpenHands' IPython tool: one agent-skill call says what it does.
    let ipython = |code: &str| {
        classify_call(
            "run_ipython",
            &serde_json::json!({ "code": code, "kernel_init_code": "from agentskills import *" })
                .to_string(),
        )
        .effect
    };
    assert_eq!(
        ipython("open_file('/workspace/src/a.tsx')"),
        Some(Effect::Read)
    );
    assert_eq!(
        ipython("edit_file_by_replace(\n'/a.py',\nto_replace=\"x\",\nnew_content=\"y\"\n)"),
        Some(Effect::Write)
    );
    assert_eq!(ipython("search_dir('foo', '/repo')"), Some(Effect::Search));
    assert_eq!(ipython("import os\nprint(os.getcwd())"), None);
    // Shell tools by any case, the command under any of the usual keys.
    let m = classify_call("Bash", r#"{"command":"cat a.log","description":"x"}"#);
    assert!(m.is_shell && m.displays_only);
    let m = classify_call(
        "shell",
        r#"{"command":["bash","-lc","git diff > fix.patch"]}"#,
    );
    assert_eq!(
        (m.effect, m.writes.clone()),
        (Some(Effect::Write), vec!["fix.patch".to_owned()])
    );
    let m = classify_call("exec_command", r#"{"cmd":"pytest -q | tail -3"}"#);
    assert_eq!(m.effect, Some(Effect::Test));
    assert_eq!(m.masks, vec![Mask::Pipeline]);
    let m = classify_call("execute_bash", r#"{"command":"python reproduce.py"}"#);
    assert_eq!(m.scripts().collect::<Vec<_>>(), vec!["reproduce.py"]);
}

#[test]
fn heredoc_writes_and_inline_probe() {
    let m = parse("cat > /testbed/repro.py << 'EOF'\nimport x\ntry:\n  x.f()\nexcept Exception as e:\n  print(e)\nEOF");
    assert_eq!(m.effect, Some(Effect::Write));
    assert_eq!(m.writes, vec!["/testbed/repro.py"]);
    assert!(!m.probe, "writing a file is not a probe");
    let m = parse(
        "python - <<'EOF'\ntry:\n    open('x')\nexcept OSError as e:\n    print('Error:', e)\nEOF",
    );
    assert!(m.probe);
    assert_eq!(m.effect, Some(Effect::Run));
    let m = parse(
        r#"python -c "import os
try:
    os.stat('x')
except OSError as e:
    print('Error:', e)""#,
    );
    assert!(m.probe);
}

/// `SHELL_MODEL_DUMP=file cargo test -p toolguard-core dump_commands -- --nocapture`:
/// the model of every line of a file (for reading the model on real sessions).
#[test]
fn dump_commands() {
    let Ok(path) = std::env::var("SHELL_MODEL_DUMP") else {
        return;
    };
    let text = std::fs::read_to_string(path).unwrap_or_default();
    // The model's cost per command line (a release build gives the real figure).
    let started = std::time::Instant::now();
    let rounds = 20;
    for _ in 0..rounds {
        for line in text.lines() {
            std::hint::black_box(classify_call(
                "bash",
                &serde_json::json!({ "command": line }).to_string(),
            ));
        }
    }
    let lines = text.lines().count().max(1);
    println!(
        "# {:?} per call (classify_call, {lines} lines x {rounds})",
        started.elapsed() / (lines * rounds) as u32
    );
    for line in text.lines() {
        let m = parse(line);
        let masks: Vec<&str> = m.masks.iter().map(mask_str).collect();
        let reads: Vec<String> = m
            .reads
            .iter()
            .map(|r| format!("{}{}", r.path, range_str(&r.range)))
            .collect();
        println!(
            "{:8} p={} r={} w={} m={} {}{}| {}",
            m.effect.map_or("none", Effect::as_str),
            m.programs.join(","),
            reads.join(","),
            m.writes.join(","),
            masks.join(","),
            if m.probe { "PROBE " } else { "" },
            if m.displays_only { "DISPLAY " } else { "" },
            line
        );
    }
}

/// `tool-cases.tsv`: calls of tools that are not shells (and SWE-agent's
/// commands in a shell line), with the effect and paths the harness tool
/// model gives. The reference engine reads the same file
/// (__test__/harness-tools.test.mjs).
#[test]
fn harness_tool_cases() {
    let mut errs = Vec::new();
    let mut n = 0;
    for (i, line) in include_str!("tool-cases.tsv").lines().enumerate() {
        if line.trim().is_empty() || line.starts_with('#') {
            continue;
        }
        n += 1;
        let mut cols = line.split('\t');
        let (effect, tool, args) = (
            cols.next().unwrap(),
            cols.next().unwrap(),
            cols.next().unwrap_or(""),
        );
        let m = classify_call(tool, args);
        let got = m.effect.map_or("none", Effect::as_str);
        if got != effect {
            errs.push(format!(
                "line {}: {tool} {args}: effect {got}, want {effect}",
                i + 1
            ));
        }
        for fact in cols
            .next()
            .unwrap_or("")
            .split(' ')
            .filter(|f| !f.is_empty())
        {
            let (k, v) = fact.split_once('=').unwrap_or((fact, ""));
            let got = match k {
                "writes" => m.writes.join(","),
                "reads" => m
                    .reads
                    .iter()
                    .map(|r| r.path.as_str())
                    .collect::<Vec<_>>()
                    .join(","),
                _ => panic!("line {}: unknown fact {k}", i + 1),
            };
            if got != v {
                errs.push(format!(
                    "line {}: {tool} {args}: {k} {got:?}, want {v:?}",
                    i + 1
                ));
            }
        }
    }
    assert!(n > 50);
    assert!(errs.is_empty(), "{}", errs.join("\n"));
}
