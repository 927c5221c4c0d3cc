//! The arguments of the derivative calls, checked once when built: [`JacobianProduct`]
//! (`fmi3GetDirectionalDerivative`) and [`Derivatives`] (`fmi3GetOutputDerivatives`,
//! `x-setInputDerivatives`). FMI passes parallel arrays with their lengths; here the
//! lengths are checked by the constructor, so no implementation has to (or can forget to).

use super::{ModuleError, ValueRef};

/// `fmi3GetDirectionalDerivative`: `sensitivity = J(unknowns, knowns) · seed` at the
/// current point. Unknowns are outputs or state derivatives `der(x)`; knowns are inputs or
/// exposed states.
#[derive(Debug)]
#[non_exhaustive]
pub struct JacobianProduct<'a> {
    /// Outputs or `der(x)` variables: the rows of `J`.
    pub unknowns: &'a [ValueRef],
    /// Inputs or exposed states: the columns of `J`.
    pub knowns: &'a [ValueRef],
    /// One value per known.
    pub seed: &'a [f64],
    /// One slot per unknown, written by the call.
    pub sensitivity: &'a mut [f64],
}

impl<'a> JacobianProduct<'a> {
    /// Fails unless `seed` has one value per known and `sensitivity` one slot per unknown.
    pub fn new(
        unknowns: &'a [ValueRef],
        knowns: &'a [ValueRef],
        seed: &'a [f64],
        sensitivity: &'a mut [f64],
    ) -> Result<Self, ModuleError> {
        if seed.len() != knowns.len() || sensitivity.len() != unknowns.len() {
            return Err(ModuleError::invalid(
                "seed/sensitivity lengths do not match knowns/unknowns",
            ));
        }
        Ok(JacobianProduct {
            unknowns,
            knowns,
            seed,
            sensitivity,
        })
    }
}

/// Time derivatives by variable: `values[i]` is the `orders[i]`-th derivative of `vrs[i]`.
/// `V` is `&mut [f64]` when the call writes them ([`Derivatives::of_outputs`]) and
/// `&[f64]` when it reads them ([`Derivatives::of_inputs`]). Orders are checked by the
/// module, which knows its highest.
#[derive(Debug)]
#[non_exhaustive]
pub struct Derivatives<'a, V> {
    /// Value references.
    pub vrs: &'a [ValueRef],
    /// Derivative order of each (≥ 1).
    pub orders: &'a [u32],
    /// Derivative value of each.
    pub values: V,
}

impl<'a> Derivatives<'a, &'a [f64]> {
    /// Input derivatives to set; fails unless the three have one length.
    pub fn of_inputs(
        vrs: &'a [ValueRef],
        orders: &'a [u32],
        values: &'a [f64],
    ) -> Result<Self, ModuleError> {
        Self::checked(vrs, orders, values)
    }
}

impl<'a> Derivatives<'a, &'a mut [f64]> {
    /// Output derivatives to get into `values`; fails unless the three have one length.
    pub fn of_outputs(
        vrs: &'a [ValueRef],
        orders: &'a [u32],
        values: &'a mut [f64],
    ) -> Result<Self, ModuleError> {
        Self::checked(vrs, orders, values)
    }
}

impl Derivatives<'_, &mut [f64]> {
    /// `(vr, order, slot for the value)` of each derivative.
    pub fn iter_mut(&mut self) -> impl Iterator<Item = (ValueRef, u32, &mut f64)> + '_ {
        let vrs = self.vrs.iter().copied().zip(self.orders.iter().copied());
        vrs.zip(self.values.iter_mut())
            .map(|((vr, k), v)| (vr, k, v))
    }
}

impl<'a, V: AsRef<[f64]>> Derivatives<'a, V> {
    pub(crate) fn checked(
        vrs: &'a [ValueRef],
        orders: &'a [u32],
        values: V,
    ) -> Result<Self, ModuleError> {
        let n = vrs.len();
        if orders.len() != n || values.as_ref().len() != n {
            return Err(ModuleError::invalid(
                "lengths of vrs, orders and values differ",
            ));
        }
        Ok(Derivatives {
            vrs,
            orders,
            values,
        })
    }

    /// `(vr, order, value)` of each derivative.
    pub fn iter(&self) -> impl Iterator<Item = (ValueRef, u32, f64)> + '_ {
        let values = self.values.as_ref().iter().copied();
        self.vrs
            .iter()
            .copied()
            .zip(self.orders.iter().copied())
            .zip(values)
            .map(|((vr, k), v)| (vr, k, v))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lengths_are_checked_when_the_arguments_are_built() {
        let (y, u) = ([ValueRef(1)], [ValueRef(0), ValueRef(2)]);
        let mut one = [0.0];
        assert!(JacobianProduct::new(&y, &u, &[1.0, 0.0], &mut one).is_ok());
        assert!(JacobianProduct::new(&y, &u, &[1.0], &mut one).is_err());
        assert!(JacobianProduct::new(&u, &u, &[1.0, 0.0], &mut one).is_err());
        let d = Derivatives::of_inputs(&u, &[1, 2], &[0.5, -3.0]).expect("one length");
        let listed: alloc::vec::Vec<_> = d.iter().collect();
        assert_eq!(listed, [(ValueRef(0), 1, 0.5), (ValueRef(2), 2, -3.0)]);
        assert!(Derivatives::of_inputs(&u, &[1], &[0.5, -3.0]).is_err());
        assert!(Derivatives::of_outputs(&y, &[1], &mut [0.0; 2]).is_err());
    }
}
