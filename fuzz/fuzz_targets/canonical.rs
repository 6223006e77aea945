//! Canonicalisation of arbitrary argument text (the repeat chain's key).
//!
//! Checks, besides "no panic, no stack overflow":
//! - idempotence: the canonical form is itself canonical (valid JSON in,
//!   sorted JSON out; malformed text in, its JSON string literal out);
//! - the UTF-16 entry point (what a JavaScript string with lone surrogates
//!   takes) agrees with the UTF-8 one on well-formed text;
//! - on raw UTF-16 (lone surrogates included) the UTF-16 path is idempotent too.
#![no_main]

use libfuzzer_sys::fuzz_target;
use toolguard_core::canonical::{canonicalize_arguments, canonicalize_arguments_utf16};

fn canon(text: &str) -> String {
    let mut out = String::new();
    canonicalize_arguments(text, &mut out);
    out
}

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        let once = canon(text);
        assert_eq!(canon(&once), once, "not idempotent for {text:?}");
        let units: Vec<u16> = text.encode_utf16().collect();
        let mut via16 = String::new();
        canonicalize_arguments_utf16(&units, &mut via16);
        assert_eq!(via16, once, "UTF-16 path differs for {text:?}");
    } else {
        // Not UTF-8: read the bytes as UTF-16 code units instead (lone surrogates likely).
        let units: Vec<u16> = data
            .chunks_exact(2)
            .map(|p| u16::from_le_bytes([p[0], p[1]]))
            .collect();
        let mut once = String::new();
        canonicalize_arguments_utf16(&units, &mut once);
        assert_eq!(
            canon(&once),
            once,
            "UTF-16 result not idempotent for {units:?}"
        );
    }
});
