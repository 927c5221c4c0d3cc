//! Checking a parsed source and resolving its names: every name declared once, every
//! name used is declared, functions get the right number of arguments, every state has
//! exactly one `der()` equation, every `var` and `output` exactly one definition, and
//! the algebraic definitions (`var`s and `output`s referring to each other) have no
//! cycle. The result is a [`Model`] whose expressions refer to variables by index, with
//! the algebraic definitions in an order where each follows everything it uses.

use super::ast::{DeclKind, Expr, ExprKind, Ident, Stmt, KEYWORDS};
use super::error::{SourceError, Span};
use super::functions::{lookup, FUNCTIONS};
use super::lexer::trailing_comment;
use super::resolved::{eval_const, Alg, Decl, Model, RExpr, Sym};
use super::suggest::suggest;
use alloc::boxed::Box;
use alloc::collections::BTreeMap;
use alloc::format;
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;

/// A statement's right-hand side waiting for resolution, with the span to report.
struct Pending<'a> {
    expr: &'a Expr,
    at: Span,
}

pub(crate) struct Checker<'a> {
    src: &'a str,
    names: BTreeMap<String, (Sym, Span)>,
    pub(crate) model: Model,
}

/// Checks `stmts` (parsed from `src`) and resolves them into a [`Model`].
pub(crate) fn check(src: &str, stmts: &[Stmt]) -> Result<Model, SourceError> {
    let empty = Model {
        params: Vec::new(),
        states: Vec::new(),
        inputs: Vec::new(),
        vars: Vec::new(),
        outputs: Vec::new(),
        der: Vec::new(),
        var_def: Vec::new(),
        out_def: Vec::new(),
        order: Vec::new(),
    };
    let mut c = Checker {
        src,
        names: BTreeMap::new(),
        model: empty,
    };
    // Pass 1: declarations, so that names may be used before the line declaring them.
    let mut var_def: Vec<Option<Pending>> = Vec::new();
    let mut out_def: Vec<Option<Pending>> = Vec::new();
    for s in stmts {
        if let Stmt::Decl {
            kind,
            name,
            unit,
            value,
        } = s
        {
            c.declare(
                *kind,
                name,
                unit.as_deref().unwrap_or(""),
                value.as_ref(),
                &mut var_def,
                &mut out_def,
            )?;
        }
    }
    // Pass 2: equations.
    let mut der: Vec<Option<Pending>> = (0..c.model.states.len()).map(|_| None).collect();
    for s in stmts {
        match s {
            Stmt::Decl { .. } => {}
            Stmt::Der { state, rhs, span } => {
                let i = c.der_target(state)?;
                if let Some(prev) = &der[i] {
                    let line = c.line(prev.at);
                    return Err(c.err(
                        *span,
                        format!("der({}) is already defined on line {line}", state.name),
                    ));
                }
                der[i] = Some(Pending {
                    expr: rhs,
                    at: *span,
                });
            }
            Stmt::Assign { target, rhs } => {
                let slot = match c.assign_target(target)? {
                    Alg::Var(i) => &mut var_def[i],
                    Alg::Output(i) => &mut out_def[i],
                };
                if let Some(prev) = slot {
                    let line = c.line(prev.at);
                    return Err(c.err(
                        target.span,
                        format!("`{}` is already defined on line {line}", target.name),
                    ));
                }
                *slot = Some(Pending {
                    expr: rhs,
                    at: target.span,
                });
            }
        }
    }
    // Resolve right-hand sides in source order, so the first error is the earliest.
    let mut pending: Vec<(usize, u8, usize)> = Vec::new();
    for (i, d) in der.iter().enumerate() {
        if let Some(p) = d {
            pending.push((p.at.start, 0, i));
        }
    }
    for (i, d) in var_def.iter().enumerate() {
        if let Some(p) = d {
            pending.push((p.at.start, 1, i));
        }
    }
    for (i, d) in out_def.iter().enumerate() {
        if let Some(p) = d {
            pending.push((p.at.start, 2, i));
        }
    }
    pending.sort_unstable();
    let mut resolved: [Vec<Option<RExpr>>; 3] = [
        vec![None; der.len()],
        vec![None; var_def.len()],
        vec![None; out_def.len()],
    ];
    for &(_, group, i) in &pending {
        let p = match group {
            0 => der[i].as_ref(),
            1 => var_def[i].as_ref(),
            _ => out_def[i].as_ref(),
        };
        if let Some(p) = p {
            resolved[group as usize][i] = Some(c.resolve(p.expr, false)?);
        }
    }
    // Completeness, in declaration order.
    let [der_r, var_r, out_r] = resolved;
    let mut missing: Vec<(usize, String)> = Vec::new();
    for (d, r) in c.model.states.iter().zip(&der_r) {
        if r.is_none() {
            missing.push((
                d.span.start,
                format!(
                    "state `{}` has no equation; add `der({}) = ...`",
                    d.name, d.name
                ),
            ));
        }
    }
    for (kind, decls, defs) in [
        ("var", &c.model.vars, &var_r),
        ("output", &c.model.outputs, &out_r),
    ] {
        for (d, r) in decls.iter().zip(defs) {
            if r.is_none() {
                let n = &d.name;
                missing.push((
                    d.span.start,
                    format!("{kind} `{n}` has no value; write `{kind} {n} = ...` or `{n} = ...`"),
                ));
            }
        }
    }
    if let Some((at, msg)) = missing.into_iter().min_by_key(|m| m.0) {
        return Err(SourceError::at(src, at, msg));
    }
    c.model.der = der_r.into_iter().flatten().collect();
    c.model.var_def = var_r.into_iter().flatten().collect();
    c.model.out_def = out_r.into_iter().flatten().collect();
    let spans: Vec<Span> = var_def
        .iter()
        .chain(&out_def)
        .map(|p| p.as_ref().map(|p| p.at).unwrap_or_default())
        .collect();
    c.model.order = c.algebraic_order(&spans)?;
    Ok(c.model)
}

impl Checker<'_> {
    pub(crate) fn err(&self, span: Span, msg: String) -> SourceError {
        SourceError::at(self.src, span.start, msg)
    }

    fn line(&self, span: Span) -> u32 {
        super::error::line_column(self.src, span.start).0
    }

    fn declare<'s>(
        &mut self,
        kind: DeclKind,
        name: &Ident,
        unit: &str,
        value: Option<&'s Expr>,
        var_def: &mut Vec<Option<Pending<'s>>>,
        out_def: &mut Vec<Option<Pending<'s>>>,
    ) -> Result<(), SourceError> {
        let n = name.name.as_str();
        if KEYWORDS.contains(&n) {
            return Err(self.err(
                name.span,
                format!("`{n}` is a reserved word and cannot name a variable"),
            ));
        }
        if lookup(n).is_some() {
            return Err(self.err(
                name.span,
                format!("`{n}` is a built-in function and cannot name a variable"),
            ));
        }
        if let Some((_, prev)) = self.names.get(n) {
            let line = self.line(*prev);
            return Err(self.err(
                name.span,
                format!("`{n}` is already declared on line {line}"),
            ));
        }
        let start = match (kind, value) {
            (DeclKind::Parameter, None) => {
                return Err(self.err(
                    name.span,
                    format!("parameter `{n}` needs a value, e.g. `parameter {n} = 1`"),
                ));
            }
            (DeclKind::Parameter | DeclKind::State | DeclKind::Input, Some(e)) => {
                let r = self.resolve(e, true)?;
                let v = eval_const(&r);
                if !v.is_finite() {
                    return Err(self.err(
                        e.span,
                        format!("the value of `{n}` is not a finite number ({v})"),
                    ));
                }
                v
            }
            _ => 0.0,
        };
        let decl = Decl {
            name: n.into(),
            unit: unit.into(),
            start,
            comment: trailing_comment(self.src, name.span.end).into(),
            span: name.span,
        };
        let m = &mut self.model;
        let sym = match kind {
            DeclKind::Parameter => push(&mut m.params, decl, Sym::Param),
            DeclKind::State => push(&mut m.states, decl, Sym::State),
            DeclKind::Input => push(&mut m.inputs, decl, Sym::Input),
            DeclKind::Var => {
                var_def.push(value.map(|expr| Pending {
                    expr,
                    at: name.span,
                }));
                push(&mut m.vars, decl, Sym::Var)
            }
            DeclKind::Output => {
                out_def.push(value.map(|expr| Pending {
                    expr,
                    at: name.span,
                }));
                push(&mut m.outputs, decl, Sym::Output)
            }
        };
        self.names.insert(n.into(), (sym, name.span));
        Ok(())
    }

    fn der_target(&self, state: &Ident) -> Result<usize, SourceError> {
        match self.names.get(&state.name) {
            Some((Sym::State(i), _)) => Ok(*i),
            Some((sym, _)) => Err(self.err(
                state.span,
                format!(
                    "`{}` is {}, not a state; der() applies to states",
                    state.name,
                    describe(*sym)
                ),
            )),
            None if state.name == "time" || state.name == "pi" => Err(self.err(
                state.span,
                format!(
                    "`{}` is built in, not a state; der() applies to states",
                    state.name
                ),
            )),
            None => Err(self.err(state.span, self.unknown(&state.name, "unknown state"))),
        }
    }

    fn assign_target(&self, target: &Ident) -> Result<Alg, SourceError> {
        let n = &target.name;
        match self.names.get(n) {
            Some((Sym::Var(i), _)) => Ok(Alg::Var(*i)),
            Some((Sym::Output(i), _)) => Ok(Alg::Output(*i)),
            Some((Sym::State(_), _)) => Err(self.err(
                target.span,
                format!("`{n}` is a state; define it with `der({n}) = ...`"),
            )),
            Some((Sym::Param(_), _)) => Err(self.err(
                target.span,
                format!("`{n}` is a parameter; it gets its value in its declaration"),
            )),
            Some((Sym::Input(_) | Sym::Time, _)) => Err(self.err(
                target.span,
                format!("`{n}` is an input; its value comes from a connection"),
            )),
            None if KEYWORDS.contains(&n.as_str()) => Err(self.err(
                target.span,
                format!("`{n}` is a reserved word and cannot be assigned"),
            )),
            None => Err(self.err(
                target.span,
                format!(
                    "{}; declare it first, e.g. `output {n} = ...`",
                    self.unknown(n, "unknown name")
                ),
            )),
        }
    }

    /// "unknown name `Fx`; did you mean `Fk`?"
    fn unknown(&self, name: &str, what: &str) -> String {
        let known = self.names.keys().map(String::as_str).chain(["time", "pi"]);
        match suggest(name, known) {
            Some(s) => format!("{what} `{name}`; did you mean `{s}`?"),
            None => format!("{what} `{name}`"),
        }
    }

    /// Resolves `e`; with `constant`, only numbers, `pi` and functions are allowed.
    fn resolve(&self, e: &Expr, constant: bool) -> Result<RExpr, SourceError> {
        Ok(match &e.kind {
            ExprKind::Num(v) => RExpr::Num(*v),
            ExprKind::Name(n) if n == "pi" => RExpr::Num(core::f64::consts::PI),
            ExprKind::Name(n) => {
                let sym = match (n.as_str(), self.names.get(n)) {
                    ("time", _) => Sym::Time,
                    (_, Some((sym, _))) => *sym,
                    ("der", None) => {
                        return Err(
                            self.err(e.span, "der() can only stand on the left of `=`".into())
                        );
                    }
                    (_, None) if lookup(n).is_some() => {
                        return Err(self.err(
                            e.span,
                            format!("`{n}` is a function; call it as `{n}(...)`"),
                        ));
                    }
                    (_, None) => return Err(self.err(e.span, self.unknown(n, "unknown name"))),
                };
                if constant {
                    return Err(self.err(
                        e.span,
                        format!("start values must be constant: `{n}` cannot be used here"),
                    ));
                }
                RExpr::Sym(sym)
            }
            ExprKind::Neg(a) => RExpr::Neg(Box::new(self.resolve(a, constant)?)),
            ExprKind::Bin(op, a, b) => RExpr::Bin(
                *op,
                Box::new(self.resolve(a, constant)?),
                Box::new(self.resolve(b, constant)?),
            ),
            ExprKind::Call(f, args) => {
                let Some((func, arity)) = lookup(&f.name) else {
                    let msg = if f.name == "der" {
                        String::from("der() can only stand on the left of `=`")
                    } else if self.names.contains_key(&f.name) || f.name == "time" || f.name == "pi"
                    {
                        format!("`{}` is not a function", f.name)
                    } else {
                        match suggest(&f.name, FUNCTIONS.iter().map(|f| f.0)) {
                            Some(s) => {
                                format!("unknown function `{}`; did you mean `{s}`?", f.name)
                            }
                            None => format!("unknown function `{}`", f.name),
                        }
                    };
                    return Err(self.err(f.span, msg));
                };
                if args.len() != arity {
                    let plural = if arity == 1 { "" } else { "s" };
                    return Err(self.err(
                        f.span,
                        format!(
                            "`{}` takes {arity} argument{plural}, got {}",
                            f.name,
                            args.len()
                        ),
                    ));
                }
                let mut out = Vec::with_capacity(args.len());
                for a in args {
                    out.push(self.resolve(a, constant)?);
                }
                RExpr::Call(func, out)
            }
        })
    }
}

fn push(list: &mut Vec<Decl>, d: Decl, make: fn(usize) -> Sym) -> Sym {
    list.push(d);
    make(list.len() - 1)
}

fn describe(sym: Sym) -> &'static str {
    match sym {
        Sym::Time => "time",
        Sym::Param(_) => "a parameter",
        Sym::State(_) => "a state",
        Sym::Input(_) => "an input",
        Sym::Var(_) => "a var",
        Sym::Output(_) => "an output",
    }
}
