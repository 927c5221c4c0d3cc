// Page side of the simulation worker's protocol (protocol.js): starts the module worker, tags each
// run with an id, drops replies from runs that are no longer current, and on Cancel
// terminates and replaces a worker that does not answer within a grace period; a busy
// worker that stays silent (a binary module in an endless loop) is replaced by the
// watchdog (watchdog.js).
// The wasm binary is fetched and compiled once, here, and the compiled module is handed
// to every worker this page starts (a replaced worker does not fetch it again); so is
// every binary module compiled by the page or a worker, and one the page compiles for a
// map's workers is posted to the simulation worker at once (it compiles none again).

import { ADOPT, CANCEL, INIT, READY, REPLY, RUN } from './protocol.js';
import { binaryModuleNames, silenceMessage, Watchdog } from './watchdog.js';

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

/**
 * Binary modules compiled by any worker of this page (key -> WebAssembly.Module, see
 * worker.js shareCompiled): every worker started later gets them with INIT, so a module
 * is compiled once, not once per worker of a map.
 */
export const compiledBinaries = new Map();

/** The INIT `binaries` list of compiledBinaries. */
export function binariesForInit() {
  return [...compiledBinaries].map(([key, module]) => ({ key, module }));
}

/** Binaries this page compiled itself (compileBinaries), for the tests. */
export const pageCompilations = { count: 0 };
/** Binaries the simulation workers compiled themselves (not adopted), for the tests. */
export const simulationCompilations = { count: 0 };
/** The simulation workers, which adopt every binary the page compiles as it is compiled. */
const simulationWorkers = new Set();
const compiling = new Map(); // key -> Promise of the compilation in progress

/**
 * Compiles the wasm binaries `entries` ([{key, bytes}], a worker's `pendingBinaries`)
 * that no worker has compiled yet, off the main thread (WebAssembly.compile), each key
 * once even when asked twice at the same time; resolves when all are in compiledBinaries.
 * Rejects if one does not compile (a worker then reports the core's error).
 */
export async function compileBinaries(entries) {
  await Promise.all((entries ?? []).map(({ key, bytes }) => {
    if (compiledBinaries.has(key)) return null;
    if (!compiling.has(key)) {
      compiling.set(key, WebAssembly.compile(bytes)
        .then((module) => {
          compiledBinaries.set(key, module);
          pageCompilations.count += 1;
          for (const w of simulationWorkers) w.adopt(key, module);
        })
        .finally(() => compiling.delete(key)));
    }
    return compiling.get(key);
  }));
}

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
    this.pending = new Map(); // id -> {resolve, scenario}, for request()
    this.scenario = null;     // JSON text of the run in progress
    this.watchdog = new Watchdog(() => this.silent());
    simulationWorkers.add(this);
    this.spawn();
  }

  /** Hands the worker a binary module the page compiled (for a map), so it compiles none. */
  adopt(key, module) {
    this.worker.postMessage({ type: ADOPT, binaries: [{ key, module }] });
  }

  spawn() {
    this.starts += 1;
    this.compiledHere = 0;
    const restarted = this.starts > 1;
    this.worker = new Worker(new URL('./worker.js', import.meta.url), { type: 'module' });
    this.worker.onmessage = (e) => this.receive(e.data, restarted);
    const worker = this.worker;
    compiledCore.then((module) => worker.postMessage({ type: INIT, module, binaries: binariesForInit() }));
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
    this.scenario = scenarioText;
    this.watchdog.beat();
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
      this.pending.set(id, { resolve, scenario: payload?.scenario ?? null });
      this.watchdog.beat();
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
    for (const { resolve } of this.pending.values()) resolve({ message: 'the simulation worker was restarted' });
    this.pending.clear();
    this.watchdog.stop();
    this.spawn();
  }

  /** The watchdog's deadline passed: the worker is stuck in a binary module. */
  silent() {
    const ms = this.watchdog.deadlineMs;
    const run = this.current;
    const scenarios = run !== null ? [this.scenario] : [...this.pending.values()].map((p) => p.scenario);
    const names = [...new Set(scenarios.flatMap((s) => (s ? binaryModuleNames(s) : [])))];
    const message = silenceMessage(names, ms);
    for (const { resolve } of this.pending.values()) resolve({ message });
    this.pending.clear();
    this.restart();
    if (run !== null) this.on.error({ id: run, message, fatal: false, kind: 'runtime', run: null });
  }

  finish() {
    this.current = null;
    clearTimeout(this.cancelTimer);
    if (this.pending.size === 0) this.watchdog.stop();
  }

  receive(msg, restarted) {
    if (this.watchdog.armed) this.watchdog.beat();
    switch (msg.type) {
      case READY:
        this.on.ready(msg, restarted);
        return;
      case REPLY: {
        const entry = this.pending.get(msg.id);
        this.pending.delete(msg.id);
        if (this.pending.size === 0 && this.current === null) this.watchdog.stop();
        entry?.resolve(msg);
        return;
      }
      case 'compiled':
        // Binary modules the worker compiled: a replacement worker gets them with INIT.
        for (const { key, module } of msg.modules ?? []) compiledBinaries.set(key, module);
        if (Number.isFinite(msg.compilations)) {
          simulationCompilations.count += Math.max(0, msg.compilations - this.compiledHere);
          this.compiledHere = msg.compilations;
        }
        return;
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
