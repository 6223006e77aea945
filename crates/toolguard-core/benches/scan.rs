//! Scan-strategy measurement (numbers go in the README). Run:
//!   cargo test --release -p toolguard-core --bench scan -- --ignored --nocapture
//! Build-log-like text at 200 B, 100 KB and 10 MB; the built-in table and
//! 10,000 user rules; every strategy (Loop, Set, Literal). Prints MB/s (best of several runs, so
//! a noisy shared machine shows its least-disturbed number). No assertions
//! on time: this measures, the unit tests check behaviour.

use std::time::{Duration, Instant};
use toolguard_core::rules::{Action, Rule, RuleSet, Strategy, When};

/// Deterministic build/test/log output with the benign lookalikes the rules
/// must skip (`0 errors`, `test_error … ok`, warnings, paths with colons).
fn build_log(bytes: usize) -> String {
    let lines: [&dyn Fn(u64) -> String; 12] = [
        &|i| format!("   Compiling crate{} v1.{}.{}", i % 97, i % 13, i % 7),
        &|i| format!("gcc -Wall -Werror -O2 -c src/file{i}.c -o build/file{i}.o"),
        &|i| {
            format!(
                "src/file{i}.c:{}:{}: warning: unused variable ‘x{i}’ [-Wunused-variable]",
                i % 400,
                i % 60
            )
        },
        &|i| {
            format!("[2025-03-03T10:{:02}:{:02}Z] INFO  request id={i:08x} path=/api/v1/items/{i} status=200 took={}ms", i % 60, i % 59, i % 300)
        },
        &|i| format!("test tests::test_error_{i} ... ok"),
        &|i| {
            format!(
                "npm warn deprecated pkg{i}@1.0.{}: no longer supported",
                i % 9
            )
        },
        &|i| {
            format!(
                "make[2]: Entering directory '/home/user/proj/sub{}'",
                i % 31
            )
        },
        &|i| format!("  CC       lib/obj{i}.o"),
        &|i| {
            format!("Downloading https://files.pythonhosted.org/packages/ab/cd/pkg_{i}-1.0-py3-none-any.whl (1.{} MB)", i % 10)
        },
        &|i| format!("Build finished: 0 errors, {} warnings (fatal: none)", i % 5),
        &|i| {
            format!(
                "    at Object.<anonymous> (/app/src/mod{i}.js:{}:5)",
                i % 90
            )
        },
        &|i| format!("checking for module {i}... found; Segmentation handler: ok; killed=0"),
    ];
    let mut out = String::with_capacity(bytes + 256);
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut i = 0;
    while out.len() < bytes {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        out.push_str(&lines[(x % lines.len() as u64) as usize](i));
        out.push('\n');
        i += 1;
    }
    out.truncate(bytes);
    while !out.is_char_boundary(out.len()) {
        out.pop();
    }
    out
}

/// The built-in table doubled by user rules: each built-in again under a new
/// id (same pattern, flags and veto), so every literal and every verified
/// line costs twice. The JS benchmark's doubled rows use the same shape.
fn doubled_user_rules() -> Vec<Rule> {
    toolguard_core::rules::builtin_rules()
        .into_iter()
        .map(|r| Rule {
            id: format!("user-{}", r.id),
            ..r
        })
        .collect()
}

fn best_of(text: &str, set: &RuleSet, strategy: Strategy, budget: Duration) -> (f64, usize) {
    let mut best = Duration::MAX;
    let mut hits = 0;
    let start = Instant::now();
    let mut runs = 0;
    while runs < 3 || (start.elapsed() < budget && runs < 2000) {
        let t = Instant::now();
        hits = set.scan_with(text, false, strategy).len();
        best = best.min(t.elapsed());
        runs += 1;
    }
    (text.len() as f64 / best.as_secs_f64() / 1e6, hits)
}

fn report(name: &str, set: &RuleSet) {
    for (label, size) in [("200 B", 200), ("100 KB", 100_000), ("10 MB", 10_000_000)] {
        let text = build_log(size);
        for strategy in [Strategy::Loop, Strategy::Set, Strategy::Literal] {
            let (mbs, hits) = best_of(&text, set, strategy, Duration::from_millis(1500));
            println!(
                "{name:<22} {label:>7} {strategy:>5?}: {mbs:>9.1} MB/s  ({hits} rules matched)"
            );
        }
    }
}

#[test]
#[ignore]
fn measure_scan_strategies() {
    let builtin = RuleSet::compile(vec![]).unwrap();
    report(
        &format!("built-in ({} rules)", builtin.rules().len()),
        &builtin,
    );

    let t = Instant::now();
    let user: Vec<Rule> = (0..10_000)
        .map(|i| Rule {
            id: format!("user-{i}"),
            pattern: format!(r"^(?:ERROR|FATAL) \[job-{i}\] .*(?:timeout|refused)$"),
            flags: "m".into(),
            action: Action::Context,
            when: When::Success,
            message: format!("job {i} failed"),
            reason: String::new(),
            unless: None,
        })
        .collect();
    let many = RuleSet::compile(user).unwrap();
    println!("10,000 user rules: compile {:?}", t.elapsed());
    for (label, size) in [("200 B", 200), ("100 KB", 100_000)] {
        let text = build_log(size);
        for strategy in [Strategy::Loop, Strategy::Set, Strategy::Literal] {
            let t = Instant::now();
            let hits = many.scan_with(&text, false, strategy).len();
            let first = t.elapsed();
            let (mbs, _) = best_of(&text, &many, strategy, Duration::from_millis(1500));
            println!("10,024 rules {label:>7} {strategy:>5?}: first scan {first:?}, best {mbs:>9.2} MB/s ({hits} matched)");
        }
    }
}

#[test]
#[ignore]
fn measure_each_builtin_rule() {
    let text = build_log(10_000_000);
    for r in toolguard_core::rules::builtin_rules() {
        let one = RuleSet::compile_table(vec![r.clone()]).unwrap();
        let (mbs, _) = best_of(&text, &one, Strategy::Loop, Duration::from_millis(400));
        println!("{:<20} {mbs:>9.1} MB/s", r.id);
    }
}

#[test]
#[ignore]
fn measure_set_leave_one_out() {
    let text = build_log(10_000_000);
    let all = toolguard_core::rules::builtin_rules();
    for skip in 0..=all.len() {
        let rules: Vec<Rule> = all
            .iter()
            .enumerate()
            .filter(|(i, _)| *i != skip)
            .map(|(_, r)| r.clone())
            .collect();
        let set = RuleSet::compile_table(rules).unwrap();
        let (mbs, _) = best_of(&text, &set, Strategy::Set, Duration::from_millis(300));
        let name = all.get(skip).map_or("(none skipped)", |r| r.id.as_str());
        println!("without {name:<20} {mbs:>9.1} MB/s");
    }
}

/// One scan with the strategy in SCAN_STRATEGY (loop, set, literal; unset:
/// none, the baseline to subtract) of the
/// 10 MB build log (`SCAN_REPEAT=2`: and a second one), for instruction
/// counts that do not depend on machine load:
///   valgrind --tool=callgrind <bench binary> --ignored measure_one_scan
#[test]
#[ignore]
fn measure_one_scan() {
    let strategy = match std::env::var("SCAN_STRATEGY").as_deref() {
        Ok("loop") => Some(Strategy::Loop),
        Ok("set") => Some(Strategy::Set),
        Ok("literal") => Some(Strategy::Literal),
        _ => None, // the baseline: text and table only
    };
    // SCAN_FILE: scan that file instead (the JS benchmark's build log);
    // SCAN_DOUBLE=1: the table doubled by user rules (`doubled_user_rules`).
    let text = match std::env::var("SCAN_FILE") {
        Ok(path) => std::fs::read_to_string(path).unwrap(),
        Err(_) => build_log(10_000_000),
    };
    let mut user = if std::env::var("SCAN_DOUBLE").is_ok() {
        doubled_user_rules()
    } else {
        vec![]
    };
    // SCAN_OFF=id,id: those built-ins switched off (what one rule costs).
    for id in std::env::var("SCAN_OFF").unwrap_or_default().split(',') {
        if let Some(r) = toolguard_core::rules::builtin_rules()
            .into_iter()
            .find(|r| r.id == id)
        {
            user.push(Rule {
                action: Action::Off,
                pattern: String::new(),
                ..r
            });
        }
    }
    let t = Instant::now();
    let set = RuleSet::compile(user).unwrap();
    println!("compile {:?}", t.elapsed());
    // SCAN_LITERALS=1: how often each required literal occurs in the text,
    // the most frequent first (what the prefilter hands to verification),
    // with the rules requiring it (who pays); SCAN_TOP=N rows (40).
    if std::env::var("SCAN_LITERALS").is_ok() {
        let mut counts: Vec<(usize, String)> = set
            .literal_owners()
            .iter()
            .map(|(l, owners)| {
                let n = memchr::memmem::find_iter(text.as_bytes(), l).count();
                (
                    n,
                    format!("{:?} {}", String::from_utf8_lossy(l), owners.join(",")),
                )
            })
            .collect();
        counts.sort_unstable_by(|a, b| b.cmp(a));
        let total: usize = counts.iter().map(|c| c.0).sum();
        println!("{} literals, {total} occurrences", counts.len());
        // The prefilter's groups (prefilter.rs): 1–2, 3, 4–6 bytes, sampled 7+.
        let lits = set.required_literals();
        let by_len = |r: std::ops::RangeInclusive<usize>| {
            lits.iter().filter(|l| r.contains(&l.len())).count()
        };
        println!(
            "by length: 1-2 {}, 3 {}, 4-6 {}, 7+ {}",
            by_len(1..=2),
            by_len(3..=3),
            by_len(4..=6),
            by_len(7..=usize::MAX)
        );
        for (n, l) in counts
            .iter()
            .take(std::env::var("SCAN_TOP").map_or(40, |n| n.parse().unwrap()))
        {
            println!("{n:>8} {l}");
        }
    }
    let Some(strategy) = strategy else { return };
    let t = Instant::now();
    let hits = set.scan_with(&text, false, strategy).len();
    println!("{strategy:?} first scan {:?} ({hits} matched)", t.elapsed());
    // SCAN_REPEAT=2: a second scan (lazy builds done); the difference of the
    // two counts is one steady-state scan.
    for _ in 1..std::env::var("SCAN_REPEAT").map_or(1, |n| n.parse().unwrap()) {
        set.scan_with(&text, false, strategy);
    }
}

/// One regex that is the alternation of every built-in (all use flag `m`):
/// a single leftmost-first pass answers "does anything match at all?".
#[test]
#[ignore]
fn measure_combined_alternation() {
    // One alternation needs one flag set: the `m` rules (all but the few
    // that anchor at the text's start or end).
    let all: Vec<Rule> = toolguard_core::rules::builtin_rules()
        .into_iter()
        .filter(|r| r.flags == "m")
        .collect();
    let pattern = all
        .iter()
        .map(|r| format!("(?:{})", r.pattern))
        .collect::<Vec<_>>()
        .join("|");
    let one = Rule {
        id: "all".into(),
        pattern,
        flags: "m".into(),
        action: Action::Error,
        when: When::Success,
        message: "m".into(),
        reason: String::new(),
        unless: None,
    };
    let set = RuleSet::compile_table(vec![one]).unwrap();
    let builtin = RuleSet::compile_table(all).unwrap();
    for (label, size) in [("200 B", 200), ("100 KB", 100_000), ("10 MB", 10_000_000)] {
        let text = build_log(size);
        let (a, _) = best_of(&text, &set, Strategy::Loop, Duration::from_millis(1500));
        let (b, _) = best_of(&text, &builtin, Strategy::Set, Duration::from_millis(1500));
        println!("{label:>7}: combined alternation {a:>8.1} MB/s | RegexSet {b:>8.1} MB/s");
    }
}

/// 10,000 varied user rules (different shapes, unanchored `.*`, classes):
/// the worst case for one big automaton, so it decides the chunk size.
#[test]
#[ignore]
fn measure_varied_user_rules() {
    let words = [
        "alpha", "beta", "gamma", "delta", "omega", "kappa", "sigma", "theta", "zeta", "iota",
    ];
    let user: Vec<Rule> = (0..10_000usize)
        .map(|i| {
            let w = words[i % words.len()];
            let pattern = match i % 5 {
                0 => format!(r"^{w}{i} [a-z]+ (?:timeout|refused)"),
                1 => format!(r"{w}-{i}.*failed after \d+ tries"),
                2 => format!(r"\b{w}{i}\w*: [^:\n]+ error$"),
                3 => format!(r"[^:\n]+: {w} {i} (?:crashed|aborted)"),
                _ => format!(r"(?:E|W)\d{{3}} {w}\.{i}\s+\S+"),
            };
            Rule {
                id: format!("v{i}"),
                pattern,
                flags: "m".into(),
                action: Action::Context,
                when: When::Success,
                message: "m".into(),
                reason: String::new(),
                unless: None,
            }
        })
        .collect();
    let t = Instant::now();
    let many = RuleSet::compile(user).unwrap();
    println!("varied 10,000: compile {:?}", t.elapsed());
    let text = build_log(100_000);
    for strategy in [Strategy::Set, Strategy::Loop] {
        let t = Instant::now();
        let hits = many.scan_with(&text, false, strategy).len();
        println!(
            "varied 10,024 rules 100 KB {strategy:?}: first scan {:?} ({hits} matched)",
            t.elapsed()
        );
        let t = Instant::now();
        many.scan_with(&text, false, strategy);
        println!(
            "varied 10,024 rules 100 KB {strategy:?}: second scan {:?}",
            t.elapsed()
        );
    }
}

/// The literal pass alone: how fast the shared searcher goes over 10 MB of
/// build log with the built-ins' literals, by searcher and literal count.
#[test]
#[ignore]
fn measure_literal_searchers() {
    use aho_corasick::{AhoCorasick, MatchKind};
    let set = RuleSet::compile(vec![]).unwrap();
    let lits = set.required_literals();
    let text = build_log(10_000_000);
    let time = |name: &str, f: &dyn Fn() -> usize| {
        let mut best = Duration::MAX;
        let mut n = 0;
        for _ in 0..5 {
            let t = Instant::now();
            n = f();
            best = best.min(t.elapsed());
        }
        println!(
            "{name:<40} {:>8.1} MB/s ({n} hits)",
            text.len() as f64 / best.as_secs_f64() / 1e6
        );
    };
    let ac = AhoCorasick::new(&lits).unwrap();
    let mut counts = vec![0usize; lits.len()];
    for m in ac.find_overlapping_iter(&text) {
        counts[m.pattern().as_usize()] += 1;
    }
    for (l, c) in lits.iter().zip(&counts).filter(|(_, &c)| c > 0) {
        println!("literal {:?}: {c} occurrences", String::from_utf8_lossy(l));
    }
    // The same searches on the log without the lines holding a literal:
    // separates the literal count's cost from the cost of restarting per hit.
    let clean: String = text
        .lines()
        .filter(|l| {
            !lits
                .iter()
                .any(|x| l.as_bytes().windows(x.len()).any(|w| w == x.as_slice()))
        })
        .flat_map(|l| [l, "\n"])
        .collect();
    for k in [lits.len(), 32, 24, 16] {
        let ac = AhoCorasick::builder()
            .match_kind(MatchKind::LeftmostFirst)
            .build(&lits[..k])
            .unwrap();
        let mut best = Duration::MAX;
        for _ in 0..5 {
            let t = Instant::now();
            assert_eq!(ac.find_iter(&clean).count(), 0);
            best = best.min(t.elapsed());
        }
        println!(
            "no-hit text, {k} lits: {:>8.1} MB/s",
            clean.len() as f64 / best.as_secs_f64() / 1e6
        );
    }
    for k in [lits.len(), 64, 32, 16] {
        let k = k.min(lits.len());
        let sub = &lits[..k];
        for kind in [MatchKind::Standard, MatchKind::LeftmostFirst] {
            let ac = AhoCorasick::builder().match_kind(kind).build(sub).unwrap();
            time(&format!("aho-corasick {kind:?} {k} lits"), &|| {
                ac.find_iter(&text).count()
            });
        }
        let alt = sub
            .iter()
            .map(|l| regex::escape(std::str::from_utf8(l).unwrap()))
            .collect::<Vec<_>>()
            .join("|");
        let re = regex::Regex::new(&alt).unwrap();
        time(&format!("regex alternation {k} lits"), &|| {
            re.find_iter(&text).count()
        });
    }
}

/// Scans a file named by SCAN_FILE (e.g. the JS benchmark's build log) with
/// each strategy: ties the Rust numbers to the end-to-end benchmark's text.
#[test]
#[ignore]
fn measure_scan_file() {
    let Ok(path) = std::env::var("SCAN_FILE") else {
        return;
    };
    let text = std::fs::read_to_string(path).unwrap();
    let set = RuleSet::compile(vec![]).unwrap();
    let lits = set.required_literals();
    let ac = aho_corasick::AhoCorasick::new(&lits).unwrap();
    let mut counts = vec![0usize; lits.len()];
    for m in ac.find_overlapping_iter(&text) {
        counts[m.pattern().as_usize()] += 1;
    }
    for (l, c) in lits.iter().zip(&counts).filter(|(_, &c)| c > 0) {
        println!("literal {:?}: {c} occurrences", String::from_utf8_lossy(l));
    }
    for strategy in [Strategy::Set, Strategy::Literal] {
        let (mbs, hits) = best_of(&text, &set, strategy, Duration::from_millis(1500));
        println!("file {strategy:>7?}: {mbs:>9.1} MB/s ({hits} rules matched)");
    }
}

/// What a one-shot hook process pays: build the built-in table, then scan
/// one small output that matches (so the matching rules' regexes are built
/// lazily too). The built-in rows are checked once per process and the
/// built-in table's scanner is shared, so only the first of each is cold:
/// run the test several times for a median of the cold numbers.
#[test]
#[ignore]
fn measure_cold_start() {
    let text = "gcc -c a.c\nsrc/a.c:3:1: error: expected ';'\nmake: *** [all] Error 1\n";
    let t = Instant::now();
    let set = RuleSet::compile(vec![]).unwrap();
    let load = t.elapsed();
    let t = Instant::now();
    assert_eq!(set.scan(text).len(), 2);
    let first = t.elapsed();
    let t = Instant::now();
    let again = RuleSet::compile(vec![]).unwrap();
    let load_again = t.elapsed();
    let t = Instant::now();
    again.scan(text);
    let next = t.elapsed();
    println!(
        "built-ins: load {load:?}, first scan (lazy builds) {first:?}; \
         another engine in the process: load {load_again:?}, scan {next:?}"
    );
}

/// The literal pass alone over the 10 MB build log, by literal group (as
/// `prefilter.rs` splits them): all, the long ones (sampled), the short ones
/// (aho-corasick). One run each with `PROBE=all|long|short` for instruction
/// counts:
///   valgrind --tool=callgrind <bench binary> --ignored measure_literal_pass
/// (`PROBE_SKIP=1`: the baseline to subtract, text and tables only).
#[test]
#[ignore]
fn measure_literal_pass() {
    let lits = RuleSet::compile(vec![]).unwrap().required_literals();
    let text = build_log(10_000_000);
    let table = |keep: &dyn Fn(&[u8]) -> bool| {
        let rules: Vec<Rule> = lits
            .iter()
            .filter(|l| keep(l))
            .enumerate()
            .map(|(i, l)| Rule {
                id: format!("l{i}"),
                pattern: regex::escape(std::str::from_utf8(l).unwrap()),
                flags: String::new(),
                action: Action::Error,
                when: When::Success,
                message: "m".into(),
                reason: String::new(),
                unless: None,
            })
            .collect();
        RuleSet::compile_table(rules).unwrap()
    };
    type Keep<'a> = &'a dyn Fn(&[u8]) -> bool;
    let groups: [(&str, Keep); 3] = [
        ("all", &|_| true),
        ("long", &|l| l.len() >= 7),
        ("short", &|l| l.len() < 7),
    ];
    let probe = std::env::var("PROBE").ok();
    for (name, keep) in groups {
        if probe.as_deref().is_some_and(|p| p != name) {
            continue;
        }
        let set = table(keep);
        if std::env::var("PROBE_SKIP").is_ok() {
            continue;
        }
        let (mut best, mut n) = (Duration::MAX, 0);
        for _ in 0..if probe.is_some() { 1 } else { 5 } {
            let t = Instant::now();
            n = set.literal_occurrences(&text);
            best = best.min(t.elapsed());
        }
        println!(
            "literal pass, {name:<5} ({:>3} literals): {:>8.1} MB/s ({n} occurrences)",
            set.required_literals().len(),
            text.len() as f64 / best.as_secs_f64() / 1e6
        );
    }
}
