// Hostile input in the page (issue 16): a scenario beyond the page's budget and a link
// whose scenario the strict parser refuses each show the core's own message, and the page
// stays usable: the typed text stays, Run is enabled and a preset still runs.

import test from 'node:test';
import assert from 'node:assert/strict';
import { deflateRawSync, crc32 } from 'node:zlib';
import { launch, openPage, runAndWait } from './browser.mjs';
import { cosim } from './cli.mjs';

let browser;
test.before(async () => { browser = await launch(); });
test.after(async () => { await browser?.close(); });

/** A link made by hand (as another tool could), carrying `json` exactly as written. */
function handMadeLink(json) {
  const bytes = Buffer.from(json, 'utf8');
  const crc = Buffer.alloc(4);
  crc.writeUInt32LE(crc32(bytes) >>> 0);
  return `s1.${Buffer.concat([deflateRawSync(bytes, { level: 9 }), crc]).toString('base64url')}`;
}

/** After a refusal: Run is enabled and the default preset runs to the end. */
async function stillUsable(page) {
  assert.equal(await page.isEnabled('#run'), true);
  await page.selectOption('#preset', 'two-mass-oscillator');
  assert.equal(await runAndWait(page), 'done');
  assert.deepEqual(page.problems, []);
}

test('a scenario beyond the page budget: the core names the field, estimate and limit', async () => {
  const page = await openPage(browser.context);
  const s = JSON.parse(cosim(['preset', 'two-mass-oscillator']));
  s.master.start_up = 'ramp_up';
  // 10^9 RK4 micro-steps per macro-step: refused before a single one is taken.
  s.modules[0].solver = { method: 'rk4', step: 1e-13 };
  const text = JSON.stringify(s, null, 2);
  await page.evaluate(() => { document.getElementById('json-details').open = true; });
  await page.fill('#scenario-json', text);
  assert.equal(await runAndWait(page), 'error');
  const m = await page.textContent('#message-text');
  assert.match(m, /modules\[0\]\.solver\.step: module `mass1`: RK4 micro-steps/);
  assert.match(m, /1\.00e12 micro-steps; the limit is 200000000/);
  assert.equal(await page.inputValue('#scenario-json'), text, 'the typed text stays');
  await stillUsable(page);
  await page.close();
});

test('a link the strict parser refuses: the message names the field, the page still runs', async () => {
  const s = JSON.parse(cosim(['preset', 'two-mass-oscillator']));
  s.modules[0].solver = { method: 'default', rtol: 1 };
  const page = await openPage(browser.context, null, `#${handMadeLink(JSON.stringify(s))}`);
  assert.equal(await page.isVisible('#message'), true);
  const m = await page.textContent('#message-text');
  assert.match(m, /^This link cannot be opened: /);
  assert.match(m, /modules\[0\]\.solver: unknown field `rtol`/);
  // The CLI refuses the same link with the same words.
  assert.throws(() => cosim(['link', 'decode', handMadeLink(JSON.stringify(s))]), /unknown field `rtol`/);
  await stillUsable(page);
  await page.close();
});
