//! Mass 1 of the two-mass oscillator (seed 000, docs/methods.md §11.1) as an FMI 3.0 co-simulation
//! module in Rust, compiled to `wasm32-unknown-unknown`:
//!
//! ```text
//! s1' = v1
//! v1' = (-c1 s1 - d1 v1 + Fk) / m1
//! ```
//!
//! integrated with classical RK4 micro-steps of at most `h_max`, the input `Fk` held over
//! each communication step. It declares and provides FMU state get/set/serialise,
//! directional derivatives (with respect to the states `s1`, `v1` and the input `Fk`) and
//! first output derivatives. `modelDescription.xml` beside this crate lists the value
//! references used below.
//!
//! The ABI (docs/modules.md): every `fmi3*` function is `#[no_mangle] extern "C"`, pointers
//! are wasm32 addresses, `malloc`/`free` are exported for the host, and `logMessage` is a
//! function-table index (the crate is linked with `--export-table --growable-table`).
#![allow(clippy::missing_safety_doc)]

use std::alloc::{alloc, dealloc, Layout};
use std::ffi::c_void;

type Status = i32;
const OK: Status = 0;
const ERROR: Status = 3;
type LogMessage =
    extern "C" fn(env: *mut c_void, status: Status, category: *const u8, message: *const u8);

pub mod state;

use state::{State, DER_S1, DER_V1, FK, S1, START, STATE_BYTES, V1};

struct Instance {
    state: State,
    log: Option<LogMessage>,
    env: *mut c_void,
}

impl Instance {
    fn error(&self, message: &'static [u8]) -> Status {
        if let Some(log) = self.log {
            log(
                self.env,
                ERROR,
                b"logStatusError\0".as_ptr(),
                message.as_ptr(),
            );
        }
        ERROR
    }
}

unsafe fn inst<'a>(p: *mut c_void) -> &'a mut Instance {
    &mut *(p as *mut Instance)
}

unsafe fn slice<'a, T>(p: *const T, n: usize) -> &'a [T] {
    if n == 0 {
        &[]
    } else {
        std::slice::from_raw_parts(p, n)
    }
}

unsafe fn slice_mut<'a, T>(p: *mut T, n: usize) -> &'a mut [T] {
    if n == 0 {
        &mut []
    } else {
        std::slice::from_raw_parts_mut(p, n)
    }
}

// ---- memory for the host: an 8-byte size header before each block ----

#[no_mangle]
pub unsafe extern "C" fn malloc(n: usize) -> *mut u8 {
    let Ok(layout) = Layout::from_size_align(n + 8, 8) else {
        return std::ptr::null_mut();
    };
    let p = alloc(layout);
    if p.is_null() {
        return p;
    }
    (p as *mut usize).write(n);
    p.add(8)
}

#[no_mangle]
pub unsafe extern "C" fn free(p: *mut u8) {
    if p.is_null() {
        return;
    }
    let base = p.sub(8);
    let n = (base as *const usize).read();
    dealloc(base, Layout::from_size_align_unchecked(n + 8, 8));
}

// ---- FMI 3.0 co-simulation ----

#[no_mangle]
pub unsafe extern "C" fn fmi3GetVersion() -> *const u8 {
    b"3.0\0".as_ptr()
}

#[no_mangle]
pub unsafe extern "C" fn fmi3InstantiateCoSimulation(
    _instance_name: *const u8,
    _token: *const u8,
    _resource_path: *const u8,
    _visible: bool,
    _logging_on: bool,
    _event_mode_used: bool,
    _early_return_allowed: bool,
    _required_intermediate: *const u32,
    _n_required: usize,
    env: *mut c_void,
    log: Option<LogMessage>,
    _intermediate_update: *mut c_void,
) -> *mut c_void {
    Box::into_raw(Box::new(Instance {
        state: START,
        log,
        env,
    })) as *mut c_void
}

#[no_mangle]
pub unsafe extern "C" fn fmi3FreeInstance(instance: *mut c_void) {
    if !instance.is_null() {
        drop(Box::from_raw(instance as *mut Instance));
    }
}

#[no_mangle]
pub unsafe extern "C" fn fmi3EnterInitializationMode(
    instance: *mut c_void,
    _tolerance_defined: bool,
    _tolerance: f64,
    start_time: f64,
    _stop_time_defined: bool,
    _stop_time: f64,
) -> Status {
    let i = inst(instance);
    i.state.time = start_time;
    if !(i.state.m1 > 0.0) {
        return i.error(b"m1 must be positive\0");
    }
    if !(i.state.h_max > 0.0) {
        return i.error(b"h_max must be positive\0");
    }
    OK
}

#[no_mangle]
pub unsafe extern "C" fn fmi3ExitInitializationMode(_instance: *mut c_void) -> Status {
    OK
}

#[no_mangle]
pub unsafe extern "C" fn fmi3SetFloat64(
    instance: *mut c_void,
    vrs: *const u32,
    n: usize,
    values: *const f64,
    n_values: usize,
) -> Status {
    let i = inst(instance);
    if n != n_values {
        return i.error(b"fmi3SetFloat64: nValues differs from nValueReferences\0");
    }
    for (&vr, &x) in slice(vrs, n).iter().zip(slice(values, n)) {
        match i.state.slot(vr) {
            Some(slot) => *slot = x,
            None => return i.error(b"fmi3SetFloat64: unknown or read-only value reference\0"),
        }
    }
    OK
}

#[no_mangle]
pub unsafe extern "C" fn fmi3GetFloat64(
    instance: *mut c_void,
    vrs: *const u32,
    n: usize,
    values: *mut f64,
    n_values: usize,
) -> Status {
    let i = inst(instance);
    if n != n_values {
        return i.error(b"fmi3GetFloat64: nValues differs from nValueReferences\0");
    }
    for (&vr, out) in slice(vrs, n).iter().zip(slice_mut(values, n)) {
        match i.state.get(vr) {
            Some(x) => *out = x,
            None => return i.error(b"fmi3GetFloat64: unknown value reference\0"),
        }
    }
    OK
}

#[no_mangle]
pub unsafe extern "C" fn fmi3DoStep(
    instance: *mut c_void,
    t: f64,
    h: f64,
    _no_set_prior: bool,
    event_handling_needed: *mut bool,
    terminate_simulation: *mut bool,
    early_return: *mut bool,
    last_successful_time: *mut f64,
) -> Status {
    let i = inst(instance);
    if !(h > 0.0) {
        return i.error(b"fmi3DoStep: communicationStepSize must be positive\0");
    }
    // The smallest whole number of micro-steps not longer than h_max.
    let n = (h / i.state.h_max).ceil().max(1.0) as u64;
    let dt = h / n as f64;
    for _ in 0..n {
        i.state.rk4(dt);
    }
    if !(i.state.s1.is_finite() && i.state.v1.is_finite()) {
        return i.error(b"fmi3DoStep: the state is no longer finite\0");
    }
    i.state.time = t + h;
    *event_handling_needed = false;
    *terminate_simulation = false;
    *early_return = false;
    *last_successful_time = t + h;
    OK
}

#[no_mangle]
pub unsafe extern "C" fn fmi3Terminate(_instance: *mut c_void) -> Status {
    OK
}

#[no_mangle]
pub unsafe extern "C" fn fmi3Reset(instance: *mut c_void) -> Status {
    inst(instance).state = START;
    OK
}

#[no_mangle]
pub unsafe extern "C" fn fmi3GetOutputDerivatives(
    instance: *mut c_void,
    vrs: *const u32,
    n: usize,
    orders: *const i32,
    values: *mut f64,
    n_values: usize,
) -> Status {
    let i = inst(instance);
    if n != n_values {
        return i.error(b"fmi3GetOutputDerivatives: nValues differs from nValueReferences\0");
    }
    let s = i.state;
    for ((&vr, &order), out) in slice(vrs, n)
        .iter()
        .zip(slice(orders, n))
        .zip(slice_mut(values, n))
    {
        *out = match (vr, order) {
            (S1, 1) => s.v1,
            (V1, 1) => s.accel(s.s1, s.v1),
            _ => return i.error(b"fmi3GetOutputDerivatives: only order 1 of s1 and v1\0"),
        };
    }
    OK
}

/// Partial derivative of `unknown` with respect to `known`: outputs are the states
/// themselves, `der(s1) = v1`, `der(v1) = (-c1 s1 - d1 v1 + Fk)/m1`.
fn partial(s: &State, unknown: u32, known: u32) -> Option<f64> {
    Some(match (unknown, known) {
        (S1, S1) | (V1, V1) | (DER_S1, V1) => 1.0,
        (S1 | V1 | DER_S1, S1 | V1 | FK) => 0.0,
        (DER_V1, S1) => -s.c1 / s.m1,
        (DER_V1, V1) => -s.d1 / s.m1,
        (DER_V1, FK) => 1.0 / s.m1,
        _ => return None,
    })
}

#[no_mangle]
pub unsafe extern "C" fn fmi3GetDirectionalDerivative(
    instance: *mut c_void,
    unknowns: *const u32,
    n_unknowns: usize,
    knowns: *const u32,
    n_knowns: usize,
    seed: *const f64,
    n_seed: usize,
    sensitivity: *mut f64,
    n_sensitivity: usize,
) -> Status {
    let i = inst(instance);
    if n_seed != n_knowns || n_sensitivity != n_unknowns {
        return i.error(b"fmi3GetDirectionalDerivative: seed/sensitivity sizes\0");
    }
    let (knowns, seed) = (slice(knowns, n_knowns), slice(seed, n_seed));
    for (&u, out) in slice(unknowns, n_unknowns)
        .iter()
        .zip(slice_mut(sensitivity, n_sensitivity))
    {
        let mut sum = 0.0;
        for (&k, &v) in knowns.iter().zip(seed) {
            match partial(&i.state, u, k) {
                Some(d) => sum += d * v,
                None => return i.error(b"fmi3GetDirectionalDerivative: unknown value reference\0"),
            }
        }
        *out = sum;
    }
    OK
}

#[no_mangle]
pub unsafe extern "C" fn fmi3GetFMUState(instance: *mut c_void, state: *mut *mut State) -> Status {
    let s = inst(instance).state;
    if (*state).is_null() {
        *state = Box::into_raw(Box::new(s));
    } else {
        **state = s;
    }
    OK
}

#[no_mangle]
pub unsafe extern "C" fn fmi3SetFMUState(instance: *mut c_void, state: *const State) -> Status {
    let i = inst(instance);
    if state.is_null() {
        return i.error(b"fmi3SetFMUState: NULL state\0");
    }
    i.state = *state;
    OK
}

#[no_mangle]
pub unsafe extern "C" fn fmi3FreeFMUState(
    _instance: *mut c_void,
    state: *mut *mut State,
) -> Status {
    if !(*state).is_null() {
        drop(Box::from_raw(*state));
        *state = std::ptr::null_mut();
    }
    OK
}

#[no_mangle]
pub unsafe extern "C" fn fmi3SerializedFMUStateSize(
    _instance: *mut c_void,
    _state: *const State,
    size: *mut usize,
) -> Status {
    *size = STATE_BYTES;
    OK
}

#[no_mangle]
pub unsafe extern "C" fn fmi3SerializeFMUState(
    instance: *mut c_void,
    state: *const State,
    bytes: *mut u8,
    size: usize,
) -> Status {
    if size != STATE_BYTES || state.is_null() {
        return inst(instance).error(b"fmi3SerializeFMUState: wrong size\0");
    }
    slice_mut(bytes, size).copy_from_slice(&(*state).to_bytes());
    OK
}

#[no_mangle]
pub unsafe extern "C" fn fmi3DeserializeFMUState(
    instance: *mut c_void,
    bytes: *const u8,
    size: usize,
    state: *mut *mut State,
) -> Status {
    if size != STATE_BYTES {
        return inst(instance).error(b"fmi3DeserializeFMUState: wrong size\0");
    }
    let s = State::from_bytes(slice(bytes, size));
    if (*state).is_null() {
        *state = Box::into_raw(Box::new(s));
    } else {
        **state = s;
    }
    OK
}
