// Files in and out: a scenario opened with the file picker or dropped on the page goes
// through the core's validation (errors name the field, the text stays in the JSON view);
// Save JSON writes the editor's scenario; each chart downloads as PNG and as SVG.

import test from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { launch, openPage, runAndWait } from './browser.mjs';

let browser;
test.before(async () => { browser = await launch(); });
test.after(async () => { await browser?.close(); });

const file = (name, text) => ({ name, mimeType: 'application/json', buffer: Buffer.from(text) });

test('Open JSON… loads a valid scenario into the form; Save JSON writes it back unchanged', async () => {
  const page = await openPage(browser.context);
  const s = await page.evaluate(() => window.cosimPlayground.scenario);
  s.title = 'From a file';
  s.master.macro_step = 2e-4;
  await page.setInputFiles('#file-input', file('mine.json', JSON.stringify(s, null, 2)));
  await page.waitForFunction(() => document.getElementById('scenario-title').textContent === 'From a file');
  assert.equal(await page.inputValue('[data-path="master.macro_step"]'), '2e-4');
  assert.match(await page.textContent('#status'), /Opened mine\.json/);
  assert.equal(await runAndWait(page), 'done');
  assert.equal(await page.evaluate(() => window.cosimPlayground.lastResult.stepsDone), 500);

  const [download] = await Promise.all([page.waitForEvent('download'), page.click('#save-file')]);
  assert.deepEqual(JSON.parse(await readFile(await download.path(), 'utf8')), s);
  await page.close();
});

test('an invalid file: the message names the field and the JSON view keeps the text', async () => {
  const page = await openPage(browser.context);
  const s = await page.evaluate(() => window.cosimPlayground.scenario);
  s.master.macro_step = 0;
  const text = JSON.stringify(s, null, 2);
  await page.setInputFiles('#file-input', file('bad.json', text));
  await page.waitForFunction(() => /^master\.macro_step: /.test(document.getElementById('message-text').textContent));
  assert.equal(await page.inputValue('#scenario-json'), text);
  assert.equal(await page.getAttribute('[data-path="master.macro_step"]', 'aria-invalid'), 'true');

  const broken = '{\n  "schema_version": 1,\n  "modules": [\n';
  await page.setInputFiles('#file-input', file('broken.json', broken));
  await page.waitForFunction(() => /line 3|line 4/.test(document.getElementById('message-text').textContent));
  assert.match(await page.textContent('#message-text'), /^Scenario JSON: malformed JSON/);
  assert.equal(await page.inputValue('#scenario-json'), broken);
  assert.equal(await page.evaluate(() => document.getElementById('json-details').open), true);
  await page.close();
});

test('a scenario file dropped on the page opens like one picked', async () => {
  const page = await openPage(browser.context);
  const s = await page.evaluate(() => window.cosimPlayground.scenario);
  s.title = 'Dropped';
  const dt = await page.evaluateHandle((text) => {
    const d = new DataTransfer();
    d.items.add(new File([text], 'dropped.json', { type: 'application/json' }));
    return d;
  }, JSON.stringify(s));
  await page.dispatchEvent('main', 'dragenter', { dataTransfer: dt });
  assert.equal(await page.isVisible('#drop-overlay'), true, 'the drop target is shown while dragging');
  await page.dispatchEvent('main', 'drop', { dataTransfer: dt });
  await page.waitForFunction(() => document.getElementById('scenario-title').textContent === 'Dropped');
  assert.equal(await page.isHidden('#drop-overlay'), true);
  assert.deepEqual(await page.evaluate(() => window.cosimPlayground.scenario), s);
  await page.close();
});

test('each chart downloads as PNG (uPlot canvas) and as SVG (axes, series, legend from the data)', async () => {
  const page = await openPage(browser.context);
  assert.equal(await runAndWait(page), 'done');
  const first = page.locator('.chart').first();
  const name = await first.getAttribute('data-signal');

  const [png] = await Promise.all([page.waitForEvent('download'), first.locator('button[data-export="png"]').click()]);
  assert.equal(png.suggestedFilename(), `${name}.png`);
  const bytes = await readFile(await png.path());
  assert.deepEqual([...bytes.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], 'PNG signature');
  assert.ok(bytes.length > 5000, `PNG has content (${bytes.length} bytes)`);

  const [svg] = await Promise.all([page.waitForEvent('download'), first.locator('button[data-export="svg"]').click()]);
  assert.equal(svg.suggestedFilename(), `${name}.svg`);
  const text = await readFile(await svg.path(), 'utf8');
  assert.match(text, /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
  assert.equal((text.match(/<polyline /g) ?? []).length, 2, 'co-simulation and reference');
  for (const label of ['t (s)', 'co-simulation', 'reference', name]) assert.ok(text.includes(`>${label}`) || text.includes(label), label);
  // The SVG parses as XML and its first polyline has one point per row (short series are not thinned).
  const rows = await page.evaluate(() => window.cosimPlayground.lastResult.time.length);
  const points = await page.evaluate((t) => {
    const doc = new DOMParser().parseFromString(t, 'image/svg+xml');
    if (doc.querySelector('parsererror')) return -1;
    return doc.querySelector('polyline').getAttribute('points').trim().split(/\s+/).length;
  }, text);
  assert.equal(points, rows);
  assert.deepEqual(page.problems, []);
  await page.close();
});
