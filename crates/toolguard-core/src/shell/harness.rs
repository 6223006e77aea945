//! The harness tool model: what each tool of each agent harness does
//! (`rules/harness-tools.json`), beside the program table of the shell
//! model. The one place that decides the effect of a tool that is not a
//! shell ([`tool_effect`]), and of the harness commands a shell runs
//! (SWE-agent defines its tools as shell functions: [`shell_command`]).
//!
//! Decoded once per process into one map by lowercase name, so a call costs
//! one lookup. Bad rows are skipped here (the tests check the file), never
//! failing a guard at run time.

use std::collections::HashMap;
use std::sync::OnceLock;

use serde_json::Value;

use super::Effect;

/// What a tool does, by its name and (for some) its arguments.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Rule {
    /// Always this effect.
    Effect(Effect),
    /// A shell tool: its command line is parsed by the shell model. Without
    /// a command its effect is unknown.
    Shell,
    /// An editor whose `command` (or `action`) argument names what it does;
    /// `default` for a sub-command the map lacks, unknown without one.
    ByCommand {
        commands: HashMap<String, Effect>,
        default: Option<Effect>,
    },
    /// A code cell that is one agent-skill call (`open_file('a.py')`): the skill's effect.
    ByCode,
}

#[derive(Debug, Default)]
pub struct Table {
    /// Every harness's tools, by lowercase name.
    tools: HashMap<String, Rule>,
    /// The tools of harnesses whose tools are shell commands (`inShell`), by name as typed.
    in_shell: HashMap<String, Rule>,
    /// Tool families by the start of their name: (prefix, ops, default).
    prefixes: Vec<(String, HashMap<String, Effect>, Option<Effect>)>,
}

fn rule(v: &Value) -> Option<Rule> {
    match v {
        Value::String(s) if s == "shell" => Some(Rule::Shell),
        Value::String(s) => Effect::parse(s).map(Rule::Effect),
        Value::Object(o) => match o.get("by").and_then(Value::as_str)? {
            "code" => Some(Rule::ByCode),
            "command" => Some(Rule::ByCommand {
                commands: effects(o.get("commands")),
                default: o
                    .get("default")
                    .and_then(Value::as_str)
                    .and_then(Effect::parse),
            }),
            _ => None,
        },
        _ => None,
    }
}

fn effects(v: Option<&Value>) -> HashMap<String, Effect> {
    v.and_then(Value::as_object)
        .into_iter()
        .flatten()
        .filter_map(|(k, e)| Some((k.clone(), Effect::parse(e.as_str()?)?)))
        .collect()
}

/// The table decoded from `text` (the file's form).
pub fn decode(text: &str) -> Table {
    let root: Value = serde_json::from_str(text).unwrap_or(Value::Null);
    let mut table = Table::default();
    for harness in root
        .get("harnesses")
        .and_then(Value::as_object)
        .into_iter()
        .flat_map(|o| o.values())
    {
        let in_shell = harness.get("inShell").and_then(Value::as_bool) == Some(true);
        for (name, v) in harness
            .get("tools")
            .and_then(Value::as_object)
            .into_iter()
            .flatten()
        {
            let Some(r) = rule(v) else { continue };
            if in_shell {
                table.in_shell.insert(name.clone(), r.clone());
            }
            table.tools.entry(name.to_ascii_lowercase()).or_insert(r);
        }
    }
    for (prefix, v) in root
        .get("prefixes")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
    {
        let default = v
            .get("default")
            .and_then(Value::as_str)
            .and_then(Effect::parse);
        table
            .prefixes
            .push((prefix.to_ascii_lowercase(), effects(v.get("ops")), default));
    }
    table
}

/// The shipped table, decoded once.
pub fn table() -> &'static Table {
    static TABLE: OnceLock<Table> = OnceLock::new();
    TABLE.get_or_init(|| decode(include_str!("../../../../rules/harness-tools.json")))
}

impl Table {
    /// The rule of a tool by its short name (lowercased, MCP prefix removed).
    pub fn rule(&self, short: &str) -> Option<&Rule> {
        self.tools.get(short)
    }

    /// The effect of a tool of a named family (`browser_click`), by the rest of its name.
    pub fn prefixed(&self, short: &str) -> Option<Effect> {
        self.prefixes.iter().find_map(|(prefix, ops, default)| {
            let op = short.strip_prefix(prefix.as_str())?;
            ops.get(op).copied().or(*default)
        })
    }

    /// The rule of a harness command run in a shell (SWE-agent's `open`, `edit`, `str_replace_editor`).
    pub fn shell_command(&self, program: &str) -> Option<&Rule> {
        self.in_shell.get(program)
    }
}

/// The effect of `rule` for a sub-command (an editor's `view`): `None` when
/// the rule needs one and there is none.
pub fn by_command(rule: &Rule, sub: Option<&str>) -> Option<Effect> {
    match rule {
        Rule::Effect(e) => Some(*e),
        Rule::ByCommand { commands, default } => {
            let sub = sub.filter(|s| !s.is_empty())?;
            commands.get(sub).copied().or(*default)
        }
        Rule::Shell | Rule::ByCode => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const FILE: &str = include_str!("../../../../rules/harness-tools.json");

    /// Every row decodes; a name in two harnesses has one rule; every
    /// `shell` tool is in rules/shell-tools.json.
    #[test]
    fn the_file_is_well_formed() {
        let root: Value = serde_json::from_str(FILE).unwrap();
        let mut seen: HashMap<String, (String, Rule)> = HashMap::new();
        for (harness, h) in root["harnesses"].as_object().unwrap() {
            assert!(h["about"].is_string(), "{harness}: no about");
            for (name, v) in h["tools"].as_object().unwrap() {
                let r = rule(v).unwrap_or_else(|| panic!("{harness} {name}: bad rule {v}"));
                if let Rule::ByCommand { commands, default } = &r {
                    assert!(
                        !commands.is_empty() && default.is_some(),
                        "{harness} {name}"
                    );
                }
                if r == Rule::Shell {
                    assert!(
                        super::super::is_shell_tool(name),
                        "{harness} {name}: not in rules/shell-tools.json"
                    );
                }
                let key = name.to_ascii_lowercase();
                if let Some((other, before)) = seen.get(&key) {
                    assert_eq!(before, &r, "{name}: {harness} and {other} disagree");
                }
                seen.insert(key, (harness.clone(), r));
            }
        }
        for (prefix, v) in root["prefixes"].as_object().unwrap() {
            for (op, e) in v["ops"].as_object().unwrap() {
                assert!(Effect::parse(e.as_str().unwrap()).is_some(), "{prefix}{op}");
            }
            assert!(
                Effect::parse(v["default"].as_str().unwrap()).is_some(),
                "{prefix}"
            );
        }
        assert!(seen.len() > 100);
    }

    #[test]
    fn rules_by_name_by_command_and_by_family() {
        let t = table();
        assert_eq!(t.rule("edit"), Some(&Rule::Effect(Effect::Write)));
        assert_eq!(t.rule("bash"), Some(&Rule::Shell));
        assert_eq!(t.rule("todowrite"), Some(&Rule::Effect(Effect::Other)));
        assert_eq!(t.rule("Edit"), None, "looked up lowercased");
        let editor = t.rule("str_replace_editor").unwrap();
        assert_eq!(by_command(editor, Some("view")), Some(Effect::Read));
        assert_eq!(by_command(editor, Some("undo_edit")), Some(Effect::Write));
        assert_eq!(
            by_command(editor, Some("something_new")),
            Some(Effect::Write)
        );
        assert_eq!(by_command(editor, None), None);
        assert_eq!(by_command(editor, Some("")), None);
        assert_eq!(t.prefixed("browser_go_back"), Some(Effect::Navigate));
        assert_eq!(t.prefixed("browser_click"), Some(Effect::Write));
        assert_eq!(t.prefixed("browse"), None);
        // SWE-agent's tools are its shell's commands; other harnesses' are not.
        assert!(t.shell_command("str_replace_editor").is_some());
        assert!(t.shell_command("goto").is_some());
        assert!(t.shell_command("Read").is_none() && t.shell_command("apply_patch").is_none());
    }

    #[test]
    fn a_bad_file_gives_an_empty_table_and_bad_rows_are_skipped() {
        let t = decode("not json");
        assert!(t.rule("edit").is_none() && t.prefixed("browser_click").is_none());
        let t = decode(
            r#"{"harnesses":{"h":{"tools":{"a":"teleport","b":"read","c":{"by":"magic"}}}}}"#,
        );
        assert_eq!((t.rule("a"), t.rule("c")), (None, None));
        assert_eq!(t.rule("b"), Some(&Rule::Effect(Effect::Read)));
    }
}
