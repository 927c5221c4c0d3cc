// Page controller: wires the preset picker, the scenario editor, the raw JSON view, the
// Run/Cancel controls and the plots to the simulation worker. All numerics happen in the
// worker's wasm core; this file only moves data and shows it.

import { ScenarioEditor } from './editor.js';
import { SimulationWorker } from './run_client.js';
import { TimeResponsePlots } from './plots/time_response.js';
import { VariableStepView } from './variable_steps.js';
import { initTheme } from './theme.js';
import { readHash, setHash, shareLink } from './share.js';
import { initFileOpen } from './files.js';
import { withBinaryModule } from './fmu_upload.js';
import { binarySources, confirmExternal, embedBinarySources, externalUrls } from './external.js';
import { downloadBlob } from './plots/export.js';
import { fillPicker, presetMatching } from './picker.js';
import { AnalysisPanel } from './analysis/panel.js';
import { DefectStudyView } from './analysis/defect_study_view.js';
import { RunSummary, failureNote } from './run_summary.js';
import { MessageArea, pathOf } from './message.js';

const $ = (id) => document.getElementById(id);
const ui = {
  preset: $('preset'), title: $('scenario-title'), edited: $('scenario-edited'), description: $('scenario-description'),
  showDifference: $('show-difference'),
  json: $('scenario-json'), jsonDetails: $('json-details'), applyJson: $('apply-json'), resetJson: $('reset-json'),
  run: $('run'), cancel: $('cancel'), progress: $('progress'), status: $('status'),
  message: $('message'), messageText: $('message-text'), messageNote: $('message-note'), messageGoto: $('message-goto'),
  downloadCsv: $('download-csv'), downloadScenario: $('download-scenario'), version: $('version'),
  about: $('about'), tryNextBox: $('try-next-box'), tryNext: $('try-next'),
  copyLink: $('copy-link'), openFile: $('open-file'), fileInput: $('file-input'), addFmu: $('add-fmu'), fmuInput: $('fmu-input'), saveFile: $('save-file'),
  shareBox: $('share-box'), shareNote: $('share-note'), shareField: $('share-field'), shareLink: $('share-link'),
  shareDownload: $('share-download'), dropOverlay: $('drop-overlay'),
  externalDialog: $('external-dialog'), externalList: $('external-list'),
};

/** Label of the picker entry for a scenario that is not (or no longer) a preset. */
const CUSTOM = '';

const state = {
  presets: [],
  scenario: null,
  jsonDirty: false,     // the JSON view holds edits not yet applied to the form
  lastResult: null,
  runSource: 'form',    // where the running scenario came from: 'form' | 'json'
  validateId: 0,
  validateSource: 'form',
  csvUrl: null,
  presetId: null,       // the preset the editor started from, if any
  lastError: null,      // {kind, message, run} of the last run that failed
};

let resolveReady;
const ready = new Promise((r) => { resolveReady = r; });

const plots = new TimeResponsePlots($('plots'));
const stepView = new VariableStepView($('macro-steps'));
const summary = new RunSummary({
  globalError: $('global-error'), jacobians: $('jacobians'), jacobiansItem: $('jacobians-item'),
  steps: $('steps'), events: $('events'), rejected: $('rejected'), elapsed: $('elapsed'),
  stepsLabel: $('steps-label'), stepSize: $('step-size'), stepSizeItem: $('step-size-item'),
  rmsDefects: $('rms-defects'),
});
const editor = new ScenarioEditor({
  masterRoot: $('master-fields'), modulesRoot: $('module-fields'), connectionList: $('connection-list'),
  plotRoot: $('plot-checkboxes'), onChange: (opts) => onEdit(opts),
});
// The analysis section reads the scenario and writes back only its `analysis` field.
const analysis = new AnalysisPanel({
  getScenario: () => state.scenario,
  onChange: (spec) => {
    if (!state.scenario) return;
    if (spec) state.scenario.analysis = spec; else delete state.scenario.analysis;
    if (!state.jsonDirty) writeJson();
  },
});

// ----- messages ---------------------------------------------------------------------------

const messages = new MessageArea(
  { box: ui.message, text: ui.messageText, note: ui.messageNote, goto: ui.messageGoto }, editor);
const showMessage = (text, opts) => messages.show(text, opts);
const clearMessage = () => messages.clear();

// ----- scenario state ----------------------------------------------------------------------

function setScenario(scenario, { keepJsonText = false, edited = true } = {}) {
  state.scenario = scenario;
  editor.setScenario(scenario);
  ui.title.textContent = typeof scenario.title === 'string' ? scenario.title : '';
  ui.description.textContent = typeof scenario.description === 'string' ? scenario.description : '';
  document.title = ui.title.textContent ? `${ui.title.textContent} · Cosim Playground` : 'Cosim Playground';
  ui.edited.hidden = !edited;
  hideShareBox();
  showTryNext();
  if (!keepJsonText) writeJson();
  analysis.setScenario(scenario);
}

/** A link shown for an earlier state of the scenario would share the wrong thing. */
function hideShareBox() {
  ui.shareBox.hidden = true;
  ui.shareLink.value = '';
}

/** "Try this next" of the preset the scenario came from (presets only; links carry none). */
function showTryNext() {
  const p = state.presets.find((x) => x.id === state.presetId);
  ui.tryNext.textContent = p?.tryNext ?? '';
  ui.tryNextBox.hidden = !p?.tryNext;
}

/** Shows `id` in the picker, or the "custom scenario" entry. */
function selectInPicker(id) {
  state.presetId = id;
  ui.preset.value = id ?? CUSTOM;
}

function writeJson() {
  ui.json.value = JSON.stringify(state.scenario, null, 2);
  ui.json.removeAttribute('aria-invalid');
  state.jsonDirty = false;
}

function loadPreset(id, { updateHash = true } = {}) {
  const p = state.presets.find((x) => x.id === id) ?? state.presets[0];
  if (!p) return;
  selectInPicker(p.id);
  clearMessage();
  setScenario(JSON.parse(p.scenario), { edited: false });
  if (updateHash) setHash(`preset=${encodeURIComponent(p.id)}`);
  validateSoon();
}

/**
 * Opens scenario JSON text from a link or a file: into the editor when it is an object
 * (the core then validates it and names the field of any problem), otherwise only into
 * the JSON view with the message. Returns true when the form holds the scenario.
 */
function openScenarioText(text, source) {
  ui.json.value = text;
  let parsed = null;
  try { parsed = JSON.parse(text); } catch { /* reported by the core below */ }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    state.jsonDirty = true;
    ui.jsonDetails.open = true;
    ui.json.setAttribute('aria-invalid', 'true');
    state.validateSource = 'json';
    state.validateId = client.validate(text);
    ui.status.textContent = `${source}: not a scenario (the JSON view shows the text).`;
    return false;
  }
  clearMessage();
  selectInPicker(presetMatching(state.presets, parsed));
  setScenario(parsed, { keepJsonText: true, edited: false });
  state.jsonDirty = false;
  ui.json.removeAttribute('aria-invalid');
  state.validateSource = 'json';
  state.validateId = client.validate(text);
  return true;
}

/** Opens what the address names (a shared link or a preset) and runs it; false if nothing. */
async function openFromAddress() {
  const want = readHash();
  if (!want) return false;
  if (want.kind === 'preset') {
    if (!state.presets.some((p) => p.id === want.id)) {
      showMessage(`The address asks for a preset \`${want.id}\`, which this version does not have; showing the default.`, { source: 'run', path: null });
      return false;
    }
    loadPreset(want.id, { updateHash: false });
    startRun();
    return true;
  }
  ui.status.textContent = 'Opening the shared scenario…';
  const reply = await client.request('decodeLink', { link: want.link });
  if (reply.message) {
    showMessage(`This link cannot be opened: ${reply.message.replace(/^the link (is|has)\b/, 'it $1')}`, { source: 'run', path: null });
    ui.status.textContent = 'Ready.';
    return false;
  }
  if (openScenarioText(reply.value, 'Link')) startRun();
  return true;
}

let validateTimer = 0;
function validateSoon(source = 'form', text = null) {
  clearTimeout(validateTimer);
  validateTimer = setTimeout(() => {
    state.validateSource = source;
    state.validateId = client.validate(text ?? JSON.stringify(state.scenario));
  }, 250);
}

function onEdit(opts = {}) {
  if (opts.plotOnly) {
    plots.choose(chosenOutputs());
    return;
  }
  if (!state.jsonDirty) writeJson();
  ui.edited.hidden = false;
  hideShareBox();
  const bad = editor.firstInvalid();
  if (bad) {
    showMessage(bad.message, { path: bad.path, source: 'form' });
    return;
  }
  if (messages.source === 'form') clearMessage();
  validateSoon();
}

function chosenOutputs() {
  return Array.isArray(state.scenario?.plot) ? state.scenario.plot : [];
}

// ----- raw JSON view -------------------------------------------------------------------------

ui.json.addEventListener('input', () => { state.jsonDirty = true; });

ui.applyJson.addEventListener('click', () => {
  const text = ui.json.value;
  let parsed;
  try {
    parsed = JSON.parse(text);
  } catch {
    // The core's parser names line and column; ask it for the message.
    ui.json.setAttribute('aria-invalid', 'true');
    state.validateSource = 'json';
    state.validateId = client.validate(text);
    return;
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    ui.json.setAttribute('aria-invalid', 'true');
    showMessage('Scenario JSON: expected an object { "schema_version": 1, "modules": [...], ... }', { source: 'validation', path: null });
    return;
  }
  clearMessage();
  setScenario(parsed);
  validateSoon();
});

ui.resetJson.addEventListener('click', () => { writeJson(); clearMessage(); });

// ----- running -------------------------------------------------------------------------------

function setRunning(running) {
  ui.run.disabled = running;
  ui.cancel.disabled = !running;
  ui.preset.disabled = running;
  document.body.classList.toggle('running', running);
}

ui.run.addEventListener('click', () => startRun());

/** Runs the form's scenario, or the JSON view's text when it holds unapplied edits. */
async function startRun() {
  if (client.busy) return;
  let text;
  if (state.jsonDirty) {
    text = ui.json.value;
    state.runSource = 'json';
    try {
      const parsed = JSON.parse(text);
      if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) setScenario(parsed, { keepJsonText: true });
    } catch { /* sent as written: the core reports where the JSON breaks */ }
  } else {
    const bad = editor.firstInvalid();
    if (bad) {
      showMessage(bad.message, { path: bad.path, source: 'form' });
      document.body.dataset.runState = 'invalid';
      return;
    }
    text = JSON.stringify(state.scenario);
    state.runSource = 'form';
  }
  // Nothing is fetched from another site unless the person agrees first.
  let doc = null;
  try { doc = JSON.parse(text); } catch { /* the core reports it */ }
  const urls = doc ? externalUrls(doc) : [];
  if (urls.length) {
    document.body.dataset.runState = 'confirming';
    if (!(await confirmExternal(ui.externalDialog, ui.externalList, urls))) {
      ui.status.textContent = 'Not run: loading the external files was declined.';
      document.body.dataset.runState = 'declined';
      return;
    }
    delete document.body.dataset.runState;
  }
  if (doc && binarySources(doc).length) {
    ui.status.textContent = 'Fetching module archives…';
    try {
      text = JSON.stringify(await embedBinarySources(doc));
    } catch (e) {
      showMessage(e.message, { source: 'run' });
      ui.status.textContent = 'Failed.';
      document.body.dataset.runState = 'error';
      return;
    }
  }
  clearTimeout(validateTimer);
  clearMessage();
  stepView.starting(doc);
  ui.progress.value = 0;
  ui.status.textContent = 'Starting…';
  summary.starting();
  setRunning(true);
  client.run(text);
}

ui.cancel.addEventListener('click', () => {
  ui.status.textContent = 'Cancelling…';
  client.cancel();
});

ui.downloadScenario.addEventListener('click', () => {
  const blob = new Blob([JSON.stringify(state.scenario, null, 2)], { type: 'application/json' });
  const url = URL.createObjectURL(blob);
  ui.downloadScenario.href = url;
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
});

/** The scenario as a .json file named after its preset (or "scenario"). */
function saveScenario() {
  const text = state.jsonDirty ? ui.json.value : JSON.stringify(state.scenario, null, 2);
  downloadBlob(new Blob([text], { type: 'application/json' }), `${state.presetId ?? 'scenario'}.json`);
}
ui.saveFile.addEventListener('click', saveScenario);
ui.shareDownload.addEventListener('click', saveScenario);

ui.copyLink.addEventListener('click', async () => {
  const text = state.jsonDirty ? ui.json.value : JSON.stringify(state.scenario);
  const r = await shareLink(client, text, {
    box: ui.shareBox, note: ui.shareNote, field: ui.shareField, input: ui.shareLink, download: ui.shareDownload,
  });
  if (r.message) showMessage(`No link: ${r.message}`, { source: 'validation' });
});

initFileOpen({
  button: ui.openFile, input: ui.fileInput, overlay: ui.dropOverlay,
  onText: (text, name) => {
    if (client.busy) client.cancel();
    if (openScenarioText(text, name)) {
      setHash('');
      ui.status.textContent = `Opened ${name}. Press Run.`;
    }
  },
  onError: (message) => showMessage(message, { source: 'validation', path: null }),
  fmuButton: ui.addFmu, fmuInput: ui.fmuInput,
  onFmu: (bytes, fileName) => {
    if (client.busy) client.cancel();
    const [next, name] = withBinaryModule(state.scenario, bytes, fileName);
    clearMessage();
    selectInPicker(null);
    setScenario(next);
    // Connections are edited as JSON; validation names what is still unconnected.
    ui.jsonDetails.open = true;
    validateSoon();
    ui.status.textContent = `Added module ${name} from ${fileName}: connect it in the JSON view.`;
  },
});

ui.downloadCsv.addEventListener('click', (e) => {
  if (state.lastResult?.csv == null) {
    e.preventDefault();
    client.requestCsv();
  }
});

function setCsv(text) {
  if (state.csvUrl) URL.revokeObjectURL(state.csvUrl);
  state.csvUrl = text == null ? null : URL.createObjectURL(new Blob([text], { type: 'text/csv' }));
  ui.downloadCsv.href = state.csvUrl ?? '#';
  ui.downloadCsv.hidden = false;
}

const client = new SimulationWorker({
  ready(msg, restarted) {
    if (restarted) return;
    state.presets = Array.isArray(msg.presets) ? msg.presets : [];
    editor.setCatalog(msg.catalog);
    ui.version.textContent = msg.version;
    fillPicker(ui.preset, state.presets, CUSTOM);
    ui.preset.disabled = false;
    ui.run.disabled = false;
    ui.status.textContent = 'Ready.';
    // The default preset first, so the page is complete even if the address fails to open.
    loadPreset(state.presets[0]?.id, { updateHash: false });
    openFromAddress().finally(resolveReady);
  },
  started(msg) {
    plots.setSignals(msg.signals, chosenOutputs());
    plots.reset(msg.totalSteps + 1);
    editor.setOutputs(msg.signals.map((s) => s.name));
    state.signals = msg.signals;
    // Model-based correction: whether its Jacobians are the modules' directional
    // derivatives or finite differences (core: Simulation::jacobian_source).
    summary.started(msg);
    stepView.started(msg);
    ui.status.textContent = stepView.status({ stepsDone: 0, totalSteps: msg.totalSteps, time: null });
  },
  progress(msg) {
    plots.append(msg.columns);
    ui.progress.value = stepView.progressOf(msg);
    ui.status.textContent = stepView.status(msg);
  },
  result(msg) {
    plots.setAll(msg.columns);
    const signals = state.signals ?? [];
    const n = signals.length;
    let k = 1 + n;
    state.lastResult = {
      time: msg.columns[0],
      signals: signals.map((s, j) => ({
        name: s.name, unit: s.unit, cosim: msg.columns[1 + j], reference: s.hasReference ? msg.columns[k++] : null,
      })),
      globalNrmse: msg.globalNrmse, csv: msg.csv, stepsDone: msg.stepsDone, totalSteps: msg.totalSteps,
    };
    const steps = stepView.finished(msg, k);
    Object.assign(state.lastResult, { steps: VariableStepView.named(steps), rmsDefects: msg.rmsDefects ?? [], stats: msg.stats });
    setRunning(false);
    ui.progress.value = 1;
    summary.finished(msg, steps ? steps[0] : null);
    ui.status.textContent = 'Done.';
    setCsv(msg.csv);
    document.body.dataset.runState = 'done';
  },
  cancelled(msg) {
    setRunning(false);
    ui.status.textContent = msg.restarted ? 'Cancelled (the worker was restarted).' : 'Cancelled.';
    summary.clear();
    document.body.dataset.runState = 'cancelled';
  },
  error(msg) {
    setRunning(false);
    ui.status.textContent = 'Failed.';
    // Messages from before kinds existed (or a stand-in worker) are settings unless fatal.
    const kind = msg.kind ?? (msg.fatal ? 'internal' : 'scenario');
    state.lastError = { kind, message: msg.message, run: msg.run ?? null };
    if (msg.run) summary.failed(msg.run); else summary.clear();
    if (kind === 'scenario') {
      // Bad settings: point at the field, or at the JSON view the scenario came from.
      const fromJson = state.runSource === 'json';
      const path = pathOf(msg.message);
      const text = fromJson && !path ? `Scenario JSON: ${msg.message}` : msg.message;
      if (fromJson) ui.json.setAttribute('aria-invalid', 'true');
      showMessage(text, { source: 'run', kind });
    } else {
      // The settings were accepted: no field to point at; the partial plot stays.
      showMessage(msg.message, { source: 'run', kind, path: null, note: failureNote(kind, msg.run) });
    }
    document.body.dataset.runState = 'error';
  },
  validated(msg) {
    if (msg.id !== state.validateId) return;
    if (msg.message) {
      const fromJson = state.validateSource === 'json';
      const text = fromJson && !pathOf(msg.message) ? `Scenario JSON: ${msg.message}` : msg.message;
      showMessage(text, { source: 'validation' });
    } else if (messages.source === 'validation') {
      clearMessage();
    }
  },
  csv(msg) {
    if (msg.csv == null) return;
    setCsv(msg.csv);
    if (state.lastResult) state.lastResult.csv = msg.csv;
    ui.downloadCsv.click();
  },
});

ui.preset.addEventListener('change', () => loadPreset(ui.preset.value));
new DefectStudyView(client);
// A link pasted into the address bar of an open page.
window.addEventListener('hashchange', () => { if (!client.busy) openFromAddress(); });
initTheme($('theme'));
// On a phone the description would push Run half a screen down: start it collapsed.
if (window.matchMedia('(max-width: 640px)').matches) ui.about.open = false;
ui.showDifference.addEventListener('change', () => plots.setShowDifference(ui.showDifference.checked));

// Enter in a settings field runs the scenario, as submitting a form would.
$('scenario-form').addEventListener('keydown', (e) => {
  if (e.key === 'Enter' && e.target instanceof HTMLInputElement && e.target.type === 'text') {
    e.preventDefault();
    if (!ui.run.disabled) ui.run.click();
  }
});

// Read-only hooks for the end-to-end tests.
window.cosimPlayground = {
  ready,
  get lastResult() { return state.lastResult; },
  get lastError() { return state.lastError; },
  get scenario() { return state.scenario; },
  get busy() { return client.busy; },
  plotted: () => plots.plotted(),
  stepsPlotted: () => stepView.plotted(),
  svgOf: (name) => plots.svgOf(name),
  restartWorker: () => client.restart(),
  get presetId() { return state.presetId; },
};
