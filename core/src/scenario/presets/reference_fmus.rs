//! Presets with the Reference FMU equivalents ([`crate::models::reference_fmus`]): one per
//! model, each showing one co-simulation behaviour (events and early return, a fixed
//! internal step, time events and termination, direct feedthrough).
//!
//! Not a preset, because presets must run: two Feedthroughs connected in a ring
//! (`a.Float64_continuous_output → b.Float64_continuous_input` and back). Each output
//! equals its input at the same instant, so the ring is an algebraic loop with loop gain 1:
//! `I − D·L` is singular and any value solves it. Validation refuses such a scenario at
//! `connections`, listing the loop (test `feedthrough_ring_is_refused_listing_the_loop`).

use super::super::schema::{
    Algorithm, ConnectionSpec, MasterSpec, ModuleSpec, RunSpec, Scenario, SolverSpec, StartUp,
    SCHEMA_VERSION,
};
use super::Preset;
use crate::models::reference_fmus::{
    BOUNCING_BALL_ID, DAHLQUIST_ID, FEEDTHROUGH_ID, STAIR_ID, STATE_SPACE_ID, VAN_DER_POL_ID,
};
use alloc::collections::BTreeMap;
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;

/// Topic of the Reference FMU presets.
pub const TOPIC_REFERENCE_FMUS: &str = "Reference FMUs (events, fixed steps, feedthrough)";

fn module(name: &str, model: &str, parameters: &[(&str, f64)]) -> ModuleSpec {
    ModuleSpec {
        name: name.into(),
        model: model.into(),
        parameters: parameters
            .iter()
            .map(|(k, v)| (String::from(*k), *v))
            .collect::<BTreeMap<_, _>>(),
        solver: SolverSpec::Default,
        source: None,
    }
}

fn connect(from: &str, to: &str) -> ConnectionSpec {
    ConnectionSpec {
        from: from.into(),
        to: to.into(),
    }
}

struct Spec<'a> {
    title: &'a str,
    description: &'a str,
    modules: Vec<ModuleSpec>,
    connections: Vec<ConnectionSpec>,
    algorithm: Algorithm,
    sequence: Vec<String>,
    macro_step: f64,
    stop: f64,
    plot: &'a [&'a str],
}

fn scenario(s: Spec<'_>) -> Scenario {
    Scenario {
        schema_version: SCHEMA_VERSION,
        title: s.title.into(),
        description: s.description.into(),
        modules: s.modules,
        connections: s.connections,
        master: MasterSpec {
            algorithm: s.algorithm,
            macro_step: s.macro_step,
            extrapolation_order: 0,
            sequence: s.sequence,
            start_up: StartUp::RampUp,
            correction: None,
        },
        run: RunSpec {
            start: 0.0,
            stop: s.stop,
        },
        reference: false,
        plot: s.plot.iter().map(|p| String::from(*p)).collect(),
        analysis: None,
    }
}

fn preset(id: &'static str, try_next: &str, scenario: Scenario) -> Preset {
    Preset {
        id,
        topic: TOPIC_REFERENCE_FMUS,
        try_next: try_next.into(),
        scenario,
    }
}

/// All Reference FMU presets, in picker order.
pub fn reference_presets() -> Vec<Preset> {
    vec![
        bouncing_ball(),
        dahlquist(),
        van_der_pol(),
        stair(),
        state_space(),
        feedthrough(),
    ]
}

fn bouncing_ball() -> Preset {
    let description = "The Reference FMU BouncingBall on its own: a ball dropped from 1 m, \
        integrated by forward Euler with a fixed 1 ms step inside each 10 ms macro-step. When \
        the height crosses zero the module returns early from its step at that instant, the \
        master enters Event Mode, the ball bounces back with 70 % of its speed, and the run \
        continues from the event time. Those event instants are extra communication points \
        between the 10 ms grid points. At the grid points the result equals the published \
        reference output of the Reference FMUs, digit for digit.";
    preset(
        "reference-bouncing-ball",
        "Set the ball's e to 0.9 for livelier bounces, or raise the macro-step to 0.1 s: the \
         bounces still happen at the same times, because the ball stops the step at each event.",
        scenario(Spec {
            title: "Reference FMU BouncingBall: state events, early return, Event Mode",
            description,
            modules: vec![module("ball", BOUNCING_BALL_ID, &[])],
            connections: vec![],
            algorithm: Algorithm::Jacobi,
            sequence: vec![],
            macro_step: 0.01,
            stop: 3.0,
            plot: &["ball.h", "ball.v"],
        }),
    )
}

fn dahlquist() -> Preset {
    let description = "The Reference FMU Dahlquist, der(x) = -k x, integrates with a fixed \
        internal step of 0.1 s, but here the master asks for macro-steps of 0.25 s. The module \
        can only take whole internal steps, so it stops at the last one that fits and reports \
        that time as its lastSuccessfulTime: its output at t = 0.25 s is still x(0.2) = 0.81. \
        The next step catches up from there, so the curve is a staircase that lags the exact \
        decay e^-t. Forward Euler itself gives 0.9^n instead of e^(-0.1 n), a second, separate \
        error.";
    preset(
        "reference-dahlquist-macro-step",
        "Set the macro-step to 0.1 s, a multiple of the internal step, and the lag disappears; \
         at 0.3 s the staircase is regular again.",
        scenario(Spec {
            title: "Reference FMU Dahlquist: macro-step 0.25 s over a fixed 0.1 s internal step",
            description,
            modules: vec![module("decay", DAHLQUIST_ID, &[])],
            connections: vec![],
            algorithm: Algorithm::Jacobi,
            sequence: vec![],
            macro_step: 0.25,
            stop: 10.0,
            plot: &["decay.x"],
        }),
    )
}

fn van_der_pol() -> Preset {
    let description = "The Reference FMU VanDerPol: the Van der Pol oscillator with mu = 1, \
        integrated by forward Euler with a fixed 10 ms step. From x0 = 2 it settles onto its \
        limit cycle, a relaxation oscillation with a period of about 6.7 s. The module provides \
        exact directional derivatives (the Jacobian of der(x) with respect to x), which \
        Jacobian-based masters can use instead of finite differences. Its output reproduces \
        the published reference output of the Reference FMUs.";
    preset(
        "reference-van-der-pol",
        "Set mu to 3 and watch the oscillation turn into sharp relaxation jumps; at mu = 0.1 it \
         is almost a harmonic oscillator.",
        scenario(Spec {
            title: "Reference FMU VanDerPol: limit cycle by fixed-step forward Euler",
            description,
            modules: vec![module("vdp", VAN_DER_POL_ID, &[])],
            connections: vec![],
            algorithm: Algorithm::Jacobi,
            sequence: vec![],
            macro_step: 0.01,
            stop: 20.0,
            plot: &["vdp.x0", "vdp.x1"],
        }),
    )
}

fn stair() -> Preset {
    let description = "The Reference FMU Stair: a counter that a time event increments every \
        second. Each event is handled in Event Mode, where the counter changes, so the step \
        appears exactly at the whole second. When the counter reaches 10 at t = 9 s the module \
        asks to terminate the simulation, and the run ends there cleanly although the stop time \
        is 10 s. The recorded values equal the published reference output.";
    preset(
        "reference-stair",
        "Change the macro-step to 0.3 s: the module now returns early at each whole second, so \
         extra communication points appear and the steps stay sharp.",
        scenario(Spec {
            title: "Reference FMU Stair: time events and early termination",
            description,
            modules: vec![module("stair", STAIR_ID, &[])],
            connections: vec![],
            algorithm: Algorithm::Jacobi,
            sequence: vec![],
            macro_step: 0.2,
            stop: 10.0,
            plot: &["stair.counter"],
        }),
    )
}

fn state_space() -> Preset {
    let description = "The Reference FMU StateSpace, der(x) = A x + B u, y = C x + D u, with \
        three states, here with A = -I so that each channel is a first-order low-pass filter \
        plus a direct path (D = I). Its three inputs come from the Van der Pol oscillator and \
        the Dahlquist decay, so the plot shows a signal next to its filtered and fed-through \
        version. The direct path D means y changes as soon as u does; in this explicit Jacobi \
        master the inputs are held over each macro-step.";
    let diag =
        |m: &str| [(1, 1), (2, 2), (3, 3)].map(|(i, j)| (alloc::format!("{m}[{i},{j}]"), -1.0));
    let a: Vec<(String, f64)> = diag("A").into();
    let params: Vec<(&str, f64)> = a.iter().map(|(k, v)| (k.as_str(), *v)).collect();
    preset(
        "reference-state-space",
        "Set D[1,1] to 0 to remove the direct path of the first channel, or A[1,1] back to 1 \
         (the Reference FMU's default) and watch that channel grow like e^t.",
        scenario(Spec {
            title: "Reference FMU StateSpace as a filter of Van der Pol and Dahlquist signals",
            description,
            modules: vec![
                module("vdp", VAN_DER_POL_ID, &[]),
                module("decay", DAHLQUIST_ID, &[]),
                module("ss", STATE_SPACE_ID, &params),
            ],
            connections: vec![
                connect("vdp.x0", "ss.u[1]"),
                connect("vdp.x1", "ss.u[2]"),
                connect("decay.x", "ss.u[3]"),
            ],
            algorithm: Algorithm::Jacobi,
            sequence: vec![],
            macro_step: 0.1,
            stop: 20.0,
            plot: &["vdp.x0", "ss.y[1]", "ss.y[3]"],
        }),
    )
}

fn feedthrough() -> Preset {
    let description = "The Reference FMU Feedthrough copies its inputs to its outputs at the \
        same instant (direct feedthrough), here fed with the two states of the Van der Pol \
        oscillator. In a Jacobi master every module steps on the inputs of the previous \
        communication point, so the copy arrives one macro-step late: the two curves are \
        shifted by 0.1 s. A Gauss-Seidel master that steps the oscillator first hands over its \
        new outputs within the same macro-step, and the copy is exact.";
    preset(
        "reference-feedthrough",
        "Switch the algorithm to Gauss-Seidel with the sequence vdp, pass: the Feedthrough then \
         sees the oscillator's new output and the delay disappears.",
        scenario(Spec {
            title: "Reference FMU Feedthrough after a Van der Pol oscillator: the Jacobi delay",
            description,
            modules: vec![
                module("vdp", VAN_DER_POL_ID, &[]),
                module("pass", FEEDTHROUGH_ID, &[]),
            ],
            connections: vec![
                connect("vdp.x0", "pass.Float64_continuous_input"),
                connect("vdp.x1", "pass.Float64_discrete_input"),
            ],
            algorithm: Algorithm::Jacobi,
            sequence: vec![],
            macro_step: 0.1,
            stop: 20.0,
            plot: &["vdp.x0", "pass.Float64_continuous_output"],
        }),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::Simulation;

    fn sentences(text: &str) -> usize {
        text.matches(". ").count() + 1
    }

    #[test]
    fn every_reference_preset_runs_to_its_end() {
        for p in reference_presets() {
            let v = p
                .scenario
                .validate()
                .unwrap_or_else(|e| panic!("{}: {e}", p.id));
            let mut sim = Simulation::new(&v).unwrap_or_else(|e| panic!("{}: {e}", p.id));
            sim.run_to_end().unwrap_or_else(|e| panic!("{}: {e}", p.id));
            let n = sim.result().time.len();
            assert!(n > 10, "{}", p.id);
            assert!(
                sim.result()
                    .signals
                    .iter()
                    .all(|s| s.cosim.iter().all(|y| y.is_finite())),
                "{}",
                p.id
            );
            let d = &p.scenario.description;
            assert!(
                (3..=6).contains(&sentences(d)),
                "{}: {} sentences",
                p.id,
                sentences(d)
            );
            assert!(!p.try_next.is_empty());
            let last = *sim.result().time.last().unwrap_or(&0.0);
            if p.id == "reference-stair" {
                assert_eq!(sim.terminated_early(), Some((9.0, "stair")));
                assert_eq!(last, 9.0);
            } else {
                assert_eq!(sim.terminated_early(), None, "{}", p.id);
                assert!(
                    (last - p.scenario.run.stop).abs() < 1e-9,
                    "{}: ends at {last}",
                    p.id
                );
            }
        }
    }

    #[test]
    fn dahlquist_preset_shows_the_fixed_step_lag() {
        let v = dahlquist()
            .scenario
            .validate()
            .unwrap_or_else(|e| panic!("{e}"));
        let mut sim = Simulation::new(&v).unwrap_or_else(|e| panic!("{e}"));
        sim.run_to_end().unwrap_or_else(|e| panic!("{e}"));
        let r = sim.result();
        // t = 0.25: two internal steps taken (x = 0.9²); t = 0.5: five (0.9⁵).
        assert_eq!((r.time[1], r.signals[0].cosim[1]), (0.25, 0.81));
        assert!((r.signals[0].cosim[2] - libm::pow(0.9, 5.0)).abs() < 1e-15);
    }

    #[test]
    fn feedthrough_preset_delays_by_one_macro_step_and_gauss_seidel_removes_it() {
        let mut scenario = feedthrough().scenario;
        for gauss_seidel in [false, true] {
            if gauss_seidel {
                scenario.master.algorithm = Algorithm::GaussSeidel;
                scenario.master.sequence = vec!["vdp".into(), "pass".into()];
            }
            let v = scenario.validate().unwrap_or_else(|e| panic!("{e}"));
            let mut sim = Simulation::new(&v).unwrap_or_else(|e| panic!("{e}"));
            sim.run_to_end().unwrap_or_else(|e| panic!("{e}"));
            let r = sim.result();
            // Signals: vdp.x0, vdp.x1, pass.Float64_continuous_output, ..._discrete_output.
            let (x0, copy) = (&r.signals[0].cosim, &r.signals[2].cosim);
            for k in 1..x0.len() {
                let expected = if gauss_seidel { x0[k] } else { x0[k - 1] };
                assert_eq!(
                    copy[k], expected,
                    "t = {}, Gauss-Seidel: {gauss_seidel}",
                    r.time[k]
                );
            }
        }
    }

    #[test]
    fn feedthrough_ring_is_refused_listing_the_loop() {
        let s = scenario(Spec {
            title: "Feedthrough ring",
            description: "Two Feedthroughs in a ring.",
            modules: vec![
                module("a", FEEDTHROUGH_ID, &[]),
                module("b", FEEDTHROUGH_ID, &[]),
            ],
            connections: vec![
                connect("a.Float64_continuous_output", "b.Float64_continuous_input"),
                connect("b.Float64_continuous_output", "a.Float64_continuous_input"),
                connect("a.Float64_discrete_output", "b.Float64_discrete_input"),
                connect("b.Float64_discrete_output", "a.Float64_discrete_input"),
            ],
            algorithm: Algorithm::Jacobi,
            sequence: vec![],
            macro_step: 0.1,
            stop: 2.0,
            plot: &[],
        });
        let e = s.validate().expect_err("algebraic loop");
        assert_eq!(e.path, "connections");
        let text = alloc::format!("{e}");
        assert!(text.contains("algebraic loop"), "{text}");
        // One of the two rings (continuous or discrete pair), port by port.
        let ring = |kind: &str| {
            ["a", "b"].iter().all(|m| {
                text.contains(&alloc::format!("{m}.Float64_{kind}_output"))
                    && text.contains(&alloc::format!("{m}.Float64_{kind}_input"))
            })
        };
        assert!(ring("continuous") || ring("discrete"), "{text}");
    }
}
