//! Tests of equation modules: error positions, Jacobians, the two-mass oscillator against
//! the built-in modules, robustness on arbitrary input.
