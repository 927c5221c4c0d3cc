//! The optional FMI 3.0 capabilities of a [`BinaryModule`], each implemented only when
//! `modelDescription.xml` declares it (the accessors in `binary_module.rs` return `None`
//! otherwise): FMU state get/set/serialise, directional derivatives, output derivatives
//! and Event Mode.

use super::binary_module::{f64_bytes, layout, to_i32, vr_bytes, SavedState};
use super::sandbox::WasmValue;
use super::BinaryModule;
use crate::module::{
    Derivatives, DirectionalDerivatives, DiscreteStatesUpdate, EventMode, JacobianProduct,
    ModuleError, ModuleState, OutputDerivatives, StateSnapshot,
};
use alloc::sync::Arc;
use alloc::vec::Vec;
use core::sync::atomic::{AtomicI32, Ordering};

/// The export an optional capability needs, or `Unsupported(flag)` if the module lacks it.
fn need<F: Copy>(exports: &Option<F>, flag: &'static str) -> Result<F, ModuleError> {
    exports.ok_or(ModuleError::unsupported(flag))
}

impl BinaryModule {
    /// Frees the handles of states dropped since the last call. (A state dropped while
    /// this runs on another thread is freed next time: the count only falls.)
    pub(super) fn free_released(&mut self) -> Result<(), ModuleError> {
        let Some((_, _, free)) = self.fmi.state else {
            return Ok(());
        };
        while let Some(k) = self.states.iter().position(|h| Arc::strong_count(h) == 1) {
            let handle = self.states.swap_remove(k).load(Ordering::Relaxed);
            let inst = self.instance()?;
            let p = self.rt.scratch(8)?;
            self.rt.write(p, &handle.to_le_bytes())?;
            let code =
                self.rt
                    .call_i32("fmi3FreeFMUState", free, &[inst.into(), (p as i32).into()])?;
            self.check("fmi3FreeFMUState", code)?;
        }
        Ok(())
    }

    /// `fmi3GetFMUState` into the state `existing` (0, NULL: the FMU allocates a new one);
    /// the handle it returns, which may differ from `existing`.
    fn get_fmu_state(&mut self, existing: i32) -> Result<i32, ModuleError> {
        self.free_released()?;
        let inst = self.instance()?;
        let (get, _, _) = need(&self.fmi.state, "canGetAndSetFMUState")?;
        let p = self.rt.scratch(8)?;
        self.rt.write(p, &existing.to_le_bytes())?;
        let code = self
            .rt
            .call_i32("fmi3GetFMUState", get, &[inst.into(), (p as i32).into()])?;
        self.check("fmi3GetFMUState", code)?;
        Ok(self.read_u32(p)? as i32)
    }

    /// A new state holding `handle`, listed so that its handle is freed once it is dropped.
    fn track(&mut self, handle: i32) -> ModuleState {
        let shared = Arc::new(AtomicI32::new(handle));
        self.states.push(shared.clone());
        ModuleState::new(SavedState(shared))
    }

    /// `state` if this instance saved it (a handle means nothing to another instance).
    fn own<'a>(&self, state: &'a ModuleState) -> Option<&'a SavedState> {
        let saved = state.downcast_ref::<SavedState>()?;
        self.states
            .iter()
            .any(|h| Arc::ptr_eq(h, &saved.0))
            .then_some(saved)
    }

    fn own_handle(&self, state: &ModuleState) -> Result<i32, ModuleError> {
        self.own(state).map(SavedState::handle).ok_or_else(|| {
            ModuleError::invalid("the FMU state was saved by another module instance")
        })
    }
}

impl StateSnapshot for BinaryModule {
    fn get_state(&mut self) -> Result<ModuleState, ModuleError> {
        let handle = self.get_fmu_state(0)?;
        Ok(self.track(handle))
    }

    /// Overwrites the FMU's own copy when `slot` holds a state of this instance.
    fn save_state_into(&mut self, slot: &mut ModuleState) -> Result<(), ModuleError> {
        let Some(saved) = self.own(slot) else {
            *slot = self.get_state()?;
            return Ok(());
        };
        let handle = self.get_fmu_state(saved.handle())?;
        saved.0.store(handle, Ordering::Relaxed);
        Ok(())
    }

    fn set_state(&mut self, state: &ModuleState) -> Result<(), ModuleError> {
        let inst = self.instance()?;
        let (_, set, _) = need(&self.fmi.state, "canGetAndSetFMUState")?;
        let handle = self.own_handle(state)?;
        let code = self
            .rt
            .call_i32("fmi3SetFMUState", set, &[inst.into(), handle.into()])?;
        self.check("fmi3SetFMUState", code)?;
        self.read_text_outputs()
    }

    fn serialize_state(&mut self, state: &ModuleState) -> Result<Vec<u8>, ModuleError> {
        let inst = self.instance()?;
        let (size_of, serialize, _) = need(&self.fmi.serialize, "canSerializeFMUState")?;
        let handle = self.own_handle(state)?;
        let p = self.rt.scratch(8)?;
        self.rt.write(p, &0u32.to_le_bytes())?;
        let args = [inst, handle, p as i32].map(WasmValue::I32);
        let code = self
            .rt
            .call_i32("fmi3SerializedFMUStateSize", size_of, &args)?;
        self.check("fmi3SerializedFMUStateSize", code)?;
        let size = self.read_u32(p)? as usize;
        let p = self.rt.scratch(size)?;
        let args = [inst, handle, p as i32, to_i32(size)?].map(WasmValue::I32);
        let code = self
            .rt
            .call_i32("fmi3SerializeFMUState", serialize, &args)?;
        self.check("fmi3SerializeFMUState", code)?;
        let mut bytes = alloc::vec![0u8; size];
        self.rt.read(p, &mut bytes)?;
        Ok(bytes)
    }

    fn deserialize_state(&mut self, bytes: &[u8]) -> Result<ModuleState, ModuleError> {
        let inst = self.instance()?;
        let (_, _, deserialize) = need(&self.fmi.serialize, "canSerializeFMUState")?;
        let p = self.rt.scratch(8 + bytes.len())?;
        self.rt.write(p, &0i32.to_le_bytes())?;
        self.rt.write(p + 8, bytes)?;
        let args = [inst, (p + 8) as i32, to_i32(bytes.len())?, p as i32].map(WasmValue::I32);
        let code = self
            .rt
            .call_i32("fmi3DeserializeFMUState", deserialize, &args)?;
        self.check("fmi3DeserializeFMUState", code)?;
        let handle = self.read_u32(p)? as i32;
        Ok(self.track(handle))
    }
}

impl DirectionalDerivatives for BinaryModule {
    fn directional_derivative(&mut self, p: JacobianProduct<'_>) -> Result<(), ModuleError> {
        let (unknowns, knowns, seed) = (p.unknowns, p.knowns, p.seed);
        let inst = self.instance()?;
        let f = need(
            &self.fmi.directional_derivative,
            "providesDirectionalDerivatives",
        )?;
        let ([pu, pk, ps, px], len) = layout([
            4 * unknowns.len(),
            4 * knowns.len(),
            8 * seed.len(),
            8 * p.sensitivity.len(),
        ]);
        let base = self.rt.scratch(len)?;
        self.rt.write(base + pu, &vr_bytes(unknowns))?;
        self.rt.write(base + pk, &vr_bytes(knowns))?;
        self.rt.write(base + ps, &f64_bytes(seed))?;
        let args = [
            inst,
            (base + pu) as i32,
            to_i32(unknowns.len())?,
            (base + pk) as i32,
            to_i32(knowns.len())?,
            (base + ps) as i32,
            to_i32(seed.len())?,
            (base + px) as i32,
            to_i32(p.sensitivity.len())?,
        ]
        .map(WasmValue::I32);
        let code = self.rt.call_i32("fmi3GetDirectionalDerivative", f, &args)?;
        self.check("fmi3GetDirectionalDerivative", code)?;
        self.read_f64s(base + px, p.sensitivity)
    }
}

impl OutputDerivatives for BinaryModule {
    fn get_output_derivatives(
        &mut self,
        d: Derivatives<'_, &mut [f64]>,
    ) -> Result<(), ModuleError> {
        let (vrs, orders, values) = (d.vrs, d.orders, d.values);
        let inst = self.instance()?;
        let f = need(&self.fmi.output_derivatives, "maxOutputDerivativeOrder")?;
        let ([pv, po, px], len) = layout([4 * vrs.len(), 4 * orders.len(), 8 * values.len()]);
        let base = self.rt.scratch(len)?;
        self.rt.write(base + pv, &vr_bytes(vrs))?;
        let orders: Vec<u8> = orders.iter().flat_map(|o| o.to_le_bytes()).collect();
        self.rt.write(base + po, &orders)?;
        let args = [
            inst,
            (base + pv) as i32,
            to_i32(vrs.len())?,
            (base + po) as i32,
            (base + px) as i32,
            to_i32(values.len())?,
        ]
        .map(WasmValue::I32);
        let code = self.rt.call_i32("fmi3GetOutputDerivatives", f, &args)?;
        self.check("fmi3GetOutputDerivatives", code)?;
        self.read_f64s(base + px, values)
    }
}

impl EventMode for BinaryModule {
    fn enter_event_mode(&mut self) -> Result<(), ModuleError> {
        let (enter, _, _) = need(&self.fmi.event_mode, "hasEventMode")?;
        self.instance_call("fmi3EnterEventMode", enter)?;
        self.read_output_clocks()
    }

    fn update_discrete_states(&mut self) -> Result<DiscreteStatesUpdate, ModuleError> {
        let inst = self.instance()?;
        let (_, update, _) = need(&self.fmi.event_mode, "hasEventMode")?;
        // [0, 8): nextEventTime; 8..=12: the five flags in argument order.
        let p = self.rt.scratch(16)?;
        self.rt.write(p, &[0u8; 16])?;
        let b = |k: u32| (p + 8 + k) as i32;
        let args = [inst, b(0), b(1), b(2), b(3), b(4), p as i32].map(WasmValue::I32);
        let code = self
            .rt
            .call_i32("fmi3UpdateDiscreteStates", update, &args)?;
        self.check("fmi3UpdateDiscreteStates", code)?;
        let mut out = [0u8; 16];
        self.rt.read(p, &mut out)?;
        let mut next = [0.0];
        self.read_f64s(p, &mut next)?;
        Ok(DiscreteStatesUpdate {
            discrete_states_need_update: out[8] != 0,
            terminate_simulation: out[9] != 0,
            next_event_time: (out[12] != 0).then_some(next[0]),
        })
    }

    fn enter_step_mode(&mut self) -> Result<(), ModuleError> {
        let (_, _, enter) = need(&self.fmi.event_mode, "hasEventMode")?;
        self.read_event_intervals()?; // time-based clocks: asked at the end of Event Mode
        self.instance_call("fmi3EnterStepMode", enter)?;
        self.read_text_outputs()
    }
}
