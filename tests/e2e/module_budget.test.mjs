// The browser engine's memory budget holds while a binary module runs (issue 13, item 4):
// a module's own memory.grow past the budget is refused inside the call (a module that
// would loop forever once the growth succeeded fails at once, as in the CLI, instead of
// waiting for the watchdog); tables count (declared too large, grown past
// RuntimeLimits::max_table_elements in fmi3DoStep, or filling the budget memory then
// exceeds) with the CLI's words; and the
// simulation worker adopts a module the page compiled for a map instead of compiling
// it again. The modules are fmu_fixtures.mjs's hand-assembled lag, with a table added.

import test from 'node:test';
import assert from 'node:assert/strict';
import { launch, openPage, runAndWait } from './browser.mjs';
import { cliFailure, runCli } from './cli.mjs';
import { dataUrl, LAG_XML, lagFmu, lagScenario, lagWasm, zipStored } from './fmu_fixtures.mjs';

let browser;
test.before(async () => { browser = await launch(); });
test.after(async () => { await browser?.close(); });

/** Signed LEB128 of a small integer. */
function sleb(v) {
  const out = [];
  for (;;) {
    const b = v & 0x7f;
    v >>= 7;
    if ((v === 0 && !(b & 0x40)) || (v === -1 && (b & 0x40))) { out.push(b); return out; }
    out.push(b | 0x80);
  }
}

const OK = [0x41, 0x00];
/** memory.grow(4096 pages: past the default 256 MiB cap); if it gave anything but -1, loop forever. */
const GROW_THEN_LOOP = [0x41, 0x80, 0x20, 0x40, 0x00, 0x41, 0x7f, 0x47, 0x04, 0x40,
  0x03, 0x40, 0x0c, 0x00, 0x0b, 0x0b, ...OK];
/** drop (table.grow 0 (ref.null func) (i32.const n)). */
const growTable = (n) => [0xd0, 0x70, 0x41, ...sleb(n), 0xfc, 0x0f, 0x00, 0x1a, ...OK];

/** lagWasm(options) with a funcref table of `elements` inserted before its memory section. */
function withTable(wasm, elements) {
  const bytes = [...wasm];
  let at = 8;
  while (bytes[at] !== 5) {
    let size = 0;
    let shift = 0;
    let k = at + 1;
    for (;;) { const b = bytes[k++]; size |= (b & 0x7f) << shift; shift += 7; if (!(b & 0x80)) break; }
    at = k + size;
  }
  const body = [1, 0x70, 0x00, ...leb(elements)];
  return Uint8Array.from([...bytes.slice(0, at), 4, ...leb(body.length), ...body, ...bytes.slice(at)]);
}

function leb(v) {
  const out = [];
  do { let b = v & 0x7f; v = Math.floor(v / 128); if (v) b |= 0x80; out.push(b); } while (v);
  return out;
}

function tableFmu(elements, options = {}) {
  return zipStored([['modelDescription.xml', LAG_XML], ['binaries/wasm32/lag.wasm', withTable(lagWasm(options), elements)]]);
}

/** Runs `scenario` in a fresh page (it must fail): the message shown; a preset runs after. */
async function pageFailure(scenario, before = async () => {}) {
  const page = await openPage(browser.context);
  await before(page);
  await page.evaluate(() => { document.getElementById('json-details').open = true; });
  await page.fill('#scenario-json', JSON.stringify(scenario, null, 2));
  assert.equal(await runAndWait(page, 60_000), 'error');
  const shown = await page.textContent('#message-text');
  await page.selectOption('#preset', 'binary-c-spring-damper');
  assert.equal(await runAndWait(page), 'done', await page.textContent('#message-text'));
  assert.deepEqual(page.problems, []);
  await page.close();
  return shown;
}

test('memory grown past the budget is refused inside the call: the module never sees it granted', async () => {
  const scenario = lagScenario(dataUrl(lagFmu({ step: GROW_THEN_LOOP })));
  const expected = 'module `lag` at t = 0 s: module trapped: fmi3DoStep was stopped: linear memory of 268500992 bytes '
    + '(all memories of the module) is more than RuntimeLimits::max_memory_bytes = 268435456';
  assert.ok(cliFailure(scenario).includes(expected), 'the CLI says it');
  const t0 = Date.now();
  // Granted, the growth would send the module into its loop until the watchdog's 20 s.
  const shown = await pageFailure(scenario, (page) => page.evaluate(() => { window.cosimWatchdogMs = 20_000; }));
  assert.ok(shown.includes(expected), shown);
  assert.ok(Date.now() - t0 < 20_000, 'refused at once, not stopped by the watchdog');
});

test('a table declared past RuntimeLimits::max_table_elements is refused, with the CLI\'s words', async () => {
  const scenario = lagScenario(dataUrl(tableFmu(2_000_000)));
  const expected = 'a table of 2000000 elements is more than RuntimeLimits::max_table_elements = 1048576';
  const cli = cliFailure(scenario);
  assert.ok(cli.includes(expected), cli);
  const shown = await pageFailure(scenario);
  assert.ok(shown.includes('`lag`') && shown.includes(expected), shown);
});

test('a table grown past RuntimeLimits::max_table_elements in fmi3DoStep fails the run as in the CLI', async () => {
  const scenario = lagScenario(dataUrl(tableFmu(1, { step: growTable(1_048_576) })));
  const expected = 'module `lag` at t = 0 s: module trapped: fmi3DoStep was stopped: a table of 1048577 elements '
    + 'is more than RuntimeLimits::max_table_elements = 1048576';
  const cli = cliFailure(scenario);
  assert.ok(cli.includes(expected), cli);
  const shown = await pageFailure(scenario);
  assert.ok(shown.includes(expected), shown);
});

test('tables count in the budget shared with memory: a growth that would exceed it is refused as in the CLI', async () => {
  // 2^20 elements (16 MiB charged), then 240 MiB more memory: under the module's own
  // 256 MiB cap, over the 256 MiB shared by the worker's modules.
  const grow = [0x41, ...sleb(3840), 0x40, 0x00, 0x1a, ...OK];
  const scenario = lagScenario(dataUrl(tableFmu(1 << 20, { step: grow })));
  const cli = cliFailure(scenario);
  const line = cli.split('\n').find((l) => l.includes('would exceed the memory budget'));
  assert.ok(line?.includes('fmi3DoStep was stopped: growing linear memory to 251723776 bytes'), cli);
  const expected = line.slice(line.indexOf('module `lag`'));
  const shown = await pageFailure(scenario);
  assert.ok(shown.includes(expected), `${shown}\n${expected}`);
});

test('a table grown within the limits runs, as in the CLI', async () => {
  const scenario = lagScenario(dataUrl(tableFmu(1, { step: growTable(1000) })));
  const expected = runCli(JSON.stringify(scenario));
  const page = await openPage(browser.context);
  await page.evaluate(() => { document.getElementById('json-details').open = true; });
  await page.fill('#scenario-json', JSON.stringify(scenario, null, 2));
  assert.equal(await runAndWait(page), 'done', await page.textContent('#message-text'));
  assert.equal(await page.evaluate(() => window.cosimPlayground.lastResult.csv), expected);
  assert.deepEqual(page.problems, []);
  await page.close();
});

test('the simulation worker adopts a module the page compiled for a map: one compilation in all', async () => {
  const page = await openPage(browser.context);
  const scenario = lagScenario(dataUrl(lagFmu()));
  // A module neither the page nor a worker has seen: a map's workers get it compiled by the page.
  const compilations = await page.evaluate(async (text) => {
    const pool = window.cosimAnalysis.pool;
    pool.setSize(2);
    const x = { parameter: 'master.macro_step', from: 0.01, to: 0.1, points: 2, log: true };
    const y = { parameter: 'lag.tau', from: 0.1, to: 1, points: 2, log: true };
    await Promise.allSettled([0, 1].map((r) => pool.request({
      type: 'rows', key: 'e2e-adopt', scenario: text, x, y, metric: 'rho', start: r, end: r + 1,
    })));
    return pool.compilations;
  }, JSON.stringify(scenario));
  assert.deepEqual(compilations, { page: 1, workers: 0 });
  // The simulation worker validates and runs it without compiling it again.
  await page.evaluate(() => { document.getElementById('json-details').open = true; });
  await page.fill('#scenario-json', JSON.stringify(scenario, null, 2));
  assert.equal(await runAndWait(page), 'done', await page.textContent('#message-text'));
  const counts = await page.evaluate(async () => {
    const m = await import('./js/run_client.js');
    return { page: m.pageCompilations.count, simulation: m.simulationCompilations.count };
  });
  assert.deepEqual(counts, { page: 1, simulation: 0 }, 'the page compiled it once; the simulation worker adopted it');
  assert.deepEqual(page.problems, []);
  await page.close();
});
