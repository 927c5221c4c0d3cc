// A pool of analysis workers (analysis_worker.js): requests queue and go to the next free
// worker, so map tiles spread over all of them and arrive in completion order. Cancel
// terminates every worker (a long tile cannot be interrupted otherwise) and rejects what
// is queued or running; the next request starts fresh workers.

import { binariesForInit, compiledBinaries, compiledCore } from '../run_client.js';
import { INIT, READY, REPLY } from '../protocol.js';

/** Workers used for maps: the machine's logical cores, at most 8, at least 1. */
export function defaultPoolSize() {
  const n = Number(globalThis.navigator?.hardwareConcurrency) || 2;
  return Math.max(1, Math.min(8, n));
}

export class Cancelled extends Error {
  constructor() { super('cancelled'); this.name = 'Cancelled'; }
}

export class TilePool {
  constructor(size = defaultPoolSize()) {
    this.size = size;
    this.workers = [];   // {worker, job|null}
    this.queue = [];     // {msg, resolve, reject}
    this.nextId = 1;
    this.generation = 0;
  }

  /** Number of workers (created lazily). */
  setSize(n) {
    this.cancel();
    this.size = Math.max(1, n | 0);
  }

  spawn() {
    const worker = new Worker(new URL('./analysis_worker.js', import.meta.url), { type: 'module' });
    const slot = { worker, job: null };
    worker.onmessage = (e) => this.receive(slot, e.data);
    worker.onerror = (e) => {
      e.preventDefault?.();
      const job = slot.job;
      slot.job = null;
      job?.reject(new Error(`an analysis worker failed: ${e.message || 'unknown error'}`));
      this.pump();
    };
    compiledCore.then((module) => worker.postMessage({ type: INIT, module, binaries: binariesForInit() }));
    this.workers.push(slot);
    return slot;
  }

  receive(slot, msg) {
    if (msg.type === READY) return;
    if (msg.type === 'compiled') {
      for (const { key, module } of msg.modules ?? []) compiledBinaries.set(key, module);
      return;
    }
    const job = slot.job;
    if (msg.type === 'error' && msg.id === null) {
      slot.job = null;
      job?.reject(new Error(msg.message));
      return;
    }
    if (msg.type !== REPLY || !job || msg.id !== job.msg.id) return;
    slot.job = null;
    if (!('message' in msg)) job.resolve(msg.value);
    else job.reject(new Error(msg.message));
    this.pump();
  }

  pump() {
    while (this.queue.length > 0) {
      let slot = this.workers.find((s) => s.job === null);
      if (!slot && this.workers.length < this.size) slot = this.spawn();
      if (!slot) return;
      const job = this.queue.shift();
      slot.job = job;
      slot.worker.postMessage(job.msg);
    }
  }

  request(msg) {
    return new Promise((resolve, reject) => {
      this.queue.push({ msg: { ...msg, id: this.nextId++ }, resolve, reject });
      this.pump();
    });
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

  /** Stops everything: terminates the workers, rejects queued and running requests. */
  cancel() {
    const jobs = [...this.queue, ...this.workers.map((s) => s.job).filter(Boolean)];
    this.queue = [];
    for (const s of this.workers) s.worker.terminate();
    this.workers = [];
    for (const j of jobs) j.reject(new Cancelled());
  }

  /** Workers alive now (for tests: 0 after cancel). */
  get alive() {
    return this.workers.length;
  }
}
