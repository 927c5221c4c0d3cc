// Every FMI 3.0 variable type in the page: tests/fixtures/fmus/c_types.fmu (examples/fmus/c_types,
// built by `cargo xtask fmus`) fed by a built-in module and by itself runs in the page; its
// Int32 output is drawn as steps, its Float64 array output as one chart per element, and the
// page's CSV equals the CLI's byte for byte.

import test from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { launch, openPage, runAndWait } from './browser.mjs';
import { runCli, parseCsv } from './cli.mjs';

const FMU = join(dirname(fileURLToPath(import.meta.url)), '../fixtures/fmus/c_types.fmu');
const PLOT = ['t.count', 't.odd', 't.y', 't.arr[1]', 't.arr[2]', 't.arr[3]', 't.big'];

function scenario() {
  const source = `data:application/zip;base64,${readFileSync(FMU).toString('base64')}`;
  return {
    schema_version: 1,
    title: 'Every FMI 3.0 type',
    modules: [
      { name: 'src', model: 'Equations', source: 'state x = 1\nder(x) = -x\noutput xo = x\n' },
      { name: 't', model: 'Binary', source,
        parameters: { gain: 0.5, offset: -7, flag: true, label: 'abcd', blob: 'ff0001', mode: 3 } },
    ],
    connections: [
      { from: 'src.xo', to: 't.u' },
      { from: 't.count', to: 't.k_in' },
      { from: 't.arr', to: 't.arr_in' },
    ],
    master: { algorithm: 'gauss_seidel', macro_step: 0.125 },
    run: { start: 0, stop: 2 },
    reference: false,
    plot: PLOT,
  };
}

let browser;
test.before(async () => { browser = await launch(); });
test.after(async () => { await browser?.close(); });

test('c_types.fmu: integers drawn as steps, array elements plotted, the CSV equals the CLI to the last bit', async () => {
  const page = await openPage(browser.context);
  const text = JSON.stringify(scenario(), null, 2);
  await page.evaluate(() => { document.getElementById('json-details').open = true; });
  await page.fill('#scenario-json', text);
  assert.equal(await runAndWait(page, 120_000), 'done', await page.textContent('#message-text'));

  const cliCsv = runCli(text);
  const expected = parseCsv(cliCsv);
  const plotted = await page.evaluate(() => window.cosimPlayground.plotted());
  assert.deepEqual(plotted.map((p) => p.name), PLOT);
  const byName = new Map(plotted.map((p) => [p.name, p]));
  assert.equal(byName.get('t.count').type, 'Int32');
  assert.equal(byName.get('t.count').steps, true, 'an integer is drawn as steps');
  assert.equal(byName.get('t.odd').steps, true, 'a boolean is drawn as steps');
  for (const name of ['t.arr[1]', 't.arr[2]', 't.arr[3]', 't.y']) {
    assert.equal(byName.get(name).steps, false, `${name} is drawn as a line`);
  }
  assert.equal(await page.getAttribute('figure[data-signal="t.count"]', 'data-drawn'), 'steps');
  for (const p of plotted) assert.deepEqual(p.cosim, expected.columns.get(p.name), p.name);
  assert.equal(Math.max(...byName.get('t.count').cosim), 8, 'eight time events in 2 s');

  const pageCsv = await page.evaluate(async () => (await fetch(document.getElementById('download-csv').href)).text());
  assert.equal(pageCsv, cliCsv, 'the page CSV equals the CLI CSV byte for byte');
  assert.deepEqual(page.problems, []);
  await page.close();
});
