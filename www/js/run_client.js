// Page side of the simulation worker's protocol (protocol.js): starts the module worker, tags each
// run with an id, drops replies from runs that are no longer current, and on Cancel
// terminates and replaces a worker that does not answer within a grace period.
// The wasm binary is fetched and compiled once, here, and the compiled module is handed
// to every worker this page starts (a replaced worker does not fetch it again).

import { CANCEL, INIT, READY, REPLY, RUN } from './protocol.js';

/** How long a cancelled run may take to reach its next chunk boundary, in ms. */
const CANCEL_GRACE_MS = 750;

/**
 * The core compiled once per page load. `undefined` (not rejected) when streaming
 * compilation is unavailable or fails: each worker then loads the binary itself.
 */
export const compiledCore = (async () => {
  try {
    const url = new URL('../pkg/cosim_wasm_bg.wasm', import.meta.url);
    return await WebAssembly.compileStreaming(fetch(url));
  } catch {
    return undefined;
  }
})();

export class SimulationWorker {
  /**
   * @param {object} on handlers of the run stream: ready({presets, catalog, version}, restarted),
   *   started(msg), progress(msg), result(msg), cancelled({restarted}), error(msg)
   */
  constructor(on) {
    this.on = on;
    this.worker = null;
    this.nextId = 1;
    this.current = null;   // id of the run in progress
    this.cancelTimer = 0;
    this.starts = 0;
    this.pending = new Map(); // id -> resolve, for request()
    this.spawn();
  }

  spawn() {
    this.starts += 1;
    const restarted = this.starts > 1;
    this.worker = new Worker(new URL('./worker.js', import.meta.url), { type: 'module' });
    this.worker.onmessage = (e) => this.receive(e.data, restarted);
    const worker = this.worker;
    compiledCore.then((module) => worker.postMessage({ type: INIT, module }));
    this.worker.onerror = (e) => {
      e.preventDefault?.();
      this.finish();
      this.on.error({ id: null, message: `the simulation worker failed to load: ${e.message || 'unknown error'}`, fatal: true });
    };
  }

  get busy() {
    return this.current !== null;
  }

  run(scenarioText) {
    const id = this.nextId++;
    this.current = id;
    this.worker.postMessage({ type: RUN, id, scenario: scenarioText });
    return id;
  }

  /** The core's first complaint about `scenarioText`, or null when it is valid. */
  async validate(scenarioText) {
    const r = await this.request('validate', { scenario: scenarioText });
    return r.message ?? null;
  }

  /**
   * A stateless question for the worker (protocol.js SIM_REQUESTS); resolves with the
   * reply {id, value} or {id, message} (an error), whichever comes.
   */
  request(type, payload) {
    const id = this.nextId++;
    return new Promise((resolve) => {
      this.pending.set(id, resolve);
      this.worker.postMessage({ type, id, ...payload });
    });
  }


  /** Asks the worker to stop; replaces it if it does not stop in time. */
  cancel() {
    if (this.current === null) return;
    const id = this.current;
    this.worker.postMessage({ type: CANCEL, id });
    clearTimeout(this.cancelTimer);
    this.cancelTimer = setTimeout(() => {
      if (this.current !== id) return;
      this.restart();
      this.on.cancelled({ id, restarted: true });
    }, CANCEL_GRACE_MS);
  }

  /** Replaces the worker (as Cancel does for a worker that hangs); a run in progress is dropped. */
  restart() {
    this.worker.terminate();
    this.finish();
    for (const resolve of this.pending.values()) resolve({ message: 'the simulation worker was restarted' });
    this.pending.clear();
    this.spawn();
  }

  finish() {
    this.current = null;
    clearTimeout(this.cancelTimer);
  }

  receive(msg, restarted) {
    switch (msg.type) {
      case READY:
        this.on.ready(msg, restarted);
        return;
      case REPLY: {
        const resolve = this.pending.get(msg.id);
        this.pending.delete(msg.id);
        resolve?.(msg);
        return;
      }
      default:
        break;
    }
    // Every run the worker finished, current or not (tests: superseded runs never finish).
    if (msg.type === 'result') this.resultsSeen = (this.resultsSeen ?? 0) + 1;
    // Everything else belongs to a run; replies for runs no longer current are dropped.
    if (msg.id !== null && msg.id !== this.current) return;
    switch (msg.type) {
      case 'started': this.on.started(msg); break;
      case 'progress': this.on.progress(msg); break;
      case 'result': this.finish(); this.on.result(msg); break;
      case 'cancelled': this.finish(); this.on.cancelled({ id: msg.id, restarted: false }); break;
      case 'error':
        this.finish();
        if (msg.fatal) this.restart();
        this.on.error(msg);
        break;
      default: break;
    }
  }
}
