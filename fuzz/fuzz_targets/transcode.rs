//! The binding's two pure writers, now in the core (`toolguard_core::transcode`).
//!
//! Checks, besides "no panic":
//! - `utf16_to_string` equals `String::from_utf16_lossy` on any units (lone
//!   surrogates included), and reports `lossy` exactly when the units are not
//!   valid UTF-16;
//! - `write_flat_object` prints exactly what the canonical form of the same
//!   object's JSON text is (`canonicalize_arguments`, itself fuzzed and
//!   differential-tested against the official plugin).
#![no_main]

use libfuzzer_sys::fuzz_target;
use toolguard_core::canonical::{canonicalize_arguments, push_js_string_literal_utf16};
use toolguard_core::transcode::{utf16_to_string, write_flat_object, FlatValue};

fuzz_target!(|data: &[u8]| {
    let units: Vec<u16> = data
        .chunks_exact(2)
        .map(|c| u16::from_le_bytes([c[0], c[1]]))
        .collect();
    let (text, lossy) = utf16_to_string(&units);
    assert_eq!(text, String::from_utf16_lossy(&units));
    assert_eq!(lossy, String::from_utf16(&units).is_err());

    // A flat object from the same bytes: each member's key is an ASCII
    // letter pair (distinct, never an index or `__proto__`), its value picked
    // by a tag byte, strings taken from slices of `units`.
    let mut members: Vec<(String, u8, f64, std::ops::Range<usize>)> = Vec::new();
    for (i, chunk) in data.chunks(6).take(24).enumerate() {
        let tag = chunk[0] % 5;
        let key = format!("{}{}", (b'a' + (i / 26) as u8) as char, (b'a' + (i % 26) as u8) as char);
        let n = chunk
            .get(1..5)
            .map(|b| f64::from(i32::from_le_bytes([b[0], b[1], b[2], b[3]])) / 7.0)
            .unwrap_or(0.0);
        let start = chunk.get(5).map_or(0, |&b| usize::from(b)).min(units.len());
        let end = (start + usize::from(chunk[0] >> 3)).min(units.len());
        members.push((key, tag, n, start..end));
    }
    let strings: Vec<String> = members.iter().map(|m| String::from_utf16_lossy(&units[m.3.clone()])).collect();
    let mut flat: Vec<(&str, FlatValue)> = members
        .iter()
        .zip(&strings)
        .map(|((key, tag, n, range), s)| {
            let value = match tag {
                0 => FlatValue::Null,
                1 => FlatValue::Bool(*n > 0.0),
                2 => FlatValue::Number(if *n == 0.0 { f64::NAN } else { *n }),
                3 => FlatValue::Str(s),
                _ => FlatValue::Utf16(&units[range.clone()]),
            };
            (key.as_str(), value)
        })
        .collect();
    // The same object as JSON text, in reverse member order.
    let mut json = String::from("{");
    for (i, (key, value)) in flat.iter().rev().enumerate() {
        if i > 0 {
            json.push(',');
        }
        json.push_str(&format!("\"{key}\":"));
        match value {
            FlatValue::Null => json.push_str("null"),
            FlatValue::Bool(b) => json.push_str(if *b { "true" } else { "false" }),
            FlatValue::Number(n) if n.is_finite() => json.push_str(&format!("{n:e}")),
            FlatValue::Number(_) => json.push_str("null"),
            FlatValue::Str(s) => {
                let units: Vec<u16> = s.encode_utf16().collect();
                push_js_string_literal_utf16(&units, &mut json);
            }
            FlatValue::Utf16(units) => push_js_string_literal_utf16(units, &mut json),
        }
    }
    json.push('}');
    let mut written = String::new();
    write_flat_object(&mut flat, &mut written);
    let mut canonical = String::new();
    canonicalize_arguments(&json, &mut canonical);
    assert_eq!(written, canonical, "flat writer differs for {json}");
});
