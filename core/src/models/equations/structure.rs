//! What the expressions reveal about the module without evaluating it: which inputs
//! each output depends on directly (FMI `<Output dependencies>`, transitively through
//! `var`s and other outputs) and whether the module is linear time-invariant
//! (`dx = A x + B u`, `y = C x + D u`, which the monolithic reference needs).
//!
//! Linearity is decided on the expression tree, conservatively: a product of two terms
//! that both depend on states or inputs, a division by such a term, any function of one,
//! any use of `time`, or a constant offset (`der(v) = -g + F/m`) makes the module
//! non-LTI, even where the terms would cancel.

use super::ast::BinOp;
use super::resolved::{Alg, Model, RExpr, Sym};
use crate::module::DependencyKind;
use alloc::vec;
use alloc::vec::Vec;

/// How an expression depends on states and inputs.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Class {
    /// No states, inputs or time; `value` when it uses no parameter either.
    Const { value: Option<f64> },
    /// `Σ k_j z_j` over states and inputs, with constant `k_j`.
    Linear,
    /// `Linear` plus a constant.
    Affine,
    /// Anything else (including time-varying).
    Nonlinear,
}

/// Class and the inputs used, of every definition.
struct Facts {
    class: Class,
    inputs: Vec<bool>,
}

/// The analysis result.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Structure {
    /// `(output, input, kind)` for every direct dependency.
    pub feedthrough: Vec<(usize, usize, DependencyKind)>,
    /// Every `der()` and output is linear in states and inputs, without offset or time.
    pub linear_time_invariant: bool,
}

/// Analyses a checked model.
pub(crate) fn analyse(m: &Model) -> Structure {
    let nu = m.inputs.len();
    let mut var_facts: Vec<Option<Facts>> = m.vars.iter().map(|_| None).collect();
    let mut out_facts: Vec<Option<Facts>> = m.outputs.iter().map(|_| None).collect();
    for a in &m.order {
        match *a {
            Alg::Var(i) => var_facts[i] = Some(facts(&m.var_def[i], nu, &var_facts, &out_facts)),
            Alg::Output(i) => out_facts[i] = Some(facts(&m.out_def[i], nu, &var_facts, &out_facts)),
        }
    }
    let mut feedthrough = Vec::new();
    let mut lti = true;
    for (o, f) in out_facts.iter().enumerate() {
        let Some(f) = f else { continue };
        let kind = match f.class {
            Class::Linear | Class::Affine | Class::Const { .. } => DependencyKind::Constant,
            Class::Nonlinear => DependencyKind::Dependent,
        };
        for (i, used) in f.inputs.iter().enumerate() {
            if *used {
                feedthrough.push((o, i, kind));
            }
        }
        lti &= homogeneous(f.class);
    }
    for d in &m.der {
        lti &= homogeneous(facts(d, nu, &var_facts, &out_facts).class);
    }
    Structure {
        feedthrough,
        linear_time_invariant: lti,
    }
}

/// Linear without offset: `Linear`, or a constant that is exactly zero.
fn homogeneous(c: Class) -> bool {
    matches!(c, Class::Linear | Class::Const { value: Some(0.0) })
}

fn facts(e: &RExpr, nu: usize, vars: &[Option<Facts>], outs: &[Option<Facts>]) -> Facts {
    let mut inputs = vec![false; nu];
    let class = classify(e, &mut inputs, vars, outs);
    Facts { class, inputs }
}

fn classify(
    e: &RExpr,
    inputs: &mut [bool],
    vars: &[Option<Facts>],
    outs: &[Option<Facts>],
) -> Class {
    use Class::*;
    let mut inherit = |f: Option<&Facts>| match f {
        Some(f) => {
            for (a, b) in inputs.iter_mut().zip(&f.inputs) {
                *a |= *b;
            }
            f.class
        }
        None => Nonlinear,
    };
    match e {
        RExpr::Num(v) => Const { value: Some(*v) },
        RExpr::Sym(s) => match *s {
            Sym::Time => Nonlinear,
            Sym::Param(_) => Const { value: None },
            Sym::State(_) => Linear,
            Sym::Input(i) => {
                if let Some(u) = inputs.get_mut(i) {
                    *u = true;
                }
                Linear
            }
            Sym::Var(i) => inherit(vars.get(i).and_then(Option::as_ref)),
            Sym::Output(i) => inherit(outs.get(i).and_then(Option::as_ref)),
        },
        RExpr::Neg(a) => match classify(a, inputs, vars, outs) {
            Const { value } => Const {
                value: value.map(|v| -v),
            },
            c => c,
        },
        RExpr::Bin(op, a, b) => {
            let (ca, cb) = (
                classify(a, inputs, vars, outs),
                classify(b, inputs, vars, outs),
            );
            binary(*op, ca, cb)
        }
        RExpr::Call(f, args) => {
            let mut value = Some(0.0);
            let mut all_const = true;
            let mut vals = [0.0; 2];
            for (k, a) in args.iter().enumerate() {
                match classify(a, inputs, vars, outs) {
                    Const { value: Some(v) } => vals[k.min(1)] = v,
                    Const { value: None } => value = None,
                    _ => all_const = false,
                }
            }
            match (all_const, value) {
                (true, Some(_)) => Const {
                    value: Some(f.eval(vals[0], vals[1])),
                },
                (true, None) => Const { value: None },
                _ => Nonlinear,
            }
        }
    }
}

fn binary(op: BinOp, a: Class, b: Class) -> Class {
    use Class::*;
    let konst = |f: fn(f64, f64) -> f64, x: Option<f64>, y: Option<f64>| Const {
        value: x.zip(y).map(|(x, y)| f(x, y)),
    };
    match (op, a, b) {
        (_, Nonlinear, _) | (_, _, Nonlinear) => Nonlinear,
        (BinOp::Add, Const { value: x }, Const { value: y }) => konst(|x, y| x + y, x, y),
        (BinOp::Sub, Const { value: x }, Const { value: y }) => konst(|x, y| x - y, x, y),
        (BinOp::Mul, Const { value: x }, Const { value: y }) => konst(|x, y| x * y, x, y),
        (BinOp::Div, Const { value: x }, Const { value: y }) => konst(|x, y| x / y, x, y),
        (BinOp::Pow, Const { value: x }, Const { value: y }) => {
            konst(|x, y| super::functions::Func::Pow.eval(x, y), x, y)
        }
        (BinOp::Add | BinOp::Sub, Linear, Linear) => Linear,
        // Adding an exact zero keeps a linear term linear.
        (BinOp::Add | BinOp::Sub, Linear, Const { value: Some(z) })
        | (BinOp::Add | BinOp::Sub, Const { value: Some(z) }, Linear)
            if z == 0.0 =>
        {
            Linear
        }
        (BinOp::Add | BinOp::Sub, _, _) => Affine,
        (BinOp::Mul, Const { .. }, c) | (BinOp::Mul, c, Const { .. }) => c,
        (BinOp::Div, c, Const { .. }) => c,
        _ => Nonlinear,
    }
}
