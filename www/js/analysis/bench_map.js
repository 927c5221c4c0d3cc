// Map benchmark (www/bench_map.html): an n × n map of ρ(Φ) for the two-mass oscillator,
// Jacobi ZOH with model-based correction at ΔT = 10^-3.5 s (as the native numbers in
// docs/benchmarks.md), c_k 1…1e10 × d_k 1…1e7 (log),
// computed through the page's TilePool with 1 worker and with all workers
// (navigator.hardwareConcurrency, at most 8). Reported: wall time and time per map point
// (wall time / cells, so "all workers" shows the parallel speed-up). Result in
// window.benchMapResult for the driver (xtask/js/bench_map_browser.mjs).

import { TilePool, defaultPoolSize } from './tile_pool.js';

const q = new URLSearchParams(location.search);
const n = Number(q.get('n') ?? 256);
const out = document.getElementById('out');

async function timeMap(size, scenario) {
  const pool = new TilePool(size);
  const axis = (parameter, to) => ({ parameter, from: 1, to, points: n, log: true });
  // Warm-up for at least a second on small maps: starts the workers and lets V8 replace
  // its baseline wasm code by optimised code, which it compiles in the background.
  const warm = { ...axis('mass2.ck', 1e10), points: 32 };
  const warmUntil = performance.now() + 1000;
  while (performance.now() < warmUntil) {
    await pool.map({ scenario, x: warm, y: { ...axis('mass2.dk', 1e7), points: size * 4 }, metric: 'rho',
      rows: size * 4, rowsPerTile: 1, onTile: () => {} });
  }
  let cells = 0, notOk = 0;
  const t0 = performance.now();
  await pool.map({ scenario, x: axis('mass2.ck', 1e10), y: axis('mass2.dk', 1e7), metric: 'rho', rows: n,
    rowsPerTile: 1, onTile: (t) => { cells += t.values.length; notOk += t.status.filter((s) => s !== 0).length; } });
  const seconds = (performance.now() - t0) / 1000;
  pool.cancel();
  if (cells !== n * n) throw new Error(`${cells} cells, expected ${n * n}`);
  return { workers: size, seconds, usPerPoint: (seconds * 1e6) / cells, cells, notOk };
}

async function main() {
  const { default: init, presets } = await import('../../pkg/cosim_wasm.js');
  await init();
  const p = presets().find((x) => x.id === 'analysis-stability-map');
  if (!p) throw new Error('preset analysis-stability-map missing');
  const s = JSON.parse(p.scenario);
  delete s.analysis;
  s.master.macro_step = 3.1622776601683794e-4;
  const scenario = JSON.stringify(s);
  const all = defaultPoolSize();
  const one = await timeMap(1, scenario);
  const many = await timeMap(all, scenario);
  const result = { n, one, all: many, hardwareConcurrency: navigator.hardwareConcurrency };
  out.textContent = JSON.stringify(result, null, 2);
  window.benchMapResult = result;
}

main().catch((e) => { out.textContent = `error: ${e.message}`; window.benchMapResult = { error: String(e.message ?? e) }; });
