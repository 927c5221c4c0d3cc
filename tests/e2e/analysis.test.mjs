// Analysis views in the page: a map computed in tiles across several workers equals the
// CLI's `cosim map` (values and statuses to 1e-9); Cancel during a big map terminates
// every worker and the page keeps working; the ρ-vs-ΔT sweep finds the FOH stable window
// of seed 000 Fig. 5; screenshots of every view at desktop and phone widths in out/.

import test from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { launch, openPage, OUT_DIR } from './browser.mjs';
import { cliPath, TOLERANCE } from './cli.mjs';
import { contourSegments } from '../../www/js/analysis/contour.js';

const STATUS = ['ok', 'ill_conditioned', 'diverged', 'failed'];

async function openAnalysis(context, presetId, viewport) {
  const page = await openPage(context, viewport, `#preset=${presetId}`);
  await page.waitForFunction((id) => window.cosimPlayground.presetId === id && document.body.dataset.analysisReady === 'true',
    presetId, { timeout: 30_000 });
  return page;
}

async function setAxis(page, name, { parameter, from, to, points, log }) {
  await page.selectOption(`#analysis-${name}-param`, parameter);
  await page.fill(`#analysis-${name}-from`, String(from));
  await page.fill(`#analysis-${name}-to`, String(to));
  await page.fill(`#analysis-${name}-points`, String(points));
  await page.setChecked(`#analysis-${name}-log`, log);
}

async function compute(page, timeout = 120_000) {
  await page.evaluate(() => { delete document.body.dataset.analysisState; });
  await page.click('#analysis-compute');
  await page.waitForFunction(() => ['done', 'error', 'cancelled'].includes(document.body.dataset.analysisState), null, { timeout });
  const state = await page.evaluate(() => document.body.dataset.analysisState);
  assert.equal(state, 'done', await page.textContent('#analysis-status'));
}

function cosimText(args) {
  return execFileSync(cliPath(), args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

function cliMap(scenarioText, x, y, metric) {
  const dir = mkdtempSync(join(tmpdir(), 'cosim-map-'));
  const file = join(dir, 's.json'), out = join(dir, 'map.csv');
  writeFileSync(file, scenarioText);
  const axis = (a) => `${a.parameter}:${a.from}:${a.to}:${a.points}${a.log ? ':log' : ''}`;
  execFileSync(cliPath(), ['map', file, '--x', axis(x), '--y', axis(y), '--metric', metric, '--out', out, '--threads', '2'],
    { stdio: ['ignore', 'ignore', 'pipe'] });
  return readFileSync(out, 'utf8').trim().split('\n').slice(1).map((l) => {
    const [xv, yv, v, s] = l.split(',');
    return { x: Number(xv), y: Number(yv), value: Number(v), status: s };
  });
}

test('marching squares: the ρ = 1 contour of a radial field is the circle, NaN cells leave gaps', () => {
  // f = 10^(r² − R²) on a 41 × 41 grid: f = 1 exactly on the circle of radius R = 12 cells.
  const n = 41, c = 20, R = 12;
  const values = new Float64Array(n * n);
  for (let j = 0; j < n; j++) for (let i = 0; i < n; i++) values[j * n + i] = 10 ** (((i - c) ** 2 + (j - c) ** 2 - R * R) / 100);
  const segs = contourSegments(values, n, n, 1);
  assert.ok(segs.length > 60, `${segs.length} segments`);
  for (const [x0, y0, x1, y1] of segs) {
    for (const [x, y] of [[x0, y0], [x1, y1]]) {
      const r = Math.hypot(x - c, y - c);
      assert.ok(Math.abs(r - R) < 0.05, `point at radius ${r}`);
    }
  }
  // A failed cell (NaN) removes the squares around it instead of inventing a path.
  values[c * n + c + R] = NaN;
  const gapped = contourSegments(values, n, n, 1);
  assert.ok(gapped.length < segs.length && gapped.length >= segs.length - 4, `${gapped.length} vs ${segs.length}`);
  // Diverged cells (+∞) count as far above the level.
  const inf = new Float64Array([0.5, Infinity, 0.5, 0.5]);
  assert.equal(contourSegments(inf, 2, 2, 1).length, 1);
});

const close = (a, b) => (Number.isNaN(a) && Number.isNaN(b)) || a === b || Math.abs(a - b) <= TOLERANCE * Math.max(1, Math.abs(b));

test('a 24×16 stability map computed on several workers equals `cosim map`', async () => {
  const browser = await launch();
  try {
    const page = await openAnalysis(browser.context, 'analysis-stability-map');
    await page.evaluate(() => window.cosimAnalysis.pool.setSize(4));
    const x = { parameter: 'mass2.ck', from: 1, to: 1e10, points: 24, log: true };
    const y = { parameter: 'mass2.dk', from: 1, to: 1e7, points: 16, log: true };
    await setAxis(page, 'x', x);
    await setAxis(page, 'y', y);
    await page.setChecked('#analysis-overlay', false);
    await compute(page);
    const got = await page.evaluate(() => {
      const m = window.cosimAnalysis.lastMap;
      return { x: Array.from(m.x), y: Array.from(m.y), values: Array.from(m.values, (v) => (Number.isFinite(v) ? v : String(v))),
        status: Array.from(m.status), workers: window.cosimAnalysis.pool.alive };
    });
    assert.ok(got.workers >= 2, `tiles spread over several workers (${got.workers})`);
    const scenario = await page.evaluate(() => JSON.stringify(window.cosimPlayground.scenario));
    assert.deepEqual(JSON.parse(scenario).analysis.x, x, 'the axes are written to scenario.analysis');
    const want = cliMap(scenario, x, y, 'rho');
    assert.equal(want.length, 24 * 16);
    want.forEach((c, k) => {
      const v = typeof got.values[k] === 'string' ? Number(got.values[k]) : got.values[k];
      assert.ok(close(got.x[k % 24], c.x) && close(got.y[Math.floor(k / 24)], c.y), `cell ${k} coordinates`);
      assert.equal(STATUS[got.status[k]], c.status, `cell ${k} status`);
      assert.ok(close(v, c.value), `cell ${k}: page ${v}, CLI ${c.value}`);
    });
    assert.deepEqual(page.problems, []);
  } finally {
    await browser.close();
  }
});

test('Cancel during a big map stops every worker and the page keeps working', async () => {
  const browser = await launch();
  try {
    const page = await openAnalysis(browser.context, 'analysis-stability-map');
    await page.evaluate(() => window.cosimAnalysis.pool.setSize(3));
    await setAxis(page, 'x', { parameter: 'mass2.ck', from: 1, to: 1e10, points: 400, log: true });
    await setAxis(page, 'y', { parameter: 'mass2.dk', from: 1, to: 1e7, points: 400, log: true });
    await page.evaluate(() => { delete document.body.dataset.analysisState; });
    await page.click('#analysis-compute');
    await page.waitForFunction(() => document.getElementById('analysis-progress').value > 0, null, { timeout: 60_000, polling: 20 });
    assert.equal(await page.evaluate(() => window.cosimAnalysis.pool.alive), 3, 'all workers busy');
    assert.equal(await page.isEnabled('#analysis-cancel'), true);
    await page.click('#analysis-cancel');
    await page.waitForFunction(() => document.body.dataset.analysisState === 'cancelled', null, { timeout: 10_000 });
    assert.equal(await page.evaluate(() => window.cosimAnalysis.pool.alive), 0, 'every worker terminated');
    assert.match(await page.textContent('#analysis-status'), /^Cancelled/);
    const p = await page.$eval('#analysis-progress', (e) => e.value / e.max);
    assert.ok(p < 1, `stopped early (${p})`);
    // The page still works: a small map computes on fresh workers, and a run completes.
    await setAxis(page, 'x', { parameter: 'mass2.ck', from: 1, to: 1e10, points: 8, log: true });
    await setAxis(page, 'y', { parameter: 'mass2.dk', from: 1, to: 1e7, points: 6, log: true });
    await page.setChecked('#analysis-overlay', false);
    await compute(page);
    await page.click('#run');
    await page.waitForFunction(() => document.body.dataset.runState === 'done', null, { timeout: 60_000 });
    assert.deepEqual(page.problems, []);
  } finally {
    await browser.close();
  }
});

test('ρ against ΔT shows the FOH stable window of Fig. 5', async () => {
  const browser = await launch();
  try {
    const page = await openAnalysis(browser.context, 'analysis-rho-versus-step');
    assert.equal(await page.evaluate(() => window.cosimAnalysis.view), 'rho_versus_step');
    await compute(page);
    const c = await page.evaluate(() => window.cosimAnalysis.lastSweep.crossings);
    const within = (v, w) => Math.abs(v / w - 1) <= 0.01;
    assert.ok(c.some((k) => !k.stableBelow && within(k.value, 1.3701e-4)), `window opens near 1.37e-4: ${JSON.stringify(c)}`);
    assert.ok(c.some((k) => k.stableBelow && within(k.value, 3.0611e-4)), `window closes near 3.06e-4: ${JSON.stringify(c)}`);
    assert.match(await page.textContent('#analysis-figure'), /crosses 1 at/);
    assert.deepEqual(page.problems, []);
  } finally {
    await browser.close();
  }
});

test('a shared link with an analysis view opens that view and computes it', async () => {
  const scenario = cosimText(['preset', 'analysis-rho-versus-step']);
  const dir = mkdtempSync(join(tmpdir(), 'cosim-link-'));
  writeFileSync(join(dir, 's.json'), scenario);
  const link = cosimText(['link', 'encode', join(dir, 's.json')]).trim();
  const browser = await launch();
  try {
    const page = await openPage(browser.context, undefined, `#${link}`);
    await page.waitForFunction(() => document.body.dataset.analysisState === 'done', null, { timeout: 120_000 });
    assert.equal(await page.evaluate(() => window.cosimAnalysis.view), 'rho_versus_step');
    assert.equal(await page.$eval('#analysis-x-param', (e) => e.value), 'master.macro_step');
    assert.equal(await page.evaluate(() => window.cosimAnalysis.lastSweep.x.length), 90);
    assert.deepEqual(page.problems, []);
  } finally {
    await browser.close();
  }
});

const VIEWS = [
  { name: 'stability-map', preset: 'analysis-stability-map' },
  { name: 'accuracy-map', preset: 'analysis-accuracy-map' },
  { name: 'rho-versus-step', preset: 'analysis-rho-versus-step' },
  { name: 'error-versus-parameter', preset: 'analysis-accuracy-map', view: 'error_versus_parameter',
    x: { parameter: 'mass2.ck', from: 1, to: 1e10, points: 60, log: true } },
  { name: 'convergence', preset: 'analysis-convergence' },
];

// One test per view and width, each with its own time limit.

for (const [label, viewport] of [['desktop', { width: 1280, height: 800 }], ['phone', { width: 390, height: 844 }]]) {
  for (const v of VIEWS) {
    test(`screenshot of the ${v.name} view (${label})`, async () => {
      const browser = await launch();
      try {
        const page = await openAnalysis(browser.context, v.preset, viewport);
        if (v.view) {
          await page.click(`#analysis-views button[data-view="${v.view}"]`);
          await setAxis(page, 'x', v.x);
        }
        await compute(page, 170_000);
        const section = await page.$('#analysis');
        await section.scrollIntoViewIfNeeded();
        // Hover shows the read-out in the picture; uPlot's overlay takes the pointer, hence force.
        await page.hover('#analysis-figure canvas', { position: { x: 200, y: 120 }, force: true, timeout: 2_000 }).catch(() => {});
        await section.screenshot({ path: join(OUT_DIR, `analysis-${v.name}-${label}.png`) });
        assert.deepEqual(page.problems, [], v.name);
        await page.close();
      } finally {
        await browser.close();
      }
    });
  }
}
