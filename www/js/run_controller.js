// Running: starts a run of the scenario (the form's, or the JSON view's unapplied text),
// asks before fetching files from other sites, and turns the worker's run stream into
// store updates (signals, lastResult, lastError) and the run bar, summary and plots.

import { binarySources, confirmExternal, embedBinarySources, externalUrls } from './external.js';
import { VariableStepView } from './variable_steps.js';
import { failureNote } from './run_summary.js';
import { pathOf } from './message.js';
import { setScenario } from './scenario_views.js';
import { chainPlotOutputs, isChain } from './chain_form.js';
import { STEP_COLUMNS } from './plots/step_panel.js';

function setRunning(ui, running) {
  ui.run.disabled = running;
  ui.cancel.disabled = !running;
  ui.preset.disabled = running;
  document.body.classList.toggle('running', running);
}

/**
 * Runs the form's scenario, or the JSON view's text when it holds unapplied edits, or
 * `scenario` when given (a pinned variant). `replace`: a run in flight is superseded
 * (the worker cancels it at its next chunk; its replies are dropped).
 */
export async function startRun(page, { replace = false, scenario = null } = {}) {
  const { store, ui, client, messages } = page;
  if (client.busy && !replace) return;
  // The run's own messages replace any validation still under way.
  page.validator.stop();
  let text;
  if (scenario) {
    text = JSON.stringify(scenario);
    page.runSource = 'form';
  } else if (store.state.jsonDirty) {
    text = ui.json.value;
    page.runSource = 'json';
    try {
      const parsed = JSON.parse(text);
      if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) setScenario(store, parsed, { keepJsonText: true, from: 'json' });
    } catch { /* sent as written: the core reports where the JSON breaks */ }
  } else {
    const bad = page.editor.firstInvalid();
    if (bad) {
      messages.show(bad.message, { path: bad.path, source: 'form' });
      document.body.dataset.runState = 'invalid';
      return;
    }
    text = JSON.stringify(store.state.scenario);
    page.runSource = 'form';
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
      messages.show(e.message, { source: 'run' });
      ui.status.textContent = 'Failed.';
      document.body.dataset.runState = 'error';
      return;
    }
  }
  page.validator.stop();
  messages.clear();
  page.stepView.starting(doc);
  page.energy.clear();
  ui.progress.value = 0;
  ui.status.textContent = 'Starting…';
  page.summary.starting();
  setRunning(ui, true);
  page.runScenario = doc;
  client.run(text);
}

/** Starts a run (as startRun) and resolves with how it ended: 'done', 'error', 'cancelled', ... */
export function runAndWait(page, opts = {}) {
  return new Promise((resolve) => {
    delete document.body.dataset.runState;
    page.runEnded = resolve;
    startRun(page, opts).then(() => {
      // Not started (invalid, declined): ended already.
      if (!page.client.busy && page.runEnded === resolve) { page.runEnded = null; resolve(document.body.dataset.runState ?? 'not run'); }
    });
  });
}

/** Handlers of the simulation worker's run stream (run_client.js). */
export function runHandlers(page, onReady) {
  const { store, ui } = page;
  const ended = (state) => {
    document.body.dataset.runState = state;
    const resolve = page.runEnded;
    page.runEnded = null;
    resolve?.(state);
  };
  // A chain records its plot itself (the scenario's plot stays empty): chain_form.js picks the charts.
  const chosenOutputs = (signals) => (isChain(store.state.scenario) ? chainPlotOutputs(signals)
    : Array.isArray(store.state.scenario?.plot) ? store.state.scenario.plot : []);
  return {
    ready: onReady,
    started(msg) {
      page.plots.setSignals(msg.signals, chosenOutputs(msg.signals));
      page.texts?.clear();
      page.plots.reset(msg.totalSteps + 1);
      page.editor.setOutputs(msg.signals.map((s) => s.name));
      store.set({ signals: msg.signals });
      // Model-based correction: whether its Jacobians are the modules' directional
      // derivatives or finite differences (core: Simulation::jacobian_source).
      page.summary.started(msg);
      page.stepView.started(msg);
      // Energy columns follow the outputs, the references and a variable-step run's step columns.
      const refs = msg.signals.filter((s) => s.hasReference).length;
      const span = page.stepView.span;
      page.energy.started({
        names: msg.energyNames ?? [], first: 1 + msg.signals.length + refs + (msg.variableSteps ? STEP_COLUMNS.length : 0),
        totalSteps: msg.totalSteps, span: span?.stop != null ? [span.start, span.stop] : null,
        corrected: !!page.runScenario?.master?.energy_correction,
      });
      ui.status.textContent = page.stepView.status({ stepsDone: 0, totalSteps: msg.totalSteps, time: null });
    },
    progress(msg) {
      page.plots.append(msg.columns);
      page.energy.append(msg.columns);
      ui.progress.value = page.stepView.progressOf(msg);
      ui.status.textContent = page.stepView.status(msg);
    },
    result(msg) {
      page.plots.setAll(msg.columns);
      const signals = store.state.signals ?? [];
      let k = 1 + signals.length;
      const lastResult = {
        time: msg.columns[0],
        signals: signals.map((s, j) => ({
          name: s.name, unit: s.unit, type: s.type, cosim: msg.columns[1 + j], reference: s.hasReference ? msg.columns[k++] : null,
        })),
        globalNrmse: msg.globalNrmse, couplingBodyError: msg.couplingBodyError ?? null, csv: msg.csv, stepsDone: msg.stepsDone, totalSteps: msg.totalSteps,
        elapsedMs: msg.elapsedMs, scenario: page.runScenario,
      };
      const steps = page.stepView.finished(msg, k);
      Object.assign(lastResult, { steps: VariableStepView.named(steps), rmsDefects: msg.rmsDefects ?? [], stats: msg.stats });
      page.energy.finished(msg.columns, msg.energySummary);
      page.texts?.show(msg.texts ?? []);
      lastResult.energy = page.energy.result();
      setRunning(ui, false);
      ui.progress.value = 1;
      page.summary.finished(msg, steps ? steps[0] : null);
      ui.status.textContent = 'Done.';
      page.runsFinished = (page.runsFinished ?? 0) + 1;
      store.set({ lastResult }, { from: 'run' });
      ended('done');
    },
    cancelled(msg) {
      setRunning(ui, false);
      ui.status.textContent = msg.restarted ? 'Cancelled (the worker was restarted).' : 'Cancelled.';
      page.summary.clear();
      ended('cancelled');
    },
    error(msg) {
      setRunning(ui, false);
      ui.status.textContent = 'Failed.';
      // Messages from before kinds existed (or a stand-in worker) are settings unless fatal.
      const kind = msg.kind ?? (msg.fatal ? 'internal' : 'scenario');
      store.set({ lastError: { kind, message: msg.message, run: msg.run ?? null } });
      if (kind === 'scenario') store.set({ validation: msg.message });
      if (msg.run) page.summary.failed(msg.run); else page.summary.clear();
      if (kind === 'scenario') {
        // Bad settings: point at the field, or at the JSON view the scenario came from.
        const fromJson = page.runSource === 'json';
        const path = pathOf(msg.message);
        const text = fromJson && !path ? `Scenario JSON: ${msg.message}` : msg.message;
        if (fromJson) ui.json.setAttribute('aria-invalid', 'true');
        page.messages.show(text, { source: 'run', kind });
      } else {
        // The settings were accepted: no field to point at; the partial plot stays.
        page.messages.show(msg.message, { source: 'run', kind, path: null, note: failureNote(kind, msg.run) });
      }
      ended('error');
    },
  };
}
