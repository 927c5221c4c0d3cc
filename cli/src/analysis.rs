//! The analysis commands: `stability` (ρ and eigenvalues of the scenario's propagation
//! matrix), `map` (a metric over two parameters, tiles of rows spread over native threads)
//! and `convergence` (local error against the macro-step with fitted slopes).

use cosim_core::analysis::convergence::{self, convergence_study};
use cosim_core::analysis::sweep::{LinearAnalysis, MapMetric, MapTile, ParameterMap};
use cosim_core::analysis::{spectrum, PropagationMatrix, STABILITY_TOLERANCE};
use cosim_core::master::Scheme;
use cosim_core::scenario::{AxisSpec, ValidatedScenario};
use std::fmt::Write as _;
use std::io::IsTerminal;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Mutex;

/// Arguments of `cosim map`.
#[derive(Debug, PartialEq)]
pub struct MapArgs {
    pub scenario: PathBuf,
    pub x: AxisSpec,
    pub y: AxisSpec,
    pub metric: MapMetric,
    pub out: Option<PathBuf>,
    /// `None`: all cores.
    pub threads: Option<usize>,
}

/// `PARAM:FROM:TO:N[:log]`, e.g. `mass2.ck:1:1e10:64:log`.
pub fn parse_axis(flag: &str, text: &str) -> Result<AxisSpec, String> {
    let parts: Vec<&str> = text.split(':').collect();
    let bad = |why: &str| format!("{flag} `{text}`: {why} (expected PARAM:FROM:TO:N[:log])");
    if !(4..=5).contains(&parts.len()) {
        return Err(bad("wrong number of fields"));
    }
    let num = |s: &str, what: &str| {
        s.parse::<f64>()
            .map_err(|_| bad(&format!("{what} `{s}` is not a number")))
    };
    let points = parts[3]
        .parse::<u32>()
        .map_err(|_| bad(&format!("N `{}` is not a whole number", parts[3])))?;
    let log = match parts.get(4) {
        None => false,
        Some(&"log") => true,
        Some(other) => return Err(bad(&format!("`{other}` should be `log`"))),
    };
    Ok(AxisSpec {
        parameter: parts[0].to_string(),
        from: num(parts[1], "FROM")?,
        to: num(parts[2], "TO")?,
        points,
        log,
    })
}

impl MapArgs {
    pub fn parse(rest: &[&str]) -> Result<MapArgs, String> {
        let (mut scenario, mut x, mut y, mut out, mut threads) = (None, None, None, None, None);
        let mut metric = MapMetric::SpectralRadius;
        let mut i = 0;
        while i < rest.len() {
            let value = |name: &str| {
                rest.get(i + 1)
                    .copied()
                    .ok_or_else(|| format!("{name} needs a value"))
            };
            match rest[i] {
                "--x" => x = Some(parse_axis("--x", value("--x")?)?),
                "--y" => y = Some(parse_axis("--y", value("--y")?)?),
                "--metric" => {
                    metric = match value("--metric")? {
                        "rho" => MapMetric::SpectralRadius,
                        "eg" => MapMetric::GlobalError,
                        "el" => MapMetric::LocalError,
                        other => return Err(format!("--metric `{other}`: expected rho, eg or el")),
                    }
                }
                "--out" | "-o" => out = Some(PathBuf::from(value("--out")?)),
                "--threads" => {
                    let v = value("--threads")?;
                    let n = v.parse::<usize>().ok().filter(|n| *n > 0);
                    threads =
                        Some(n.ok_or_else(|| {
                            format!("--threads `{v}`: expected a whole number ≥ 1")
                        })?);
                }
                flag if flag.starts_with("--") => return Err(format!("unknown option `{flag}`")),
                path if scenario.is_none() => {
                    scenario = Some(PathBuf::from(path));
                    i += 1;
                    continue;
                }
                extra => return Err(format!("unexpected argument `{extra}`")),
            }
            i += 2;
        }
        Ok(MapArgs {
            scenario: scenario.ok_or("`map` needs a SCENARIO.json")?,
            x: x.ok_or("`map` needs --x PARAM:FROM:TO:N[:log]")?,
            y: y.ok_or("`map` needs --y PARAM:FROM:TO:N[:log]")?,
            metric,
            out,
            threads,
        })
    }
}

fn analysis(v: &ValidatedScenario) -> Result<LinearAnalysis, String> {
    LinearAnalysis::new(v).map_err(|e| e.to_string())
}

fn method_text(a: &LinearAnalysis) -> String {
    let m = a.method();
    let scheme = match &m.scheme {
        Scheme::Jacobi => "Jacobi".to_string(),
        Scheme::GaussSeidel(seq) => format!("Gauss-Seidel {seq:?}"),
    };
    let corr = m
        .correction
        .map(|a| format!(", model-based correction α = {a}"))
        .unwrap_or_default();
    format!(
        "{scheme}, extrapolation order {}{corr}, ΔT = {:e} s",
        m.order,
        a.macro_step()
    )
}

/// `cosim stability`: report text on standard output.
pub fn stability(v: &ValidatedScenario) -> Result<String, String> {
    let a = analysis(v)?;
    let pm = PropagationMatrix::build(a.blocks(), a.coupling(), a.method(), a.macro_step())
        .map_err(|e| e.to_string())?;
    let s = spectrum(pm.phi()).ok_or(
        "the eigenvalues of Φ could not be computed (non-finite entries or no convergence)",
    )?;
    let mut out = String::new();
    let _ = writeln!(out, "method: {}", method_text(&a));
    let _ = writeln!(out, "propagation matrix: {0} × {0}", pm.layout().dim());
    let _ = writeln!(out, "spectral radius: {:.15}", s.radius);
    let verdict = if s.is_stable() { "stable" } else { "unstable" };
    let _ = writeln!(
        out,
        "{verdict} (ρ ≤ 1 + {STABILITY_TOLERANCE:e} counts as stable)"
    );
    if s.is_ill_conditioned() {
        let _ = writeln!(out, "warning: |ρ − 1| is within the eigenvalue round-off ({:.1e}); the verdict is not reliable", s.roundoff);
    }
    let mut eig = s.eigenvalues.clone();
    eig.sort_by(|a, b| b.re.hypot(b.im).total_cmp(&a.re.hypot(a.im)));
    let _ = writeln!(out, "eigenvalues (real, imaginary, modulus):");
    for l in eig {
        let _ = writeln!(
            out,
            "  {:>23.15e} {:>23.15e} {:>20.15}",
            l.re,
            l.im,
            l.re.hypot(l.im)
        );
    }
    Ok(out)
}

/// `cosim map`: CSV `x,y,value,status`, rows in y order; a summary for standard error.
pub fn map(v: &ValidatedScenario, args: &MapArgs) -> Result<(String, String), String> {
    let a = analysis(v)?;
    let map = ParameterMap::new(a, &args.x, &args.y, args.metric).map_err(|e| {
        e.to_string()
            .replace("analysis.x", "--x")
            .replace("analysis.y", "--y")
    })?;
    let threads = args
        .threads
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let start = std::time::Instant::now();
    crate::commands::stop_on_ctrl_c();
    let tiles = compute_tiles(&map, threads);
    let seconds = start.elapsed().as_secs_f64();
    let (xs, ys) = (map.x_values(), map.y_values());
    let mut csv = String::with_capacity(xs.len() * ys.len() * 48 + 32);
    csv.push_str("x,y,value,status\n");
    let mut counts = [0usize; 4];
    for tile in &tiles {
        for (k, (value, status)) in tile.values.iter().zip(&tile.status).enumerate() {
            let (r, c) = (tile.rows.start as usize + k / xs.len(), k % xs.len());
            let _ = writeln!(csv, "{:e},{:e},{value:e},{}", xs[c], ys[r], status.name());
            counts[status.code() as usize] += 1;
        }
    }
    let cells = xs.len() * ys.len();
    let summary = format!(
        "{}×{} map of {} in {seconds:.3} s on {threads} thread(s) ({:.1} µs wall time per cell): {} ok, {} ill-conditioned, {} diverged, {} failed",
        xs.len(),
        ys.len(),
        match args.metric {
            MapMetric::SpectralRadius => "ρ(Φ)",
            MapMetric::GlobalError => "e_g,NRMSE",
            MapMetric::LocalError => "e_l,NRMSE",
        },
        seconds * 1e6 / cells as f64,
        counts[0],
        counts[1],
        counts[2],
        counts[3]
    );
    if crate::commands::interrupted() {
        let rows_done = tiles.len();
        crate::io::note(&format!(
            "interrupted: the CSV holds the {rows_done} of {} rows computed\n",
            ys.len()
        ));
    }
    Ok((csv, summary))
}

/// Rows handed out one at a time to `threads` workers (rows differ a lot in cost, e.g.
/// where runs diverge early); tiles come back sorted by row. Ctrl-C stops handing out
/// rows (the rows done are kept); progress goes to standard error when it is a terminal.
fn compute_tiles(map: &ParameterMap, threads: usize) -> Vec<MapTile> {
    let rows = map.y_values().len() as u32;
    let next = AtomicU32::new(0);
    let finished = AtomicU32::new(0);
    let done = Mutex::new(Vec::with_capacity(rows as usize));
    let progress = std::io::stderr().is_terminal();
    std::thread::scope(|s| {
        for _ in 0..threads.min(rows as usize).max(1) {
            s.spawn(|| loop {
                if crate::commands::interrupted() {
                    break;
                }
                let r = next.fetch_add(1, Ordering::Relaxed);
                if r >= rows {
                    break;
                }
                let tile = map.compute_rows(r..r + 1);
                if let Ok(mut d) = done.lock() {
                    d.push(tile);
                }
                let n = finished.fetch_add(1, Ordering::Relaxed) + 1;
                if progress {
                    crate::io::note(&format!("\r{n} of {rows} rows"));
                }
            });
        }
    });
    if progress {
        crate::io::note("\n");
    }
    let mut tiles = done.into_inner().unwrap_or_default();
    tiles.sort_by_key(|t| t.rows.start);
    tiles
}

/// The curves of a convergence study. (order, macro-step) pairs are handed out one at a
/// time to a bounded pool (a pair's cost grows as its macro-step shrinks), so Ctrl-C
/// stops within one pair per thread; the curves then hold the points computed. Progress
/// goes to standard error when it is a terminal.
fn convergence_points(
    a: &LinearAnalysis,
    steps: &[f64],
    orders: &[u32],
    alpha: Option<f64>,
) -> Vec<convergence::ConvergenceCurve> {
    let pairs = (orders.len() * steps.len()) as u32;
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(pairs as usize)
        .max(1);
    let progress = std::io::stderr().is_terminal();
    crate::commands::stop_on_ctrl_c();
    let next = AtomicU32::new(0);
    let finished = AtomicU32::new(0);
    // (order, corrected, index of the macro-step, point)
    let done = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| loop {
                if crate::commands::interrupted() {
                    break;
                }
                let j = next.fetch_add(1, Ordering::Relaxed);
                if j >= pairs {
                    break;
                }
                let (o, i) = (orders[j as usize / steps.len()], j as usize % steps.len());
                let curves = convergence_study(a, &steps[i..=i], &[o], alpha);
                if let Ok(mut d) = done.lock() {
                    for c in curves {
                        d.extend(c.points.into_iter().map(|p| (c.order, c.corrected, i, p)));
                    }
                }
                let n = finished.fetch_add(1, Ordering::Relaxed) + 1;
                if progress {
                    crate::io::note(&format!("\r{n} of {pairs} (order, macro-step) pairs"));
                }
            });
        }
    });
    if progress {
        crate::io::note("\n");
    }
    let mut points = done.into_inner().unwrap_or_default();
    points.sort_by_key(|&(order, corrected, i, _)| (corrected, order, i));
    if crate::commands::interrupted() {
        crate::io::note(&format!(
            "interrupted: the CSV holds the {} of {pairs} (order, macro-step) pairs computed\n",
            finished.load(Ordering::Relaxed)
        ));
    }
    let mut curves: Vec<convergence::ConvergenceCurve> = Vec::new();
    for (order, corrected, _, p) in points {
        match curves.last_mut() {
            Some(c) if (c.order, c.corrected) == (order, corrected) => c.points.push(p),
            _ => curves.push(convergence::curve(order, corrected, vec![p])),
        }
    }
    // Slopes fitted over all points of each curve.
    curves
        .into_iter()
        .map(|c| convergence::curve(c.order, c.corrected, c.points))
        .collect()
}

/// Macro-steps of a convergence study without `analysis.macro_steps`: 10^-2.5 … 10^-6 in
/// quarter decades (seed 000, Fig. 8 range).
fn default_macro_steps() -> Vec<f64> {
    (10..=24).map(|i| 10f64.powf(-f64::from(i) / 4.0)).collect()
}

/// `cosim convergence`: CSV `order,corrected,macro_step,local_error,spectral_radius,status`
/// and the fitted slopes as text.
pub fn convergence(v: &ValidatedScenario) -> Result<(String, String), String> {
    let a = analysis(v)?;
    let spec = v.scenario.analysis.as_ref();
    let steps = spec
        .map(|s| s.macro_steps.clone())
        .filter(|s| !s.is_empty())
        .unwrap_or_else(default_macro_steps);
    if let Some(bad) = steps.iter().find(|h| !(h.is_finite() && **h > 0.0)) {
        return Err(format!(
            "analysis.macro_steps: {bad} is not a positive number of seconds"
        ));
    }
    let mut orders = spec
        .map(|s| s.orders.clone())
        .filter(|o| !o.is_empty())
        .unwrap_or_else(|| (0..=4).collect());
    if let Some(bad) = orders.iter().find(|o| **o > 4) {
        return Err(format!(
            "analysis.orders: {bad} is above the highest order 4"
        ));
    }
    let alpha = match a.method().scheme {
        Scheme::Jacobi => Some(a.method().correction.unwrap_or(1.0)),
        Scheme::GaussSeidel(_) => None,
    };
    // A repeated order is the same curve.
    orders.sort_unstable();
    orders.dedup();
    convergence::check_budget(&a, &steps, &orders, alpha).map_err(|e| e.to_string())?;
    let curves = convergence_points(&a, &steps, &orders, alpha);
    let mut csv = String::from("order,corrected,macro_step,local_error,spectral_radius,status\n");
    let mut slopes = format!(
        "local error e_l,NRMSE over {:e} s; fitted log-log slopes:\n",
        a.horizon()
    );
    for c in &curves {
        for p in &c.points {
            let _ = writeln!(
                csv,
                "{},{},{:e},{:e},{:e},{}",
                c.order,
                c.corrected,
                p.macro_step,
                p.local_error,
                p.spectral_radius,
                p.status.name()
            );
        }
        let label = if c.corrected {
            format!("order {} with correction", c.order)
        } else {
            format!("order {}", c.order)
        };
        let slope = c
            .slope
            .map_or("not enough stable points in range".to_string(), |s| {
                format!("{s:.3}")
            });
        let _ = writeln!(slopes, "  {label:<28} slope {slope}");
    }
    Ok((csv, slopes))
}
