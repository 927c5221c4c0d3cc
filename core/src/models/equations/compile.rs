//! Compiling a checked [`Model`] to two flat register programs ([`Tape`]s): one computes
//! every `der(x)`, the other every output. Registers `0..lead` hold time, parameters,
//! states and inputs ([`Slots`]); instruction `k` writes register `lead + k` and reads
//! only lower registers, so one pass in order evaluates the tape without re-parsing and
//! without recursion. Each tape holds only the `var`s its targets need, in the checked
//! topological order; operations on literals are folded at compile time.

use super::ast::BinOp;
use super::functions::Func;
use super::resolved::{uses, Alg, Model, RExpr, Sym};
use alloc::vec;
use alloc::vec::Vec;

/// Where time, parameters, states and inputs sit at the start of every register file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Slots {
    pub np: usize,
    pub nx: usize,
    pub nu: usize,
}

impl Slots {
    pub const TIME: usize = 0;
    pub fn param(&self, i: usize) -> usize {
        1 + i
    }
    pub fn state(&self, i: usize) -> usize {
        1 + self.np + i
    }
    pub fn input(&self, i: usize) -> usize {
        1 + self.np + self.nx + i
    }
    /// Registers before the first instruction's.
    pub fn lead(&self) -> usize {
        1 + self.np + self.nx + self.nu
    }
}

/// One instruction; operands are register indices.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Op {
    Const(f64),
    Neg(u32),
    Add(u32, u32),
    Sub(u32, u32),
    Mul(u32, u32),
    Div(u32, u32),
    Call1(Func, u32),
    Call2(Func, u32, u32),
}

/// A straight-line program: instructions in evaluation order and the registers holding
/// its results.
#[derive(Clone, Debug, PartialEq)]
pub struct Tape {
    pub(crate) lead: usize,
    pub(crate) ops: Vec<Op>,
    pub(crate) targets: Vec<u32>,
}

impl Tape {
    /// Registers a register file for this tape needs.
    pub fn registers(&self) -> usize {
        self.lead + self.ops.len()
    }

    /// Number of instructions.
    pub fn instructions(&self) -> usize {
        self.ops.len()
    }

    /// Evaluates every instruction; `regs[..lead]` must hold time, parameters, states
    /// and inputs, and `regs.len() >= registers()`.
    pub(crate) fn eval(&self, regs: &mut [f64]) {
        let lead = self.lead;
        for (k, op) in self.ops.iter().enumerate() {
            let r = |i: &u32| regs[*i as usize];
            let v = match op {
                Op::Const(c) => *c,
                Op::Neg(a) => -r(a),
                Op::Add(a, b) => r(a) + r(b),
                Op::Sub(a, b) => r(a) - r(b),
                Op::Mul(a, b) => r(a) * r(b),
                Op::Div(a, b) => r(a) / r(b),
                Op::Call1(f, a) => f.eval(r(a), 0.0),
                Op::Call2(f, a, b) => f.eval(r(a), r(b)),
            };
            regs[lead + k] = v;
        }
    }

    /// Value of target `i` after [`Tape::eval`].
    pub(crate) fn target(&self, regs: &[f64], i: usize) -> f64 {
        regs[self.targets[i] as usize]
    }
}

/// The compiled module: the `der()` tape and the output tape over the same slots.
#[derive(Clone, Debug, PartialEq)]
pub struct Program {
    pub(crate) slots: Slots,
    pub(crate) rhs: Tape,
    pub(crate) out: Tape,
}

impl Program {
    /// The tape computing `der(x)` for every state, in declaration order.
    pub fn rhs_tape(&self) -> &Tape {
        &self.rhs
    }

    /// The tape computing every output, in declaration order.
    pub fn output_tape(&self) -> &Tape {
        &self.out
    }
}

/// Compiles a checked model. `None` only if the model violates the checker's guarantees
/// (a `var` used before it is ordered), which the checker rules out.
pub(crate) fn compile(m: &Model) -> Option<Program> {
    let slots = Slots {
        np: m.params.len(),
        nx: m.states.len(),
        nu: m.inputs.len(),
    };
    let rhs = tape(m, slots, &m.der)?;
    let out = tape(m, slots, &m.out_def)?;
    Some(Program { slots, rhs, out })
}

struct Builder {
    slots: Slots,
    ops: Vec<Op>,
    var_reg: Vec<Option<u32>>,
    out_reg: Vec<Option<u32>>,
}

fn tape(m: &Model, slots: Slots, targets: &[RExpr]) -> Option<Tape> {
    // Which vars and outputs the targets need, directly or through each other.
    let mut need_var = vec![false; m.vars.len()];
    let mut need_out = vec![false; m.outputs.len()];
    let mut work: Vec<Alg> = Vec::new();
    let mut visit = |s: Sym, work: &mut Vec<Alg>| match s {
        Sym::Var(i) if !need_var[i] => {
            need_var[i] = true;
            work.push(Alg::Var(i));
        }
        Sym::Output(i) if !need_out[i] => {
            need_out[i] = true;
            work.push(Alg::Output(i));
        }
        _ => {}
    };
    for t in targets {
        uses(t, &mut |s| visit(s, &mut work));
    }
    while let Some(a) = work.pop() {
        let def = match a {
            Alg::Var(i) => &m.var_def[i],
            Alg::Output(i) => &m.out_def[i],
        };
        let mut found = Vec::new();
        uses(def, &mut |s| found.push(s));
        for s in found {
            visit(s, &mut work);
        }
    }
    let mut b = Builder {
        slots,
        ops: Vec::new(),
        var_reg: vec![None; m.vars.len()],
        out_reg: vec![None; m.outputs.len()],
    };
    for a in &m.order {
        match *a {
            Alg::Var(i) if need_var[i] => b.var_reg[i] = Some(b.expr(&m.var_def[i])?),
            Alg::Output(i) if need_out[i] => b.out_reg[i] = Some(b.expr(&m.out_def[i])?),
            _ => {}
        }
    }
    let mut regs = Vec::with_capacity(targets.len());
    for t in targets {
        regs.push(b.expr(t)?);
    }
    Some(Tape {
        lead: slots.lead(),
        ops: b.ops,
        targets: regs,
    })
}

impl Builder {
    fn push(&mut self, op: Op) -> u32 {
        self.ops.push(op);
        (self.slots.lead() + self.ops.len() - 1) as u32
    }

    /// The literal value in register `r`, if it holds one.
    fn literal(&self, r: u32) -> Option<f64> {
        match self.ops.get((r as usize).checked_sub(self.slots.lead())?) {
            Some(Op::Const(c)) => Some(*c),
            _ => None,
        }
    }

    fn expr(&mut self, e: &RExpr) -> Option<u32> {
        Some(match e {
            RExpr::Num(v) => self.push(Op::Const(*v)),
            RExpr::Sym(s) => match *s {
                Sym::Time => Slots::TIME as u32,
                Sym::Param(i) => self.slots.param(i) as u32,
                Sym::State(i) => self.slots.state(i) as u32,
                Sym::Input(i) => self.slots.input(i) as u32,
                Sym::Var(i) => (*self.var_reg.get(i)?)?,
                Sym::Output(i) => (*self.out_reg.get(i)?)?,
            },
            RExpr::Neg(a) => {
                let a = self.expr(a)?;
                self.fold(Op::Neg(a))
            }
            RExpr::Bin(op, a, b) => {
                let (a, b) = (self.expr(a)?, self.expr(b)?);
                let op = match op {
                    BinOp::Add => Op::Add(a, b),
                    BinOp::Sub => Op::Sub(a, b),
                    BinOp::Mul => Op::Mul(a, b),
                    BinOp::Div => Op::Div(a, b),
                    BinOp::Pow => Op::Call2(Func::Pow, a, b),
                };
                self.fold(op)
            }
            RExpr::Call(f, args) => {
                let a = self.expr(args.first()?)?;
                let op = match args.get(1) {
                    Some(b) => Op::Call2(*f, a, self.expr(b)?),
                    None => Op::Call1(*f, a),
                };
                self.fold(op)
            }
        })
    }

    /// Pushes `op`, or its value when every operand is a literal (the operand
    /// instructions then stay as dead constants, which cost one store each).
    fn fold(&mut self, op: Op) -> u32 {
        let l = |r: &u32| self.literal(*r);
        let value = match &op {
            Op::Neg(a) => l(a).map(|a| -a),
            Op::Add(a, b) => l(a).zip(l(b)).map(|(a, b)| a + b),
            Op::Sub(a, b) => l(a).zip(l(b)).map(|(a, b)| a - b),
            Op::Mul(a, b) => l(a).zip(l(b)).map(|(a, b)| a * b),
            Op::Div(a, b) => l(a).zip(l(b)).map(|(a, b)| a / b),
            Op::Call1(f, a) => l(a).map(|a| f.eval(a, 0.0)),
            Op::Call2(f, a, b) => l(a).zip(l(b)).map(|(a, b)| f.eval(a, b)),
            Op::Const(_) => None,
        };
        match value {
            Some(v) => self.push(Op::Const(v)),
            None => self.push(op),
        }
    }
}
