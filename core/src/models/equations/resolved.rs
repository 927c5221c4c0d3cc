//! The checked model: declarations with start values, expressions whose names are
//! resolved to variable indices ([`Sym`]), and the order of the algebraic definitions.

use super::ast::BinOp;
use super::error::Span;
use super::functions::Func;
use alloc::boxed::Box;
use alloc::string::String;
use alloc::vec::Vec;

/// A resolved variable reference.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Sym {
    Time,
    Param(usize),
    State(usize),
    Input(usize),
    Var(usize),
    Output(usize),
}

/// An expression with names resolved.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum RExpr {
    Num(f64),
    Sym(Sym),
    Neg(Box<RExpr>),
    Bin(BinOp, Box<RExpr>, Box<RExpr>),
    Call(Func, Vec<RExpr>),
}

/// A declared variable.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Decl {
    pub name: String,
    pub unit: String,
    /// Start value (parameters: default value); 0 for `var` and `output`.
    pub start: f64,
    /// Where the name is declared.
    pub span: Span,
    /// The comment at the end of the declaration's line, if any (`// mass of body 1`).
    pub comment: String,
}

/// An algebraic definition: a `var` or an `output`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Alg {
    Var(usize),
    Output(usize),
}

/// A checked equation module.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Model {
    pub params: Vec<Decl>,
    pub states: Vec<Decl>,
    pub inputs: Vec<Decl>,
    pub vars: Vec<Decl>,
    pub outputs: Vec<Decl>,
    /// `der(states[i]) = der[i]`.
    pub der: Vec<RExpr>,
    pub var_def: Vec<RExpr>,
    pub out_def: Vec<RExpr>,
    /// Every `var` and `output`, each after the ones its definition uses.
    pub order: Vec<Alg>,
}

/// Calls `f` for every variable `e` refers to.
pub(crate) fn uses(e: &RExpr, f: &mut dyn FnMut(Sym)) {
    match e {
        RExpr::Num(_) => {}
        RExpr::Sym(s) => f(*s),
        RExpr::Neg(a) => uses(a, f),
        RExpr::Bin(_, a, b) => {
            uses(a, f);
            uses(b, f);
        }
        RExpr::Call(_, args) => args.iter().for_each(|a| uses(a, f)),
    }
}

/// Value of an expression without variables (start values); NaN if it has any.
pub(crate) fn eval_const(e: &RExpr) -> f64 {
    match e {
        RExpr::Num(v) => *v,
        RExpr::Sym(_) => f64::NAN,
        RExpr::Neg(a) => -eval_const(a),
        RExpr::Bin(op, a, b) => {
            let (a, b) = (eval_const(a), eval_const(b));
            match op {
                BinOp::Add => a + b,
                BinOp::Sub => a - b,
                BinOp::Mul => a * b,
                BinOp::Div => a / b,
                BinOp::Pow => Func::Pow.eval(a, b),
            }
        }
        RExpr::Call(f, args) => {
            let a = args.first().map_or(f64::NAN, eval_const);
            let b = args.get(1).map_or(0.0, eval_const);
            f.eval(a, b)
        }
    }
}
