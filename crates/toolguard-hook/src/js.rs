//! JSON values as the Node hook holds them after `JSON.parse`: the few
//! JavaScript rules its reads depend on (truthiness, `String(x)`,
//! `JSON.stringify` key order) so the native hook reads an event exactly as
//! the Node one does.

use std::collections::HashMap;
use std::fmt;

use serde::de::{Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use toolguard_core::canonical::{push_js_string_literal, push_js_string_literal_utf16};
use toolguard_core::config::js_number;

/// A parsed JSON value. Strings hold lone surrogates as U+FFFD (what the
/// engine sees of them through N-API too); object members keep JavaScript's
/// order for `JSON.parse` output: first position, last value of a duplicate.
#[derive(Debug, Clone, PartialEq)]
pub enum Js {
    Null,
    Bool(bool),
    Num(f64),
    Str(String),
    Arr(Vec<Js>),
    Obj(Vec<(String, Js)>),
}

impl Js {
    /// `JSON.parse(text)`, lone-surrogate escapes read as U+FFFD.
    pub fn parse(text: &str) -> Result<Js, serde_json::Error> {
        serde_json::from_str(&replace_lone_surrogates(text))
    }

    pub fn get(&self, key: &str) -> Option<&Js> {
        match self {
            Js::Obj(members) => members.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            Js::Str(s) => Some(s),
            _ => None,
        }
    }

    pub fn as_num(&self) -> Option<f64> {
        match self {
            Js::Num(n) => Some(*n),
            _ => None,
        }
    }

    /// JavaScript truthiness.
    pub fn truthy(&self) -> bool {
        match self {
            Js::Null => false,
            Js::Bool(b) => *b,
            Js::Num(n) => *n != 0.0 && !n.is_nan(),
            Js::Str(s) => !s.is_empty(),
            Js::Arr(_) | Js::Obj(_) => true,
        }
    }

    /// `String(value)`.
    pub fn to_js_string(&self) -> String {
        match self {
            Js::Null => "null".into(),
            Js::Bool(b) => b.to_string(),
            Js::Num(n) => js_number(*n),
            Js::Str(s) => s.clone(),
            // Array.prototype.join: null and undefined elements print empty.
            Js::Arr(items) => items
                .iter()
                .map(|v| {
                    if *v == Js::Null {
                        String::new()
                    } else {
                        v.to_js_string()
                    }
                })
                .collect::<Vec<_>>()
                .join(","),
            Js::Obj(_) => "[object Object]".into(),
        }
    }

    /// `JSON.stringify(value)`.
    pub fn stringify(&self) -> String {
        let mut out = String::new();
        self.write_json(&mut out);
        out
    }

    fn write_json(&self, out: &mut String) {
        match self {
            Js::Null => out.push_str("null"),
            Js::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            Js::Num(n) if n.is_finite() => out.push_str(&js_number(*n)),
            Js::Num(_) => out.push_str("null"),
            Js::Str(s) => push_js_string_literal(s, out),
            Js::Arr(items) => {
                out.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    item.write_json(out);
                }
                out.push(']');
            }
            Js::Obj(members) => {
                // A JS object lists array-index keys first, in numeric order.
                let mut order: Vec<&(String, Js)> = members.iter().collect();
                order.sort_by_key(|(k, _)| array_index(k).map_or((1, 0), |i| (0, i)));
                out.push('{');
                for (i, (key, value)) in order.into_iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    push_js_string_literal(key, out);
                    out.push(':');
                    value.write_json(out);
                }
                out.push('}');
            }
        }
    }
}

/// A canonical array index (`0` … `4294967294`), which JavaScript objects list first.
pub fn array_index(key: &str) -> Option<u64> {
    if key.is_empty() || key.len() > 10 || (key.len() > 1 && key.starts_with('0')) {
        return None;
    }
    if !key.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    key.parse::<u64>().ok().filter(|&i| i < u32::MAX as u64)
}

impl<'de> Deserialize<'de> for Js {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(JsVisitor)
    }
}

struct JsVisitor;

impl<'de> Visitor<'de> for JsVisitor {
    type Value = Js;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_unit<E>(self) -> Result<Js, E> {
        Ok(Js::Null)
    }
    fn visit_bool<E>(self, b: bool) -> Result<Js, E> {
        Ok(Js::Bool(b))
    }
    fn visit_i64<E>(self, n: i64) -> Result<Js, E> {
        Ok(Js::Num(n as f64))
    }
    fn visit_u64<E>(self, n: u64) -> Result<Js, E> {
        Ok(Js::Num(n as f64))
    }
    fn visit_f64<E>(self, n: f64) -> Result<Js, E> {
        Ok(Js::Num(n))
    }
    fn visit_str<E>(self, s: &str) -> Result<Js, E> {
        Ok(Js::Str(s.to_owned()))
    }
    fn visit_string<E>(self, s: String) -> Result<Js, E> {
        Ok(Js::Str(s))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Js, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element()? {
            items.push(item);
        }
        Ok(Js::Arr(items))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Js, A::Error> {
        let mut members: Vec<(String, Js)> = Vec::new();
        let mut index: HashMap<String, usize> = HashMap::new();
        while let Some((key, value)) = map.next_entry::<String, Js>()? {
            match index.get(&key) {
                Some(&at) => members[at].1 = value,
                None => {
                    index.insert(key.clone(), members.len());
                    members.push((key, value));
                }
            }
        }
        Ok(Js::Obj(members))
    }
}

/// Lone `\uD800`–`\uDFFF` escapes in JSON text become `\uFFFD`: JavaScript
/// parses them, serde_json refuses them. Text without any is returned as is.
pub fn replace_lone_surrogates(text: &str) -> std::borrow::Cow<'_, str> {
    let bytes = text.as_bytes();
    if !bytes
        .windows(3)
        .any(|w| w[0] == b'\\' && w[1] == b'u' && (w[2] | 0x20) == b'd')
    {
        return text.into();
    }
    let mut out = String::with_capacity(text.len());
    let mut last = 0;
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] != b'\\' {
            i += 1;
            continue;
        }
        // Inside strings only a backslash starts an escape; outside, serde_json rejects it anyway.
        match (bytes.get(i + 1), hex4(bytes, i + 2)) {
            (Some(b'u'), Some(unit)) if (0xD800..0xE000).contains(&unit) => {
                let paired = unit < 0xDC00
                    && bytes.get(i + 6) == Some(&b'\\')
                    && bytes.get(i + 7) == Some(&b'u')
                    && matches!(hex4(bytes, i + 8), Some(low) if (0xDC00..0xE000).contains(&low));
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

fn hex4(bytes: &[u8], at: usize) -> Option<u32> {
    let digits = bytes.get(at..at + 4)?;
    let text = std::str::from_utf8(digits).ok()?;
    if !digits.iter().all(u8::is_ascii_hexdigit) {
        return None;
    }
    u32::from_str_radix(text, 16).ok()
}

/// The UTF-16 code units of a JSON string literal (already validated by
/// serde_json), lone surrogates kept: `JSON.parse` gives JavaScript exactly these.
pub fn json_string_units(literal: &str) -> Option<Vec<u16>> {
    let inner = literal.strip_prefix('"')?.strip_suffix('"')?;
    let bytes = inner.as_bytes();
    let mut units = Vec::with_capacity(inner.len());
    let mut i = 0;
    let mut plain = 0;
    while i < bytes.len() {
        if bytes[i] != b'\\' {
            i += 1;
            continue;
        }
        units.extend(inner[plain..i].encode_utf16());
        let unit = match bytes.get(i + 1)? {
            b'"' => 0x22,
            b'\\' => 0x5C,
            b'/' => 0x2F,
            b'b' => 0x08,
            b'f' => 0x0C,
            b'n' => 0x0A,
            b'r' => 0x0D,
            b't' => 0x09,
            b'u' => {
                let unit = hex4(bytes, i + 2)? as u16;
                units.push(unit);
                i += 6;
                plain = i;
                continue;
            }
            _ => return None,
        };
        units.push(unit);
        i += 2;
        plain = i;
    }
    units.extend(inner[plain..].encode_utf16());
    Some(units)
}

/// `JSON.stringify` of a string held as UTF-16 units.
pub fn push_units_literal(units: &[u16], out: &mut String) {
    push_js_string_literal_utf16(units, out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_like_json_parse() {
        let v = Js::parse(r#"{"b":1,"a":[true,null,"x"],"b":2.5,"2":0,"10":1}"#).unwrap();
        assert_eq!(v.get("b"), Some(&Js::Num(2.5)));
        assert_eq!(
            v.stringify(),
            r#"{"2":0,"10":1,"b":2.5,"a":[true,null,"x"]}"#
        );
        let lone = Js::parse(r#"["\ud83d", "\ud83d\ude00", "\\ud83d", "\udc00x"]"#).unwrap();
        assert_eq!(
            lone,
            Js::Arr(vec![
                Js::Str("\u{FFFD}".into()),
                Js::Str("😀".into()),
                Js::Str("\\ud83d".into()),
                Js::Str("\u{FFFD}x".into()),
            ])
        );
        assert_eq!(Js::parse("1e21").unwrap().stringify(), "1e+21");
        assert_eq!(
            Js::parse(r#""a\u0001\n""#).unwrap().stringify(),
            r#""a\u0001\n""#
        );
    }

    #[test]
    fn string_units_keep_lone_surrogates() {
        assert_eq!(
            json_string_units(r#""a\ud83db\n\"\u00e9é""#).unwrap(),
            vec![0x61, 0xD83D, 0x62, 0x0A, 0x22, 0xE9, 0xE9]
        );
        assert_eq!(json_string_units(r#""""#).unwrap(), Vec::<u16>::new());
    }

    #[test]
    fn js_strings_and_truthiness() {
        assert_eq!(Js::Num(5.0).to_js_string(), "5");
        assert_eq!(
            Js::Arr(vec![Js::Num(1.0), Js::Null, Js::Str("a".into())]).to_js_string(),
            "1,,a"
        );
        assert!(!Js::Str(String::new()).truthy());
        assert!(!Js::Num(0.0).truthy());
        assert!(Js::Obj(vec![]).truthy());
    }
}
