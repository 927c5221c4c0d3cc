//! Tests of the defect study.

use super::*;
use alloc::vec;

#[test]
fn print_e3_table() {
    let axis = [1e-2, libm::pow(10.0, -1.6), libm::pow(10.0, -1.2), libm::pow(10.0, -0.8)];
    for slaves in [Method::Euler, Method::Exact] {
        for init in [Initialisation::ZeroDerivatives, Initialisation::Consistent] {
            let r = sweep(Experiment::E3, slaves, init, &[0, 1, 2], Some(&axis)).expect("sweep");
            for s in slopes(Experiment::E3, &r, (1e-2, 0.16)) {
                std::println!("{slaves:?} {init:?} order {}: out {:?} conn {:?} err {:?}", s.order, s.output_defect, s.connection_defect, s.error);
            }
            for x in &r {
                std::println!("   h {:.4} m{} n{} out {:?} conn {:?} err {:?} dx {:e} ratio {:.3e}", axis_value(x), x.case.input_order, x.case.output_order, x.output_defect, x.connection_defect, x.error, x.integration_defect, x.bound_ratio());
            }
        }
    }
    let _ = vec![0];
}
