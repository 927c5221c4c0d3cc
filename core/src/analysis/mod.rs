//! Analysis of coupled systems: monolithic reference solutions and error metrics.
