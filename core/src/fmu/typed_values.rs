//! [`TypedValues`]: the values of one FMI 3.0 variable of any type, their bytes in module
//! memory (little-endian, `fmi3Boolean` one byte) and the exact conversions to and from the
//! `f64` the master carries.

use super::typed_access::fmi_name;
use super::variable_types::VariableType;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

/// The values of one variable (all its elements), of its FMI type.
#[derive(Clone, Debug, PartialEq)]
pub enum TypedValues {
    /// `Float32`.
    Float32(Vec<f32>),
    /// `Float64`.
    Float64(Vec<f64>),
    /// `Int8` … `Int64` and `Enumeration`, widened; the type says the width.
    Int(VariableType, Vec<i64>),
    /// `UInt8` … `UInt64`, widened.
    UInt(VariableType, Vec<u64>),
    /// `Boolean`.
    Boolean(Vec<bool>),
    /// `String`.
    String(Vec<String>),
    /// `Binary`.
    Binary(Vec<Vec<u8>>),
}

pub(super) fn decode(ty: VariableType, bytes: &[u8], n: usize) -> TypedValues {
    let (_, size) = fmi_name(ty);
    let chunks = bytes.chunks_exact(size).take(n);
    let le8 = |c: &[u8]| {
        let mut b = [0u8; 8];
        b[..c.len()].copy_from_slice(c);
        b
    };
    match ty {
        VariableType::Float32 => TypedValues::Float32(
            chunks
                .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                .collect(),
        ),
        VariableType::Float64 => {
            TypedValues::Float64(chunks.map(|c| f64::from_le_bytes(le8(c))).collect())
        }
        VariableType::Boolean => TypedValues::Boolean(chunks.map(|c| c[0] != 0).collect()),
        VariableType::UInt(_) => {
            TypedValues::UInt(ty, chunks.map(|c| u64::from_le_bytes(le8(c))).collect())
        }
        _ => TypedValues::Int(
            ty,
            chunks
                .map(|c| {
                    // Sign-extend from the element's width.
                    let shift = 64 - 8 * c.len() as u32;
                    (i64::from_le_bytes(le8(c)) << shift) >> shift
                })
                .collect(),
        ),
    }
}

pub(super) fn encode(values: &TypedValues) -> Vec<u8> {
    match values {
        TypedValues::Float32(v) => v.iter().flat_map(|x| x.to_le_bytes()).collect(),
        TypedValues::Float64(v) => v.iter().flat_map(|x| x.to_le_bytes()).collect(),
        TypedValues::Boolean(v) => v.iter().map(|&b| u8::from(b)).collect(),
        TypedValues::Int(ty, v) => {
            let size = fmi_name(*ty).1;
            v.iter()
                .flat_map(|x| x.to_le_bytes()[..size].to_vec())
                .collect()
        }
        TypedValues::UInt(ty, v) => {
            let size = fmi_name(*ty).1;
            v.iter()
                .flat_map(|x| x.to_le_bytes()[..size].to_vec())
                .collect()
        }
        TypedValues::String(_) | TypedValues::Binary(_) => Vec::new(),
    }
}

/// Integers beyond this magnitude have no exact `f64`.
const EXACT: u64 = 1 << 53;

impl TypedValues {
    /// Every element as the `f64` the master carries; an integer beyond 2^53 in magnitude
    /// is refused (it would be rounded), as are strings and binaries.
    pub fn to_f64(&self) -> Result<Vec<f64>, String> {
        let big = |x: &dyn core::fmt::Display| {
            format!("{x} is beyond 2^53 and has no exact Float64 value, so it cannot be carried")
        };
        Ok(match self {
            TypedValues::Float32(v) => v.iter().map(|&x| f64::from(x)).collect(),
            TypedValues::Float64(v) => v.clone(),
            TypedValues::Boolean(v) => v.iter().map(|&b| f64::from(u8::from(b))).collect(),
            TypedValues::Int(_, v) => v
                .iter()
                .map(|&x| match x.unsigned_abs() <= EXACT {
                    true => Ok(x as f64),
                    false => Err(big(&x)),
                })
                .collect::<Result<_, _>>()?,
            TypedValues::UInt(_, v) => v
                .iter()
                .map(|&x| match x <= EXACT {
                    true => Ok(x as f64),
                    false => Err(big(&x)),
                })
                .collect::<Result<_, _>>()?,
            TypedValues::String(_) | TypedValues::Binary(_) => {
                return Err("strings and binaries are not numbers".into())
            }
        })
    }

    /// Values of type `ty` from the master's `f64`s: whole numbers in range for integers,
    /// 0 or 1 for booleans, values a Float32 holds exactly for Float32.
    pub fn from_f64(ty: VariableType, values: &[f64]) -> Result<TypedValues, String> {
        let (name, size) = fmi_name(ty);
        let whole = |x: f64| x.is_finite() && x == libm::trunc(x);
        let bad = |x: f64| format!("{x} is not a {name} value");
        Ok(match ty {
            VariableType::Float64 => TypedValues::Float64(values.to_vec()),
            VariableType::Float32 => TypedValues::Float32(
                values
                    .iter()
                    .map(|&x| match f64::from(x as f32) == x || x.is_nan() {
                        true => Ok(x as f32),
                        false => Err(bad(x)),
                    })
                    .collect::<Result<_, _>>()?,
            ),
            VariableType::Boolean => TypedValues::Boolean(
                values
                    .iter()
                    .map(|&x| match x {
                        0.0 => Ok(false),
                        1.0 => Ok(true),
                        _ => Err(bad(x)),
                    })
                    .collect::<Result<_, _>>()?,
            ),
            VariableType::UInt(_) => {
                let max = if size == 8 {
                    EXACT as f64
                } else {
                    (1u64 << (8 * size)) as f64 - 1.0
                };
                TypedValues::UInt(
                    ty,
                    values
                        .iter()
                        .map(|&x| match whole(x) && (0.0..=max).contains(&x) {
                            true => Ok(x as u64),
                            false => Err(bad(x)),
                        })
                        .collect::<Result<_, _>>()?,
                )
            }
            _ => {
                let max = if size == 8 {
                    EXACT as f64
                } else {
                    (1u64 << (8 * size - 1)) as f64
                };
                TypedValues::Int(
                    ty,
                    values
                        .iter()
                        .map(|&x| match whole(x) && (-max..max).contains(&x) {
                            true => Ok(x as i64),
                            false => Err(bad(x)),
                        })
                        .collect::<Result<_, _>>()?,
                )
            }
        })
    }
}
