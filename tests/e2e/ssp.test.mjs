// SSP systems in the page: an .ssp written by `cosim ssp export` (the two example FMUs,
// connected, with parameters) opens with the file picker, runs, and gives the CSV of
// `cosim run` on the same file; an .ssp with a nested system, dropped on the page, is
// refused with a message that names the element.

import test from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { launch, openPage, runAndWait } from './browser.mjs';
import { cosim } from './cli.mjs';
import { zipStored } from './fmu_fixtures.mjs';

const FIXTURES = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'fmus');

let browser;
test.before(async () => { browser = await launch(); });
test.after(async () => { await browser?.close(); });

/** An .ssp of the two example FMUs, exported by the CLI; returns its path. */
function exportedSsp() {
  const dir = mkdtempSync(join(tmpdir(), 'cosim-ssp-'));
  mkdirSync(join(dir, 'fmus'));
  for (const f of ['rust_oscillator.fmu', 'c_spring_damper.fmu']) copyFileSync(join(FIXTURES, f), join(dir, 'fmus', f));
  const s = JSON.parse(cosim(['preset', 'binary-c-spring-damper']));
  s.title = 'Two FMUs from SSP';
  s.modules[0] = { name: 'mass1', model: 'Binary', source: 'fmus/rust_oscillator.fmu', parameters: { d1: 1.5 } };
  s.modules[1].parameters = { ck: 1e5 };
  s.run.stop = 0.01;
  writeFileSync(join(dir, 's.json'), JSON.stringify(s));
  cosim(['ssp', 'export', join(dir, 's.json'), '--out', join(dir, 'two.ssp')]);
  return join(dir, 'two.ssp');
}

test('an .ssp picked with Open… runs and gives the CLI CSV of the same file', async () => {
  const ssp = exportedSsp();
  const page = await openPage(browser.context);
  await page.setInputFiles('#file-input', { name: 'two.ssp', mimeType: 'application/octet-stream', buffer: readFileSync(ssp) });
  await page.waitForFunction(() => document.getElementById('scenario-title').textContent === 'Two FMUs from SSP');
  assert.match(await page.textContent('#status'), /Opened the SSP system two\.ssp/);
  assert.equal(await runAndWait(page), 'done');
  const csv = await page.evaluate(() => window.cosimPlayground.lastResult.csv);
  assert.equal(csv, cosim(['run', ssp]));
  await page.close();
});

test('a dropped .ssp with a nested system is refused, naming the element', async () => {
  const ssd = `<?xml version="1.0"?>
<ssd:SystemStructureDescription version="1.0" name="nested" xmlns:ssd="http://ssp-standard.org/SSP1/SystemStructureDescription">
  <ssd:System name="root"><ssd:Elements><ssd:System name="inner"/></ssd:Elements></ssd:System>
</ssd:SystemStructureDescription>`;
  const bytes = zipStored([['SystemStructure.ssd', ssd]]);
  const page = await openPage(browser.context);
  const title = await page.textContent('#scenario-title');
  const dt = await page.evaluateHandle((b64) => {
    const d = new DataTransfer();
    d.items.add(new File([Uint8Array.from(atob(b64), (c) => c.charCodeAt(0))], 'nested.ssp'));
    return d;
  }, Buffer.from(bytes).toString('base64'));
  await page.dispatchEvent('main', 'drop', { dataTransfer: dt });
  await page.waitForFunction(() => /nested\.ssp/.test(document.getElementById('message-text').textContent));
  const msg = await page.textContent('#message-text');
  assert.match(msg, /ssd:System\[@name='inner'\]/);
  assert.match(msg, /nested systems/);
  assert.equal(await page.textContent('#scenario-title'), title);
  await page.close();
});
