//! The hook's config file, read as the Node CLI reads it (ts/cli/config.mts):
//! JSON for `.json`, YAML for `.yaml`/`.yml`, otherwise JSON when the text
//! starts with `{`, else YAML (`configSyntax`). The tree goes to the core's
//! one decoder (`Config::from_value`) after the hook's default `shellTools`
//! is added. Errors name the file, and the line: of a syntax error, or of the
//! key an engine error names (`checkWithEngine`: `keysOfEngineError`,
//! `lineOfPath`).

use std::path::Path;
use std::sync::{Arc, OnceLock};

use regex::Regex;
use toolguard_core::config::{js_number, Config, ConfigValue, CONFIG_DEPTH_LIMIT};
use toolguard_core::engine::{Engine, Scanner};
use toolguard_core::rules::RuleSet;
use yaml_rust2::parser::{Event, MarkedEventReceiver, Parser};
use yaml_rust2::scanner::{Marker, TScalarStyle};
use yaml_rust2::{Yaml, YamlLoader};

use crate::js::Js;
use crate::Failure;

/// Shell tools of the hosts (`HOOK_SHELL_TOOLS`): the core's one default
/// list (`rules/shell-tools.json`, compared without case), so Claude Code's
/// `Bash`, Codex's `exec_command` and the DSH names are all scanned.
pub fn hook_shell_tools() -> &'static [String] {
    toolguard_core::shell::default_shell_tools()
}

/// A config file as read (`LoadedConfig`: parsed, not yet decoded).
pub struct Loaded {
    /// `None`: no config file (the defaults).
    path: Option<String>,
    text: String,
    /// The file's tree, before the hook's defaults: rule ids are looked up in it.
    value: ConfigValue,
}

impl Loaded {
    /// An engine error as `checkWithEngine` words it: the file, the line of
    /// the key or rule it names (when found), the engine's message.
    fn engine_error(&self, error: impl std::fmt::Display) -> Failure {
        let message = error.to_string();
        let Some(path) = &self.path else {
            return Failure(message);
        };
        let line = keys_of_engine_error(&message, &self.value)
            .and_then(|keys| line_of_path(&self.text, &keys));
        Failure(match line {
            Some(line) => format!("{path}:{line}: {message}"),
            None => format!("{path}: {message}"),
        })
    }

    /// `deniesLoops(hookEngineConfig(config))`: whether the config asks for
    /// PreToolUse denials (`loops.deny` set and not `false`), read from the
    /// tree before it is decoded, as the Node hook does.
    pub fn denies_loops(&self) -> bool {
        match member(&self.value, "loops") {
            Some(loops @ ConfigValue::Object(_)) => !matches!(
                member(loops, "deny"),
                None | Some(ConfigValue::Undefined) | Some(ConfigValue::Bool(false))
            ),
            _ => false,
        }
    }

    /// The hook's engine config (`hookEngineConfig`): the file's config (or
    /// none) with `loudFailure.shellTools` defaulting to [`hook_shell_tools`]
    /// and the loop detectors on unless `loops: false`, decoded.
    pub fn config(&self) -> Result<Config, Failure> {
        Config::with_loops_by_default(&hook_config(self.value.clone()))
            .map_err(|e| self.engine_error(e))
    }
}

/// Read and parse the config file (`readConfig`); `None`: no file. Errors
/// name the file, and the line of a syntax error.
pub fn read(path: Option<&str>) -> Result<Loaded, Failure> {
    let Some(path) = path else {
        return Ok(Loaded {
            path: None,
            text: String::new(),
            value: ConfigValue::Undefined,
        });
    };
    let text = std::fs::read(path)
        .map_err(|e| Failure(format!("cannot read config {path}: {e}")))
        .map(|bytes| String::from_utf8_lossy(&bytes).into_owned())?;
    let value = if is_json(path, &text) {
        parse_json(path, &text)?
    } else {
        parse_yaml(path, &text)?
    };
    let value = match value {
        ConfigValue::Null | ConfigValue::Undefined => ConfigValue::Undefined, // an empty (or all-comment) file
        ConfigValue::Object(_) => value,
        other => {
            let got = if let ConfigValue::Array(_) = other {
                "a list"
            } else {
                other.kind()
            };
            return Err(Failure(format!(
                "{path}: a config is a mapping {{repeat?, loudFailure?}} (got {got})"
            )));
        }
    };
    Ok(Loaded {
        path: Some(path.to_owned()),
        text,
        value,
    })
}

/// The engine for one event: `scanned_tool` is the tool whose output this
/// call scans (PostToolUse), `None` for a call that scans nothing
/// (PreToolUse). Compiling the built-in rule table is most of a hook
/// process's own work; a call that scans nothing (Read, Edit, Grep… most
/// calls, and every PreToolUse) never uses it, so with the built-in rules
/// alone it is skipped. User rules are always compiled: a bad pattern must
/// fail every call, as it does in the Node hook.
pub fn engine(loaded: &Loaded, scanned_tool: Option<&str>) -> Result<Engine, Failure> {
    let config = loaded.config()?;
    let loud = &config.loud_failure;
    let scanned = scanned_tool.is_some_and(|tool| {
        toolguard_core::engine::scans_with(
            &toolguard_core::engine::shell_tool_patterns(&loud.shell_tools),
            tool,
        )
    });
    if scanned || !loud.rules.is_empty() {
        return Engine::new(&config).map_err(|e| loaded.engine_error(e));
    }
    let none = RuleSet::compile_table(Vec::new()).map_err(|e| loaded.engine_error(e))?;
    let scanner = Scanner::with_rules(none, loud);
    let mut engine = Engine::with_scanner(&config.repeat, Arc::new(scanner));
    engine.set_loops(config.loops.as_ref());
    Ok(engine)
}

/// `configSyntax`: JSON by extension `.json`, YAML by `.yaml`/`.yml`;
/// otherwise JSON when the text starts with `{` after JavaScript's `\s`.
fn is_json(path: &str, text: &str) -> bool {
    match Path::new(path)
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase)
        .as_deref()
    {
        Some("json") => true,
        Some("yaml" | "yml") => false,
        _ => text.trim_start_matches(js_space).starts_with('{'),
    }
}

/// JavaScript's `\s`: Unicode White_Space but U+0085, and U+FEFF (a BOM) too.
fn js_space(c: char) -> bool {
    c == '\u{FEFF}' || (c.is_whitespace() && c != '\u{85}')
}

/// `hookEngineConfig`: `{...config, loudFailure: {...config.loudFailure, shellTools ?? HOOK_SHELL_TOOLS}}`.
fn hook_config(config: ConfigValue) -> ConfigValue {
    let mut members = match config {
        ConfigValue::Object(members) => members,
        _ => Vec::new(),
    };
    let at = members.iter().rposition(|(k, _)| k == "loudFailure");
    let mut loud = match at.map(|i| members[i].1.clone()) {
        // Spreading an object copies it; spreading null, a number or a boolean copies nothing.
        Some(ConfigValue::Object(entries)) => entries,
        Some(ConfigValue::String(s)) => s
            .chars()
            .enumerate()
            .map(|(i, c)| (i.to_string(), ConfigValue::String(c.into())))
            .collect(),
        Some(ConfigValue::Array(items)) => items
            .into_iter()
            .enumerate()
            .map(|(i, v)| (i.to_string(), v))
            .collect(),
        _ => Vec::new(),
    };
    if !loud
        .iter()
        .any(|(k, v)| k == "shellTools" && *v != ConfigValue::Undefined)
    {
        loud.retain(|(k, _)| k != "shellTools");
        let tools = hook_shell_tools()
            .iter()
            .map(|t| ConfigValue::String(t.clone()))
            .collect();
        loud.push(("shellTools".into(), ConfigValue::Array(tools)));
    }
    match at {
        Some(i) => {
            members.retain(|(k, _)| k != "loudFailure");
            members.insert(
                i.min(members.len()),
                ("loudFailure".into(), ConfigValue::Object(loud)),
            );
        }
        None => members.push(("loudFailure".into(), ConfigValue::Object(loud))),
    }
    ConfigValue::Object(members)
}

/// `JSON.parse` of the file: members in JavaScript's order (the engine
/// reports the first unknown key in that order), lone surrogates kept as
/// U+FFFD; a syntax error names its line.
fn parse_json(path: &str, text: &str) -> Result<ConfigValue, Failure> {
    let js = Js::parse(text).map_err(|e| {
        // serde_json's message ends with " at line L column C": the line goes up front.
        let message = e.to_string();
        let reason = message
            .rsplit_once(" at line ")
            .map_or(&*message, |(r, _)| r);
        match e.line() {
            0 => Failure(format!("{path}: not valid JSON: {reason}")),
            line => Failure(format!("{path}:{line}: not valid JSON: {reason}")),
        }
    })?;
    from_js(&js, 0).map_err(|e| Failure(format!("{path}: {e}")))
}

fn from_js(value: &Js, depth: usize) -> Result<ConfigValue, toolguard_core::ConfigError> {
    if depth > CONFIG_DEPTH_LIMIT {
        return Err(toolguard_core::ConfigError::TooDeep);
    }
    Ok(match value {
        Js::Null => ConfigValue::Null,
        Js::Bool(b) => ConfigValue::Bool(*b),
        Js::Num(n) => ConfigValue::Number(*n),
        Js::Str(s) => ConfigValue::String(s.clone()),
        Js::Arr(items) => ConfigValue::Array(
            items
                .iter()
                .map(|v| from_js(v, depth + 1))
                .collect::<Result<_, _>>()?,
        ),
        Js::Obj(members) => js_object(
            members
                .iter()
                .map(|(k, v)| Ok((k.clone(), from_js(v, depth + 1)?)))
                .collect::<Result<_, _>>()?,
        ),
    })
}

/// An object's members in JavaScript's property order: array-index keys
/// first, ascending, then the others as inserted.
fn js_object(mut members: Vec<(String, ConfigValue)>) -> ConfigValue {
    members.sort_by_key(|(k, _)| crate::js::array_index(k).map_or((1, 0), |i| (0, i)));
    ConfigValue::Object(members)
}

fn parse_yaml(path: &str, text: &str) -> Result<ConfigValue, Failure> {
    let docs = YamlLoader::load_from_str(text).map_err(|e| {
        let line = e.marker().line();
        let reason = e.info().to_owned();
        Failure(format!("{path}:{line}: not valid YAML: {reason}"))
    })?;
    match docs.as_slice() {
        [] => Ok(ConfigValue::Null),
        [doc] => {
            from_yaml(doc, 0).map_err(|reason| Failure(format!("{path}: not valid YAML: {reason}")))
        }
        _ => Err(Failure(format!(
            "{path}: not valid YAML: the file holds several documents"
        ))),
    }
}

/// A YAML node as the config tree (what `yaml`'s `toJS()` gives the Node CLI).
fn from_yaml(node: &Yaml, depth: usize) -> Result<ConfigValue, String> {
    if depth > CONFIG_DEPTH_LIMIT {
        return Err("nested too deeply".into());
    }
    Ok(match node {
        Yaml::Null => ConfigValue::Null,
        Yaml::Boolean(b) => ConfigValue::Bool(*b),
        Yaml::Integer(i) => ConfigValue::Number(*i as f64),
        Yaml::Real(text) => {
            ConfigValue::Number(yaml_float(text).ok_or_else(|| format!("bad number {text}"))?)
        }
        Yaml::String(s) => ConfigValue::String(s.clone()),
        Yaml::Array(items) => ConfigValue::Array(
            items
                .iter()
                .map(|v| from_yaml(v, depth + 1))
                .collect::<Result<_, _>>()?,
        ),
        Yaml::Hash(map) => js_object(
            map.iter()
                .map(|(k, v)| Ok((yaml_key(k)?, from_yaml(v, depth + 1)?)))
                .collect::<Result<_, String>>()?,
        ),
        Yaml::Alias(_) => return Err("aliases are not supported".into()),
        Yaml::BadValue => return Err("a value it could not read".into()),
    })
}

/// A scalar key as `toJS()` turns it into a property name.
fn yaml_key(key: &Yaml) -> Result<String, String> {
    Ok(match key {
        Yaml::String(s) => s.clone(),
        Yaml::Integer(i) => i.to_string(),
        Yaml::Real(text) => yaml_float(text)
            .map(js_number)
            .unwrap_or_else(|| text.clone()),
        Yaml::Boolean(b) => b.to_string(),
        Yaml::Null => "".into(),
        _ => return Err("a mapping key must be a scalar".into()),
    })
}

fn yaml_float(text: &str) -> Option<f64> {
    match text.trim_start_matches('+').to_ascii_lowercase().as_str() {
        ".inf" => Some(f64::INFINITY),
        "-.inf" => Some(f64::NEG_INFINITY),
        ".nan" => Some(f64::NAN),
        other => other.parse().ok(),
    }
}

// ---------------------------------------------------------------------------
// The line an engine error points at

/// One step of a config path: an object key, or an array index (a number in
/// JavaScript, which may be too large to be one).
#[derive(Debug, Clone, PartialEq)]
enum Key {
    Name(String),
    Index(f64),
}

fn regex(cell: &'static OnceLock<Regex>, pattern: &str) -> &'static Regex {
    cell.get_or_init(|| Regex::new(pattern).expect("a valid pattern"))
}

/// `keysOfEngineError`: where an engine error points inside the config —
/// a `config.a.b[2]` path, a rule id, or a repeat option named by its text.
fn keys_of_engine_error(message: &str, value: &ConfigValue) -> Option<Vec<Key>> {
    static PATH: OnceLock<Regex> = OnceLock::new();
    static STEP: OnceLock<Regex> = OnceLock::new();
    static RULE: OnceLock<Regex> = OnceLock::new();
    static REPEAT: OnceLock<Regex> = OnceLock::new();
    // JavaScript's \w, \d and \b are ASCII; its `.` stops at any line terminator; its \s is `js_space`.
    let path = regex(
        &PATH,
        r"(?-u:\b)config((?:\.[A-Za-z_$][0-9A-Za-z_$]*|\[[0-9]+\])+)",
    );
    if let Some(found) = path.captures(message) {
        let step = regex(&STEP, r"\.([A-Za-z_$][0-9A-Za-z_$]*)|\[([0-9]+)\]");
        let steps = step.captures_iter(&found[1]).map(|m| match m.get(1) {
            Some(name) => Key::Name(name.as_str().to_owned()),
            None => Key::Index(m[2].parse().unwrap_or(f64::INFINITY)),
        });
        return Some(steps.collect());
    }
    let rule = regex(
        &RULE,
        "(?-u:\\b)rule ([^\t\n\x0B\x0C\r \u{A0}\u{1680}\u{2000}-\u{200A}\u{2028}\u{2029}\u{202F}\u{205F}\u{3000}\u{FEFF}:]+):",
    );
    if let Some(id) = rule.captures(message) {
        let rules = member(value, "loudFailure").and_then(|l| member(l, "rules"));
        if let Some(ConfigValue::Array(rules)) = rules {
            let same = |r: &ConfigValue| matches!(member(r, "id"), Some(ConfigValue::String(s)) if *s == id[1]);
            if let Some(index) = rules.iter().position(same) {
                let keys = ["loudFailure", "rules"].map(|k| Key::Name(k.into()));
                return Some([keys.to_vec(), vec![Key::Index(index as f64)]].concat());
            }
        }
    }
    let repeat = regex(
        &REPEAT,
        "^repeat-tool-reminder: [^\n\r\u{2028}\u{2029}]*?(?-u:\\b)(thresholds|argumentsPreviewChars)(?-u:\\b)|^repeat-tool-reminder: invalid (threshold)",
    );
    let found = repeat.captures(message)?;
    let option = found.get(1).map_or("thresholds", |m| m.as_str());
    Some(vec![Key::Name("repeat".into()), Key::Name(option.into())])
}

/// `object[key]` of a config tree (`undefined` → `None`).
fn member<'a>(value: &'a ConfigValue, key: &str) -> Option<&'a ConfigValue> {
    match value {
        ConfigValue::Object(members) => {
            members.iter().rev().find(|(k, _)| k == key).map(|(_, v)| v)
        }
        _ => None,
    }
}

/// A YAML node with the line it starts on (1-based), as far as `lineOfPath` needs it.
#[derive(Debug)]
enum Node {
    /// The scalar as `String(node.value)` prints it.
    Scalar(String, usize),
    Seq(Vec<Node>, usize),
    /// Keys and values; a key's value is `None` until it is read.
    Map(Vec<(Node, Option<Node>)>, usize),
    Alias(usize),
}

impl Node {
    fn line(&self) -> usize {
        match self {
            Node::Scalar(_, line) | Node::Seq(_, line) | Node::Map(_, line) | Node::Alias(line) => {
                *line
            }
        }
    }
}

/// Builds the first document's nodes from the parser's events. A parse error
/// leaves what was built (the `yaml` package also returns a document with
/// errors); unfinished collections are closed at the end.
#[derive(Default)]
struct Tree {
    open: Vec<Node>,
    root: Option<Node>,
}

impl Tree {
    fn add(&mut self, node: Node) {
        match self.open.last_mut() {
            Some(Node::Seq(items, _)) => items.push(node),
            Some(Node::Map(pairs, _)) => match pairs.last_mut() {
                Some((_, value @ None)) => *value = Some(node),
                _ => pairs.push((node, None)),
            },
            _ => {
                if self.root.is_none() {
                    self.root = Some(node);
                }
            }
        }
    }

    fn close(&mut self) {
        if let Some(node) = self.open.pop() {
            self.add(node);
        }
    }

    fn finish(mut self) -> Option<Node> {
        while !self.open.is_empty() {
            self.close();
        }
        self.root
    }
}

impl MarkedEventReceiver for Tree {
    fn on_event(&mut self, event: Event, mark: Marker) {
        let line = mark.line();
        match event {
            Event::Scalar(text, style, _, _) => {
                let value = if style == TScalarStyle::Plain {
                    match Yaml::from_str(&text) {
                        Yaml::Integer(i) => i.to_string(),
                        Yaml::Real(r) => yaml_float(&r).map_or(r, js_number),
                        Yaml::Boolean(b) => b.to_string(),
                        Yaml::Null => "null".into(),
                        _ => text,
                    }
                } else {
                    text
                };
                self.add(Node::Scalar(value, line));
            }
            Event::Alias(_) => self.add(Node::Alias(line)),
            Event::SequenceStart(..) => self.open.push(Node::Seq(Vec::new(), line)),
            Event::MappingStart(..) => self.open.push(Node::Map(Vec::new(), line)),
            Event::SequenceEnd | Event::MappingEnd => self.close(),
            _ => {}
        }
    }
}

/// `lineOfPath`: the 1-based line of the value at `keys` in a JSON or YAML
/// text (JSON read as YAML's flow style): the line of the last key found
/// (an object key's own line, an array item's), `None` when an index is
/// past the end or the text has no document.
fn line_of_path(text: &str, keys: &[Key]) -> Option<usize> {
    let mut tree = Tree::default();
    // Errors are fine: the document up to them is used. A lone surrogate
    // escape (which JSON.parse took) would stop the scanner at the first line.
    let text = crate::js::replace_lone_surrogates(text);
    let _ = Parser::new_from_str(&text).load(&mut tree, false);
    let root = tree.finish()?;
    let mut node = Some(&root);
    let mut line = Some(root.line());
    for key in keys {
        match (node, key) {
            (Some(Node::Map(pairs, _)), key) => {
                let name = match key {
                    Key::Name(name) => name.clone(),
                    Key::Index(i) => js_number(*i),
                };
                let found = pairs
                    .iter()
                    .find(|(k, _)| matches!(k, Node::Scalar(s, _) if *s == name));
                let Some((k, value)) = found else { break };
                line = Some(k.line());
                node = value.as_ref();
            }
            (Some(Node::Seq(items, _)), Key::Index(i)) => {
                node = (i.fract() == 0.0 && *i < items.len() as f64).then(|| &items[*i as usize]);
                line = node.map(Node::line);
            }
            _ => break,
        }
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_shell_tools_are_added_unless_given() {
        let config = read(None).unwrap().config().unwrap();
        assert_eq!(config.loud_failure.shell_tools, hook_shell_tools());
        assert!(config.loops.is_some(), "loops on by default");
        let given =
            hook_config(ConfigValue::from_json(r#"{"loudFailure":{"shellTools":["x"]}}"#).unwrap());
        assert_eq!(
            Config::from_value(&given).unwrap().loud_failure.shell_tools,
            vec!["x"]
        );
    }

    #[test]
    fn yaml_and_json_give_one_tree() {
        let yaml = parse_yaml(
            "c.yaml",
            "repeat:\n  thresholds: [4, 2]\nloudFailure:\n  scanValue: true\n",
        )
        .unwrap();
        let json = parse_json(
            "c.json",
            r#"{"repeat":{"thresholds":[4,2]},"loudFailure":{"scanValue":true}}"#,
        )
        .unwrap();
        // Key order may differ (the core's JSON reader sorts keys); the decoded config may not.
        assert_eq!(
            Config::from_value(&yaml).unwrap(),
            Config::from_value(&json).unwrap()
        );
        let err = parse_yaml("c.yaml", "repeat:\n  thresholds: [1\n")
            .unwrap_err()
            .0;
        assert!(err.starts_with("c.yaml:"), "{err}");
        let err = parse_json("c.json", "{\n\"repeat\": }").unwrap_err().0;
        assert!(err.starts_with("c.json:2: not valid JSON: "), "{err}");
    }

    #[test]
    fn syntax_as_config_syntax() {
        assert!(is_json("c.JSON", "a: 1"));
        assert!(!is_json("c.yml", "{}"));
        assert!(is_json("c", " \n\t{}"));
        assert!(is_json("c", "\u{FEFF}{}"), "a BOM is \\s in JavaScript");
        assert!(!is_json("c", "\u{85}{}"), "U+0085 is not");
        assert!(!is_json(".json", "a: 1"));
    }

    #[test]
    fn json_members_in_javascript_order() {
        let value = parse_json("c.json", r#"{"b": 1, "2": 0, "a": 2, "1": 0, "b": 3}"#).unwrap();
        let ConfigValue::Object(members) = value else {
            panic!()
        };
        let keys: Vec<&str> = members.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(keys, ["1", "2", "b", "a"]);
        assert_eq!(members[2].1, ConfigValue::Number(3.0));
    }

    #[test]
    fn engine_errors_point_at_keys() {
        let name = |k: &str| Key::Name(k.into());
        let value = parse_json(
            "c.json",
            r#"{"loudFailure":{"rules":[{"id":"a"},{"id":"mine"}]}}"#,
        )
        .unwrap();
        let keys = |m: &str| keys_of_engine_error(m, &value);
        assert_eq!(
            keys("toolguard: unknown key config.repeat.treshold (expected one of: x)"),
            Some(vec![name("repeat"), name("treshold")])
        );
        assert_eq!(
            keys("toolguard: config.loudFailure.rules[1].pattern must be a string"),
            Some(vec![
                name("loudFailure"),
                name("rules"),
                Key::Index(1.0),
                name("pattern")
            ])
        );
        assert_eq!(
            keys("loud-failure: rule mine: unterminated group"),
            Some(vec![name("loudFailure"), name("rules"), Key::Index(1.0)])
        );
        assert_eq!(keys("loud-failure: rule other: x"), None);
        assert_eq!(
            keys("repeat-tool-reminder: invalid threshold 1 — every threshold must be an integer >= 2"),
            Some(vec![name("repeat"), name("thresholds")])
        );
        assert_eq!(
            keys("repeat-tool-reminder: invalid argumentsPreviewChars 0 — must be an integer >= 1"),
            Some(vec![name("repeat"), name("argumentsPreviewChars")])
        );
        assert_eq!(keys("reconfig.x"), None, "config must start a word");
    }

    #[test]
    fn line_of_path_in_yaml_and_json() {
        let name = |k: &str| Key::Name(k.into());
        let yaml = "# c\nrepeat:\n  thresholds: [3, 1]\nloudFailure:\n  rules:\n    - id: a\n    - id: b\n      pattern: 5\n";
        let at = |keys: &[Key]| line_of_path(yaml, keys);
        assert_eq!(at(&[name("repeat"), name("thresholds")]), Some(3));
        assert_eq!(
            at(&[name("repeat"), name("missing")]),
            Some(2),
            "the last key found"
        );
        assert_eq!(at(&[name("absent")]), Some(2), "the document's start");
        let rule = [name("loudFailure"), name("rules"), Key::Index(1.0)];
        assert_eq!(at(&rule), Some(7));
        assert_eq!(
            at(&[rule.to_vec(), vec![name("pattern")]].concat()),
            Some(8)
        );
        assert_eq!(
            at(&[name("loudFailure"), name("rules"), Key::Index(9.0)]),
            None,
            "past the end"
        );
        let json = "{\n\t\"repeat\": {\"thresholds\": [3],\n\t\t\"x\":1}\n}";
        assert_eq!(line_of_path(json, &[name("repeat"), name("x")]), Some(3));
        assert_eq!(line_of_path("", &[name("repeat")]), None);
        // A lone surrogate escape does not stop the lookup.
        assert_eq!(
            line_of_path("{\"a\": \"\\ud800\",\n\"b\": 1}", &[name("b")]),
            Some(2)
        );
    }
}
