// Where the time of www/bench.html goes, from Chromium's own profiler (DevTools protocol),
// and how often the page's wasm crosses into JS per macro-step. Prints self time by
// function and by part (the page's wasm, a binary module's wasm, JS, GC), then, from a
// second run with call counts (precise coverage, which slows JS down: not timed), the
// JS functions called per macro-step. A call of a wasm-bindgen import shim (`__wbg_*`)
// is one crossing from the page's wasm to JS.
// Env: COSIM_BASE_URL (served www/), COSIM_CHROMIUM, BENCH_STEPS, BENCH_RUNS, BENCH_QUERY
// (as bench_browser.mjs, e.g. `preset=binary-c-spring-damper&pkg=pkg`).
import { chromium } from 'playwright-core';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const base = process.env.COSIM_BASE_URL;
const steps = process.env.BENCH_STEPS ?? '10000';
const runs = process.env.BENCH_RUNS ?? '5';
const extra = process.env.BENCH_QUERY ? `&${process.env.BENCH_QUERY}` : '';
const url = `${base}/bench.html?steps=${steps}&runs=${runs}${extra}`;

async function withPage(body) {
  const profile = mkdtempSync(join(tmpdir(), 'cosim-profile-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.COSIM_CHROMIUM ?? '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
  });
  try {
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    return await body(page, cdp);
  } finally {
    await context.close();
    rmSync(profile, { recursive: true, force: true });
  }
}

async function runBench(page) {
  await page.goto(url);
  await page.waitForFunction(() => window.benchResult !== undefined, null, { timeout: 600_000 });
  const r = await page.evaluate(() => window.benchResult);
  if (r.error) throw new Error(r.error);
  return r;
}

// A frame's part of the program: the page's wasm (served as pkg/cosim_wasm_bg.wasm), a
// binary module's wasm (compiled from bytes: a wasm:// script), JS, or V8's own.
function part(frame) {
  if (frame.url.endsWith('.wasm')) return 'page wasm';
  if (frame.url.startsWith('wasm://')) return 'module wasm';
  if (frame.functionName.startsWith('(')) return frame.functionName;
  return 'JS';
}

const sampled = await withPage(async (page, cdp) => {
  await cdp.send('Profiler.enable');
  await cdp.send('Profiler.setSamplingInterval', { interval: 100 });
  await cdp.send('Profiler.start');
  const r = await runBench(page);
  const { profile } = await cdp.send('Profiler.stop');
  return { r, profile };
});
const { profile } = sampled;
const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
const selfTime = new Map();
const partTime = new Map();
let total = 0;
profile.samples.forEach((id, k) => {
  const dt = profile.timeDeltas[k] ?? 0;
  const f = nodes.get(id).callFrame;
  const file = part(f) === 'JS' && f.url ? ` ${f.url.split('/').pop()}` : '';
  const key = `${f.functionName || '(anonymous)'}  [${part(f)}${file}]`;
  selfTime.set(key, (selfTime.get(key) ?? 0) + dt);
  partTime.set(part(f), (partTime.get(part(f)) ?? 0) + dt);
  total += dt;
});
const busy = total - (partTime.get('(idle)') ?? 0) - (partTime.get('(program)') ?? 0);
console.log(`PROFILE ${url}\n  ${sampled.r.stepsPerSecond.toFixed(0)} macro-steps/s (median), ${(total / 1000).toFixed(0)} ms sampled`);
console.log('  self time by part (% of busy time, idle and (program) excluded):');
for (const [p, t] of [...partTime].sort((a, b) => b[1] - a[1])) {
  if (p !== '(idle)' && p !== '(program)') console.log(`    ${(100 * t / busy).toFixed(1).padStart(5)} %  ${p}`);
}
console.log('  self time by function (top ${process.env.PROFILE_TOP ?? 20}, % of busy time):');
for (const [k, t] of [...selfTime].sort((a, b) => b[1] - a[1]).filter(([k]) => !k.startsWith('(idle)') && !k.startsWith('(program)')).slice(0, Number(process.env.PROFILE_TOP ?? 20))) {
  console.log(`    ${(100 * t / busy).toFixed(1).padStart(5)} %  ${k}`);
}

const counted = await withPage(async (page, cdp) => {
  await cdp.send('Profiler.enable');
  await cdp.send('Profiler.startPreciseCoverage', { callCount: true, detailed: false });
  const r = await runBench(page);
  const { result } = await cdp.send('Profiler.takePreciseCoverage');
  return { r, result };
});
// Every run of bench.js (warm-up and timed) is `steps` macro-steps of a fresh simulation.
const macroSteps = (counted.r.warmups + counted.r.runs) * Number(steps);
console.log(`CROSSINGS ${macroSteps} macro-steps; JS functions called at least every other macro-step (calls per macro-step):`);
let shims = 0;
for (const script of counted.result) {
  for (const fn of script.functions) {
    const calls = fn.ranges[0]?.count ?? 0;
    if (fn.functionName.startsWith('__wbg_')) shims += calls;
    if (calls < macroSteps / 2) continue;
    console.log(`    ${(calls / macroSteps).toFixed(2).padStart(7)}  ${fn.functionName || '(anonymous)'}  ${script.url.split('/').pop()}`);
  }
}
console.log(`  page wasm -> JS crossings (wasm-bindgen import shims) per macro-step: ${(shims / macroSteps).toFixed(2)}`);
