// The worker messages, typed in one place. Two workers speak them: the simulation worker
// (worker.js: one run at a time, streamed) and the analysis workers (analysis/analysis_worker.js,
// a pool). Both answer a stateless request with one reply scheme:
//   page -> worker {type: <request>, id, ...arguments}
//   worker -> page {type: 'reply', id, value} on success, {type: 'reply', id, message} on failure.
// A run is the one stream: 'run' is answered by 'started', any number of 'progress', then
// exactly one of 'result', 'cancelled' or 'error', all carrying the run's id.

/** Requests every worker understands: the first message, with the page's compiled core. */
export const INIT = 'init';
/** A worker's own answers outside any request. */
export const READY = 'ready';
export const REPLY = 'reply';

/**
 * Simulation worker (worker.js) requests answered by a REPLY:
 *   validate {scenario}      -> value null (valid) | message (the core's first complaint)
 *   csv {}                   -> value: CSV text of the run held, or null
 *   encodeLink {scenario}    -> value: link fragment `s1.…`
 *   decodeLink {link}        -> value: scenario JSON text
 *   importSsp {bytes}        -> value: scenario JSON text of an .ssp (Uint8Array)
 *   defectStudy {experiment, slaves, init} -> value: the study's JSON text
 *   modulePorts {scenario}   -> value: [{name, model, inputs, outputs, error}] (the diagram's blocks)
 */
export const SIM_REQUESTS = ['validate', 'csv', 'encodeLink', 'decodeLink', 'importSsp', 'defectStudy', 'modulePorts'];

/**
 * The run stream of the simulation worker.
 *   page -> worker {type:'run', id, scenario}, {type:'cancel', id}
 *   worker -> page:
 *   {type:'started', id, signals:[{name, unit, hasReference}], totalSteps, jacobianSource, variableSteps, energyNames}
 *   {type:'progress', id, stepsDone, totalSteps, columns, progress, time}
 *   {type:'result', id, stepsDone, totalSteps, columns, globalNrmse, couplingBodyError, csv, elapsedMs, stats, variableSteps, rmsDefects, energySummary}
 *   {type:'cancelled', id}
 *   {type:'error', id, message, fatal, kind, run}   (id null: the worker itself failed)
 * READY from the simulation worker carries {presets, catalog, version}. Outside any run or
 * request it may post {type:'compiled', modules:[{key, module}], compilations}: the binary
 * modules it holds (WebAssembly.Module), which the page hands to later workers in INIT
 * {binaries}, and how many it compiled itself. Not answered: {type:'adopt', binaries},
 * binary modules the page compiled (for a map), so that the worker compiles none again.
 */
export const RUN = 'run';
export const CANCEL = 'cancel';
export const RUN_STREAM = ['started', 'progress', 'result', 'cancelled', 'error'];

/**
 * Analysis worker requests answered by a REPLY:
 *   rows {key, scenario, x, y, metric, start, end} -> value {start, end, values: Float64Array,
 *        status: Uint8Array, failures: (string|null)[]} (buffers transferred)
 *   call {fn, args}  fn one of ANALYSIS_CALLS -> value: what the core returns
 *        (pendingBinaries [scenario] -> [{key, bytes}]: the wasm binaries of its binary
 *        modules the worker has not got compiled, for the page to compile once)
 * Not answered: {type:'adopt', binaries:[{key, module}]}, binary modules the page compiled.
 * Before a reply the worker may post {type:'compiled', modules, compilations}: binary
 * modules it compiled itself, and how many it has compiled in all.
 * A worker that cannot load the core posts {type:'error', id:null, message}.
 */
export const ANALYSIS_CALLS = ['sweep', 'stabilityCrossings', 'convergence', 'stability', 'analysisParameters', 'pendingBinaries'];
export const ADOPT = 'adopt';

/** The reply to request `id`: a value, or the error's message. */
export function reply(id, result) {
  return 'message' in result ? { type: REPLY, id, message: result.message } : { type: REPLY, id, value: result.value };
}

/** Runs `fn()` and wraps what it returns or throws as the reply to `id`. */
export function replyTo(id, fn, describe) {
  try {
    return reply(id, { value: fn() });
  } catch (err) {
    return reply(id, { message: describe(err) });
  }
}
