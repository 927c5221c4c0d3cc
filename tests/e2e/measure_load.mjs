// Measures how fast the page becomes usable on this machine (not a test: it asserts
// nothing; numbers go to docs/benchmarks.md by hand). For a cold load (fresh profile) and
// a reload: first contentful paint, the wasm fetch and compile, "ready" (presets listed,
// Run enabled), and the first chart after pressing Run. Times in ms from navigation start.
//
//   COSIM_BASE_URL=http://127.0.0.1:8123 node tests/e2e/measure_load.mjs

import { launch, BASE_URL } from './browser.mjs';

const RUNS = 5;

async function measure(page, reload) {
  if (reload) await page.reload(); else await page.goto(BASE_URL);
  await page.waitForFunction(() => window.cosimPlayground && document.querySelector('#run:not([disabled])'), null, { timeout: 30_000 });
  const ready = await page.evaluate(() => performance.now());
  await page.evaluate(() => { window.__t0 = performance.now(); delete document.body.dataset.runState; });
  await page.click('#run');
  await page.waitForFunction(() => document.querySelector('.chart canvas'), null, { timeout: 30_000 });
  const chart = await page.evaluate(() => performance.now() - window.__t0);
  await page.waitForFunction(() => document.body.dataset.runState);
  return page.evaluate(({ ready, chart }) => {
    const fcp = performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? null;
    const wasm = performance.getEntriesByType('resource').filter((r) => r.name.endsWith('.wasm'));
    return {
      fcp, ready, runToFirstChart: chart,
      wasmFetches: wasm.length, wasmResponseEnd: wasm[0]?.responseEnd ?? null, wasmBytes: wasm[0]?.transferSize ?? null,
    };
  }, { ready, chart });
}

const rows = [];
for (let i = 0; i < RUNS; i++) {
  const b = await launch();
  try {
    const page = await b.context.newPage();
    rows.push({ kind: 'cold', ...(await measure(page, false)) });
    rows.push({ kind: 'reload', ...(await measure(page, true)) });
  } finally { await b.close(); }
}
const median = (xs) => { const s = xs.filter((x) => x != null).sort((a, b) => a - b); return s[Math.floor(s.length / 2)]; };
for (const kind of ['cold', 'reload']) {
  const r = rows.filter((x) => x.kind === kind);
  const m = (k) => median(r.map((x) => x[k]));
  console.log(`${kind}: median of ${r.length}: first contentful paint ${m('fcp')?.toFixed(0)} ms, wasm received ${m('wasmResponseEnd')?.toFixed(0)} ms, ready ${m('ready')?.toFixed(0)} ms, Run -> first chart ${m('runToFirstChart')?.toFixed(0)} ms, wasm fetches per load ${m('wasmFetches')}, transferred ${m('wasmBytes')} bytes`);
}
