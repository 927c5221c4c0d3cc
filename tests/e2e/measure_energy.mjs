// Measures the cost of energy monitoring and correction per macro-step in the browser's
// wasm (not a test: it asserts nothing; numbers go to docs/benchmarks.md by hand), the
// same variants as the native bench core/benches/energy.rs: the `energy-oscillator-drift`
// preset (10,000 macro-steps of 1 ms, no reference) run plain (bond removed), monitored
// and corrected (μ from the rules, cap 100 %), single-rate and multi-rate (m2 on 0.1 ms,
// R = 10). The page's wasm package is imported into the page itself (no worker) and only
// `JsSimulation.advance` is timed; SAMPLES runs per variant, interleaved, reported as the
// fastest and the median.
//
//   COSIM_BASE_URL=http://127.0.0.1:8213 COSIM_CHROMIUM=$(command -v chromium) node tests/e2e/measure_energy.mjs

import { launch, BASE_URL } from './browser.mjs';

const SAMPLES = 41;
const STEPS = 10_000;

const b = await launch();
try {
  const page = await b.context.newPage();
  await page.goto(BASE_URL);
  const rows = await page.evaluate(async ({ samples, steps }) => {
    const wasm = await import('./pkg/cosim_wasm.js');
    await wasm.default();
    const base = JSON.parse(wasm.presets().find((p) => p.id === 'energy-oscillator-drift').scenario);
    const variant = (kind, multiRate) => {
      const s = structuredClone(base);
      s.run.stop = s.run.start + steps * s.master.macro_step;
      s.reference = false;
      if (multiRate) s.master.module_steps = { m2: 1e-4 };
      if (kind === 'plain') delete s.bonds;
      if (kind === 'corrected') s.master.energy_correction = { nu: 0 };
      return JSON.stringify(s);
    };
    const kinds = ['plain', 'monitored', 'corrected'];
    const out = [];
    for (const multiRate of [false, true]) {
      const times = Object.fromEntries(kinds.map((k) => [k, []]));
      const texts = Object.fromEntries(kinds.map((k) => [k, variant(k, multiRate)]));
      for (let i = 0; i < samples; i++) {
        for (const k of kinds) {
          const sim = new wasm.JsSimulation(texts[k]);
          const t0 = performance.now();
          const done = sim.advance(steps);
          const dt = performance.now() - t0;
          if (!done || sim.stepsDone !== steps) throw new Error(`${k}: ${sim.stepsDone} steps`);
          sim.free();
          times[k].push(dt);
        }
      }
      const median = (xs) => [...xs].sort((a, c) => a - c)[Math.floor(xs.length / 2)];
      // Under load the fastest run is the steadiest figure; the median is printed too.
      const perStep = (f) => Object.fromEntries(kinds.map((k) => [k, (f(times[k]) * 1000) / steps]));
      const rate = multiRate ? 'multi-rate R = 10' : 'single-rate';
      out.push({ rate, stat: 'min', ...perStep((xs) => Math.min(...xs)) }, { rate, stat: 'median', ...perStep(median) });
    }
    return out;
  }, { samples: SAMPLES, steps: STEPS });
  const version = await b.context.browser()?.version?.();
  console.log(`browser ${version ?? '?'}, ${SAMPLES} runs of ${STEPS} macro-steps, µs per macro-step:`);
  for (const r of rows) {
    console.log(`${r.rate} (${r.stat}): plain ${r.plain.toFixed(3)}, monitored ${r.monitored.toFixed(3)}, corrected ${r.corrected.toFixed(3)}; `
      + `monitored/plain ${(r.monitored / r.plain).toFixed(2)}, corrected/plain ${(r.corrected / r.plain).toFixed(2)}`);
  }
} finally {
  await b.close();
}
