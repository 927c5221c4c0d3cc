//! The saved state of a [`RefFmu`]: [`Core`] copied in place (no allocation once a slot
//! holds one), restored, and serialised as magic, slot count and little-endian f64 words.

use super::{Core, RefFmu, RefModel, MAX_N};
use crate::module::{ModuleError, ModuleState, StateSnapshot};
use alloc::vec;
use alloc::vec::Vec;

impl Clone for Core {
    fn clone(&self) -> Self {
        Core {
            values: self.values.clone(),
            ..*self
        }
    }

    /// Reuses `values`' storage (a derived `clone_from` would allocate a new vector), so
    /// saving into a slot that already holds a state allocates nothing.
    fn clone_from(&mut self, source: &Self) {
        self.values.clone_from(&source.values);
        *self = Core {
            values: core::mem::take(&mut self.values),
            ..*source
        };
    }
}

/// Serialised form: magic, slot count, then little-endian f64 words.
const MAGIC: &[u8; 4] = b"CSRF";
/// Scalars before the value slots.
const HEAD: usize = 7 + MAX_N;

impl Core {
    fn words(&self) -> Vec<f64> {
        let mut w = vec![
            self.time,
            self.start_time,
            self.stop_time.unwrap_or(f64::NAN),
            self.n_steps as f64,
            self.next_communication_point,
            self.next_event_time.unwrap_or(f64::NAN),
            f64::from(u8::from(self.terminate)),
        ];
        w.extend_from_slice(&self.prez);
        w.extend_from_slice(&self.values);
        w
    }

    fn from_words(w: &[f64]) -> Self {
        let opt = |v: f64| if v.is_nan() { None } else { Some(v) };
        let mut prez = [0.0; MAX_N];
        prez.copy_from_slice(&w[7..HEAD]);
        Core {
            time: w[0],
            start_time: w[1],
            stop_time: opt(w[2]),
            n_steps: w[3] as u64,
            next_communication_point: w[4],
            next_event_time: opt(w[5]),
            terminate: w[6] != 0.0,
            prez,
            values: w[HEAD..].to_vec(),
        }
    }
}

impl<M: RefModel> RefFmu<M> {
    /// The wrapper state inside `state`, if a Reference FMU with as many value slots saved
    /// it.
    fn saved<'a>(&self, state: &'a ModuleState) -> Result<&'a Core, ModuleError> {
        let core = state.downcast_ref::<Core>();
        core.filter(|c| c.values.len() == self.core.values.len())
            .ok_or_else(|| {
                ModuleError::invalid("the state was not saved by this Reference FMU model")
            })
    }
}

impl<M: RefModel> StateSnapshot for RefFmu<M> {
    fn get_state(&mut self) -> Result<ModuleState, ModuleError> {
        Ok(ModuleState::new(self.core.clone()))
    }

    fn save_state_into(&mut self, slot: &mut ModuleState) -> Result<(), ModuleError> {
        match slot.downcast_mut::<Core>() {
            Some(saved) => saved.clone_from(&self.core),
            None => *slot = ModuleState::new(self.core.clone()),
        }
        Ok(())
    }

    fn set_state(&mut self, state: &ModuleState) -> Result<(), ModuleError> {
        let core = self.saved(state)?;
        self.core.clone_from(core);
        Ok(())
    }

    fn serialize_state(&mut self, state: &ModuleState) -> Result<Vec<u8>, ModuleError> {
        let core = self.saved(state)?;
        let mut out = Vec::from(&MAGIC[..]);
        out.extend_from_slice(&(core.values.len() as u32).to_le_bytes());
        for w in core.words() {
            out.extend_from_slice(&w.to_le_bytes());
        }
        Ok(out)
    }

    fn deserialize_state(&mut self, bytes: &[u8]) -> Result<ModuleState, ModuleError> {
        let n = self.core.values.len();
        let bad = || ModuleError::invalid("serialized state is corrupt or from another model");
        if bytes.len() != 8 + 8 * (HEAD + n) || &bytes[..4] != MAGIC {
            return Err(bad());
        }
        if u32::from_le_bytes([bytes[4], bytes[5], bytes[6], bytes[7]]) as usize != n {
            return Err(bad());
        }
        let words: Vec<f64> = bytes[8..]
            .chunks_exact(8)
            .map(|c| f64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]))
            .collect();
        Ok(ModuleState::new(Core::from_words(&words)))
    }
}
