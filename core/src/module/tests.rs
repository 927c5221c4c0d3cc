//! Call-order tests of the [`Subsystem`] wrapper: a table of illegal FMI 3.0 call
//! sequences, each of which must give an `Error` status (and never a panic).

use super::*;
use alloc::boxed::Box;
use alloc::vec;
use alloc::vec::Vec;

/// `y = k·u`, with an integrator state `x' = u` so that stepping changes something.
struct GainIntegrator {
    desc: ModuleDescription,
    u: f64,
    x: f64,
    k: f64,
}

const U: ValueRef = ValueRef(1);
const Y: ValueRef = ValueRef(2);
const K: ValueRef = ValueRef(3);
const X: ValueRef = ValueRef(4);

impl GainIntegrator {
    fn boxed() -> Box<dyn Module> {
        let desc = ModuleDescription {
            model_name: "GainIntegrator".into(),
            variables: vec![
                Variable::new(
                    "u",
                    1,
                    Causality::Input,
                    Variability::Continuous,
                    Some(0.0),
                    "",
                ),
                Variable::new("y", 2, Causality::Output, Variability::Continuous, None, ""),
                Variable::new(
                    "k",
                    3,
                    Causality::Parameter,
                    Variability::Fixed,
                    Some(2.0),
                    "",
                ),
                Variable::new(
                    "x",
                    4,
                    Causality::Local,
                    Variability::Continuous,
                    Some(0.0),
                    "",
                ),
            ],
            capabilities: Capabilities {
                can_get_and_set_fmu_state: true,
                ..Default::default()
            },
            output_dependencies: vec![OutputDependency {
                output: Y,
                inputs: vec![(U, DependencyKind::Constant)],
            }],
        };
        Box::new(GainIntegrator {
            desc,
            u: 0.0,
            x: 0.0,
            k: 2.0,
        })
    }
}

impl Module for GainIntegrator {
    fn description(&self) -> &ModuleDescription {
        &self.desc
    }
    fn enter_initialization_mode(
        &mut self,
        _: Option<f64>,
        _: f64,
        _: Option<f64>,
    ) -> Result<(), ModuleError> {
        Ok(())
    }
    fn exit_initialization_mode(&mut self) -> Result<(), ModuleError> {
        Ok(())
    }
    fn set_float64(&mut self, vrs: &[ValueRef], values: &[f64]) -> Result<(), ModuleError> {
        for (vr, v) in vrs.iter().zip(values) {
            match *vr {
                U => self.u = *v,
                K => self.k = *v,
                X => self.x = *v,
                other => return Err(ModuleError::error(ModuleErrorKind::UnknownValueRef(other))),
            }
        }
        Ok(())
    }
    fn get_float64(&mut self, vrs: &[ValueRef], values: &mut [f64]) -> Result<(), ModuleError> {
        for (vr, v) in vrs.iter().zip(values.iter_mut()) {
            *v = match *vr {
                U => self.u,
                Y => self.k * self.u,
                K => self.k,
                X => self.x,
                other => return Err(ModuleError::error(ModuleErrorKind::UnknownValueRef(other))),
            };
        }
        Ok(())
    }
    fn do_step(&mut self, t: f64, h: f64, _: bool) -> Result<StepReport, ModuleError> {
        self.x += h * self.u;
        Ok(StepReport::completed(t + h))
    }
    fn reset(&mut self) -> Result<(), ModuleError> {
        self.u = 0.0;
        self.x = 0.0;
        Ok(())
    }
    fn state_snapshot(&mut self) -> Option<&mut dyn StateSnapshot> {
        Some(self)
    }
}

impl StateSnapshot for GainIntegrator {
    fn get_state(&mut self) -> Result<ModuleState, ModuleError> {
        Ok(ModuleState(Box::new((self.u, self.x))))
    }
    fn set_state(&mut self, state: &ModuleState) -> Result<(), ModuleError> {
        let (u, x) = *state
            .0
            .downcast_ref::<(f64, f64)>()
            .ok_or_else(|| ModuleError::invalid("foreign state"))?;
        self.u = u;
        self.x = x;
        Ok(())
    }
    fn serialize_state(&mut self, _: &ModuleState) -> Result<Vec<u8>, ModuleError> {
        Err(ModuleError::error(ModuleErrorKind::Unsupported(
            "canSerializeFMUState",
        )))
    }
    fn deserialize_state(&mut self, _: &[u8]) -> Result<ModuleState, ModuleError> {
        Err(ModuleError::error(ModuleErrorKind::Unsupported(
            "canSerializeFMUState",
        )))
    }
}

#[derive(Clone, Copy, Debug)]
enum Call {
    EnterInit,
    ExitInit,
    SetU,
    SetK,
    GetY,
    Step(f64),
    Terminate,
    Reset,
    EnterEventMode,
    EnterStepMode,
    UpdateDiscrete,
    GetState,
    Serialize,
    DirectionalDerivative,
    OutputDerivative,
    InputDerivative,
    SetLengthMismatch,
}

fn apply(s: &mut Subsystem, call: Call, t: &mut f64) -> Result<(), ModuleError> {
    let mut out = [0.0];
    match call {
        Call::EnterInit => s.enter_initialization_mode(None, 0.0, Some(1.0)),
        Call::ExitInit => s.exit_initialization_mode(),
        Call::SetU => s.set_float64(&[U], &[1.0]),
        Call::SetK => s.set_float64(&[K], &[3.0]),
        Call::GetY => s.get_float64(&[Y], &mut out),
        Call::Step(h) => s.do_step(*t, h, true).map(|r| *t = r.last_successful_time),
        Call::Terminate => s.terminate(),
        Call::Reset => s.reset(),
        Call::EnterEventMode => s.enter_event_mode(),
        Call::EnterStepMode => s.enter_step_mode(),
        Call::UpdateDiscrete => s.update_discrete_states().map(|_| ()),
        Call::GetState => s.get_state().map(|_| ()),
        Call::Serialize => s
            .get_state()
            .and_then(|st| s.serialize_state(&st))
            .map(|_| ()),
        Call::DirectionalDerivative => s.directional_derivative(&[Y], &[U], &[1.0], &mut out),
        Call::OutputDerivative => s.get_output_derivatives(&[Y], &[1], &mut out),
        Call::InputDerivative => s.set_input_derivatives(&[U], &[1], &[1.0]),
        Call::SetLengthMismatch => s.set_float64(&[U, K], &[1.0]),
    }
}

fn run(calls: &[Call]) -> (Vec<Result<(), ModuleError>>, FmiState) {
    let mut s = Subsystem::instantiate(GainIntegrator::boxed(), InstantiateOptions::default())
        .expect("instantiates");
    let mut t = 0.0;
    let results = calls.iter().map(|c| apply(&mut s, *c, &mut t)).collect();
    (results, s.state())
}

#[test]
fn legal_sequence_runs() {
    use Call::*;
    let (results, state) = run(&[
        SetK,
        EnterInit,
        SetU,
        GetY,
        ExitInit,
        GetY,
        SetU,
        Step(0.1),
        GetY,
        GetState,
        Terminate,
        GetY,
        Reset,
    ]);
    assert!(results.iter().all(Result::is_ok), "{results:?}");
    assert_eq!(state, FmiState::Instantiated);
}

#[test]
fn illegal_call_sequences_give_error_status() {
    use Call::*;
    // Each row: a legal prefix, then the illegal call, and the error it must give.
    let table: &[(&[Call], Call, fn(&ModuleErrorKind) -> bool)] = &[
        (&[], Step(0.1), |k| {
            matches!(
                k,
                ModuleErrorKind::IllegalCall {
                    call: "fmi3DoStep",
                    ..
                }
            )
        }),
        (&[], ExitInit, |k| {
            matches!(k, ModuleErrorKind::IllegalCall { .. })
        }),
        (&[EnterInit], EnterInit, |k| {
            matches!(k, ModuleErrorKind::IllegalCall { .. })
        }),
        (&[EnterInit], Step(0.1), |k| {
            matches!(k, ModuleErrorKind::IllegalCall { .. })
        }),
        (&[EnterInit, ExitInit], EnterInit, |k| {
            matches!(k, ModuleErrorKind::IllegalCall { .. })
        }),
        (&[EnterInit, ExitInit], SetK, |k| {
            matches!(k, ModuleErrorKind::NotSettable(K))
        }),
        (&[EnterInit, ExitInit, SetU], GetY, |k| {
            matches!(k, ModuleErrorKind::GetAfterSet)
        }),
        (&[EnterInit, ExitInit], Step(0.0), |k| {
            matches!(k, ModuleErrorKind::InvalidArgument(_))
        }),
        (&[EnterInit, ExitInit], Step(-1.0), |k| {
            matches!(k, ModuleErrorKind::InvalidArgument(_))
        }),
        (&[EnterInit, ExitInit], Step(f64::NAN), |k| {
            matches!(k, ModuleErrorKind::InvalidArgument(_))
        }),
        (&[EnterInit, ExitInit, Step(0.1)], Step(0.2), |k| {
            matches!(k, ModuleErrorKind::InvalidArgument(_))
        }),
        (&[EnterInit, ExitInit], EnterEventMode, |k| {
            matches!(k, ModuleErrorKind::Unsupported(_))
        }),
        (&[EnterInit, ExitInit], EnterStepMode, |k| {
            matches!(k, ModuleErrorKind::IllegalCall { .. })
        }),
        (&[EnterInit, ExitInit], UpdateDiscrete, |k| {
            matches!(k, ModuleErrorKind::IllegalCall { .. })
        }),
        (&[EnterInit, ExitInit, Terminate], Step(0.1), |k| {
            matches!(k, ModuleErrorKind::IllegalCall { .. })
        }),
        (&[EnterInit, ExitInit, Terminate], SetU, |k| {
            matches!(k, ModuleErrorKind::IllegalCall { .. })
        }),
        (&[EnterInit, ExitInit, Terminate], Terminate, |k| {
            matches!(k, ModuleErrorKind::IllegalCall { .. })
        }),
        (&[EnterInit, ExitInit], Serialize, |k| {
            matches!(k, ModuleErrorKind::Unsupported("canSerializeFMUState"))
        }),
        (&[EnterInit, ExitInit], DirectionalDerivative, |k| {
            matches!(k, ModuleErrorKind::Unsupported(_))
        }),
        (&[], DirectionalDerivative, |k| {
            matches!(k, ModuleErrorKind::IllegalCall { .. })
        }),
        (&[EnterInit, ExitInit], OutputDerivative, |k| {
            matches!(k, ModuleErrorKind::InvalidArgument(_))
        }),
        (&[EnterInit, ExitInit], InputDerivative, |k| {
            matches!(k, ModuleErrorKind::InvalidArgument(_))
        }),
        (&[], InputDerivative, |k| {
            matches!(k, ModuleErrorKind::IllegalCall { .. })
        }),
        (&[EnterInit], SetLengthMismatch, |k| {
            matches!(k, ModuleErrorKind::InvalidArgument(_))
        }),
    ];
    for (prefix, illegal, expected) in table {
        let mut calls: Vec<Call> = prefix.to_vec();
        calls.push(*illegal);
        let (results, state) = run(&calls);
        let (last, before) = results.split_last().expect("non-empty");
        assert!(
            before.iter().all(Result::is_ok),
            "prefix of {calls:?} failed: {before:?}"
        );
        let err = last
            .as_ref()
            .expect_err(&alloc::format!("{calls:?} must fail"));
        assert_eq!(err.status, Status::Error, "{calls:?}");
        assert!(expected(&err.kind), "{calls:?} gave {:?}", err.kind);
        // FMI: an Error status leaves the instance Terminated.
        assert_eq!(state, FmiState::Terminated, "{calls:?}");
    }
}

#[test]
fn rollback_restores_the_state_and_allows_get() {
    let mut s =
        Subsystem::instantiate(GainIntegrator::boxed(), InstantiateOptions::default()).unwrap();
    s.enter_initialization_mode(None, 0.0, None).unwrap();
    s.exit_initialization_mode().unwrap();
    s.set_float64(&[U], &[1.0]).unwrap();
    // The default `save_state_into` (this module has no in-place path) saves anew.
    let mut saved = ModuleState::empty();
    s.save_state_into(&mut saved).unwrap();
    s.do_step(0.0, 0.5, false).unwrap();
    let mut x = [0.0];
    s.get_float64(&[X], &mut x).unwrap();
    assert_eq!(x[0], 0.5);
    s.set_float64(&[U], &[4.0]).unwrap();
    s.set_state(&saved).unwrap();
    let mut xu = [0.0; 2];
    s.get_float64(&[X, U], &mut xu).unwrap();
    assert_eq!(xu, [0.0, 1.0]);
    assert_eq!(s.counts().set_state, 1);
}

#[test]
fn capability_flags_list_uses_fmi_names() {
    let names: Vec<&str> = Capabilities::default()
        .flags()
        .iter()
        .map(|f| f.name)
        .collect();
    assert!(names.contains(&"canGetAndSetFMUState"));
    assert!(names.contains(&"providesDirectionalDerivatives"));
    assert!(names.iter().filter(|n| n.starts_with("x-")).count() >= 3);
}
