//! The `wasmi` interpreter as a [`Sandbox`] (feature `wasmi`: the CLI, tests, benches):
//! a store with fuel metering (per call and per run) and a memory limit charged to the
//! shared [`super::MemoryBudget`], the WASI imports linked to [`dispatch`], and the
//! `fmi3LogMessageCallback` host function put into the module's function table.

use super::budget::Limiter;
use super::runtime::RuntimeLimits;
use super::sandbox::{
    CallError, Export, ExportFn, FuncSig, GuestInstance, GuestMemory, Sandbox, WasmType, WasmValue,
};
use super::wasi::{dispatch, log_message, plan_import, HostTrap, WasiHost};
use super::FmuError;
use alloc::boxed::Box;
use alloc::string::ToString;
use alloc::vec::Vec;
use wasmi::{
    Caller, Config, Engine, Extern, ExternType, Func, FuncType, Instance, Linker, Memory, Module,
    Ref, Store, TrapCode, Val, ValType,
};

/// The interpreter engine.
pub struct WasmiSandbox;

/// What the store holds: the WASI host and the module's share of the memory budget.
struct Data {
    host: WasiHost,
    limiter: Limiter,
}

struct Wasmi {
    store: Store<Data>,
    instance: Instance,
    memory: Option<Memory>,
    /// Exported functions handed out by [`GuestInstance::export`], by [`ExportFn`] index.
    funcs: core::cell::RefCell<Vec<Func>>,
    fuel_per_call: u64,
    /// What is left of `RuntimeLimits::fuel_per_run`.
    fuel_left: u64,
    log_callback: i32,
    /// Argument and result buffers kept between calls, so a warm call allocates nothing
    /// (the driver's checkpoints rely on it).
    params: Vec<Val>,
    out: Vec<Val>,
}

fn wasm_type(t: &ValType) -> WasmType {
    match t {
        ValType::I32 => WasmType::I32,
        ValType::I64 => WasmType::I64,
        ValType::F32 => WasmType::F32,
        ValType::F64 => WasmType::F64,
        ValType::V128 => WasmType::V128,
        ValType::FuncRef => WasmType::FuncRef,
        ValType::ExternRef => WasmType::ExternRef,
    }
}

fn func_sig(ty: &FuncType) -> FuncSig {
    FuncSig {
        params: ty.params().iter().map(wasm_type).collect(),
        results: ty.results().iter().map(wasm_type).collect(),
    }
}

fn to_val(v: WasmValue) -> Val {
    match v {
        WasmValue::I32(x) => Val::I32(x),
        WasmValue::I64(x) => Val::I64(x),
        WasmValue::F32(x) => Val::from(x),
        WasmValue::F64(x) => Val::from(x),
    }
}

fn from_val(v: &Val) -> WasmValue {
    match v {
        Val::I32(x) => WasmValue::I32(*x),
        Val::I64(x) => WasmValue::I64(*x),
        Val::F32(x) => WasmValue::F32(f32::from(*x)),
        Val::F64(x) => WasmValue::F64(f64::from(*x)),
        // Never a result of an FMI export (types are checked at load).
        _ => WasmValue::I32(0),
    }
}

/// Guest memory inside an import call, with the call's fuel.
struct CallerMemory<'a> {
    data: &'a mut [u8],
    fuel: u64,
}

impl GuestMemory for CallerMemory<'_> {
    fn size(&self) -> usize {
        self.data.len()
    }

    fn read(&self, ptr: u32, out: &mut [u8]) -> bool {
        let start = ptr as usize;
        match self.data.get(start..start.saturating_add(out.len())) {
            Some(src) if start.checked_add(out.len()).is_some() => {
                out.copy_from_slice(src);
                true
            }
            _ => false,
        }
    }

    fn write(&mut self, ptr: u32, bytes: &[u8]) -> bool {
        let start = ptr as usize;
        let Some(end) = start.checked_add(bytes.len()) else {
            return false;
        };
        match self.data.get_mut(start..end) {
            Some(dst) => {
                dst.copy_from_slice(bytes);
                true
            }
            None => false,
        }
    }

    /// One unit per 8 bytes plus 16 per call, so time spent in the host counts against
    /// `RuntimeLimits::fuel_per_call`.
    fn charge(&mut self, bytes: usize) -> bool {
        let cost = 16 + bytes as u64 / 8;
        if self.fuel < cost {
            self.fuel = 0;
            return false;
        }
        self.fuel -= cost;
        true
    }
}

fn caller_memory(caller: &Caller<'_, Data>) -> Option<Memory> {
    caller.get_export("memory").and_then(Extern::into_memory)
}

/// Runs `f` with the caller's memory (empty without one) and WASI host; the fuel the
/// host work used is taken from the call.
fn with_guest<R>(
    c: &mut Caller<'_, Data>,
    f: impl FnOnce(&mut WasiHost, &mut CallerMemory<'_>) -> R,
) -> R {
    let fuel = c.get_fuel().unwrap_or(u64::MAX);
    let memory = caller_memory(c);
    let mut empty: [u8; 0] = [];
    let (data, store) = match &memory {
        Some(m) => m.data_and_store_mut(&mut *c),
        None => (&mut empty[..], c.data_mut()),
    };
    let mut mem = CallerMemory { data, fuel };
    let out = f(&mut store.host, &mut mem);
    let left = mem.fuel;
    if left != fuel {
        let _ = c.set_fuel(left);
    }
    out
}

fn link(linker: &mut Linker<Data>, module: &Module) -> Result<(), FmuError> {
    for import in module.imports() {
        let (m, name) = (import.module(), import.name());
        let ty = match import.ty() {
            ExternType::Func(ty) => Some(ty.clone()),
            _ => None,
        };
        let plan = plan_import(m, name, ty.as_ref().map(func_sig).as_ref())?;
        let Some(ty) = ty else { continue };
        linker
            .func_new(m, name, ty, move |mut c, params, results| {
                let args: Vec<WasmValue> = params.iter().map(from_val).collect();
                let out = with_guest(&mut c, |host, mem| dispatch(&plan, host, mem, &args));
                match out {
                    Ok(Some(v)) => {
                        if let Some(slot) = results.first_mut() {
                            *slot = to_val(v);
                        }
                        Ok(())
                    }
                    Ok(None) => Ok(()),
                    Err(HostTrap::Exit(code)) => Err(wasmi::Error::i32_exit(code)),
                    Err(HostTrap::OutOfFuel) => {
                        let _ = c.set_fuel(0);
                        Err(wasmi::Error::from(TrapCode::OutOfFuel))
                    }
                    Err(HostTrap::Unprovided(msg)) => Err(wasmi::Error::new(msg)),
                }
            })
            .map_err(|e| FmuError::UnsupportedImport(e.to_string()))?;
    }
    Ok(())
}

impl Sandbox for WasmiSandbox {
    fn instantiate(
        &self,
        wasm: &[u8],
        host: WasiHost,
        limits: &RuntimeLimits,
    ) -> Result<Box<dyn GuestInstance>, FmuError> {
        let mut config = Config::default();
        config.consume_fuel(true);
        let engine = Engine::new(&config);
        let module = Module::new(&engine, wasm).map_err(|e| FmuError::Wasm(e.to_string()))?;
        let data = Data {
            host,
            limiter: Limiter::new(
                limits.budget.clone(),
                limits.max_memory_bytes,
                limits.max_table_elements,
            ),
        };
        let mut store = Store::new(&engine, data);
        store.limiter(|d| &mut d.limiter);
        let mut linker = Linker::new(&engine);
        link(&mut linker, &module)?;
        store
            .set_fuel(limits.fuel_per_call)
            .map_err(|e| FmuError::Wasm(e.to_string()))?;
        let instance =
            linker
                .instantiate_and_start(&mut store, &module)
                .map_err(|e| match store.data_mut().limiter.denied.take() {
                    Some(why) => FmuError::Limit(why),
                    None if e.as_trap_code().is_some() => FmuError::Trap(e.to_string()),
                    None => FmuError::Wasm(e.to_string()),
                })?;
        let memory = instance.get_memory(&store, "memory");
        let mut w = Wasmi {
            store,
            instance,
            memory,
            funcs: core::cell::RefCell::new(Vec::new()),
            fuel_per_call: limits.fuel_per_call,
            fuel_left: limits.fuel_per_run,
            log_callback: 0,
            params: Vec::new(),
            out: Vec::new(),
        };
        w.log_callback = w.install_log_callback();
        Ok(Box::new(w))
    }
}

impl Wasmi {
    /// Puts the host `logMessage(env, status, category, message)` into the exported
    /// function table (`--export-table`, growable); 0 (NULL) if there is none.
    fn install_log_callback(&mut self) -> i32 {
        let Some(table) = self
            .instance
            .get_table(&self.store, "__indirect_function_table")
        else {
            return 0;
        };
        let f = Func::wrap(
            &mut self.store,
            |mut c: Caller<'_, Data>, _env: i32, status: i32, category: i32, message: i32| {
                with_guest(&mut c, |host, mem| {
                    log_message(host, mem, status, category, message)
                });
            },
        );
        match table.grow(&mut self.store, 1, Ref::Func(wasmi::Nullable::Val(f))) {
            Ok(index) => i32::try_from(index).unwrap_or(0),
            Err(_) => 0,
        }
    }
}

impl GuestInstance for Wasmi {
    fn export(&self, name: &str) -> Export {
        let Some(export) = self.instance.get_export(&self.store, name) else {
            return Export::Missing;
        };
        match export {
            Extern::Func(func) => {
                let sig = func_sig(&func.ty(&self.store));
                let mut funcs = self.funcs.borrow_mut();
                funcs.push(func);
                Export::Function(ExportFn(funcs.len() as u32 - 1), sig)
            }
            Extern::Memory(_) => Export::Memory,
            _ => Export::NotAFunction,
        }
    }

    fn call(
        &mut self,
        f: ExportFn,
        args: &[WasmValue],
        results: &mut [WasmValue],
    ) -> Result<(), CallError> {
        let Some(func) = self.funcs.borrow().get(f.0 as usize).copied() else {
            return Err(CallError::Trap("no such export".into()));
        };
        let given = self.fuel_per_call.min(self.fuel_left);
        let _ = self.store.set_fuel(given);
        self.store.data_mut().limiter.denied = None;
        self.params.clear();
        self.params.extend(args.iter().map(|v| to_val(*v)));
        self.out.clear();
        self.out.extend(results.iter().map(|v| to_val(*v)));
        let result = func.call(&mut self.store, &self.params, &mut self.out);
        let used = given.saturating_sub(self.store.get_fuel().unwrap_or(0));
        self.fuel_left = self.fuel_left.saturating_sub(used);
        for (slot, v) in results.iter_mut().zip(&self.out) {
            *slot = from_val(v);
        }
        // A refused growth fails the call even if the module carried on (memory.grow gave
        // it -1): the browser's engine, which cannot refuse, stops it the same way.
        if let Some(why) = self.store.data_mut().limiter.denied.take() {
            return Err(CallError::Limit(why));
        }
        result.map_err(|e| match (e.as_trap_code(), e.i32_exit_status()) {
            (Some(TrapCode::OutOfFuel), _) => CallError::OutOfFuel {
                whole_run: given < self.fuel_per_call,
            },
            (_, Some(code)) => CallError::Exit(code),
            _ => CallError::Trap(e.to_string()),
        })
    }

    fn read(&self, ptr: u32, out: &mut [u8]) -> bool {
        self.memory
            .is_some_and(|m| m.read(&self.store, ptr as usize, out).is_ok())
    }

    fn write(&mut self, ptr: u32, bytes: &[u8]) -> bool {
        self.memory
            .is_some_and(|m| m.write(&mut self.store, ptr as usize, bytes).is_ok())
    }

    fn with_host(&mut self, f: &mut dyn FnMut(&mut WasiHost)) {
        f(&mut self.store.data_mut().host)
    }

    fn host(&self, f: &mut dyn FnMut(&WasiHost)) {
        f(&self.store.data().host)
    }

    fn log_callback(&self) -> i32 {
        self.log_callback
    }
}
