//! Tests of the energy monitor, correction and multi-rate Jacobi on the double oscillator.
