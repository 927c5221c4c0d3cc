//! One module of a scenario stepped on its own, without a master: per macro-step the calls
//! a fixed-step master makes to it (set its Float64 inputs, `do_step`, get its Float64
//! outputs, as the one request [`Module::step_with_io`]), its inputs held at their start
//! values. What this costs is the module and the engine that runs it, apart from the
//! master's own work: docs/benchmarks.md compares the browser's engine with wasmi this way
//! next to whole presets.

use crate::error::CosimError;
use crate::module::{
    Causality, InstantiateOptions, Module, ModuleError, PortType, StepIo, ValueRef,
};
use crate::scenario::ValidatedScenario;
use alloc::boxed::Box;
use alloc::format;
use alloc::vec::Vec;

/// A module driven alone on the scenario's macro-step grid.
pub struct ModuleAlone {
    module: Box<dyn Module>,
    inputs: Vec<ValueRef>,
    input_values: Vec<f64>,
    outputs: Vec<ValueRef>,
    output_values: Vec<f64>,
    start: f64,
    t: f64,
    h: f64,
    steps: u32,
}

impl ModuleAlone {
    /// The scenario's module `name`, instantiated and initialised at the run's start.
    pub fn new(v: &ValidatedScenario, name: &str) -> Result<Self, CosimError> {
        let s = &v.scenario;
        let spec = s.modules.iter().find(|m| m.name == name).ok_or_else(|| {
            CosimError::Module(ModuleError::invalid(format!(
                "the scenario has no module `{name}`"
            )))
        })?;
        let mut module = super::build_module(spec)?;
        let float64 = |c| {
            let d = module.description();
            let vars = d
                .with_causality(c)
                .filter(|x| x.port_type == PortType::Float64);
            vars.map(|x| (x.value_ref, x.start.unwrap_or(0.0)))
                .collect::<Vec<_>>()
        };
        let (inputs, input_values) = float64(Causality::Input).into_iter().unzip();
        let outputs: Vec<ValueRef> = float64(Causality::Output)
            .into_iter()
            .map(|(vr, _)| vr)
            .collect();
        module.instantiate(InstantiateOptions::default())?;
        module.enter_initialization_mode(None, s.run.start, Some(s.run.stop))?;
        module.exit_initialization_mode()?;
        Ok(ModuleAlone {
            module,
            output_values: alloc::vec![0.0; outputs.len()],
            inputs,
            input_values,
            outputs,
            start: s.run.start,
            t: s.run.start,
            h: s.master.macro_step,
            steps: 0,
        })
    }

    /// `steps` more macro-steps.
    pub fn advance(&mut self, steps: u32) -> Result<(), CosimError> {
        for _ in 0..steps {
            let mut io = StepIo {
                inputs: (!self.inputs.is_empty()).then_some((&self.inputs, &self.input_values)),
                t: self.t,
                h: self.h,
                no_set_state_prior: true,
                output_vrs: &self.outputs,
                outputs: &mut self.output_values,
                early_return_allowed: false,
            };
            self.module.step_with_io(&mut io).map_err(|e| e.error)?;
            self.steps += 1;
            // On the grid, as the master's fixed step places it (no drift from summing h).
            self.t = self.start + f64::from(self.steps) * self.h;
        }
        Ok(())
    }

    /// Macro-steps taken.
    pub fn steps_done(&self) -> u32 {
        self.steps
    }

    /// The module's Float64 outputs after the last step, in declaration order.
    pub fn outputs(&self) -> &[f64] {
        &self.output_values
    }
}

#[cfg(all(test, feature = "wasmi"))]
mod tests {
    use super::ModuleAlone;
    use crate::scenario;
    use alloc::string::ToString;

    const RUST_OSCILLATOR: &[u8] =
        include_bytes!("../../../tests/fixtures/fmus/rust_oscillator.fmu");

    /// Mass 1 alone, input held at its start value, as a binary module (RK4 micro-steps
    /// in wasm) and as the built-in module (solved exactly): two independent
    /// implementations of the same free mass agree, and both moved.
    #[test]
    fn binary_mass_alone_follows_the_built_in_one() {
        let mut binary = scenario::preset("binary-rust-oscillator").unwrap();
        binary.embed_fmu("fmus/rust_oscillator.fmu", RUST_OSCILLATOR);
        let built_in = scenario::preset("two-mass-oscillator").unwrap();
        let run = |s: scenario::Scenario| {
            let mut m = ModuleAlone::new(&s.validate().unwrap(), "mass1").unwrap();
            m.advance(2000).unwrap();
            assert_eq!(m.steps_done(), 2000);
            m.outputs().to_vec()
        };
        let (b, e) = (run(binary), run(built_in));
        assert_eq!(b.len(), 2, "s1 and v1");
        assert_eq!(b.len(), e.len());
        for (x, y) in b.iter().zip(&e) {
            assert!((x - y).abs() <= 1e-9 * (1.0 + y.abs()), "{b:?} vs {e:?}");
        }
        assert!(e.iter().all(|y| y.abs() > 1e-6), "the mass moved: {e:?}");
    }

    #[test]
    fn an_unknown_module_is_named() {
        let s = scenario::preset("two-mass-oscillator").unwrap();
        let e = ModuleAlone::new(&s.validate().unwrap(), "mass9")
            .err()
            .unwrap();
        assert!(e.to_string().contains("`mass9`"), "{e}");
    }
}
