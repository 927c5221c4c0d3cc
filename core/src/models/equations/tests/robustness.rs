//! No input makes the compiler or the module panic (random bytes, random token soup,
//! every truncation of a valid source, single-byte mutations; a fixed-seed xorshift
//! generator), and evaluation reuses the compiled tapes instead of parsing again.

use super::super::{describe_equations, EquationModule, EXAMPLE_SOURCE};
use super::{module, vr, MASS2_SOURCE, VAN_DER_POL};
use crate::module::{DirectionalDerivatives, JacobianProduct, Module, ValueRef};
use crate::solvers::{Dopri45, Integrator};
use alloc::collections::BTreeMap;
use alloc::string::String;
use alloc::vec::Vec;

/// Marsaglia's xorshift64 (J. Stat. Softw. 8(14), 2003), fixed seed.
struct XorShift(u64);

impl XorShift {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// Compiles `src`; if it compiles, builds it, evaluates everything once and steps once.
/// Errors are fine; panics are not. An error's position must lie inside the source.
fn exercise(src: &str) {
    match describe_equations(src) {
        Err(e) => {
            let lines = src.matches('\n').count() as u32 + 1;
            assert!(
                e.line >= 1 && e.line <= lines && e.column >= 1,
                "{e} for {src:?}"
            );
            assert!(!e.message.is_empty());
        }
        Ok(desc) => {
            let integrator = Integrator::Dopri45(Dopri45 {
                rtol: 1e-6,
                atol: 1e-9,
            });
            let Ok(mut m) = EquationModule::new(src, &BTreeMap::new(), integrator) else {
                panic!("describe succeeded but build failed for {src:?}");
            };
            let all: Vec<ValueRef> = desc.variables.iter().map(|v| v.value_ref).collect();
            let mut values = alloc::vec![0.0; all.len()];
            let _ = m.get_float64(&all, &mut values);
            let states: Vec<ValueRef> = desc.states().iter().map(|s| s.0.value_ref).collect();
            let ders: Vec<ValueRef> = desc.states().iter().map(|s| s.1.value_ref).collect();
            let seed = alloc::vec![1.0; states.len()];
            let mut sens = alloc::vec![0.0; ders.len()];
            let _ = m.directional_derivative(
                JacobianProduct::new(&ders, &states, &seed, &mut sens).expect("lengths"),
            );
            let _ = m.do_step(0.0, 1e-3, true);
        }
    }
}

const TOKENS: &[&str] = &[
    "parameter ",
    "input ",
    "state ",
    "var ",
    "output ",
    "der",
    "(",
    ")",
    "=",
    "+",
    "-",
    "*",
    "/",
    "^",
    ",",
    " x",
    " y",
    " v",
    " F",
    " 1",
    " 2.5e3",
    " .5",
    "\n",
    "\"m\"",
    " sin",
    " atan2",
    " time",
    " pi",
    ";",
    " ",
    "//c\n",
    "1e",
    "\"",
    "max",
    "é",
    "\t",
];

#[test]
fn no_panic_on_random_bytes_token_soup_truncations_and_mutations() {
    let mut rng = XorShift(0x9E37_79B9_7F4A_7C15);
    for _ in 0..400 {
        let len = rng.below(120);
        let bytes: Vec<u8> = (0..len).map(|_| rng.next() as u8).collect();
        exercise(&String::from_utf8_lossy(&bytes));
    }
    for _ in 0..1500 {
        let n = 1 + rng.below(40);
        let src: String = (0..n).map(|_| TOKENS[rng.below(TOKENS.len())]).collect();
        exercise(&src);
    }
    for src in [EXAMPLE_SOURCE, MASS2_SOURCE, VAN_DER_POL] {
        for end in (0..=src.len()).filter(|&i| src.is_char_boundary(i)) {
            exercise(&src[..end]);
        }
        let bytes = src.as_bytes();
        for _ in 0..300 {
            let mut b = bytes.to_vec();
            let i = rng.below(b.len());
            b[i] = b"()=+-*/^,.e\"\n x0"[rng.below(16)];
            exercise(&String::from_utf8_lossy(&b));
        }
    }
}

#[test]
fn sources_at_the_limits_are_refused_cleanly() {
    let long = alloc::format!("output y = 0\n{}", "// padding\n".repeat(10_000));
    let e = describe_equations(&long).expect_err("too long");
    assert!(e.message.contains("longer than"), "{e}");
    // Many vars in a chain are ordered without recursion.
    let mut chain = String::from("input u\nstate x\nder(x) = -x\nvar a0 = u\n");
    for i in 1..3000 {
        chain.push_str(&alloc::format!("var a{i} = a{} + 1\n", i - 1));
    }
    chain.push_str("output y = a2999\n");
    let mut m = module(&chain);
    let mut y = [0.0];
    m.get_float64(&[vr(&m, "y")], &mut y).expect("evaluates");
    assert_eq!(y[0], 2999.0);
}

#[cfg(feature = "std")]
#[test]
fn evaluation_reuses_the_compiled_tapes_without_parsing_again() {
    use super::super::parser::tests::parses_on_this_thread;
    let before = parses_on_this_thread();
    let mut m = module(VAN_DER_POL);
    assert_eq!(parses_on_this_thread(), before + 1, "building parses once");
    let tapes = m.program().clone();
    assert!(tapes.rhs_tape().instructions() > 0 && tapes.output_tape().instructions() > 0);
    let (p, e, x) = (vr(&m, "p"), vr(&m, "e"), vr(&m, "x"));
    let mu = vr(&m, "mu");
    let mut out = [0.0; 2];
    let mut t = 0.0;
    for _ in 0..200 {
        m.get_float64(&[p, e], &mut out).expect("get");
        m.directional_derivative(
            JacobianProduct::new(&[p], &[x], &[1.0], &mut out[..1]).expect("lengths"),
        )
        .expect("AD");
        m.do_step(t, 1e-3, true).expect("step");
        t += 1e-3;
    }
    m.set_float64(&[mu], &[2.0]).expect("parameter");
    m.reset().expect("reset");
    assert_eq!(
        parses_on_this_thread(),
        before + 1,
        "no parse after construction"
    );
    // The compiled form is the same value throughout.
    assert_eq!(m.program(), &tapes);
}
