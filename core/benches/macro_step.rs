//! Placeholder replaced by the benchmark of the two-mass oscillator macro-step.
fn main() {}
