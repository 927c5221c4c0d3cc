//! `fmi3Get/Set{Float32, Int8..UInt64, Boolean, String, Binary}` for one variable at a
//! time ([`TypedValues`]), and the master's `f64` view of typed ports and array elements
//! ([`BinaryModule::get_ports`], [`BinaryModule::set_ports`]). The module's memory is
//! reached only through the runtime's `scratch`, `write`, `read`, `func` and `call`.
//!
//! wasm32 sizes (clang and rustc): `fmi3Boolean` is C `bool`, one byte; `size_t` and
//! pointers four bytes; `fmi3String` and `fmi3Binary` are pointers into module memory.

use super::abi::value_access;
use super::binary_module::{layout, to_i32, vr_bytes, BinaryModule};
use super::runtime::{sig, Runtime};
use super::sandbox::{ExportFn, WasmType, WasmValue};
use super::typed_values::{decode, encode, TypedValues};
use super::variable_types::VariableType;
use super::FmuError;
use crate::module::{ModuleError, ValueRef};
use alloc::collections::BTreeMap;
use alloc::format;
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;

/// `fmi3GetBinary` / `fmi3SetBinary(instance, vrs*, nvr, valueSizes*, values*, nValues)`.
fn binary_access() -> super::sandbox::FuncSig {
    sig(&[WasmType::I32; 6], &[WasmType::I32])
}

/// `fmi3GetClock` / `fmi3SetClock(instance, vrs*, nvr, values*)`.
fn clock_access() -> super::sandbox::FuncSig {
    sig(&[WasmType::I32; 4], &[WasmType::I32])
}

/// The get and set exports of every type the module's variables use, resolved at load.
#[derive(Default)]
pub(crate) struct TypedFns {
    access: BTreeMap<&'static str, (ExportFn, ExportFn)>,
    binary: Option<(ExportFn, ExportFn)>,
    /// `fmi3GetClock`, `fmi3SetClock`.
    pub(super) clock: Option<(ExportFn, ExportFn)>,
}

/// The FMI name part of a type's functions (`fmi3Get<name>`) and its element size.
pub(super) fn fmi_name(ty: VariableType) -> (&'static str, usize) {
    match ty {
        VariableType::Float32 => ("Float32", 4),
        VariableType::Float64 => ("Float64", 8),
        VariableType::Int(8) => ("Int8", 1),
        VariableType::Int(16) => ("Int16", 2),
        VariableType::Int(32) => ("Int32", 4),
        VariableType::Int(_) | VariableType::Enumeration => ("Int64", 8),
        VariableType::UInt(8) => ("UInt8", 1),
        VariableType::UInt(16) => ("UInt16", 2),
        VariableType::UInt(32) => ("UInt32", 4),
        VariableType::UInt(_) => ("UInt64", 8),
        VariableType::Boolean => ("Boolean", 1),
        VariableType::String => ("String", 4),
        VariableType::Binary => ("Binary", 4),
        VariableType::Clock => ("Clock", 1),
    }
}

const GETTERS: [&str; 12] = [
    "fmi3GetFloat32",
    "fmi3GetFloat64",
    "fmi3GetInt8",
    "fmi3GetInt16",
    "fmi3GetInt32",
    "fmi3GetInt64",
    "fmi3GetUInt8",
    "fmi3GetUInt16",
    "fmi3GetUInt32",
    "fmi3GetUInt64",
    "fmi3GetBoolean",
    "fmi3GetString",
];

/// `(get, set)` export names of `name` as `&'static str` (calls are named in errors).
fn call_names(name: &str) -> (&'static str, &'static str) {
    let get = GETTERS
        .iter()
        .find(|g| g[7..] == *name)
        .copied()
        .unwrap_or("fmi3GetFloat64");
    let set = match get {
        "fmi3GetFloat32" => "fmi3SetFloat32",
        "fmi3GetInt8" => "fmi3SetInt8",
        "fmi3GetInt16" => "fmi3SetInt16",
        "fmi3GetInt32" => "fmi3SetInt32",
        "fmi3GetInt64" => "fmi3SetInt64",
        "fmi3GetUInt8" => "fmi3SetUInt8",
        "fmi3GetUInt16" => "fmi3SetUInt16",
        "fmi3GetUInt32" => "fmi3SetUInt32",
        "fmi3GetUInt64" => "fmi3SetUInt64",
        "fmi3GetBoolean" => "fmi3SetBoolean",
        "fmi3GetString" => "fmi3SetString",
        _ => "fmi3SetFloat64",
    };
    (get, set)
}

impl TypedFns {
    /// Resolves the exports of every type in `types`. A missing pair is no error: the variables of that type are then not ports
    /// ([`TypedFns::has`]); one with another signature is.
    pub(crate) fn resolve(rt: &Runtime, types: &[VariableType]) -> Result<Self, FmuError> {
        let mut out = TypedFns::default();
        let why: Option<&str> = None;
        for &ty in types {
            let (name, _) = fmi_name(ty);
            match ty {
                VariableType::Clock => {
                    let get = rt.func("fmi3GetClock", why, &clock_access())?;
                    let set = rt.func("fmi3SetClock", why, &clock_access())?;
                    out.clock = get.zip(set);
                }
                VariableType::Binary => {
                    let get = rt.func("fmi3GetBinary", why, &binary_access())?;
                    let set = rt.func("fmi3SetBinary", why, &binary_access())?;
                    out.binary = get.zip(set);
                }
                _ => {
                    let (g, s) = call_names(name);
                    let f = |name| rt.func(name, why, &value_access());
                    if let (Some(get), Some(set)) = (f(g)?, f(s)?) {
                        out.access.insert(name, (get, set));
                    }
                }
            }
        }
        Ok(out)
    }

    /// Whether the module exports the get and set functions of `ty`.
    pub(crate) fn has(&self, ty: VariableType) -> bool {
        match ty {
            VariableType::Float64 => true,
            VariableType::Binary => self.binary.is_some(),
            VariableType::Clock => self.clock.is_some(),
            _ => self.access.contains_key(fmi_name(ty).0),
        }
    }
}

impl BinaryModule {
    fn access_fns(
        &self,
        ty: VariableType,
    ) -> Result<(&'static str, &'static str, ExportFn, ExportFn), ModuleError> {
        let name = fmi_name(ty).0;
        let (g, s) = call_names(name);
        if ty == VariableType::Float64 {
            return Ok((g, s, self.fmi.get_float64, self.fmi.set_float64));
        }
        let (get, set) = self.typed_fns.access.get(name).copied().ok_or_else(|| {
            ModuleError::invalid(format!("the module has no {g}/{s} (no <{name}> variable)"))
        })?;
        Ok((g, s, get, set))
    }

    /// `fmi3Get<Type>` of all `n` elements of variable `vr`.
    pub fn get_typed(
        &mut self,
        vr: u32,
        ty: VariableType,
        n: usize,
    ) -> Result<TypedValues, ModuleError> {
        let inst = self.instance()?;
        let (_, size) = fmi_name(ty);
        if ty == VariableType::Binary {
            let (get, _) = self.typed_fns.binary.ok_or_else(|| {
                ModuleError::invalid("the module has no fmi3GetBinary (no <Binary> variable)")
            })?;
            let ([pv, ps, pp], len) = layout([4, 4 * n, 4 * n]);
            let base = self.rt.scratch(len)?;
            self.rt.write(base + pv, &vr_bytes(&[ValueRef(vr)]))?;
            let (v, s, p) = ((base + pv) as i32, (base + ps) as i32, (base + pp) as i32);
            let args = [inst, v, 1, s, p, to_i32(n)?].map(WasmValue::I32);
            let code = self.rt.call_i32("fmi3GetBinary", get, &args)?;
            self.check("fmi3GetBinary", code)?;
            let mut out = Vec::with_capacity(n);
            for k in 0..n as u32 {
                let size = self.read_u32(base + ps + 4 * k)? as usize;
                let at = self.read_u32(base + pp + 4 * k)?;
                let mut bytes = vec![0u8; size];
                self.rt.read(at, &mut bytes)?;
                out.push(bytes);
            }
            return Ok(TypedValues::Binary(out));
        }
        let (call, _, get, _) = self.access_fns(ty)?;
        let ([pv, px], len) = layout([4, size * n]);
        let base = self.rt.scratch(len)?;
        self.rt.write(base + pv, &vr_bytes(&[ValueRef(vr)]))?;
        let args = [inst, (base + pv) as i32, 1, (base + px) as i32, to_i32(n)?];
        let code = self.rt.call_i32(call, get, &args.map(WasmValue::I32))?;
        self.check(call, code)?;
        if ty == VariableType::String {
            let mut out = Vec::with_capacity(n);
            for k in 0..n as u32 {
                let at = self.read_u32(base + px + 4 * k)?;
                out.push(self.read_c_string(at)?);
            }
            return Ok(TypedValues::String(out));
        }
        let mut bytes = vec![0u8; size * n];
        self.rt.read(base + px, &mut bytes)?;
        Ok(decode(ty, &bytes, n))
    }

    fn read_c_string(&self, at: u32) -> Result<String, ModuleError> {
        let mut bytes = Vec::new();
        let mut chunk = [0u8; 64];
        loop {
            self.rt.read(at + bytes.len() as u32, &mut chunk[..1])?;
            if chunk[0] == 0 || bytes.len() > 1 << 20 {
                break;
            }
            bytes.push(chunk[0]);
        }
        Ok(String::from_utf8_lossy(&bytes).into_owned())
    }

    /// `fmi3Set<Type>` of all elements of variable `vr`.
    pub fn set_typed(&mut self, vr: u32, values: &TypedValues) -> Result<(), ModuleError> {
        let inst = self.instance()?;
        let vrs = vr_bytes(&[ValueRef(vr)]);
        if let TypedValues::Binary(items) = values {
            let (_, set) = self.typed_fns.binary.ok_or_else(|| {
                ModuleError::invalid("the module has no fmi3SetBinary (no <Binary> variable)")
            })?;
            let n = items.len();
            let total: usize = items.iter().map(|b| b.len().div_ceil(8) * 8).sum();
            let ([pv, ps, pp, pd], len) = layout([4, 4 * n, 4 * n, total]);
            let base = self.rt.scratch(len)?;
            self.rt.write(base + pv, &vrs)?;
            let mut at = base + pd;
            for (k, item) in items.iter().enumerate() {
                let k = 4 * k as u32;
                self.rt
                    .write(base + ps + k, &(item.len() as u32).to_le_bytes())?;
                self.rt.write(base + pp + k, &at.to_le_bytes())?;
                self.rt.write(at, item)?;
                at += (item.len().div_ceil(8) * 8) as u32;
            }
            let (v, s, p) = ((base + pv) as i32, (base + ps) as i32, (base + pp) as i32);
            let args = [inst, v, 1, s, p, to_i32(n)?].map(WasmValue::I32);
            let code = self.rt.call_i32("fmi3SetBinary", set, &args)?;
            return self.check("fmi3SetBinary", code);
        }
        let (ty, n) = match values {
            TypedValues::Float32(v) => (VariableType::Float32, v.len()),
            TypedValues::Float64(v) => (VariableType::Float64, v.len()),
            TypedValues::Int(t, v) => (*t, v.len()),
            TypedValues::UInt(t, v) => (*t, v.len()),
            TypedValues::Boolean(v) => (VariableType::Boolean, v.len()),
            TypedValues::String(v) => (VariableType::String, v.len()),
            TypedValues::Binary(_) => unreachable!("handled above"),
        };
        let (_, call, _, set) = self.access_fns(ty)?;
        let bytes = match values {
            // Each string is copied once and kept (FMI lets the FMU hold on to it).
            TypedValues::String(v) => {
                let mut ptrs = Vec::with_capacity(4 * n);
                for s in v {
                    ptrs.extend_from_slice(&self.rt.c_string(s)?.to_le_bytes());
                }
                ptrs
            }
            other => encode(other),
        };
        let ([pv, px], len) = layout([4, bytes.len()]);
        let base = self.rt.scratch(len)?;
        self.rt.write(base + pv, &vrs)?;
        self.rt.write(base + px, &bytes)?;
        let args = [inst, (base + pv) as i32, 1, (base + px) as i32, to_i32(n)?];
        let code = self.rt.call_i32(call, set, &args.map(WasmValue::I32))?;
        self.check(call, code)
    }

    /// `get_float64` over ports of any numeric type: Float64 scalars in one
    /// `fmi3GetFloat64`, each other variable in one call of its type.
    pub(super) fn get_ports(
        &mut self,
        vrs: &[ValueRef],
        values: &mut [f64],
    ) -> Result<(), ModuleError> {
        let (plain, typed) = self.split(vrs);
        if !plain.is_empty() {
            let direct: Vec<ValueRef> = plain.iter().map(|&k| vrs[k]).collect();
            let mut out = vec![0.0; direct.len()];
            self.get_float64_direct(&direct, &mut out)?;
            for (&k, x) in plain.iter().zip(out) {
                values[k] = x;
            }
        }
        for ((fmi_vr, ty, len), uses) in typed {
            let all = self
                .get_typed(fmi_vr, ty, len)?
                .to_f64()
                .map_err(|e| ModuleError::invalid(format!("{}: {e}", self.var_name(fmi_vr))))?;
            for (k, element) in uses {
                values[k] = all[element];
            }
        }
        Ok(())
    }

    /// `set_float64` over ports of any numeric type; setting some elements of an array
    /// reads the others first (FMI sets whole arrays).
    pub(super) fn set_ports(
        &mut self,
        vrs: &[ValueRef],
        values: &[f64],
    ) -> Result<(), ModuleError> {
        let (plain, typed) = self.split(vrs);
        if !plain.is_empty() {
            let direct: Vec<ValueRef> = plain.iter().map(|&k| vrs[k]).collect();
            let x: Vec<f64> = plain.iter().map(|&k| values[k]).collect();
            self.set_float64_direct(&direct, &x)?;
        }
        for ((fmi_vr, ty, len), uses) in typed {
            let mut all = match uses.len() == len {
                true => vec![0.0; len],
                false => self
                    .get_typed(fmi_vr, ty, len)?
                    .to_f64()
                    .map_err(ModuleError::invalid)?,
            };
            for (k, element) in uses {
                all[element] = values[k];
            }
            let typed = TypedValues::from_f64(ty, &all)
                .map_err(|e| ModuleError::invalid(format!("{}: {e}", self.var_name(fmi_vr))))?;
            self.set_typed(fmi_vr, &typed)?;
        }
        Ok(())
    }

    /// Positions of Float64 scalars, and the positions and elements of the others grouped
    /// by FMI variable.
    #[allow(clippy::type_complexity)]
    fn split(
        &self,
        vrs: &[ValueRef],
    ) -> (
        Vec<usize>,
        BTreeMap<(u32, VariableType, usize), Vec<(usize, usize)>>,
    ) {
        let ports = &self.model_description().ports;
        let mut plain = Vec::new();
        let mut typed: BTreeMap<_, Vec<(usize, usize)>> = BTreeMap::new();
        for (k, &vr) in vrs.iter().enumerate() {
            match ports.get(vr) {
                None => plain.push(k),
                Some(p) => typed
                    .entry((p.fmi_vr, p.ty, p.len as usize))
                    .or_default()
                    .push((k, p.element as usize)),
            }
        }
        (plain, typed)
    }

    fn var_name(&self, fmi_vr: u32) -> String {
        let all = &self.model_description().all_variables;
        let name = all
            .iter()
            .find(|v| v.value_ref == fmi_vr)
            .map(|v| v.name.as_str());
        format!("`{}`", name.unwrap_or("?"))
    }
}
