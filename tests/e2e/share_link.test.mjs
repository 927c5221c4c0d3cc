// Sharing by URL: a link made by the CLI opens in the page as the identical scenario, runs,
// and plots what the CLI computes; "Copy link" round-trips every preset; `#preset=ID`
// selects a preset; a damaged link gets a clear message; a scenario too large for a link
// is offered as a file.

import test from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { launch, openPage, runAndWait, waitForRunEnd, OUT_DIR } from './browser.mjs';
import { cosim, runCli, assertPlottedEqualsCsv } from './cli.mjs';

let browser;
test.before(async () => { browser = await launch(); });
test.after(async () => { await browser?.close(); });

test('a link from `cosim link encode` opens the identical scenario and plots what the CLI computes', async () => {
  // An edited scenario (not a preset): second-order extrapolation, shorter run.
  const s = JSON.parse(cosim(['preset', 'two-mass-oscillator']));
  s.title = 'Shared: second-order extrapolation';
  s.master.extrapolation_order = 2;
  s.run.stop = 0.05;
  const text = JSON.stringify(s, null, 2);
  const link = cosim(['link', 'encode', '-'], text).trim();
  assert.match(link, /^s1\.[A-Za-z0-9_-]+$/);

  const page = await openPage(browser.context, null, `#${link}`);
  assert.equal(await waitForRunEnd(page), 'done', await page.textContent('#message-text'));
  const opened = await page.evaluate(() => window.cosimPlayground.scenario);
  assert.deepEqual(opened, JSON.parse(cosim(['link', 'decode', link])), 'the page opened what the CLI decodes');
  assert.deepEqual(opened, s, 'and that is the scenario that was encoded');
  assert.equal(await page.textContent('#scenario-title'), s.title);
  assert.equal(await page.$eval('#preset', (e) => e.value), '', 'the picker shows a custom scenario');
  await page.screenshot({ path: join(OUT_DIR, 'page-link-opened-1280x800.png') });

  const plotted = await page.evaluate(() => window.cosimPlayground.plotted());
  assertPlottedEqualsCsv(plotted, runCli(text), 'shared link');
  assert.equal(await page.evaluate(() => window.cosimPlayground.lastResult.csv), runCli(text));
  assert.deepEqual(page.problems, []);
  await page.close();
});

test('Copy link round-trips every preset: the link opens the same scenario, selected in the picker', async () => {
  const page = await openPage(browser.context);
  const ids = await page.$$eval('#preset option', (os) => os.map((o) => o.value).filter(Boolean));
  assert.ok(ids.length >= 3, `presets: ${ids}`);
  for (const id of ids) {
    await page.selectOption('#preset', id);
    assert.equal(await page.evaluate(() => window.location.hash), `#preset=${id}`, 'the address names the preset');
    const scenario = await page.evaluate(() => window.cosimPlayground.scenario);
    // Wait for this preset's link: the field still holds the previous preset's until the
    // page has encoded the new one (read early, the CLI decoded the wrong scenario).
    const previous = await page.inputValue('#share-link');
    await page.click('#copy-link');
    await page.waitForFunction((before) => {
      const link = document.getElementById('share-link').value;
      return link.includes('#s1.') && link !== before;
    }, previous);
    const url = await page.inputValue('#share-link');
    assert.ok(url.length <= 8000, `${id}: ${url.length} characters`);
    assert.equal(await page.evaluate(() => window.location.href), url, 'the address bar shows the link too');
    // The CLI decodes the page's link to the same scenario.
    assert.deepEqual(JSON.parse(cosim(['link', 'decode', url])), scenario, `${id}: CLI decode`);

    const other = await browser.context.newPage();
    other.problems = [];
    other.on('pageerror', (e) => other.problems.push(e.message));
    await other.goto(url);
    await other.waitForFunction(() => window.cosimPlayground && document.body.dataset.runState, null, { timeout: 60_000 });
    await waitForRunEnd(other);
    const outcome = await other.evaluate(() => document.body.dataset.runState);
    if (outcome !== 'done') {
      // Then running the preset where the link was made ends the same way, with the same
      // message (e.g. a module file this server does not have).
      assert.equal(await runAndWait(page), outcome, `${id}: ${await other.textContent('#message-text')}`);
      assert.equal(await other.textContent('#message-text'), await page.textContent('#message-text'), id);
    }
    assert.deepEqual(await other.evaluate(() => window.cosimPlayground.scenario), scenario, `${id}: same scenario`);
    assert.equal(await other.$eval('#preset', (e) => e.value), id, `${id}: recognised as the preset`);
    assert.equal(await other.isVisible('#try-next-box'), true, `${id}: try-next shown`);
    assert.deepEqual(other.problems, []);
    await other.close();
  }
  await page.close();
});

test('#preset=ID opens and runs that preset; an unknown id falls back to the default with a message', async () => {
  const first = await openPage(browser.context);
  const ids = await first.$$eval('#preset option', (os) => os.map((o) => o.value).filter(Boolean));
  await first.close();
  const page = await openPage(browser.context, null, `#preset=${ids[1]}`);
  assert.equal(await waitForRunEnd(page), 'done');
  assert.equal(await page.$eval('#preset', (e) => e.value), ids[1]);
  assert.equal(await page.isHidden('#scenario-edited'), true);
  await page.close();

  const missing = await openPage(browser.context, null, '#preset=no-such-preset');
  assert.match(await missing.textContent('#message-text'), /no-such-preset/);
  assert.equal(await missing.$eval('#preset', (e) => e.value), ids[0]);
  await missing.close();
});

test('a damaged link shows what is wrong and leaves the default preset ready to run', async () => {
  const link = cosim(['link', 'encode', '-'], cosim(['preset', 'two-mass-oscillator'])).trim();
  for (const [bad, expect] of [
    [link.slice(0, link.length - 10), /truncated/],
    [`${link.slice(0, 20)}*${link.slice(21)}`, /character 18 \(`\*`\)/],
    [link.replace('s1.', 's9.'), /`s9` is not supported/],
  ]) {
    const page = await openPage(browser.context, { width: 390, height: 844 }, `#${bad}`);
    assert.equal(await page.isVisible('#message'), true);
    if (expect.source.includes('truncated')) await page.screenshot({ path: join(OUT_DIR, 'page-bad-link-390x844.png') });
    assert.match(await page.textContent('#message-text'), /^This link cannot be opened: /);
    assert.match(await page.textContent('#message-text'), expect);
    assert.equal(await page.isEnabled('#run'), true);
    assert.ok((await page.evaluate(() => window.cosimPlayground.scenario)).modules.length >= 2);
    await page.close();
  }
});

test('a scenario too large for a link is offered as a .json download instead', async () => {
  const page = await openPage(browser.context);
  const s = await page.evaluate(() => window.cosimPlayground.scenario);
  // Text that does not compress: 12,000 pseudo-random letters.
  let x = 12345;
  s.description = Array.from({ length: 12000 }, () => { x = (x * 1103515245 + 12345) % 2 ** 31; return 'abcdefghijklmnopqrstuvwxyz '[x % 27]; }).join('');
  await page.evaluate(() => { document.getElementById('json-details').open = true; });
  await page.fill('#scenario-json', JSON.stringify(s));
  await page.click('#apply-json');
  await page.click('#copy-link');
  await page.waitForSelector('#share-download:not([hidden])');
  assert.match(await page.textContent('#share-note'), /longer than links reliably survive/);
  assert.equal(await page.isHidden('#share-field'), true);
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('#share-download')]);
  assert.match(download.suggestedFilename(), /\.json$/);
  const saved = JSON.parse(await (await import('node:fs/promises')).readFile(await download.path(), 'utf8'));
  assert.deepEqual(saved, s);
  await page.close();
});
