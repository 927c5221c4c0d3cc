// Module worker that owns the simulation: loads the wasm package once, holds one
// JsSimulation at a time and runs it in chunks of macro-steps (~30 ms each), posting
// progress with transferred Float64Array columns so the page never blocks.
//
// Protocol: protocol.js (the run stream, and validate / csv / encodeLink / decodeLink /
// defectStudy answered with one 'reply' each).
// Column layout (as the CSV): time, one co-simulation column per signal, then one
// reference column per signal that has a reference, then for a variable-step run the five
// step columns H, k, iterations, error, defect (NaN where a step reported nothing), then for
// a scenario with power bonds the energy columns named by 'started''s energyNames (the CSV's
// dP.BOND, dE.BOND, dP, dE, E, E:reference, and dP:left, the page's signal).
// stats: {accepted, events, rejected, modulesRestored}, the run's counters (core RunStats).
// An error's kind: 'scenario' (bad settings; the message usually starts with the field's
// path), 'capability' (a module lacks what the method needs), 'runtime' (the run started and
// failed), 'internal' (a panic or a bug). `run` is null unless the run had started: then
// {stepsDone, totalSteps, time (last recorded communication point, s, or null), stats,
// elapsedMs, variableSteps}, and a last 'progress' with the rows recorded before the failure precedes it.

import init, * as wasm from '../pkg/cosim_wasm.js';
import { ADOPT, CANCEL, INIT, READY, RUN, replyTo } from './protocol.js';

/** Target wall time of one chunk of macro-steps, in ms. */
const CHUNK_MS = 30;
/** Above this many rows the CSV is not sent with the result but on request ('csv'). */
const CSV_INLINE_MAX_ROWS = 200_000;

let sim = null;       // the one JsSimulation
let runId = null;     // id of the run in progress, or null
let cancelled = false;
let newestRun = null; // id of the last 'run' received: older queued runs are skipped

// Between chunks the loop yields so that a queued 'cancel' is handled before the next
// chunk. Browsers run it after one MessageChannel hop (no setTimeout 4 ms clamp); Node's
// worker_threads drain MessageChannel traffic before the parent's messages, so a
// setTimeout(0) follows. Scheduled from a message task, that timer is not nested and so
// not clamped either.
const tick = new MessageChannel();
let resumeNext = null;
tick.port1.onmessage = () => { const r = resumeNext; resumeNext = null; if (r) setTimeout(r, 0); };
const yieldToEvents = () => new Promise((resolve) => { resumeNext = resolve; tick.port2.postMessage(null); });

const KINDS = ['scenario', 'capability', 'runtime', 'internal'];

/**
 * Text and kind of a thrown value; a wasm trap is replaced by the panic message the hook
 * kept. Errors of the core carry their kind; anything else thrown here is a bug.
 */
function describe(err) {
  let panic = null;
  try { panic = wasm.takePanicMessage(); } catch { /* instance unusable */ }
  if (panic) return { message: panic, fatal: true, kind: 'internal' };
  if (err instanceof WebAssembly.RuntimeError) return { message: `internal error: ${err.message}`, fatal: true, kind: 'internal' };
  const kind = KINDS.includes(err?.kind) ? err.kind : 'internal';
  return { message: err instanceof Error ? err.message : String(err), fatal: false, kind };
}

/** How many compiled binary modules the page has been told about. */
let sharedCompiled = 0;

/**
 * Tells the page about binary modules compiled since the last time (WebAssembly.Module
 * objects can be posted), so a replacement worker does not compile them again.
 */
function shareCompiled() {
  try {
    const modules = wasm.compiledModules();
    if (modules.length === sharedCompiled) return;
    sharedCompiled = modules.length;
    postMessage({ type: 'compiled', modules, compilations: wasm.compilationsHere?.() ?? null });
  } catch { /* a host that cannot post modules compiles them again */ }
}

function statsOf(s) {
  return { accepted: s.accepted, events: s.events, rejected: s.rejected, modulesRestored: s.modulesRestored };
}

/**
 * After a failed chunk: posts the rows recorded before the failure (so the page's plot
 * ends where the run stopped) and returns where the run got to. Null after a trap, when
 * the instance must not be touched.
 */
function runSoFar(id, t0) {
  try {
    postProgress(id);
    return {
      stepsDone: sim.stepsDone, totalSteps: sim.totalSteps, time: sim.time ?? null,
      stats: statsOf(sim), elapsedMs: performance.now() - t0, variableSteps: sim.variableSteps,
    };
  } catch {
    return null;
  }
}

/** A 'progress' message with the rows recorded since the last one. */
function postProgress(id) {
  const columns = sim.takeColumns();
  postMessage({
    type: 'progress', id, stepsDone: sim.stepsDone, totalSteps: sim.totalSteps, columns,
    progress: sim.progress, time: sim.time ?? null,
  }, transferables(columns));
}

/** The run-wide RMS defect of each port ([] unless the scenario measures defects). */
function rmsDefectsOf(s) {
  const names = s.rmsDefectNames();
  const values = s.rmsDefects();
  return names.map((name, i) => ({ name, value: values[i] }));
}

function freeSim() {
  if (sim) { try { sim.free(); } catch { /* already gone after a trap */ } }
  sim = null;
}

function transferables(columns) {
  return columns.map((c) => c.buffer);
}

async function run(id, scenarioText) {
  // Superseded while queued (a slider moved again): never started.
  if (id !== newestRun) { postMessage({ type: 'cancelled', id }); return; }
  freeSim();
  runId = id;
  cancelled = false;
  const t0 = performance.now();
  try {
    sim = new wasm.JsSimulation(scenarioText);
    shareCompiled();
    const names = sim.signalNames();
    const units = sim.signalUnits();
    const hasRef = sim.hasReference();
    const types = sim.signalTypes();
    const signals = names.map((name, i) => ({ name, unit: units[i], hasReference: hasRef[i] === 1, type: types[i] }));
    postMessage({ type: 'started', id, signals, totalSteps: sim.totalSteps, jacobianSource: sim.jacobianSource ?? null,
      variableSteps: sim.variableSteps, energyNames: sim.energyNames() });
    let steps = 8;
    let finished = false;
    while (!finished) {
      const c0 = performance.now();
      finished = sim.advance(steps);
      const dt = performance.now() - c0;
      // Aim the next chunk at CHUNK_MS from the measured rate (bounded growth).
      const next = dt > 0 ? Math.round((steps * CHUNK_MS) / dt) : steps * 4;
      steps = Math.max(1, Math.min(steps * 4, next, 1 << 20));
      postProgress(id);
      if (!finished) {
        await yieldToEvents();
        if (cancelled) { runId = null; freeSim(); postMessage({ type: 'cancelled', id }); return; }
      }
    }
    const columns = sim.columns();
    const rows = columns.length > 0 ? columns[0].length : 0;
    const globalNrmse = sim.globalNrmse();
    const csv = rows <= CSV_INLINE_MAX_ROWS ? sim.toCsv() : null;
    postMessage({
      type: 'result', id, stepsDone: sim.stepsDone, totalSteps: sim.totalSteps, columns,
      globalNrmse: globalNrmse ?? null, couplingBodyError: sim.couplingBodyError() ?? null, csv, elapsedMs: performance.now() - t0, stats: statsOf(sim),
      variableSteps: sim.variableSteps, rmsDefects: rmsDefectsOf(sim), energySummary: Array.from(sim.energySummary()),
      texts: sim.textOutputs?.() ?? [],
    }, transferables(columns));
  } catch (err) {
    const info = describe(err);
    const reached = sim && !info.fatal ? runSoFar(id, t0) : null;
    freeSim();
    postMessage({ type: 'error', id, ...info, run: reached });
  } finally {
    if (runId === id) runId = null;
  }
}

/** The stateless requests (protocol.js SIM_REQUESTS): what each computes. */
const REQUESTS = {
  validate: (msg) => { try { wasm.validate(String(msg.scenario)); } finally { shareCompiled(); } return null; },
  csv: () => (sim ? sim.toCsv() : null),
  encodeLink: (msg) => wasm.encodeLink(String(msg.scenario)),
  decodeLink: (msg) => wasm.decodeLink(String(msg.link)),
  importSsp: (msg) => wasm.importSsp(msg.bytes),
  modulePorts: (msg) => wasm.modulePorts(String(msg.scenario)),
  defectStudy: (msg) => wasm.defectStudy(String(msg.experiment), String(msg.slaves), String(msg.init)),
};

function handle(msg) {
  const type = msg?.type;
  if (type === RUN) {
    // A new run replaces one in progress: the old loop sees `cancelled` at its next yield.
    if (runId !== null) { cancelled = true; }
    newestRun = msg.id;
    queue = queue.then(() => run(msg.id, String(msg.scenario)));
  } else if (type === CANCEL) {
    if (runId !== null && (msg.id === undefined || msg.id === runId)) cancelled = true;
    else postMessage({ type: 'cancelled', id: msg.id });
  } else if (type === ADOPT) {
    adopt(msg.binaries);
  } else if (Object.hasOwn(REQUESTS, type)) {
    postMessage(replyTo(msg.id, () => REQUESTS[type](msg), (err) => describe(err).message));
  } else if (type !== INIT) { // a second init is harmless
    postMessage({ type: 'error', id: msg?.id ?? null, message: `unknown message type ${type}`, fatal: false, kind: 'internal', run: null });
  }
}

// Runs are serialised: a second 'run' waits until the first has stopped.
let queue = Promise.resolve();
let ready = false;
const pending = [];
let receiveInit = null;
const initMessage = new Promise((resolve) => { receiveInit = resolve; });
self.onmessage = (e) => {
  if (!ready && e.data?.type === INIT) receiveInit(e.data);
  else if (ready) handle(e.data);
  else pending.push(e.data);
};

/**
 * Instantiates the wasm core. In the page, the first message is {type:'init', module}
 * with the module the page compiled once (run_client.js), so a replacement worker does
 * not fetch the binary again; without a module it is fetched next to the JS glue. Under
 * Node (the protocol test runs this worker through the `web-worker` package) fetch cannot
 * read file: URLs, so the bytes are read from disk instead.
 */
async function loadCore() {
  const url = new URL('../pkg/cosim_wasm_bg.wasm', import.meta.url);
  if (url.protocol === 'file:') {
    const { readFile } = await import('node:fs/promises');
    return init({ module_or_path: await readFile(url) });
  }
  const { module, binaries } = await initMessage;
  await (module instanceof WebAssembly.Module ? init({ module_or_path: module }) : init());
  // Binary modules another worker of this page compiled (run_client.js keeps them).
  adopt(binaries);
}

/** Keeps binary modules compiled elsewhere (INIT, ADOPT): the page knows them already. */
function adopt(binaries) {
  for (const { key, module } of binaries ?? []) {
    if (module instanceof WebAssembly.Module) wasm.adoptCompiled(key, module);
  }
  try { sharedCompiled = wasm.compiledModules().length; } catch { /* told again later */ }
}

try {
  await loadCore();
  const presets = wasm.presets();
  const catalog = typeof wasm.catalog === 'function' ? wasm.catalog() : [];
  postMessage({ type: READY, presets, catalog, version: wasm.coreVersion() });
  ready = true;
  for (const m of pending.splice(0)) handle(m);
} catch (err) {
  postMessage({ type: 'error', id: null, message: `could not load the simulation core: ${describe(err).message}`, fatal: true, kind: 'internal', run: null });
}
