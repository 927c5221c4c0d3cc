//! Before the first step: what the defect master needs from each module (refused with
//! [`MasterError::MissingCapability`] naming module and flag), and the derivative samples of
//! the watched outputs at the start time, by one of the two initialisations of
//! docs/methods.md §15.7.

use super::ports::DefectPorts;
use super::DefectSettings;
use crate::coupling::Port;
use crate::error::MasterError;
use crate::master::CoupledSystem;
use crate::module::Capabilities;
use alloc::format;
use alloc::string::String;

/// How the first step's derivative slots are filled.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Initialisation {
    /// Exact derivatives at the start time: every watched output's derivatives are read
    /// from its module, in feedthrough order, after its inputs' derivatives were set from
    /// their sources (so a feedthrough output's derivatives include `D u^(j)`).
    #[default]
    Consistent,
    /// The authors' code: no derivative is known before the first step, so its inputs
    /// are held constant (zero-order hold) and its output derivative samples are zero.
    ZeroDerivatives,
}

/// Refuses a module that lacks what `settings` needs: output derivatives up to `n` (for
/// modules with connected outputs), input derivatives up to `m` (modules with inputs),
/// midpoint samples (connected outputs, when output defects are monitored) and variable
/// communication steps (when the controller varies them).
pub(super) fn check_capabilities(
    sys: &CoupledSystem,
    ports: &DefectPorts,
    settings: &DefectSettings,
    variable_steps: bool,
) -> Result<(), MasterError> {
    let (n, m) = (settings.output_order, settings.input_order);
    for mo in 0..sys.n_modules() {
        let caps = &sys.subsystem(mo).description().capabilities;
        let has_inputs = !sys.graph().input_range(mo).is_empty();
        let missing = |capability: &'static str, needed_by: String| {
            Err(MasterError::MissingCapability {
                module: sys.name(mo).into(),
                capability,
                needed_by,
            })
        };
        if ports.watches(mo) && (caps.max_output_derivative_order as usize) < n {
            return missing(
                "maxOutputDerivativeOrder",
                format!("defect-controlled Jacobi with output order {n}"),
            );
        }
        if has_inputs && (caps.x_max_input_derivative_order as usize) < m {
            return missing(
                "x-maxInputDerivativeOrder",
                format!("defect-controlled Jacobi with input order {m}"),
            );
        }
        if ports.watches(mo) && settings.monitored.outputs() && !caps.x_provides_midpoint_outputs {
            return missing(
                "x-providesMidpointOutputs",
                "the output defect estimate of defect-controlled Jacobi".into(),
            );
        }
        if variable_steps && !caps.can_handle_variable_communication_step_size {
            return missing(
                "canHandleVariableCommunicationStepSize",
                "defect-controlled variable macro-steps".into(),
            );
        }
    }
    Ok(())
}

/// Whether `caps` lets the master set input derivatives at all.
fn takes_input_derivatives(caps: &Capabilities, m: usize) -> bool {
    m > 0 && caps.x_max_input_derivative_order as usize >= m
}

/// Fills `samples` (watched port `k`: `n + 1` entries, value first) at the start time
/// from the initialised system.
pub(super) fn initial_samples(
    sys: &mut CoupledSystem,
    ports: &DefectPorts,
    initialisation: Initialisation,
    t: f64,
    samples: &mut [f64],
) -> Result<(), MasterError> {
    let (n, m) = (ports.n, ports.m);
    let np1 = n + 1;
    for (k, &o) in ports.outputs.iter().enumerate() {
        samples[k * np1] = sys.outputs()[o];
        samples[k * np1 + 1..(k + 1) * np1].fill(0.0);
    }
    if initialisation == Initialisation::ZeroDerivatives || n == 0 {
        return Ok(());
    }
    let mut port_of = alloc::vec![usize::MAX; sys.graph().n_outputs()];
    for (k, &o) in ports.outputs.iter().enumerate() {
        port_of[o] = k;
    }
    let mut du = [0.0; 2];
    // One pass gets derivative j right only where its inputs' derivatives below j were
    // already set: an output read before its loop partner's derivative was set (slave 1's
    // ω″ needs τ′ of slave 2, which needs ω′) is right after the next pass. `n` passes
    // make every derivative up to `n` exact.
    let steps = sys.graph().propagation_order().len();
    for p in (0..n).flat_map(|_| 0..steps) {
        match sys.graph().propagation_order()[p] {
            Port::Output(o) if port_of[o] != usize::MAX => {
                let k = port_of[o];
                let mo = sys.graph().output_module(o);
                let (vrs, orders) = (&ports.out_vrs[k * n..(k + 1) * n], &ports.out_orders[..n]);
                let values = &mut samples[k * np1 + 1..(k + 1) * np1];
                let r = sys
                    .subsystem_mut(mo)
                    .get_output_derivatives(vrs, orders, values);
                r.map_err(|e| sys.module_error(mo, t, e))?;
            }
            Port::Input(i) => {
                let mo = sys.graph().input_module(i);
                let caps = &sys.subsystem(mo).description().capabilities;
                if !takes_input_derivatives(caps, m) {
                    continue;
                }
                let k = ports.source_port[i];
                for (j, d) in du.iter_mut().enumerate().take(m) {
                    *d = if j < n { samples[k * np1 + 1 + j] } else { 0.0 };
                }
                let (vrs, orders) = (&ports.in_vrs[i * m..(i + 1) * m], &ports.in_orders[..m]);
                let r = sys
                    .subsystem_mut(mo)
                    .set_input_derivatives(vrs, orders, &du[..m]);
                r.map_err(|e| sys.module_error(mo, t, e))?;
            }
            Port::Output(_) => {}
        }
    }
    Ok(())
}
