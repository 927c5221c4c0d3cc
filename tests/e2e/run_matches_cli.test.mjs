// The page runs the default preset in its worker, and the data it plots equal the CLI's
// CSV for the same preset (`cosim preset ID`, `cosim run s.json --out out.csv`) to 1e-9,
// and the run summary shows the counters of the CLI's summary line (event points,
// rejected attempts).

import test from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { launch, openPage, runAndWait } from './browser.mjs';
import { cliPath, parseCsv, assertClose, WWW_DIR } from './cli.mjs';

/** Runs preset `id` in the page and in the CLI and compares what is plotted. */
async function comparePreset(page, cli, id) {
  await page.selectOption('#preset', id);
  const dir = mkdtempSync(join(tmpdir(), 'cosim-cli-'));
  const scenarioFile = join(dir, 's.json');
  const csvFile = join(dir, 'out.csv');
  execFileSync('sh', ['-c', '"$0" preset "$1" > "$2"', cli, id, scenarioFile]);
  // From www/, so module files named relative to the page are found (see cli.mjs).
  const run = spawnSync(cli, ['run', scenarioFile, '--out', csvFile], { cwd: WWW_DIR, encoding: 'utf8' });
  assert.equal(run.status, 0, `${id}: cosim run failed: ${run.stderr}`);
  const counters = /; (\d+) off-grid event points; (\d+) rejected attempts rolled back/.exec(run.stderr);
  assert.ok(counters, `${id}: the CLI summary has the counters: ${run.stderr}`);
  const cliCsv = readFileSync(csvFile, 'utf8');
  const expected = parseCsv(cliCsv);

  assert.equal(await runAndWait(page), 'done', `${id}: ${await page.textContent('#message-text')}`);
  const plotted = await page.evaluate(() => window.cosimPlayground.plotted());
  assert.ok(plotted.length >= 1, `${id}: at least one output is plotted`);
  for (const p of plotted) {
    const what = `${id} ${p.name}`;
    assertClose(p.time, expected.columns.get('time'), `${what} time`);
    assert.ok(expected.columns.has(p.name), `CLI CSV has a column ${p.name}`);
    assertClose(p.cosim, expected.columns.get(p.name), `${what} co-simulation`);
    const refName = `${p.name}:reference`;
    assert.equal(p.reference !== null, expected.columns.has(refName), `${what}: reference plotted iff the CLI has ${refName}`);
    if (p.reference) assertClose(p.reference, expected.columns.get(refName), `${what} reference`);
  }
  // The CSV the page offers for download is the CLI's, byte for byte.
  assert.equal(await page.evaluate(() => window.cosimPlayground.lastResult.csv), cliCsv, `${id}: CSV`);
  // The global error shown is the one the run computed.
  const shown = await page.textContent('#global-error');
  const nrmse = await page.evaluate(() => window.cosimPlayground.lastResult.globalNrmse);
  const [global, bodies] = shown.split('; coupling bodies (eqn 36) ');
  assert.equal(global, typeof nrmse === 'number' ? nrmse.toExponential(3) : 'no reference');
  // A chain also shows seed 002's eqn 36 on its coupling bodies.
  const e36 = await page.evaluate(() => window.cosimPlayground.lastResult.couplingBodyError);
  if (bodies !== undefined) assert.equal(bodies, e36.toExponential(3), `${id}: eqn 36`);
  assert.equal(await page.textContent('#events'), counters[1], `${id}: event points`);
  assert.equal(await page.textContent('#rejected'), counters[2], `${id}: rejected attempts`);
}

test('default preset: plotted co-simulation and reference equal the CLI CSV', async () => {
  const cli = cliPath();
  const browser = await launch();
  try {
    const page = await openPage(browser.context);
    const presetId = await page.$eval('#preset', (s) => s.value);
    assert.ok(presetId, 'a preset is selected on load');
    await comparePreset(page, cli, presetId);
    assert.deepEqual(page.problems, []);
  } finally {
    await browser.close();
  }
});

// Every other preset, in groups of eight so each test stays within the per-test time limit
// as presets are added (the ids come from the presets' index, in the picker's order).
const INDEX = JSON.parse(readFileSync(new URL('../../core/presets/index.json', import.meta.url), 'utf8'));
const OTHER_IDS = INDEX.flatMap((topic) => topic.presets.map((p) => p.id)).slice(1);
for (let first = 0; first < OTHER_IDS.length; first += 8) {
  const ids = OTHER_IDS.slice(first, first + 8);
  test(`presets ${first + 2}-${first + 1 + ids.length}: the page equals the CLI too`, async () => {
    const cli = cliPath();
    const browser = await launch();
    try {
      const page = await openPage(browser.context);
      const offered = await page.$$eval('#preset option', (os) => os.map((o) => o.value).filter(Boolean));
      for (const id of ids) {
        assert.ok(offered.includes(id), `the picker offers ${id}`);
        await comparePreset(page, cli, id);
      }
      assert.deepEqual(page.problems, []);
    } finally {
      await browser.close();
    }
  });
}
