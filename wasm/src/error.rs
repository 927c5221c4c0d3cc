//! Errors crossing into JS: core errors become `JsError`s with their `Display` text (which
//! names the scenario field path), and a panic hook keeps the message of a panic so the
//! worker can post it instead of an opaque `RuntimeError: unreachable`.

use std::fmt::Display;
use std::sync::Mutex;
use wasm_bindgen::prelude::*;

/// Message of the last panic, kept for [`take_panic_message`]. With `panic = "abort"` a
/// panic traps right after the hook, so this is the only way its text reaches JS.
static LAST_PANIC: Mutex<Option<String>> = Mutex::new(None);

/// Any core error as a JS `Error` with the same text.
pub(crate) fn to_js(e: impl Display) -> JsError {
    JsError::new(&e.to_string())
}

/// Installs the panic hook once, when the module is instantiated.
#[wasm_bindgen(start)]
pub fn install_panic_hook() {
    std::panic::set_hook(Box::new(|info| {
        if let Ok(mut slot) = LAST_PANIC.lock() {
            *slot = Some(format!("internal error (please report): {info}"));
        }
    }));
}

/// The message of a panic since the last call, if any. After a panic the wasm instance
/// must not be used for anything else: the worker posts this and the page replaces it.
#[wasm_bindgen(js_name = takePanicMessage)]
pub fn take_panic_message() -> Option<String> {
    LAST_PANIC.lock().ok().and_then(|mut slot| slot.take())
}
