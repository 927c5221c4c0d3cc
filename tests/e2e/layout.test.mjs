// The page at a desktop (1280x800) and a phone (390x844) width, light and dark:
// screenshots for a person to look at (tests/e2e/out/, gitignored), no horizontal
// scrolling, a label on every control, Run in the top half of a phone screen (the preset
// description starts collapsed there), plot space reserved before the first run (no
// jump when results arrive), scenario text shown as text, and Run reachable by keyboard.

import test from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { launch, openPage, runAndWait, OUT_DIR } from './browser.mjs';

let browser;
test.before(async () => { browser = await launch(); });
test.after(async () => { await browser?.close(); });

for (const [width, height] of [[1280, 800], [390, 844]]) {
  test(`layout at ${width}x${height}: fits the width, labelled controls, screenshots`, async () => {
    const page = await openPage(browser.context, { width, height });
    const runTop = await page.$eval('#run', (b) => b.getBoundingClientRect().top);
    assert.ok(runTop < height / 2, `Run starts at ${runTop}px, below half the screen`);
    assert.equal(await page.$eval('#about', (d) => d.open), width > 640, 'description open on wide screens only');
    const plotsBefore = await page.$eval('#plots', (p) => p.getBoundingClientRect().height);
    const settingsBefore = await page.$eval('#settings-heading', (h) => h.getBoundingClientRect().top);
    await page.screenshot({ path: join(OUT_DIR, `page-${width}x${height}-before-run.png`) });
    assert.equal(await runAndWait(page), 'done');
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    await page.screenshot({ path: join(OUT_DIR, `page-${width}x${height}.png`) });
    await page.screenshot({ path: join(OUT_DIR, `page-${width}x${height}-full.png`), fullPage: true });

    // Reserved space: the plots area grows by at most a little when two charts arrive.
    const plotsAfter = await page.$eval('#plots', (p) => p.getBoundingClientRect().height);
    assert.ok(plotsAfter - plotsBefore < 40, `plots area grew from ${plotsBefore}px to ${plotsAfter}px`);
    if (width > 960) {
      const settingsAfter = await page.$eval('#settings-heading', (h) => h.getBoundingClientRect().top);
      assert.equal(settingsAfter, settingsBefore, 'the settings column does not move');
    }
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 0, `page is ${overflow}px wider than the viewport`);
    const charts = await page.$$eval('.chart', (cs) => cs.map((c) => c.getBoundingClientRect().right));
    assert.ok(charts.length >= 1, 'charts are shown');
    for (const right of charts) assert.ok(right <= width, `chart ends at ${right}px`);

    const unlabelled = await page.evaluate(() => [...document.querySelectorAll('input, select, textarea, progress')]
      .filter((e) => e.labels?.length === 0 && !e.getAttribute('aria-label'))
      .map((e) => e.id || e.outerHTML.slice(0, 80)));
    assert.deepEqual(unlabelled, []);
    assert.deepEqual(page.problems, []);
    await page.close();
  });
}

for (const [width, height] of [[1280, 800], [390, 844]]) {
  test(`dark theme at ${width}x${height}: screenshots with the difference axis`, async () => {
    const page = await openPage(browser.context, { width, height });
    await page.click('#theme');
    await page.click('#theme');
    assert.equal(await page.getAttribute('html', 'data-theme'), 'dark');
    await page.check('#show-difference');
    assert.equal(await runAndWait(page), 'done');
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    await page.screenshot({ path: join(OUT_DIR, `page-dark-${width}x${height}.png`) });
    if (width < 640) {
      await page.click('#about summary');
      await page.screenshot({ path: join(OUT_DIR, `page-dark-${width}x${height}-about-open.png`) });
    }
    await page.click('#copy-link');
    await page.waitForSelector('#share-box:not([hidden])');
    await page.locator('#share-box').scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(OUT_DIR, `page-dark-${width}x${height}-share.png`) });
    await page.click('#theme'); // back to auto for the other tests (the choice is stored)
    assert.deepEqual(page.problems, []);
    await page.close();
  });
}

test('preset picker: grouped by topic; every preset shows its description and what to try next', async () => {
  const page = await openPage(browser.context);
  const groups = await page.$$eval('#preset optgroup', (gs) => gs.map((g) => ({ label: g.label, n: g.querySelectorAll('option').length })));
  assert.ok(groups.length >= 1 && groups.every((g) => g.label && g.n >= 1), JSON.stringify(groups));
  const ids = await page.$$eval('#preset optgroup option', (os) => os.map((o) => o.value));
  for (const id of ids) {
    await page.selectOption('#preset', id);
    const description = await page.textContent('#scenario-description');
    const sentences = description.split(/(?<=[.!?])\s+(?=[A-Z])/).filter(Boolean).length;
    assert.ok(sentences >= 2 && sentences <= 7, `${id}: description has ${sentences} sentences`);
    assert.equal(await page.isVisible('#try-next-box'), true, `${id}: try-next shown`);
    assert.ok((await page.textContent('#try-next')).length > 20, `${id}: try-next text`);
    assert.equal(await page.evaluate(() => window.location.hash), `#preset=${id}`);
  }
  await page.close();
});

test('scenario title and description are shown as text, not HTML', async () => {
  const page = await openPage(browser.context);
  const s = JSON.parse(await page.inputValue('#scenario-json'));
  s.title = '<img src=x onerror="window.__xss=1">Title';
  s.description = '<b>bold?</b>';
  await page.evaluate(() => { document.getElementById('json-details').open = true; });
  await page.fill('#scenario-json', JSON.stringify(s));
  await page.click('#apply-json');
  assert.equal(await page.textContent('#scenario-title'), s.title);
  assert.equal(await page.textContent('#scenario-description'), s.description);
  assert.equal(await page.$$eval('#scenario-title img, #scenario-description b', (x) => x.length), 0);
  assert.equal(await page.evaluate(() => window.__xss), undefined);
  await page.close();
});

test('keyboard: Tab reaches Run from the top of the page and Enter starts a run', async () => {
  const page = await openPage(browser.context);
  await page.evaluate(() => { delete document.body.dataset.runState; document.activeElement?.blur(); });
  let reached = false;
  for (let i = 0; i < 10 && !reached; i++) {
    await page.keyboard.press('Tab');
    reached = await page.evaluate(() => document.activeElement?.id === 'run');
  }
  assert.ok(reached, 'Run is reachable with Tab');
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => document.body.dataset.runState, null, { timeout: 30_000 });
  assert.equal(await page.evaluate(() => document.body.dataset.runState), 'done');

  // Enter in a settings field runs the edited scenario.
  await page.evaluate(() => { delete document.body.dataset.runState; });
  await page.focus('[data-path="run.stop"]');
  await page.keyboard.press('Control+A');
  await page.keyboard.type('0.02');
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => document.body.dataset.runState, null, { timeout: 30_000 });
  assert.equal(await page.evaluate(() => window.cosimPlayground.lastResult.stepsDone), 200);
  await page.close();
});

test('difference view: co-simulation − reference on its own axis, equal to the columns subtracted', async () => {
  const page = await openPage(browser.context);
  assert.equal(await page.isHidden('#scenario-edited'), true, 'a fresh preset is not marked edited');
  await page.fill('[data-path="run.stop"]', '0.02');
  assert.equal(await page.isVisible('#scenario-edited'), true, 'an edit marks the scenario edited');
  assert.equal(await runAndWait(page), 'done');
  await page.check('#show-difference');
  const plotted = await page.evaluate(() => window.cosimPlayground.plotted());
  const withReference = plotted.filter((p) => p.reference);
  assert.ok(withReference.length >= 1, 'the default preset has a reference');
  for (const p of withReference) {
    assert.equal(p.difference.length, p.cosim.length);
    p.difference.forEach((d, i) => assert.equal(d, p.cosim[i] - p.reference[i]));
  }
  assert.ok(await page.locator('.chart').first().getByText('co-sim − reference').count() >= 1, 'legend names the series');
  await page.screenshot({ path: join(OUT_DIR, 'page-difference-1280x800.png') });
  await page.close();
});
