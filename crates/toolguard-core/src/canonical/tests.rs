//! Expected strings were produced by node 20 running the official
//! algorithm (`JSON.stringify(sortJsonValue(parseArguments(raw)))`).
use super::*;

fn canon(raw: &str) -> String {
    let mut out = String::new();
    canonicalize_arguments(raw, &mut out);
    out
}

fn canon16(raw: &[u16]) -> String {
    let mut out = String::new();
    canonicalize_arguments_utf16(raw, &mut out);
    out
}

fn check(cases: &[(&str, &str)]) {
    for &(raw, expected) in cases {
        assert_eq!(canon(raw), expected, "input {raw:?}");
        // The UTF-16 entry point agrees on well-formed text.
        let units: Vec<u16> = raw.encode_utf16().collect();
        assert_eq!(canon16(&units), expected, "utf16 input {raw:?}");
    }
}

#[test]
fn empty_and_whitespace() {
    check(&[
        ("", "{}"),
        (" ", "\" \""),
        ("  \r\n", "\"  \\r\\n\""),
        ("{}", "{}"),
        (" {} ", "{}"),
        ("\n\t\r [1]\n", "[1]"),
        ("\u{feff}{}", "\"\u{feff}{}\""),
        ("{}\u{feff}", "\"{}\u{feff}\""),
        ("\u{a0}{}", "\"\u{a0}{}\""),
        ("\u{b}{}", "\"\\u000b{}\""),
        ("\u{c}{}", "\"\\f{}\""),
        ("\u{2028}{}", "\"\u{2028}{}\""),
    ]);
}

#[test]
fn number_grammar() {
    check(&[
        ("0", "0"),
        ("-0", "0"),
        ("0.0", "0"),
        ("-0.0e5", "0"),
        ("1.0", "1"),
        ("01", "\"01\""),
        ("-01", "\"-01\""),
        ("00", "\"00\""),
        ("1.", "\"1.\""),
        (".5", "\".5\""),
        ("+1", "\"+1\""),
        ("-", "\"-\""),
        ("1e", "\"1e\""),
        ("1e+", "\"1e+\""),
        ("1E-", "\"1E-\""),
        ("0x10", "\"0x10\""),
        ("NaN", "\"NaN\""),
        ("Infinity", "\"Infinity\""),
        ("-Infinity", "\"-Infinity\""),
        ("1.5e3", "1500"),
        ("-1.5E-3", "-0.0015"),
        ("1e+0", "1"),
        ("0.1e1", "1"),
        ("100e-2", "1"),
        ("[1,-]", "\"[1,-]\""),
        ("[1.e5]", "\"[1.e5]\""),
        ("[0e0]", "[0]"),
        ("[-0E-0]", "[0]"),
    ]);
}

#[test]
fn number_printing() {
    check(&[
        ("1e21", "1e+21"),
        ("1E+21", "1e+21"),
        ("1e20", "100000000000000000000"),
        ("123e18", "123000000000000000000"),
        ("5e-7", "5e-7"),
        ("1e-7", "1e-7"),
        ("1E-7", "1e-7"),
        ("0.000001", "0.000001"),
        ("0.0000015", "0.0000015"),
        ("123456789012345678901234567890", "1.2345678901234568e+29"),
        ("9007199254740993", "9007199254740992"),
        ("9007199254740992", "9007199254740992"),
        ("1e23", "1e+23"),
        ("4.35", "4.35"),
        ("0.1", "0.1"),
        ("0.30000000000000004", "0.30000000000000004"),
        ("1e400", "null"),
        ("-1e400", "null"),
        ("1e99999999999999999999", "null"),
        ("1e-99999999999999999999", "0"),
        ("5e-324", "5e-324"),
        ("2e-324", "0"),
        ("3e-324", "5e-324"),
        ("1e-400", "0"),
        ("-1e-400", "0"),
        ("2.2250738585072011e-308", "2.225073858507201e-308"),
        ("1.7976931348623157e308", "1.7976931348623157e+308"),
        ("1.7976931348623159e308", "null"),
        ("-5e-7", "-5e-7"),
        ("[-0,0,-0.0,1e21,1e20,123e-20]", "[0,0,0,1e+21,100000000000000000000,1.23e-18]"),
        ("0.00000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000001", "0"),
        ("10000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000", "null"),
        ("100000000000000000000", "100000000000000000000"),
        ("1000000000000000000000", "1e+21"),
        ("2.5000000000000000000000000000000000000000000000001", "2.5"),
    ]);
}

#[test]
fn string_grammar() {
    check(&[
        ("\"abc", "\"\\\"abc\""),
        ("\"\t\"", "\"\\\"\\t\\\"\""),
        ("\"\u{0}\"", "\"\\\"\\u0000\\\"\""),
        ("\"\u{1f}\"", "\"\\\"\\u001f\\\"\""),
        ("\"a\u{7f}b\"", "\"a\u{7f}b\""),
        ("\"\u{2028}\"", "\"\u{2028}\""),
        ("\"\\/\"", "\"/\""),
        ("\"\\x\"", "\"\\\"\\\\x\\\"\""),
        ("\"\\u12\"", "\"\\\"\\\\u12\\\"\""),
        ("\"\\u00\"", "\"\\\"\\\\u00\\\"\""),
        ("\"\\uGGGG\"", "\"\\\"\\\\uGGGG\\\"\""),
        ("\"\\U0041\"", "\"\\\"\\\\U0041\\\"\""),
        ("\"\\'\"", "\"\\\"\\\\'\\\"\""),
        ("\"\\u004A\\u004a\"", "\"JJ\""),
        ("\"\\", "\"\\\"\\\\\""),
        ("\"\\u", "\"\\\"\\\\u\""),
        ("\"a\\\"", "\"\\\"a\\\\\\\"\""),
    ]);
}

#[test]
fn string_printing() {
    check(&[
        (
            "\"\\b\\f\\n\\r\\t\\u0001\\u001f\\u0000\"",
            "\"\\b\\f\\n\\r\\t\\u0001\\u001f\\u0000\"",
        ),
        ("\"\\u007f\\u0080\\u00e9\"", "\"\u{7f}é\""),
        ("\"\\\"\\\\\"", "\"\\\"\\\\\""),
        ("\"\\u2028\\u2029\"", "\"\u{2028}\u{2029}\""),
        ("\"<\\/script>\"", "\"</script>\""),
        ("\"\\uD83D\\uDE00\"", "\"😀\""),
        ("\"\\ud83d\"", "\"\\ud83d\""),
        ("\"\\ude00\\ud83d\"", "\"\\ude00\\ud83d\""),
        ("\"\\ud83d\\ude00\\ud83d\"", "\"😀\\ud83d\""),
        ("\"\\udbff\\udfff\"", "\"􏿿\""),
        ("\"\\ud800x\\udc00\"", "\"\\ud800x\\udc00\""),
        ("\"😀é\"", "\"😀é\""),
        ("\"\\u000B\\u000c\"", "\"\\u000b\\f\""),
    ]);
}

#[test]
fn structure_grammar() {
    check(&[
        ("[1,2,]", "\"[1,2,]\""),
        ("{\"a\":1,}", "\"{\\\"a\\\":1,}\""),
        ("{,}", "\"{,}\""),
        ("[,]", "\"[,]\""),
        ("{\"a\":1,,\"b\":2}", "\"{\\\"a\\\":1,,\\\"b\\\":2}\""),
        ("[\"a\",]", "\"[\\\"a\\\",]\""),
        ("{\"x\":\"y\"", "\"{\\\"x\\\":\\\"y\\\"\""),
        ("{\"x\"}", "\"{\\\"x\\\"}\""),
        ("{\"a\" 1}", "\"{\\\"a\\\" 1}\""),
        ("{1:2}", "\"{1:2}\""),
        ("{\"a\":1 \"b\":2}", "\"{\\\"a\\\":1 \\\"b\\\":2}\""),
        ("{'a':1}", "\"{'a':1}\""),
        ("[", "\"[\""),
        ("]", "\"]\""),
        ("{", "\"{\""),
        ("}", "\"}\""),
        ("x", "\"x\""),
        ("tru", "\"tru\""),
        ("nul", "\"nul\""),
        ("fals", "\"fals\""),
        ("truex", "\"truex\""),
        ("true", "true"),
        ("null", "null"),
        ("false", "false"),
        ("\"a\"x", "\"\\\"a\\\"x\""),
        ("{}{}", "\"{}{}\""),
        ("1 2", "\"1 2\""),
        ("[]", "[]"),
        ("[ ]", "[]"),
        ("{ }", "{}"),
        ("{\"a\" : [ 1 , { } ] }", "{\"a\":[1,{}]}"),
        ("[[],{},[[]],{\"a\":{}}]", "[[],{},[[]],{\"a\":{}}]"),
        ("\"s\"", "\"s\""),
        ("5", "5"),
    ]);
}

#[test]
fn duplicate_keys() {
    check(&[
        ("{\"a\":1,\"a\":2}", "{\"a\":2}"),
        ("{\"a\":1,\"\\u0061\":2}", "{\"a\":2}"),
        ("{\"a\":1,\"\\u0061\":2,\"a\":3}", "{\"a\":3}"),
        ("{\"1\":1,\"\\u0031\":2}", "{\"1\":2}"),
        ("{\"b\":{\"x\":1},\"a\":0,\"b\":[2]}", "{\"a\":0,\"b\":[2]}"),
        ("{\"😀\":1,\"\\ud83d\\ude00\":2}", "{\"😀\":2}"),
    ]);
}

#[test]
fn utf16_key_order() {
    check(&[
        (
            "{\"\\ue000\":1,\"\\ud83d\\ude00\":2}",
            "{\"😀\":2,\"\u{e000}\":1}",
        ),
        ("{\"\u{e000}\":1,\"😀\":2}", "{\"😀\":2,\"\u{e000}\":1}"),
        (
            "{\"😀\":1,\"\u{e000}\":2,\"\u{ffff}\":3,\"퟿\":4}",
            "{\"퟿\":4,\"😀\":1,\"\u{e000}\":2,\"\u{ffff}\":3}",
        ),
        (
            "{\"\\ud83d\":1,\"\\ud83d\\ude00\":2,\"\\ude00\":3,\"\\uffff\":4}",
            "{\"\\ud83d\":1,\"😀\":2,\"\\ude00\":3,\"\u{ffff}\":4}",
        ),
        (
            "{\"\":1,\" \":2,\"!\":3,\"0\":4}",
            "{\"0\":4,\"\":1,\" \":2,\"!\":3}",
        ),
        (
            "{\"b\":1,\"a\":2,\"B\":3,\"_\":4,\"é\":5,\"e\":6}",
            "{\"B\":3,\"_\":4,\"a\":2,\"b\":1,\"e\":6,\"é\":5}",
        ),
        (
            "{\"ab\":1,\"a\":2,\"abc\":3}",
            "{\"a\":2,\"ab\":1,\"abc\":3}",
        ),
        (
            "{\"\\ud83d\\ude01\":1,\"\\ud83d\\ude00\":2,\"\\ud83e\":3}",
            "{\"😀\":2,\"😁\":1,\"\\ud83e\":3}",
        ),
        (
            "{\"x\\ue000\":1,\"x😀\":2,\"x\":3}",
            "{\"x\":3,\"x😀\":2,\"x\u{e000}\":1}",
        ),
    ]);
}

#[test]
fn integer_keys() {
    check(&[
        ("{\"b\":1,\"10\":2,\"9\":3,\"01\":4,\"-0\":5,\"4294967294\":6,\"4294967295\":7,\"a\":8,\"0\":9}", "{\"0\":9,\"9\":3,\"10\":2,\"4294967294\":6,\"-0\":5,\"01\":4,\"4294967295\":7,\"a\":8,\"b\":1}"),
        ("{\"\\u0031\\u0030\":1,\"9\":2}", "{\"9\":2,\"10\":1}"),
        ("{\"1.0\":1,\"1\":2,\"1e3\":3,\" 1\":4,\"99999999999\":5,\"42949672940\":6}", "{\"1\":2,\" 1\":4,\"1.0\":1,\"1e3\":3,\"42949672940\":6,\"99999999999\":5}"),
        ("{\"2\":{\"b\":1,\"a\":2},\"1\":[{\"y\":0,\"x\":1}]}", "{\"1\":[{\"x\":1,\"y\":0}],\"2\":{\"a\":2,\"b\":1}}"),
        ("{\"!\":1,\"0\":2}", "{\"0\":2,\"!\":1}"),
    ]);
}

#[test]
fn proto_key() {
    check(&[
        ("{\"__proto__\":1,\"b\":2}", "{\"b\":2}"),
        ("{\"__proto__\":{\"x\":1},\"b\":2}", "{\"b\":2}"),
        ("{\"__proto__\":null}", "{}"),
        ("{\"__proto__\":[1]}", "{}"),
        ("{\"__proto__\":\"s\"}", "{}"),
        ("{\"__proto__\":true}", "{}"),
        ("{\"__proto__\":{}}", "{}"),
        ("{\"a\":{\"__proto__\":\"s\"}}", "{\"a\":{}}"),
        ("[{\"__proto__\":1}]", "[{}]"),
        (
            "{\"__proto__\":1,\"__proto__\":{\"a\":1},\"z\":1}",
            "{\"z\":1}",
        ),
        ("{\"\\u005f_proto__\":5}", "{}"),
        (
            "{\"__proto\":1,\"__proto__x\":2,\"_proto__\":3}",
            "{\"__proto\":1,\"__proto__x\":2,\"_proto__\":3}",
        ),
        (
            "{\"constructor\":1,\"toString\":2,\"hasOwnProperty\":3}",
            "{\"constructor\":1,\"hasOwnProperty\":3,\"toString\":2}",
        ),
        ("{\"length\":1}", "{\"length\":1}"),
        (
            "{\"__proto__\":{\"__proto__\":{\"a\":1}},\"a\":2}",
            "{\"a\":2}",
        ),
    ]);
}

#[test]
fn raw_lone_surrogates_via_utf16() {
    let cases: &[(&[u16], &str)] = &[
        (&[34, 55296, 34], "\"\\ud800\""),
        (&[91, 34, 55296, 120, 34, 93], "[\"\\ud800x\"]"),
        (&[55296], "\"\\ud800\""),
        (
            &[123, 34, 56320, 34, 58, 49, 44, 34, 55357, 34, 58, 50, 125],
            "{\"\\ud83d\":2,\"\\udc00\":1}",
        ),
        (&[34, 55357, 92, 117, 100, 101, 48, 48, 34], "\"😀\""),
        (&[34, 92, 117, 100, 56, 51, 100, 56832, 34], "\"😀\""),
        (
            &[123, 34, 97, 34, 58, 34, 57343, 34, 125, 32, 55296],
            "\"{\\\"a\\\":\\\"\\udfff\\\"} \\ud800\"",
        ),
        (&[34, 55296, 9, 34], "\"\\\"\\ud800\\t\\\"\""),
        (&[56320, 123, 125], "\"\\udc00{}\""),
        // `"\` + U+D800 `"`: an invalid escape, malformed.
        (&[34, 92, 55296, 34], "\"\\\"\\\\\\ud800\\\"\""),
        // `"\\` + U+D800 `"`: an escaped backslash, then the surrogate.
        (&[34, 92, 92, 55296, 34], "\"\\\\\\ud800\""),
        (&[], "{}"),
    ];
    for &(raw, expected) in cases {
        assert_eq!(canon16(raw), expected, "input {raw:?}");
        // The engine's path: a UTF-8 stand-in text, then the `&str` entry point.
        assert_eq!(
            canon(&arguments_text_from_utf16(raw)),
            expected,
            "input {raw:?}"
        );
    }
}

#[test]
fn deep_nesting_does_not_recurse() {
    let n = 100_000;
    let arrays = format!("{}{}", "[".repeat(n), "]".repeat(n));
    assert_eq!(canon(&arrays), arrays);
    let objects = format!("{}1{}", "{\"b\":0,\"a\":".repeat(n), "}".repeat(n));
    let expected = format!("{}1{}", "{\"a\":".repeat(n), ",\"b\":0}".repeat(n));
    assert_eq!(canon(&objects), expected);
    // Unclosed deep text is malformed: the raw string comes back.
    let open = "[".repeat(n);
    assert_eq!(canon(&open), format!("\"{open}\""));
}

#[test]
fn large_input() {
    let big = format!(
        "{{\"s\":\"{}\",\"a\":[{}0]}}",
        "x".repeat(10_000_000),
        "1,".repeat(100_000)
    );
    let expected = format!(
        "{{\"a\":[{}0],\"s\":\"{}\"}}",
        "1,".repeat(100_000),
        "x".repeat(10_000_000)
    );
    assert_eq!(canon(&big), expected);
}

#[test]
fn helpers() {
    assert_eq!(utf16_len(""), 0);
    assert_eq!(utf16_len("aé€😀"), 5);
    let mut out = String::new();
    push_js_string_literal("a\"b\\c\u{0}\u{1f}\u{7f}\n/😀", &mut out);
    assert_eq!(out, "\"a\\\"b\\\\c\\u0000\\u001f\u{7f}\\n/😀\"");
}

/// xorshift64*: reproducible pseudo-random bytes without a dependency.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// Random JSON-ish texts (token soup, often valid) never panic, and the
/// canonical form is a fixed point: it canonicalises to itself, for valid
/// and malformed inputs alike.
#[test]
fn flat_fast_path_writes_what_the_tree_writes() {
    // Flat objects from pieces where the fast path must bail or sort
    // carefully: duplicate, `__proto__`, index, non-ASCII and escaped keys;
    // values with canonical and non-canonical escapes, numbers of every form.
    const KEYS: &[&str] = &[
        "\"a\"",
        "\"b\"",
        "\"B\"",
        "\"\"",
        "\"__proto__\"",
        "\"10\"",
        "\"01\"",
        "\"-0\"",
        "\"😀\"",
        "\"\u{e000}\"",
        "\"\\u0061\"",
        "\"a b\"",
        "\"command\"",
        "\"timeout\"",
    ];
    const VALUES: &[&str] = &[
        "\"x\"",
        "\"\\n\\t\\\"\\\\\"",
        "\"\\u001f\\u000b\"",
        "\"\\u001F\"",
        "\"\\u0008\"",
        "\"\\/\"",
        "\"\\ud83d\\ude00\"",
        "\"é😀\"",
        "0",
        "-0",
        "-5",
        "120000",
        "123456789012345",
        "1234567890123456",
        "1.0",
        "1e21",
        "5e-7",
        "true",
        "false",
        "null",
        "{}",
        "[]",
        "{\"z\":1}",
    ];
    let mut rng = Rng(0x2545_F491_4F6C_DD1D);
    let mut fast = 0;
    for _ in 0..20_000 {
        let mut raw = String::from(if rng.below(4) == 0 { " { " } else { "{" });
        for i in 0..rng.below(6) {
            if i > 0 {
                raw.push(',');
            }
            raw.push_str(KEYS[rng.below(KEYS.len())]);
            raw.push_str(if rng.below(4) == 0 { " : " } else { ":" });
            raw.push_str(VALUES[rng.below(VALUES.len())]);
        }
        raw.push_str(if rng.below(8) == 0 { "} x" } else { "}" });
        let mut via_fast = String::new();
        if canonicalize_flat(&raw, &mut via_fast) {
            fast += 1;
            let mut via_tree = String::new();
            match Doc::parse(&raw) {
                Some(doc) => doc.write(&mut via_tree),
                None => panic!("fast path took malformed {raw}"),
            }
            assert_eq!(via_fast, via_tree, "input {raw}");
        } else {
            assert!(via_fast.is_empty());
        }
    }
    assert!(fast > 2_000, "the fast path ran only {fast} times");
}

#[test]
fn random_inputs_never_panic_and_are_fixed_points() {
    const TOKENS: &[&str] = &[
        "{",
        "}",
        "[",
        "]",
        ",",
        ":",
        "\"",
        "\"a\"",
        "\"__proto__\"",
        "\"10\"",
        "\"01\"",
        "\"\\ud83d\"",
        "\"\\ude00\"",
        "\"\\ue000\"",
        "\"😀\"",
        "\"\u{e000}\"",
        "\\",
        "\\u",
        "\\n",
        "0",
        "-0",
        "1e21",
        "5e-7",
        "1e400",
        "-",
        ".",
        "e",
        "true",
        "null",
        "fals",
        " ",
        "\n",
        "\t",
        "\u{0}",
        "\u{1f}",
        "é",
        "\"b\"",
        "\"\\u0061\"",
        "1.5",
        "4294967294",
    ];
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    for _ in 0..20_000 {
        let mut raw = String::new();
        for _ in 0..rng.below(24) {
            raw.push_str(TOKENS[rng.below(TOKENS.len())]);
        }
        let once = canon(&raw);
        assert_eq!(canon(&once), once, "input {raw:?}");
    }
    // Random UTF-16 unit soup through the UTF-16 entry point.
    const UNITS: &[u16] = &[
        0x22, 0x7B, 0x7D, 0x5B, 0x5D, 0x3A, 0x2C, 0x5C, 0x75, 0x61, 0x30, 0xD83D, 0xDE00, 0xD800,
        0xDFFF, 0xE000, 0x0,
    ];
    for _ in 0..20_000 {
        let raw: Vec<u16> = (0..rng.below(16))
            .map(|_| UNITS[rng.below(UNITS.len())])
            .collect();
        let once = canon16(&raw);
        assert_eq!(canon(&once), once, "input {raw:?}");
    }
}

/// Valid documents with random keys keep their values and are fixed points.
#[test]
fn random_valid_documents_are_fixed_points() {
    const KEYS: &[&str] = &[
        "a",
        "b",
        "__proto__",
        "0",
        "9",
        "10",
        "01",
        "-0",
        "4294967294",
        "4294967295",
        "\\ud83d\\ude00",
        "\\ue000",
        "\\ud83d",
        "é",
        "",
    ];
    let mut rng = Rng(42);
    for _ in 0..5_000 {
        let mut raw = String::from("{");
        for i in 0..rng.below(8) {
            if i > 0 {
                raw.push(',');
            }
            raw.push_str(&format!("\"{}\":", KEYS[rng.below(KEYS.len())]));
            match rng.below(4) {
                0 => raw.push_str(&format!("{}", rng.next() as i64 as f64 / 7.0)),
                1 => raw.push_str("[{\"z\":1,\"y\":2},[]]"),
                2 => raw.push_str("\"\\u0000x\\ud800\""),
                _ => raw.push_str("{}"),
            }
        }
        raw.push('}');
        let once = canon(&raw);
        assert!(once.starts_with('{'), "{raw} → {once}");
        assert_eq!(canon(&once), once, "input {raw:?}");
    }
}
