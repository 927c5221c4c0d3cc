//! Forward-mode automatic differentiation over a [`Tape`]: after a primal pass
//! ([`Tape::eval`]), one tangent pass carries a direction `ṙ` through every instruction
//! by the chain rule, giving the exact directional derivative `J · seed` of every target
//! (Griewank & Walther, "Evaluating Derivatives", 2nd ed., §3.1, Table 3.3). Unit seeds
//! on states and inputs give the columns of `∂der/∂x`, `∂der/∂u`, `∂y/∂x`, `∂y/∂u`; a seed
//! on time gives the explicit time derivative.

use super::compile::{Op, Tape};

impl Tape {
    /// Tangent pass: `dots[..lead]` holds the seed (time, parameters, states, inputs),
    /// `regs` the values of a primal pass at the same point; fills the rest of `dots`.
    /// Zero tangents propagate as exact zeros, so entries that do not depend on the seed
    /// are exactly 0 even where a partial derivative is infinite.
    pub(crate) fn tangent(&self, regs: &[f64], dots: &mut [f64]) {
        let lead = self.lead;
        for (k, op) in self.ops.iter().enumerate() {
            let v = |i: &u32| regs[*i as usize];
            let d = |i: &u32| dots[*i as usize];
            let t = match op {
                Op::Const(_) => 0.0,
                Op::Neg(a) => -d(a),
                Op::Add(a, b) => d(a) + d(b),
                Op::Sub(a, b) => d(a) - d(b),
                Op::Mul(a, b) => {
                    let left = if d(a) == 0.0 { 0.0 } else { d(a) * v(b) };
                    let right = if d(b) == 0.0 { 0.0 } else { v(a) * d(b) };
                    left + right
                }
                Op::Div(a, b) => {
                    // (a/b)' = (a' − (a/b) b') / b.
                    if d(b) == 0.0 {
                        if d(a) == 0.0 {
                            0.0
                        } else {
                            d(a) / v(b)
                        }
                    } else {
                        (d(a) - regs[lead + k] * d(b)) / v(b)
                    }
                }
                Op::Call1(f, a) => f.tangent(v(a), 0.0, regs[lead + k], d(a), 0.0),
                Op::Call2(f, a, b) => f.tangent(v(a), v(b), regs[lead + k], d(a), d(b)),
            };
            dots[lead + k] = t;
        }
    }
}
