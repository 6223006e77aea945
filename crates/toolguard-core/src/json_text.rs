//! JSON text as hosts and session logs write it, read leniently in one way
//! for the hook and the audit: a lone surrogate escape (a string cut inside
//! a surrogate pair) reads as U+FFFD instead of failing the whole document.

use serde_json::Value;

/// A JSON value from `bytes`; when they do not parse as written and hold a
/// lone surrogate escape, the text with those escapes as `\ufffd`. The error
/// is the one of the text as written.
pub fn parse_lenient(bytes: &[u8]) -> Result<Value, serde_json::Error> {
    let error = match serde_json::from_slice(bytes) {
        Ok(value) => return Ok(value),
        Err(error) => error,
    };
    match std::str::from_utf8(bytes).map(replace_lone_surrogates) {
        Ok(std::borrow::Cow::Owned(repaired)) => serde_json::from_str(&repaired).map_err(|_| error),
        _ => Err(error),
    }
}

/// Lone `\uD800`–`\uDFFF` escapes in JSON text become `\uFFFD`: hosts may
/// send them (a cut string), serde_json refuses them in a `Value`. Text
/// without any is returned as is.
pub fn replace_lone_surrogates(text: &str) -> std::borrow::Cow<'_, str> {
    let bytes = text.as_bytes();
    if !bytes
        .windows(3)
        .any(|w| w[0] == b'\\' && w[1] == b'u' && (w[2] | 0x20) == b'd')
    {
        return text.into();
    }
    let hex4 = |at: usize| -> Option<u32> {
        let digits = bytes.get(at..at + 4)?;
        if !digits.iter().all(u8::is_ascii_hexdigit) {
            return None;
        }
        u32::from_str_radix(std::str::from_utf8(digits).ok()?, 16).ok()
    };
    let mut out = String::with_capacity(text.len());
    let mut last = 0;
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] != b'\\' {
            i += 1;
            continue;
        }
        // Inside strings only a backslash starts an escape; outside, serde_json rejects it anyway.
        match (bytes.get(i + 1), hex4(i + 2)) {
            (Some(b'u'), Some(unit)) if (0xD800..0xE000).contains(&unit) => {
                let paired = unit < 0xDC00
                    && bytes.get(i + 6) == Some(&b'\\')
                    && bytes.get(i + 7) == Some(&b'u')
                    && matches!(hex4(i + 8), Some(low) if (0xDC00..0xE000).contains(&low));
                if paired {
                    i += 12;
                } else {
                    out.push_str(&text[last..i]);
                    out.push_str("\\ufffd");
                    i += 6;
                    last = i;
                }
            }
            _ => i += 2,
        }
    }
    out.push_str(&text[last..]);
    out.into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lone_surrogates_read_as_replacement() {
        let parse = |t: &str| serde_json::from_str::<Value>(&replace_lone_surrogates(t)).unwrap();
        assert_eq!(
            parse(r#"["\ud83d", "\ud83d\ude00", "\\ud83d", "\udc00x"]"#),
            serde_json::json!(["\u{FFFD}", "😀", "\\ud83d", "\u{FFFD}x"])
        );
    }

    /// A JSON-lines record holding a lone surrogate escape: the hook read it,
    /// the audit rejected the line (serde_json refuses it in a `Value`).
    #[test]
    fn a_line_with_a_lone_surrogate_parses() {
        let line = br#"{"type":"tool_result","content":"cut \ud800"}"#;
        assert!(serde_json::from_slice::<Value>(line).is_err());
        assert_eq!(parse_lenient(line).unwrap()["content"], "cut \u{FFFD}");
        assert!(parse_lenient(b"{\"a\":").is_err());
    }
}
