//! The positional fast path: free functions (~32 ns a call across N-API,
//! where a class method costs ~230 ns) that reach an engine by its
//! `callHandle`, for hot paths such as the DSH repeat plugin; and
//! `canonicalize`.

use std::borrow::Cow;
use std::cell::RefCell;
use std::rc::Rc;

use napi::bindgen_prelude::*;
use napi_derive::napi;
use toolguard_core::engine::{Call, Engine};

use crate::errors::{guarded, invalid, test_panic_point, PanicPoint};
use crate::js_input::{arguments_text, flat_object_canonical, read_js_str, SHORT_STRING};
use crate::verdict::ReminderVerdict;

/// Engines reachable from `observeCall` by number, on this thread (an env
/// lives on one thread). A number is never reused, so a stale handle throws
/// instead of reaching another engine; a collected engine's entry is removed
/// (`GuardEngine`'s `Drop`), so the registry holds only live engines. A
/// plain lookup costs a few nanoseconds where a class method (~230 ns) or an
/// `External` (~95 ns) cost far more on a call whose whole budget is about a
/// microsecond.
pub(crate) mod registry {
    use std::cell::{Cell, RefCell};
    use std::collections::HashMap;
    use std::hash::{BuildHasherDefault, Hasher};
    use std::rc::{Rc, Weak};

    use toolguard_core::engine::Engine;

    /// Handles are sequential: one multiply spreads them over the table.
    #[derive(Default)]
    pub struct HandleHasher(u64);

    impl Hasher for HandleHasher {
        fn finish(&self) -> u64 {
            self.0
        }
        fn write(&mut self, bytes: &[u8]) {
            for &b in bytes {
                self.0 = (self.0 << 8 | u64::from(b)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
            }
        }
        fn write_u32(&mut self, n: u32) {
            self.0 = u64::from(n).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
    }

    type Engines = HashMap<u32, Weak<RefCell<Engine>>, BuildHasherDefault<HandleHasher>>;

    thread_local! {
        static ENGINES: RefCell<Engines> = RefCell::new(Engines::default());
        static NEXT: Cell<u32> = const { Cell::new(0) };
    }

    pub fn register(engine: &Rc<RefCell<Engine>>) -> u32 {
        let handle = NEXT.with(|next| {
            let handle = next.get();
            // 2^32 engines on one thread: past that, handles would repeat.
            next.set(
                handle
                    .checked_add(1)
                    .expect("toolguard: engine handles exhausted"),
            );
            handle
        });
        ENGINES.with(|engines| engines.borrow_mut().insert(handle, Rc::downgrade(engine)));
        handle
    }

    pub fn unregister(handle: u32) {
        // `try_with`: at thread exit the table may already be gone.
        let _ = ENGINES.try_with(|engines| {
            let mut engines = engines.borrow_mut();
            engines.remove(&handle);
            // Give memory back after many engines came and went.
            if engines.capacity() > 64 && engines.len() < engines.capacity() / 4 {
                engines.shrink_to_fit();
            }
        });
    }

    pub fn get(handle: u32) -> Option<Rc<RefCell<Engine>>> {
        ENGINES.with(|engines| engines.borrow().get(&handle).and_then(Weak::upgrade))
    }

    #[cfg(test)]
    mod tests {
        use super::*;
        use toolguard_core::config::Config;

        #[test]
        fn handles_are_never_reused_and_dead_entries_are_freed() {
            let live = |n: usize| ENGINES.with(|e| e.borrow().len()) == n;
            let engine = || Rc::new(RefCell::new(Engine::new(&Config::default()).unwrap()));
            let keep = engine();
            let kept = register(&keep);
            let mut last = kept;
            for _ in 0..1000 {
                let gone = engine();
                let handle = register(&gone);
                assert!(handle > last);
                last = handle;
                drop(gone);
                unregister(handle);
                assert!(get(handle).is_none());
            }
            assert!(live(1));
            assert!(ENGINES.with(|e| e.borrow().capacity()) <= 64);
            assert!(get(kept).is_some());
        }
    }
}

/// The live engine behind a `callHandle`; a stale handle throws instead of
/// reaching another engine.
fn engine_for_handle(handle: u32) -> Result<Rc<RefCell<Engine>>> {
    registry::get(handle)
        .ok_or_else(|| invalid(format!("toolguard: no live engine has handle {handle}")))
}

/// The repeat half of `engine.observe({ agentId, name, argumentsJson })` with
/// positional arguments, for hot paths such as the DSH plugin: it skips the
/// class-method dispatch and the property reads, about half the cost of
/// `observe` for a small call. `handle` is the engine's `callHandle`. Advances
/// the agent's chain and returns the reminder due now, or `null`. No result
/// is scanned (use `observe` for that). Throws when the engine is gone.
#[napi(
    catch_unwind,
    ts_args_type = "handle: number, agentId: string, name: string, argumentsJson: string"
)]
pub fn observe_call(
    handle: u32,
    agent_id: Unknown,
    name: Unknown,
    arguments_json: Unknown,
) -> Result<Option<ReminderVerdict>> {
    guarded(|| {
        let engine = engine_for_handle(handle)?;
        // Short strings are read straight into stack buffers: one N-API call
        // each instead of a length query, an allocation and a second call.
        let (mut agent_buf, mut name_buf, mut arguments_buf) = (
            [0u8; SHORT_STRING],
            [0u8; SHORT_STRING],
            [0u8; SHORT_STRING],
        );
        let agent_id = read_js_str(&agent_id, "agentId", &mut agent_buf)?.0;
        let name = read_js_str(&name, "name", &mut name_buf)?.0;
        let arguments_json =
            match read_js_str(&arguments_json, "argumentsJson", &mut arguments_buf)? {
                (text, false) => text,
                (_, true) => Cow::Owned(arguments_text(&arguments_json)?),
            };
        let call = Call {
            agent_id: Some(&agent_id),
            name: &name,
            arguments_json: &arguments_json,
        };
        test_panic_point(&name, PanicPoint::Observe);
        let reminder = engine.borrow_mut().advance(&call);
        Ok(reminder.map(Into::into))
    })
}

/// {@link observeCall} with the parsed arguments instead of their JSON text, for
/// a flat object holding long strings (a file write, an edit): the canonical
/// text is written here from the values, which skips `JSON.stringify` in
/// JavaScript (most of the cost of a 64 KB call). It is exactly the canonical
/// form of `JSON.stringify(argumentsValue)`. Returns `false`, having done
/// nothing, for anything else (nested values, non-ASCII or array-index keys,
/// `__proto__`/`toJSON` keys, a non-plain object, BigInt): then call
/// `observeCall` with the JSON text.
#[napi(
    catch_unwind,
    ts_args_type = "handle: number, agentId: string, name: string, argumentsValue: unknown",
    ts_return_type = "ReminderVerdict | null | false"
)]
pub fn observe_call_value(
    env: Env,
    handle: u32,
    agent_id: Unknown,
    name: Unknown,
    arguments_value: Unknown,
) -> Result<Either<bool, Option<ReminderVerdict>>> {
    guarded(|| {
        let engine = engine_for_handle(handle)?;
        let (mut agent_buf, mut name_buf) = ([0u8; SHORT_STRING], [0u8; SHORT_STRING]);
        let agent_id = read_js_str(&agent_id, "agentId", &mut agent_buf)?.0;
        let name = read_js_str(&name, "name", &mut name_buf)?.0;
        let mut canonical = String::new();
        if !flat_object_canonical(&env, &arguments_value, &mut canonical)? {
            return Ok(Either::A(false));
        }
        let call = Call {
            agent_id: Some(&agent_id),
            name: &name,
            arguments_json: &canonical,
        };
        test_panic_point(&name, PanicPoint::Observe);
        // Written canonical from the values: the chain need not canonicalise it again.
        let reminder = engine.borrow_mut().advance_canonical(&call);
        Ok(Either::B(reminder.map(Into::into)))
    })
}

/// The canonical form of a call's arguments, exactly as the official plugin
/// computes it from the raw argument text (`JSON.stringify(sortJsonValue(parseArguments(text)))`).
///
/// Read as UTF-16: a JavaScript string may hold lone surrogates, which a
/// UTF-8 conversion would turn into U+FFFD (and so into another call).
#[napi(catch_unwind, ts_args_type = "argumentsJson: string")]
pub fn canonicalize(arguments_json: Utf16String) -> String {
    let mut out = String::with_capacity(arguments_json.len());
    toolguard_core::canonical::canonicalize_arguments_utf16(&arguments_json, &mut out);
    out
}
