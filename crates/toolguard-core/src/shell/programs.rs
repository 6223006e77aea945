//! The program table (`rules/programs.json`) and the classification of
//! parsed command lines with it.

use std::collections::HashMap;
use std::sync::OnceLock;

use serde_json::Value;

use super::harness::{self, Rule};
use super::intent::Need;
use super::lex::{self, Joiner, RawCommand, RawPipeline};
use super::{CallModel, Command, Effect, LineRange, Mask, PathRead, MAX_COMMANDS, MAX_DEPTH};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Operands {
    All,
    AfterFirst,
    Last,
    None,
}

fn operands(s: Option<&str>, default: Operands) -> Operands {
    match s {
        Some("operands") => Operands::All,
        Some("after-first") => Operands::AfterFirst,
        Some("last") => Operands::Last,
        Some("none") => Operands::None,
        _ => default,
    }
}

#[derive(Debug, Clone)]
struct Program {
    effect: Effect,
    filter: bool,
    quiet: bool,
    probe: bool,
    paths: Operands,
    writes: Operands,
    answer_exits: Vec<i32>,
    value_options: Vec<String>,
    pattern_options: Vec<String>,
    write_options: Vec<String>,
    flags: HashMap<String, Effect>,
    subcommands: HashMap<String, Program>,
    runs_rest: Vec<String>,
    runs_script: Vec<String>,
    test_targets: Vec<String>,
    interpreter: bool,
    shell: bool,
}

pub(super) struct Table {
    programs: HashMap<String, Program>,
    wrappers: HashMap<String, usize>,
    /// Lines that are never a failure (installer noise).
    pub(super) noise: Vec<String>,
    /// Rules that count only with a command, and when (`intent.rs`).
    pub(super) command_rules: HashMap<String, Need>,
    /// The rules whose match says a script could not run its own code
    /// (`brokenScript`: rule ids of rules/builtin.json).
    pub(super) broken_script: Vec<String>,
    /// Words of a fallback message that says the command before it failed.
    pub(super) fallback_failure: Vec<String>,
    /// Rules whose match is a test runner's own verdict (`runnerVerdicts`).
    pub(super) runner_verdicts: Vec<String>,
    /// The rule whose match is a shell's `command not found` (`missingCommand`).
    pub(super) missing_command: Option<String>,
    /// Rules whose match is a generic failure word (`lexiconRules`): an
    /// `error` only when corroborated (`corroboration.rs`).
    pub(super) lexicon_rules: Vec<String>,
    /// A test runner's all-passed summary (`passingSummaries`, one
    /// multi-line expression); `None` when the list is empty or bad.
    pub(super) passing_summary: Option<regex::Regex>,
    /// Consumers that stop reading early (`earlyExit`): program, and the
    /// start of an argument that makes it so (`grep -q`), if any.
    pub(super) early_exit: Vec<(String, Option<String>)>,
}

fn strings(v: Option<&Value>) -> Vec<String> {
    v.and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default()
}

fn program(v: &Value, parent: Option<&Program>) -> Program {
    let get = |k: &str| v.get(k);
    let effect = get("effect")
        .and_then(Value::as_str)
        .and_then(Effect::parse)
        .or(parent.map(|p| p.effect))
        .unwrap_or(Effect::Run);
    let inherit = |k: &str, f: &dyn Fn(&Program) -> Vec<String>| {
        if get(k).is_some() {
            strings(get(k))
        } else {
            parent.map(f).unwrap_or_default()
        }
    };
    let mut p = Program {
        effect,
        filter: get("filter").and_then(Value::as_bool).unwrap_or(false),
        quiet: get("quiet").and_then(Value::as_bool).unwrap_or(false),
        probe: get("probe").and_then(Value::as_bool).unwrap_or(false),
        paths: operands(
            get("paths").and_then(Value::as_str),
            parent.map_or(Operands::None, |_| Operands::None),
        ),
        writes: operands(get("writes").and_then(Value::as_str), Operands::None),
        answer_exits: get("answerExits")
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(Value::as_i64)
                    .map(|n| n as i32)
                    .collect()
            })
            .unwrap_or_default(),
        value_options: inherit("valueOptions", &|p| p.value_options.clone()),
        pattern_options: strings(get("patternOptions")),
        write_options: strings(get("writeOptions")),
        flags: get("flags")
            .and_then(Value::as_object)
            .map(|o| {
                o.iter()
                    .filter_map(|(k, e)| Some((k.clone(), Effect::parse(e.as_str()?)?)))
                    .collect()
            })
            .unwrap_or_default(),
        subcommands: HashMap::new(),
        runs_rest: strings(get("runsRest")),
        runs_script: strings(get("runsScript")),
        test_targets: strings(get("testTargets")),
        interpreter: get("interpreter").and_then(Value::as_bool).unwrap_or(false),
        shell: get("shell").and_then(Value::as_bool).unwrap_or(false),
    };
    if let Some(subs) = get("subcommands").and_then(Value::as_object) {
        let parent = p.clone();
        p.subcommands = subs
            .iter()
            .map(|(k, s)| (k.clone(), program(s, Some(&parent))))
            .collect();
    }
    p
}

pub(super) fn table() -> &'static Table {
    static TABLE: OnceLock<Table> = OnceLock::new();
    TABLE.get_or_init(|| {
        const PROGRAMS: &str = include_str!("../../../../rules/programs.json");
        // Both files are checked by the tests (`table_is_well_formed`); a bad
        // row is skipped here rather than failing a guard at run time.
        let root: Value = serde_json::from_str(PROGRAMS).unwrap_or(Value::Null);
        let rows = root.get("programs").and_then(Value::as_object);
        let mut programs: HashMap<String, Program> = HashMap::new();
        let mut aliases = Vec::new();
        for (name, row) in rows.into_iter().flatten() {
            match row.get("alias").and_then(Value::as_str) {
                Some(target) => aliases.push((name.clone(), target.to_owned())),
                None => {
                    programs.insert(name.clone(), program(row, None));
                }
            }
        }
        for (name, target) in aliases {
            if let Some(p) = programs.get(&target).cloned() {
                programs.insert(name, p);
            }
        }
        let wrappers = root
            .get("wrappers")
            .and_then(Value::as_object)
            .map(|o| {
                o.iter()
                    .map(|(k, v)| (k.clone(), v.as_u64().unwrap_or(0) as usize))
                    .collect()
            })
            .unwrap_or_default();
        let command_rules = root
            .get("commandRules")
            .and_then(Value::as_object)
            .map(|o| {
                o.iter()
                    .filter_map(|(id, v)| Some((id.clone(), need_of(v)?)))
                    .collect()
            })
            .unwrap_or_default();
        let broken_script = strings(root.get("brokenScript"));
        Table {
            noise: strings(root.get("noise")),
            command_rules,
            broken_script,
            fallback_failure: strings(root.get("fallbackFailure")),
            runner_verdicts: strings(root.get("runnerVerdicts")),
            missing_command: root
                .get("missingCommand")
                .and_then(Value::as_str)
                .map(str::to_owned),
            lexicon_rules: strings(root.get("lexiconRules")),
            passing_summary: any_of(&strings(root.get("passingSummaries"))),
            early_exit: strings(root.get("earlyExit"))
                .into_iter()
                .map(|e| match e.split_once(' ') {
                    Some((p, f)) => (p.to_owned(), Some(f.to_owned())),
                    None => (e, None),
                })
                .collect(),
            programs,
            wrappers,
        }
    })
}

/// One multi-line expression matching any of `patterns`.
fn any_of(patterns: &[String]) -> Option<regex::Regex> {
    if patterns.is_empty() {
        return None;
    }
    let alternatives: Vec<String> = patterns.iter().map(|p| format!("(?:{p})")).collect();
    regex::Regex::new(&format!("(?m){}", alternatives.join("|"))).ok()
}

/// A `commandRules` value: one need, or a list of which any may hold.
fn need_of(v: &Value) -> Option<Need> {
    match v {
        Value::String(s) => need(s),
        Value::Array(a) => a
            .iter()
            .map(|n| need(n.as_str()?))
            .collect::<Option<Vec<_>>>()
            .map(Need::Any),
        _ => None,
    }
}

/// `program-ran` | `effect:<effect>[,<effect>…]` | `programs:a,b` |
/// `code:<text>[,<text>…]`.
pub(super) fn need(s: &str) -> Option<Need> {
    if s == "program-ran" {
        return Some(Need::ProgramRan);
    }
    if let Some(e) = s.strip_prefix("effect:") {
        return e
            .split(',')
            .map(Effect::parse)
            .collect::<Option<Vec<_>>>()
            .map(Need::Effect);
    }
    if let Some(t) = s.strip_prefix("code:") {
        return Some(Need::Code(t.split(',').map(str::to_owned).collect()));
    }
    s.strip_prefix("programs:")
        .map(|p| Need::Programs(p.split(',').map(str::to_owned).collect()))
}

/// Whether `name` is a program of the table whose effect is a write
/// (`touch`, `cp`, SWE-agent's `create`), or a harness command run in a
/// shell that may write (SWE-agent's `str_replace_editor`: the harness tool
/// model decides it, by its sub-command).
pub(super) fn is_write_program(name: &str) -> bool {
    match table().programs.get(name) {
        Some(p) => p.effect == Effect::Write,
        None => harness::table()
            .shell_command(name)
            .is_some_and(|rule| match rule {
                Rule::Effect(e) => *e == Effect::Write,
                Rule::ByCommand { commands, default } => {
                    *default == Some(Effect::Write)
                        || commands.values().any(|e| *e == Effect::Write)
                }
                Rule::Shell | Rule::ByCode => false,
            }),
    }
}

/// Whether `name` is a program of the table whose run is a yes/no
/// question (`test`, `which`: `probe` in rules/programs.json).
pub(super) fn is_probe_program(name: &str) -> bool {
    table().programs.get(name).is_some_and(|p| p.probe)
}

/// The default shell tools (`rules/shell-tools.json`), lowercased. Decoded
/// on its own, not with the program table: every call asks whether its tool
/// is a shell, and a hook process for a Read call would otherwise decode the
/// whole 22 KB table (~2.8 M instructions) to answer.
pub(super) fn shell_tools() -> &'static [String] {
    static TOOLS: OnceLock<Vec<String>> = OnceLock::new();
    TOOLS.get_or_init(|| {
        const SHELL_TOOLS: &str = include_str!("../../../../rules/shell-tools.json");
        let tools: Value = serde_json::from_str(SHELL_TOOLS).unwrap_or(Value::Null);
        strings(tools.get("shellTools"))
            .into_iter()
            .map(|s| s.to_ascii_lowercase())
            .collect()
    })
}

#[cfg(test)]
pub(super) fn known(name: &str) -> bool {
    table().programs.contains_key(name)
}

/// Models `line` (at `bash -c` depth `depth`) into `model.commands`.
pub(super) fn model_line(line: &str, depth: u32, model: &mut CallModel) {
    let room = MAX_COMMANDS.saturating_sub(model.commands.len());
    let (pipelines, truncated) = lex::parse_line(line, room);
    model.truncated |= truncated;
    let pipefail = line.contains("pipefail");
    let errexit = pipelines.iter().any(|p| {
        p.stages.first().is_some_and(|c| {
            c.words.first().is_some_and(|w| w == "set")
                && c.words[1..]
                    .iter()
                    .any(|w| w.starts_with('-') && w.contains('e') && !w.starts_with("--"))
        })
    });
    let base_pipeline = model.commands.last().map_or(0, |c| c.pipeline + 1);
    let first_new = model.commands.len();
    let mut cwd: Option<String> = None;
    for (pi, p) in pipelines.iter().enumerate() {
        let masks_after = masks_after(&pipelines, pi, errexit);
        let n = p.stages.len();
        for (si, raw) in p.stages.iter().enumerate() {
            if raw.words.first().is_some_and(|w| w == "cd" || w == "pushd") {
                cwd = raw.words.get(1).cloned();
            }
            let mut masks = masks_after.clone();
            if si + 1 < n && !pipefail {
                masks.insert(0, Mask::Pipeline);
            }
            if p.background {
                masks.push(Mask::Background);
            }
            let Some(mut cmd) = command(raw, depth, model) else {
                continue;
            };
            cmd.pipeline = base_pipeline + pi;
            cmd.stage = si;
            cmd.last_stage = si + 1 == n;
            cmd.joiner = p.joiner;
            cmd.background = p.background;
            cmd.masks = masks;
            cmd.cwd = cwd.clone();
            if model.commands.len() < MAX_COMMANDS {
                model.commands.push(cmd);
            } else {
                model.truncated = true;
            }
        }
    }
    // The reported status: the last stage of the last pipeline.
    if depth == 0 {
        model.reporter = model.commands.len().checked_sub(1);
    }
    // Probes: a fallback that says the answer (`|| echo missing`),
    // or an alternative look tried on failure (`ls a || ls b`, `test -f x || …`).
    let mine = &model.commands[first_new..];
    for (k, c) in mine.iter().enumerate() {
        if c.joiner == Joiner::Or && c.stage == 0 {
            let before = mine[..k].iter().rev().find(|b| b.pipeline < c.pipeline);
            let looks = |e: Effect| matches!(e, Effect::Read | Effect::Search);
            // `|| true` / `|| :` only keep a chain going: not a question.
            let says = matches!(c.program.as_str(), "echo" | "printf");
            if says || looks(c.effect) || before.is_some_and(|b| looks(b.effect) || b.quiet) {
                model.probe = true;
            }
        }
    }
}

/// How a failure of pipeline `pi` could be hidden by what follows it: the
/// first later pipeline not joined by `&&` (those are skipped on failure).
fn masks_after(pipelines: &[RawPipeline], pi: usize, errexit: bool) -> Vec<Mask> {
    if pipelines[pi].background {
        // Its status is never waited for: `Background` says it all.
        return Vec::new();
    }
    for p in &pipelines[pi + 1..] {
        match p.joiner {
            Joiner::And => continue,
            Joiner::Or => return vec![Mask::Fallback],
            Joiner::Seq | Joiner::AfterBackground | Joiner::Start if !errexit => {
                return vec![Mask::Sequence]
            }
            _ => return Vec::new(),
        }
    }
    Vec::new()
}

fn basename(w: &str) -> &str {
    w.rsplit('/').next().filter(|s| !s.is_empty()).unwrap_or(w)
}

/// Classifies one simple command (wrappers skipped); `None` for a command
/// with no program and no file redirect.
fn command(raw: &RawCommand, depth: u32, model: &mut CallModel) -> Option<Command> {
    let t = table();
    let mut words: &[String] = &raw.words;
    // Wrappers: `sudo -u x`, `timeout 60`, `env A=b`, `nohup`, `xargs -0`…
    let mut guard = 0;
    while let Some(first) = words.first() {
        guard += 1;
        if guard > 8 {
            break;
        }
        let name = basename(first);
        let Some(&skip) = t.wrappers.get(name) else {
            break;
        };
        let mut rest = &words[1..];
        // The wrapper's own options and assignments (`env -i A=b`, `sudo -u root`).
        while let Some(w) = rest.first() {
            if w.starts_with('-') {
                let takes_value = matches!(
                    (name, w.as_str()),
                    ("sudo", "-u" | "-g")
                        | ("timeout", "-s" | "-k" | "--signal")
                        | ("xargs", "-I" | "-n" | "-P" | "-d")
                        | ("nice", "-n")
                );
                rest = &rest[if takes_value { 2.min(rest.len()) } else { 1 }..];
            } else if name == "env" && w.contains('=') {
                rest = &rest[1..];
            } else {
                break;
            }
        }
        words = &rest[skip.min(rest.len())..];
    }
    let mut cmd = Command::new(String::new(), Effect::Other);
    if let Some(first) = words.first() {
        cmd.program = basename(first).to_owned();
        cmd.args = words[1..].to_vec();
        classify(&mut cmd, raw, depth, model);
    } else if !raw.redirects.iter().any(|r| r.output && is_file(&r.target)) {
        return None;
    } else {
        // `> f` alone truncates f.
        cmd.effect = Effect::Write;
    }
    for r in &raw.redirects {
        if r.target == "/dev/null" && (r.fd == 2 || r.both) {
            cmd.stderr_hidden = true;
        }
        if r.output && is_file(&r.target) {
            if r.fd == 1 || r.both {
                cmd.stdout_to_file = true;
            }
            if !cmd.writes.contains(&r.target) {
                cmd.writes.push(r.target.clone());
            }
        } else if !r.output && is_file(&r.target) && cmd.effect == Effect::Read {
            cmd.reads.push(PathRead {
                path: r.target.clone(),
                range: None,
            });
        }
    }
    // A display redirected to a file is a copy: `cat > f << EOF`, `git diff > x.patch`.
    if cmd.stdout_to_file
        && matches!(
            cmd.effect,
            Effect::Read | Effect::Search | Effect::Other | Effect::Network
        )
    {
        cmd.effect = Effect::Write;
        cmd.quiet = false;
    }
    Some(cmd)
}

fn is_file(target: &str) -> bool {
    !target.is_empty()
        && target != "/dev/null"
        && !target.starts_with('&')
        && !target.starts_with("/dev/std")
}

/// Classifies `cmd` as a harness command run in a shell
/// ([`harness::Table::shell_command`]): its effect, and the file its first
/// operand (after an editor's sub-command) names, unless a line range or
/// an option. False when the harness model does not know it.
fn harness_command(cmd: &mut Command) -> bool {
    let Some(rule) = harness::table().shell_command(&cmd.program) else {
        return false;
    };
    let editor = matches!(rule, Rule::ByCommand { .. });
    let Some(effect) = harness::by_command(rule, cmd.args.first().map(String::as_str)) else {
        return false;
    };
    cmd.effect = effect;
    let operand = cmd
        .args
        .get(usize::from(editor))
        .filter(|w| !w.starts_with('-') && !w.bytes().all(|b| b.is_ascii_digit() || b == b':'));
    if let Some(path) = operand.cloned() {
        match effect {
            Effect::Write => cmd.writes.push(path),
            Effect::Read => cmd.reads.push(PathRead { path, range: None }),
            _ => {}
        }
    }
    true
}

/// Sets effect, paths and conventions of `cmd` from the table.
fn classify(cmd: &mut Command, raw: &RawCommand, depth: u32, model: &mut CallModel) {
    let t = table();
    let name = cmd.program.clone();
    let Some(mut prog) = t.programs.get(&name).or_else(|| {
        // `python3.11`, `pip3.12`: the versioned names of a known program.
        let trimmed = name.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.');
        t.programs.get(trimmed)
    }) else {
        // A harness's tool defined as a shell command (SWE-agent's `open`,
        // `edit 1:5`, `str_replace_editor view a.py`): the harness tool model says.
        if harness_command(cmd) {
            return;
        }
        // Unknown: a script path (`./run.sh`) or a program the table lacks.
        cmd.effect = Effect::Run;
        if name.contains('.') || raw.words[0].contains('/') {
            cmd.script = Some(raw.words[0].clone());
        }
        if name.contains("test") {
            cmd.effect = Effect::Test;
        }
        return;
    };
    let args = cmd.args.clone();
    let mut i = 0;
    // Options before a subcommand (`git -C dir show`, `cargo -q test`).
    if !prog.subcommands.is_empty() || !prog.runs_rest.is_empty() || !prog.runs_script.is_empty() {
        while i < args.len() && args[i].starts_with('-') {
            i += if prog.value_options.contains(&args[i]) {
                2
            } else {
                1
            };
        }
        if let Some(sub) = args.get(i) {
            if prog.runs_rest.contains(sub) {
                // `uv run pytest`, `pnpm exec vitest`: the rest is the command.
                let mut rest = args[i + 1..].to_vec();
                while rest.first().is_some_and(|w| w.starts_with('-')) {
                    rest.remove(0);
                }
                if !rest.is_empty() {
                    let inner = RawCommand {
                        words: rest,
                        ..raw.clone()
                    };
                    if let Some(c) = command(&inner, depth, model) {
                        *cmd = c;
                    }
                    return;
                }
            }
            if prog.runs_script.contains(sub) {
                let script = args.get(i + 1).map_or("", String::as_str);
                cmd.effect = if script.contains("test") {
                    Effect::Test
                } else {
                    Effect::Run
                };
                return;
            }
            if let Some(s) = prog.subcommands.get(sub) {
                prog = s;
                i += 1;
            }
        }
    }
    cmd.effect = prog.effect;
    cmd.filter = prog.filter;
    cmd.quiet = prog.quiet;
    cmd.answer_exits = prog.answer_exits.clone();
    model.probe |= prog.probe;
    if !prog.test_targets.is_empty() && args.iter().any(|a| prog.test_targets.contains(a)) {
        cmd.effect = Effect::Test;
    }
    if prog.interpreter {
        interpreter(cmd, prog, raw, &args, depth, model);
        return;
    }
    // Operands and effect-changing flags.
    let mut ops: Vec<&String> = Vec::new();
    let mut pattern_given = false;
    let mut value_of: Option<&str> = None;
    let mut options_done = false;
    let mut j = i;
    let mut head_tail_n: Option<String> = None;
    while j < args.len() {
        let a = &args[j];
        j += 1;
        if let Some(opt) = value_of.take() {
            if prog.write_options.iter().any(|o| o == opt) && is_file(a) && a != "-" {
                cmd.writes.push(a.clone());
            }
            if opt == "-n" && matches!(name.as_str(), "head" | "tail") {
                head_tail_n = Some(a.clone());
            }
            continue;
        }
        if !options_done && a == "--" {
            options_done = true;
            continue;
        }
        if !options_done && a.starts_with('-') && a.len() > 1 {
            if prog.pattern_options.contains(a) {
                pattern_given = true;
            }
            if prog.value_options.contains(a) {
                value_of = prog
                    .value_options
                    .iter()
                    .find(|o| *o == a)
                    .map(String::as_str);
            }
            if let Some(e) = flag_effect(prog, a) {
                cmd.effect = e;
            }
            if matches!(name.as_str(), "head" | "tail") {
                if let Some(n) = a.strip_prefix("--lines=") {
                    head_tail_n = Some(n.to_owned());
                } else if a[1..].bytes().all(|b| b.is_ascii_digit()) {
                    head_tail_n = Some(a[1..].to_owned());
                }
            }
            continue;
        }
        if name == "curl" || name == "wget" || name == "http" || name == "https" {
            if cmd.url.is_none()
                && (a.contains("://") || a.starts_with("localhost") || a.starts_with("127."))
            {
                cmd.url = Some(a.clone());
            }
            continue;
        }
        ops.push(a);
    }
    // `sed -n '10,20p' f`: the range read.
    let mut range = None;
    if name == "sed" && cmd.effect == Effect::Read {
        let script = if pattern_given {
            args.iter().skip_while(|a| *a != "-e").nth(1)
        } else {
            ops.first().copied()
        };
        range = script.and_then(|s| sed_range(s));
    }
    if let Some(n) = head_tail_n.as_deref() {
        range = match (name.as_str(), n.strip_prefix('+')) {
            ("tail", Some(from)) => from.parse().ok().map(LineRange::From),
            ("tail", None) => n.parse().ok().map(LineRange::Last),
            (_, _) => n.trim_start_matches('-').parse().ok().map(LineRange::First),
        };
    }
    let paths: Vec<&String> = match prog.paths {
        Operands::All => ops.clone(),
        Operands::AfterFirst if pattern_given => ops.clone(),
        Operands::AfterFirst => ops.iter().skip(1).copied().collect(),
        Operands::Last => ops.last().copied().into_iter().collect(),
        Operands::None => Vec::new(),
    };
    if matches!(cmd.effect, Effect::Read | Effect::Search | Effect::Wait) {
        for p in paths.into_iter().filter(|p| *p != "-") {
            cmd.reads.push(PathRead {
                path: p.clone(),
                range,
            });
        }
    }
    let writes: Vec<&String> = match prog.writes {
        Operands::All => ops.clone(),
        Operands::AfterFirst => ops.iter().skip(1).copied().collect(),
        Operands::Last => ops.last().copied().into_iter().collect(),
        Operands::None if cmd.effect == Effect::Write && name == "sed" => ops
            .iter()
            .skip(usize::from(!pattern_given))
            .copied()
            .collect(),
        Operands::None => Vec::new(),
    };
    // `git checkout v2 -- f`: only what follows `--` is a path.
    let after_dashes: Vec<&String> = args.iter().skip_while(|a| *a != "--").skip(1).collect();
    let writes = if name == "git" && prog.writes != Operands::None && !after_dashes.is_empty() {
        after_dashes
    } else {
        writes
    };
    for w in writes {
        if is_file(w) && !cmd.writes.contains(w) {
            cmd.writes.push(w.clone());
        }
    }
    // `cp a b`: reads a; `git checkout -- f` restores f.
    if name == "cp" {
        for p in ops.iter().take(ops.len().saturating_sub(1)) {
            cmd.reads.push(PathRead {
                path: (*p).clone(),
                range: None,
            });
        }
    }
    // `curl -o f`, `wget -O f`: a download is a state change.
    if cmd.effect == Effect::Network && !cmd.writes.is_empty() {
        cmd.effect = Effect::Write;
    }
    // `curl` of a health endpoint is a poll.
    if cmd.effect == Effect::Network {
        if let Some(url) = &cmd.url {
            if is_health_url(url) {
                cmd.effect = Effect::Wait;
            }
        }
    }
    // `cat` with no file and a heredoc: prints the heredoc (`cat <<EOF`).
    if matches!(name.as_str(), "cat" | "tee")
        && ops.is_empty()
        && raw.heredoc.is_some()
        && cmd.effect == Effect::Read
    {
        cmd.effect = Effect::Other;
        cmd.quiet = true;
    }
}

fn flag_effect(prog: &super::programs::Program, a: &str) -> Option<Effect> {
    if let Some(e) = prog.flags.get(a) {
        return Some(*e);
    }
    if let Some(long) = a.strip_prefix("--") {
        let key = format!("--{}", long.split('=').next().unwrap_or(long));
        return prog.flags.get(&key).copied();
    }
    // A cluster of short options (`-ni`, `-i.bak`, `-fn`): each letter.
    if a[1..].bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    a.as_bytes()[1..]
        .iter()
        .take_while(|c| c.is_ascii_alphabetic())
        .find_map(|&c| {
            let key = [b'-', c];
            prog.flags
                .get(std::str::from_utf8(&key).unwrap_or(""))
                .copied()
        })
}

fn sed_range(script: &str) -> Option<LineRange> {
    let body = script.trim().strip_suffix('p')?;
    let mut parts = body.split(',');
    let start: u64 = parts.next()?.trim().parse().ok()?;
    let end = match parts.next() {
        Some("$") => u64::MAX,
        Some(e) => e.trim().parse().ok()?,
        None => start,
    };
    parts
        .next()
        .is_none()
        .then_some(LineRange::Lines { start, end })
}

fn is_health_url(url: &str) -> bool {
    let path = url.split("://").nth(1).unwrap_or(url);
    let path = path
        .split_once('/')
        .map_or("", |(_, p)| p)
        .to_ascii_lowercase();
    [
        "health", "healthz", "ready", "readyz", "livez", "status", "ping", "alive",
    ]
    .iter()
    .any(|k| path.split(['/', '?', '.']).any(|seg| seg == *k))
}

/// `python x.py`, `python -m pytest`, `python -c code`, `python - <<EOF`,
/// `bash -c '…'`, `bash x.sh`, `node x.js`.
fn interpreter(
    cmd: &mut Command,
    prog: &Program,
    raw: &RawCommand,
    args: &[String],
    depth: u32,
    model: &mut CallModel,
) {
    let mut k = 0;
    while k < args.len() {
        let a = &args[k];
        k += 1;
        if prog.shell && a.starts_with('-') && !a.starts_with("--") && a.contains('c') {
            // `bash -c '…'` / `bash -lc '…'`: the inner line's commands.
            let inner = args.get(k).cloned().unwrap_or_default();
            cmd.inline_code = Some(inner.clone());
            if depth < MAX_DEPTH {
                let before = model.commands.len();
                model_line(&inner, depth + 1, model);
                // The inner commands stand for this one: its effect is theirs.
                let inner_cmds: Vec<Command> = model.commands.drain(before..).collect();
                if let Some(best) = inner_cmds.iter().map(|c| c.effect).max_by_key(|e| e.rank()) {
                    cmd.effect = best;
                }
                for c in &inner_cmds {
                    cmd.reads.extend(c.reads.iter().cloned());
                    cmd.writes.extend(c.writes.iter().cloned());
                }
                if let Some(last) = inner_cmds.last() {
                    cmd.answer_exits = last.answer_exits.clone();
                    cmd.filter = last.filter;
                    if cmd.script.is_none() {
                        cmd.script = last.script.clone();
                    }
                }
            }
            return;
        }
        if a == "-c" || a == "-e" || a == "--eval" || a == "-p" {
            cmd.inline_code = args.get(k).cloned();
            cmd.effect = Effect::Run;
            if cmd.inline_code.as_deref().is_some_and(is_probe_code) {
                model.probe = true;
            }
            return;
        }
        if a == "-m" {
            // `python -m pytest`: the module is the program.
            let module = args.get(k).cloned().unwrap_or_default();
            let rest: Vec<String> = std::iter::once(module.clone())
                .chain(args[(k + 1).min(args.len())..].iter().cloned())
                .collect();
            let inner = RawCommand {
                words: rest,
                ..raw.clone()
            };
            if let Some(c) = command(&inner, depth, model) {
                let mut c = c;
                if c.effect == Effect::Run && c.script.is_none() {
                    c.script = None;
                }
                if matches!(module.as_str(), "unittest" | "nose" | "nose2") {
                    c.effect = Effect::Test;
                }
                *cmd = c;
            }
            return;
        }
        if a == "-" {
            break;
        }
        if a.starts_with('-') {
            continue;
        }
        // The script, then its arguments.
        cmd.script = Some(a.clone());
        cmd.effect = Effect::Run;
        let base = basename(a);
        if base.starts_with("runtests")
            || (base == "manage.py" && args.get(k).is_some_and(|s| s == "test"))
        {
            cmd.effect = Effect::Test;
        }
        return;
    }
    // `python` with its code on stdin (`python - <<EOF`, `python <<EOF`).
    cmd.effect = Effect::Run;
    if let Some(code) = &raw.heredoc {
        cmd.inline_code = Some(code.clone());
        if is_probe_code(code) {
            model.probe = true;
        }
    }
}

/// Code that catches its own failure and prints it: `try: … except … print`.
pub(super) fn is_probe_code(code: &str) -> bool {
    (code.contains("try:") && code.contains("except"))
        || (code.contains("try {") && code.contains("catch"))
}
