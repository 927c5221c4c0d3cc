//! Tests of energy monitoring, correction and multi-rate Jacobi through whole runs.
