// Measures how the page holds up while a 10^4-mass chain runs in its worker (not a test: it
// asserts nothing; the numbers go to docs/benchmarks.md by hand). Opens the
// `chain-10000-masses` preset, observes long main-thread tasks (PerformanceObserver,
// 'longtask': tasks over 50 ms), runs the chain to its end while typing into a form field
// and clicking the JSON view's summary every 300 ms, and prints the longest main-thread
// task, how many there were, the time from a click to the next frame, and the run's time.
//
//   COSIM_BASE_URL=http://127.0.0.1:8094 node tests/e2e/measure_chain.mjs

import { launch, openPage } from './browser.mjs';

const PRESET = process.env.COSIM_CHAIN_PRESET || 'chain-10000-masses';
const quantile = (xs, q) => { const s = [...xs].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.floor(q * s.length))]; };

const b = await launch();
try {
  const page = await openPage(b.context, null, '');
  await page.selectOption('#preset', PRESET);
  await page.evaluate(() => {
    window.longTasks = [];
    window.longAt = [];
    window.runT0 = performance.now();
    // Which scripts made the long frames (Chromium's long-animation-frame entries).
    window.loaf = [];
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) {
        window.loaf.push({ at: Math.round(e.startTime - window.runT0), ms: Math.round(e.duration),
          scripts: e.scripts.map((x) => `${x.invoker} ${x.sourceFunctionName}@${x.sourceURL.split('/').pop()}:${x.sourceCharPosition} ${Math.round(x.duration)} ms`) });
      }
    }).observe({ type: 'long-animation-frame' });
    new PerformanceObserver((list) => { for (const e of list.getEntries()) window.longTasks.push(e.duration); for (const e of list.getEntries()) window.longAt.push([e.startTime, e.duration]); })
      .observe({ type: 'longtask', buffered: false });
    delete document.body.dataset.runState;
  });
  const t0 = Date.now();
  await page.click('#run');
  const answers = [];
  let typed = 0;
  while (!(await page.evaluate(() => document.body.dataset.runState))) {
    // A click answered = the frame after it; typing goes through the form's handlers.
    answers.push(await page.evaluate(() => new Promise((resolve) => {
      const t = performance.now();
      document.querySelector('#json-details summary').click();
      requestAnimationFrame(() => resolve(performance.now() - t));
    })));
    await page.type('[data-path="chain.seed"]', String(typed++ % 10));
    await page.waitForTimeout(300);
  }
  const wall = (Date.now() - t0) / 1000;
  const r = await page.evaluate(() => ({
    state: document.body.dataset.runState,
    tasks: window.longTasks,
    at: window.longAt.map(([t, d]) => `${(t - window.runT0).toFixed(0)} ms: ${d.toFixed(0)} ms`),
    result: window.cosimPlayground.lastResult && {
      stepsDone: window.cosimPlayground.lastResult.stepsDone, elapsedMs: window.cosimPlayground.lastResult.elapsedMs,
    },
  }));
  // The observer works here: an 80 ms block of the main thread after the run is seen.
  const check = await page.evaluate(() => new Promise((resolve) => {
    const before = window.longTasks.length;
    const t = performance.now();
    setTimeout(() => { while (performance.now() - t < 80) { /* block */ } }, 0);
    setTimeout(() => resolve(window.longTasks.slice(before)), 400);
  }));
  const longest = r.tasks.length ? Math.max(...r.tasks) : 0;
  console.log(`${PRESET}: run ${r.state} after ${wall.toFixed(1)} s (${r.result?.stepsDone} macro-steps, worker ${(r.result?.elapsedMs / 1000).toFixed(1)} s)`);
  console.log(`long main-thread tasks (> 50 ms) during the run: ${r.tasks.length}, longest ${longest.toFixed(0)} ms`);
  if (process.env.COSIM_VERBOSE) console.log(r.at, JSON.stringify(await page.evaluate(() => window.loaf), null, 1));
  console.log(`observer check: an 80 ms block after the run was seen as ${check.map((d) => `${d.toFixed(0)} ms`).join(', ') || 'nothing'}`);
  console.log(`click -> next frame (${answers.length} clicks): p50 ${quantile(answers, 0.5).toFixed(1)} ms, max ${Math.max(...answers).toFixed(1)} ms`);
} finally {
  await b.close();
}
