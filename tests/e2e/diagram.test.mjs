// System diagram (issue 12, item 1): blocks and arrows from the scenario; a connection
// dragged with the mouse from mass1.s1 to an input lands in the scenario JSON; Delete
// removes it and Undo brings it back; a unit mismatch shows the core's message (as
// `cosim validate` prints it) on the arrow; an equation module added from the palette,
// connected by keyboard, runs; moved blocks keep their place through a shared link;
// clicking a block opens its fields.

import test from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { launch, openPage, runAndWait, waitForRunEnd, OUT_DIR } from './browser.mjs';
import { cliPath } from './cli.mjs';

const json = (page) => page.evaluate(() => JSON.parse(document.getElementById('scenario-json').value));
const has = (s, from, to) => s.connections.some((c) => c.from === from && c.to === to);
const port = (side, path) => `#diagram [data-side="${side}"][data-port="${path}"]`;

async function center(page, selector) {
  // The diagram redraws shortly after each edit: let it settle, then measure.
  for (let tries = 0; ; tries++) {
    await page.waitForTimeout(200);
    const box = await page.locator(selector).boundingBox().catch(() => null);
    if (box) return { x: box.x + box.width / 2, y: box.y + box.height / 2 };
    assert.ok(tries < 20, `${selector} is not shown`);
  }
}

/** Drags with the mouse from the output port `from` to the input port `to`. */
async function dragWire(page, from, to) {
  const a = await center(page, port('out', from));
  const b = await center(page, port('in', to));
  await page.mouse.move(a.x, a.y);
  await page.mouse.down();
  await page.mouse.move((a.x + b.x) / 2, (a.y + b.y) / 2 + 20, { steps: 4 });
  await page.mouse.move(b.x, b.y, { steps: 4 });
  await page.mouse.up();
}

/** Focuses a diagram element by its key and presses `key`. */
async function press(page, dataKey, key) {
  await page.focus(`#diagram [data-key="${dataKey}"]`);
  await page.keyboard.press(key);
}

test('diagram: drag to connect, delete and undo, unit mismatch on the arrow, equation module, layout in links', async () => {
  const browser = await launch();
  try {
    const page = await openPage(browser.context, null, '#preset=two-mass-oscillator');
    await waitForRunEnd(page);
    await page.waitForSelector('#diagram .block[data-module="mass2"]');
    assert.deepEqual(await page.$$eval('#diagram .block', (bs) => bs.map((b) => b.dataset.module)), ['mass1', 'mass2']);
    assert.deepEqual(await page.$$eval('#diagram .wire-label', (ls) => ls.map((l) => l.textContent)), ['Fk', 's1', 'v1']);
    assert.match(await page.$eval(port('out', 'mass1.s1'), (e) => e.querySelector('title').textContent), /mass1\.s1 \(m\)/);
    await (await page.$('#diagram')).screenshot({ path: join(OUT_DIR, 'diagram-1280.png') });

    // Free the input, then connect it again by dragging from mass1.s1.
    await press(page, 'wire:mass1.s1>mass2.s1', 'Delete');
    await page.waitForFunction(() => /mass2\.s1/.test(document.getElementById('message-text').textContent));
    assert.equal(has(await json(page), 'mass1.s1', 'mass2.s1'), false);
    await dragWire(page, 'mass1.s1', 'mass2.s1');
    await page.waitForFunction(() => JSON.parse(document.getElementById('scenario-json').value).connections.some((c) => c.from === 'mass1.s1' && c.to === 'mass2.s1'));
    await page.waitForFunction(() => document.getElementById('message').hidden);

    // Delete it (select by clicking the arrow, then the toolbar) and undo.
    await press(page, 'wire:mass1.s1>mass2.s1', 'Delete');
    await page.waitForFunction(() => !document.querySelector('#diagram [data-key="wire:mass1.s1>mass2.s1"]'));
    assert.equal(has(await json(page), 'mass1.s1', 'mass2.s1'), false);
    await page.click('#undo');
    await page.waitForSelector('#diagram [data-key="wire:mass1.s1>mass2.s1"]', { state: 'attached' });
    assert.equal(has(await json(page), 'mass1.s1', 'mass2.s1'), true);
    await page.click('#redo');
    assert.equal(has(await json(page), 'mass1.s1', 'mass2.s1'), false);
    await page.click('#undo');

    // A velocity into a position input: the core's unit message, on that arrow.
    await dragWire(page, 'mass1.v1', 'mass2.s1');
    await page.waitForSelector('#diagram .wire-group.wire-invalid .wire-error');
    const onArrow = await page.textContent('#diagram .wire-group.wire-invalid .wire-error');
    const cli = spawnSync(cliPath(), ['validate', '-'], { input: JSON.stringify(await json(page)), encoding: 'utf8' });
    const cliMessage = cli.stderr.trim().replace(/^error: -: /, '');
    assert.match(cliMessage, /^connections\[\d\]\.to: unit mismatch: `mass1\.v1` is in `m\/s` but `mass2\.s1` expects `m`$/);
    assert.equal(onArrow, cliMessage.replace(/^connections\[\d\]\.to: /, ''));
    await (await page.$('#diagram')).screenshot({ path: join(OUT_DIR, 'diagram-mismatch-1280.png') });
    await page.keyboard.press('Control+z');
    await page.waitForFunction(() => !document.querySelector('#diagram .wire-group.wire-invalid'));
    assert.equal(has(await json(page), 'mass1.s1', 'mass2.s1'), true);

    // An equation module from the palette, connected by keyboard, runs.
    await page.selectOption('#palette-model', 'Equations');
    await page.click('#palette-add');
    await page.waitForSelector(port('in', 'eq.u'));
    await press(page, 'out:mass1.s1', 'Enter');
    await press(page, 'in:eq.u', 'Enter');
    await page.waitForFunction(() => JSON.parse(document.getElementById('scenario-json').value).connections.some((c) => c.to === 'eq.u'));
    assert.equal(await runAndWait(page), 'done', await page.textContent('#message-text'));
    assert.ok((await page.evaluate(() => window.cosimPlayground.lastResult.signals.map((s) => s.name))).includes('eq.y'));

    // Moving blocks: by keyboard and by mouse; the places are in the scenario and in links.
    await press(page, 'block:eq', 'ArrowDown');
    const m2 = await center(page, '#diagram [data-key="block:mass2"]');
    await page.mouse.move(m2.x, m2.y - 10);
    await page.mouse.down();
    await page.mouse.move(m2.x + 30, m2.y + 50, { steps: 5 });
    await page.mouse.up();
    const layout = (await json(page)).layout;
    assert.ok(Array.isArray(layout.eq) && Array.isArray(layout.mass2), JSON.stringify(layout));
    const transforms = () => page.$$eval('#diagram .block', (bs) => Object.fromEntries(bs.map((b) => [b.dataset.module, b.getAttribute('transform')])));
    const placed = await transforms();
    await page.click('#copy-link');
    await page.waitForFunction(() => document.getElementById('share-link').value.includes('#s1.'));
    const link = await page.inputValue('#share-link');
    const other = await openPage(browser.context, null, link.slice(link.indexOf('#')));
    await waitForRunEnd(other);
    await other.waitForSelector('#diagram .block[data-module="eq"]');
    assert.deepEqual((await json(other)).layout, layout);
    await other.waitForFunction((want) => [...document.querySelectorAll('#diagram .block')].every((b) => b.getAttribute('transform') === want[b.dataset.module]), placed);
    assert.deepEqual(other.problems, []);
    await other.close();

    // Delete a block (with its connections) and undo.
    await press(page, 'block:eq', 'Delete');
    await page.waitForFunction(() => !document.querySelector('#diagram .block[data-module="eq"]'));
    const without = await json(page);
    assert.ok(!without.modules.some((m) => m.name === 'eq') && !without.connections.some((c) => c.to === 'eq.u'));
    await page.click('#undo');
    await page.waitForSelector('#diagram .block[data-module="eq"]');

    // Clicking a block opens its fields in the form.
    await page.click('#diagram [data-key="block:mass2"]', { position: { x: 80, y: 12 } });
    assert.equal(await page.evaluate(() => document.activeElement.dataset.path), 'modules[1]');
    assert.deepEqual(page.problems, []);
  } finally {
    await browser.close();
  }
});

test('diagram: a binary module from the page\'s own site shows its ports (archive fetched once)', async () => {
  const browser = await launch();
  try {
    const page = await openPage(browser.context, null, '#preset=binary-rust-oscillator');
    await waitForRunEnd(page);
    await page.waitForFunction(() => document.querySelectorAll('#diagram .block .port-dot').length >= 6);
    const blocks = await page.$$eval('#diagram .block', (bs) => bs.map((b) => ({ name: b.dataset.module, broken: b.classList.contains('broken') })));
    assert.ok(blocks.every((b) => !b.broken), JSON.stringify(blocks));
    const scenario = await page.evaluate(() => window.cosimPlayground.scenario);
    const binary = scenario.modules.find((m) => m.model === 'Binary');
    assert.ok(binary && !binary.source.startsWith('data:'), 'the scenario keeps the short address');
    assert.deepEqual(page.problems, []);
  } finally {
    await browser.close();
  }
});
