//! The hook's config file, read as the Node CLI reads it (ts/cli/config.mts):
//! JSON for `.json`, YAML for `.yaml`/`.yml`, otherwise JSON when the text
//! starts with `{`, else YAML. The tree goes to the core's one decoder
//! (`Config::from_value`) after the hook's default `shellTools` is added.
//! Errors name the file (and the line for syntax errors).

use std::path::Path;

use std::sync::Arc;
use toolguard_core::config::{Config, ConfigValue, CONFIG_DEPTH_LIMIT};

use toolguard_core::chain::Wildcard;
use toolguard_core::engine::{Engine, Scanner};
use toolguard_core::rules::RuleSet;
use toolguard_core::ConfigError;
use yaml_rust2::{Yaml, YamlLoader};

use crate::Failure;

/// Shell tools of the hosts: Claude Code and Codex both name theirs `Bash`;
/// the DSH names stay so one config serves both worlds (`HOOK_SHELL_TOOLS`).
pub const HOOK_SHELL_TOOLS: &[&str] = &["Bash", "bash", "pwsh", "job_output"];

/// The hook's engine config: the file's config (or none) with
/// `loudFailure.shellTools` defaulting to [`HOOK_SHELL_TOOLS`], decoded.
pub fn load(path: Option<&str>) -> Result<Config, Failure> {
    let Some(path) = path else {
        return Config::from_value(&hook_config(ConfigValue::Undefined))
            .map_err(|e| Failure(e.to_string()));
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
    Config::from_value(&hook_config(value)).map_err(|e| Failure(format!("{path}: {e}")))
}

/// The engine for one call of `tool`. Compiling the rule table is most of a
/// hook process's own work (~3 ms); a tool that is not scanned (Read, Edit,
/// Grep… most calls) never uses it, so with the built-in rules alone it is
/// skipped. User rules are always compiled: a bad pattern must fail every
/// call, as it does in the Node hook.
pub fn engine(config: &Config, path: Option<&str>, tool: &str) -> Result<Engine, Failure> {
    let named = |e: toolguard_core::Error| match path {
        Some(path) => Failure(format!("{path}: {e}")),
        None => Failure(e.to_string()),
    };
    let loud = &config.loud_failure;
    let scanned = loud
        .shell_tools
        .iter()
        .any(|p| Wildcard::new(p).matches(tool));
    if scanned || !loud.rules.is_empty() {
        return Engine::new(config).map_err(named);
    }
    let none = RuleSet::compile_table(Vec::new()).map_err(|e| named(e.into()))?;
    let scanner = Scanner::with_rules(none, loud);
    Ok(Engine::with_scanner(&config.repeat, Arc::new(scanner)))
}

fn is_json(path: &str, text: &str) -> bool {
    match Path::new(path)
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase)
        .as_deref()
    {
        Some("json") => true,
        Some("yaml" | "yml") => false,
        _ => text.trim_start().starts_with('{'),
    }
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
        let tools = HOOK_SHELL_TOOLS
            .iter()
            .map(|t| ConfigValue::String((*t).into()))
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

fn parse_json(path: &str, text: &str) -> Result<ConfigValue, Failure> {
    ConfigValue::from_json(text).map_err(|e| match e {
        // serde_json's message ends with " at line L column C": the line goes up front.
        ConfigError::Json(reason) => match reason.rsplit_once(" at line ") {
            Some((reason, at)) => {
                let line = at.split(' ').next().unwrap_or("?");
                Failure(format!("{path}:{line}: not valid JSON: {reason}"))
            }
            None => Failure(format!("{path}: not valid JSON: {reason}")),
        },
        other => Failure(format!("{path}: {other}")),
    })
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
            .map(toolguard_core::config::js_number)
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_shell_tools_are_added_unless_given() {
        let config = Config::from_value(&hook_config(ConfigValue::Undefined)).unwrap();
        assert_eq!(config.loud_failure.shell_tools, HOOK_SHELL_TOOLS);
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
}
