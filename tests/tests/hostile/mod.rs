//! Helpers of the hostile-input suite: a counting allocator (peak bytes held by the calling
//! thread while a closure runs) and preset documents to mutate.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

/// The system allocator, counting the bytes each thread holds and its peak.
struct Counting;

thread_local! {
    static HELD: Cell<isize> = const { Cell::new(0) };
    static PEAK: Cell<isize> = const { Cell::new(0) };
}

fn add(delta: isize) {
    // `try_with`: no counting while a thread's locals are being torn down.
    let _ = HELD.try_with(|h| {
        let now = h.get() + delta;
        h.set(now);
        let _ = PEAK.try_with(|p| p.set(p.get().max(now)));
    });
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            add(layout.size() as isize);
        }
        p
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) };
        add(-(layout.size() as isize));
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            add(new_size as isize - layout.size() as isize);
        }
        p
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// `f()` and the most bytes this thread held above its level at the start while it ran.
pub fn peak_bytes_during<T>(f: impl FnOnce() -> T) -> (T, usize) {
    let start = HELD.with(Cell::get);
    PEAK.with(|p| p.set(start));
    let out = f();
    let peak = PEAK.with(Cell::get) - start;
    (out, peak.max(0) as usize)
}

/// A built-in preset as a JSON value.
pub fn preset_json(id: &str) -> serde_json::Value {
    let s = cosim_core::scenario::preset(id).expect("a preset");
    serde_json::to_value(&s).expect("serialises")
}

/// `doc` changed by `f`.
pub fn with(doc: &serde_json::Value, f: impl FnOnce(&mut serde_json::Value)) -> serde_json::Value {
    let mut d = doc.clone();
    f(&mut d);
    d
}
