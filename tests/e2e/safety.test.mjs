// Scenario text is data, never markup: an <img onerror> payload in the title, the
// description and a module name, arriving by the JSON view, a file or a shared link, is
// shown as text and its handler never runs. A binary module's archive named by URL is
// fetched only after the person confirms in a dialog.

import test from 'node:test';
import assert from 'node:assert/strict';
import { launch, openPage, runAndWait, waitForRunEnd } from './browser.mjs';

let browser;
test.before(async () => { browser = await launch(); });
test.after(async () => { await browser?.close(); });

const PAYLOAD = '<img src=x onerror="window.__xss=(window.__xss||0)+1">';

/** The default preset with the payload in every free-text field a scenario has. */
async function poisoned(page) {
  const s = await page.evaluate(() => window.cosimPlayground.scenario);
  s.title = `${PAYLOAD}Title`;
  s.description = `${PAYLOAD}<script>window.__xss=99</script>`;
  s.modules[0].name = `m${PAYLOAD}`;
  return s;
}

async function assertInert(page, s) {
  assert.equal(await page.textContent('#scenario-title'), s.title);
  assert.equal(await page.textContent('#scenario-description'), s.description);
  // The module's legend shows the name as typed, and the name is refused by validation,
  // with the message (which quotes it) shown as text too.
  assert.ok((await page.textContent('#module-fields legend')).includes(s.modules[0].name));
  assert.equal(await page.$$eval('main img, main script, #message img', (x) => x.length), 0, 'no element was created from scenario text');
  await page.waitForTimeout(200);
  assert.equal(await page.evaluate(() => window.__xss), undefined, 'no handler ran');
}

test('payloads in title, description and module name stay text (JSON view, run, error message)', async () => {
  const page = await openPage(browser.context);
  const s = await poisoned(page);
  await page.evaluate(() => { document.getElementById('json-details').open = true; });
  await page.fill('#scenario-json', JSON.stringify(s));
  await page.click('#apply-json');
  assert.equal(await runAndWait(page), 'error');
  assert.ok((await page.textContent('#message-text')).includes('modules[0].name'), await page.textContent('#message-text'));
  await assertInert(page, s);
  await page.close();
});

test('the same payloads arriving by a shared link and by a file stay text', async () => {
  const page = await openPage(browser.context);
  const s = await poisoned(page);
  await page.evaluate(() => { document.getElementById('json-details').open = true; });
  await page.fill('#scenario-json', JSON.stringify(s));
  await page.click('#apply-json');
  await page.click('#copy-link');
  await page.waitForFunction(() => document.getElementById('share-link').value.includes('#s1.'));
  const url = await page.inputValue('#share-link');
  await page.close();

  const opened = await openPage(browser.context, null, url.slice(url.indexOf('#')));
  await waitForRunEnd(opened);
  await assertInert(opened, s);

  await opened.setInputFiles('#file-input', { name: `${PAYLOAD}.json`, mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(s)) });
  await opened.waitForFunction(() => /Opened/.test(document.getElementById('status').textContent));
  assert.ok((await opened.textContent('#status')).includes(PAYLOAD), 'the file name is shown as text');
  await assertInert(opened, s);
  await opened.close();
});

test('a binary module whose archive is on another site: fetched only after the person confirms', async () => {
  const page = await openPage(browser.context);
  const requested = [];
  let status = 404;
  await page.route('**/remote/**', (route) => {
    requested.push(route.request().url());
    route.fulfill({ status, contentType: 'application/zip', headers: { 'access-control-allow-origin': '*' }, body: Buffer.from('PK not really an archive') });
  });
  const s = await page.evaluate(() => window.cosimPlayground.scenario);
  // Another origin than the page's (files on the page's own origin load without asking).
  const url = `http://other.example/remote/model.fmu?${encodeURIComponent(PAYLOAD)}`;
  s.modules[1].model = 'Binary';
  s.modules[1].source = url;
  await page.evaluate(() => { document.getElementById('json-details').open = true; });
  await page.fill('#scenario-json', JSON.stringify(s));

  // Declined: the dialog lists the address as text; no request, no run.
  await page.click('#run');
  await page.waitForSelector('#external-dialog[open]');
  assert.deepEqual(await page.$$eval('#external-list li', (li) => li.map((x) => x.textContent)), [url]);
  assert.equal(await page.$$eval('#external-dialog img', (x) => x.length), 0);
  await page.click('#external-dialog button[value="cancel"]');
  await page.waitForFunction(() => document.body.dataset.runState === 'declined');
  assert.match(await page.textContent('#status'), /declined/);
  assert.equal(await page.evaluate(() => window.cosimPlayground.busy), false);
  assert.deepEqual(requested, []);

  // Confirmed: fetched once; a failed fetch names the field.
  await page.click('#run');
  await page.waitForSelector('#external-dialog[open]');
  await page.click('#external-dialog button[value="load"]');
  await page.waitForFunction(() => document.body.dataset.runState === 'error', null, { timeout: 60_000 });
  assert.deepEqual(requested, [url]);
  assert.match(await page.textContent('#message-text'), /^modules\[1\]\.source: could not fetch .*HTTP 404/);

  // Once confirmed, the same address is not asked about again in this page; the archive
  // reaches the core inside the scenario (which judges it; this one is not a real .fmu).
  status = 200;
  await page.click('#run');
  await page.waitForFunction(() => ['done', 'error'].includes(document.body.dataset.runState) && !window.cosimPlayground.busy, null, { timeout: 60_000 });
  assert.equal(await page.isVisible('#external-dialog'), false);
  assert.equal(requested.length, 2);
  assert.doesNotMatch(await page.textContent('#message-text'), /could not fetch/);
  assert.equal(await page.evaluate(() => window.__xss), undefined);

  // A shared link to such a scenario asks before fetching, too.
  await page.click('#copy-link');
  await page.waitForFunction(() => document.getElementById('share-link').value.includes('#s1.'));
  const link = await page.inputValue('#share-link');
  const other = await browser.context.newPage();
  const otherRequests = [];
  await other.route('**/remote/**', (route) => { otherRequests.push(route.request().url()); route.fulfill({ status: 404, body: '' }); });
  await other.goto(link);
  await other.waitForSelector('#external-dialog[open]', { timeout: 30_000 });
  await other.click('#external-dialog button[value="cancel"]');
  await other.waitForFunction(() => document.body.dataset.runState === 'declined');
  assert.deepEqual(otherRequests, []);
  await other.close();
  await page.close();
});
