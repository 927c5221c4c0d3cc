//! [`Simulation`]: a validated scenario instantiated, initialised and run in chunks, with
//! its recorded outputs and the monolithic reference. This is what the CLI and the page's
//! worker drive.

use super::build_module;
use super::energy::{self, EnergySummary};
use super::reference::{reference_for, ReferenceState};
use crate::analysis::{global_nrmse, Reference};
use crate::error::CosimError;
use crate::master::energy::EnergyMonitor;
use crate::master::{
    jacobian_source_for, CoupledSystem, DefectControl, DefectJacobi, DefectSettings,
    ErrorControlledCoupling, Executor, ExplicitCoupling, FixedStep, ImplicitCoupling,
    Initialisation, JacobianRequest, JacobianSource, MasterAlgorithm, ModelBasedCorrection,
    Monitored, Observer, Run, RunDefects, RunStats, Scheme, StepController, StepDiagnostics,
    SystemView,
};
use crate::scenario::{
    self, Algorithm, DefectInitialisation, DefectsSpec, MonitoredDefects, StepControlSpec,
    ValidatedScenario,
};
use crate::time::FixedGrid;

use alloc::boxed::Box;
use alloc::string::String;
use alloc::vec::Vec;

/// One recorded output.
#[derive(Clone, Debug, PartialEq)]
pub struct Signal {
    /// `module.output`.
    pub name: String,
    /// Unit of the output.
    pub unit: String,
    /// FMI type of the output: integers and booleans are printed and drawn as such.
    pub port_type: crate::module::PortType,
    /// Co-simulation values at the communication points recorded so far.
    pub cosim: Vec<f64>,
    /// Monolithic reference at the communication points recorded so far (same length as
    /// `cosim`), when available: exact for linear scenarios, otherwise the coupled
    /// equations integrated as one system (NaN after the reference stopped).
    pub reference: Option<Vec<f64>>,
}

/// Everything a run produced so far.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SimulationResult {
    /// Communication points recorded so far, in s.
    pub time: Vec<f64>,
    /// One entry per stacked output.
    pub signals: Vec<Signal>,
    /// The macro-step that ended at each communication point, in s (0 at the start).
    pub step_sizes: Vec<f64>,
    /// What the algorithm reported about the step that ended at each point (default at
    /// the start): error estimate, iterations, order, defect.
    pub diagnostics: Vec<StepDiagnostics>,
    /// Stacked output index of each signal; empty: every output, in order (a `chain`
    /// scenario records only its `plot`).
    pub recorded: Vec<usize>,
    /// The String and Binary outputs of binary modules (CSV columns after the outputs).
    pub texts: Vec<super::TextSignal>,
}

impl Observer for SimulationResult {
    fn on_initialized(&mut self, view: &SystemView<'_>) {
        self.on_macro_step(view);
    }

    fn on_macro_step(&mut self, view: &SystemView<'_>) {
        self.time.push(view.t);
        let outputs = view.outputs();
        if self.recorded.is_empty() {
            for (s, &y) in self.signals.iter_mut().zip(outputs) {
                s.cosim.push(y);
            }
        } else {
            for (s, &i) in self.signals.iter_mut().zip(&self.recorded) {
                s.cosim.push(outputs[i]);
            }
        }
        self.step_sizes.push(view.h);
        self.diagnostics.push(view.diagnostics);
        super::texts::record(&mut self.texts, self.time.len() - 1, view.system);
    }
}

/// Per-step columns a run writes after its outputs: `H` for variable macro-steps, then one
/// column for each diagnostic the algorithm reported at some step.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StepColumns {
    /// `H`: the macro-step that ended at the point.
    pub step_size: bool,
    /// `k`: the polynomial degree used.
    pub order: bool,
    /// `iterations`: corrector iterations.
    pub iterations: bool,
    /// `error`: the normalised local error estimate.
    pub error: bool,
    /// `defect`: the controlled defect.
    pub defect: bool,
}

impl StepColumns {
    /// The columns of a run with (`variable_steps`) or without variable steps that
    /// reported `diagnostics`.
    pub fn of(variable_steps: bool, diagnostics: &[StepDiagnostics]) -> Self {
        let any = |f: fn(&StepDiagnostics) -> bool| diagnostics.iter().any(f);
        StepColumns {
            step_size: variable_steps,
            order: any(|d| d.order.is_some()),
            iterations: any(|d| d.iterations > 0),
            error: any(|d| d.error.is_some()),
            defect: any(|d| d.defect.is_some()),
        }
    }

    /// Column names in CSV order.
    pub fn names(&self) -> Vec<&'static str> {
        let mut names = Vec::new();
        for (on, name) in [
            (self.step_size, "H"),
            (self.order, "k"),
            (self.iterations, "iterations"),
            (self.error, "error"),
            (self.defect, "defect"),
        ] {
            if on {
                names.push(name);
            }
        }
        names
    }

    /// The values of the columns at point `i` of `r` (NaN where a step reported nothing,
    /// e.g. at the start).
    pub fn values(&self, r: &SimulationResult, i: usize) -> Vec<f64> {
        let d = r.diagnostics.get(i).copied().unwrap_or_default();
        let mut values = Vec::new();
        if self.step_size {
            values.push(r.step_sizes.get(i).copied().unwrap_or(f64::NAN));
        }
        if self.order {
            values.push(d.order.map_or(f64::NAN, f64::from));
        }
        if self.iterations {
            values.push(f64::from(d.iterations));
        }
        if self.error {
            values.push(d.error.unwrap_or(f64::NAN));
        }
        if self.defect {
            values.push(d.defect.unwrap_or(f64::NAN));
        }
        values
    }
}

/// A scenario being run.
pub struct Simulation {
    run: Run,
    result: SimulationResult,
    total_steps: u32,
    jacobian_source: Option<JacobianSource>,
    /// δP, δE and E of the scenario's bonds (docs/methods.md §13), if it has any.
    energy: Option<EnergyMonitor>,
    reference: ReferenceState,
}

impl Simulation {
    /// Instantiates and initialises every module, prepares the reference (exact when the
    /// scenario is linear, integrated when every module exposes its equations; it is
    /// sampled at each communication point as the run records it) and the master with the
    /// scenario's step control: the fixed macro-step grid, or `master.step_control`
    /// (`defect`: [`DefectControl`] from `macro_step` on). Nothing is stepped yet.
    pub fn new(v: &ValidatedScenario) -> Result<Self, CosimError> {
        Self::with_executor(v, None)
    }

    /// As [`Self::new`]; a fixed-step Jacobi master (no corrector, no defects) steps the
    /// modules of each sweep with `executor` (e.g. on threads, docs/methods.md §16.3), and
    /// the error-controlled explicit and implicit masters every integration of an attempt
    /// (and the implicit one its finite-difference Jacobian). The other masters step one
    /// module after the other. The numbers are the same either way.
    pub fn with_executor(
        v: &ValidatedScenario,
        executor: Option<Box<dyn Executor>>,
    ) -> Result<Self, CosimError> {
        let s = &v.scenario;
        match &s.master.step_control {
            Some(StepControlSpec::Defect { tol }) => {
                let c = DefectControl::new(s.run.start, s.run.stop, s.master.macro_step, *tol)?;
                Self::with_controller(v, |_| Box::new(c))
            }
            // The algorithm decides and its controller follows (one shared verdict).
            Some(StepControlSpec::Error(spec)) if s.master.algorithm == Algorithm::Implicit => {
                let corrector = spec.corrector.clone().unwrap_or_default().settings();
                let mut alg = ImplicitCoupling::new(spec.settings(), corrector);
                if let Some(e) = executor {
                    alg = alg.with_executor(e);
                }
                let c = alg.step_controller(s.run.start, s.run.stop, s.master.macro_step);
                Self::build(v, |_| Box::new(c), Some(Box::new(alg)))
            }
            Some(StepControlSpec::Error(spec)) => {
                let mut alg = ErrorControlledCoupling::new(spec.settings());
                if let Some(e) = executor {
                    alg = alg.with_executor(e);
                }
                let c = alg.step_controller(s.run.start, s.run.stop, s.master.macro_step);
                Self::build(v, |_| Box::new(c), Some(Box::new(alg)))
            }
            None => {
                let fixed = |grid| Box::new(FixedStep::new(grid)) as Box<dyn StepController>;
                let plain = s.master.correction.is_none() && s.master.defects.is_none();
                match executor {
                    Some(e) if plain && s.master.algorithm == Algorithm::Jacobi => {
                        let order = s.master.extrapolation_order;
                        let alg = ExplicitCoupling::new(Scheme::Jacobi, order).with_executor(e);
                        Self::build(v, fixed, Some(Box::new(alg)))
                    }
                    _ => Self::with_controller(v, fixed),
                }
            }
        }
    }

    /// As [`Self::new`], with the step controller `controller(grid)` instead of the plain
    /// grid (e.g. a test controller that rejects chosen steps).
    pub fn with_controller(
        v: &ValidatedScenario,
        controller: impl FnOnce(FixedGrid) -> Box<dyn StepController>,
    ) -> Result<Self, CosimError> {
        Self::build(v, controller, None)
    }

    /// [`Self::with_controller`] with `algorithm` instead of the one the scenario's master
    /// settings select (an error-controlled algorithm shares its verdict with its controller).
    fn build(
        v: &ValidatedScenario,
        controller: impl FnOnce(FixedGrid) -> Box<dyn StepController>,
        algorithm: Option<Box<dyn MasterAlgorithm>>,
    ) -> Result<Self, CosimError> {
        let s = &v.scenario;
        let mut modules = Vec::with_capacity(s.modules.len());
        for spec in &s.modules {
            let m = build_module(spec)?;
            modules.push((spec.name.clone(), m));
        }
        let connections: Vec<(String, String)> = s
            .connections
            .iter()
            .map(|c| (c.from.clone(), c.to.clone()))
            .collect();
        let mut system = CoupledSystem::new(modules, &connections)?;
        let grid = v.grid;
        let controller = controller(grid);
        system.initialize(grid.t_start, controller.t_stop())?;
        let (reference, history, reference_note) = reference_for(v, &mut system)?;
        let names = system.graph().output_names();
        let units = system.graph().output_units();
        let types = system.graph().output_types().to_vec();
        // A chain records only its plot (thousands of outputs otherwise).
        let mut recorded: Vec<usize> = match s.chain {
            Some(_) => s
                .plot
                .iter()
                .filter_map(|p| system.graph().output_index(p))
                .collect(),
            None => Vec::new(),
        };
        recorded.sort_unstable();
        recorded.dedup();
        let keep = |i: &usize| recorded.is_empty() || recorded.binary_search(i).is_ok();
        let signals = names
            .into_iter()
            .zip(units)
            .zip(types)
            .enumerate()
            .filter(|(i, _)| keep(i))
            .map(|(_, p)| p)
            .map(|((name, unit), port_type)| Signal {
                name,
                unit,
                port_type,
                cosim: Vec::with_capacity(grid.steps as usize + 1),
                reference: reference
                    .as_ref()
                    .map(|_| Vec::with_capacity(grid.steps as usize + 1)),
            })
            .collect();
        let scheme = scheme(v);
        // `master.correction` selects seed 000's model-based corrector (Jacobi only, checked
        // by validation); its Jacobian source is known from the capability flags already.
        let order = s.master.extrapolation_order;
        let (algorithm_by_settings, jacobian_source): (Box<dyn MasterAlgorithm>, _) =
            match &s.master.correction {
                Some(c) => {
                    let request = match c.jacobians {
                        scenario::JacobianSource::Auto => JacobianRequest::Auto,
                        scenario::JacobianSource::DirectionalDerivatives => {
                            JacobianRequest::DirectionalDerivatives
                        }
                        scenario::JacobianSource::FiniteDifferences => {
                            JacobianRequest::FiniteDifferences
                        }
                    };
                    let source = jacobian_source_for(&system, request)?;
                    (
                        Box::new(ModelBasedCorrection::new(order, c.alpha, request)),
                        Some(source),
                    )
                }
                None => match &s.master.defects {
                    Some(d) => (Box::new(DefectJacobi::new(defect_settings(d))), None),
                    None => (Box::new(ExplicitCoupling::new(scheme, order)), None),
                },
            };
        let result = SimulationResult {
            time: Vec::with_capacity(grid.steps as usize + 1),
            signals,
            step_sizes: Vec::with_capacity(grid.steps as usize + 1),
            diagnostics: Vec::with_capacity(grid.steps as usize + 1),
            recorded,
            texts: super::texts::signals(&system),
        };
        let plan = v.energy.as_ref();
        let algorithm =
            energy::algorithm_for(plan, order, algorithm.unwrap_or(algorithm_by_settings));
        let mut run = Run::with_controller(system, algorithm, controller, history)?;
        let energy = energy::attach(plan, &mut run);
        Ok(Simulation {
            run,
            result,
            total_steps: grid.steps,
            jacobian_source,
            energy,
            reference: ReferenceState {
                reference,
                note: reference_note,
                failed: false,
            },
        })
    }

    /// Takes up to `max_steps` macro-steps; `Ok(true)` once the stop time is reached.
    /// The reference follows every communication point recorded, also those recorded
    /// before a failure.
    pub fn advance(&mut self, max_steps: u32) -> Result<bool, CosimError> {
        let mut observer = energy::Both(&mut self.result, self.energy.as_mut());
        let done = self.run.advance(max_steps, &mut observer);
        self.reference.follow(&mut self.result);
        Ok(done?)
    }

    /// Runs to the stop time.
    pub fn run_to_end(&mut self) -> Result<(), CosimError> {
        while !self.advance(u32::MAX)? {}
        Ok(())
    }

    /// Macro-steps taken so far.
    pub fn steps_done(&self) -> u32 {
        self.run.steps_done()
    }

    /// Accepted, event and rejected steps and restored module states so far.
    pub fn stats(&self) -> RunStats {
        self.run.stats()
    }

    /// `(time in s, module name)` if a module ended the run before the stop time (FMI
    /// `terminateSimulation`); the run then finished cleanly, not with an error.
    pub fn terminated_early(&self) -> Option<(f64, &str)> {
        self.run.terminated_early()
    }

    /// Where the model-based corrector's Jacobians come from (`directional_derivatives`,
    /// `finite_differences` or `mixed`); `None` without `master.correction`.
    pub fn jacobian_source(&self) -> Option<&'static str> {
        self.jacobian_source.map(|s| s.as_str())
    }

    /// Residual power and energy of the bonds and the reported energy (mean δP, δE(T),
    /// E(T), E0 and the reference energy); `None` for a scenario without bonds.
    pub fn energy_summary(&self) -> Option<EnergySummary> {
        energy::summarize(self.energy.as_ref()?, &self.result)
    }

    /// The energy monitor's points (one per recorded communication point), if any.
    pub fn energy_monitor(&self) -> Option<&EnergyMonitor> {
        self.energy.as_ref()
    }

    /// Run-wide RMS defects per port so far (docs/methods.md §15.4), when the master
    /// measures them (`master.defects`).
    pub fn run_defects(&self) -> Option<&RunDefects> {
        self.run.algorithm().defects()
    }

    /// Macro-steps of the whole run (on the fixed grid; with variable steps, the steps of
    /// `macro_step`, an estimate for progress displays).
    pub fn total_steps(&self) -> u32 {
        self.total_steps
    }

    /// The recorded outputs (and the reference).
    pub fn result(&self) -> &SimulationResult {
        &self.result
    }

    /// Whether the macro-step varies during the run (step control).
    pub fn variable_steps(&self) -> bool {
        self.run.variable_steps()
    }

    /// Fraction of the simulated interval done so far, 0 to 1.
    pub fn progress(&self) -> f64 {
        let (t0, t1) = (self.run.t_start(), self.run.t_stop());
        match self.result.time.last() {
            Some(&t) if t1 > t0 => ((t - t0) / (t1 - t0)).clamp(0.0, 1.0),
            Some(_) => 1.0,
            None => 0.0,
        }
    }

    /// The per-step columns the run writes after its outputs (none for a fixed-step run
    /// without diagnostics, so its CSV is what it always was).
    pub fn step_columns(&self) -> StepColumns {
        StepColumns::of(self.variable_steps(), &self.result.diagnostics)
    }

    /// Why the run has no reference, or why its reference stopped (`None` when it has a
    /// working one, or none was asked for).
    pub fn reference_note(&self) -> Option<&str> {
        self.reference.note.as_deref()
    }

    /// How the reference is computed (`exact (matrix exponential)`, or the integrator and
    /// its tolerances); `None` without one.
    pub fn reference_method(&self) -> Option<String> {
        self.reference.reference.as_ref().map(Reference::method)
    }

    /// Global NRMSE of seed 000 eqn (33) over the macro-steps taken so far (outputs after
    /// each step, the initial point excluded); `None` without a reference or after the
    /// reference stopped.
    pub fn global_nrmse(&self) -> Option<f64> {
        let n = self.result.time.len();
        if n < 2 || self.reference.failed {
            return None;
        }
        let mut reference = Vec::with_capacity(self.result.signals.len());
        let mut cosim = Vec::with_capacity(self.result.signals.len());
        for s in &self.result.signals {
            reference.push(s.reference.as_ref()?[1..n].to_vec());
            cosim.push(s.cosim[1..n].to_vec());
        }
        global_nrmse(&reference, &cosim)
    }
}

/// The coupling scheme of a scenario's master (the Gauss-Seidel order as module indices).
pub(super) fn scheme(v: &ValidatedScenario) -> Scheme {
    match v.scenario.master.algorithm {
        Algorithm::Jacobi | Algorithm::Implicit => Scheme::Jacobi,
        Algorithm::GaussSeidel => Scheme::GaussSeidel(v.sequence.clone()),
    }
}

/// The master's defect settings from the scenario's.
fn defect_settings(d: &DefectsSpec) -> DefectSettings {
    DefectSettings {
        input_order: d.input_order as usize,
        output_order: d.output_order as usize,
        monitored: match d.monitored {
            MonitoredDefects::Both => Monitored::Both,
            MonitoredDefects::Output => Monitored::Output,
            MonitoredDefects::Connection => Monitored::Connection,
        },
        initialisation: match d.initialisation {
            DefectInitialisation::Consistent => Initialisation::Consistent,
            DefectInitialisation::ZeroDerivatives => Initialisation::ZeroDerivatives,
        },
    }
}
