//! [`LinearStateSpace`]: `x' = A x + B u, y = C x + D u`, stepped exactly.
//!
//! Each `do_step` over `h` solves the ODE exactly for the polynomial input
//! `ũ(t + s) = Σ_k u^(k) s^k / k!` set through `set_float64` (value) and
//! `set_input_derivatives` (orders 1..=4): `x ← A_d x + Σ_k Γ_k u^(k)` with `A_d` and
//! `Γ_k = B_dk` from one augmented exponential (docs/methods.md §3.1 paper eqn (38), §3.2),
//! cached per `h`. After the step the stored input is `ũ(t + h)` and its derivatives are
//! zero, so the outputs are `y = C x + D ũ(t + h)` (docs/methods.md §3.1).

use super::builtin::{known_kind, output_index, unknown_kind, BuiltinModule};
use super::instance::{Instance, INPUT_ORDER};
use super::layout::{describe, Layout, PortSpec, Signature, VarKind};
use crate::module::{
    Causality, DependencyKind, Derivatives, DirectionalDerivatives, JacobianProduct,
    ModuleDescription, ModuleError, OutputDerivatives, Variable,
};
use crate::solvers::{discretize, Discretization, StepMatrix};
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;
use nalgebra::{DMatrix, DVector};

#[cfg(test)]
mod tests;

/// Highest output derivative order served (`maxOutputDerivativeOrder`).
pub const MAX_OUTPUT_DERIVATIVE_ORDER: u32 = 4;

/// Matrices, start values and names of a linear module.
#[derive(Clone, Debug)]
pub struct LinearSpec {
    /// FMI `modelName`.
    pub model_name: String,
    /// n × n.
    pub a: DMatrix<f64>,
    /// n × m.
    pub b: DMatrix<f64>,
    /// q × n.
    pub c: DMatrix<f64>,
    /// q × m.
    pub d: DMatrix<f64>,
    /// Start values of the states (n).
    pub x0: DVector<f64>,
    /// State names (n); exposed as `Local` variables with `der(name)`.
    pub state_names: Vec<String>,
    /// State units (n).
    pub state_units: Vec<String>,
    /// Input names (m).
    pub input_names: Vec<String>,
    /// Input units (m).
    pub input_units: Vec<String>,
    /// Output names (q).
    pub output_names: Vec<String>,
    /// Output units (q).
    pub output_units: Vec<String>,
    /// Parameters the matrices were built from (value references are renumbered from 0
    /// and `start` is the value). Readable; settable before Step Mode only with
    /// `matrices_of`.
    pub parameters: Vec<Variable>,
    /// `(A, B, C, D)` from parameter values in `parameters` order: makes the parameters
    /// settable in Instantiated and Initialization Mode (FMI `fixed` parameters), so a
    /// sweep can reset one instance and set each point's values instead of rebuilding.
    pub matrices_of: Option<MatricesOf>,
}

/// `(A, B, C, D)`.
pub type Matrices = (DMatrix<f64>, DMatrix<f64>, DMatrix<f64>, DMatrix<f64>);

/// The matrices of a linear module as a function of its parameter values; errors name
/// the offending parameter.
pub type MatricesOf = fn(&[f64]) -> Result<Matrices, ModuleError>;

/// Parameter values set during one `set_float64` call, applied together at its end: the
/// matrices are rebuilt once per call, and not at all after an error.
#[derive(Clone, Debug, Default)]
pub(crate) struct StagedParameters(Option<Vec<f64>>);

impl StagedParameters {
    /// Stages `value` for parameter `index`; the others keep their values in `current`.
    pub(crate) fn set(&mut self, current: &[f64], index: usize, value: f64) {
        self.0.get_or_insert_with(|| current.to_vec())[index] = value;
    }

    /// At the end of the call: the staged values (if any) when every value was set, the
    /// error of `values_set` otherwise; nothing stays staged.
    pub(crate) fn finish(
        &mut self,
        values_set: Result<(), ModuleError>,
    ) -> Result<Option<Vec<f64>>, ModuleError> {
        let staged = self.0.take();
        values_set.map(|()| staged)
    }
}

/// A linear time-invariant module solved exactly over each step.
#[derive(Clone, Debug)]
pub struct LinearStateSpace {
    a: DMatrix<f64>,
    b: DMatrix<f64>,
    c: DMatrix<f64>,
    d: DMatrix<f64>,
    params: Vec<f64>,
    /// Parameter values and, with `matrices_of`, matrices at construction (restored by
    /// `reset` without recomputing them).
    start_params: Vec<f64>,
    start_matrices: Option<Matrices>,
    matrices_of: Option<MatricesOf>,
    staged_params: StagedParameters,
    desc: ModuleDescription,
    inst: Instance,
    cache: Option<Discretization>,
    /// `cache` laid out for stepping.
    step_matrix: StepMatrix,
    /// Scratch for the new state (n).
    x_next: DVector<f64>,
}

impl LinearStateSpace {
    /// Checks shapes, names and finiteness and builds the module.
    pub fn new(spec: LinearSpec) -> Result<Self, ModuleError> {
        let n = spec.a.nrows();
        let m = spec.b.ncols();
        let q = spec.c.nrows();
        let shapes_ok = spec.a.ncols() == n
            && spec.b.nrows() == n
            && spec.c.ncols() == n
            && spec.d.shape() == (q, m)
            && spec.x0.len() == n
            && spec.state_names.len() == n
            && spec.state_units.len() == n
            && spec.input_names.len() == m
            && spec.input_units.len() == m
            && spec.output_names.len() == q
            && spec.output_units.len() == q;
        if !shapes_ok {
            return Err(ModuleError::invalid(format!(
                "{}: matrix, start-value and name dimensions do not fit (n = {n}, m = {m}, q = {q})",
                spec.model_name
            )));
        }
        let finite = |mat: &DMatrix<f64>| mat.iter().all(|v| v.is_finite());
        if !(finite(&spec.a) && finite(&spec.b) && finite(&spec.c) && finite(&spec.d))
            || spec.x0.iter().any(|v| !v.is_finite())
        {
            return Err(ModuleError::invalid(format!(
                "{}: matrices and start values must be finite",
                spec.model_name
            )));
        }
        // The spec is consumed: names and units move into the ports without copies.
        let ports = |names: Vec<String>, units: Vec<String>, start: &dyn Fn(usize) -> f64| {
            names
                .into_iter()
                .zip(units)
                .enumerate()
                .map(|(i, (name, unit))| PortSpec {
                    name,
                    unit,
                    start: start(i),
                    description: String::new(),
                })
                .collect::<Vec<_>>()
        };
        let x0 = &spec.x0;
        let states = ports(spec.state_names, spec.state_units, &|i| x0[i]);
        let inputs = ports(spec.input_names, spec.input_units, &|_| 0.0);
        let outputs = ports(spec.output_names, spec.output_units, &|_| 0.0);
        let params: Vec<PortSpec> = spec
            .parameters
            .into_iter()
            .map(|v| PortSpec {
                start: v.start.unwrap_or(0.0),
                name: v.name,
                unit: v.unit,
                description: v.description,
            })
            .collect();
        let mut feedthrough = Vec::new();
        for o in 0..q {
            for i in 0..m {
                if spec.d[(o, i)] != 0.0 {
                    feedthrough.push((o, i, DependencyKind::Constant));
                }
            }
        }
        let sig = Signature {
            model_name: &spec.model_name,
            parameters: &params,
            states: &states,
            inputs: &inputs,
            outputs: &outputs,
            feedthrough: &feedthrough,
            max_output_derivative_order: MAX_OUTPUT_DERIVATIVE_ORDER,
            linear_time_invariant: true,
        };
        let (desc, layout) = describe(&sig)?;
        let params: Vec<f64> = params.iter().map(|p| p.start).collect();
        Ok(LinearStateSpace {
            start_params: params.clone(),
            params,
            start_matrices: spec.matrices_of.map(|_| {
                (
                    spec.a.clone(),
                    spec.b.clone(),
                    spec.c.clone(),
                    spec.d.clone(),
                )
            }),
            matrices_of: spec.matrices_of,
            staged_params: StagedParameters::default(),
            inst: Instance::new(layout, spec.x0, alloc::vec![0.0; m]),
            x_next: DVector::zeros(n),
            a: spec.a,
            b: spec.b,
            c: spec.c,
            d: spec.d,
            desc,
            cache: None,
            step_matrix: StepMatrix::default(),
        })
    }

    /// `(A, B, C, D)`.
    pub fn matrices(&self) -> (&DMatrix<f64>, &DMatrix<f64>, &DMatrix<f64>, &DMatrix<f64>) {
        (&self.a, &self.b, &self.c, &self.d)
    }

    /// Current states.
    pub fn state(&self) -> &DVector<f64> {
        &self.inst.x
    }

    /// The cached discretisation for step `h`, computed if `h` changed.
    pub fn discretization(&mut self, h: f64) -> Result<&Discretization, ModuleError> {
        let stale = self.cache.as_ref().is_none_or(|c| c.h != h);
        if stale {
            let d = discretize(&self.a, &self.b, h, INPUT_ORDER).ok_or_else(|| {
                ModuleError::numerical(format!("matrix exponential failed for h = {h} s"))
            })?;
            self.step_matrix = StepMatrix::of(&d);
            self.cache = Some(d);
        }
        self.cache
            .as_ref()
            .ok_or_else(|| ModuleError::numerical("no discretisation"))
    }

    /// Matrices for `params`; refused if D gains a feedthrough the description does not
    /// declare (the master's loop analysis relies on it).
    fn rebuild(&mut self, params: Vec<f64>) -> Result<(), ModuleError> {
        let f = self
            .matrices_of
            .ok_or_else(|| ModuleError::invalid("parameters of this module are fixed"))?;
        let (a, b, c, d) = f(&params)?;
        if (a.shape(), b.shape(), c.shape(), d.shape())
            != (
                self.a.shape(),
                self.b.shape(),
                self.c.shape(),
                self.d.shape(),
            )
        {
            return Err(ModuleError::invalid(
                "the parameters change the matrix dimensions",
            ));
        }
        let base = self.inst.layout.input_base();
        for (o, dep) in self.desc.output_dependencies.iter().enumerate() {
            for i in 0..d.ncols() {
                let declared = dep.inputs.iter().any(|(vr, _)| vr.0 == base + i as u32);
                if d[(o, i)] != 0.0 && !declared {
                    return Err(ModuleError::invalid(format!(
                        "these parameters add a direct feedthrough (output {o} on input {i}) the module does not declare; rebuild it instead"
                    )));
                }
            }
        }
        (self.a, self.b, self.c, self.d) = (a, b, c, d);
        self.params = params;
        self.cache = None;
        Ok(())
    }

    /// `x^(k)` at the current point, using the stored input derivatives.
    fn state_derivative(&self, k: u32) -> DVector<f64> {
        let mut xd = self.inst.x.clone();
        for j in 0..k as usize {
            let uj = self.inst.u.coeffs().column(j);
            xd = &self.a * xd + &self.b * uj;
        }
        xd
    }

    /// `y^(k) = C x^(k) + D u^(k)` (`u^(k) = 0` beyond the stored order).
    fn output_derivative(&self, k: u32) -> DVector<f64> {
        let mut y = &self.c * self.state_derivative(k);
        if (k as usize) <= self.inst.u.order() {
            y += &self.d * self.inst.u.coeffs().column(k as usize);
        }
        y
    }
}

/// `Σ_j m[i, j] v[j]` without allocating (outputs are read every macro-step).
fn row_dot(m: &DMatrix<f64>, i: usize, v: &[f64]) -> f64 {
    v.iter().enumerate().map(|(j, vj)| m[(i, j)] * vj).sum()
}

impl BuiltinModule for LinearStateSpace {
    fn module_description(&self) -> &ModuleDescription {
        &self.desc
    }

    fn instance(&self) -> &Instance {
        &self.inst
    }

    fn instance_mut(&mut self) -> &mut Instance {
        &mut self.inst
    }

    fn parameter(&self, index: usize) -> f64 {
        self.params[index]
    }

    /// Collected, so that `finish_set` rebuilds the matrices once per `set_float64` call.
    fn set_parameter(&mut self, index: usize, value: f64) -> Result<(), ModuleError> {
        if self.matrices_of.is_none() {
            return Err(ModuleError::invalid(format!(
                "parameter `{}` of this linear state-space module is fixed; set it through models::instantiate",
                self.desc.with_causality(Causality::Parameter).nth(index).map_or("?", |p| p.name.as_str())
            )));
        }
        self.staged_params.set(&self.params, index, value);
        Ok(())
    }

    fn finish_set(&mut self, values_set: Result<(), ModuleError>) -> Result<(), ModuleError> {
        match self.staged_params.finish(values_set)? {
            Some(p) => self.rebuild(p),
            None => Ok(()),
        }
    }

    fn reset_parameters(&mut self) -> Result<(), ModuleError> {
        if let (true, Some((a, b, c, d))) = (self.params != self.start_params, &self.start_matrices)
        {
            self.a.copy_from(a);
            self.b.copy_from(b);
            self.c.copy_from(c);
            self.d.copy_from(d);
            self.params.copy_from_slice(&self.start_params);
            self.cache = None;
        }
        Ok(())
    }

    /// Parameters that differ from the saved ones (only settable ones can) are set back,
    /// with their matrices.
    fn restore_parameters(&mut self, params: &[f64], _step_hint: f64) -> Result<(), ModuleError> {
        if params == self.params.as_slice() {
            return Ok(());
        }
        self.rebuild(params.to_vec())
    }

    fn derivative(&self, index: usize) -> f64 {
        let u0 = self.inst.u.coeffs().column(0);
        row_dot(&self.a, index, self.inst.x.as_slice()) + row_dot(&self.b, index, u0.as_slice())
    }

    fn output(&self, index: usize) -> f64 {
        let u0 = self.inst.u.coeffs().column(0);
        row_dot(&self.c, index, self.inst.x.as_slice()) + row_dot(&self.d, index, u0.as_slice())
    }

    fn step(&mut self, t: f64, h: f64) -> Result<(), ModuleError> {
        // The step matrix is laid out with the cached discretisation, for the same `h`.
        if self.cache.as_ref().is_none_or(|c| c.h != h) {
            self.discretization(h)?;
        }
        // x_{n+1} = A_d x_n + Σ_k Γ_k u^(k)   (eqn (38)), into the scratch vector.
        self.step_matrix.propagate(
            self.inst.x.as_slice(),
            &self.inst.u,
            self.x_next.as_mut_slice(),
        );
        // Over the slice, not nalgebra's matrix iterator (which steps rows and columns).
        if self.x_next.as_slice().iter().any(|v| !v.is_finite()) {
            return Err(ModuleError::numerical(format!(
                "{}: state became non-finite at t = {} s",
                self.desc.model_name,
                t + h
            )));
        }
        // The new state takes the place of the old, which becomes the next scratch.
        core::mem::swap(&mut self.inst.x, &mut self.x_next);
        Ok(())
    }

    fn rhs_at(&mut self, _t: f64, x: &[f64], u: &[f64], dx: &mut [f64]) {
        for (i, d) in dx.iter_mut().enumerate() {
            *d = row_dot(&self.a, i, x) + row_dot(&self.b, i, u);
        }
    }

    fn outputs_at(&mut self, _t: f64, x: &[f64], u: &[f64], y: &mut [f64]) {
        for (i, out) in y.iter_mut().enumerate() {
            *out = row_dot(&self.c, i, x) + row_dot(&self.d, i, u);
        }
    }
}

impl DirectionalDerivatives for LinearStateSpace {
    /// Exact: `∂der(x)/∂x = A`, `∂der(x)/∂u = B`, `∂y/∂x = C`, `∂y/∂u = D`.
    fn directional_derivative(&mut self, p: JacobianProduct<'_>) -> Result<(), ModuleError> {
        linear_directional_derivative(&self.inst.layout, self.matrices(), p)
    }
}

/// The exact directional derivative of a module `x′ = A x + B u`, `y = C x + D u` laid out
/// by `layout`: `∂der(x)/∂x = A`, `∂der(x)/∂u = B`, `∂y/∂x = C`, `∂y/∂u = D` times the seed.
pub(crate) fn linear_directional_derivative(
    layout: &Layout,
    (a, b, c, d): (&DMatrix<f64>, &DMatrix<f64>, &DMatrix<f64>, &DMatrix<f64>),
    p: JacobianProduct<'_>,
) -> Result<(), ModuleError> {
    let mut known_kinds = Vec::with_capacity(p.knowns.len());
    for k in p.knowns {
        known_kinds.push(known_kind(layout, *k)?);
    }
    for (u, s) in p.unknowns.iter().zip(p.sensitivity.iter_mut()) {
        let (from_x, from_u) = match unknown_kind(layout, *u)? {
            VarKind::Derivative(i) => (a.row(i), b.row(i)),
            VarKind::Output(i) => (c.row(i), d.row(i)),
            _ => continue,
        };
        *s = known_kinds
            .iter()
            .zip(p.seed)
            .map(|(kind, v)| match kind {
                VarKind::State(j) => from_x[*j] * v,
                VarKind::Input(j) => from_u[*j] * v,
                _ => 0.0,
            })
            .sum();
    }
    Ok(())
}

impl OutputDerivatives for LinearStateSpace {
    /// `y^(k) = C x^(k) + D u^(k)`, `x^(k) = A x^(k−1) + B u^(k−1)`; order 1 is
    /// `C (A x + B u) + D u'` with the stored input derivatives (zero right after a step).
    fn get_output_derivatives(
        &mut self,
        mut d: Derivatives<'_, &mut [f64]>,
    ) -> Result<(), ModuleError> {
        for (vr, k, out) in d.iter_mut() {
            if k == 0 || k > MAX_OUTPUT_DERIVATIVE_ORDER {
                return Err(ModuleError::invalid(format!(
                    "output derivative order {k} not in 1..={MAX_OUTPUT_DERIVATIVE_ORDER}"
                )));
            }
            let i = output_index(&self.inst.layout, vr)?;
            *out = self.output_derivative(k)[i];
        }
        Ok(())
    }
}
