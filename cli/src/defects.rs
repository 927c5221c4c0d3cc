//! `cosim defects E1…E6`: the experiments of seed 003 on the rotational two-mass oscillator
//! (docs/methods.md §15, "Experiments"), written as the CSV series behind each figure with
//! the fitted log–log slopes on standard output (standard error when the CSV goes there).

use cosim_core::analysis::defect_study::{
    axis_value, slopes, sweep, CaseResult, Experiment, Slopes,
};
use cosim_core::master::Initialisation;
use cosim_core::models::rotational_oscillator::Method;
use std::fmt::Write as _;
use std::path::PathBuf;

/// A parsed `cosim defects` command line.
#[derive(Debug, PartialEq)]
pub struct DefectsArgs {
    pub experiment: Experiment,
    pub slaves: Method,
    pub initialisation: Initialisation,
    pub orders: Vec<usize>,
    /// Range of h (E3–E5) or tol (E6) the slopes are fitted over.
    pub fit: (f64, f64),
    pub out: Option<PathBuf>,
}

/// Default fitting range of h: the asymptotic range of the digest's check.
const FIT_H: (f64, f64) = (1e-2, 0.16);
/// Default fitting range of tol: the whole sweep.
const FIT_TOL: (f64, f64) = (1e-3, 1.0);

impl DefectsArgs {
    pub fn parse(rest: &[&str]) -> Result<Self, String> {
        let (first, rest) = rest
            .split_first()
            .ok_or("`defects` needs an experiment E1…E6")?;
        let experiment = Experiment::parse(first)
            .ok_or_else(|| format!("unknown experiment `{first}` (E1, E2, E3, E4, E5 or E6)"))?;
        let mut a = DefectsArgs {
            experiment,
            slaves: Method::Euler,
            initialisation: Initialisation::Consistent,
            orders: vec![0, 1, 2],
            fit: if experiment == Experiment::E6 {
                FIT_TOL
            } else {
                FIT_H
            },
            out: None,
        };
        let mut i = 0;
        while i < rest.len() {
            let value = rest.get(i + 1).copied();
            let need = |flag: &str| value.ok_or(format!("{flag} needs a value"));
            match rest[i] {
                "--slaves" => {
                    a.slaves = match need("--slaves")? {
                        "euler" => Method::Euler,
                        "exact" => Method::Exact,
                        v => return Err(format!("--slaves: `{v}` is not euler or exact")),
                    }
                }
                "--init" => {
                    a.initialisation = match need("--init")? {
                        "consistent" => Initialisation::Consistent,
                        "zero" => Initialisation::ZeroDerivatives,
                        v => return Err(format!("--init: `{v}` is not consistent or zero")),
                    }
                }
                "--orders" => {
                    let v = need("--orders")?;
                    a.orders = v
                        .split(',')
                        .map(|o| match o.trim().parse::<usize>() {
                            Ok(k) if k <= 2 => Ok(k),
                            _ => Err(format!("--orders: `{o}` is not 0, 1 or 2")),
                        })
                        .collect::<Result<_, _>>()?;
                }
                "--fit" => {
                    let v = need("--fit")?;
                    let parsed = v.split_once(':').and_then(|(lo, hi)| {
                        Some((lo.parse::<f64>().ok()?, hi.parse::<f64>().ok()?))
                    });
                    a.fit = match parsed {
                        Some((lo, hi)) if lo > 0.0 && hi > lo => (lo, hi),
                        _ => return Err(format!("--fit: `{v}` is not LO:HI with 0 < LO < HI")),
                    };
                }
                "--out" | "-o" => a.out = Some(PathBuf::from(need("--out")?)),
                other => return Err(format!("unexpected argument `{other}`")),
            }
            i += 2;
        }
        if !experiment.is_sweep() {
            a.orders = vec![0];
        }
        Ok(a)
    }
}

fn method_name(m: Method) -> &'static str {
    match m {
        Method::Euler => "euler",
        Method::Exact => "exact",
    }
}

fn init_name(i: Initialisation) -> &'static str {
    match i {
        Initialisation::Consistent => "consistent",
        Initialisation::ZeroDerivatives => "zero",
    }
}

/// Runs the experiment: `(csv, slope report)`.
pub fn run(a: &DefectsArgs) -> Result<(String, String), String> {
    let results = sweep(a.experiment, a.slaves, a.initialisation, &a.orders, None)
        .map_err(|e| e.to_string())?;
    if !a.experiment.is_sweep() {
        return Ok((response_csv(&results[0]), summary(a, &results)));
    }
    let mut report = summary(a, &results);
    for s in slopes(a.experiment, &results, a.fit) {
        report.push_str(&slope_line(&s));
    }
    Ok((sweep_csv(a, &results), report))
}

/// One line of numbers per run.
fn sweep_csv(a: &DefectsArgs, results: &[CaseResult]) -> String {
    let axis = if a.experiment == Experiment::E6 {
        "tol"
    } else {
        "h"
    };
    let mut csv = format!(
        "experiment,slaves,init,m,n,{axis},steps,t_reached,mean_H,\
         output_defect_t2o.omega,output_defect_o2t.tau,\
         connection_defect_t2o.tau,connection_defect_o2t.omega_in,\
         error_t2o.omega,error_o2t.tau,integration_defect,max_eps,steps_above_tol,\
         bound,error_over_bound\n"
    );
    for r in results {
        let c = &r.case;
        let _ = write!(
            csv,
            "{},{},{},{},{},{:e},{},{},{:e}",
            a.experiment.id(),
            method_name(c.slaves),
            init_name(c.initialisation),
            c.input_order,
            c.output_order,
            axis_value(r),
            r.steps,
            r.t_reached,
            r.mean_h
        );
        let values = r
            .output_defect
            .iter()
            .chain(&r.connection_defect)
            .chain(&r.error)
            .chain([&r.integration_defect, &r.max_eps]);
        for v in values {
            let _ = write!(csv, ",{v:e}");
        }
        let _ = writeln!(
            csv,
            ",{},{:e},{:e}",
            r.steps_above_tol,
            r.bound,
            r.bound_ratio()
        );
    }
    csv
}

/// The piecewise output response of E1/E2 against the exact one.
fn response_csv(r: &CaseResult) -> String {
    let mut csv = String::from("t,H,t2o.omega,o2t.tau,exact_t2o.omega,exact_o2t.tau\n");
    for s in &r.response {
        let _ = write!(csv, "{},{}", s.t, s.h);
        for v in s.cosim.iter().chain(&s.exact) {
            let _ = write!(csv, ",{v}");
        }
        csv.push('\n');
    }
    csv
}

fn summary(a: &DefectsArgs, results: &[CaseResult]) -> String {
    let worst = results
        .iter()
        .map(CaseResult::bound_ratio)
        .fold(0.0, f64::max);
    let above: usize = results.iter().map(|r| r.steps_above_tol).sum();
    let mut s = format!(
        "{} ({} slaves, {} initialisation): {} runs, largest error/bound (Theorem 1) {:.3e}",
        a.experiment.id(),
        method_name(a.slaves),
        init_name(a.initialisation),
        results.len(),
        worst
    );
    if matches!(a.experiment, Experiment::E2 | Experiment::E6) {
        let _ = write!(s, ", steps with eps > tol: {above}");
    }
    if !a.experiment.is_sweep() {
        let r = &results[0];
        let _ = write!(
            s,
            "; {} steps, mean H {:.4} s, RMS error [{:.3e}, {:.3e}]",
            r.steps, r.mean_h, r.error[0], r.error[1]
        );
    } else {
        let _ = write!(
            s,
            "\nslopes (log-log, fitted for {} in [{}, {}]; - where the series is zero):",
            if a.experiment == Experiment::E6 {
                "tol"
            } else {
                "h"
            },
            a.fit.0,
            a.fit.1
        );
    }
    s.push('\n');
    s
}

fn slope_line(s: &Slopes) -> String {
    let f = |v: &[Option<f64>]| {
        v.iter()
            .map(|x| x.map_or("-".to_string(), |x| format!("{x:.2}")))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut line = format!(
        "  order {}: output defect [{}]  connection defect [{}]  error [{}]",
        s.order,
        f(&s.output_defect),
        f(&s.connection_defect),
        f(&s.error)
    );
    if let Some(m) = s.mean_h {
        let _ = write!(line, "  mean H {m:.2}");
    }
    line.push('\n');
    line
}
