//! Parser: tokens to an AST with spans. One statement per line:
//!
//! ```text
//! program := { [stmt] line-end }
//! stmt    := kind NAME [UNIT] ["=" expr] [UNIT]       kind: parameter input state var output
//!          | "der" "(" NAME ")" "=" expr
//!          | NAME "=" expr
//! expr    := term { ("+" | "-") term }
//! term    := unary { ("*" | "/") unary }
//! unary   := ("-" | "+") unary | power
//! power   := primary [ "^" unary ]                     right-associative; -x^2 = -(x^2)
//! primary := NUMBER | NAME | NAME "(" [expr {"," expr}] ")" | "(" expr ")"
//! ```
//!
//! Line ends inside parentheses are ignored, so long expressions may wrap. Nesting is
//! limited to [`MAX_DEPTH`] so that no input can overflow the stack.

use super::ast::{BinOp, DeclKind, Expr, ExprKind, Ident, Stmt};
use super::error::{SourceError, Span};
use super::lexer::{lex, Tok, Token};
use alloc::boxed::Box;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

/// Deepest nesting of parentheses, calls, unary signs and powers in one expression.
pub const MAX_DEPTH: usize = 64;
/// Largest depth of an expression tree (a sum of `n` terms is `n` deep); later stages
/// walk trees recursively, so this bounds their stack use too.
pub const MAX_TREE_DEPTH: u32 = 256;

struct Parser<'a> {
    src: &'a str,
    toks: Vec<Token>,
    pos: usize,
    /// Open parentheses: line ends inside them are skipped.
    parens: usize,
    depth: usize,
}

/// Parses a whole source into statements.
pub(crate) fn parse(src: &str) -> Result<Vec<Stmt>, SourceError> {
    #[cfg(all(test, feature = "std"))]
    tests::count_parse();
    let toks = lex(src)?;
    let mut p = Parser {
        src,
        toks,
        pos: 0,
        parens: 0,
        depth: 0,
    };
    let mut out = Vec::new();
    loop {
        match p.peek().tok {
            Tok::Eof => return Ok(out),
            Tok::Newline => {
                p.pos += 1;
            }
            _ => {
                out.push(p.statement()?);
                let t = p.peek();
                if !matches!(t.tok, Tok::Newline | Tok::Eof) {
                    return Err(p.error_at(
                        t.span.start,
                        format!("expected the end of the line, found {}", t.tok.describe()),
                    ));
                }
            }
        }
    }
}

impl<'a> Parser<'a> {
    fn peek(&mut self) -> Token {
        if self.parens > 0 {
            while self.toks[self.pos].tok == Tok::Newline {
                self.pos += 1;
            }
        }
        self.toks[self.pos]
    }

    fn bump(&mut self) -> Token {
        let t = self.peek();
        if t.tok != Tok::Eof {
            self.pos += 1;
        }
        t
    }

    fn text(&self, span: Span) -> &'a str {
        &self.src[span.start..span.end]
    }

    fn error_at(&self, at: usize, message: String) -> SourceError {
        SourceError::at(self.src, at, message)
    }

    fn expect(&mut self, want: Tok, context: &str) -> Result<Token, SourceError> {
        let t = self.peek();
        if core::mem::discriminant(&t.tok) == core::mem::discriminant(&want) {
            Ok(self.bump())
        } else {
            Err(self.error_at(
                t.span.start,
                format!(
                    "expected {} {context}, found {}",
                    want.describe(),
                    t.tok.describe()
                ),
            ))
        }
    }

    fn ident(&mut self, context: &str) -> Result<Ident, SourceError> {
        let t = self.expect(Tok::Ident, context)?;
        Ok(Ident {
            name: self.text(t.span).into(),
            span: t.span,
        })
    }

    fn unit(&mut self) -> Option<String> {
        let t = self.peek();
        (t.tok == Tok::Str).then(|| {
            self.bump();
            self.text(Span::new(t.span.start + 1, t.span.end - 1))
                .into()
        })
    }

    fn statement(&mut self) -> Result<Stmt, SourceError> {
        let first = self.expect(Tok::Ident, "at the start of a statement")?;
        let word = self.text(first.span);
        if let Some(kind) = DeclKind::from_keyword(word) {
            let name = self.ident(&format!("after `{word}`"))?;
            let mut unit = self.unit();
            let mut value = None;
            if self.peek().tok == Tok::Eq {
                self.bump();
                value = Some(self.expr()?);
                if let Some(u) = self.unit() {
                    if unit.is_some() {
                        let at = self.toks[self.pos - 1].span.start;
                        return Err(self.error_at(at, format!("`{}` has two units", name.name)));
                    }
                    unit = Some(u);
                }
            }
            return Ok(Stmt::Decl {
                kind,
                name,
                unit,
                value,
            });
        }
        if word == "der" && self.peek().tok == Tok::LParen {
            self.bump();
            self.parens += 1;
            let state = self.ident("inside `der( )`")?;
            let close = self.expect(Tok::RParen, "to close `der(`")?;
            self.parens -= 1;
            self.expect(Tok::Eq, &format!("after `der({})`", state.name))?;
            let rhs = self.expr()?;
            return Ok(Stmt::Der {
                state,
                rhs,
                span: first.span.to(close.span),
            });
        }
        let target = Ident {
            name: word.into(),
            span: first.span,
        };
        let t = self.peek();
        if t.tok != Tok::Eq {
            let hint =
                "a statement is a declaration (`parameter`, `input`, `state`, `var`, `output`), \
                        `der(x) = ...` or `name = ...`";
            return Err(self.error_at(
                t.span.start,
                format!(
                    "expected `=` after `{word}`, found {}; {hint}",
                    t.tok.describe()
                ),
            ));
        }
        self.bump();
        let rhs = self.expr()?;
        Ok(Stmt::Assign { target, rhs })
    }

    /// A node with its tree depth; too deep a tree is an error at its start.
    fn node(&self, kind: ExprKind, span: Span) -> Result<Expr, SourceError> {
        let below = match &kind {
            ExprKind::Num(_) | ExprKind::Name(_) => 0,
            ExprKind::Neg(a) => a.depth,
            ExprKind::Bin(_, a, b) => a.depth.max(b.depth),
            ExprKind::Call(_, args) => args.iter().map(|a| a.depth).max().unwrap_or(0),
        };
        if below >= MAX_TREE_DEPTH {
            return Err(self.error_at(span.start, format!("expression too long: more than {MAX_TREE_DEPTH} operations deep; split it with `var`")));
        }
        Ok(Expr {
            kind,
            span,
            depth: below + 1,
        })
    }

    fn nested<T>(
        &mut self,
        at: usize,
        f: impl FnOnce(&mut Self) -> Result<T, SourceError>,
    ) -> Result<T, SourceError> {
        if self.depth >= MAX_DEPTH {
            return Err(self.error_at(
                at,
                format!("expression nested more than {MAX_DEPTH} levels deep"),
            ));
        }
        self.depth += 1;
        let r = f(self);
        self.depth -= 1;
        r
    }

    fn expr(&mut self) -> Result<Expr, SourceError> {
        self.left_associative(Self::term, |tok| match tok {
            Tok::Plus => Some(BinOp::Add),
            Tok::Minus => Some(BinOp::Sub),
            _ => None,
        })
    }

    fn term(&mut self) -> Result<Expr, SourceError> {
        self.left_associative(Self::unary, |tok| match tok {
            Tok::Star => Some(BinOp::Mul),
            Tok::Slash => Some(BinOp::Div),
            _ => None,
        })
    }

    /// One precedence level of left-associative operators: `operand (op operand)*`, with
    /// `op_of` saying which tokens are this level's operators.
    fn left_associative(
        &mut self,
        operand: fn(&mut Self) -> Result<Expr, SourceError>,
        op_of: fn(&Tok) -> Option<BinOp>,
    ) -> Result<Expr, SourceError> {
        let mut lhs = operand(self)?;
        while let Some(op) = op_of(&self.peek().tok) {
            self.bump();
            let rhs = operand(self)?;
            let span = lhs.span.to(rhs.span);
            lhs = self.node(ExprKind::Bin(op, Box::new(lhs), Box::new(rhs)), span)?;
        }
        Ok(lhs)
    }

    fn unary(&mut self) -> Result<Expr, SourceError> {
        let t = self.peek();
        match t.tok {
            Tok::Minus | Tok::Plus => {
                self.bump();
                let inner = self.nested(t.span.start, Self::unary)?;
                if t.tok == Tok::Plus {
                    return Ok(inner);
                }
                let span = t.span.to(inner.span);
                self.node(ExprKind::Neg(Box::new(inner)), span)
            }
            _ => self.power(),
        }
    }

    fn power(&mut self) -> Result<Expr, SourceError> {
        let base = self.primary()?;
        let t = self.peek();
        if t.tok != Tok::Caret {
            return Ok(base);
        }
        self.bump();
        let exp = self.nested(t.span.start, Self::unary)?;
        let span = base.span.to(exp.span);
        self.node(
            ExprKind::Bin(BinOp::Pow, Box::new(base), Box::new(exp)),
            span,
        )
    }

    fn primary(&mut self) -> Result<Expr, SourceError> {
        let t = self.bump();
        match t.tok {
            Tok::Number(v) => self.node(ExprKind::Num(v), t.span),
            Tok::Ident => {
                let name = Ident {
                    name: self.text(t.span).into(),
                    span: t.span,
                };
                if self.peek().tok != Tok::LParen {
                    return self.node(ExprKind::Name(name.name), t.span);
                }
                self.bump();
                self.parens += 1;
                let args = self.nested(t.span.start, Self::arguments)?;
                let close = self.expect(
                    Tok::RParen,
                    &format!("to close the call of `{}`", name.name),
                )?;
                self.parens -= 1;
                let span = t.span.to(close.span);
                self.node(ExprKind::Call(name, args), span)
            }
            Tok::LParen => {
                self.parens += 1;
                let inner = self.nested(t.span.start, Self::expr)?;
                self.expect(Tok::RParen, "to close `(`")?;
                self.parens -= 1;
                Ok(inner)
            }
            other => Err(self.error_at(
                t.span.start,
                format!(
                    "expected a number, a name or `(`, found {}",
                    other.describe()
                ),
            )),
        }
    }

    fn arguments(&mut self) -> Result<Vec<Expr>, SourceError> {
        let mut args = Vec::new();
        if self.peek().tok == Tok::RParen {
            return Ok(args);
        }
        loop {
            args.push(self.expr()?);
            if self.peek().tok != Tok::Comma {
                return Ok(args);
            }
            self.bump();
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    #[cfg(feature = "std")]
    std::thread_local! {
        static PARSES: core::cell::Cell<u64> = const { core::cell::Cell::new(0) };
    }

    /// Counts a parse on the current thread (tests run in parallel threads).
    #[cfg(feature = "std")]
    pub(crate) fn count_parse() {
        PARSES.with(|c| c.set(c.get() + 1));
    }

    /// Parses performed by the current test thread.
    #[cfg(feature = "std")]
    pub(crate) fn parses_on_this_thread() -> u64 {
        PARSES.with(|c| c.get())
    }

    fn one(src: &str) -> Stmt {
        let mut s = parse(src).expect("parses");
        assert_eq!(s.len(), 1);
        s.remove(0)
    }

    fn shape(e: &Expr) -> String {
        match &e.kind {
            ExprKind::Num(v) => format!("{v}"),
            ExprKind::Name(n) => n.clone(),
            ExprKind::Neg(a) => format!("(-{})", shape(a)),
            ExprKind::Bin(op, a, b) => {
                let o = match op {
                    BinOp::Add => "+",
                    BinOp::Sub => "-",
                    BinOp::Mul => "*",
                    BinOp::Div => "/",
                    BinOp::Pow => "^",
                };
                format!("({}{o}{})", shape(a), shape(b))
            }
            ExprKind::Call(f, args) => {
                let a: Vec<String> = args.iter().map(shape).collect();
                format!("{}({})", f.name, a.join(","))
            }
        }
    }

    #[test]
    fn precedence_and_associativity() {
        let Stmt::Assign { rhs, .. } = one("y = -a^2^b + b*c/d - e") else {
            panic!("assignment")
        };
        assert_eq!(shape(&rhs), "(((-(a^(2^b)))+((b*c)/d))-e)");
        let Stmt::Der { state, rhs, .. } = one("der(v) = (-c*x\n - d*v + F)/m") else {
            panic!("der")
        };
        assert_eq!(state.name, "v");
        assert_eq!(shape(&rhs), "(((((-c)*x)-(d*v))+F)/m)");
    }

    #[test]
    fn declarations_take_the_unit_before_or_after_the_value() {
        let Stmt::Decl {
            kind,
            name,
            unit,
            value,
        } = one("output s1 \"m\" = x")
        else {
            panic!("decl")
        };
        assert_eq!(
            (kind, name.name.as_str(), unit.as_deref()),
            (DeclKind::Output, "s1", Some("m"))
        );
        assert!(value.is_some());
        let Stmt::Decl { unit, .. } = one("parameter c = 1e6 \"N/m\"") else {
            panic!("decl")
        };
        assert_eq!(unit.as_deref(), Some("N/m"));
        let Stmt::Decl { value, .. } = one("input F \"N\"") else {
            panic!("decl")
        };
        assert!(value.is_none());
    }

    #[test]
    fn long_sums_are_an_error_not_a_stack_overflow() {
        let src = format!("y = 1{}", "+1".repeat(10_000));
        let e = parse(&src).expect_err("too long");
        assert!(e.message.contains("too long"), "{e}");
        assert!(parse(&format!("y = 1{}", "+1".repeat(200))).is_ok());
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_stack_overflow() {
        let src = format!("y = {}1{}", "(".repeat(10_000), ")".repeat(10_000));
        let e = parse(&src).expect_err("too deep");
        assert!(e.message.contains("nested"), "{e}");
        let src = format!("y = {}1", "-".repeat(10_000));
        assert!(parse(&src).is_err());
    }
}
