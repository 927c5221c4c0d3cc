// Module worker for the analysis views: loads the wasm core (the module the page compiled
// once is passed in 'init') and answers one request at a time. The page runs several of
// these (tile_pool.js) and stops them by terminating them, so no cancel message exists.
//
// Protocol: protocol.js ('rows' and 'call', each answered with one 'reply'). 'rows' builds
// the JsParameterMap once per map `key` and transfers the tile's buffers.

import init, * as wasm from '../../pkg/cosim_wasm.js';
import { ANALYSIS_CALLS, INIT, READY, reply } from '../protocol.js';

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
    shareCompiled();
  }
  const t = map.computeRows(msg.start, msg.end);
  return { value: { start: msg.start, end: msg.end, values: t.values, status: t.status, failures: t.failures },
    transfer: [t.values.buffer, t.status.buffer] };
}

function handle(msg) {
  try {
    if (msg.type === 'rows') {
      const { value, transfer } = rows(msg);
      postMessage(reply(msg.id, { value }), transfer);
    } else if (msg.type === 'call' && CALLS.has(msg.fn)) {
      postMessage(reply(msg.id, { value: wasm[msg.fn](...msg.args) }));
    } else {
      postMessage(reply(msg.id, { message: `unknown request ${msg.type} ${msg.fn ?? ''}` }));
    }
  } catch (err) {
    postMessage(reply(msg.id, { message: message(err) }));
  }
}

const pending = [];
let ready = false;
/** Compiled binary modules the page knows of; more are posted after a request compiles them. */
let shared = 0;

function shareCompiled() {
  try {
    const modules = wasm.compiledModules?.() ?? [];
    if (modules.length === shared) return;
    shared = modules.length;
    postMessage({ type: 'compiled', modules });
  } catch { /* the page compiles them again in the next worker */ }
}
self.onmessage = async (e) => {
  const msg = e.data;
  if (msg?.type === INIT) {
    try {
      await init(msg.module instanceof WebAssembly.Module ? { module_or_path: msg.module } : undefined);
      // Binary modules other workers compiled (run_client.js compiledBinaries).
      for (const { key, module } of msg.binaries ?? []) {
        if (module instanceof WebAssembly.Module) wasm.adoptCompiled?.(key, module);
      }
      shared = (msg.binaries ?? []).length;
      ready = true;
      postMessage({ type: READY });
      for (const m of pending.splice(0)) handle(m);
    } catch (err) {
      postMessage({ type: 'error', id: null, message: `could not load the simulation core: ${message(err)}` });
    }
  } else if (ready) handle(msg);
  else pending.push(msg);
};
