// Native against wasm on chains (issue 17, "Reproducibility"): a 100-mass chain with seed
// 002's parameters (impulses, exponential contacts, cubic springs and dampers) run in the
// page's worker gives the CLI's CSV byte for byte, and the same global errors, for the
// fixed-step Jacobi master, ExSLocal and ImSLocal (finite-difference Jacobian, LU), each
// with the banded whole-chain reference. Core computes every elementary function through
// libm, natively and in wasm (docs/methods.md §16.7), so no bound is needed: equality.

import test from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { launch, openPage, runAndWait } from './browser.mjs';
import { runCli } from './cli.mjs';

/** A 100-mass chain in 10 subsystems, seed 002's parameters, watched mass 69. */
function chain(master, stop) {
  return JSON.stringify({
    schema_version: 1,
    chain: { masses: 100, subsystems: 10, seed: 1, parameters: {}, watch: [69] },
    master,
    run: { stop },
    reference: true,
  });
}

const control = (estimator) => ({
  method: 'error', estimator, rtol: 1e-3,
  atol: { pos: 1e-9, vel: 1e-6, u: 0.1 }, order: { variable: { k_max: 5 } },
});

const SCENARIOS = {
  'fixed-step Jacobi': chain({ algorithm: 'jacobi', macro_step: 1e-8 }, 5e-7),
  ExSLocal: chain({ algorithm: 'jacobi', macro_step: 1e-8, step_control: control('ex_s_local') }, 2e-6),
  ImSLocal: chain({ algorithm: 'implicit', macro_step: 1e-8, step_control: control('im_s_local') }, 2e-6),
  // The gentle fixed-step chain of the CLI's thread-count test.
  'chain-100 fixture': readFileSync(new URL('../fixtures/chain-100.json', import.meta.url), 'utf8'),
};

/** Puts scenario text into the form through the JSON view. */
async function applyJson(page, text) {
  await page.evaluate(() => { document.getElementById('json-details').open = true; });
  await page.fill('#scenario-json', text);
  await page.click('#apply-json');
}

test('a 100-mass chain gives the same CSV bytes in the page (wasm) as natively (CLI)', async () => {
  const browser = await launch();
  try {
    const page = await openPage(browser.context);
    for (const [what, text] of Object.entries(SCENARIOS)) {
      const cliCsv = runCli(text);
      await applyJson(page, text);
      assert.equal(await runAndWait(page), 'done', `${what}: ${await page.textContent('#message-text')}`);
      const last = await page.evaluate(() => window.cosimPlayground.lastResult);
      assert.ok(typeof last.csv === 'string', `${what}: the CSV came with the result`);
      const rows = cliCsv.trim().split('\n');
      assert.ok(rows.length > 40, `${what}: ${rows.length} rows`);
      assert.ok(rows[0].includes('s7.x_watch') && rows[0].includes(':reference'), `${what}: ${rows[0].slice(0, 80)}`);
      if (last.csv !== cliCsv) {
        const pageRows = last.csv.trim().split('\n');
        const i = rows.findIndex((r, k) => r !== pageRows[k]);
        assert.fail(`${what}: first differing row ${i}:\n CLI  ${rows[i]}\n page ${pageRows[i]}`);
      }
      // The eqn 36 error shown is computed in wasm from the same numbers.
      assert.ok(Number.isFinite(last.couplingBodyError), `${what}: eqn 36 ${last.couplingBodyError}`);
    }
    assert.deepEqual(page.problems, []);
  } finally {
    await browser.close();
  }
});
