//! A JSON syntax check that builds nothing.
//!
//! Most lines of a DSH log (streamed chunks, step markers, assistant
//! messages, results of tools that are not scanned) only need to be valid
//! JSON; building a `serde_json::Value` for them was most of the parse time.
//! Iterative (an explicit stack), so nesting depth cannot overflow the stack.

/// Whether `bytes` is exactly one JSON value (surrounding whitespace allowed),
/// in UTF-8. `\u` escapes are checked for shape only: a lone surrogate
/// escape, which `JSON.stringify` writes, is valid JSON.
pub fn is_valid_json(bytes: &[u8]) -> bool {
    if std::str::from_utf8(bytes).is_err() {
        return false;
    }
    let mut stack: Vec<u8> = Vec::new();
    let mut i = skip_ws(bytes, 0);
    'value: loop {
        // Expect a value at `i`.
        match bytes.get(i) {
            Some(b'{') => {
                i = skip_ws(bytes, i + 1);
                if bytes.get(i) == Some(&b'}') {
                    i += 1;
                } else {
                    stack.push(b'{');
                    match key(bytes, i) {
                        Some(next) => i = next,
                        None => return false,
                    }
                    continue 'value;
                }
            }
            Some(b'[') => {
                i = skip_ws(bytes, i + 1);
                if bytes.get(i) == Some(&b']') {
                    i += 1;
                } else {
                    stack.push(b'[');
                    continue 'value;
                }
            }
            Some(b'"') => match string(bytes, i) {
                Some(next) => i = next,
                None => return false,
            },
            Some(b't') if bytes[i..].starts_with(b"true") => i += 4,
            Some(b'f') if bytes[i..].starts_with(b"false") => i += 5,
            Some(b'n') if bytes[i..].starts_with(b"null") => i += 4,
            Some(b'-' | b'0'..=b'9') => match number(bytes, i) {
                Some(next) => i = next,
                None => return false,
            },
            _ => return false,
        }
        // After a value: close containers or move to the next member.
        loop {
            i = skip_ws(bytes, i);
            match (stack.last(), bytes.get(i)) {
                (None, None) => return true,
                (None, Some(_)) => return false,
                (Some(b'{'), Some(b',')) => {
                    match key(bytes, skip_ws(bytes, i + 1)) {
                        Some(next) => i = next,
                        None => return false,
                    }
                    continue 'value;
                }
                (Some(b'['), Some(b',')) => {
                    i = skip_ws(bytes, i + 1);
                    continue 'value;
                }
                (Some(b'{'), Some(b'}')) | (Some(b'['), Some(b']')) => {
                    stack.pop();
                    i += 1;
                }
                _ => return false,
            }
        }
    }
}

fn skip_ws(bytes: &[u8], mut i: usize) -> usize {
    while let Some(b' ' | b'\t' | b'\n' | b'\r') = bytes.get(i) {
        i += 1;
    }
    i
}

/// `"key"` then `:`; returns the index of the value.
fn key(bytes: &[u8], i: usize) -> Option<usize> {
    if bytes.get(i) != Some(&b'"') {
        return None;
    }
    let i = skip_ws(bytes, string(bytes, i)?);
    (bytes.get(i) == Some(&b':')).then(|| skip_ws(bytes, i + 1))
}

/// A string starting at the quote `i`; returns the index after its closing quote.
fn string(bytes: &[u8], mut i: usize) -> Option<usize> {
    i += 1;
    loop {
        match *bytes.get(i)? {
            b'"' => return Some(i + 1),
            b'\\' => match *bytes.get(i + 1)? {
                b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => i += 2,
                b'u' => {
                    let hex = bytes.get(i + 2..i + 6)?;
                    if !hex.iter().all(u8::is_ascii_hexdigit) {
                        return None;
                    }
                    i += 6;
                }
                _ => return None,
            },
            0x00..=0x1F => return None,
            _ => i += 1,
        }
    }
}

/// `-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?`; returns the index after it.
fn number(bytes: &[u8], mut i: usize) -> Option<usize> {
    let digits = |mut i: usize| {
        let start = i;
        while bytes.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
        (i > start).then_some(i)
    };
    if bytes.get(i) == Some(&b'-') {
        i += 1;
    }
    i = match bytes.get(i)? {
        b'0' => i + 1,
        b'1'..=b'9' => digits(i)?,
        _ => return None,
    };
    if bytes.get(i) == Some(&b'.') {
        i = digits(i + 1)?;
    }
    if let Some(b'e' | b'E') = bytes.get(i) {
        i += 1;
        if let Some(b'+' | b'-') = bytes.get(i) {
            i += 1;
        }
        i = digits(i)?;
    }
    Some(i)
}

#[cfg(test)]
mod tests {
    use super::is_valid_json;

    #[test]
    fn agrees_with_serde_json() {
        let cases = [
            r#"{}"#,
            r#"[]"#,
            r#" {"a": [1, -2.5e+3, 0, true, false, null, "x\"y\\z\u00e9"], "b": {}} "#,
            r#"{"type":"step/start","seq":3,"time":1,"data":{"turn":1,"step":1}}"#,
            r#""just a string""#,
            r#"0"#,
            r#"{"a":1,}"#,
            r#"{"a" 1}"#,
            r#"{"a":1"#,
            r#"[1,]"#,
            r#"[1 2]"#,
            r#"01"#,
            r#"1."#,
            r#"-"#,
            r#"1e"#,
            r#"{"a":tru}"#,
            r#"{"a":"\x"}"#,
            r#"{"a":"\u12G4"}"#,
            "{\"a\":\"tab\there\"}",
            r#"{} {}"#,
            r#"{"a":1}}"#,
            r#"[[[[]]]]"#,
            r#"[[[[]]]"#,
            r#"{"a":[}"#,
            "",
            "   ",
            r#"{1:2}"#,
        ];
        for case in cases {
            let serde = serde_json::from_str::<serde_json::Value>(case).is_ok();
            assert_eq!(is_valid_json(case.as_bytes()), serde, "{case}");
        }
        // Lone surrogate escapes: JSON.stringify writes them; the grammar allows them.
        assert!(is_valid_json(br#"{"a":"\ud800"}"#));
        assert!(!is_valid_json(b"{\"a\":\"\xff\"}"));
        // Depth is not limited by the call stack.
        let deep = format!("{}{}", "[".repeat(200_000), "]".repeat(200_000));
        assert!(is_valid_json(deep.as_bytes()));
    }
}
