// Module worker for the analysis views: loads the wasm core (the module the page compiled
// once is passed in 'init') and answers one request at a time. The page runs several of
// these (tile_pool.js) and stops them by terminating them, so no cancel message exists.
//
// Protocol:
//   page -> worker: {type:'init', module?}
//                   {type:'rows', id, key, scenario, x, y, metric, start, end}
//                   {type:'call', id, fn, args}   fn: sweep | stabilityCrossings | convergence |
//                                                     stability | analysisParameters
//   worker -> page: {type:'ready'} | {type:'error', id:null, message} (load failure)
//                   {type:'done', id, value} | {type:'failed', id, message}
// 'rows' builds the JsParameterMap once per map `key` and replies {start, end, values:
// Float64Array, status: Uint8Array, failures: (string|null)[]} with transferred buffers.

import init, * as wasm from '../../pkg/cosim_wasm.js';

const CALLS = new Set(['sweep', 'stabilityCrossings', 'convergence', 'stability', 'analysisParameters']);
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

function handle(msg) {
  try {
    if (msg.type === 'rows') {
      const { value, transfer } = rows(msg);
      postMessage({ type: 'done', id: msg.id, value }, transfer);
    } else if (msg.type === 'call' && CALLS.has(msg.fn)) {
      postMessage({ type: 'done', id: msg.id, value: wasm[msg.fn](...msg.args) });
    } else {
      postMessage({ type: 'failed', id: msg.id, message: `unknown request ${msg.type} ${msg.fn ?? ''}` });
    }
  } catch (err) {
    postMessage({ type: 'failed', id: msg.id, message: message(err) });
  }
}

const pending = [];
let ready = false;
self.onmessage = async (e) => {
  const msg = e.data;
  if (msg?.type === 'init') {
    try {
      await init(msg.module instanceof WebAssembly.Module ? { module_or_path: msg.module } : undefined);
      ready = true;
      postMessage({ type: 'ready' });
      for (const m of pending.splice(0)) handle(m);
    } catch (err) {
      postMessage({ type: 'error', id: null, message: `could not load the simulation core: ${message(err)}` });
    }
  } else if (ready) handle(msg);
  else pending.push(msg);
};
