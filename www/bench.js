// Browser benchmark: macro-steps per second of a preset in wasm, on the page's main thread.
// Same scenario as core/benches/macro_step.rs (preset stretched to `steps` macro-steps,
// reference off, only `advance` timed). Result in `window.benchResult` for the driver.
import { embedBinarySources } from './js/external.js';

// With `mode=to-end` (core/benches/controlled_steps.rs): the preset runs to its own stop
// time and the rate counts accepted steps; `preset=ID|fixed` drops the step controller,
// `ID|plain` drops defects too, and `h=` sets the fixed macro-step.
const q = new URLSearchParams(location.search);
const [presetId, variant] = (q.get('preset') ?? 'two-mass-oscillator').split('|');
const toEnd = q.get('mode') === 'to-end';
// With `mode=module`: only the scenario's binary module (or `module=NAME`), stepped without
// a master (`JsModuleAlone`: set inputs, doStep, get outputs), so the engine is timed alone.
const alone = q.get('mode') === 'module';
const steps = Number(q.get('steps') ?? 10000);
const runs = Number(q.get('runs') ?? 5);
const out = document.getElementById('out');
// `pkg=NAME` loads the page's wasm from www/NAME/ instead of www/pkg/: a second build
// (e.g. `--features bench-wasmi`) compared in the same session.
const pkg = /^[\w-]+$/.test(q.get('pkg') ?? '') ? q.get('pkg') : 'pkg';

function caseScenario(scenario) {
  if (variant === 'fixed' || variant === 'plain') delete scenario.master.step_control;
  if (variant === 'plain') delete scenario.master.defects;
  if (q.has('h')) scenario.master.macro_step = Number(q.get('h'));
  if (!toEnd) scenario.run.stop = scenario.run.start + steps * scenario.master.macro_step;
  scenario.reference = false;
  return scenario;
}

async function main() {
  const { default: init, ...core } = await import(`./${pkg}/cosim_wasm.js`);
  await init();
  const { presets, JsSimulation, JsModuleAlone } = core;
  const preset = presets().find((p) => p.id === presetId);
  if (!preset) throw new Error(`unknown preset ${presetId}`);
  // Binary presets name their .fmu files: fetch them as the page does (www/fmus/).
  const json = JSON.stringify(await embedBinarySources(caseScenario(JSON.parse(preset.scenario))));
  // The browser's engine: the main thread may not compile large modules synchronously,
  // so they are compiled here first (a build with wasmi inside has no such export).
  for (const { key, bytes } of core.pendingBinaries?.(json) ?? []) {
    core.adoptCompiled(key, await WebAssembly.compile(bytes));
  }

  const scenario = JSON.parse(json);
  const moduleName = q.get('module') ?? scenario.modules.find((m) => m.model === 'Binary')?.name;
  let counted = steps;
  const oneRun = () => {
    if (alone) {
      const m = new JsModuleAlone(json, moduleName);
      const t0 = performance.now();
      m.advance(steps);
      const ms = performance.now() - t0;
      if (m.stepsDone !== steps) throw new Error(`module stopped at ${m.stepsDone}`);
      m.free();
      return [ms, steps];
    }
    const sim = new JsSimulation(json);
    const t0 = performance.now();
    const done = sim.advance(toEnd ? 0xffffffff : steps);
    const ms = performance.now() - t0;
    const accepted = sim.accepted;
    if (!toEnd && (!done || sim.stepsDone !== steps)) throw new Error(`run stopped at ${sim.stepsDone}`);
    sim.free();
    return [ms, accepted];
  };
  // A whole controlled run may take less than the timer's resolution (0.1 ms when the page
  // is not cross-origin isolated): one timed sample sums whole runs until 200 ms.
  const timedRun = () => {
    if (!toEnd) return oneRun()[0];
    let [ms, total] = [0, 0];
    while (ms < 200) {
      const [m, accepted] = oneRun();
      ms += m;
      total += accepted;
    }
    counted = total;
    return ms;
  };
  // Untimed warm-up for at least a second: V8 first runs wasm in its baseline compiler and
  // swaps in optimised code in the background, so a short warm-up times a mix of both.
  const warmUntil = performance.now() + 1000;
  let warmups = 0;
  for (; performance.now() < warmUntil; warmups++) timedRun();
  const rates = [];
  for (let r = 0; r < runs; r++) {
    const ms = timedRun();
    rates.push(counted / (ms / 1000));
  }
  rates.sort((a, b) => a - b);
  const median = rates[Math.floor(rates.length / 2)];
  // How xtask built the wasm (toolchain route, wasm-opt), for the report.
  const build = await fetch(`${pkg}/build-info.json`, { cache: 'no-store' }).then((r) => (r.ok ? r.json() : null), () => null);
  return { preset: q.get('preset'), mode: alone ? `module ${moduleName}` : 'preset', pkg, steps: counted, runs, warmups, stepsPerSecond: median, allRates: rates, build, userAgent: navigator.userAgent };
}

main().then(
  (r) => { window.benchResult = r; out.textContent = JSON.stringify(r, null, 2); },
  (e) => { window.benchResult = { error: String(e) }; out.textContent = `error: ${e}`; },
);
