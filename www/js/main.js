// Page controller: creates the store (store.js) and the views that render from it, and
// wires them to the simulation worker. All numerics happen in the worker's wasm core;
// the page only moves data and shows it. Seams: scenario_views.js (heading, picker, JSON
// view, address), opening.js (presets, links, files), run_controller.js (runs),
// file_controls.js (links, downloads, file open), validation.js.

import { TextOutputsPanel } from './text_outputs.js';
import { Store } from './store.js';
import { ScenarioEditor } from './editor.js';
import { SimulationWorker } from './run_client.js';
import { TimeResponsePlots } from './plots/time_response.js';
import { VariableStepView } from './variable_steps.js';
import { EnergyPanel } from './plots/energy_panel.js';
import { initTheme } from './theme.js';
import { fillPicker } from './picker.js';
import { AnalysisPanel } from './analysis/panel.js';
import { DefectStudyView } from './analysis/defect_study_view.js';
import { RunSummary } from './run_summary.js';
import { MessageArea } from './message.js';
import { Validator } from './validation.js';
import { CUSTOM, bindScenarioViews, scenarioEdited, setScenario } from './scenario_views.js';
import { loadPreset, openFromAddress } from './opening.js';
import { runAndWait, runHandlers, startRun } from './run_controller.js';
import { bindPins } from './pins_view.js';
import { LiveSliders } from './sliders.js';
import { History } from './history.js';
import { bindDiagram } from './diagram/diagram_panel.js';
import { bindFileControls } from './file_controls.js';

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

const store = new Store({
  presets: [], presetId: null, scenario: null, edited: false, jsonDirty: false, address: null,
  lastResult: null, lastError: null, signals: [], pins: [], validation: null,
});

/** Everything the page's modules share: the store, the elements, the views, the worker. */
const page = { store, ui };
page.plots = new TimeResponsePlots($('plots'));
page.stepView = new VariableStepView($('macro-steps'));
page.energy = new EnergyPanel($('energy'));
page.texts = new TextOutputsPanel($('text-outputs'));
page.summary = new RunSummary({
  globalError: $('global-error'), jacobians: $('jacobians'), jacobiansItem: $('jacobians-item'),
  steps: $('steps'), events: $('events'), rejected: $('rejected'), elapsed: $('elapsed'),
  stepsLabel: $('steps-label'), stepSize: $('step-size'), stepSizeItem: $('step-size-item'),
  rmsDefects: $('rms-defects'),
});
page.editor = new ScenarioEditor({
  masterRoot: $('master-fields'), modulesRoot: $('module-fields'), connectionList: $('connection-list'),
  plotRoot: $('plot-checkboxes'), onChange: (opts) => onEdit(opts),
});
// The analysis section reads the scenario and writes back only its `analysis` field.
page.analysis = new AnalysisPanel({
  getScenario: () => store.state.scenario,
  onChange: (spec) => {
    const scenario = store.state.scenario;
    if (!scenario) return;
    if (spec) scenario.analysis = spec; else delete scenario.analysis;
    scenarioEdited(store, 'analysis');
  },
  // The stability map's ΔT slider, released: the scenario takes the macro-step, the map follows.
  onMacroStep: (h) => {
    store.state.scenario.master.macro_step = h;
    scenarioEdited(store, 'form');
    page.editor.setScenario(store.state.scenario);
    page.analysis.compute({ progressive: true });
  },
});
page.messages = new MessageArea(
  { box: ui.message, text: ui.messageText, note: ui.messageNote, goto: ui.messageGoto }, page.editor);
page.validator = new Validator(page);
page.startRun = (opts) => startRun(page, opts);
page.runAndWait = (opts) => runAndWait(page, opts);

let resolveReady;
const ready = new Promise((r) => { resolveReady = r; });

page.client = new SimulationWorker(runHandlers(page, (msg, restarted) => {
  if (restarted) return;
  store.set({ presets: Array.isArray(msg.presets) ? msg.presets : [] });
  page.editor.setCatalog(msg.catalog);
  page.onCatalog?.();
  ui.version.textContent = msg.version;
  fillPicker(ui.preset, store.state.presets, CUSTOM);
  ui.preset.disabled = false;
  ui.run.disabled = false;
  ui.status.textContent = 'Ready.';
  // The default preset first, so the page is complete even if the address fails to open.
  loadPreset(page, store.state.presets[0]?.id, { updateHash: false });
  openFromAddress(page).finally(resolveReady);
}));

bindScenarioViews(page);
page.history = new History(store);
page.diagram = bindDiagram(page, page.history);
bindFileControls(page);
bindPins(page);
page.sliders = new LiveSliders(page, { root: $('live'), choice: $('slider-choice'), add: $('slider-add'), list: $('slider-list') });

function onEdit(opts = {}) {
  if (opts.plotOnly) {
    page.plots.choose(Array.isArray(store.state.scenario?.plot) ? store.state.scenario.plot : []);
    return;
  }
  scenarioEdited(store, 'form');
  const bad = page.editor.firstInvalid();
  if (bad) {
    page.messages.show(bad.message, { path: bad.path, source: 'form' });
    return;
  }
  if (page.messages.source === 'form') page.messages.clear();
  page.validator.soon();
}

// ----- raw JSON view: Apply and Revert ------------------------------------------------------

ui.applyJson.addEventListener('click', () => {
  const text = ui.json.value;
  let parsed;
  try {
    parsed = JSON.parse(text);
  } catch {
    // The core's parser names line and column; ask it for the message.
    ui.json.setAttribute('aria-invalid', 'true');
    page.validator.now(text, 'json');
    return;
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    ui.json.setAttribute('aria-invalid', 'true');
    page.messages.show('Scenario JSON: expected an object { "schema_version": 1, "modules": [...], ... }', { source: 'validation', path: null });
    return;
  }
  page.messages.clear();
  setScenario(store, parsed, { from: 'json' });
  page.validator.soon();
});

ui.resetJson.addEventListener('click', () => { page.writeJson(); page.messages.clear(); });

// ----- run bar and page-wide controls --------------------------------------------------------

ui.run.addEventListener('click', () => page.startRun());
ui.cancel.addEventListener('click', () => {
  ui.status.textContent = 'Cancelling…';
  page.client.cancel();
});
ui.preset.addEventListener('change', () => loadPreset(page, ui.preset.value));
new DefectStudyView(page.client);
// A link pasted into the address bar of an open page.
window.addEventListener('hashchange', () => { if (!page.client.busy) openFromAddress(page); });
initTheme($('theme'));
// On a phone the description would push Run half a screen down: start it collapsed.
if (window.matchMedia('(max-width: 640px)').matches) ui.about.open = false;
ui.showDifference.addEventListener('change', () => page.plots.setShowDifference(ui.showDifference.checked));

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
  store,
  get lastResult() { return store.state.lastResult; },
  get lastError() { return store.state.lastError; },
  get scenario() { return store.state.scenario; },
  get busy() { return page.client.busy; },
  plotted: () => page.plots.plotted(),
  stepsPlotted: () => page.stepView.plotted(),
  energyPlotted: () => page.energy.plotted(),
  svgOf: (name) => page.plots.svgOf(name),
  restartWorker: () => page.client.restart(),
  get presetId() { return store.state.presetId; },
  history: () => ({ undo: page.history.undos.length, redo: page.history.redos.length }),
  get runsFinished() { return page.runsFinished ?? 0; },
  get workerResults() { return page.client.resultsSeen ?? 0; },
};
