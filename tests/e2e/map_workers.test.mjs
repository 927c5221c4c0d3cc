// Binary modules in the page's analysis workers and the browser engine's memory budget
// (issue 13, item 4): the workers of a map get each binary module compiled once, by the
// page, and compile none themselves; a module that loops forever inside an FMI call
// while a map's workers instantiate it is stopped by the watchdog with its name, the map
// ends, and the page then runs a preset; a module that grows its memory past
// RuntimeLimits::max_memory_bytes in fmi3DoStep fails the run with the CLI's words.
// The modules are the hand-assembled ones of fmu_fixtures.mjs.

import test from 'node:test';
import assert from 'node:assert/strict';
import { launch, openPage, runAndWait } from './browser.mjs';
import { cliFailure } from './cli.mjs';
import { dataUrl, INSTANTIATE, lagFmu, lagScenario, STEPS } from './fmu_fixtures.mjs';

let browser;
test.before(async () => { browser = await launch(); });
test.after(async () => { await browser?.close(); });

const X = { parameter: 'master.macro_step', from: 0.01, to: 0.1, points: 4, log: true };
const Y = { parameter: 'lag.tau', from: 0.1, to: 1, points: 8, log: true };

/**
 * Sends the 8 row tiles of a map of `scenario` to the panel's pool of `workers` workers
 * and waits until every tile has answered; what each said, the workers alive and the
 * binary compilations counted (page, pool workers).
 */
async function mapTiles(page, scenario, workers) {
  return page.evaluate(async ({ scenario, x, y, workers }) => {
    const pool = window.cosimAnalysis.pool;
    pool.setSize(workers);
    const t0 = performance.now();
    const tiles = await Promise.allSettled(Array.from({ length: y.points }, (_, r) => pool.request({
      type: 'rows', key: 'e2e', scenario, x, y, metric: 'rho', start: r, end: r + 1,
    })));
    return {
      errors: tiles.map((t) => (t.status === 'rejected' ? t.reason.message : null)),
      alive: pool.alive, compilations: pool.compilations, ms: performance.now() - t0,
    };
  }, { scenario: JSON.stringify(scenario), x: X, y: Y, workers });
}

test('the workers of a map get a binary module compiled once, by the page, and compile none', async () => {
  const page = await openPage(browser.context);
  // A module the page has not seen yet (the simulation worker never validated it).
  const r = await mapTiles(page, lagScenario(dataUrl(lagFmu())), 4);
  assert.equal(r.alive, 4, 'the tiles went to four workers');
  // Every tile built the map, so every worker instantiated the module (validation does),
  // and was refused: maps need linear modules with exposed states.
  for (const e of r.errors) assert.match(e ?? '', /propagation-matrix analysis needs every module linear/);
  assert.deepEqual(r.compilations, { page: 1, workers: 0 }, 'one compilation in all');
  // A second map of the same module compiles nothing more.
  const again = await mapTiles(page, lagScenario(dataUrl(lagFmu())), 4);
  assert.deepEqual(again.compilations, { page: 1, workers: 0 });
  assert.deepEqual(page.problems, []);
  await page.close();
});

test('a module whose fmi3DoStep loops forever does not hang a map: maps never step binary modules', async () => {
  const page = await openPage(browser.context);
  await page.evaluate(() => { window.cosimWatchdogMs = 20_000; });
  const r = await mapTiles(page, lagScenario(dataUrl(lagFmu({ step: STEPS.endless }))), 2);
  for (const e of r.errors) assert.match(e ?? '', /propagation-matrix analysis needs every module linear/);
  assert.ok(r.ms < 20_000, `refused before the watchdog's deadline (${r.ms} ms)`);
  await page.close();
});

test('an endless loop in a binary module stops the map with the module named, then a preset runs', async () => {
  const page = await openPage(browser.context);
  await page.evaluate(() => { window.cosimWatchdogMs = 2000; });
  const looping = lagScenario(dataUrl(lagFmu({ instantiate: INSTANTIATE.endless })));
  const r = await mapTiles(page, looping, 3);
  for (const e of r.errors) {
    assert.match(e ?? '', /^module `lag` did not return within 2 s \(an endless loop in an FMI call\?\); the analysis was stopped and its workers terminated/);
  }
  assert.equal(r.alive, 0, 'every worker of the map was terminated');
  assert.ok(r.ms < 15_000, `stopped after the deadline, not later (${r.ms} ms)`);
  // The analysis workers start again for the next request, and the page runs a preset.
  const params = await page.evaluate(async () => (await window.cosimAnalysis.pool.call('analysisParameters',
    JSON.stringify(window.cosimPlayground.scenario))).length);
  assert.ok(params > 0, 'a fresh pool answers');
  assert.equal(await runAndWait(page), 'done', await page.textContent('#message-text'));
  assert.deepEqual(page.problems, []);
  await page.close();
});

test('memory grown past the budget in fmi3DoStep fails the run naming the module and the call, as in the CLI', async () => {
  const scenario = lagScenario(dataUrl(lagFmu({ step: STEPS.grow })));
  const expected = 'module `lag` at t = 0 s: module trapped: fmi3DoStep was stopped: linear memory of 268500992 bytes '
    + '(all memories of the module) is more than RuntimeLimits::max_memory_bytes = 268435456';
  assert.ok(cliFailure(scenario).includes(expected), 'the CLI says it');
  const page = await openPage(browser.context);
  await page.evaluate(() => { document.getElementById('json-details').open = true; });
  await page.fill('#scenario-json', JSON.stringify(scenario, null, 2));
  assert.equal(await runAndWait(page, 120_000), 'error');
  const shown = await page.textContent('#message-text');
  assert.ok(shown.includes(expected), shown);
  await page.selectOption('#preset', 'binary-c-spring-damper');
  assert.equal(await runAndWait(page), 'done', await page.textContent('#message-text'));
  assert.deepEqual(page.problems, []);
  await page.close();
});
