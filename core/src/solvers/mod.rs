//! ODE integrators and the augmented matrix exponential.
