//! Shell results as the engine reads them: the DSH shell result format, so
//! every reader shows a command's output and exit the same way and
//! `when: success` rules behave alike in every format. Mirrors
//! `shellText` in ts/adapters/common.mts (the adapters' side of the same shape).

use serde_json::Value;
use toolguard_core::markers::{shell_streams, shows_failure};

/// The text of a shell output value: a string as is; `{stdout, stderr}` as
/// stdout then `[stderr]\n<stderr>`; `{output}`; text `content` blocks; then
/// the exit marker of a non-zero `exitCode` / `exit_code`. `None`: no text.
pub(crate) fn shell_text(value: &Value) -> Option<String> {
    let object = match value {
        Value::String(text) => return Some(text.clone()),
        Value::Object(object) => object,
        _ => return None,
    };
    let stdout = object.get("stdout").and_then(Value::as_str);
    let stderr = object.get("stderr").and_then(Value::as_str);
    let mut text = if let Some(text) = shell_streams(stdout, stderr) {
        text
    } else if let Some(output) = object.get("output").and_then(Value::as_str) {
        output.to_owned()
    } else if let Some(Value::Array(blocks)) = object.get("content") {
        let texts = text_blocks(blocks);
        if texts.is_empty() {
            return None;
        }
        texts.join("\n")
    } else {
        return None;
    };
    let code = object
        .get("exitCode")
        .or_else(|| object.get("exit_code"))
        .and_then(Value::as_i64);
    if let Some(code) = code {
        add_exit_marker(&mut text, code);
    }
    Some(text)
}

/// The `text` of `{"type":"text","text":…}` blocks.
pub(crate) fn text_blocks(blocks: &[Value]) -> Vec<&str> {
    blocks
        .iter()
        .filter(|b| b.get("type").and_then(Value::as_str) == Some("text"))
        .filter_map(|b| b.get("text").and_then(Value::as_str))
        .collect()
}

/// Append `[exit code: N]` for a non-zero exit, as DSH's shell tools end a
/// result, unless the output already ends in a failure marker.
pub(crate) fn add_exit_marker(text: &mut String, code: i64) {
    if code == 0 || shows_failure(text) {
        return;
    }
    if !text.is_empty() && !text.ends_with('\n') {
        text.push('\n');
    }
    text.push_str(&format!("[exit code: {code}]"));
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn shapes() {
        assert_eq!(shell_text(&json!("x")).unwrap(), "x");
        assert_eq!(
            shell_text(&json!({"stdout":"a","stderr":"b","exit_code":2})).unwrap(),
            "a\n[stderr]\nb\n[exit code: 2]"
        );
        assert_eq!(
            shell_text(&json!({"stdout":"","stderr":""})).unwrap(),
            "(no output)"
        );
        assert_eq!(
            shell_text(&json!({"content":[{"type":"text","text":"t"}],"exitCode":0})).unwrap(),
            "t"
        );
        assert_eq!(shell_text(&json!({"x":1})), None);
        // A failure marker already there is not doubled.
        let mut t = "x\n[timed out after 5s]".to_owned();
        add_exit_marker(&mut t, 124);
        assert_eq!(t, "x\n[timed out after 5s]");
    }
}
