//! A binary module's linear memory seen through its `ArrayBuffer`: the core's
//! `GuestMemory` for the WASI imports, and the reads and writes of the FMI calls. A view
//! is made per access, since a `memory.grow` detaches the previous buffer.

use cosim_core::fmu::GuestMemory;
use js_sys::{ArrayBuffer, Uint8Array, WebAssembly};
use wasm_bindgen::JsCast;

/// The memory as it is now.
pub(super) struct Guest {
    buffer: ArrayBuffer,
}

impl Guest {
    pub fn new(memory: &WebAssembly::Memory) -> Self {
        Guest {
            buffer: memory.buffer().unchecked_into(),
        }
    }

    pub fn len(&self) -> usize {
        self.buffer.byte_length() as usize
    }

    /// `ptr..ptr + n` if it lies inside the memory.
    fn range(&self, ptr: u32, n: usize) -> Option<u32> {
        let end = (ptr as usize).checked_add(n)?;
        (end <= self.len()).then_some(n as u32)
    }

    pub fn read_into(&self, ptr: u32, out: &mut [u8]) -> bool {
        let Some(n) = self.range(ptr, out.len()) else {
            return false;
        };
        if n > 0 {
            Uint8Array::new_with_byte_offset_and_length(&self.buffer, ptr, n).copy_to(out);
        }
        true
    }

    pub fn write_from(&self, ptr: u32, bytes: &[u8]) -> bool {
        let Some(n) = self.range(ptr, bytes.len()) else {
            return false;
        };
        if n > 0 {
            Uint8Array::new_with_byte_offset_and_length(&self.buffer, ptr, n).copy_from(bytes);
        }
        true
    }
}

impl GuestMemory for Guest {
    fn size(&self) -> usize {
        self.len()
    }

    fn read(&self, ptr: u32, out: &mut [u8]) -> bool {
        self.read_into(ptr, out)
    }

    fn write(&mut self, ptr: u32, bytes: &[u8]) -> bool {
        self.write_from(ptr, bytes)
    }
}

/// No memory (an import called before the instance exported one): every access faults.
pub(super) struct NoMemory;

impl GuestMemory for NoMemory {
    fn size(&self) -> usize {
        0
    }

    fn read(&self, _ptr: u32, out: &mut [u8]) -> bool {
        out.is_empty()
    }

    fn write(&mut self, _ptr: u32, bytes: &[u8]) -> bool {
        bytes.is_empty()
    }
}
