//! Per-instance values every built-in module keeps (time, states, polynomial inputs), the
//! FMI rules for setting them, and the saved state used for rollback and serialisation.

use super::layout::{Layout, VarKind};
use crate::module::{Derivatives, ModuleError, ModuleErrorKind, ModuleState, ValueRef};
use crate::solvers::TaylorInput;
use alloc::format;
use alloc::vec;
use alloc::vec::Vec;
use nalgebra::{DMatrix, DVector};

/// Highest input derivative order the built-in modules accept.
pub(crate) const INPUT_ORDER: usize = crate::solvers::MAX_INPUT_ORDER;

/// Time, states and inputs of one module instance.
#[derive(Clone, Debug)]
pub(crate) struct Instance {
    pub layout: Layout,
    /// Current states.
    pub x: DVector<f64>,
    /// Start values of the states (restored by `reset`).
    pub x0: DVector<f64>,
    /// Input value and derivatives for the next step, anchored at `t`.
    pub u: TaylorInput,
    /// Start values of the inputs.
    pub u_start: Vec<f64>,
    /// Current communication point in s.
    pub t: f64,
    /// Start time in s.
    pub t_start: f64,
    /// Scratch for input evaluation (length nu).
    pub u_scratch: Vec<f64>,
}

impl Instance {
    pub fn new(layout: Layout, x0: DVector<f64>, u_start: Vec<f64>) -> Self {
        let mut u = TaylorInput::zeros(layout.nu, INPUT_ORDER);
        for (i, v) in u_start.iter().enumerate() {
            u.set(i, 0, *v);
        }
        Instance {
            layout,
            x: x0.clone(),
            x0,
            u,
            u_start,
            t: 0.0,
            t_start: 0.0,
            u_scratch: vec![0.0; layout.nu],
        }
    }

    /// `fmi3Reset`.
    pub fn reset(&mut self) {
        self.x.copy_from(&self.x0);
        self.u = TaylorInput::zeros(self.layout.nu, INPUT_ORDER);
        for (i, v) in self.u_start.iter().enumerate() {
            self.u.set(i, 0, *v);
        }
        self.t = self.t_start;
    }

    /// Sets a state (before Step Mode; the wrapper forbids it later) or an input value.
    /// Returns false if `kind` is neither, so the module handles it.
    pub fn set(&mut self, kind: VarKind, vr: ValueRef, value: f64) -> Result<bool, ModuleError> {
        match kind {
            VarKind::State(_) | VarKind::Input(_) if !value.is_finite() => {
                Err(ModuleError::invalid(format!(
                    "value reference {}: value must be finite, got {value}",
                    vr.0
                )))
            }
            VarKind::State(i) => {
                self.x[i] = value;
                Ok(true)
            }
            VarKind::Input(i) => {
                self.u.set(i, 0, value);
                Ok(true)
            }
            VarKind::Derivative(_) | VarKind::Output(_) => {
                Err(ModuleError::error(ModuleErrorKind::NotSettable(vr)))
            }
            VarKind::Parameter(_) => Ok(false),
        }
    }

    /// `x-setInputDerivatives`: stores `u^(k)` for the next step.
    pub fn set_input_derivatives(
        &mut self,
        d: &Derivatives<'_, &[f64]>,
    ) -> Result<(), ModuleError> {
        for (vr, k, v) in d.iter() {
            let k = k as usize;
            if k == 0 || k > INPUT_ORDER {
                return Err(ModuleError::invalid(format!(
                    "input derivative order {k} outside 1..={INPUT_ORDER}"
                )));
            }
            if !v.is_finite() {
                return Err(ModuleError::invalid(format!(
                    "input derivative of value reference {} is not finite",
                    vr.0
                )));
            }
            match self.layout.classify(vr)? {
                VarKind::Input(i) => self.u.set(i, k, v),
                _ => {
                    return Err(ModuleError::invalid(format!(
                        "value reference {} is not an input",
                        vr.0
                    )))
                }
            }
        }
        Ok(())
    }

    /// After a completed step of length `h`: the input value becomes `ũ(t + h)`, the
    /// derivatives reset to zero (FMI 2 semantics), time advances.
    pub fn finish_step(&mut self, t: f64, h: f64) {
        self.u.advance(h);
        self.t = t + h;
    }

    /// Saves time, states, inputs, the parameters (`param(i)` for each) and `step_hint`
    /// into `slot`. A slot that already holds a built-in snapshot of this shape is
    /// overwritten in place, without allocating; any other slot gets a new snapshot.
    pub fn save_into(&self, slot: &mut ModuleState, param: impl Fn(usize) -> f64, step_hint: f64) {
        let (nx, np) = (self.layout.nx, self.layout.np);
        let fits = |s: &Snapshot| {
            s.x.len() == nx && s.params.len() == np && s.u.shape() == self.u.coeffs().shape()
        };
        match slot.downcast_mut::<Snapshot>().filter(|s| fits(s)) {
            Some(s) => {
                s.t = self.t;
                s.x.copy_from_slice(self.x.as_slice());
                s.u.copy_from(self.u.coeffs());
                for (i, p) in s.params.iter_mut().enumerate() {
                    *p = param(i);
                }
                s.step_hint = step_hint;
            }
            None => {
                *slot = ModuleState::new(Snapshot {
                    t: self.t,
                    x: self.x.as_slice().to_vec(),
                    u: self.u.coeffs().clone(),
                    params: (0..np).map(param).collect(),
                    step_hint,
                })
            }
        }
    }

    /// Restores time, states and inputs; returns the snapshot for the module's own part.
    pub fn restore<'a>(&mut self, state: &'a ModuleState) -> Result<&'a Snapshot, ModuleError> {
        let s = Snapshot::of(state)?;
        if s.x.len() != self.layout.nx || !self.u.assign(&s.u) {
            return Err(ModuleError::invalid(
                "the state was saved by a module of another shape",
            ));
        }
        self.t = s.t;
        self.x.copy_from_slice(&s.x);
        Ok(s)
    }

    /// Empty snapshot shape for deserialisation.
    pub fn shape(&self) -> (usize, usize, usize) {
        (self.layout.nx, self.layout.nu, self.u.order() + 1)
    }
}

/// A built-in module's saved state.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Snapshot {
    pub t: f64,
    pub x: Vec<f64>,
    pub u: DMatrix<f64>,
    pub params: Vec<f64>,
    pub step_hint: f64,
}

/// Serialised form: magic, version, four u32 sizes, then little-endian f64 values.
const MAGIC: &[u8; 4] = b"CSMS";
const VERSION: u32 = 1;

impl Snapshot {
    /// The snapshot inside `state`, if a built-in module saved it.
    pub fn of(state: &ModuleState) -> Result<&Snapshot, ModuleError> {
        state
            .downcast_ref::<Snapshot>()
            .ok_or_else(|| ModuleError::invalid("the state was not saved by a built-in module"))
    }

    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::new();
        out.extend_from_slice(MAGIC);
        for n in [
            VERSION,
            self.x.len() as u32,
            self.u.nrows() as u32,
            self.u.ncols() as u32,
            self.params.len() as u32,
        ] {
            out.extend_from_slice(&n.to_le_bytes());
        }
        let values = [self.t, self.step_hint]
            .into_iter()
            .chain(self.x.iter().copied());
        let values = values
            .chain(self.u.iter().copied())
            .chain(self.params.iter().copied());
        for v in values {
            out.extend_from_slice(&v.to_le_bytes());
        }
        out
    }

    /// Parses bytes written by [`Snapshot::to_bytes`] for a module of shape `(nx, nu, p+1)`
    /// with `np` parameters.
    pub fn from_bytes(
        bytes: &[u8],
        shape: (usize, usize, usize),
        np: usize,
    ) -> Result<Self, ModuleError> {
        let bad = || {
            ModuleError::invalid("serialized state is corrupt or from a module of another shape")
        };
        if bytes.len() < 24 || &bytes[..4] != MAGIC {
            return Err(bad());
        }
        let word = |i: usize| {
            u32::from_le_bytes([
                bytes[4 + 4 * i],
                bytes[5 + 4 * i],
                bytes[6 + 4 * i],
                bytes[7 + 4 * i],
            ])
        };
        let (nx, nu, cols) = shape;
        if word(0) != VERSION
            || word(1) as usize != nx
            || word(2) as usize != nu
            || word(3) as usize != cols
            || word(4) as usize != np
        {
            return Err(bad());
        }
        let count = 2 + nx + nu * cols + np;
        let body = &bytes[24..];
        if body.len() != 8 * count {
            return Err(bad());
        }
        let mut vals = body.chunks_exact(8).map(|c| {
            let mut b = [0u8; 8];
            b.copy_from_slice(c);
            f64::from_le_bytes(b)
        });
        let mut take = |n: usize| -> Vec<f64> { (&mut vals).take(n).collect() };
        let head = take(2);
        let x = take(nx);
        let u = DMatrix::from_column_slice(nu, cols, &take(nu * cols));
        let params = take(np);
        Ok(Snapshot {
            t: head[0],
            step_hint: head[1],
            x,
            u,
            params,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn snapshot_bytes_round_trip_and_reject_other_shapes() {
        let s = Snapshot {
            t: 0.25,
            x: vec![1.0, -2.5],
            u: DMatrix::from_column_slice(1, 2, &[3.0, 4.0]),
            params: vec![7.0],
            step_hint: 1e-3,
        };
        let b = s.to_bytes();
        assert_eq!(Snapshot::from_bytes(&b, (2, 1, 2), 1), Ok(s));
        assert!(Snapshot::from_bytes(&b, (3, 1, 2), 1).is_err());
        assert!(Snapshot::from_bytes(&b[..b.len() - 1], (2, 1, 2), 1).is_err());
    }

    fn instance(nx: usize, nu: usize, np: usize) -> Instance {
        let layout = Layout { np, nx, nu, ny: 0 };
        let x0 = DVector::from_fn(nx, |i, _| 1.0 + i as f64);
        Instance::new(layout, x0, vec![0.5; nu])
    }

    #[test]
    fn saving_into_a_slot_overwrites_a_snapshot_of_this_shape_and_replaces_any_other() {
        let mut small = instance(1, 1, 0);
        let mut slot = ModuleState::empty();
        small.save_into(&mut slot, |_| 0.0, 0.0);
        let mut big = instance(2, 1, 1);
        big.t = 0.5;
        big.u.set(0, 1, -3.0);
        big.save_into(&mut slot, |_| 7.0, 1e-3);
        let expected = Snapshot {
            t: 0.5,
            x: vec![1.0, 2.0],
            u: big.u.coeffs().clone(),
            params: vec![7.0],
            step_hint: 1e-3,
        };
        assert_eq!(
            Snapshot::of(&slot),
            Ok(&expected),
            "another shape is replaced"
        );
        let before = Snapshot::of(&slot).map(|s| s.x.as_ptr());
        big.x[1] = -4.0;
        big.t = 0.75;
        big.save_into(&mut slot, |_| 8.0, 2e-3);
        let s = Snapshot::of(&slot).expect("snapshot");
        assert_eq!(
            Ok(s.x.as_ptr()),
            before,
            "this shape is overwritten in place"
        );
        assert_eq!(
            (s.t, s.x[1], s.params[0], s.step_hint),
            (0.75, -4.0, 8.0, 2e-3)
        );
        small.x[0] = 9.0;
        assert_eq!(
            small.restore(&slot).err().map(|e| e.status),
            Some(crate::module::Status::Error)
        );
        small.save_into(&mut slot, |_| 0.0, 0.0);
        assert_eq!(small.restore(&slot).map(|s| s.x.clone()), Ok(vec![9.0]));
    }
}
