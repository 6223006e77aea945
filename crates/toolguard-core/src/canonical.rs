//! Argument JSON text → the canonical form the official DSH plugin computes.
//!
//! DSH's agent loop turns the model's argument text into a value with
//! `parseArguments(raw)` = `raw ? JSON.parse(raw) : {}` (a `JSON.parse` error
//! keeps the raw string itself), and `dsh-repeat-tool-reminder` keys its chain
//! on `JSON.stringify(sortJsonValue(value))`, where `sortJsonValue` deep-copies
//! objects into a fresh `{}` in `Object.keys(record).sort()` order. This module
//! reproduces that pipeline byte for byte without a JavaScript engine.
//!
//! # Quirks reproduced (each found by experiment with node 20 and 22)
//!
//! Parsing (`JSON.parse`, anything it rejects becomes the raw string):
//! 1. `""` → `{}`; every other text goes through `JSON.parse`, so `" "` (only
//!    whitespace) is malformed and canonicalises to the string `" "`.
//! 2. Whitespace is exactly space, `\t`, `\n`, `\r`. A BOM (U+FEFF), NBSP,
//!    `\v` or `\f` around the value makes the text malformed.
//! 3. Numbers follow the strict JSON grammar `-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?`:
//!    `01`, `-01`, `00`, `1.`, `.5`, `+1`, `1e`, `0x10`, `NaN`, `Infinity` are malformed.
//! 4. Strings may not contain raw U+0000–U+001F (U+007F, U+2028 are fine);
//!    escapes are `\" \\ \/ \b \f \n \r \t \uXXXX` (hex in either case), anything
//!    else (`\x`, `\u12`, `\'`) is malformed.
//! 5. `\uXXXX` escapes may produce lone surrogates; an escaped high surrogate
//!    followed by an escaped low one forms one real character (`"\ud83d\ude00"` → `"😀"`).
//! 6. Trailing commas, single quotes, trailing garbage (`{}{}`, `"a"x`, `1 2`)
//!    are malformed. A bare primitive (`5`, `true`, `null`, `"s"`) is a valid value.
//! 7. Duplicate keys: the last value wins (`{"a":1,"a":2}` → `{"a":2}`); keys
//!    compare after unescaping (`"a"` and `"\u0061"` are one key).
//! 8. No depth limit: V8's `JSON.parse` is iterative, and so is this parser.
//!
//! Sorting and object shape (`sortJsonValue` + JS property order):
//! 9. Keys sort by UTF-16 code units (`Array.prototype.sort` default), not by
//!    UTF-8 bytes or code points: `"😀"` (D83D DE00) sorts before `"\ue000"`,
//!    and a lone `"\ud83d"` sorts before `"😀"` which sorts before `"\ude00"`.
//! 10. Integer-like keys — canonical array indices `"0"`..`"4294967294"` (no
//!    leading zero, no sign) — are emitted first in numeric order, because a JS
//!    object lists such keys before all others: `{"b","10","9","0","01","-0",
//!    "4294967295","a"}` → `"0","9","10","-0","01","4294967295","a","b"`.
//! 11. A `__proto__` key (also spelled `"\u005f_proto__"`) vanishes at every depth
//!    and for every value type: `sorted["__proto__"] = v` runs the
//!    `Object.prototype.__proto__` setter (setting the prototype for an object
//!    or `null` value, ignoring primitives) instead of creating a property, and
//!    `JSON.stringify` emits own properties only. Other `Object.prototype`
//!    names (`constructor`, `toString`, `hasOwnProperty`) are plain keys.
//! 12. Arrays keep their order; empty containers print as `[]` / `{}`.
//!
//! Printing (`JSON.stringify`):
//! 13. Numbers print as JS `Number::toString` of the correctly rounded double:
//!    `-0` → `0`, `1.0` → `1`, `1e21` → `1e+21`, `1e20` → `100000000000000000000`,
//!    `5e-7` → `5e-7`, `0.000001` → `0.000001`, `9007199254740993` →
//!    `9007199254740992`, `123456789012345678901234567890` → `1.2345678901234568e+29`,
//!    `2e-324` → `0`, `5e-324` → `5e-324`; overflow (`1e400`, `-1e400`) is
//!    ±Infinity, which `JSON.stringify` prints as `null`.
//! 14. Strings escape `"` `\` as `\"` `\\`; `\b \f \n \r \t` by name; other
//!    U+0000–U+001F as `\u00XX` with lowercase hex; lone surrogates as `\udXXX`
//!    lowercase; `/`, U+007F, U+2028/U+2029 and all other text stay raw.
//! 15. Malformed text canonicalises to `JSON.stringify(raw)`, the same escaping.
//!
//! Input as JavaScript holds it (UTF-16, see [`canonicalize_arguments_utf16`]):
//! 16. A raw lone surrogate inside a JSON string is data, like its `\uXXXX`
//!    escape (`"<U+D800>"` → `"\ud800"`); outside a string, or right after an
//!    escaping backslash (`"\<U+D800>"`), it makes the text malformed. A UTF-8
//!    conversion (napi `String`) would turn it into U+FFFD, so bindings pass
//!    the UTF-16 units.
//!
//! Known divergence: the official code recurses (`sortJsonValue`, V8's
//! `JSON.stringify`) and throws `RangeError: Maximum call stack size exceeded`
//! from about 2,000–5,000 levels of nesting; this module has no depth limit and
//! prints what an unbounded JavaScript stack would print.
//!
//! # Implementation notes
//! Parsing builds a flat tree (no recursion on the Rust stack), in buffers
//! reused between calls on a thread. A key without a backslash, and a value
//! whose escapes are all the ones `JSON.stringify` writes, is kept as a slice
//! of the input and copied verbatim on output — the parser already rejected
//! raw `"`, `\` and controls. Other strings are decoded to UTF-16 code units,
//! which holds lone surrogates and gives JS key order directly. Integers of at
//! most 15 digits are copied too; other numbers are parsed and re-printed.
//! Offsets are 32-bit (inputs above 4 GiB, impossible from JavaScript, are
//! treated as malformed). Measured on this (busy, 2-core) machine, release
//! build: a 10 MB string argument ~7 ms in Rust (~40 ms through N-API with
//! the string conversions), 5 M numbers in 10 MB ~160 ms, 100,000-deep
//! objects ~3 ms; 59 MB of 1 M small objects ~0.8 s through N-API (node's own
//! parse + sort + stringify: ~1.9 s).

use std::cmp::Ordering;

/// Append to `out` exactly what DSH computes for a tool call whose raw
/// argument text is `raw`: `parseArguments(raw)` (empty → `{}`, malformed →
/// the raw string) followed by `JSON.stringify(sortJsonValue(value))`.
pub fn canonicalize_arguments(raw: &str, out: &mut String) {
    if raw.is_empty() {
        out.push_str("{}");
        return;
    }
    if canonicalize_flat(raw, out) {
        return;
    }
    match Doc::parse(raw) {
        Some(doc) => doc.write(out),
        None => push_js_string_literal(raw, out),
    }
}

/// Same as [`canonicalize_arguments`] for argument text given as UTF-16 code
/// units (a JavaScript string as it is, possibly with lone surrogates that a
/// UTF-8 conversion would replace by U+FFFD).
pub fn canonicalize_arguments_utf16(raw: &[u16], out: &mut String) {
    canonicalize_arguments(&arguments_text_from_utf16(raw), out);
}

/// A UTF-8 argument text with exactly the canonical form of the UTF-16 text
/// `raw`, for callers that carry `&str` (the engine): `raw` itself when it is
/// well-formed UTF-16.
///
/// Otherwise (lone surrogates): inside a JSON string a raw lone surrogate and
/// its `\uXXXX` escape parse to the same code unit, and outside strings both a
/// lone surrogate and a backslash make the text malformed. So the lone
/// surrogates are rewritten as escapes when that text parses; when `raw` is
/// malformed, the result is the JSON string literal of `raw`, whose canonical
/// form is `JSON.stringify(raw)` — what DSH's raw-string fallback prints. One
/// trap: a lone surrogate right after an odd run of backslashes is an invalid
/// escape (`"\` + U+D800), malformed as it stands, though the rewrite would
/// read as a valid `\\ud800`.
pub fn arguments_text_from_utf16(raw: &[u16]) -> String {
    if let Ok(text) = String::from_utf16(raw) {
        return text;
    }
    let mut escaped = String::with_capacity(raw.len() + 16);
    let mut backslashes = 0usize;
    let mut malformed = false;
    for unit in char::decode_utf16(raw.iter().copied()) {
        match unit {
            Ok(c) => {
                escaped.push(c);
                backslashes = if c == '\\' { backslashes + 1 } else { 0 };
            }
            Err(lone) => {
                if backslashes % 2 == 1 {
                    malformed = true;
                    break;
                }
                push_unit_escape(lone.unpaired_surrogate(), &mut escaped);
                backslashes = 0;
            }
        }
    }
    if malformed || Doc::parse(&escaped).is_none() {
        escaped.clear();
        escaped.push('"');
        push_escaped_units(raw, &mut escaped);
        escaped.push('"');
    }
    escaped
}

/// Length of `s` in UTF-16 code units — JavaScript's `s.length`, the unit the
/// official plugin uses for `argumentsPreviewChars`.
pub fn utf16_len(s: &str) -> usize {
    // One unit per character, two for characters outside the BMP (4-byte UTF-8).
    s.bytes()
        .map(|b| usize::from(b & 0xC0 != 0x80) + usize::from(b >= 0xF0))
        .sum()
}

/// Append `JSON.stringify(s)` to `out`: `s` in double quotes with `"`, `\`
/// and U+0000–U+001F escaped the way JavaScript does (a Rust `str` cannot
/// hold lone surrogates, so their `\udXXX` form never arises here).
pub fn push_js_string_literal(s: &str, out: &mut String) {
    out.reserve(s.len() + 2);
    out.push('"');
    let bytes = s.as_bytes();
    let mut run = 0;
    for (i, &b) in bytes.iter().enumerate() {
        if b < 0x20 || b == b'"' || b == b'\\' {
            // ASCII positions are always char boundaries.
            out.push_str(&s[run..i]);
            push_ascii_escape(b, out);
            run = i + 1;
        }
    }
    out.push_str(&s[run..]);
    out.push('"');
}

/// Append `JSON.stringify(s)` for a string given as UTF-16 code units (lone
/// surrogates escaped as `\udXXX`).
pub fn push_js_string_literal_utf16(units: &[u16], out: &mut String) {
    out.push('"');
    push_escaped_units(units, out);
    out.push('"');
}

fn push_ascii_escape(b: u8, out: &mut String) {
    match b {
        b'"' => out.push_str("\\\""),
        b'\\' => out.push_str("\\\\"),
        0x08 => out.push_str("\\b"),
        0x0C => out.push_str("\\f"),
        b'\n' => out.push_str("\\n"),
        b'\r' => out.push_str("\\r"),
        b'\t' => out.push_str("\\t"),
        _ => push_unit_escape(u16::from(b), out),
    }
}

/// `\uXXXX` with lowercase hex, as `JSON.stringify` writes it.
fn push_unit_escape(unit: u16, out: &mut String) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    out.push_str("\\u");
    for shift in [12, 8, 4, 0] {
        out.push(char::from(HEX[usize::from((unit >> shift) & 0xF)]));
    }
}

/// Body of `JSON.stringify` for a UTF-16 string (without the quotes).
fn push_escaped_units(units: &[u16], out: &mut String) {
    for unit in char::decode_utf16(units.iter().copied()) {
        match unit {
            Ok(c) if (c as u32) < 0x80 => {
                let b = c as u8;
                if b < 0x20 || b == b'"' || b == b'\\' {
                    push_ascii_escape(b, out);
                } else {
                    out.push(c);
                }
            }
            Ok(c) => out.push(c),
            Err(lone) => push_unit_escape(lone.unpaired_surrogate(), out),
        }
    }
}

/// Offsets into the input and the arenas. 32 bits halve the tree's memory;
/// every count is bounded by the input length, which `Doc::parse` caps at
/// `u32::MAX` bytes (a JavaScript string is at most 2^29 - 24 units, < 1.6 GB as UTF-8).
type Ix = u32;

/// A string of the document: a verbatim input slice or a range of decoded
/// UTF-16 units in `Doc::units`. A key's slice holds no backslash (keys are
/// compared); a value's slice may hold escapes already in canonical form
/// (see `Doc::parse_value_string`).
#[derive(Clone, Copy)]
enum Text {
    Raw { start: Ix, end: Ix },
    Units { start: Ix, end: Ix },
}

/// A [`Text`] resolved against its document.
#[derive(Clone, Copy)]
enum TextRef<'d> {
    Raw(&'d str),
    Units(&'d [u16]),
}

fn resolve<'d>(input: &'d str, units: &'d [u16], t: Text) -> TextRef<'d> {
    match t {
        Text::Raw { start, end } => TextRef::Raw(&input[start as usize..end as usize]),
        Text::Units { start, end } => TextRef::Units(&units[start as usize..end as usize]),
    }
}

#[derive(Clone, Copy)]
enum Node {
    Null,
    True,
    False,
    Num(f64),
    /// A number literal JavaScript prints back unchanged, copied as it is.
    NumRaw {
        start: Ix,
        end: Ix,
    },
    Str(Text),
    /// Elements are `Doc::elements[start..start + len]`.
    Array {
        start: Ix,
        len: Ix,
    },
    /// Members are `Doc::members[start..start + len]`, already in output order.
    Object {
        start: Ix,
        len: Ix,
    },
}

struct Doc<'a> {
    input: &'a str,
    nodes: Vec<Node>,
    elements: Vec<Ix>,
    members: Vec<(Text, Ix)>,
    units: Vec<u16>,
    root: Ix,
    /// The parse stacks' buffers, handed back with the arenas on drop.
    spare: Option<Box<Arenas>>,
}

/// Parse buffers kept per thread between calls, so a steady stream of small
/// argument texts allocates nothing (malloc/free were ~12% of a ~100-byte
/// call). Buffers that grew past `ARENA_KEEP` entries are freed instead, so
/// one huge document does not pin its memory.
#[derive(Default)]
struct Arenas {
    nodes: Vec<Node>,
    elements: Vec<Ix>,
    members: Vec<(Text, Ix)>,
    units: Vec<u16>,
    stack: Vec<Frame>,
    scratch_elements: Vec<Ix>,
    scratch_members: Vec<(Text, Ix)>,
}

const ARENA_KEEP: usize = 1 << 14;

thread_local! {
    static ARENAS: std::cell::Cell<Option<Box<Arenas>>> = const { std::cell::Cell::new(None) };
}

fn recycle<T>(v: &mut Vec<T>) {
    if v.capacity() > ARENA_KEEP {
        *v = Vec::new();
    } else {
        v.clear();
    }
}

impl Drop for Doc<'_> {
    fn drop(&mut self) {
        let mut arenas = self.spare.take().unwrap_or_default();
        arenas.nodes = std::mem::take(&mut self.nodes);
        arenas.elements = std::mem::take(&mut self.elements);
        arenas.members = std::mem::take(&mut self.members);
        arenas.units = std::mem::take(&mut self.units);
        recycle(&mut arenas.nodes);
        recycle(&mut arenas.elements);
        recycle(&mut arenas.members);
        recycle(&mut arenas.units);
        recycle(&mut arenas.stack);
        recycle(&mut arenas.scratch_elements);
        recycle(&mut arenas.scratch_members);
        ARENAS.with(|cell| cell.set(Some(arenas)));
    }
}

/// An open container while parsing; its children wait on the scratch stacks.
struct Frame {
    is_object: bool,
    scratch_start: usize,
    key: Text,
}

impl<'a> Doc<'a> {
    /// `JSON.parse(input)` into a flat tree, or `None` where `JSON.parse` throws.
    fn parse(input: &'a str) -> Option<Self> {
        if Ix::try_from(input.len()).is_err() {
            // Unreachable from JavaScript (see `Ix`); refuse rather than wrap.
            return None;
        }
        let mut arenas = ARENAS.with(|cell| cell.take()).unwrap_or_default();
        // On a malformed text these three are dropped (not reused): rare.
        let mut stack = std::mem::take(&mut arenas.stack);
        let mut scratch_elements = std::mem::take(&mut arenas.scratch_elements);
        let mut scratch_members = std::mem::take(&mut arenas.scratch_members);
        let mut doc = Doc {
            input,
            nodes: std::mem::take(&mut arenas.nodes),
            elements: std::mem::take(&mut arenas.elements),
            members: std::mem::take(&mut arenas.members),
            units: std::mem::take(&mut arenas.units),
            root: 0,
            spare: Some(arenas),
        };
        let bytes = input.as_bytes();
        let mut pos = 0;
        'value: loop {
            pos = skip_ws(bytes, pos);
            let mut node = match *bytes.get(pos)? {
                b'{' => {
                    pos = skip_ws(bytes, pos + 1);
                    if bytes.get(pos) == Some(&b'}') {
                        pos += 1;
                        Node::Object { start: 0, len: 0 }
                    } else {
                        let key;
                        (key, pos) = doc.parse_key(pos)?;
                        stack.push(Frame {
                            is_object: true,
                            scratch_start: scratch_members.len(),
                            key,
                        });
                        continue 'value;
                    }
                }
                b'[' => {
                    pos = skip_ws(bytes, pos + 1);
                    if bytes.get(pos) == Some(&b']') {
                        pos += 1;
                        Node::Array { start: 0, len: 0 }
                    } else {
                        stack.push(Frame {
                            is_object: false,
                            scratch_start: scratch_elements.len(),
                            key: Text::Raw { start: 0, end: 0 },
                        });
                        continue 'value;
                    }
                }
                b'"' => {
                    let text;
                    (text, pos) = doc.parse_value_string(pos)?;
                    Node::Str(text)
                }
                b't' => {
                    pos = expect_literal(bytes, pos, b"true")?;
                    Node::True
                }
                b'f' => {
                    pos = expect_literal(bytes, pos, b"false")?;
                    Node::False
                }
                b'n' => {
                    pos = expect_literal(bytes, pos, b"null")?;
                    Node::Null
                }
                b'-' | b'0'..=b'9' => {
                    let end = number_end(bytes, pos)?;
                    let literal = &bytes[pos..end];
                    let digits = literal.strip_prefix(b"-").unwrap_or(literal);
                    // An integer of at most 15 digits is an exact double that
                    // JavaScript prints back digit for digit (`-0` aside, which
                    // prints `0`): copy it instead of parsing and re-printing.
                    let node = if digits.len() <= 15
                        && digits.iter().all(u8::is_ascii_digit)
                        && literal != b"-0"
                    {
                        Node::NumRaw {
                            start: pos as Ix,
                            end: end as Ix,
                        }
                    } else {
                        // The grammar was checked above; Rust's parser is correctly
                        // rounded and saturates to ±inf like JavaScript.
                        Node::Num(input[pos..end].parse().ok()?)
                    };
                    pos = end;
                    node
                }
                _ => return None,
            };
            // A value is complete: attach it, then close as many containers as
            // the text closes here.
            loop {
                let index = doc.nodes.len() as Ix;
                doc.nodes.push(node);
                let Some(frame) = stack.last_mut() else {
                    pos = skip_ws(bytes, pos);
                    if pos != bytes.len() {
                        return None;
                    }
                    doc.root = index;
                    if let Some(spare) = doc.spare.as_mut() {
                        spare.stack = stack;
                        spare.scratch_elements = scratch_elements;
                        spare.scratch_members = scratch_members;
                    }
                    return Some(doc);
                };
                if frame.is_object {
                    scratch_members.push((frame.key, index));
                } else {
                    scratch_elements.push(index);
                }
                pos = skip_ws(bytes, pos);
                match (*bytes.get(pos)?, frame.is_object) {
                    (b',', true) => {
                        pos = skip_ws(bytes, pos + 1);
                        (frame.key, pos) = doc.parse_key(pos)?;
                        continue 'value;
                    }
                    (b',', false) => {
                        pos += 1;
                        continue 'value;
                    }
                    (b']', false) => {
                        pos += 1;
                        let start = doc.elements.len();
                        doc.elements
                            .extend(scratch_elements.drain(frame.scratch_start..));
                        node = Node::Array {
                            start: start as Ix,
                            len: (doc.elements.len() - start) as Ix,
                        };
                        stack.pop();
                    }
                    (b'}', true) => {
                        pos += 1;
                        let start = doc.members.len();
                        doc.close_object(&mut scratch_members, frame.scratch_start);
                        node = Node::Object {
                            start: start as Ix,
                            len: (doc.members.len() - start) as Ix,
                        };
                        stack.pop();
                    }
                    _ => return None,
                }
            }
        }
    }

    /// `"key"` then `:` (with whitespace around the colon); returns the
    /// position after the colon.
    fn parse_key(&mut self, pos: usize) -> Option<(Text, usize)> {
        let bytes = self.input.as_bytes();
        if bytes.get(pos) != Some(&b'"') {
            return None;
        }
        let (key, pos) = self.parse_string(pos)?;
        let pos = skip_ws(bytes, pos);
        if bytes.get(pos) != Some(&b':') {
            return None;
        }
        Some((key, pos + 1))
    }

    /// A string value. When its escapes are exactly the ones
    /// `JSON.stringify` writes (always so for text that came from
    /// `JSON.stringify`), it is kept as its raw input slice and copied back
    /// verbatim: values are never compared, so they need not be decoded, and
    /// decoding + re-escaping long strings was most of the cost of large
    /// arguments (~300 MB/s). Any other escape takes `parse_string`.
    fn parse_value_string(&mut self, pos: usize) -> Option<(Text, usize)> {
        match verbatim_string_end(self.input.as_bytes(), pos + 1) {
            Some(end) => {
                let text = Text::Raw {
                    start: (pos + 1) as Ix,
                    end: end as Ix,
                };
                Some((text, end + 1))
            }
            None => self.parse_string(pos),
        }
    }

    /// A JSON string starting at the opening quote at `pos`.
    fn parse_string(&mut self, pos: usize) -> Option<(Text, usize)> {
        let bytes = self.input.as_bytes();
        let start = pos + 1;
        let mut i = start;
        loop {
            match *bytes.get(i)? {
                b'"' => {
                    let text = Text::Raw {
                        start: start as Ix,
                        end: i as Ix,
                    };
                    return Some((text, i + 1));
                }
                b'\\' => break,
                0x00..=0x1F => return None,
                _ => i += 1,
            }
        }
        // Escapes present: decode to UTF-16 units.
        let units_start = self.units.len();
        self.units.extend(self.input[start..i].encode_utf16());
        let mut run = i;
        loop {
            match *bytes.get(i)? {
                b'"' => {
                    self.units.extend(self.input[run..i].encode_utf16());
                    // Each unit comes from at least one input byte: fits in `Ix`.
                    let text = Text::Units {
                        start: units_start as Ix,
                        end: self.units.len() as Ix,
                    };
                    return Some((text, i + 1));
                }
                b'\\' => {
                    self.units.extend(self.input[run..i].encode_utf16());
                    let unit = match *bytes.get(i + 1)? {
                        b'"' => u16::from(b'"'),
                        b'\\' => u16::from(b'\\'),
                        b'/' => u16::from(b'/'),
                        b'b' => 0x08,
                        b'f' => 0x0C,
                        b'n' => u16::from(b'\n'),
                        b'r' => u16::from(b'\r'),
                        b't' => u16::from(b'\t'),
                        b'u' => {
                            let hex = bytes.get(i + 2..i + 6)?;
                            let mut unit = 0u16;
                            for &h in hex {
                                unit = (unit << 4) | u16::from(hex_value(h)?);
                            }
                            i += 4;
                            unit
                        }
                        _ => return None,
                    };
                    self.units.push(unit);
                    i += 2;
                    run = i;
                }
                0x00..=0x1F => return None,
                _ => i += 1,
            }
        }
    }

    /// Turn the pending members of one object (`scratch[from..]`) into its
    /// output order in `self.members`: last duplicate wins, `__proto__` goes,
    /// keys sorted by UTF-16 units, array-index keys first in numeric order.
    fn close_object(&mut self, scratch: &mut Vec<(Text, Ix)>, from: usize) {
        let (input, units) = (self.input, &self.units);
        let key = |t: Text| resolve(input, units, t);
        let pending = &mut scratch[from..];
        // Stable: equal keys stay in source order, so the last one is the winner.
        pending.sort_by(|a, b| cmp_text(key(a.0), key(b.0)));
        let start = self.members.len();
        for (i, &(k, value)) in pending.iter().enumerate() {
            let superseded = pending
                .get(i + 1)
                .is_some_and(|next| cmp_text(key(k), key(next.0)) == Ordering::Equal);
            if !superseded && !text_is(key(k), "__proto__") {
                self.members.push((k, value));
            }
        }
        scratch.truncate(from);
        // A JS object lists array-index keys first, in numeric order, then the
        // others in insertion (here: sorted) order. The sort is stable.
        let mine = &mut self.members[start..];
        if mine.iter().any(|(k, _)| array_index(key(*k)).is_some()) {
            mine.sort_by(
                |a, b| match (array_index(key(a.0)), array_index(key(b.0))) {
                    (Some(x), Some(y)) => x.cmp(&y),
                    (Some(_), None) => Ordering::Less,
                    (None, Some(_)) => Ordering::Greater,
                    (None, None) => Ordering::Equal,
                },
            );
        }
    }

    fn push_text(&self, t: Text, out: &mut String) {
        out.push('"');
        match resolve(self.input, &self.units, t) {
            // The parser rejected `"`, `\` and controls here: nothing to escape.
            TextRef::Raw(s) => out.push_str(s),
            TextRef::Units(u) => push_escaped_units(u, out),
        }
        out.push('"');
    }

    /// `JSON.stringify` of the tree, with an explicit stack.
    fn write(&self, out: &mut String) {
        // (container node, index of the next child to print)
        let mut stack: Vec<(Ix, Ix)> = Vec::new();
        let mut current = Some(self.root);
        let mut number = ryu_js::Buffer::new();
        loop {
            if let Some(index) = current.take() {
                match self.nodes[index as usize] {
                    Node::Null => out.push_str("null"),
                    Node::True => out.push_str("true"),
                    Node::False => out.push_str("false"),
                    Node::Num(n) if n.is_finite() => {
                        // ryu-js prints -0 as "0", as Number::toString does.
                        out.push_str(number.format_finite(n));
                    }
                    Node::Num(_) => out.push_str("null"),
                    Node::NumRaw { start, end } => {
                        out.push_str(&self.input[start as usize..end as usize]);
                    }
                    Node::Str(t) => self.push_text(t, out),
                    Node::Array { .. } => {
                        out.push('[');
                        stack.push((index, 0));
                    }
                    Node::Object { .. } => {
                        out.push('{');
                        stack.push((index, 0));
                    }
                }
            }
            let Some(top) = stack.last_mut() else {
                return;
            };
            let (container, next) = *top;
            match self.nodes[container as usize] {
                Node::Array { start, len } => {
                    if next == len {
                        out.push(']');
                        stack.pop();
                    } else {
                        if next > 0 {
                            out.push(',');
                        }
                        top.1 += 1;
                        current = Some(self.elements[(start + next) as usize]);
                    }
                }
                Node::Object { start, len } => {
                    if next == len {
                        out.push('}');
                        stack.pop();
                    } else {
                        if next > 0 {
                            out.push(',');
                        }
                        top.1 += 1;
                        let (key, value) = self.members[(start + next) as usize];
                        self.push_text(key, out);
                        out.push(':');
                        current = Some(value);
                    }
                }
                _ => unreachable!("only containers are pushed"),
            }
        }
    }
}

/// `Some(n)` when the key is a canonical array index (`"0"`..`"4294967294"`),
/// the keys a JavaScript object lists first, in numeric order.
fn array_index(t: TextRef<'_>) -> Option<u32> {
    fn parse(mut digits: impl ExactSizeIterator<Item = u32>) -> Option<u32> {
        let len = digits.len();
        if len == 0 || len > 10 {
            return None;
        }
        let first = digits.next()?;
        if first > 9 || (first == 0 && len > 1) {
            return None;
        }
        let mut value = u64::from(first);
        for d in digits {
            if d > 9 {
                return None;
            }
            value = value * 10 + u64::from(d);
        }
        // 2^32 - 1 is not an array index (it is the maximum length).
        u32::try_from(value).ok().filter(|&v| v != u32::MAX)
    }
    let digit = |c: u32| c.wrapping_sub(u32::from(b'0'));
    match t {
        TextRef::Raw(s) => parse(s.bytes().map(|b| digit(u32::from(b)))),
        TextRef::Units(u) => parse(u.iter().map(|&c| digit(u32::from(c)))),
    }
}

fn text_is(t: TextRef<'_>, s: &str) -> bool {
    match t {
        TextRef::Raw(r) => r == s,
        TextRef::Units(u) => u.iter().copied().eq(s.encode_utf16()),
    }
}

/// JavaScript string order: UTF-16 code units.
fn cmp_text(a: TextRef<'_>, b: TextRef<'_>) -> Ordering {
    match (a, b) {
        (TextRef::Raw(x), TextRef::Raw(y)) => cmp_utf8_as_utf16(x, y),
        (TextRef::Units(x), TextRef::Units(y)) => x.cmp(y),
        (TextRef::Raw(x), TextRef::Units(y)) => x.encode_utf16().cmp(y.iter().copied()),
        (TextRef::Units(x), TextRef::Raw(y)) => x.iter().copied().cmp(y.encode_utf16()),
    }
}

/// Compare two UTF-8 strings in UTF-16 code-unit order. Byte order equals
/// code-point order, which differs from UTF-16 order only between a
/// supplementary character and U+E000–U+FFFF, so only the first differing
/// character pair needs a closer look.
fn cmp_utf8_as_utf16(a: &str, b: &str) -> Ordering {
    let Some(mut i) = a.bytes().zip(b.bytes()).position(|(x, y)| x != y) else {
        return a.len().cmp(&b.len());
    };
    // Equal prefixes share their char boundaries.
    while !a.is_char_boundary(i) {
        i -= 1;
    }
    let (ca, cb) = (a[i..].chars().next(), b[i..].chars().next());
    match (ca, cb) {
        (Some(x), Some(y)) => {
            let (mut bx, mut by) = ([0u16; 2], [0u16; 2]);
            x.encode_utf16(&mut bx).cmp(&y.encode_utf16(&mut by))
        }
        _ => unreachable!("a differing byte lies inside both strings"),
    }
}

/// The index of the closing quote of the JSON string whose body starts at
/// `start`, when that string may be copied verbatim: no raw control
/// character, and only the escapes `JSON.stringify` itself writes. `None`
/// otherwise (malformed, or an escape that must be decoded: `\/`, `\u0041`,
/// uppercase hex, surrogates).
fn verbatim_string_end(bytes: &[u8], start: usize) -> Option<usize> {
    let mut i = start;
    loop {
        // Skip 16 plain bytes at a time (a branch-free test the compiler
        // vectorizes), then look at the bytes one by one.
        while let Some(chunk) = bytes.get(i..i + 16) {
            let special = chunk
                .iter()
                .fold(false, |a, &b| a | (b < 0x20) | (b == b'"') | (b == b'\\'));
            if special {
                break;
            }
            i += 16;
        }
        match *bytes.get(i)? {
            b'"' => return Some(i),
            0x00..=0x1F => return None,
            b'\\' => match bytes.get(i + 1)? {
                b'"' | b'\\' | b'b' | b'f' | b'n' | b'r' | b't' => i += 2,
                // `\u00XX` (lowercase hex) is canonical only for the controls
                // without a short escape.
                b'u' => match bytes.get(i + 2..i + 6)? {
                    &[b'0', b'0', hi @ (b'0' | b'1'), lo @ (b'0'..=b'9' | b'a'..=b'f')]
                        if !(hi == b'0' && matches!(lo, b'8' | b'9' | b'a' | b'c' | b'd')) =>
                    {
                        i += 6
                    }
                    _ => return None,
                },
                _ => return None,
            },
            _ => i += 1,
        }
    }
}

/// Fast path of [`canonicalize_arguments`] for the usual tool call: one flat
/// object of at most `FLAT_MEMBERS` members whose keys need no decoding and
/// whose values are verbatim strings, integers of at most 15 digits, `true`,
/// `false` or `null` — everything copied as it is, only the members sorted.
/// Writes the same text as the general path; `false` (nothing written) for
/// anything else, including duplicate, `__proto__` and array-index keys.
/// Skips the tree and the arenas: ~100-byte calls are dominated by them.
fn canonicalize_flat(raw: &str, out: &mut String) -> bool {
    const FLAT_MEMBERS: usize = 16;
    let bytes = raw.as_bytes();
    // (key start, key end, value start, value end)
    let mut members = [(0usize, 0usize, 0usize, 0usize); FLAT_MEMBERS];
    let mut len = 0;
    let mut pos = skip_ws(bytes, 0);
    if bytes.get(pos) != Some(&b'{') {
        return false;
    }
    pos = skip_ws(bytes, pos + 1);
    if bytes.get(pos) != Some(&b'}') {
        loop {
            if bytes.get(pos) != Some(&b'"') || len == FLAT_MEMBERS {
                return false;
            }
            let key_start = pos + 1;
            let Some(key_end) = bytes[key_start..]
                .iter()
                .position(|&b| b == b'"' || b == b'\\' || b < 0x20)
                .map(|n| key_start + n)
                .filter(|&end| bytes[end] == b'"')
            else {
                return false;
            };
            pos = skip_ws(bytes, key_end + 1);
            if bytes.get(pos) != Some(&b':') {
                return false;
            }
            pos = skip_ws(bytes, pos + 1);
            let value_start = pos;
            pos = match bytes.get(pos) {
                Some(b'"') => match verbatim_string_end(bytes, pos + 1) {
                    Some(end) => end + 1,
                    None => return false,
                },
                Some(b't') => match expect_literal(bytes, pos, b"true") {
                    Some(end) => end,
                    None => return false,
                },
                Some(b'f') => match expect_literal(bytes, pos, b"false") {
                    Some(end) => end,
                    None => return false,
                },
                Some(b'n') => match expect_literal(bytes, pos, b"null") {
                    Some(end) => end,
                    None => return false,
                },
                Some(b'-' | b'0'..=b'9') => {
                    let Some(end) = number_end(bytes, pos) else {
                        return false;
                    };
                    let literal = &bytes[pos..end];
                    let digits = literal.strip_prefix(b"-").unwrap_or(literal);
                    if digits.len() > 15
                        || !digits.iter().all(u8::is_ascii_digit)
                        || literal == b"-0"
                    {
                        return false;
                    }
                    end
                }
                _ => return false,
            };
            let key = &raw[key_start..key_end];
            if key == "__proto__" || array_index(TextRef::Raw(key)).is_some() {
                return false;
            }
            members[len] = (key_start, key_end, value_start, pos);
            len += 1;
            pos = skip_ws(bytes, pos);
            match bytes.get(pos) {
                Some(b',') => pos = skip_ws(bytes, pos + 1),
                Some(b'}') => break,
                _ => return false,
            }
        }
    }
    if skip_ws(bytes, pos + 1) != bytes.len() {
        return false;
    }
    let members = &mut members[..len];
    let key = |m: &(usize, usize, usize, usize)| &raw[m.0..m.1];
    // Insertion sort: a handful of members.
    for i in 1..members.len() {
        let mut j = i;
        while j > 0
            && cmp_utf8_as_utf16(key(&members[j - 1]), key(&members[j])) == Ordering::Greater
        {
            members.swap(j - 1, j);
            j -= 1;
        }
    }
    if members.windows(2).any(|w| key(&w[0]) == key(&w[1])) {
        return false;
    }
    out.reserve(raw.len());
    out.push('{');
    for (i, m) in members.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str(&raw[m.0 - 1..=m.1]);
        out.push(':');
        out.push_str(&raw[m.2..m.3]);
    }
    out.push('}');
    true
}

fn skip_ws(bytes: &[u8], mut pos: usize) -> usize {
    while let Some(b' ' | b'\t' | b'\n' | b'\r') = bytes.get(pos) {
        pos += 1;
    }
    pos
}

fn expect_literal(bytes: &[u8], pos: usize, literal: &[u8]) -> Option<usize> {
    let end = pos + literal.len();
    (bytes.get(pos..end)? == literal).then_some(end)
}

/// End of a number matching `-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?` at `pos`.
fn number_end(bytes: &[u8], mut pos: usize) -> Option<usize> {
    let digits = |pos: usize| {
        bytes[pos..]
            .iter()
            .take_while(|b| b.is_ascii_digit())
            .count()
    };
    if bytes.get(pos) == Some(&b'-') {
        pos += 1;
    }
    match bytes.get(pos)? {
        b'0' => pos += 1,
        b'1'..=b'9' => pos += digits(pos),
        _ => return None,
    }
    if bytes.get(pos) == Some(&b'.') {
        let n = digits(pos + 1);
        if n == 0 {
            return None;
        }
        pos += 1 + n;
    }
    if let Some(b'e' | b'E') = bytes.get(pos) {
        pos += 1;
        if let Some(b'+' | b'-') = bytes.get(pos) {
            pos += 1;
        }
        let n = digits(pos);
        if n == 0 {
            return None;
        }
        pos += n;
    }
    Some(pos)
}

fn hex_value(h: u8) -> Option<u8> {
    match h {
        b'0'..=b'9' => Some(h - b'0'),
        b'a'..=b'f' => Some(h - b'a' + 10),
        b'A'..=b'F' => Some(h - b'A' + 10),
        _ => None,
    }
}

#[cfg(test)]
mod tests;
