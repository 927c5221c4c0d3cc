//! The syntax tree the parser builds: statements and expressions with the source spans
//! that errors point at.

use super::error::Span;
use alloc::boxed::Box;
use alloc::string::String;
use alloc::vec::Vec;

/// A name and where it is written.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Ident {
    pub name: String,
    pub span: Span,
}

/// Binary operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
    Pow,
}

/// An expression node.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum ExprKind {
    Num(f64),
    Name(String),
    Neg(Box<Expr>),
    Bin(BinOp, Box<Expr>, Box<Expr>),
    Call(Ident, Vec<Expr>),
}

/// An expression and the source it covers.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Expr {
    pub kind: ExprKind,
    pub span: Span,
    /// Height of the tree below this node (a leaf is 1).
    pub depth: u32,
}

/// What a declaration declares.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum DeclKind {
    Parameter,
    Input,
    State,
    Var,
    Output,
}

impl DeclKind {
    pub fn keyword(self) -> &'static str {
        match self {
            DeclKind::Parameter => "parameter",
            DeclKind::Input => "input",
            DeclKind::State => "state",
            DeclKind::Var => "var",
            DeclKind::Output => "output",
        }
    }

    pub(crate) fn from_keyword(word: &str) -> Option<Self> {
        [
            DeclKind::Parameter,
            DeclKind::Input,
            DeclKind::State,
            DeclKind::Var,
            DeclKind::Output,
        ]
        .into_iter()
        .find(|k| k.keyword() == word)
    }
}

/// One statement.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Stmt {
    /// `kind name "unit" = value`.
    Decl {
        kind: DeclKind,
        name: Ident,
        unit: Option<String>,
        value: Option<Expr>,
    },
    /// `der(state) = rhs`; `span` covers `der(state)`.
    Der { state: Ident, rhs: Expr, span: Span },
    /// `target = rhs` for a `var` or `output` declared without a value.
    Assign { target: Ident, rhs: Expr },
}

/// Words with a meaning of their own, which cannot name variables.
pub(crate) const KEYWORDS: &[&str] = &[
    "parameter",
    "input",
    "state",
    "var",
    "output",
    "der",
    "time",
    "pi",
];
