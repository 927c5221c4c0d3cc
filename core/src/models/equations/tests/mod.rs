//! Tests of equation modules: error positions, exact Jacobians, the two-mass oscillator
//! against the built-in modules, robustness on arbitrary input, reuse of the compiled form.

mod errors;
mod jacobians;
mod robustness;
mod two_mass;

use super::EquationModule;
use crate::module::{Module, ValueRef};
use crate::solvers::{Integrator, Rk4};
use alloc::collections::BTreeMap;

/// Mass 2 of the two-mass oscillator (docs/methods.md §11.1), written physically: the
/// coupling force is an output that the equation of motion reuses.
pub(crate) const MASS2_SOURCE: &str = "\
// Mass 2 of the two-mass oscillator with the coupling spring-damper
parameter m2 = 10 \"kg\"
parameter c2 = 1e7 \"N/m\"
parameter d2 = 2 \"N*s/m\"
parameter ck = 2e5 \"N/m\"
parameter dk = 5e2 \"N*s/m\"
input s1 \"m\"
input v1 \"m/s\"
state x = 0 \"m\"
state v = 0 \"m/s\"
output Fk \"N\" = ck*(x - s1) + dk*(v - v1)
der(x) = v
der(v) = (-c2*x - d2*v - Fk)/m2
";

/// A driven Van der Pol oscillator with outputs that use every function.
pub(crate) const VAN_DER_POL: &str = "\
parameter mu = 1.5
input F = 0.3 \"N\"
state x = 2
state y = -0.5
var damping = mu*(1 - x^2)
der(x) = y
der(y) = damping*y - x + F
output e \"J\" = 0.5*(x^2 + y^2)
output p
p = (atan2(y, x) + tanh(F*x) + exp(-x^2)*sqrt(1 + y^2) + log(2 + sin(x)*cos(y))
  + p0 + max(x, y)*min(F, y) + abs(x - y)^1.5 + pow(2, y) + asin(0.1*y) + acos(0.1*x))
var p0 = atan(F) + sinh(0.1*x)*cosh(y) + tan(0.2*y) + time
";

pub(crate) fn module(source: &str) -> EquationModule {
    let integrator = Integrator::Rk4(Rk4 { max_step: 1e-5 });
    match EquationModule::new(source, &BTreeMap::new(), integrator) {
        Ok(m) => m,
        Err(e) => panic!("test source does not compile: {e}"),
    }
}

pub(crate) fn vr(m: &dyn Module, name: &str) -> ValueRef {
    m.description()
        .variable(name)
        .map(|v| v.value_ref)
        .unwrap_or_else(|| panic!("no variable {name}"))
}
