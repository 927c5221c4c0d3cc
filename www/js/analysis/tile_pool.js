// A pool of analysis workers (analysis_worker.js): requests queue and go to the next free
// worker, so map tiles spread over all of them and arrive in completion order. Cancel
// terminates every worker (a long tile cannot be interrupted otherwise) and rejects what
// is queued or running; the next request starts fresh workers.
//
// Binary modules: before the first request of a scenario with binary modules is sent,
// one worker lists the wasm binaries it lacks (pendingBinaries), the page compiles each
// once (run_client.js compileBinaries) and posts the compiled modules to every worker
// ('adopt'; workers started later get them with INIT), so N workers mean one compilation,
// not N. Such a request is watched (watchdog.js): a worker silent past the deadline (an
// endless loop in an FMI call) stops the whole pool, and the requests fail with a message
// naming the binary modules.

import { binariesForInit, compileBinaries, compiledBinaries, compiledCore, pageCompilations } from '../run_client.js';
import { binaryModuleNames, silenceMessage, Watchdog } from '../watchdog.js';
import { ADOPT, INIT, READY, REPLY } from '../protocol.js';

/** What a map stopped by the watchdog says happened after naming the module. */
const MAP_STOPPED = 'the analysis was stopped and its workers terminated; the page is unaffected';

/** Workers used for maps: the machine's logical cores, at most 8, at least 1. */
export function defaultPoolSize() {
  const n = Number(globalThis.navigator?.hardwareConcurrency) || 2;
  return Math.max(1, Math.min(8, n));
}

export class Cancelled extends Error {
  constructor() { super('cancelled'); this.name = 'Cancelled'; }
}

/** The scenario text a request carries ('rows', or a call's first argument), or null. */
function scenarioOf(msg) {
  if (typeof msg.scenario === 'string') return msg.scenario;
  if (msg.type === 'call' && msg.fn !== 'pendingBinaries' && typeof msg.args?.[0] === 'string') return msg.args[0];
  return null;
}

export class TilePool {
  constructor(size = defaultPoolSize()) {
    this.size = size;
    this.workers = [];   // {worker, job|null, watchdog, compilations}
    this.queue = [];     // {msg, modules, ready, resolve, reject}
    this.nextId = 1;
    this.generation = 0;
    this.names = { scenario: null, modules: [] }; // binary module names of the last scenario seen
    this.preparing = null;                         // {scenario, promise}: its binaries compiled on the page
    this.workerCompilations = 0;
  }

  /** Number of workers (created lazily). */
  setSize(n) {
    this.cancel();
    this.size = Math.max(1, n | 0);
  }

  spawn() {
    const worker = new Worker(new URL('./analysis_worker.js', import.meta.url), { type: 'module' });
    const slot = { worker, job: null, compilations: 0 };
    slot.watchdog = new Watchdog(() => this.silent(slot));
    worker.onmessage = (e) => this.receive(slot, e.data);
    worker.onerror = (e) => {
      e.preventDefault?.();
      const job = slot.job;
      slot.job = null;
      slot.watchdog.stop();
      job?.reject(new Error(`an analysis worker failed: ${e.message || 'unknown error'}`));
      this.pump();
    };
    compiledCore.then((module) => worker.postMessage({ type: INIT, module, binaries: binariesForInit() }));
    this.workers.push(slot);
    return slot;
  }

  receive(slot, msg) {
    if (slot.watchdog.armed) slot.watchdog.beat();
    if (msg.type === READY) return;
    if (msg.type === 'compiled') {
      for (const { key, module } of msg.modules ?? []) compiledBinaries.set(key, module);
      const n = Number(msg.compilations) || 0;
      this.workerCompilations += Math.max(0, n - slot.compilations);
      slot.compilations = n;
      return;
    }
    const job = slot.job;
    if (msg.type === 'error' && msg.id === null) {
      slot.job = null;
      slot.watchdog.stop();
      job?.reject(new Error(msg.message));
      return;
    }
    if (msg.type !== REPLY || !job || msg.id !== job.msg.id) return;
    slot.job = null;
    slot.watchdog.stop();
    if (!('message' in msg)) job.resolve(msg.value);
    else job.reject(new Error(msg.message));
    this.pump();
  }

  pump() {
    for (;;) {
      const next = this.queue.findIndex((j) => j.ready);
      if (next < 0) return;
      let slot = this.workers.find((s) => s.job === null);
      if (!slot && this.workers.length < this.size) slot = this.spawn();
      if (!slot) return;
      const [job] = this.queue.splice(next, 1);
      slot.job = job;
      // Only binary modules can loop forever; built-in maps may take long per tile.
      if (job.modules.length > 0) slot.watchdog.beat();
      slot.worker.postMessage(job.msg);
    }
  }

  /** The binary module names of `scenario` (the last one's kept: a map sends it per tile). */
  binaryModules(scenario) {
    if (this.names.scenario !== scenario) this.names = { scenario, modules: binaryModuleNames(scenario) };
    return this.names.modules;
  }

  request(msg) {
    const scenario = scenarioOf(msg);
    const modules = scenario ? this.binaryModules(scenario) : [];
    const compiled = modules.length > 0 ? this.prepare(scenario) : null;
    return new Promise((resolve, reject) => {
      const job = { msg: { ...msg, id: this.nextId++ }, modules, ready: compiled === null, resolve, reject };
      this.queue.push(job);
      compiled?.then(() => { job.ready = true; this.pump(); });
      this.pump();
    });
  }

  /**
   * Compiles the binary modules of `scenario` on the page, once, and hands them to every
   * worker; resolves when they are (or when that failed: each worker then compiles itself
   * and reports any error in the binary).
   */
  prepare(scenario) {
    if (this.preparing?.scenario === scenario) return this.preparing.promise;
    const promise = (async () => {
      try {
        const pending = await this.call('pendingBinaries', scenario);
        await compileBinaries(pending);
        const binaries = (pending ?? []).map(({ key }) => ({ key, module: compiledBinaries.get(key) }));
        // Workers running now adopt them before their next request (messages keep their order).
        if (binaries.length > 0) for (const s of this.workers) s.worker.postMessage({ type: ADOPT, binaries });
      } catch {
        if (this.preparing?.promise === promise) this.preparing = null;
      }
    })();
    this.preparing = { scenario, promise };
    return promise;
  }

  /** One stateless core call on any worker. */
  call(fn, ...args) {
    return this.request({ type: 'call', fn, args });
  }

  /**
   * Computes a map in row tiles over all workers; `onTile({start, end, values, status,
   * failures})` sees each tile as it arrives. Resolves when every tile is in.
   */
  async map({ scenario, x, y, metric, rows, rowsPerTile, onTile }) {
    const key = `${this.nextId}:${Math.random()}`;
    const tiles = [];
    for (let start = 0; start < rows; start += rowsPerTile) {
      const end = Math.min(rows, start + rowsPerTile);
      tiles.push(this.request({ type: 'rows', key, scenario, x, y, metric, start, end }).then((t) => { onTile(t); }));
    }
    await Promise.all(tiles);
  }

  /** A worker stayed silent in a binary module: everything stops, naming the modules. */
  silent(slot) {
    const message = silenceMessage(slot.job?.modules ?? [], slot.watchdog.deadlineMs, MAP_STOPPED);
    this.cancel(new Error(message));
  }

  /**
   * Stops everything: terminates the workers, rejects queued and running requests with
   * `reason` (Cancelled unless the watchdog stopped them).
   */
  cancel(reason = new Cancelled()) {
    const jobs = [...this.queue, ...this.workers.map((s) => s.job).filter(Boolean)];
    this.queue = [];
    for (const s of this.workers) { s.watchdog.stop(); s.worker.terminate(); }
    this.workers = [];
    for (const j of jobs) j.reject(reason);
  }

  /** Workers alive now (for tests: 0 after cancel). */
  get alive() {
    return this.workers.length;
  }

  /** Binary compilations so far (for tests): on the page (all pools), and in this pool's workers. */
  get compilations() {
    return { page: pageCompilations.count, workers: this.workerCompilations };
  }
}
