// Measures the teaching features on this machine (not a test: it asserts nothing; the
// numbers go to docs/benchmarks.md by hand):
// - slider release to redrawn chart: the macro-step slider of the default preset is moved
//   and released (one 'input' and 'change'); time from the event to the first animation
//   frame after the new run's result reached the charts; p50 and p95 over many moves;
// - the stability-map preset computed on opening: time to the first (coarse, 64 x 48)
//   map and to the full 256 x 256 map, with one analysis worker and with all of them;
//   then the map's ΔT slider: move to redrawn ρ = 1 contour.
//
//   COSIM_BASE_URL=http://127.0.0.1:8092 node tests/e2e/measure_teach.mjs

import { launch, openPage } from './browser.mjs';

const MOVES = Number(process.env.COSIM_MOVES || 40);
const quantile = (xs, q) => { const s = [...xs].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.floor(q * s.length))]; };

const b = await launch();
try {
  const page = await openPage(b.context, null, '');
  await page.selectOption('#slider-choice', 'master.macro_step');
  await page.click('#slider-add');
  const times = [];
  for (let i = 0; i < MOVES; i++) {
    const ms = await page.evaluate((k) => new Promise((resolve) => {
      const input = document.querySelector('#slider-list input[data-path="master.macro_step"]');
      const store = window.cosimPlayground.store;
      const t0 = performance.now();
      const off = store.on('lastResult', () => {
        off();
        // The plots draw on the next frame; the frame after that shows it.
        requestAnimationFrame(() => requestAnimationFrame(() => resolve(performance.now() - t0)));
      });
      input.value = String(100 + (k % 40));
      input.dispatchEvent(new Event('input', { bubbles: true }));
      input.dispatchEvent(new Event('change', { bubbles: true }));
    }), i);
    times.push(ms);
  }
  console.log(`slider release -> redrawn chart (default preset, ${MOVES} moves): p50 ${quantile(times, 0.5).toFixed(1)} ms, p95 ${quantile(times, 0.95).toFixed(1)} ms, max ${Math.max(...times).toFixed(1)} ms`);
} finally {
  await b.close();
}

for (const workers of [1, 'all']) {
  const browser = await launch();
  try {
    const page = await openPage(browser.context, null, '#preset=analysis-stability-map');
    const r = await page.evaluate(async (n) => {
      const a = window.cosimAnalysis;
      // Stop what opening started, then compute again as opening does, with `n` workers.
      a.pool.cancel();
      await a.computing;
      a.pool.setSize(n === 'all' ? a.pool.size : 1);
      a.axes.x.points.value = '64';
      a.axes.y.points.value = '48';
      await a.compute({ progressive: true });
      return { workers: a.pool.size, coarse: a.timings.coarse, full: a.timings.full, size: [a.figure.data.x.values.length, a.figure.data.y.values.length],
        overlays: a.figure.overlays.length };
    }, workers);
    // The ΔT slider of the map: time from a move to the redrawn ρ = 1 contour.
    const drags = await page.evaluate(async () => {
      const input = document.getElementById('analysis-dt');
      input.dispatchEvent(new Event('pointerdown'));
      const out = [];
      for (let k = 0; k < 15; k++) {
        const before = document.body.dataset.liveContour;
        const t0 = performance.now();
        input.value = String(90 + 4 * k);
        input.dispatchEvent(new Event('input', { bubbles: true }));
        while (document.body.dataset.liveContour === before) await new Promise((res) => setTimeout(res, 2));
        out.push(performance.now() - t0);
      }
      return out;
    });
    console.log(`  ΔT slider on the map -> redrawn ρ = 1 contour (48 x 32, 15 moves): p50 ${quantile(drags, 0.5).toFixed(0)} ms, p95 ${quantile(drags, 0.95).toFixed(0)} ms`);
    console.log(`stability-map preset on opening, ${r.workers} worker(s): first coarse map ${(r.coarse / 1000).toFixed(2)} s, full ${r.size.join(' x ')} map ${(r.full / 1000).toFixed(2)} s (each pass: the map plus ${r.overlays} ρ = 1 contours at other ΔT)`);
  } finally {
    await browser.close();
  }
}
