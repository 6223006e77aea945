//! Config files, read once for every shell (the hook executable, the Node
//! hook, the CLI through the addon): JSON for `.json`, YAML for
//! `.yaml`/`.yml`, otherwise JSON when the text starts with `{`, else YAML.
//! The tree goes to the core's one decoder (`Config::from_value`). An error
//! is data ([`FileError`]): a code, the key path, the file and line, and the
//! message built from them; the line of a bad key is found from the path
//! the core's error carries, never from its text.

use std::path::Path;
use std::sync::Arc;

use serde::de::{Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use toolguard_core::config::{js_number, Config, ConfigValue, CONFIG_DEPTH_LIMIT};
use toolguard_core::engine::{Engine, Scanner};
use toolguard_core::rules::RuleSet;
use toolguard_core::PathStep;
use yaml_rust2::parser::{Event, MarkedEventReceiver, Parser};
use yaml_rust2::scanner::{Marker, TScalarStyle};
use yaml_rust2::{Yaml, YamlLoader};

use crate::answer::Failure;

/// Shell tools of the hosts: the core's one default list
/// (`rules/shell-tools.json`, compared without case), so Claude Code's
/// `Bash`, Codex's `exec_command` and the DSH names are all scanned.
pub fn hook_shell_tools() -> &'static [String] {
    toolguard_core::shell::default_shell_tools()
}

/// A config file that cannot be read, parsed or used.
#[derive(Debug, Clone, PartialEq)]
pub struct FileError {
    /// A stable name for programs: the core's (`TOOLGUARD_UNKNOWN_KEY`…) or
    /// `TOOLGUARD_CONFIG_UNREADABLE` / `TOOLGUARD_CONFIG_TOO_LARGE` / `TOOLGUARD_CONFIG_SYNTAX`.
    pub code: &'static str,
    /// For people: `<file>[:<line>]: <reason>`.
    pub message: String,
    /// The key path of the bad value (empty: the file as a whole).
    pub path: Vec<PathStep>,
    /// For an unknown key: the keys its section accepts (the core's list).
    pub expected: Option<&'static [&'static str]>,
    pub file: String,
    pub line: Option<usize>,
}

impl From<FileError> for Failure {
    fn from(e: FileError) -> Self {
        Failure(e.message)
    }
}

/// A config file as read (parsed, not yet decoded).
pub struct Loaded {
    /// `None`: no config file (the defaults).
    path: Option<String>,
    text: String,
    /// The file's tree, in the file's key order.
    pub value: ConfigValue,
}

impl Loaded {
    /// A core error, located: its code, its key path, the line of that key.
    fn engine_error(&self, error: toolguard_core::Error) -> FileError {
        let path = error.path(&self.value).unwrap_or_default();
        let file = self.path.clone().unwrap_or_default();
        let line = self
            .path
            .as_ref()
            .and_then(|_| line_of_path(&self.text, &path));
        let message = match (&self.path, line) {
            (None, _) => error.to_string(),
            (Some(file), Some(line)) => format!("{file}:{line}: {error}"),
            (Some(file), None) => format!("{file}: {error}"),
        };
        FileError {
            code: error.code(),
            message,
            path,
            expected: error.expected(),
            file,
            line,
        }
    }

    /// Whether the config asks for PreToolUse denials (`loops.deny` set and
    /// not `false`), read from the tree before it is decoded.
    pub fn denies_loops(&self) -> bool {
        match self.value.member("loops") {
            Some(loops @ ConfigValue::Object(_)) => {
                !matches!(loops.member("deny"), None | Some(ConfigValue::Bool(false)))
            }
            _ => false,
        }
    }

    /// The decoded config when the file names `exactMode` (a PreToolUse
    /// without it decodes nothing, as before); the core decides the key.
    pub fn exact_config(&self) -> Result<Option<Config>, FileError> {
        if self.value.member("exactMode").is_none() {
            return Ok(None);
        }
        self.hook_config().map(Some)
    }

    /// The hook's engine config: the file's config (or none) with
    /// `loudFailure.shellTools` defaulting to [`hook_shell_tools`] and the
    /// loop detectors on unless `loops: false`, decoded.
    pub fn hook_config(&self) -> Result<Config, FileError> {
        let mut config =
            Config::with_loops_by_default(&self.value).map_err(|e| self.engine_error(e))?;
        let tools = self
            .value
            .member("loudFailure")
            .and_then(|l| l.member("shellTools"));
        if tools.is_none() {
            config.loud_failure.shell_tools = hook_shell_tools().to_vec();
        }
        Ok(config)
    }

    /// Decode the config and build an engine with it (user rules compiled),
    /// as `new GuardEngine(config)` does: the one check `toolguard
    /// check-config`, `audit`, `mcp` and the addon's `loadConfigFile` run.
    pub fn check(&self) -> Result<(), FileError> {
        let config =
            Config::with_loops_by_default(&self.value).map_err(|e| self.engine_error(e))?;
        Engine::new(&config).map_err(|e| self.engine_error(e))?;
        Ok(())
    }
}

/// The largest config file read: a config is a few KB; anything bigger (a
/// device, a log given by mistake) is refused instead of read whole. Stated
/// once in `rules/limits.json`, which the JavaScript fallback (no native
/// binary, ts/cli/config.mts) reads too.
pub fn max_config_bytes() -> u64 {
    static LIMIT: std::sync::OnceLock<u64> = std::sync::OnceLock::new();
    *LIMIT.get_or_init(|| {
        let root: serde_json::Value =
            serde_json::from_str(include_str!("../../../rules/limits.json"))
                .expect("rules/limits.json is JSON");
        root["configFileBytes"]
            .as_u64()
            .expect("rules/limits.json: configFileBytes is a whole number")
    })
}

/// The file's bytes, at most one past [`max_config_bytes`] (so [`parse`] can
/// tell a file that is too large without reading a device whole).
fn read_bounded(path: &str) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    let mut bytes = Vec::new();
    std::fs::File::open(path)?
        .take(max_config_bytes() + 1)
        .read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// An error of the file as a whole (no key path): it cannot be read or parsed.
fn file_error(file: &str, code: &'static str, message: String, line: Option<usize>) -> FileError {
    FileError {
        code,
        message,
        path: Vec::new(),
        expected: None,
        file: file.to_owned(),
        line,
    }
}

/// Read and parse the config file; `None`: no file (the defaults).
pub fn read(path: Option<&str>) -> Result<Loaded, FileError> {
    let Some(path) = path else {
        return Ok(Loaded {
            path: None,
            text: String::new(),
            value: ConfigValue::Undefined,
        });
    };
    let bytes = read_bounded(path).map_err(|e| {
        file_error(
            path,
            "TOOLGUARD_CONFIG_UNREADABLE",
            format!("cannot read config {path}: {e}"),
            None,
        )
    })?;
    parse(path, &bytes)
}

/// Parse a config's bytes as [`read`] parses a file's; `path` names it in
/// errors and picks the syntax (by extension, else by content). The CLI
/// reads `--config -` from standard input (bounded as a file) and parses it here.
pub fn parse(path: &str, bytes: &[u8]) -> Result<Loaded, FileError> {
    if bytes.len() as u64 > max_config_bytes() {
        return Err(file_error(
            path,
            "TOOLGUARD_CONFIG_TOO_LARGE",
            format!("config {path} is larger than {} bytes", max_config_bytes()),
            None,
        ));
    }
    // A byte order mark some editors write is not part of the first key.
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let text = String::from_utf8_lossy(bytes).into_owned();
    let parsed = if is_json(path, &text) {
        parse_json(&text).map_err(|(line, reason)| {
            let at = line.map_or(String::new(), |l| format!(":{l}"));
            file_error(
                path,
                "TOOLGUARD_CONFIG_SYNTAX",
                format!("{path}{at}: not valid JSON: {reason}"),
                line,
            )
        })?
    } else {
        parse_yaml(&text).map_err(|(line, reason)| {
            let at = line.map_or(String::new(), |l| format!(":{l}"));
            file_error(
                path,
                "TOOLGUARD_CONFIG_SYNTAX",
                format!("{path}{at}: not valid YAML: {reason}"),
                line,
            )
        })?
    };
    let value = match parsed {
        ConfigValue::Null | ConfigValue::Undefined => ConfigValue::Undefined, // an empty (or all-comment) file
        ConfigValue::Object(_) => parsed,
        other => {
            let got = if let ConfigValue::Array(_) = other {
                "a list"
            } else {
                other.kind()
            };
            return Err(file_error(
            path,
                "TOOLGUARD_WRONG_TYPE",
                format!("{path}: a config is a mapping {{repeat?, loudFailure?, loops?, exactMode?}} (got {got})"),
                None,
            ));
        }
    };
    if depth(&value) > CONFIG_DEPTH_LIMIT {
        return Err(file_error(
            path,
            "TOOLGUARD_TOO_DEEP",
            format!("{path}: {}", toolguard_core::ConfigError::TooDeep),
            None,
        ));
    }
    Ok(Loaded {
        path: Some(path.to_owned()),
        text,
        value,
    })
}

/// The engine for one event: `scanned_tool` is the tool whose output this
/// call scans (PostToolUse), `None` for a call that scans nothing
/// (PreToolUse, a failed call). Compiling the built-in rule table is most of
/// a hook process's own work; a call that scans nothing (Read, Edit, Grep…
/// most calls) never uses it, so with the built-in rules alone it is
/// skipped. User rules are always compiled: a bad pattern must fail every call.
pub fn engine(loaded: &Loaded, scanned_tool: Option<&str>) -> Result<Engine, FileError> {
    let config = loaded.hook_config()?;
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
    let none = RuleSet::compile_table(Vec::new()).map_err(|e| loaded.engine_error(e.into()))?;
    let scanner = Scanner::with_rules(none, loud);
    let mut engine = Engine::with_scanner(&config.repeat, Arc::new(scanner));
    engine.set_loops(config.loops.as_ref());
    Ok(engine)
}

/// JSON by extension `.json`, YAML by `.yaml`/`.yml`; otherwise JSON when
/// the text starts with `{` (after white space or a BOM).
fn is_json(path: &str, text: &str) -> bool {
    match Path::new(path)
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase)
        .as_deref()
    {
        Some("json") => true,
        Some("yaml" | "yml") => false,
        _ => text
            .trim_start_matches(|c: char| c == '\u{FEFF}' || c.is_whitespace())
            .starts_with('{'),
    }
}

fn depth(value: &ConfigValue) -> usize {
    match value {
        ConfigValue::Array(items) => 1 + items.iter().map(depth).max().unwrap_or(0),
        ConfigValue::Object(members) => {
            1 + members.iter().map(|(_, v)| depth(v)).max().unwrap_or(0)
        }
        _ => 0,
    }
}

/// A JSON config in the file's key order (the decoder reports the first
/// unknown key as written; a repeated key's later value wins, as the
/// decoder reads it). A syntax error: its line and serde_json's message.
fn parse_json(text: &str) -> Result<ConfigValue, (Option<usize>, String)> {
    let text = crate::event::replace_lone_surrogates(text);
    let mut de = serde_json::Deserializer::from_str(&text);
    let parsed = Tree::deserialize(&mut de).and_then(|tree| de.end().map(|()| tree.0));
    parsed.map_err(|e| ((e.line() > 0).then_some(e.line()), e.to_string()))
}

/// A JSON value as a config tree, members in file order.
struct Tree(ConfigValue);

impl<'de> Deserialize<'de> for Tree {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(TreeVisitor).map(Tree)
    }
}

struct TreeVisitor;

impl<'de> Visitor<'de> for TreeVisitor {
    type Value = ConfigValue;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_unit<E>(self) -> Result<ConfigValue, E> {
        Ok(ConfigValue::Null)
    }
    fn visit_bool<E>(self, b: bool) -> Result<ConfigValue, E> {
        Ok(ConfigValue::Bool(b))
    }
    fn visit_i64<E>(self, n: i64) -> Result<ConfigValue, E> {
        Ok(ConfigValue::Number(n as f64))
    }
    fn visit_u64<E>(self, n: u64) -> Result<ConfigValue, E> {
        Ok(ConfigValue::Number(n as f64))
    }
    fn visit_f64<E>(self, n: f64) -> Result<ConfigValue, E> {
        Ok(ConfigValue::Number(n))
    }
    fn visit_str<E>(self, s: &str) -> Result<ConfigValue, E> {
        Ok(ConfigValue::String(s.to_owned()))
    }
    fn visit_string<E>(self, s: String) -> Result<ConfigValue, E> {
        Ok(ConfigValue::String(s))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<ConfigValue, A::Error> {
        let mut items = Vec::new();
        while let Some(Tree(item)) = seq.next_element()? {
            items.push(item);
        }
        Ok(ConfigValue::Array(items))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<ConfigValue, A::Error> {
        let mut members = Vec::new();
        while let Some((key, Tree(value))) = map.next_entry::<String, Tree>()? {
            members.push((key, value));
        }
        Ok(ConfigValue::Object(members))
    }
}

/// Nodes that aliases may add to a YAML config in all. A real config has a
/// few dozen nodes; YamlLoader copies an anchor's node for each alias, so
/// without a bound nine nested anchors of ten aliases each ("billion laughs",
/// 300 bytes) make it build 10^9 nodes: measured 23 GB and minutes, in every
/// hook call.
const MAX_ALIAS_NODES: u64 = 10_000;

/// Counts, from the parser's events, the nodes the aliases would add (an
/// alias adds its anchor's whole node), before anything is copied.
#[derive(Default)]
struct AliasBudget {
    /// The open collections: their anchor id (0: none) and nodes so far.
    open: Vec<(usize, u64)>,
    /// The node count of each anchor seen.
    sizes: std::collections::HashMap<usize, u64>,
    added: u64,
    /// The line of the alias that went over [`MAX_ALIAS_NODES`].
    over_at: Option<usize>,
}

impl AliasBudget {
    fn node(&mut self, anchor: usize, nodes: u64) {
        if anchor != 0 {
            self.sizes.insert(anchor, nodes);
        }
        if let Some((_, count)) = self.open.last_mut() {
            *count = count.saturating_add(nodes);
        }
    }
}

impl MarkedEventReceiver for AliasBudget {
    fn on_event(&mut self, event: Event, mark: Marker) {
        match event {
            Event::Scalar(_, _, anchor, _) => self.node(anchor, 1),
            Event::Alias(id) => {
                let nodes = self.sizes.get(&id).copied().unwrap_or(1);
                self.added = self.added.saturating_add(nodes);
                if self.added > MAX_ALIAS_NODES && self.over_at.is_none() {
                    self.over_at = Some(mark.line());
                }
                self.node(0, nodes);
            }
            Event::SequenceStart(anchor, _) | Event::MappingStart(anchor, _) => {
                self.open.push((anchor, 1));
            }
            Event::SequenceEnd | Event::MappingEnd => {
                if let Some((anchor, nodes)) = self.open.pop() {
                    self.node(anchor, nodes);
                }
            }
            _ => {}
        }
    }
}

/// A YAML config; a syntax error: its line and the parser's reason.
fn parse_yaml(text: &str) -> Result<ConfigValue, (Option<usize>, String)> {
    // A syntax error is YamlLoader's to report below (it stops at the same
    // place); what was read up to it is counted all the same.
    let mut budget = AliasBudget::default();
    let _ = Parser::new_from_str(text).load(&mut budget, true);
    if let Some(line) = budget.over_at {
        return Err((
            Some(line),
            format!("its aliases expand to more than {MAX_ALIAS_NODES} nodes (a config needs a few dozen)"),
        ));
    }
    let docs = YamlLoader::load_from_str(text)
        .map_err(|e| (Some(e.marker().line()), e.info().to_owned()))?;
    match docs.as_slice() {
        [] => Ok(ConfigValue::Null),
        [doc] => from_yaml(doc, 0).map_err(|reason| (None, reason)),
        _ => Err((None, "the file holds several documents".into())),
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
        Yaml::Hash(map) => ConfigValue::Object(
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
// The line of a key path

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
struct LineTree {
    open: Vec<Node>,
    root: Option<Node>,
}

impl LineTree {
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

impl MarkedEventReceiver for LineTree {
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

/// The 1-based line of the value at `path` in a JSON or YAML text (JSON
/// read as YAML's flow style, so one parser finds lines in both): the line
/// of the last key found (an object key's own line, an array item's);
/// `None` when an index is past the end or the text has no document.
pub fn line_of_path(text: &str, path: &[PathStep]) -> Option<usize> {
    let mut tree = LineTree::default();
    // Errors are fine: the document up to them is used. A lone surrogate
    // escape would stop the scanner at the first line.
    let text = crate::event::replace_lone_surrogates(text);
    let _ = Parser::new_from_str(&text).load(&mut tree, false);
    let root = tree.finish()?;
    let mut node = Some(&root);
    let mut line = Some(root.line());
    for step in path {
        match (node, step) {
            (Some(Node::Map(pairs, _)), step) => {
                let name = match step {
                    PathStep::Key(name) => name.clone(),
                    PathStep::Index(i) => i.to_string(),
                };
                let found = pairs
                    .iter()
                    .find(|(k, _)| matches!(k, Node::Scalar(s, _) if *s == name));
                let Some((k, value)) = found else { break };
                line = Some(k.line());
                node = value.as_ref();
            }
            (Some(Node::Seq(items, _)), PathStep::Index(i)) => {
                node = items.get(*i);
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

    fn write(name: &str, text: &str) -> String {
        let dir =
            std::env::temp_dir().join(format!("toolguard-hook-config-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join(name);
        std::fs::write(&file, text).unwrap();
        file.to_string_lossy().into_owned()
    }

    fn checked(name: &str, text: &str) -> FileError {
        let file = write(name, text);
        read(Some(&file)).and_then(|l| l.check()).unwrap_err()
    }

    #[test]
    fn default_shell_tools_are_added_unless_given() {
        let config = read(None).unwrap().hook_config().unwrap();
        assert_eq!(config.loud_failure.shell_tools, hook_shell_tools());
        assert!(config.loops.is_some(), "loops on by default");
        let file = write("tools.json", r#"{"loudFailure":{"shellTools":["x"]}}"#);
        let given = read(Some(&file)).unwrap().hook_config().unwrap();
        assert_eq!(given.loud_failure.shell_tools, vec!["x"]);
    }

    #[test]
    fn yaml_and_json_give_one_tree_in_file_order() {
        let yaml =
            parse_yaml("repeat:\n  thresholds: [4, 2]\nloudFailure:\n  scanValue: true\n").unwrap();
        let json =
            parse_json(r#"{"repeat":{"thresholds":[4,2]},"loudFailure":{"scanValue":true}}"#)
                .unwrap();
        assert_eq!(yaml, json);
        let ConfigValue::Object(members) = parse_json(r#"{"b": 1, "2": 0, "a": 2}"#).unwrap()
        else {
            panic!()
        };
        let keys: Vec<&str> = members.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(keys, ["b", "2", "a"]);
    }

    #[test]
    fn an_oversized_config_is_refused_and_a_byte_order_mark_skipped() {
        // Before: the whole file was read (`check-config /dev/zero` grew
        // without bound), and a BOM became part of the first key.
        let big = write("big.yaml", &"#".repeat(max_config_bytes() as usize + 1));
        let e = read(Some(&big)).map(|_| ()).unwrap_err();
        assert_eq!(e.code, "TOOLGUARD_CONFIG_TOO_LARGE");
        assert!(e.message.contains("big.yaml"), "{}", e.message);
        #[cfg(unix)]
        {
            let e = read(Some("/dev/zero")).map(|_| ()).unwrap_err();
            assert_eq!(e.code, "TOOLGUARD_CONFIG_TOO_LARGE");
        }
        for (name, text) in [
            ("bom.yaml", "\u{feff}loops:\n  deny: 2\n"),
            ("bom.json", "\u{feff}{\"loops\": {\"deny\": 2}}"),
        ] {
            let file = write(name, text);
            let loaded = read(Some(&file)).unwrap();
            loaded
                .check()
                .unwrap_or_else(|e| panic!("{name}: {}", e.message));
        }
    }

    #[test]
    fn errors_are_data_with_the_line_of_their_key() {
        let key = |k: &str| PathStep::Key(k.into());
        let e = checked(
            "k.json",
            "{\n  \"repeat\": {\n    \"thresholds\": [3],\n    \"treshold\": 2\n  }\n}",
        );
        assert_eq!((e.code, e.line), ("TOOLGUARD_UNKNOWN_KEY", Some(4)));
        assert_eq!(e.path, vec![key("repeat"), key("treshold")]);
        assert_eq!(
            e.expected,
            Some(&["thresholds", "include", "exclude", "argumentsPreviewChars"][..])
        );
        assert!(e.message.ends_with("k.json:4: toolguard: unknown key config.repeat.treshold (expected one of: thresholds, include, exclude, argumentsPreviewChars)"), "{}", e.message);
        let e = checked("k.yaml", "loudFailure:\n  rules:\n    - id: a\n      pattern: x\n      action: error\n      message: m\n    - id: b\n      pattern: '('\n      action: error\n      message: m\n");
        assert_eq!((e.code, e.line), ("TOOLGUARD_BAD_RULE", Some(7)));
        assert_eq!(
            e.path,
            vec![key("loudFailure"), key("rules"), PathStep::Index(1)]
        );
        assert_eq!(e.expected, None, "a bad pattern is no unknown key");
        let e = checked("s.json", "{\n\"repeat\": }");
        assert_eq!((e.code, e.line), ("TOOLGUARD_CONFIG_SYNTAX", Some(2)));
        assert!(
            e.message.contains("s.json:2: not valid JSON: "),
            "{}",
            e.message
        );
        let e = checked("s.yaml", "repeat:\n  thresholds: [3\n");
        assert_eq!(e.code, "TOOLGUARD_CONFIG_SYNTAX");
        let e = checked("l.yaml", "- a\n");
        assert_eq!(e.code, "TOOLGUARD_WRONG_TYPE");
        let e = read(Some("/nonexistent/c.json")).err().unwrap();
        assert_eq!(e.code, "TOOLGUARD_CONFIG_UNREADABLE");
    }

    #[test]
    fn yaml_aliases_are_read_within_a_bound() {
        assert_eq!(
            parse_yaml("a: &t [bash]\nb: *t\n").unwrap(),
            parse_yaml("a: [bash]\nb: [bash]\n").unwrap()
        );
        // Ten times more nodes at each level: 10^5 here (the "billion laughs"
        // file has nine levels), over the bound at the third; refused before any copy.
        let mut bomb = String::from("a: &a [x,x,x,x,x,x,x,x,x,x]\n");
        for i in 0..5 {
            let prev = if i == 0 {
                "a".to_owned()
            } else {
                format!("b{}", i - 1)
            };
            bomb += &format!("b{i}: &b{i} [{}]\n", vec![format!("*{prev}"); 10].join(","));
        }
        let e = checked("bomb.yaml", &bomb);
        assert_eq!(e.code, "TOOLGUARD_CONFIG_SYNTAX");
        assert_eq!(e.line, Some(4), "{}", e.message);
        assert!(
            e.message
                .contains("aliases expand to more than 10000 nodes"),
            "{}",
            e.message
        );
    }

    #[test]
    fn syntax_by_extension_then_content() {
        assert!(is_json("c.JSON", "a: 1"));
        assert!(!is_json("c.yml", "{}"));
        assert!(is_json("c", " \n\t{}"));
        assert!(is_json("c", "\u{FEFF}{}"));
        assert!(!is_json(".json", "a: 1"));
    }

    #[test]
    fn line_of_path_in_yaml_and_json() {
        let name = |k: &str| PathStep::Key(k.into());
        let yaml = "# c\nrepeat:\n  thresholds: [3, 1]\nloudFailure:\n  rules:\n    - id: a\n    - id: b\n      pattern: 5\n";
        let at = |keys: &[PathStep]| line_of_path(yaml, keys);
        assert_eq!(at(&[name("repeat"), name("thresholds")]), Some(3));
        assert_eq!(
            at(&[name("repeat"), name("missing")]),
            Some(2),
            "the last key found"
        );
        assert_eq!(at(&[name("absent")]), Some(2), "the document's start");
        let rule = [name("loudFailure"), name("rules"), PathStep::Index(1)];
        assert_eq!(at(&rule), Some(7));
        assert_eq!(
            at(&[rule.to_vec(), vec![name("pattern")]].concat()),
            Some(8)
        );
        assert_eq!(
            at(&[name("loudFailure"), name("rules"), PathStep::Index(9)]),
            None,
            "past the end"
        );
        let json = "{\n\t\"repeat\": {\"thresholds\": [3],\n\t\t\"x\":1}\n}";
        assert_eq!(line_of_path(json, &[name("repeat"), name("x")]), Some(3));
        assert_eq!(line_of_path("", &[name("repeat")]), None);
        assert_eq!(
            line_of_path("{\"a\": \"\\ud800\",\n\"b\": 1}", &[name("b")]),
            Some(2)
        );
    }
}
