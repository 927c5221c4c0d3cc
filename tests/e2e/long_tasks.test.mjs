// The main thread stays free while a run starts, streams and ends (issue 17, item 4): no
// task over 100 ms, as a PerformanceObserver for 'longtask' entries (tasks over 50 ms)
// reports them, from the click on Run until the run's last charts are drawn. Before the
// charts were built one per task, starting a run with seven or more charts took 95-165 ms
// in one task (docs/benchmarks.md, "Chains in the page").

import test from 'node:test';
import assert from 'node:assert/strict';
import { loadavg } from 'node:os';
import { launch, openPage, runAndWait } from './browser.mjs';

const LIMIT_MS = 100;

/** Starts observing long main-thread tasks into window.longTasks ([start, duration] in ms). */
function observeLongTasks(page) {
  return page.evaluate(() => {
    window.longTasks = [];
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) window.longTasks.push([e.startTime, e.duration]);
    }).observe({ type: 'longtask' });
  });
}

/** Runs the selected preset to its end; returns its state, the long tasks and the charts. */
async function runObserved(page, timeout) {
  await observeLongTasks(page);
  const t0 = await page.evaluate(() => performance.now());
  const state = await runAndWait(page, timeout);
  // Charts still being built after the run's last message (each gets its canvas), then
  // the delivery of their entries.
  const charts = '#plots figure.chart, figure.step-chart';
  await page.waitForFunction((sel) => [...document.querySelectorAll(sel)].every((f) => f.querySelector('canvas')),
    charts, { timeout: 10_000 });
  await page.waitForTimeout(500);
  const tasks = await page.evaluate((from) => window.longTasks.map(([t, d]) => ({ at: Math.round(t - from), ms: Math.round(d) })), t0);
  const drawn = await page.evaluate((sel) => document.querySelectorAll(sel).length, charts);
  return { state, tasks, charts: drawn };
}

const longest = (tasks) => Math.max(0, ...tasks.map((t) => t.ms));
/** Long tasks are wall time: on a machine with more runnable threads than cores they stretch. */
const said = (tasks) => `long tasks during the run: ${JSON.stringify(tasks)} (load average ${loadavg().map((x) => x.toFixed(1)).join(' ')})`;

test('the long-task observer sees a main-thread block over 100 ms (so the checks below can fail)', async () => {
  const browser = await launch();
  try {
    const page = await openPage(browser.context);
    await observeLongTasks(page);
    await page.evaluate(() => new Promise((resolve) => {
      setTimeout(() => { const t = performance.now(); while (performance.now() - t < 130) { /* block */ } }, 0);
      setTimeout(resolve, 400);
    }));
    const seen = await page.evaluate(() => window.longTasks.map(([, d]) => d));
    assert.ok(seen.some((d) => d >= LIMIT_MS), `a 130 ms block was seen as ${JSON.stringify(seen)}`);
  } finally {
    await browser.close();
  }
});

test('an ordinary preset runs without a main-thread task over 100 ms', async () => {
  const browser = await launch();
  try {
    const page = await openPage(browser.context);
    await page.selectOption('#preset', 'two-mass-oscillator');
    const r = await runObserved(page, 60_000);
    assert.equal(r.state, 'done');
    assert.ok(r.charts >= 2, `${r.charts} charts drawn`);
    assert.ok(longest(r.tasks) < LIMIT_MS, said(r.tasks));
    assert.deepEqual(page.problems, []);
  } finally {
    await browser.close();
  }
});

test('a 10,000-mass chain starts, runs and ends without a main-thread task over 100 ms', async () => {
  const browser = await launch();
  try {
    const page = await openPage(browser.context);
    await page.selectOption('#preset', 'chain-10000-masses');
    // A tenth of the preset's horizon: the start and the end of the run are what is checked.
    await page.fill('[data-path="run.stop"]', '5e-7');
    const r = await runObserved(page, 180_000);
    assert.equal(r.state, 'done', await page.textContent('#message-text'));
    assert.ok(r.charts >= 7, `${r.charts} charts drawn`);
    assert.ok(longest(r.tasks) < LIMIT_MS, said(r.tasks));
    assert.deepEqual(page.problems, []);
  } finally {
    await browser.close();
  }
});
