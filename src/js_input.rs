//! JavaScript input readers: each value the engine needs, read straight
//! from the JS objects (lazily: a result is read only when its tool is
//! scanned), with an error naming the field when it has the wrong type.
//! Strings cross N-API as UTF-8 when short and as UTF-16 when long (see
//! `UTF16_CROSSING_MIN`); lone surrogates are kept exact where the canonical
//! form depends on them.

use std::borrow::Cow;

use napi::bindgen_prelude::*;
use napi::{JsValue, ValueType};
use toolguard_core::shell_result::ShellResult;
use toolguard_core::transcode::{utf16_to_string, write_flat_object, FlatValue};

use crate::errors::invalid;

/// An `agentId` argument: a string, or an error naming it (napi's own
/// conversion message would not).
pub fn agent_id_argument(value: &Unknown) -> Result<String> {
    match value.get_type()? {
        ValueType::String => unsafe { value.cast::<String>() },
        _ => Err(invalid(format!(
            "toolguard: agentId must be a string (got {})",
            type_name(value)?
        ))),
    }
}

pub fn type_name(value: &Unknown) -> Result<&'static str> {
    Ok(match value.get_type()? {
        ValueType::Undefined => "undefined",
        ValueType::Null => "null",
        ValueType::Boolean => "boolean",
        ValueType::Number => "number",
        ValueType::String => "string",
        ValueType::Symbol => "symbol",
        ValueType::Object if value.is_array()? => "array",
        ValueType::Object => "object",
        ValueType::Function => "function",
        ValueType::External => "external",
        ValueType::BigInt => "bigint",
        _ => "unknown",
    })
}

pub fn expect_object<'a>(value: &Unknown<'a>, at: &str) -> Result<Object<'a>> {
    if value.get_type()? != ValueType::Object || value.is_array()? {
        return Err(invalid(format!(
            "toolguard: {at} must be an object (got {})",
            type_name(value)?
        )));
    }
    unsafe { value.cast::<Object>() }
}

/// `exec.name`, which every entry point taking a `ToolExecution` requires.
pub fn exec_name(exec: &Object) -> Result<String> {
    string_property(exec, "name", "exec.name")?
        .ok_or_else(|| invalid("toolguard: exec.name must be a string (got undefined)"))
}

/// `undefined` → `None`; a string → `Some`; anything else is an error naming `at`.
pub fn string_property(object: &Object, key: &str, at: &str) -> Result<Option<String>> {
    let value: Unknown = object.get_named_property_unchecked(key)?;
    match value.get_type()? {
        ValueType::Undefined => Ok(None),
        ValueType::String => Ok(Some(read_js_string(&value)?.0)),
        _ => Err(invalid(format!(
            "toolguard: {at} must be a string (got {})",
            type_name(&value)?
        ))),
    }
}

/// `undefined` → `None`; a boolean → `Some`; anything else is an error naming `at`.
pub fn bool_property(object: &Object, key: &str, at: &str) -> Result<Option<bool>> {
    let value: Unknown = object.get_named_property_unchecked(key)?;
    match value.get_type()? {
        ValueType::Undefined => Ok(None),
        ValueType::Boolean => Ok(Some(unsafe { value.cast::<bool>() }?)),
        _ => Err(invalid(format!(
            "toolguard: {at} must be a boolean (got {})",
            type_name(&value)?
        ))),
    }
}

/// `string_property` that also gives the string's JS value and, with
/// `check_lossy`, whether it may have had lone surrogates (see
/// `read_js_text`). `at` names the property in an error (built only then: it
/// costs an allocation per block).
pub fn text_property(
    object: &Object,
    key: &str,
    check_lossy: bool,
    at: impl FnOnce() -> String,
) -> Result<Option<(String, napi::sys::napi_value, bool)>> {
    let value: Unknown = object.get_named_property_unchecked(key)?;
    match value.get_type()? {
        ValueType::Undefined => Ok(None),
        ValueType::String => {
            let (text, lossy) = read_js_text(&value, check_lossy)?;
            Ok(Some((text, value.value().value, lossy)))
        }
        _ => Err(invalid(format!(
            "toolguard: {} must be a string (got {})",
            at(),
            type_name(&value)?
        ))),
    }
}

/// An argument text (a JS string value) as UTF-8 with exactly its canonical
/// form. Read as UTF-8 first (cheapest), but a conversion turns every raw lone
/// surrogate (data inside a JSON string) into U+FFFD, which would merge
/// distinct calls; so a text showing U+FFFD is read again as UTF-16 and goes
/// through `arguments_text_from_utf16`, which keeps them exact.
pub fn arguments_text(value: &Unknown) -> Result<String> {
    let (text, lossy) = read_js_string(value)?;
    if !lossy {
        return Ok(text);
    }
    let units = unsafe { value.cast::<Utf16String>() }?;
    Ok(toolguard_core::canonical::arguments_text_from_utf16(&units))
}

pub fn arguments_json(env: &Env, exec: &Object) -> Result<String> {
    let value: Unknown = exec.get_named_property_unchecked("argumentsJson")?;
    let text = match value.get_type()? {
        ValueType::Undefined => None,
        ValueType::String => Some(arguments_text(&value)?),
        _ => {
            return Err(invalid(format!(
                "toolguard: exec.argumentsJson must be a string (got {})",
                type_name(&value)?
            )))
        }
    };
    let parsed: Unknown = exec.get_named_property_unchecked("arguments")?;
    let has_parsed = parsed.get_type()? != ValueType::Undefined;
    match (text, has_parsed) {
        (Some(text), false) => Ok(text),
        (None, true) => json_stringify(env, parsed, "exec.arguments"),
        (Some(_), true) => Err(invalid(
            "toolguard: give exec.arguments or exec.argumentsJson, not both",
        )),
        (None, false) => Err(invalid(
            "toolguard: exec.arguments or exec.argumentsJson is required",
        )),
    }
}

/// JavaScript's own `JSON.stringify`: the canonical form is defined by it.
pub fn json_stringify(env: &Env, value: Unknown, at: &str) -> Result<String> {
    let json: Object = env.get_global()?.get_named_property_unchecked("JSON")?;
    let stringify: Function<Unknown, Unknown> = json.get_named_property_unchecked("stringify")?;
    // `call` clears the pending exception (a cycle, a BigInt, a throwing
    // toJSON), so the error below replaces it instead of racing it.
    let text = stringify.call(value).map_err(|e| {
        invalid(format!(
            "toolguard: {at} is not JSON-serializable: {}",
            e.reason
        ))
    })?;
    match text.get_type()? {
        ValueType::String => unsafe { text.cast::<String>() },
        _ => Err(invalid(format!(
            "toolguard: {at} is not JSON-serializable (JSON.stringify returned undefined)"
        ))),
    }
}

pub struct ResultParts {
    pub is_error: bool,
    pub texts: Vec<String>,
    /// A text had lone surrogates (U+FFFD in `texts`); only found out when
    /// read with `check_lossy` (else `false`).
    pub lossy: bool,
    pub value_json: Option<String>,
}

/// Read a result's parts. `error_texts`: read the texts of an error result
/// too (the loop detectors compare them; the scan never reads them).
/// `for_verdict`: the texts may go into a verdict (the result is scanned), so
/// record their JS values in `sources` and find out whether they had lone
/// surrogates; a result read for the loop detectors' digest alone needs
/// neither (a pass over the text and an allocation, on every call).
pub fn read_result(
    env: &Env,
    result: &Unknown,
    scan_value: bool,
    error_texts: bool,
    for_verdict: bool,
    sources: &mut Vec<napi::sys::napi_value>,
) -> Result<ResultParts> {
    match result.get_type()? {
        ValueType::Undefined => {
            return Ok(ResultParts {
                is_error: false,
                texts: Vec::new(),
                lossy: false,
                value_json: None,
            })
        }
        // A string is a successful result with that one text (`{ text }`):
        // no property to read, where an object costs one N-API lookup each
        // (isError, text, content, its block, the block's type and text).
        ValueType::String => {
            let (text, lossy) = read_js_text(result, for_verdict)?;
            if for_verdict {
                sources.push(result.value().value);
            }
            return Ok(ResultParts {
                is_error: false,
                texts: vec![text],
                lossy,
                value_json: None,
            });
        }
        ValueType::Object if !result.is_array()? => {}
        _ => {
            return Err(invalid(format!(
                "toolguard: result must be an object or a string (got {})",
                type_name(result)?
            )))
        }
    }
    let result = expect_object(result, "result")?;
    let flag: Unknown = result.get_named_property_unchecked("isError")?;
    let is_error = match flag.get_type()? {
        ValueType::Undefined => false,
        ValueType::Boolean => unsafe { flag.cast::<bool>() }?,
        _ => {
            return Err(invalid(format!(
                "toolguard: result.isError must be a boolean (got {})",
                type_name(&flag)?
            )))
        }
    };
    let mut texts = Vec::new();
    let mut lossy = false;
    if is_error && !error_texts {
        // Error results are never scanned: the model already sees the failure.
        return Ok(ResultParts {
            is_error,
            texts,
            lossy: false,
            value_json: None,
        });
    }
    if let Some((text, source, replaced)) =
        text_property(&result, "text", for_verdict, || "result.text".to_owned())?
    {
        texts.push(text);
        if for_verdict {
            sources.push(source);
        }
        lossy |= replaced;
    }
    let content: Unknown = result.get_named_property_unchecked("content")?;
    match content.get_type()? {
        ValueType::Undefined => {}
        ValueType::Object if content.is_array()? => {
            let blocks = unsafe { content.cast::<Object>() }?;
            for_text_blocks(&blocks, |i, block| {
                if let Some((text, source, replaced)) =
                    text_property(&block, "text", for_verdict, || {
                        format!("result.content[{i}].text")
                    })?
                {
                    texts.push(text);
                    if for_verdict {
                        sources.push(source);
                    }
                    lossy |= replaced;
                }
                Ok(())
            })?;
        }
        _ => {
            return Err(invalid(format!(
                "toolguard: result.content must be an array (got {})",
                type_name(&content)?
            )))
        }
    }
    // A shell tool's output as the host gave it: its text is the core's
    // (`ShellResult`), made here in the same crossing as the call.
    let shell: Unknown = result.get_named_property_unchecked("shell")?;
    if shell.get_type()? != ValueType::Undefined {
        if let Some((text, source, replaced)) = shell_text(&shell, for_verdict)? {
            texts.push(text);
            if for_verdict {
                // A text the core put together has no one JS string to
                // stand for it: the verdict's error text is then built in Rust.
                sources.extend(source);
            }
            lossy |= replaced;
        }
    }
    // The value's JSON: scanned with `scanValue`; for the loop detectors
    // (`error_texts`) it stands in for the text of a result that has none
    // (an adapter's object output), so two different values never compare equal.
    let value_json = if (scan_value || (error_texts && texts.is_empty())) && !is_error {
        let value: Unknown = result.get_named_property_unchecked("value")?;
        match value.get_type()? {
            ValueType::Undefined => None,
            _ => Some(json_stringify(env, value, "result.value")?),
        }
    } else {
        None
    };
    Ok(ResultParts {
        is_error,
        texts,
        lossy,
        value_json,
    })
}

/// A shell result's text (the core's [`ShellResult::text`]) read from the JS
/// value: a string as is (and its JS value, so the verdict can quote it
/// exactly), an object by its `stdout`, `stderr`, `output`, `content` text
/// blocks and `exitCode`/`exit_code`; properties of other types are left
/// out, as the core leaves them out of JSON. `None`: no text.
pub fn shell_text(
    value: &Unknown,
    check_lossy: bool,
) -> Result<Option<(String, Option<napi::sys::napi_value>, bool)>> {
    match value.get_type()? {
        ValueType::String => {
            let (text, lossy) = read_js_text(value, check_lossy)?;
            return Ok(Some((text, Some(value.value().value), lossy)));
        }
        ValueType::Object if !value.is_array()? => {}
        _ => return Ok(None),
    }
    let object = unsafe { value.cast::<Object>() }?;
    let mut lossy = false;
    let mut read = |key: &str| -> Result<Option<(String, napi::sys::napi_value)>> {
        let value: Unknown = object.get_named_property_unchecked(key)?;
        if value.get_type()? != ValueType::String {
            return Ok(None);
        }
        let (text, replaced) = read_js_text(&value, check_lossy)?;
        lossy |= replaced;
        Ok(Some((text, value.value().value)))
    };
    let stdout = read("stdout")?;
    let stderr = read("stderr")?;
    let output = read("output")?;
    let mut content = None;
    let blocks: Unknown = object.get_named_property_unchecked("content")?;
    if blocks.is_array()? {
        let blocks = unsafe { blocks.cast::<Object>() }?;
        let mut texts = Vec::new();
        for_text_blocks(&blocks, |_, block| {
            let text: Unknown = block.get_named_property_unchecked("text")?;
            if text.get_type()? == ValueType::String {
                let (text, replaced) = read_js_text(&text, check_lossy)?;
                lossy |= replaced;
                texts.push(text);
            }
            Ok(())
        })?;
        content = Some(texts);
    }
    let number = |key: &str| -> Result<Option<f64>> {
        let value: Unknown = object.get_named_property_unchecked(key)?;
        Ok(match value.get_type()? {
            ValueType::Number => Some(unsafe { value.cast::<f64>() }?),
            _ => None,
        })
    };
    let exit_code = match number("exitCode")? {
        Some(code) => Some(code),
        None => number("exit_code")?,
    };
    let parts = ShellResult {
        stdout: stdout.as_ref().map(|(t, _)| t.as_str()),
        stderr: stderr.as_ref().map(|(t, _)| t.as_str()),
        output: output.as_ref().map(|(t, _)| t.as_str()),
        content: content
            .as_ref()
            .map(|texts| texts.iter().map(String::as_str).collect()),
        exit_code,
    };
    let Some(text) = parts.text() else {
        return Ok(None);
    };
    // The one string the text is, when the core added nothing to it.
    let source = [&stdout, &output]
        .into_iter()
        .flatten()
        .find(|(part, _)| *part == text)
        .map(|&(_, source)| source);
    Ok(Some((text, source, lossy)))
}

/// Run `f` on each `{type: "text"}` object of a content array, with its index.
fn for_text_blocks(blocks: &Object, mut f: impl FnMut(u32, Object) -> Result<()>) -> Result<()> {
    for i in 0..blocks.get_array_length_unchecked()? {
        let block: Unknown = blocks.get_element(i)?;
        if block.get_type()? != ValueType::Object {
            continue;
        }
        let block = unsafe { block.cast::<Object>() }?;
        let kind: Unknown = block.get_named_property_unchecked("type")?;
        // Read into a stack buffer: no allocation to compare four bytes.
        let mut buf = [0u8; SHORT_STRING];
        if kind.get_type()? == ValueType::String
            && read_js_str(&kind, "type", &mut buf)?.0 == "text"
        {
            f(i, block)?;
        }
    }
    Ok(())
}

/// From this length (UTF-16 units) on, a string crosses as UTF-16 and is
/// transcoded here: `napi_get_value_string_utf8` into a buffer of unknown
/// need must measure first, then write (two V8 passes, ~0.85 GB/s on
/// build-log text), while the UTF-16 copy plus the transcoder runs at
/// ~2.6-3.4 GB/s. Below it a string is written as UTF-8 in one pass into a
/// buffer of 3 bytes a unit ([`read_short_utf8`]): fewer instructions than
/// the UTF-16 copy and transcode (a 2 KB text: ~3k against ~5k), and a
/// buffer that stays small.
pub const UTF16_CROSSING_MIN: usize = 8192;

/// Strings whose UTF-8 form is shorter than this are read in one N-API call
/// into a stack buffer (tool names, agent ids, small argument texts).
pub const SHORT_STRING: usize = 512;

/// A JS string value as UTF-8, lone surrogates as U+FFFD, and whether the
/// text may have had lone surrogates (it holds U+FFFD). A value that is not
/// a string throws, naming `at`.
pub fn read_js_str<'b>(
    value: &Unknown,
    at: &str,
    buf: &'b mut [u8; SHORT_STRING],
) -> Result<(Cow<'b, str>, bool)> {
    // SAFETY: `buf` holds SHORT_STRING bytes.
    let (status, written) = unsafe { write_utf8(value, buf.as_mut_ptr(), SHORT_STRING) };
    if status == napi::sys::Status::napi_string_expected {
        return Err(invalid(format!(
            "toolguard: {at} must be a string (got {})",
            type_name(value)?
        )));
    }
    // A cut string fills the buffer to within one character (<= 4 bytes) of its end.
    if status == napi::sys::Status::napi_ok && written + 4 < SHORT_STRING {
        if let Ok(text) = std::str::from_utf8(&buf[..written]) {
            return Ok((Cow::Borrowed(text), has_replacement(text)));
        }
    }
    let (text, lossy) = read_js_string(value)?;
    Ok((Cow::Owned(text), lossy))
}

/// Write `value` as UTF-8 into the `capacity` bytes at `buf`: N-API writes
/// whole characters (lone surrogates as U+FFFD), then a NUL, at most
/// `capacity` bytes in all. The status and how many bytes of text it wrote.
///
/// # Safety
/// `buf` must be valid for writes of `capacity` bytes.
unsafe fn write_utf8(
    value: &Unknown,
    buf: *mut u8,
    capacity: usize,
) -> (napi::sys::napi_status, usize) {
    let raw = value.value();
    let mut written = 0usize;
    // SAFETY: the caller vouches for `buf`; N-API writes at most `capacity` bytes.
    let status = unsafe {
        napi::sys::napi_get_value_string_utf8(
            raw.env,
            raw.value,
            buf.cast(),
            capacity,
            &mut written,
        )
    };
    (status, written)
}

/// A string value's length in UTF-16 units (O(1) for V8); `None` for a
/// value that is not a string.
fn utf16_len(value: &Unknown) -> Option<usize> {
    let raw = value.value();
    let mut len = 0usize;
    // SAFETY: a null buffer asks only for the length.
    let status = unsafe {
        napi::sys::napi_get_value_string_utf16(
            raw.env,
            raw.value,
            std::ptr::null_mut(),
            0,
            &mut len,
        )
    };
    (status == napi::sys::Status::napi_ok).then_some(len)
}

/// [`read_js_str`] for a value known to be a string, without the short path.
pub fn read_js_string(value: &Unknown) -> Result<(String, bool)> {
    read_js_text(value, true)
}

/// [`read_js_string`]; without `check_lossy` a short text is not searched
/// for U+FFFD and `false` is returned (a long one's transcoder finds out for free).
fn read_js_text(value: &Unknown, check_lossy: bool) -> Result<(String, bool)> {
    let Some(len) = utf16_len(value) else {
        let text = unsafe { value.cast::<String>() }?;
        let lossy = has_replacement(&text);
        return Ok((text, lossy));
    };
    if len < UTF16_CROSSING_MIN {
        let text = read_short_utf8(value, len)?;
        let lossy = check_lossy && has_replacement(&text);
        return Ok((text, lossy));
    }
    let raw = value.value();
    let mut units: Vec<u16> = Vec::with_capacity(len + 1);
    let mut written = 0usize;
    // SAFETY: the buffer holds len + 1 units (N-API writes a terminating NUL).
    let status = unsafe {
        napi::sys::napi_get_value_string_utf16(
            raw.env,
            raw.value,
            units.as_mut_ptr(),
            len + 1,
            &mut written,
        )
    };
    if status != napi::sys::Status::napi_ok {
        return Err(Error::new(
            Status::GenericFailure,
            "toolguard: could not read a string",
        ));
    }
    // SAFETY: N-API initialised `written` (<= len) units.
    unsafe { units.set_len(written.min(len)) };
    Ok(utf16_to_string(&units))
}

/// Whether `text` holds U+FFFD (what a lone surrogate becomes). An ASCII
/// check (word at a time) rules most texts out at a fraction of the cost of
/// a `char` search (~1.7k instructions on a 2 KB text, as much as reading it).
fn has_replacement(text: &str) -> bool {
    !text.is_ascii() && text.contains('\u{FFFD}')
}

thread_local! {
    /// The buffer [`with_short_string`] writes into, reused from call to call.
    static SCRATCH: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Run `f` on a JS string value shorter than [`UTF16_CROSSING_MIN`] units,
/// written as UTF-8 into a buffer this thread reuses: for a text needed only
/// for the length of one Rust call (a result the loop detectors digest and
/// nothing keeps). Against [`read_result`] it saves a type check (the length
/// query answers `napi_string_expected` for a value that is not a string),
/// two allocations and the free of a buffer of three bytes a unit, on every
/// call. `None` (and `f` not run) when the value is not a string or is longer.
pub fn with_short_string<R>(value: &Unknown, f: impl FnOnce(&str) -> R) -> Result<Option<R>> {
    let Some(len) = utf16_len(value).filter(|&len| len < UTF16_CROSSING_MIN) else {
        return Ok(None);
    };
    // `f` runs no JavaScript, so the buffer cannot be in use meanwhile.
    let Ok(mut buf) = SCRATCH.try_with(|s| s.take()) else {
        return Ok(None);
    };
    let answer = f(write_short_utf8(value, len, &mut buf)?);
    // Its capacity stays below 3 * UTF16_CROSSING_MIN + 1 bytes (24 KB).
    let _ = SCRATCH.try_with(|s| s.replace(buf));
    Ok(Some(answer))
}

/// A string of `len` UTF-16 units (< [`UTF16_CROSSING_MIN`]) as UTF-8 in one
/// V8 pass: a unit takes at most 3 UTF-8 bytes, so a buffer of `3 * len + 1`
/// holds it all and the measuring pass napi-rs's `String` conversion makes
/// first is not needed. N-API writes valid UTF-8 (lone surrogates as
/// U+FFFD, whole characters only), which napi-rs's own conversion relies on too.
fn read_short_utf8(value: &Unknown, len: usize) -> Result<String> {
    let mut bytes = Vec::new();
    write_short_utf8(value, len, &mut bytes)?;
    // SAFETY: `write_short_utf8` leaves in `bytes` exactly the valid UTF-8
    // N-API wrote.
    Ok(unsafe { String::from_utf8_unchecked(bytes) })
}

/// Write a string of `len` UTF-16 units as UTF-8 into `bytes` (cleared
/// first, grown to `3 * len + 1`), in one V8 pass; the text written.
fn write_short_utf8<'b>(value: &Unknown, len: usize, bytes: &'b mut Vec<u8>) -> Result<&'b str> {
    let capacity = 3 * len + 1;
    bytes.clear();
    bytes.reserve(capacity);
    // SAFETY: the buffer holds `capacity` bytes.
    let (status, written) = unsafe { write_utf8(value, bytes.as_mut_ptr(), capacity) };
    if status != napi::sys::Status::napi_ok {
        return Err(Error::new(
            Status::GenericFailure,
            "toolguard: could not read a string",
        ));
    }
    // SAFETY: N-API initialised `written` (< capacity) bytes of valid UTF-8.
    unsafe {
        bytes.set_len(written.min(capacity - 1));
        Ok(std::str::from_utf8_unchecked(bytes))
    }
}

/// Write the canonical form of `JSON.stringify(value)` for a plain object
/// whose values are all strings, finite or non-finite numbers, booleans,
/// `null` or skipped by `JSON.stringify` (`undefined`, functions, symbols);
/// `false` (and `out` unspecified) for anything else. Keys must be ASCII and
/// not array indices, so byte order is the canonical (UTF-16) order. The
/// values are read here; the writing is the core's [`write_flat_object`].
pub fn flat_object_canonical(env: &Env, value: &Unknown, out: &mut String) -> Result<bool> {
    use napi::sys;
    if value.get_type()? != ValueType::Object || value.is_array()? {
        return Ok(false);
    }
    let object = unsafe { value.cast::<Object>() }?;
    // Only a plain object: an inherited `toJSON` (Date) or a class would
    // change what `JSON.stringify` prints.
    let object_prototype: Unknown = env
        .get_global()?
        .get_named_property_unchecked::<Object>("Object")?
        .get_named_property_unchecked("prototype")?;
    let prototype = object.get_prototype()?;
    let mut same = false;
    check_status!(unsafe {
        napi::sys::napi_strict_equals(
            prototype.value().env,
            prototype.value().value,
            object_prototype.value().value,
            &mut same,
        )
    })?;
    if !same {
        return Ok(false);
    }
    let raw = value.value();
    let mut names = std::ptr::null_mut();
    // Own enumerable string keys, as `JSON.stringify` lists them.
    check_status!(unsafe {
        sys::napi_get_all_property_names(
            raw.env,
            raw.value,
            sys::KeyCollectionMode::own_only,
            sys::KeyFilter::enumerable | sys::KeyFilter::skip_symbols,
            sys::KeyConversion::numbers_to_strings,
            &mut names,
        )
    })?;
    let names = unsafe { Object::from_napi_value(raw.env, names) }?;
    let mut members: Vec<(String, Unknown)> = Vec::new();
    let mut key_buf = [0u8; SHORT_STRING];
    for i in 0..names.get_array_length_unchecked()? {
        let key: Unknown = names.get_element(i)?;
        let (text, _) = read_js_str(&key, "key", &mut key_buf)?;
        let index_like = !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit());
        if !text.is_ascii() || index_like || text == "__proto__" || text == "toJSON" {
            return Ok(false);
        }
        let item: Unknown = object.get_property(key)?;
        match item.get_type()? {
            ValueType::Undefined | ValueType::Function | ValueType::Symbol => continue,
            ValueType::Null | ValueType::Boolean | ValueType::Number | ValueType::String => {}
            _ => return Ok(false),
        }
        members.push((text.into_owned(), item));
    }
    // Read every value first (strings own their text), then write.
    enum Read {
        Plain(FlatValue<'static>),
        Text(String),
        Units(Utf16String),
    }
    let mut values = Vec::with_capacity(members.len());
    for (_, item) in &members {
        values.push(match item.get_type()? {
            ValueType::Null => Read::Plain(FlatValue::Null),
            ValueType::Boolean => Read::Plain(FlatValue::Bool(unsafe { item.cast::<bool>() }?)),
            ValueType::Number => Read::Plain(FlatValue::Number(unsafe { item.cast::<f64>() }?)),
            _ => match read_js_string(item)? {
                // Lone surrogates (or a real U+FFFD): escape from the exact units.
                (_, true) => Read::Units(unsafe { item.cast::<Utf16String>() }?),
                (text, false) => Read::Text(text),
            },
        });
    }
    let mut flat: Vec<(&str, FlatValue)> = members
        .iter()
        .zip(&values)
        .map(|((key, _), value)| {
            let value = match value {
                Read::Plain(v) => *v,
                Read::Text(text) => FlatValue::Str(text),
                Read::Units(units) => FlatValue::Utf16(units),
            };
            (key.as_str(), value)
        })
        .collect();
    write_flat_object(&mut flat, out);
    Ok(true)
}
