//! The built-in functions: name, arity, value and forward-mode derivative rule. The
//! operator `a ^ b` is [`Func::Pow`].

/// A built-in function.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Func {
    Sin,
    Cos,
    Tan,
    Asin,
    Acos,
    Atan,
    Sinh,
    Cosh,
    Tanh,
    Exp,
    Log,
    Sqrt,
    Abs,
    Min,
    Max,
    Pow,
    Atan2,
}

/// Every function by the name a source calls it, with its number of arguments.
pub(crate) const FUNCTIONS: &[(&str, Func, usize)] = &[
    ("sin", Func::Sin, 1),
    ("cos", Func::Cos, 1),
    ("tan", Func::Tan, 1),
    ("asin", Func::Asin, 1),
    ("acos", Func::Acos, 1),
    ("atan", Func::Atan, 1),
    ("sinh", Func::Sinh, 1),
    ("cosh", Func::Cosh, 1),
    ("tanh", Func::Tanh, 1),
    ("exp", Func::Exp, 1),
    ("log", Func::Log, 1),
    ("sqrt", Func::Sqrt, 1),
    ("abs", Func::Abs, 1),
    ("min", Func::Min, 2),
    ("max", Func::Max, 2),
    ("pow", Func::Pow, 2),
    ("atan2", Func::Atan2, 2),
];

/// The function called `name` and its arity.
pub(crate) fn lookup(name: &str) -> Option<(Func, usize)> {
    FUNCTIONS
        .iter()
        .find(|(n, _, _)| *n == name)
        .map(|&(_, f, a)| (f, a))
}

impl Func {
    /// `f(a)` or `f(a, b)` (`b` ignored by one-argument functions).
    pub fn eval(self, a: f64, b: f64) -> f64 {
        match self {
            Func::Sin => libm::sin(a),
            Func::Cos => libm::cos(a),
            Func::Tan => libm::tan(a),
            Func::Asin => libm::asin(a),
            Func::Acos => libm::acos(a),
            Func::Atan => libm::atan(a),
            Func::Sinh => libm::sinh(a),
            Func::Cosh => libm::cosh(a),
            Func::Tanh => libm::tanh(a),
            Func::Exp => libm::exp(a),
            Func::Log => libm::log(a),
            Func::Sqrt => libm::sqrt(a),
            Func::Abs => libm::fabs(a),
            Func::Min => a.min(b),
            Func::Max => a.max(b),
            Func::Pow => libm::pow(a, b),
            Func::Atan2 => libm::atan2(a, b),
        }
    }

    /// Tangent of `r = f(a, b)` for argument tangents `da`, `db` (chain rule). A zero
    /// tangent contributes exactly zero, even where the partial derivative is infinite
    /// (`sqrt` at 0, `log` at 0, `pow` with a negative base), so structurally constant
    /// arguments never turn a Jacobian entry into NaN.
    pub fn tangent(self, a: f64, b: f64, r: f64, da: f64, db: f64) -> f64 {
        let d1 = |partial: f64| if da == 0.0 { 0.0 } else { partial * da };
        match self {
            Func::Sin => d1(libm::cos(a)),
            Func::Cos => d1(-libm::sin(a)),
            Func::Tan => d1(1.0 + r * r),
            Func::Asin => d1(1.0 / libm::sqrt(1.0 - a * a)),
            Func::Acos => d1(-1.0 / libm::sqrt(1.0 - a * a)),
            Func::Atan => d1(1.0 / (1.0 + a * a)),
            Func::Sinh => d1(libm::cosh(a)),
            Func::Cosh => d1(libm::sinh(a)),
            Func::Tanh => d1(1.0 - r * r),
            Func::Exp => d1(r),
            Func::Log => d1(1.0 / a),
            Func::Sqrt => d1(0.5 / r),
            // The derivative of |a| at 0 is taken as 0 (the central difference's value).
            Func::Abs => d1(if a > 0.0 {
                1.0
            } else if a < 0.0 {
                -1.0
            } else {
                0.0
            }),
            Func::Min => {
                if a <= b {
                    da
                } else {
                    db
                }
            }
            Func::Max => {
                if a >= b {
                    da
                } else {
                    db
                }
            }
            Func::Pow => {
                // d(a^b) = b a^(b-1) da + a^b ln(a) db.
                let base = if da == 0.0 || b == 0.0 {
                    0.0
                } else {
                    b * libm::pow(a, b - 1.0) * da
                };
                let expo = if db == 0.0 {
                    0.0
                } else {
                    r * libm::log(a) * db
                };
                base + expo
            }
            Func::Atan2 => {
                // atan2(y, x): (x dy − y dx) / (x² + y²).
                let den = a * a + b * b;
                let dy = if da == 0.0 { 0.0 } else { b * da };
                let dx = if db == 0.0 { 0.0 } else { a * db };
                (dy - dx) / den
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_tangent_matches_a_central_difference() {
        // Points inside every function's domain; min/max away from their switch.
        let (a, b) = (0.4, 1.3);
        for &(name, f, arity) in FUNCTIONS {
            for arg in 0..arity {
                let (da, db) = if arg == 0 { (1.0, 0.0) } else { (0.0, 1.0) };
                let exact = f.tangent(a, b, f.eval(a, b), da, db);
                let e = 1e-6;
                let fd =
                    (f.eval(a + e * da, b + e * db) - f.eval(a - e * da, b - e * db)) / (2.0 * e);
                assert!(
                    libm::fabs(exact - fd) < 1e-8,
                    "{name} argument {arg}: {exact} vs {fd}"
                );
            }
        }
    }
}
