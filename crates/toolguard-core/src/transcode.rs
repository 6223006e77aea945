//! The two pure writers behind the binding's fast paths, kept here (not in
//! the binding) so they are unit-tested and fuzzed without Node (the
//! `transcode` target, under AddressSanitizer):
//!
//! - [`utf16_to_string`]: a long JavaScript string crosses N-API as UTF-16
//!   (one V8 copy) and is transcoded here, ~3× faster than V8's UTF-8 export.
//! - [`write_flat_object`]: the canonical text of a flat argument object
//!   written straight from its values, skipping `JSON.stringify` in JavaScript.

use crate::canonical::{push_js_string_literal, push_js_string_literal_utf16};

/// UTF-16 to UTF-8 with lone surrogates as U+FFFD (what N-API's UTF-8
/// crossing gives) and whether there were any; runs of 16 ASCII units take
/// a path the compiler vectorizes.
///
/// The `unsafe` of the core (here and in [`ascii_prefix`]): the ASCII run is appended to the string's
/// bytes without a UTF-8 check (a checked build costs ~9% more instructions
/// on a 100 KB output). The `transcode` fuzz target runs under
/// AddressSanitizer and compares every result with `String::from_utf16_lossy`.
#[allow(unsafe_code)]
pub fn utf16_to_string(units: &[u16]) -> (String, bool) {
    let mut out = String::with_capacity(units.len() + units.len() / 8);
    let mut lossy = false;
    let mut i = ascii_prefix(units, &mut out);
    while i < units.len() {
        while let Some(chunk) = units.get(i..i + 16) {
            if chunk.iter().fold(0u16, |a, &u| a | u) >= 0x80 {
                break;
            }
            // SAFETY: all 16 units are ASCII, so the bytes are valid UTF-8.
            unsafe { out.as_mut_vec() }.extend(chunk.iter().map(|&u| u as u8));
            i += 16;
        }
        let end = (i + 16).min(units.len());
        while i < end {
            let unit = units[i];
            if unit < 0x80 {
                out.push(char::from(unit as u8));
                i += 1;
                continue;
            }
            match char::decode_utf16(units[i..].iter().copied()).next() {
                Some(Ok(c)) => {
                    out.push(c);
                    i += c.len_utf16();
                }
                _ => {
                    out.push('\u{FFFD}');
                    lossy = true;
                    i += 1;
                }
            }
        }
    }
    (out, lossy)
}

/// Write the leading ASCII of `units` (whole runs of 16) into the empty
/// `out` straight into its spare capacity, with no capacity check per run:
/// ~20% fewer instructions than the general loop on an ASCII output (the
/// common case: logs, source files). Returns how many units it took.
#[allow(unsafe_code)]
fn ascii_prefix(units: &[u16], out: &mut String) -> usize {
    debug_assert!(out.is_empty() && out.capacity() >= units.len());
    // SAFETY: only ASCII bytes are written, and `set_len` covers exactly the
    // bytes written (never past the capacity: the zip stops at `units.len()`).
    let bytes = unsafe { out.as_mut_vec() };
    let mut n = 0;
    for (dst, src) in bytes
        .spare_capacity_mut()
        .chunks_exact_mut(16)
        .zip(units.chunks_exact(16))
    {
        if src.iter().fold(0u16, |a, &u| a | u) >= 0x80 {
            break;
        }
        for (d, &u) in dst.iter_mut().zip(src) {
            d.write(u as u8);
        }
        n += 16;
    }
    unsafe { bytes.set_len(n) };
    n
}

/// A member value of a flat object, as [`write_flat_object`] prints it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum FlatValue<'a> {
    Null,
    Bool(bool),
    /// `NaN` and `±Infinity` print `null`, as `JSON.stringify` does.
    Number(f64),
    Str(&'a str),
    /// A string that may hold lone surrogates, as its UTF-16 units.
    Utf16(&'a [u16]),
}

/// Append the canonical form of a flat object (`{"k":v,…}`, members sorted)
/// to `out`. The caller guarantees what makes byte order the canonical
/// order: keys are ASCII, distinct, not array indices, not `__proto__`.
pub fn write_flat_object(members: &mut [(&str, FlatValue)], out: &mut String) {
    members.sort_unstable_by(|a, b| a.0.cmp(b.0));
    out.push('{');
    let mut number = ryu_js::Buffer::new();
    for (i, (key, value)) in members.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        push_js_string_literal(key, out);
        out.push(':');
        match *value {
            FlatValue::Null => out.push_str("null"),
            FlatValue::Bool(b) => out.push_str(if b { "true" } else { "false" }),
            // `Number::toString` (-0 prints 0); non-finite prints null.
            FlatValue::Number(n) if n.is_finite() => out.push_str(number.format_finite(n)),
            FlatValue::Number(_) => out.push_str("null"),
            FlatValue::Str(s) => push_js_string_literal(s, out),
            FlatValue::Utf16(units) => push_js_string_literal_utf16(units, out),
        }
    }
    out.push('}');
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::canonical::canonicalize_arguments;

    #[test]
    fn transcodes_like_utf16_lossy() {
        let cases: Vec<Vec<u16>> = vec![
            vec![],
            "plain ascii text that is longer than sixteen units"
                .encode_utf16()
                .collect(),
            "héllo wörld ≥ 😀 end".encode_utf16().collect(),
            vec![0x61, 0xD800, 0x62],
            vec![0xDC00; 20],
            vec![0xD83D],
            [vec![0x41; 15], vec![0xD83D, 0xDE00], vec![0x42; 17]].concat(),
            // The ASCII prefix ends inside a run of 16 (whole runs first,
            // then the general loop), and ASCII runs follow again.
            [vec![0x43; 37], vec![0xE9], vec![0x44; 40], vec![0xDC00]].concat(),
            [vec![0x45; 32], vec![0xD83D, 0xDE00], vec![0x46; 16]].concat(),
        ];
        for units in cases {
            let (text, lossy) = utf16_to_string(&units);
            assert_eq!(text, String::from_utf16_lossy(&units));
            assert_eq!(lossy, String::from_utf16(&units).is_err());
        }
    }

    #[test]
    fn flat_object_is_its_canonical_form() {
        let units: Vec<u16> = vec![0x61, 0xD800];
        let mut members = vec![
            ("z", FlatValue::Str("quote \" and \\ and \n")),
            ("a", FlatValue::Number(-0.0)),
            ("m", FlatValue::Number(1e21)),
            ("n", FlatValue::Number(f64::NAN)),
            ("b", FlatValue::Bool(true)),
            ("c", FlatValue::Null),
            ("u", FlatValue::Utf16(&units)),
        ];
        let mut out = String::new();
        write_flat_object(&mut members, &mut out);
        assert_eq!(
            out,
            r#"{"a":0,"b":true,"c":null,"m":1e+21,"n":null,"u":"a\ud800","z":"quote \" and \\ and \n"}"#
        );
        let mut canonical = String::new();
        canonicalize_arguments(
            r#"{"z":"quote \" and \\ and \n","a":-0,"m":1e21,"n":null,"b":true,"c":null,"u":"a\ud800"}"#,
            &mut canonical,
        );
        assert_eq!(out, canonical);
    }
}
