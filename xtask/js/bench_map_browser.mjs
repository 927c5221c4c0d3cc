// Drives www/bench_map.html in headless Chromium for `cargo xtask bench` and prints one
// line `BENCH_MAP <json>`. Env: COSIM_BASE_URL (served www/), COSIM_CHROMIUM, BENCH_MAP_N,
// BENCH_MAP_REPS (whole maps timed, median reported; default 5), BENCH_MAP_WARM (seconds of
// warm-up, default 2). Each timed map also reports the CPU time the renderer processes
// spent in it (DevTools protocol SystemInfo.getProcessInfo, 10 ms resolution).
//
// BENCH_MAP_PROFILE=FILE computes the map on the page's main thread instead (`main=1`, the
// same wasm calls as a worker's) under Chromium's sampling profiler (DevTools protocol),
// writes the profile to FILE (.cpuprofile, opens in Chrome DevTools) and prints the
// functions with the most self time. Names of wasm functions need the name section: profile
// a build of `cargo xtask wasm --keep-names`.
import { chromium } from 'playwright-core';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const base = process.env.COSIM_BASE_URL;
const n = process.env.BENCH_MAP_N ?? '256';
const reps = process.env.BENCH_MAP_REPS ?? '5';
const warm = process.env.BENCH_MAP_WARM ?? '2';
const profileTo = process.env.BENCH_MAP_PROFILE;
const profile = mkdtempSync(join(tmpdir(), 'cosim-bench-map-'));
const context = await chromium.launchPersistentContext(profile, {
  executablePath: process.env.COSIM_CHROMIUM ?? '/usr/bin/chromium',
  headless: true,
  args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});

/** Self time per function (ms) of a CPU profile, most first. */
function selfTimes(cpu) {
  const byId = new Map(cpu.nodes.map((node) => [node.id, node]));
  const self = new Map();
  cpu.samples.forEach((id, i) => {
    const f = byId.get(id).callFrame;
    const key = `${f.functionName || '(anonymous)'} ${f.url.split('/').pop()}`;
    self.set(key, (self.get(key) ?? 0) + (cpu.timeDeltas[i + 1] ?? 0) / 1000);
  });
  return [...self].sort((a, b) => b[1] - a[1]);
}

/** CPU seconds of Chromium's renderer processes (the page and its workers' threads). */
async function rendererCpuSeconds(cdp) {
  const { processInfo } = await cdp.send('SystemInfo.getProcessInfo');
  return processInfo.filter((p) => p.type === 'renderer').reduce((sum, p) => sum + p.cpuTime, 0);
}

try {
  // CPU time next to wall time: on a shared machine wall time counts the waits for a core too.
  const browserCdp = await context.browser()?.newBrowserCDPSession().catch(() => null);
  const page = await context.newPage();
  if (browserCdp) await page.exposeFunction('benchCpuSeconds', () => rendererCpuSeconds(browserCdp));
  page.on('console', (m) => console.log(`[page] ${m.text()}`));
  await page.goto(`${base}/bench_map.html?n=${n}&reps=${reps}&warm=${warm}${profileTo ? '&main=1' : ''}`);
  let cdp = null;
  if (profileTo) {
    await page.waitForFunction(() => window.benchMapWarm === true, null, { timeout: 600_000, polling: 100 });
    cdp = await context.newCDPSession(page);
    await cdp.send('Profiler.enable');
    await cdp.send('Profiler.setSamplingInterval', { interval: 100 });
    await cdp.send('Profiler.start');
    await page.evaluate(() => { window.benchMapProfiling = true; });
  }
  await page.waitForFunction(() => window.benchMapResult !== undefined, null, { timeout: 1_800_000, polling: 500 });
  const result = await page.evaluate(() => window.benchMapResult);
  result.browser = context.browser()?.version() ?? (await page.evaluate(() => navigator.userAgent));
  if (cdp) {
    const { profile: cpu } = await cdp.send('Profiler.stop');
    writeFileSync(profileTo, JSON.stringify(cpu));
    const times = selfTimes(cpu);
    const busy = times.filter(([k]) => !/^\((idle|program|root)\)/.test(k)).reduce((a, [, v]) => a + v, 0);
    console.log(`profile: ${profileTo}; self time of the ${Math.min(40, times.length)} busiest functions (of ${busy.toFixed(0)} ms):`);
    for (const [k, v] of times.slice(0, 40)) console.log(`${v.toFixed(1).padStart(9)} ms ${(100 * v / busy).toFixed(1).padStart(5)} %  ${k}`);
  }
  console.log(`BENCH_MAP ${JSON.stringify(result)}`);
  if (result.error) process.exitCode = 1;
} finally {
  await context.close();
  rmSync(profile, { recursive: true, force: true });
}
