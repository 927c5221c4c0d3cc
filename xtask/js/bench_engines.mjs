// Binary modules on the browser's engine against wasmi inside the page, same commit, same
// session: www/bench.html alternately with the page's wasm from www/pkg (browser engine)
// and www/pkg-wasmi (`cosim-wasm --features bench-wasmi`), for each preset, several rounds.
// Prints one line per run and, per preset, the median and range of each build and of
// the ratio of one round (browser / wasmi); with the load average before and after.
// Env: COSIM_BASE_URL (served www/), COSIM_CHROMIUM, BENCH_STEPS (10000), BENCH_RUNS (7),
// BENCH_ROUNDS (5), BENCH_PRESETS (comma-separated), BENCH_PKGS (pkg,pkg-wasmi), BENCH_MODE
// (`module`: the preset's binary module alone, without the master; see www/bench.js).
import { chromium } from 'playwright-core';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const base = process.env.COSIM_BASE_URL;
const steps = process.env.BENCH_STEPS ?? '10000';
const runs = process.env.BENCH_RUNS ?? '7';
const rounds = Number(process.env.BENCH_ROUNDS ?? 5);
const presets = (process.env.BENCH_PRESETS ?? 'binary-rust-oscillator,binary-c-spring-damper').split(',');
const [engine, wasmi] = (process.env.BENCH_PKGS ?? 'pkg,pkg-wasmi').split(',');
const mode = process.env.BENCH_MODE ? `&mode=${process.env.BENCH_MODE}` : '';
const load = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');

const profile = mkdtempSync(join(tmpdir(), 'cosim-bench-'));
const context = await chromium.launchPersistentContext(profile, {
  executablePath: process.env.COSIM_CHROMIUM ?? '/usr/bin/chromium',
  headless: true,
  args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
});
const rates = new Map();
const ratios = new Map();
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const fmt = (x) => Math.round(x).toLocaleString('en-US');
try {
  console.log(`load average before: ${load()}`);
  for (let round = 1; round <= rounds; round++) {
    for (const preset of presets) {
      const got = {};
      // Alternate which build goes first, so neither always runs on a warmer machine.
      for (const pkg of round % 2 ? [engine, wasmi] : [wasmi, engine]) {
        const page = await context.newPage();
        await page.goto(`${base}/bench.html?preset=${preset}&pkg=${pkg}&steps=${steps}&runs=${runs}${mode}`);
        await page.waitForFunction(() => window.benchResult !== undefined, null, { timeout: 600_000 });
        const r = await page.evaluate(() => window.benchResult);
        await page.close();
        if (r.error) throw new Error(`${preset} ${pkg}: ${r.error}`);
        got[pkg] = r.stepsPerSecond;
        const key = `${preset} ${pkg}`;
        rates.set(key, [...(rates.get(key) ?? []), r.stepsPerSecond]);
        console.log(`round ${round} ${key}: ${fmt(r.stepsPerSecond)} macro-steps/s (load ${load()})`);
      }
      ratios.set(preset, [...(ratios.get(preset) ?? []), got[engine] / got[wasmi]]);
    }
  }
  console.log(`load average after: ${load()}`);
  for (const preset of presets) {
    for (const pkg of [wasmi, engine]) {
      const xs = rates.get(`${preset} ${pkg}`);
      console.log(`RESULT ${preset} ${pkg}: median ${fmt(median(xs))}, range ${fmt(Math.min(...xs))}..${fmt(Math.max(...xs))}`);
    }
    const q = ratios.get(preset);
    console.log(`RATIO ${preset} ${engine}/${wasmi}: median ${median(q).toFixed(1)}, range ${Math.min(...q).toFixed(1)}..${Math.max(...q).toFixed(1)}`);
  }
} finally {
  await context.close();
  rmSync(profile, { recursive: true, force: true });
}
