//! Equation modules: a person writes a module's equations as text, and it runs like a
//! built-in ODE module.
//!
//! # The language
//!
//! One statement per line (`;` also ends a statement; line ends inside parentheses do
//! not). `//` starts a comment; on a declaration's line it becomes the variable's
//! description. Units are optional strings, written after the name or at the end of the
//! declaration.
//!
//! ```text
//! // Mass 1 of the two-mass oscillator
//! parameter m1 = 10 "kg"          // parameter NAME = constant ["unit"]
//! parameter c1 = 1e6 "N/m"
//! parameter d1 = 1 "N*s/m"
//! input Fk "N"                    // input NAME ["unit"] [= start], start 0 by default
//! state x = 0.01 "m"              // state NAME = start ["unit"], start 0 by default
//! state v = 0 "m/s"
//! var a = (-c1*x - d1*v + Fk)/m1  // var NAME ["unit"] = expression: an intermediate value
//! der(x) = v                      // exactly one der() equation per state
//! der(v) = a
//! output s1 "m" = x               // output NAME ["unit"] = expression
//! output v1 "m/s"                 // ... or declared here and defined by `v1 = v`
//! v1 = v
//! ```
//!
//! Expressions: numbers (`2`, `0.5`, `.5`, `1e6`, `1.5E-3`), names, `time` (s), `pi`,
//! `+ - * /`, `^` (power, right-associative, binds tighter than unary minus: `-x^2` is
//! `-(x^2)`), parentheses, and the functions `sin cos tan asin acos atan sinh cosh tanh
//! exp log sqrt abs` (one argument) and `min max pow atan2` (two; `atan2(y, x)`).
//! Start values and parameter defaults must be constant (numbers, `pi`, functions).
//! Names are letters, digits and `_`, not starting with a digit; the keywords
//! `parameter input state var output der time pi` and function names are reserved.
//! `var`s and outputs may use each other in any order as long as no cycle forms.
//!
//! # Pipeline
//!
//! `lexer` → `parser` (AST with spans) → `check` (names, arity, one `der()` per state,
//! one definition per `var`/output, algebraic cycles) → `compile` (two topologically
//! ordered register tapes, evaluated without re-parsing) → `ad` (forward-mode AD over
//! the tapes: exact Jacobians) and `structure` (feedthrough, linearity) →
//! [`EquationModule`]. Every error carries a 1-based line and column ([`SourceError`]).

mod ad;
mod ast;
mod check;
mod compile;
mod error;
mod functions;
mod lexer;
mod module;
mod order;
mod parser;
mod pipeline;
mod resolved;
mod structure;
pub(crate) mod suggest;

#[cfg(test)]
mod tests;

pub use compile::{Program, Tape};
pub use error::SourceError;
pub(super) use module::ENTRY;
pub use module::{build, EquationModule};
pub use parser::{MAX_DEPTH, MAX_TREE_DEPTH};
pub use pipeline::{
    describe_equations, settable_variables, EQUATIONS_ID, EXAMPLE_SOURCE, MAX_SOURCE_BYTES,
};
