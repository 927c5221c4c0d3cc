// Module worker for the analysis views: loads the wasm core (the module the page compiled
// once is passed in 'init') and answers one request at a time. The page runs several of
// these (tile_pool.js) and stops them by terminating them, so no cancel message exists.
// Binary modules arrive compiled ('init' binaries, 'adopt'): the page compiles each once
// for all workers, so a worker compiles one itself only if the page could not.
//
// Protocol: protocol.js ('rows' and 'call', each answered with one 'reply'; 'adopt').
// 'rows' builds the JsParameterMap once per map `key` and transfers the tile's buffers.

import init, * as wasm from '../../pkg/cosim_wasm.js';
import { ADOPT, ANALYSIS_CALLS, INIT, READY, reply } from '../protocol.js';

const CALLS = new Set(ANALYSIS_CALLS);
let map = null;
let mapKey = null;

function message(err) {
  let panic = null;
  try { panic = wasm.takePanicMessage(); } catch { /* instance unusable */ }
  return panic ?? (err instanceof Error ? err.message : String(err));
}

function rows(msg) {
  if (mapKey !== msg.key) {
    if (map) { try { map.free(); } catch { /* gone */ } }
    map = null;
    mapKey = null;
    map = new wasm.JsParameterMap(msg.scenario, JSON.stringify(msg.x), JSON.stringify(msg.y), msg.metric);
    mapKey = msg.key;
  }
  const t = map.computeRows(msg.start, msg.end);
  return { value: { start: msg.start, end: msg.end, values: t.values, status: t.status, failures: t.failures },
    transfer: [t.values.buffer, t.status.buffer] };
}

/** The reply to `msg` and the buffers it transfers. */
function answer(msg) {
  try {
    if (msg.type === 'rows') {
      const { value, transfer } = rows(msg);
      return [reply(msg.id, { value }), transfer];
    }
    if (msg.type === 'call' && CALLS.has(msg.fn)) return [reply(msg.id, { value: wasm[msg.fn](...msg.args) }), []];
    return [reply(msg.id, { message: `unknown request ${msg.type} ${msg.fn ?? ''}` }), []];
  } catch (err) {
    return [reply(msg.id, { message: message(err) }), []];
  }
}

/** Binary modules compiled elsewhere ([{key, module}]). */
function adopt(binaries) {
  for (const { key, module } of binaries ?? []) {
    if (module instanceof WebAssembly.Module) wasm.adoptCompiled?.(key, module);
  }
  try { shared = wasm.compiledModules?.().length ?? shared; } catch { /* keep the count */ }
}

function handle(msg) {
  if (msg.type === ADOPT) { adopt(msg.binaries); return; }
  const [out, transfer] = answer(msg);
  // Before the reply, so the page knows what this request compiled when it sees the answer.
  shareCompiled();
  postMessage(out, transfer);
}

const pending = [];
let ready = false;
/** Compiled binary modules the page knows of; more are posted after a request compiles them. */
let shared = 0;

/**
 * Tells the page about binary modules this worker compiled (it could not adopt them),
 * with how many it compiled itself in all (`compilations`, for the tests).
 */
function shareCompiled() {
  try {
    const modules = wasm.compiledModules?.() ?? [];
    if (modules.length === shared) return;
    shared = modules.length;
    postMessage({ type: 'compiled', modules, compilations: wasm.compilationsHere?.() ?? null });
  } catch { /* the page compiles them again in the next worker */ }
}
self.onmessage = async (e) => {
  const msg = e.data;
  if (msg?.type === INIT) {
    try {
      await init(msg.module instanceof WebAssembly.Module ? { module_or_path: msg.module } : undefined);
      // Binary modules the page or other workers compiled (run_client.js compiledBinaries).
      adopt(msg.binaries);
      ready = true;
      postMessage({ type: READY });
      for (const m of pending.splice(0)) handle(m);
    } catch (err) {
      postMessage({ type: 'error', id: null, message: `could not load the simulation core: ${message(err)}` });
    }
  } else if (ready) handle(msg);
  else pending.push(msg);
};
