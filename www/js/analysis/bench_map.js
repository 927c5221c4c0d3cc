// Map benchmark (www/bench_map.html): an n × n map of ρ(Φ) for the two-mass oscillator,
// Jacobi ZOH with model-based correction at ΔT = 10^-3.5 s (as the native numbers in
// docs/benchmarks.md), c_k 1…1e10 × d_k 1…1e7 (log),
// computed through the page's TilePool with 1 worker and with all workers
// (navigator.hardwareConcurrency, at most 8). Reported: wall time and time per map point
// (wall time / cells, so "all workers" shows the parallel speed-up).
//
// Repeatable: after a warm-up of at least `warm` seconds (default 2) on small maps, the
// whole map is computed `reps` times (default 5); the median is the result and the spread
// (max − min) / median says how much the repetitions differ; `cpuUsPerPoint` is the median
// CPU time of the browser's renderer processes per point (from the driver), which waits
// for a core on a busy machine do not inflate. `build` is what xtask wrote
// into pkg/build-info.json (toolchain route, wasm-opt). With `?main=1` the map is computed
// on the page's main thread instead (same wasm calls as the worker's), which the driver
// profiles through the DevTools protocol. Result in window.benchMapResult for the driver
// (xtask/js/bench_map_browser.mjs). Query: ?n=256&reps=5&warm=2&main=1

import { TilePool, defaultPoolSize } from './tile_pool.js';

const q = new URLSearchParams(location.search);
const n = Number(q.get('n') ?? 256);
const reps = Math.max(1, Number(q.get('reps') ?? 5));
const warmSeconds = Number(q.get('warm') ?? 2);
const out = document.getElementById('out');
const axis = (parameter, to, points) => ({ parameter, from: 1, to, points, log: true });

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

/** Median, min, max and spread of µs-per-point samples; `cpu` the CPU µs per point of each. */
function summary(samples, cpu = []) {
  const m = median(samples);
  const cpuOk = cpu.length === samples.length && cpu.every(Number.isFinite);
  return { usPerPoint: m, min: Math.min(...samples), max: Math.max(...samples),
    spreadPct: (100 * (Math.max(...samples) - Math.min(...samples))) / m, runs: samples,
    cpuUsPerPoint: cpuOk ? median(cpu) : null, cpuRuns: cpuOk ? cpu : null };
}

/** CPU seconds of the browser's renderer processes, if the driver offers them. */
const cpuSeconds = async () => (window.benchCpuSeconds ? window.benchCpuSeconds() : NaN);

async function timeMap(size, scenario) {
  const pool = new TilePool(size);
  // Warm-up on small maps: starts the workers and lets V8 replace its baseline wasm code by
  // optimised code, which it compiles in the background.
  const warmUntil = performance.now() + warmSeconds * 1000;
  while (performance.now() < warmUntil) {
    await pool.map({ scenario, x: axis('mass2.ck', 1e10, 32), y: axis('mass2.dk', 1e7, size * 4), metric: 'rho',
      rows: size * 4, rowsPerTile: 1, onTile: () => {} });
  }
  const samples = [];
  const cpu = [];
  let notOk = 0;
  for (let r = 0; r < reps; r++) {
    let cells = 0;
    const c0 = await cpuSeconds();
    const t0 = performance.now();
    await pool.map({ scenario, x: axis('mass2.ck', 1e10, n), y: axis('mass2.dk', 1e7, n), metric: 'rho', rows: n,
      rowsPerTile: 1, onTile: (t) => { cells += t.values.length; notOk += t.status.filter((s) => s !== 0).length; } });
    const seconds = (performance.now() - t0) / 1000;
    const c1 = await cpuSeconds();
    if (cells !== n * n) throw new Error(`${cells} cells, expected ${n * n}`);
    samples.push((seconds * 1e6) / cells);
    cpu.push(((c1 - c0) * 1e6) / cells);
  }
  pool.cancel();
  return { workers: size, cells: n * n, notOk, ...summary(samples, cpu) };
}

/** The same rows on the main thread, for a profile: warm-up, then `reps` whole maps. */
async function timeMainThread(wasm, scenario) {
  const map = new wasm.JsParameterMap(scenario, JSON.stringify(axis('mass2.ck', 1e10, n)),
    JSON.stringify(axis('mass2.dk', 1e7, n)), 'rho');
  const warmUntil = performance.now() + warmSeconds * 1000;
  for (let row = 0; performance.now() < warmUntil; row = (row + 1) % n) map.computeRows(row, row + 1);
  await profilerReady();
  const samples = [];
  for (let r = 0; r < reps; r++) {
    const t0 = performance.now();
    map.computeRows(0, n);
    samples.push(((performance.now() - t0) * 1e3) / (n * n));
  }
  map.free();
  return { workers: 0, cells: n * n, ...summary(samples) };
}

async function buildInfo() {
  try {
    const r = await fetch('pkg/build-info.json', { cache: 'no-store' });
    return r.ok ? await r.json() : null;
  } catch {
    return null;
  }
}

/** Lets the driver start its profiler before the timed part (`?main=1`). */
async function profilerReady() {
  window.benchMapWarm = true;
  const until = performance.now() + 10_000;
  while (!window.benchMapProfiling && performance.now() < until) await new Promise((r) => setTimeout(r, 20));
}

async function main() {
  const wasm = await import('../../pkg/cosim_wasm.js');
  await wasm.default();
  const p = wasm.presets().find((x) => x.id === 'analysis-stability-map');
  if (!p) throw new Error('preset analysis-stability-map missing');
  const s = JSON.parse(p.scenario);
  delete s.analysis;
  s.master.macro_step = 3.1622776601683794e-4;
  const scenario = JSON.stringify(s);
  const build = await buildInfo();
  let result;
  if (q.get('main') === '1') {
    result = { n, reps, warmSeconds, build, main: await timeMainThread(wasm, scenario) };
  } else {
    const one = await timeMap(1, scenario);
    const many = await timeMap(defaultPoolSize(), scenario);
    result = { n, reps, warmSeconds, build, one, all: many, hardwareConcurrency: navigator.hardwareConcurrency };
  }
  out.textContent = JSON.stringify(result, null, 2);
  window.benchMapResult = result;
}

main().catch((e) => { out.textContent = `error: ${e.message}`; window.benchMapResult = { error: String(e.message ?? e) }; });
