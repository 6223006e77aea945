//! Verdicts as JavaScript values: the `GuardVerdict` shapes (for
//! index.d.ts and napi-rs's conversion), and the fast construction of a
//! failure verdict through builder functions compiled once per env.

use napi::bindgen_prelude::*;
use napi::{JsValue, ValueType};
use napi_derive::napi;
use toolguard_core::chain::Reminder;
use toolguard_core::engine::Verdict;
use toolguard_core::loops::{LoopAlarm, LoopDeny};

#[napi(object)]
pub struct ReminderVerdict {
    pub tool: String,
    pub count: f64,
    /// Exactly the official reminder text.
    #[napi(ts_type = "string")]
    pub text: Utf16String,
    /// `<tool> × <count>`.
    pub summary: String,
}

#[napi(object)]
pub struct RuleHit {
    pub id: String,
    pub message: String,
    /// 1-based line of the first match in the scanned text.
    pub line: u32,
    /// The matching line, trimmed (at most 200 characters, then `…`).
    pub excerpt: String,
}

#[napi(object)]
pub struct FailureVerdict {
    #[napi(ts_type = "'error' | 'context'")]
    pub action: String,
    pub summary: String,
    /// `error`: header then the original output verbatim; `context`: the notice.
    pub text: String,
    pub rules: Vec<RuleHit>,
}

/// A loop detector's alarm (`loops` on): raised again at every call the loop goes on.
#[napi(object)]
pub struct LoopVerdict {
    #[napi(ts_type = "'repeat' | 'cycle' | 'same-error' | 're-read' | 'redo'")]
    pub kind: String,
    /// The tool of this call.
    pub tool: String,
    /// Calls in the loop (a cycle: rounds begun).
    pub count: f64,
    /// Calls per round of a cycle; 1 otherwise.
    pub period: f64,
    /// The loop's latest calls by ordinal (1-based since the last user prompt), oldest first (at most 12).
    pub calls: Vec<f64>,
    /// The loop's first call (ordinal): where this episode began, the same on
    /// every alarm of one loop however long it runs.
    pub first: f64,
    /// The loop's latest call (ordinal): this one.
    pub last: f64,
    /// What repeated, in words.
    pub evidence: String,
    /// The reminder shown to the model.
    pub text: String,
    /// `<tool>: <kind label> × <count>` (`bash: same error × 3`).
    pub summary: String,
    /// Reminders this loop has had, this one included (it keeps growing
    /// for as long as the loop goes on).
    pub reminders: f64,
}

/// `check` refused the call: it would continue a loop already reminded `loops.deny` times.
#[napi(object)]
pub struct LoopDenyVerdict {
    #[napi(ts_type = "'repeat' | 'cycle' | 'same-error' | 're-read' | 'redo'")]
    pub kind: String,
    pub count: f64,
    pub reminders: f64,
    /// Shown to the model instead of the call's result.
    pub reason: String,
}

#[napi(object)]
pub struct GuardVerdict {
    pub reminder: Option<ReminderVerdict>,
    pub failure: Option<FailureVerdict>,
    #[napi(js_name = "loop")]
    pub loop_alarm: Option<LoopVerdict>,
}

impl From<LoopAlarm> for LoopVerdict {
    fn from(a: LoopAlarm) -> Self {
        LoopVerdict {
            kind: a.kind.as_str().to_owned(),
            tool: a.tool,
            count: a.count as f64,
            period: a.period as f64,
            calls: a.calls.into_iter().map(|c| c as f64).collect(),
            first: a.first as f64,
            last: a.last as f64,
            evidence: a.evidence,
            text: a.text,
            summary: a.summary,
            reminders: a.reminders as f64,
        }
    }
}

impl From<LoopDeny> for LoopDenyVerdict {
    fn from(d: LoopDeny) -> Self {
        LoopDenyVerdict {
            kind: d.kind.as_str().to_owned(),
            count: d.count as f64,
            reminders: d.reminders as f64,
            reason: d.reason,
        }
    }
}

impl From<Reminder> for ReminderVerdict {
    fn from(r: Reminder) -> Self {
        ReminderVerdict {
            tool: r.tool,
            count: r.count as f64,
            text: Utf16String::from(r.text),
            summary: r.summary,
        }
    }
}

impl From<Verdict> for GuardVerdict {
    fn from(verdict: Verdict) -> Self {
        GuardVerdict {
            reminder: verdict.reminder.map(Into::into),
            loop_alarm: verdict.loop_alarm.map(Into::into),
            failure: verdict.failure.map(|f| FailureVerdict {
                action: f.action.as_str().to_owned(),
                summary: f.summary,
                text: f.text,
                rules: f
                    .rules
                    .into_iter()
                    .map(|m| RuleHit {
                        id: m.id,
                        message: m.message,
                        line: u32::try_from(m.line).unwrap_or(u32::MAX),
                        excerpt: m.excerpt,
                    })
                    .collect(),
            }),
        }
    }
}

/// From this many bytes of original output on, an error verdict's text is
/// built in V8 (see `GuardEngine::observe`).
pub const VERDICT_CONCAT_MIN: usize = 4096;

/// A verdict already built as a JS value.
pub struct VerdictValue(pub napi::sys::napi_value);

impl ToNapiValue for VerdictValue {
    unsafe fn to_napi_value(_env: napi::sys::napi_env, val: Self) -> Result<napi::sys::napi_value> {
        Ok(val.0)
    }
}

impl TypeName for VerdictValue {
    fn type_name() -> &'static str {
        "GuardVerdict"
    }
    fn value_type() -> ValueType {
        ValueType::Object
    }
}

/// `verdict.failure.text = verdict.failure.text.concat(t1, "\n", t2, …)` for
/// the result's texts, with `String.prototype.concat` (V8 makes cons
/// strings: no copy).
pub(crate) fn concat_failure_text(
    env: &Env,
    verdict: napi::sys::napi_value,
    texts: &[napi::sys::napi_value],
) -> Result<()> {
    let verdict = unsafe { Object::from_napi_value(env.raw(), verdict) }?;
    let mut failure: Object = verdict.get_named_property_unchecked("failure")?;
    let head: Unknown = failure.get_named_property_unchecked("text")?;
    let concat: Unknown = env
        .get_global()?
        .get_named_property_unchecked::<Object>("String")?
        .get_named_property_unchecked::<Object>("prototype")?
        .get_named_property_unchecked("concat")?;
    let newline = env.create_string("\n")?.raw();
    let mut args = Vec::with_capacity(texts.len() * 2);
    for (i, &text) in texts.iter().enumerate() {
        if i > 0 {
            args.push(newline);
        }
        args.push(text);
    }
    let mut text = std::ptr::null_mut();
    check_status!(unsafe {
        napi::sys::napi_call_function(
            env.raw(),
            head.value().value,
            concat.value().value,
            args.len(),
            args.as_ptr(),
            &mut text,
        )
    })?;
    let text = unsafe { Unknown::from_raw_unchecked(env.raw(), text) };
    failure.set_named_property("text", text)
}

/// Per-env state of the binding, in napi-rs's instance data (one slot per
/// env, so a worker thread's env gets its own).
struct EnvState {
    /// `[failureShape, hitShape]`: JS functions that build a failure verdict
    /// and a rule hit. An object literal in a function compiled once has a
    /// fixed shape: one call instead of a property definition (and key
    /// internalization) per field, which made a 200-byte matching `observe`
    /// slower than the pure-TS engine.
    shapes: napi::sys::napi_ref,
}

const SHAPES_SOURCE: &str =
    "[(action, summary, text, rules) => ({ action, summary, text, rules }), \
(id, message, line, excerpt) => ({ id, message, line, excerpt })]";

/// The two builder functions of [`EnvState::shapes`] for `env`, compiled on
/// the env's first failure verdict.
fn shapes(env: &Env) -> Result<(napi::sys::napi_value, napi::sys::napi_value)> {
    use napi::sys;
    let raw = env.raw();
    let reference = match env.get_instance_data::<EnvState>()? {
        Some(state) => state.shapes,
        None => {
            let source = env.create_string(SHAPES_SOURCE)?.raw();
            let mut array = std::ptr::null_mut();
            check_status!(unsafe { sys::napi_run_script(raw, source, &mut array) })?;
            let mut reference = std::ptr::null_mut();
            check_status!(unsafe { sys::napi_create_reference(raw, array, 1, &mut reference) })?;
            // The env owns the reference; it goes with the env.
            env.set_instance_data(EnvState { shapes: reference }, (), |_| {})?;
            reference
        }
    };
    let mut array = std::ptr::null_mut();
    check_status!(unsafe { sys::napi_get_reference_value(raw, reference, &mut array) })?;
    let (mut failure, mut hit) = (std::ptr::null_mut(), std::ptr::null_mut());
    check_status!(unsafe { sys::napi_get_element(raw, array, 0, &mut failure) })?;
    check_status!(unsafe { sys::napi_get_element(raw, array, 1, &mut hit) })?;
    Ok((failure, hit))
}

/// Call `function` with `args` (this = undefined).
fn call_shape(
    env: &Env,
    function: napi::sys::napi_value,
    args: &[napi::sys::napi_value],
) -> Result<napi::sys::napi_value> {
    let raw = env.raw();
    let mut this = std::ptr::null_mut();
    check_status!(unsafe { napi::sys::napi_get_undefined(raw, &mut this) })?;
    let mut out = std::ptr::null_mut();
    check_status!(unsafe {
        napi::sys::napi_call_function(raw, this, function, args.len(), args.as_ptr(), &mut out)
    })?;
    Ok(out)
}

/// The verdict as a JS object: `{ reminder?, failure? }`, same shape as
/// `GuardVerdict`'s conversion.
pub(crate) fn verdict_value(env: &Env, verdict: GuardVerdict) -> Result<napi::sys::napi_value> {
    let raw = env.raw();
    let mut object = std::ptr::null_mut();
    check_status!(unsafe { napi::sys::napi_create_object(raw, &mut object) })?;
    let mut verdict_object = unsafe { Object::from_napi_value(raw, object) }?;
    if let Some(reminder) = verdict.reminder {
        verdict_object.set_named_property("reminder", reminder)?;
    }
    if let Some(alarm) = verdict.loop_alarm {
        verdict_object.set_named_property("loop", alarm)?;
    }
    if let Some(failure) = verdict.failure {
        let (failure_shape, hit_shape) = shapes(env)?;
        let mut rules = std::ptr::null_mut();
        check_status!(unsafe {
            napi::sys::napi_create_array_with_length(raw, failure.rules.len(), &mut rules)
        })?;
        for (i, hit) in failure.rules.into_iter().enumerate() {
            let args = unsafe {
                [
                    String::to_napi_value(raw, hit.id)?,
                    String::to_napi_value(raw, hit.message)?,
                    u32::to_napi_value(raw, hit.line)?,
                    String::to_napi_value(raw, hit.excerpt)?,
                ]
            };
            let hit = call_shape(env, hit_shape, &args)?;
            check_status!(unsafe { napi::sys::napi_set_element(raw, rules, i as u32, hit) })?;
        }
        let args = unsafe {
            [
                String::to_napi_value(raw, failure.action)?,
                String::to_napi_value(raw, failure.summary)?,
                String::to_napi_value(raw, failure.text)?,
                rules,
            ]
        };
        let failure = call_shape(env, failure_shape, &args)?;
        let failure = unsafe { Unknown::from_raw_unchecked(raw, failure) };
        verdict_object.set_named_property("failure", failure)?;
    }
    Ok(object)
}
