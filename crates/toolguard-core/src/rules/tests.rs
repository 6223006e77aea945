//! Rule table, merging, scanning semantics and every built-in rule against
//! its fixtures in `__test__/fixtures/rules/`.

use super::*;
use serde_json::Value;

fn rule(id: &str, pattern: &str, action: Action, when: When) -> Rule {
    Rule {
        id: id.into(),
        pattern: pattern.into(),
        flags: "m".into(),
        action,
        when,
        message: format!("{id} matched"),
        reason: String::new(),
        unless: None,
    }
}

fn fixture(name: &str) -> String {
    let path = format!(
        "{}/../../__test__/fixtures/rules/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

#[test]
fn builtin_table_is_well_formed() {
    let rules = builtin_rules();
    assert!(rules.len() >= 14, "{} rules", rules.len());
    let mut ids = std::collections::HashSet::new();
    for r in &rules {
        assert!(ids.insert(r.id.clone()), "duplicate id {}", r.id);
        assert!(
            !r.message.contains('\n'),
            "{}: message must be one line",
            r.id
        );
        compile_rule(r).unwrap();
    }
    // Every built-in carries a written reason (read from the JSON, not the model).
    let raw: Value = serde_json::from_str(include_str!("../../../../rules/builtin.json")).unwrap();
    for r in raw.as_array().unwrap() {
        let reason = r.get("reason").and_then(Value::as_str).unwrap_or("");
        assert!(reason.len() > 20, "{}: reason missing", r["id"]);
    }
}

/// Each built-in matches its realistic positive output and not its benign
/// lookalike, and no other built-in fires on the lookalike by accident.
#[test]
fn builtin_rules_against_fixtures() {
    let set = RuleSet::compile(vec![]).unwrap();
    for (i, r) in set.rules().iter().enumerate() {
        let pos = fixture(&format!("{}.pos.txt", r.id));
        let neg = fixture(&format!("{}.neg.txt", r.id));
        let hits = set.scan_after(&pos, false);
        let hit = hits.iter().find(|m| m.rule == i);
        assert!(hit.is_some(), "{} does not match its .pos fixture", r.id);
        assert!(!hit.unwrap().excerpt.is_empty(), "{}: empty excerpt", r.id);
        let neg_hits = set.scan_after(&neg, false);
        assert!(
            !neg_hits.iter().any(|m| m.rule == i),
            "{} matches its .neg fixture: {:?}",
            r.id,
            neg_hits
        );
    }
}

#[test]
fn merge_replaces_in_place_and_appends_in_order() {
    let builtin = vec![
        rule("a", "x", Action::Error, When::Success),
        rule("b", "y", Action::Error, When::Success),
    ];
    let user = vec![
        rule("new1", "n", Action::Context, When::Always),
        rule("b", "yy", Action::Off, When::Success),
        rule("new2", "m", Action::Error, When::Success),
    ];
    let t = merge(builtin, user).unwrap();
    let ids: Vec<&str> = t.iter().map(|r| r.id.as_str()).collect();
    assert_eq!(ids, ["a", "b", "new1", "new2"]);
    assert_eq!(t[1].pattern, "yy");
    assert_eq!(t[1].action, Action::Off);
}

#[test]
fn merge_rejects_two_user_rules_with_one_id() {
    let e = merge(
        vec![],
        vec![
            rule("dup", "a", Action::Error, When::Success),
            rule("dup", "b", Action::Error, When::Success),
        ],
    )
    .unwrap_err();
    assert_eq!(
        e.to_string(),
        "loud-failure: rule dup: two user rules have this id"
    );
    // also when the id is a built-in's
    let e = RuleSet::compile(vec![
        rule("git-fatal", "a", Action::Error, When::Success),
        rule("git-fatal", "b", Action::Error, When::Success),
    ])
    .err()
    .unwrap();
    assert!(e.to_string().contains("rule git-fatal:"), "{e}");
}

#[test]
fn load_errors_name_the_rule() {
    let bad = |r: Rule| RuleSet::compile(vec![r]).err().unwrap().to_string();
    let mut r = rule("my-rule", "a(?=b)", Action::Error, When::Success);
    assert_eq!(
        bad(r.clone()),
        "loud-failure: rule my-rule: lookahead (?=…) is not supported by the linear-time engine"
    );
    r.pattern = "a".into();
    r.flags = "g".into();
    assert!(bad(r.clone()).starts_with("loud-failure: rule my-rule: flag 'g' is stateful"));
    r.flags = String::new();
    r.message = " ".into();
    assert_eq!(
        bad(r.clone()),
        "loud-failure: rule my-rule: `message` must not be empty"
    );
    r.message = "m".into();
    r.pattern = "(".into();
    assert!(bad(r.clone()).starts_with("loud-failure: rule my-rule: unterminated group"));
    r.id = String::new();
    assert!(bad(r.clone()).contains("`id` must not be empty"));
    // an `off` rule's pattern is still validated
    let mut off = rule("off-rule", "(a", Action::Off, When::Success);
    assert!(bad(off.clone()).starts_with("loud-failure: rule off-rule:"));
    off.pattern = "a".into();
    assert!(RuleSet::compile(vec![off]).is_ok());
}

#[test]
fn too_big_pattern_is_a_load_error() {
    let r = rule("huge", r"\w{90000}", Action::Error, When::Success);
    let e = RuleSet::compile_table(vec![r]).err().unwrap().to_string();
    assert!(
        e.starts_with("loud-failure: rule huge: pattern is too big"),
        "{e}"
    );
}

/// Built-in rows and user rules share one decoder: a row copied from
/// `rules/builtin.json` (with its `reason`) is a valid user rule.
#[test]
fn builtin_rows_decode_as_user_rules() {
    let rows = ConfigValue::from_json(include_str!("../../../../rules/builtin.json")).unwrap();
    let ConfigValue::Array(rows) = rows else {
        panic!("array")
    };
    let first = rows[0].clone();
    let config = ConfigValue::Object(vec![(
        "loudFailure".into(),
        ConfigValue::Object(vec![("rules".into(), ConfigValue::Array(vec![first]))]),
    )]);
    let config = crate::config::Config::from_value(&config).unwrap();
    assert_eq!(config.loud_failure.rules[0], builtin_rules()[0]);
    assert!(!config.loud_failure.rules[0].reason.is_empty());
    RuleSet::compile(config.loud_failure.rules).unwrap();
}

#[test]
fn off_by_id_alone_switches_a_builtin_off() {
    let id = builtin_rules()[0].id.clone();
    let off = rule_from_value(
        &ConfigValue::from_json(&format!(r#"{{"id":"{id}","action":"off"}}"#)).unwrap(),
        &crate::error::KeyPath::root("rules").index(0),
    )
    .unwrap();
    let set = RuleSet::compile(vec![off.clone()]).unwrap();
    assert_eq!(set.rules()[0].action, Action::Off);
    let pos = fixture(&format!("{id}.pos.txt"));
    assert!(set.scan(&pos).iter().all(|m| m.id != id));
    // The same shape naming no built-in is a typo, not a silent no-op.
    let typo = Rule {
        id: format!("{id}-typo"),
        ..off
    };
    assert_eq!(
        RuleSet::compile(vec![typo]).err().unwrap().to_string(),
        format!("loud-failure: rule {id}-typo: `action: 'off'` without a `pattern` switches off a built-in rule, and no built-in rule has this id")
    );
}

#[test]
fn empty_pattern_is_rejected() {
    let e = rule_from_value(
        &ConfigValue::from_json(r#"{"id":"x","pattern":"","action":"error","message":"m"}"#)
            .unwrap(),
        &crate::error::KeyPath::root("rules").index(0),
    )
    .unwrap_err();
    assert_eq!(
        e.to_string(),
        "loud-failure: rule x: `pattern` must not be empty"
    );
}

fn table() -> RuleSet {
    RuleSet::compile_table(vec![
        rule("first", "^boom", Action::Context, When::Success),
        rule("second", "crash$", Action::Error, When::Always),
        rule("never", "boom", Action::Off, When::Always),
    ])
    .unwrap()
}

#[test]
fn scan_reports_each_rule_once_at_its_first_match_in_table_order() {
    let text = "ok\n  crash\nboom one\nboom two\n";
    let m = table().scan(text);
    assert_eq!(m.len(), 2);
    assert_eq!(
        (m[0].id.as_str(), m[0].line, m[0].excerpt.as_str()),
        ("first", 3, "boom one")
    );
    assert_eq!(
        (m[1].id.as_str(), m[1].line, m[1].excerpt.as_str()),
        ("second", 2, "crash")
    );
    assert_eq!(m[1].rule, 1);
    assert_eq!(m[1].action, Action::Error);
    assert_eq!(m[0].message, "first matched");
}

#[test]
fn success_rules_are_skipped_when_output_shows_failure() {
    let text = "boom\ncrash\n[exit code: 2]\n";
    let m = table().scan(text);
    assert_eq!(
        m.iter().map(|m| m.id.as_str()).collect::<Vec<_>>(),
        ["second"]
    );
    // the caller can decide the status itself
    assert_eq!(table().scan_after("boom\n", true).len(), 0);
    assert_eq!(table().scan_after("boom\n[exit code: 2]", false).len(), 1);
}

#[test]
fn excerpt_is_trimmed_and_cut() {
    let long = format!("  boom {}\t\r\nnext", "é".repeat(300));
    let boom =
        RuleSet::compile_table(vec![rule("b", "boom", Action::Error, When::Success)]).unwrap();
    let m = &boom.scan(&long)[0];
    assert_eq!(m.excerpt.chars().count(), 201);
    assert!(m.excerpt.starts_with("boom é") && m.excerpt.ends_with("é…"));
    let exact = format!("boom{}", "x".repeat(196));
    assert_eq!(boom.scan(&exact)[0].excerpt, exact);
    // the match start decides the line, even for a match spanning lines
    let r =
        RuleSet::compile_table(vec![rule("span", r"a\nb", Action::Error, When::Success)]).unwrap();
    let m = &r.scan("x\n a\nb")[0];
    assert_eq!((m.line, m.excerpt.as_str()), (2, "a"));
}

#[test]
fn crlf_output_lines() {
    let r = table();
    let m = r.scan("x\r\ncrash\r\nboom\r\n");
    assert_eq!(
        m.iter()
            .map(|m| (m.id.as_str(), m.line))
            .collect::<Vec<_>>(),
        [("first", 3), ("second", 2)]
    );
}

#[test]
fn strategies_agree() {
    let set = RuleSet::compile(vec![]).unwrap();
    let mut corpus = String::new();
    for r in set.rules() {
        corpus.push_str(&fixture(&format!("{}.pos.txt", r.id)));
        corpus.push_str(&fixture(&format!("{}.neg.txt", r.id)));
    }
    for failed in [false, true] {
        assert_eq!(
            set.scan_with(&corpus, failed, Strategy::Loop),
            set.scan_with(&corpus, failed, Strategy::Set)
        );
    }
}

#[test]
fn many_user_rules_load_and_scan() {
    let user: Vec<Rule> = (0..10_000)
        .map(|i| {
            rule(
                &format!("u{i}"),
                &format!(r"^step {i} failed: \w+"),
                Action::Context,
                When::Success,
            )
        })
        .collect();
    let set = RuleSet::compile(user).unwrap();
    let text = "step 9998 ok\nstep 9999 failed: disk\n".repeat(100);
    let m = set.scan(&text);
    assert_eq!(m.len(), 1);
    assert_eq!((m[0].id.as_str(), m[0].line), ("u9999", 2));
}

#[test]
fn user_rule_catastrophic_for_backtracking_is_linear() {
    let set =
        RuleSet::compile_table(vec![rule("evil", "(a+)+$", Action::Error, When::Success)]).unwrap();
    let text = "a".repeat(1 << 20) + "!";
    assert!(set.scan(&text).is_empty());
}

/// The per-rule variant lines (`variants.json`, also read by the JS test):
/// every tool-format variant a rule claims, and near-misses it must skip.
#[test]
fn builtin_rules_against_variant_lines() {
    let v: Value = serde_json::from_str(&fixture("variants.json")).unwrap();
    for r in builtin_rules() {
        let re = compile_rule(&r).unwrap();
        let case = &v[&r.id];
        for s in case["match"]
            .as_array()
            .unwrap_or_else(|| panic!("{}: no variants", r.id))
        {
            assert!(re.is_match(s.as_str().unwrap()), "{} misses {s}", r.id);
        }
        for s in case["nomatch"].as_array().unwrap() {
            assert!(!re.is_match(s.as_str().unwrap()), "{} matches {s}", r.id);
        }
    }
}

/// Every built-in has required literals (so the literal strategy never runs
/// it on text without them); printed for review with `--nocapture`.
#[test]
fn builtin_rules_have_required_literals() {
    for r in builtin_rules() {
        let c = check_rule(&r).unwrap();
        let lits: Vec<String> = c
            .literals
            .iter()
            .flatten()
            .map(|l| String::from_utf8_lossy(l).into_owned())
            .collect();
        println!(
            "{:<20} line-local={:<5} at-line-start={:<5} {lits:?}",
            r.id, c.line_local, c.at_line_start
        );
        assert!(c.literals.is_some(), "{} has no required literal", r.id);
    }
}

/// Differential: Literal, Set and Loop against the oracle on fixtures,
/// variant lines and a seeded generated corpus. Returns comparisons made.
fn differential(set: &RuleSet, texts: &[String]) -> usize {
    let rules = set.rules().to_vec();
    let compiled: Vec<regex::Regex> = rules.iter().map(|r| compile_rule(r).unwrap()).collect();
    let mut n = 0;
    for text in texts {
        for failed in [false, true] {
            let want: Vec<(usize, usize)> = rules
                .iter()
                .enumerate()
                .filter(|(_, r)| r.action != Action::Off && !(failed && r.when == When::Success))
                .filter_map(|(i, _)| compiled[i].find(text).map(|m| (i, m.start())))
                .collect();
            let eligible = |i: usize| {
                let r = &rules[i];
                r.action != Action::Off && !(failed && r.when == When::Success)
            };
            for strategy in [Strategy::Literal, Strategy::Set, Strategy::Loop] {
                let got = set.scanner.first_matches(text, strategy, &eligible);
                assert_eq!(got, want, "{strategy:?} on {text:?}");
                n += 1;
            }
        }
    }
    n
}

/// xorshift: deterministic, dependency-free.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn pick<'a, T>(&mut self, xs: &'a [T]) -> &'a T {
        &xs[(self.next() % xs.len() as u64) as usize]
    }
}

fn corpus_lines() -> Vec<String> {
    let v: Value = serde_json::from_str(&fixture("variants.json")).unwrap();
    let mut lines = Vec::new();
    for r in builtin_rules() {
        for s in v[&r.id]["match"]
            .as_array()
            .unwrap()
            .iter()
            .chain(v[&r.id]["nomatch"].as_array().unwrap())
        {
            lines.push(s.as_str().unwrap().to_string());
        }
        for kind in ["pos", "neg"] {
            lines.extend(
                fixture(&format!("{}.{kind}.txt", r.id))
                    .lines()
                    .map(str::to_string),
            );
        }
    }
    lines
}

#[test]
fn strategies_agree_with_the_oracle() {
    let set = RuleSet::compile(vec![]).unwrap();
    let v: Value = serde_json::from_str(&fixture("variants.json")).unwrap();
    let mut texts = Vec::new();
    for r in set.rules() {
        texts.push(fixture(&format!("{}.pos.txt", r.id)));
        texts.push(fixture(&format!("{}.neg.txt", r.id)));
        for s in v[&r.id]["match"]
            .as_array()
            .unwrap()
            .iter()
            .chain(v[&r.id]["nomatch"].as_array().unwrap())
        {
            texts.push(s.as_str().unwrap().to_string());
        }
    }
    // Generated: fixture and variant lines shuffled together, with edits that
    // move anchors and literals (prefixes, CR, cut lines, joined lines).
    let lines = corpus_lines();
    let mut rng = Rng(0x2545_F491_4F6C_DD1D);
    for _ in 0..600 {
        let mut text = String::new();
        for _ in 0..(1 + rng.next() % 12) {
            let mut line = rng.pick(&lines).clone();
            match rng.next() % 8 {
                0 => line.insert_str(0, rng.pick::<&str>(&[" ", "\t", "x", "> ", "\r"])),
                1 => line.push('\r'),
                2 => {
                    let mut cut = (rng.next() % (line.len() as u64 + 1)) as usize;
                    while !line.is_char_boundary(cut) {
                        cut -= 1;
                    }
                    line.truncate(cut);
                }
                3 => {
                    let other = rng.pick(&lines).clone();
                    line.push_str(&other);
                }
                _ => {}
            }
            text.push_str(&line);
            text.push_str(rng.pick::<&str>(&["\n", "\n", "\n", "\r\n", "\n\n", ""]));
        }
        texts.push(text);
    }
    let n = differential(&set, &texts);
    println!("{n} differential comparisons over {} texts", texts.len());
    assert!(n >= 3 * 2 * 600);
}

/// Where load time goes (run with `--ignored --nocapture`): translate,
/// parse, forward NFA, literals, per built-in table.
#[test]
#[ignore]
fn measure_load_steps() {
    use std::time::{Duration, Instant};
    let rules = builtin_rules();
    let mut t = [Duration::MAX; 4];
    for _ in 0..20 {
        let mut d = [Duration::ZERO; 4];
        for r in &rules {
            let s = Instant::now();
            let src = dialect::translate(&r.pattern, &r.flags).unwrap();
            d[0] += s.elapsed();
            let s = Instant::now();
            let hir = regex_syntax::ParserBuilder::new()
                .utf8(true)
                .build()
                .parse(&src)
                .unwrap();
            d[1] += s.elapsed();
            let s = Instant::now();
            regex_automata::nfa::thompson::Compiler::new()
                .configure(regex_automata::nfa::thompson::Config::new().shrink(false))
                .build_from_hir(&hir)
                .unwrap();
            d[2] += s.elapsed();
            let s = Instant::now();
            literal::required_literals(&hir);
            literal::may_match_newline(&hir);
            d[3] += s.elapsed();
        }
        for k in 0..4 {
            t[k] = t[k].min(d[k]);
        }
    }
    println!(
        "translate {:?} parse {:?} nfa {:?} literals {:?}",
        t[0], t[1], t[2], t[3]
    );
    let s = Instant::now();
    RuleSet::compile(vec![]).unwrap();
    println!("RuleSet::compile {:?}", s.elapsed());
}

#[test]
fn newline_count_matches_the_plain_count() {
    let mut rng = Rng(7);
    for len in [0, 1, 254, 255, 256, 511, 4096, 70_000] {
        let text: Vec<u8> = (0..len)
            .map(|_| *rng.pick(&[b'\n', b'a', b'\r', 0xff]))
            .collect();
        let plain = text.iter().filter(|&&b| b == b'\n').count();
        assert_eq!(count_newlines(&text), plain, "len {len}");
    }
}

/// A covered literal set can end inside a character (`[éèêë]` shares the
/// lead byte 0xC3): the scan must still find lines by bytes, not panic on a
/// char boundary, and agree with the other strategies.
#[test]
fn literal_piece_inside_a_character() {
    let set = RuleSet::compile_table(vec![rule(
        "accents",
        "QQQQ[éèêë]",
        Action::Error,
        When::Success,
    )])
    .unwrap();
    let c = check_rule(&set.rules()[0]).unwrap();
    assert_eq!(c.literals, Some(vec![b"QQQQ\xC3".to_vec()]));
    for text in ["x QQQQé y\nQQQQë", "QQQQü\nzz QQQQê", "QQQQ"] {
        let want = set.scan_with(text, false, Strategy::Loop);
        assert_eq!(
            set.scan_with(text, false, Strategy::Literal),
            want,
            "{text:?}"
        );
    }
    assert_eq!(set.scan("QQQQü\nzz QQQQê")[0].line, 2);
}

/// Generated user rules (literals with non-ASCII letters, small and large
/// classes, alternations, optional and repeated groups, anchors, flags)
/// against generated texts: the literal strategy finds the same first match
/// as each rule's own `regex::Regex`. Checks that the required literals are
/// sound for shapes the built-ins do not have.
#[test]
fn generated_user_rules_agree_with_the_oracle() {
    const ATOMS: &[&str] = &[
        "ab", "ba", "é:", "a b", "x", "[ab]", "[éè]", "[^a\\n]", "\\d", ".", "\\s", "\\w", ":",
        "ñé",
    ];
    const FLAGS: &[&str] = &["m", "", "i", "mi", "s", "ms", "u", "iu"];
    const TEXT: &[&str] = &[
        "a", "b", "é", "è", " ", ":", "\n", "\r", "1", "x", "A", "B", "ñ", "ab",
    ];
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    fn node(rng: &mut Rng, depth: u32) -> String {
        let mut out = String::new();
        for _ in 0..(1 + rng.next() % 3) {
            let mut atom = match rng.next() % 6 {
                0 if depth < 2 => format!("(?:{}|{})", node(rng, depth + 1), node(rng, depth + 1)),
                1 if depth < 2 => format!("(?:{})", node(rng, depth + 1)),
                _ => rng.pick(ATOMS).to_string(),
            };
            atom.push_str(rng.pick::<&str>(&["", "", "", "?", "*", "+", "{2}", "{1,3}"]));
            out.push_str(&atom);
        }
        out
    }
    let (mut rules_checked, mut comparisons, mut matched) = (0, 0, 0);
    for n in 0..400 {
        let mut pattern = node(&mut rng, 0);
        match rng.next() % 4 {
            0 => pattern.insert(0, '^'),
            1 => pattern.push('$'),
            2 => pattern = format!("\\b{pattern}"),
            _ => {}
        }
        let r = Rule {
            id: format!("g{n}"),
            pattern,
            flags: rng.pick(FLAGS).to_string(),
            action: Action::Error,
            when: When::Success,
            message: "m".into(),
            reason: String::new(),
            unless: None,
        };
        let Ok(set) = RuleSet::compile_table(vec![r.clone()]) else {
            continue;
        };
        let re = compile_rule(&r).unwrap();
        rules_checked += 1;
        for _ in 0..20 {
            let text: String = (0..rng.next() % 40).map(|_| *rng.pick(TEXT)).collect();
            let want: Vec<(usize, usize)> =
                re.find(&text).map(|m| (0, m.start())).into_iter().collect();
            let got = set
                .scanner
                .first_matches(&text, Strategy::Literal, &|_| true);
            assert_eq!(got, want, "rule /{}/{} on {text:?}", r.pattern, r.flags);
            comparisons += 1;
            matched += want.len();
        }
    }
    println!("{rules_checked} generated rules, {comparisons} comparisons, {matched} matched");
    assert!(rules_checked > 300, "{rules_checked}");
    // Both outcomes are exercised, not only "no match".
    assert!(
        matched > comparisons / 10 && matched < comparisons,
        "{matched}"
    );
}

fn with_unless(pattern: &str, unless: &str) -> Rule {
    Rule {
        unless: Some(unless.into()),
        ..rule("u", pattern, Action::Error, When::Success)
    }
}

/// `unless` passes over a match with the veto within 2 lines of it and
/// reports the rule's first match that is not vetoed, under every strategy.
#[test]
fn unless_passes_over_vetoed_matches() {
    let set = RuleSet::compile_table(vec![with_unless("^boom: .*$", "retrying")]).unwrap();
    let lines = |text: &str| -> Vec<Vec<usize>> {
        [Strategy::Loop, Strategy::Set, Strategy::Literal]
            .iter()
            .map(|&s| {
                set.scan_with(text, false, s)
                    .iter()
                    .map(|m| m.line)
                    .collect()
            })
            .collect()
    };
    // Vetoed from the line before / two lines after; the third match has no veto near it.
    let text = "retrying\nboom: a\nx\ny\nz\nw\nboom: b\n\nretrying\nv\nu\nt\nboom: c\nend";
    assert_eq!(lines(text), vec![vec![13]; 3]);
    // Three lines away is outside the window.
    assert_eq!(lines("retrying\n1\n2\nboom: a"), vec![vec![4]; 3]);
    assert_eq!(lines("retrying\n1\nboom: a"), vec![Vec::<usize>::new(); 3]);
    // The window is searched on its own: `^`/`$` without `m` are its ends.
    let anchored = RuleSet::compile_table(vec![Rule {
        flags: String::new(),
        ..with_unless("boom", "^ok")
    }])
    .unwrap();
    assert!(anchored.scan("a\nb\nok\nboom").len() == 1);
    assert!(anchored.scan("ok\nboom").is_empty());
}

/// A multi-line match's window reaches 2 lines past its last line.
#[test]
fn unless_window_follows_a_multi_line_match() {
    let set = RuleSet::compile_table(vec![with_unless(
        r"^Trace:(?:\n [^\n]*)*",
        r"^done on attempt \d",
    )])
    .unwrap();
    let trace = "Trace:\n f1\n f2\n f3\n f4\n";
    assert!(set
        .scan(&format!("{trace}Err\ndone on attempt 2"))
        .is_empty());
    assert_eq!(
        set.scan(&format!("{trace}Err\nx\ny\ndone on attempt 2"))
            .len(),
        1
    );
}

/// At most MAX_EXAMINED matches of a rule are looked at: an output of many
/// vetoed matches costs a bounded number of searches, and the rule is silent.
#[test]
fn unless_examines_a_bounded_number_of_matches() {
    let set = RuleSet::compile_table(vec![with_unless("^boom$", "^ok$")]).unwrap();
    let block = |n: usize| "boom\nok\n\n\n".repeat(n);
    let tail = "\n\n\nboom\n";
    assert_eq!(
        set.scan(&format!("{}{tail}", block(unless::MAX_EXAMINED - 1)))
            .len(),
        1
    );
    assert!(set
        .scan(&format!("{}{tail}", block(unless::MAX_EXAMINED)))
        .is_empty());
}

#[test]
fn unless_load_errors_name_the_rule_and_key() {
    let err = |r: Rule| RuleSet::compile_table(vec![r]).err().unwrap().to_string();
    assert_eq!(
        err(with_unless("a", "")),
        "loud-failure: rule u: `unless` must not be empty (leave it out for no veto)"
    );
    assert!(
        err(with_unless("a", "(")).starts_with("loud-failure: rule u: `unless`: "),
        "{}",
        err(with_unless("a", "("))
    );
    assert!(err(with_unless("a", "x(?=y)")).starts_with("loud-failure: rule u: `unless`: "));
    assert!(err(with_unless("a", "x{99999}")).starts_with("loud-failure: rule u: `unless`: "));
    // The rule's own pattern is checked as before.
    assert_eq!(
        err(with_unless("(", "x")),
        err(rule("u", "(", Action::Error, When::Success))
    );
}

/// Each built-in with a `.vetoed.txt` fixture (a real output where the
/// failure line was expected or recovered from) matches it and its veto
/// passes it over; and every built-in stays silent on its positive fixture's
/// failure lines quoted in a Markdown code fence (documentation).
#[test]
fn builtin_vetoes_against_fixtures() {
    let set = RuleSet::compile(vec![]).unwrap();
    let dir = format!(
        "{}/../../__test__/fixtures/rules",
        env!("CARGO_MANIFEST_DIR")
    );
    let mut vetoed = 0;
    for (i, r) in set.rules().iter().enumerate() {
        assert!(
            r.unless.is_some(),
            "{}: every built-in passes over fenced quotes",
            r.id
        );
        let path = format!("{dir}/{}.vetoed.txt", r.id);
        if std::path::Path::new(&path).exists() {
            vetoed += 1;
            let text = std::fs::read_to_string(&path).unwrap();
            assert!(
                compile_rule(r).unwrap().is_match(&text),
                "{}: pattern must match its .vetoed fixture",
                r.id
            );
            assert!(
                set.scan_after(&text, false).iter().all(|m| m.rule != i),
                "{}: the veto must pass its .vetoed fixture over",
                r.id
            );
        }
        // The positive fixture's matching lines, quoted in a fence.
        let pos = fixture(&format!("{}.pos.txt", r.id));
        let m = compile_rule(r).unwrap().find(&pos).unwrap();
        let from = pos[..m.start()].rfind('\n').map_or(0, |k| k + 1);
        let to = pos[m.end()..].find('\n').map_or(pos.len(), |k| m.end() + k);
        let quoted = format!(
            "The log shows:\n\n```\n{}\n```\n\nSee below.\n",
            &pos[from..to]
        );
        assert!(
            set.scan_after(&quoted, false).iter().all(|h| h.rule != i),
            "{}: fires on a fenced quote:\n{quoted}",
            r.id
        );
    }
    assert!(vetoed >= 10, "{vetoed}");
}

/// Lines padded with whitespace where Rust and JavaScript trims differ or
/// agree (U+0085, U+FEFF, NBSP, U+3000 …), against the oracle, with the
/// built-ins and case-insensitive user rules whose case variants fill a
/// literal set: the shape of a U+3000 mismatch found by fuzzing (`(?i)error`'s 32
/// variants got an empty literal cover and the rule never ran; any padding
/// that defeats its `^\S` veto showed it, U+3000 was where the shrinker
/// stopped).
#[test]
fn padded_lines_agree_with_the_oracle() {
    let user = |id: &str, pattern: &str, flags: &str| Rule {
        flags: flags.into(),
        ..rule(id, pattern, Action::Context, When::Always)
    };
    let set = RuleSet::compile(vec![
        user("user-veto-s", "error:?[^\n]*\n[^\n]*", "i"),
        user("user-ctx", r"\bwarn(ing)?\b", "i"),
        user("user-fail", r"^\s*(?:failed|fatal|panic)\b", "im"),
        user("user-kelvin", r"\d+ ?k\b|stra(?:ss|ß)e", "iu"),
        user("user-wide", r"\u3000error\u3000|ＥＲＲＯＲ", "i"),
    ])
    .unwrap();
    let mut texts = Vec::new();
    for pad in ["", " ", "\t", "\u{85}", "\u{feff}", "\u{a0} ", "\u{3000}"] {
        let mut add = |t: &str| {
            let padded: Vec<String> = t.split('\n').map(|l| format!("{pad}{l}{pad}")).collect();
            texts.push(padded.join("\n"));
        };
        for r in builtin_rules() {
            for kind in ["pos", "neg"] {
                add(&fixture(&format!("{}.{kind}.txt", r.id)));
            }
        }
        for t in [
            "panic: runtime error: index out of range\n\ngoroutine 1 [running]:",
            "ERROR\nnext",
            "Warning: low disk\nFATAL: gone",
            "300 K\nStraße",
            "x\u{3000}ERROR\u{3000}y\nＥＲＲＯＲ",
        ] {
            add(t);
        }
    }
    let n = differential(&set, &texts);
    assert!(n >= 7 * 2 * 3 * 100, "{n}");
}

/// A user rule whose literal is on nearly every line (`: `) is searched over
/// the rest of the text once it is hot: same first match as the oracle,
/// wherever it lies (before, at and after the switch; none at all).
#[test]
fn hot_rules_agree_with_the_oracle() {
    let set = RuleSet::compile_table(vec![
        rule("weak", r"^\w+: \d+$", Action::Error, When::Always),
        rule(
            "weak-multi",
            r"^\w+: \d+\n\w+: \d+$",
            Action::Error,
            When::Always,
        ),
        rule("rare", "disk full", Action::Error, When::Always),
    ])
    .unwrap();
    let mut texts = Vec::new();
    for at in [
        None,
        Some(0),
        Some(10),
        Some(63),
        Some(64),
        Some(65),
        Some(500),
        Some(1999),
    ] {
        let mut lines: Vec<String> = (0..2000).map(|i| format!("key{i}: v{i}")).collect();
        if let Some(k) = at {
            lines[k] = format!("k{k}: {k}");
            if k + 1 < lines.len() {
                lines[k + 1] = "z: 1\r".into();
            }
            lines.push("disk full".into());
        }
        texts.push(lines.join("\n"));
    }
    let n = differential(&set, &texts);
    assert_eq!(n, 8 * 2 * 3);
}

/// A rule that may span lines is searched from as many lines above its
/// first literal's line as a match can span: the match that starts those
/// lines up (its literal on its last line), one that starts on the literal's
/// line, lines with the start but not the literal, `\r\n` lines, the text's
/// first lines, and unbounded rules (searched from the text start) all give
/// the oracle's first match.
#[test]
fn multi_line_rules_agree_with_the_oracle() {
    let set = RuleSet::compile_table(vec![
        // node-uncaught's shape: 4 line breaks before the literal.
        rule(
            "trace",
            r"^[^\s][^\n]*:\d+\n[^\n]*\n *\^+ *\n\nTypeBoom\b",
            Action::Error,
            When::Always,
        ),
        rule(
            "pair",
            r"start \d+\r?\n[^\n]*kaput",
            Action::Error,
            When::Always,
        ),
        rule(
            "open",
            r"begin(?:\n[^\n]*)*\nfizzle",
            Action::Error,
            When::Always,
        ),
    ])
    .unwrap();
    let trace = "at.js:12\n  x.y()\n    ^\n\nTypeBoom: no";
    let mut texts = Vec::new();
    for at in [0usize, 1, 2, 5, 300] {
        for tail in [
            trace,
            "start 7\r\nnow kaput",
            "begin\nmid\nmid\nfizzle",
            "TypeBoom alone",
        ] {
            let mut lines: Vec<String> = (0..at).map(|i| format!("line {i}: start {i}")).collect();
            lines.push(tail.into());
            lines.extend((0..3).map(|i| format!("after {i}")));
            texts.push(lines.join("\n"));
        }
    }
    // A literal first seen after a match's start line, the match further up.
    texts.push(format!("{trace}\nTypeBoom again\n{trace}"));
    let n = differential(&set, &texts);
    assert_eq!(n, 21 * 2 * 3);
    let newlines = |p: &str| {
        let hir = regex_syntax::ParserBuilder::new().build().parse(p).unwrap();
        literal::max_newlines(&hir)
    };
    assert_eq!(newlines(r"a\nb[\s]c"), Some(2));
    assert_eq!(newlines(r"(?:x\n){2,3}|y"), Some(3));
    assert_eq!(newlines(r"(?:x\n)*"), None);
    assert_eq!(newlines(r"(?:[^\n]*)*z"), Some(0));
    assert_eq!(newlines(r"(?s)a.b"), Some(1));
}

/// The build-time analysis of the built-ins (build.rs) is exactly what the
/// load-time check computes for the same rows, and every row has one.
#[test]
fn build_time_table_matches_the_load_time_check() {
    let rules = builtin_rules();
    assert_eq!(builtin_table::ANALYSED.len(), rules.len());
    for (i, r) in rules.iter().enumerate() {
        assert!(
            builtin_table::ANALYSED[i].is_some(),
            "{}: not analysed at build time",
            r.id
        );
        let built = check_builtin(i, r).unwrap();
        let now = check_rule(r).unwrap();
        assert_eq!(built.src, now.src, "{}", r.id);
        assert_eq!(built.unless_src, now.unless_src, "{}", r.id);
        assert_eq!(built.literals, now.literals, "{}", r.id);
        assert_eq!(
            (
                built.at_line_start,
                built.starts_line,
                built.line_local,
                built.max_newlines
            ),
            (
                now.at_line_start,
                now.starts_line,
                now.line_local,
                now.max_newlines
            ),
            "{}",
            r.id
        );
    }
}

/// The size check's shortcut (`size_bound`) never admits a pattern the
/// compiler would reject: every pattern it bounds compiles with the bound
/// itself as the limit (those within the rule limit, the only ones the
/// shortcut admits). Built-in patterns and vetoes, and patterns built to
/// stress what the bound charges (Unicode classes, counted repetitions,
/// alternations, case folding).
#[test]
fn size_bound_is_never_below_the_compilers_count() {
    let mut srcs: Vec<String> = Vec::new();
    for r in builtin_rules() {
        for p in std::iter::once(&r.pattern).chain(r.unless.as_ref()) {
            srcs.push(dialect::translate(p, &r.flags).unwrap());
        }
    }
    let atoms = [
        "a",
        "é",
        "[a-z]",
        ".",
        "(?s:.)",
        r"\w",
        r"\d",
        r"\s",
        "[^\n]",
        "(?i)k",
        "(?i)straße",
        "[\u{80}-\u{10FFFF}]",
        "[\u{7FF}-\u{800}\u{FFFF}-\u{10000}]",
        r"\b",
        "^",
        "(?:ab|cd|é)",
        r"\p{Greek}",
        "[^a]",
        "(?-u:[\\x00-\\x7F])",
        "x?",
    ];
    let reps = ["", "*", "+", "?", "{3}", "{2,5}", "{64}", "{0,64}", "{1,}"];
    for a in atoms {
        for r in reps {
            srcs.push(format!("(?:{a}){r}"));
            srcs.push(format!("(?:(?:{a}){r}|z{a}){r}"));
            srcs.push(format!("(({a}{a}){r}){r}"));
        }
    }
    let mut bounded = 0;
    for src in &srcs {
        let hir = regex_syntax::ParserBuilder::new()
            .utf8(true)
            .build()
            .parse(src)
            .unwrap();
        // Only a bound within the limit skips the compiler.
        let Some(b) = size_bound(&hir).filter(|&b| b <= RULE_SIZE_LIMIT) else {
            continue;
        };
        bounded += 1;
        regex_automata::nfa::thompson::Compiler::new()
            .configure(
                regex_automata::nfa::thompson::Config::new()
                    .nfa_size_limit(Some(b))
                    .shrink(false),
            )
            .build_from_hir(&hir)
            .unwrap_or_else(|e| panic!("{src:?}: bound {b} too small: {e}"));
    }
    assert!(bounded > srcs.len() / 2, "{bounded} of {}", srcs.len());
}
