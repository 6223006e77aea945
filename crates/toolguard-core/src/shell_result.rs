//! A shell tool's result value as the engine reads it: the DSH shell result
//! format (stdout, `[stderr]` and the stderr, then `[exit code: N]`), so the
//! hook, the audit's readers and the addon's adapters show a command's output
//! and exit the same way and `when: success` rules behave alike everywhere.

use serde_json::Value;

use crate::config::js_number;
use crate::markers::{shell_streams, shows_failure};

/// The parts of a shell result value the text is made of, read from JSON
/// ([`ShellResult::of_json`]) or straight from a JavaScript value by the addon.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct ShellResult<'a> {
    pub stdout: Option<&'a str>,
    pub stderr: Option<&'a str>,
    pub output: Option<&'a str>,
    /// The texts of `content`'s `{type: "text"}` blocks; `None`: no `content` array.
    pub content: Option<Vec<&'a str>>,
    /// `exitCode` when it is a number, else `exit_code` when that is one.
    pub exit_code: Option<f64>,
}

impl<'a> ShellResult<'a> {
    /// The parts of a JSON result value; `None` for a value that is neither
    /// a string nor an object. A string is its own text.
    pub fn of_json(value: &'a Value) -> Option<Result<ShellResult<'a>, &'a str>> {
        let object = match value {
            Value::String(text) => return Some(Err(text)),
            Value::Object(object) => object,
            _ => return None,
        };
        let string = |key: &str| object.get(key).and_then(Value::as_str);
        Some(Ok(ShellResult {
            stdout: string("stdout"),
            stderr: string("stderr"),
            output: string("output"),
            content: match object.get("content") {
                Some(Value::Array(blocks)) => Some(text_blocks(blocks)),
                _ => None,
            },
            exit_code: object
                .get("exitCode")
                .and_then(Value::as_f64)
                .or_else(|| object.get("exit_code").and_then(Value::as_f64)),
        }))
    }

    /// The text: the streams (`stdout`/`stderr`, `(no output)` when both are
    /// empty), else `output`, else the `content` texts joined by newlines;
    /// then the exit marker of a non-zero exit code. `None`: none of those.
    pub fn text(&self) -> Option<String> {
        let mut text = if let Some(text) = shell_streams(self.stdout, self.stderr) {
            text
        } else if let Some(output) = self.output {
            output.to_owned()
        } else {
            match self.content.as_deref() {
                Some(texts) if !texts.is_empty() => texts.join("\n"),
                _ => return None,
            }
        };
        if let Some(code) = self.exit_code {
            add_exit_marker(&mut text, code);
        }
        Some(text)
    }
}

/// The text of a shell result value (see [`ShellResult::text`]): a string as is.
pub fn shell_text(value: &Value) -> Option<String> {
    match ShellResult::of_json(value)? {
        Err(text) => Some(text.to_owned()),
        Ok(parts) => parts.text(),
    }
}

/// The `text` of `{"type":"text","text":…}` blocks.
pub fn text_blocks(blocks: &[Value]) -> Vec<&str> {
    blocks
        .iter()
        .filter(|b| b.get("type").and_then(Value::as_str) == Some("text"))
        .filter_map(|b| b.get("text").and_then(Value::as_str))
        .collect()
}

/// Append `[exit code: N]` (N as JavaScript prints it) for a non-zero exit,
/// as DSH's shell tools end a result, on a line of its own, unless the
/// output already ends in a failure marker (a timeout, a signal, an exit code).
pub fn add_exit_marker(text: &mut String, code: f64) {
    if code == 0.0 || shows_failure(text) {
        return;
    }
    if !text.is_empty() && !text.ends_with('\n') {
        text.push('\n');
    }
    text.push_str("[exit code: ");
    text.push_str(&js_number(code));
    text.push(']');
}

#[cfg(test)]
mod tests {
    use super::*;

    /// corpus/cases/shell-result.json, which the addon and the reference
    /// engine replay too (lone surrogate escapes read as U+FFFD, as the
    /// hook and the audit read them).
    #[test]
    fn shell_result_cases() {
        let file = include_str!("../../../corpus/cases/shell-result.json");
        let cases = crate::json_text::parse_lenient(file.as_bytes()).expect("the case file");
        let cases = cases["cases"].as_array().expect("cases");
        assert!(cases.len() >= 10);
        for case in cases {
            assert_eq!(
                shell_text(&case["shell"]).as_deref(),
                case["text"].as_str(),
                "{}",
                case["name"]
            );
        }
    }
}
