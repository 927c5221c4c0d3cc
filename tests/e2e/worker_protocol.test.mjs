// The worker protocol without a browser: www/js/worker.js runs in Node through the
// `web-worker` package (the browser's Worker API on worker_threads) with the built wasm
// package, and must answer run / cancel / errors as the page expects.

import test from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import Worker from 'web-worker';

const WORKER_URL = new URL('../../www/js/worker.js', import.meta.url);
const PKG = new URL('../../www/pkg/cosim_wasm_bg.wasm', import.meta.url);

/** A worker plus a queue of its messages, awaited one type at a time. */
function start() {
  assert.ok(existsSync(PKG), `${PKG.pathname} is missing: build the page first (cargo xtask wasm)`);
  const worker = new Worker(WORKER_URL, { type: 'module' });
  const inbox = [];
  let wake = null;
  worker.addEventListener('message', (e) => { inbox.push(e.data); if (wake) { wake(); wake = null; } });
  worker.addEventListener('error', (e) => { inbox.push({ type: 'error', message: String(e.message ?? e), fatal: true }); if (wake) wake(); });
  async function next(types, timeoutMs = 60_000) {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const i = inbox.findIndex((m) => types.includes(m.type));
      if (i >= 0) return inbox.splice(i, 1)[0];
      if (Date.now() > deadline) throw new Error(`no ${types.join('/')} message within ${timeoutMs} ms`);
      await new Promise((r) => { wake = r; setTimeout(r, 200); });
    }
  }
  return { worker, next, inbox };
}

test('worker loads the wasm core, runs the default preset in chunks and returns columns', async () => {
  const { worker, next } = start();
  try {
    const ready = await next(['ready', 'error']);
    assert.equal(ready.type, 'ready', ready.message);
    assert.ok(ready.presets.length >= 1);
    assert.ok(ready.catalog.some((m) => m.id === 'TwoMassOscillator.Mass1'));
    const preset = ready.presets[0];
    worker.postMessage({ type: 'run', id: 1, scenario: preset.scenario });
    const started = await next(['started', 'error']);
    assert.equal(started.type, 'started', started.message);
    const nSignals = started.signals.length;
    const nRef = started.signals.filter((s) => s.hasReference).length;
    let rows = 0;
    let msg;
    while ((msg = await next(['progress', 'result', 'error'])).type === 'progress') {
      assert.equal(msg.columns.length, 1 + nSignals + nRef);
      assert.ok(msg.columns.every((c) => c instanceof Float64Array && c.length === msg.columns[0].length));
      rows += msg.columns[0].length;
    }
    assert.equal(msg.type, 'result', msg.message);
    assert.equal(msg.stepsDone, started.totalSteps);
    assert.equal(rows, started.totalSteps + 1, 'progress chunks cover every row exactly once');
    assert.equal(msg.columns[0].length, started.totalSteps + 1);
    assert.match(msg.csv, /^time,/);
    assert.deepEqual(msg.stats, { accepted: started.totalSteps, events: 0, rejected: 0, modulesRestored: 0 });
  } finally {
    worker.terminate();
  }
});

test('worker reports scenario errors with the field path and stops a run on cancel', async () => {
  const { worker, next } = start();
  try {
    const ready = await next(['ready', 'error']);
    assert.equal(ready.type, 'ready', ready.message);
    const scenario = JSON.parse(ready.presets[0].scenario);
    scenario.master.macro_step = -1;
    worker.postMessage({ type: 'run', id: 7, scenario: JSON.stringify(scenario) });
    const err = await next(['error', 'result']);
    assert.equal(err.type, 'error');
    assert.equal(err.id, 7);
    assert.match(err.message, /^master\.macro_step: /);
    assert.equal(err.kind, 'scenario');
    assert.equal(err.fatal, false);
    assert.equal(err.run, null, 'a refused scenario never started');

    worker.postMessage({ type: 'run', id: 8, scenario: '{"schema_version": 1,' });
    const bad = await next(['error', 'result']);
    assert.match(bad.message, /malformed JSON.*line 1/);
    assert.equal(bad.kind, 'scenario');

    // A long run (two million macro-steps, the most a run may take: seconds of work even on
    // a fast machine) is stopped between chunks.
    scenario.master.macro_step = 1e-6;
    scenario.run.stop = 2;
    worker.postMessage({ type: 'run', id: 9, scenario: JSON.stringify(scenario) });
    const progress = await next(['progress', 'error']);
    assert.equal(progress.type, 'progress', progress.message);
    worker.postMessage({ type: 'cancel', id: 9 });
    const end = await next(['cancelled', 'result', 'error']);
    assert.equal(end.type, 'cancelled');
    assert.equal(end.id, 9);
  } finally {
    worker.terminate();
  }
});

test('a run that fails midway is a runtime error after the rows up to the failure', async () => {
  const { worker, next } = start();
  try {
    const ready = await next(['ready', 'error']);
    assert.equal(ready.type, 'ready', ready.message);
    const preset = ready.presets.find((p) => p.id === 'nonlinear-zoh');
    const scenario = JSON.parse(preset.scenario);
    scenario.run.stop = 10; // overflows at t = 6.263 s (see errors.test.mjs)
    worker.postMessage({ type: 'run', id: 3, scenario: JSON.stringify(scenario) });
    const started = await next(['started', 'error']);
    assert.equal(started.type, 'started', started.message);
    let time = [];
    let msg;
    while ((msg = await next(['progress', 'result', 'error'])).type === 'progress') {
      time = time.concat(Array.from(msg.columns[0]));
    }
    assert.equal(msg.type, 'error');
    assert.equal(msg.id, 3);
    assert.equal(msg.kind, 'runtime');
    assert.equal(msg.fatal, false);
    assert.match(msg.message, /^module `mass2` at t = 6\.263 s: /);
    const { run } = msg;
    assert.equal(run.totalSteps, started.totalSteps);
    assert.equal(run.stepsDone, 6263);
    assert.equal(time.length, run.stepsDone + 1, 'every row up to the failure was sent');
    assert.equal(run.time, time.at(-1));
    assert.deepEqual(run.stats, { accepted: 6263, events: 0, rejected: 0, modulesRestored: 0 });
    assert.ok(run.elapsedMs >= 0);
  } finally {
    worker.terminate();
  }
});
